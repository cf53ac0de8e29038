"""Reading Jelly of different frame shapes (not part of the test suite): many small frames (a
stream of RDF messages: one or four statements a frame), the usual 1,024 rows a frame, and
frames of long literals (3 MB each).

Recipe (the table in docs/performance.md, "Frame shapes")::

    python benchmarks/frame_shapes_bench.py --repeat 5 --baseline /tmp/wt-base \\
        --out benchmarks/results/frame-shapes.json

Data (prepared once in ``--work``): 200k statements of ``sensors`` (benchmarks/datagen.py,
seed 1) written by jelly with 1, 4 and 1,024 rows per frame, and 50k statements whose objects
are literals of 1-5 KB (seeded), 1,024 rows per frame.  Each row is timed in fresh processes,
the tools of a row one after the other in each round, medians over ``--repeat`` rounds:

* ``parse``: CPU time of iterating ``jelly.parse(path)`` (native terms), after the imports;
* ``pyjelly``: the same with pyjelly's ``parse_jelly_flat`` (its generic terms);
* ``to-nt``: wall time of the command ``jelly convert PATH OUT.nt --jobs 1``, start-up included.

The adapters, with ``--tools rdflib,oxigraph,spark`` (CPU time as for ``parse``):

* ``rdflib``: iterating ``jelly.rdflib.parse_statements(path)`` (rdflib terms, no graph: an
  rdflib graph's store takes ten times as long as the reading);
* ``oxigraph``: ``jelly.oxigraph.load(path)`` into a new in-memory ``pyoxigraph.Store``;
* ``spark``: the record batches the Spark data source's Python side makes of the file
  (``jelly.spark.datasource.read_file``, N-Triples columns), without a Spark session.

With ``--baseline DIR`` (a checkout with its extensions built) every tool but pyjelly is also
timed with jelly imported from DIR, in the same rounds: before and after a change.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPES = ("rows1", "rows4", "rows1024", "long-literals")
TOOLS = ("parse", "pyjelly", "to-nt", "rdflib", "oxigraph", "spark")


def _prepare(work: str) -> dict[str, str]:
    import jelly
    sys.path.insert(0, HERE)
    import datagen
    os.makedirs(work, exist_ok=True)
    files = {name: os.path.join(work, f"{name}.jelly") for name in SHAPES}
    if all(os.path.exists(p) for p in files.values()):
        return files
    nt = os.path.join(work, "sensors-200k.nt")
    datagen.write("sensors", 200_000, 1, nt)
    for rows in (1, 4, 1024):
        subprocess.run([sys.executable, "-m", "jelly", "convert", nt, files[f"rows{rows}"],
                        "--rows-per-frame", str(rows), "--quiet"], check=True)
    r = random.Random(1)
    words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9)))
             for _ in range(5000)]
    sts = []
    for i in range(50_000):
        text = []
        size = r.randint(1000, 5000)
        while sum(map(len, text)) + len(text) < size:
            text.append(r.choice(words))
        sts.append((jelly.IRI(f"http://example.org/doc/{i}"),
                    jelly.IRI("http://purl.org/dc/terms/abstract"), jelly.Literal(" ".join(text))))
    jelly.serialize(sts, files["long-literals"], rows_per_frame=1024)
    del sts
    return files


def _worker(tool: str, path: str) -> None:
    """One timed parse in this process, after the imports: prints {"cpu", "n"}."""
    if tool == "pyjelly":
        from pyjelly.integrations.generic.parse import parse_jelly_flat
        t0 = time.process_time()
        with open(path, "rb") as f:
            n = sum(1 for _ in parse_jelly_flat(f))
    elif tool == "rdflib":
        from jelly.rdflib.streams import parse_statements
        t0 = time.process_time()
        n = sum(1 for _ in parse_statements(path))
    elif tool == "oxigraph":
        import jelly.oxigraph
        t0 = time.process_time()
        n = len(jelly.oxigraph.load(path))
    elif tool == "spark":
        from pyspark.sql.pandas.types import to_arrow_schema
        from jelly.spark import _options, datasource
        schema = to_arrow_schema(datasource.read_schema({}))
        options = _options.ReadOptions({})
        t0 = time.process_time()
        n = sum(b.num_rows for b in datasource.read_file(path, options, schema))
    else:
        import jelly
        t0 = time.process_time()
        n = sum(1 for _ in jelly.parse(path))
    print(json.dumps({"cpu": time.process_time() - t0, "n": n}))


def _env(jelly_dir: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if jelly_dir:
        env["PYTHONPATH"] = jelly_dir + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _parse(tool: str, path: str, jelly_dir: str | None) -> float:
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", tool, path],
                         capture_output=True, text=True, check=True, env=_env(jelly_dir))
    return float(json.loads(out.stdout.strip().splitlines()[-1])["cpu"])


def _to_nt(path: str, jelly_dir: str | None, out: str) -> float:
    t0 = time.perf_counter()
    # Run from the output's directory: ``-m`` puts the working directory first on the path.
    subprocess.run([sys.executable, "-m", "jelly", "convert", path, out, "--jobs", "1",
                    "--quiet"], check=True, env=_env(jelly_dir), cwd=os.path.dirname(out))
    return time.perf_counter() - t0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--worker", nargs=2, metavar=("TOOL", "PATH"), help=argparse.SUPPRESS)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--baseline", metavar="DIR", help="also time jelly imported from DIR")
    p.add_argument("--tools", default="parse,pyjelly,to-nt",
                   help=f"comma-separated, of {', '.join(TOOLS)} (default: %(default)s)")
    p.add_argument("--work", default=os.path.join(HERE, ".work", "frame-shapes"))
    p.add_argument("--out", help="write the results as JSON here")
    args = p.parse_args()
    if args.worker:
        _worker(*args.worker)
        return
    tools = args.tools.split(",")
    if set(tools) - set(TOOLS):
        p.error(f"unknown tools: {', '.join(sorted(set(tools) - set(TOOLS)))}")
    files = _prepare(args.work)
    runs: list[tuple[str, str | None]] = [(tool, None) for tool in tools]
    if args.baseline:
        runs += [(tool, args.baseline) for tool in tools if tool != "pyjelly"]
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for shape in SHAPES:
            times: dict[str, list[float]] = {}
            for _ in range(args.repeat):
                for kind, where in runs:
                    key = kind + (" (baseline)" if where else "")
                    if kind == "to-nt":
                        t = _to_nt(files[shape], where, os.path.join(tmp, "out.nt"))
                    else:
                        t = _parse("jelly" if kind == "parse" else kind, files[shape], where)
                    times.setdefault(key, []).append(t)
            results[shape] = {k: statistics.median(v) for k, v in times.items()}
            row = results[shape]
            ratio = (f"pyjelly/parse {row['pyjelly'] / row['parse']:.1f}x"
                     if "pyjelly" in row and "parse" in row else "")
            print(shape, json.dumps({k: round(v, 4) for k, v in row.items()}), ratio, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"when": time.strftime("%Y-%m-%d %H:%M"), "repeat": args.repeat,
                       "tools": tools, "baseline": args.baseline, "results": results}, f,
                      indent=1)


if __name__ == "__main__":
    main()
