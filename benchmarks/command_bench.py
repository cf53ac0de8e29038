"""Whole ``jelly`` commands on large generated data: wall seconds and peak memory, against
another checkout (not part of the test suite).  Groups of commands:

* ``validate``: ``jelly validate FILE.jelly --compare-to FILE.nt`` as datasets and
  ``--ordered``, and without a reference;
* ``documents``: ``jelly convert FILE.jelly`` to RDF/XML and to JSON-LD (single documents);
* ``jelly-text``: ``jelly convert`` of Jelly-Text (``--text-statements`` of the same data,
  printed by this checkout) to N-Triples, and of the Jelly file to Jelly-Text;
* ``text-in``: ``jelly convert`` of Turtle, TriG, JSON-LD and RDF/XML (the same
  ``--text-statements``, written by this checkout) to Jelly;
* ``star-out``: ``jelly convert`` of RDF-star Jelly (``--text-statements`` statements, every
  tenth with a quoted triple as object) to Turtle;
* ``patch``: ``jelly patch validate`` and ``jelly patch apply`` (to an empty dataset) of RDF
  Patch text of ``--text-statements`` operations in transactions of 100, with comments.

    python benchmarks/command_bench.py --only validate --baseline ../old --out results.json

Each run is a fresh ``python -m jelly`` process; its peak resident memory is the kernel's
(``ru_maxrss`` of the finished child).  Runs alternate between the two checkouts; medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(checkout: str, args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of ``python -m jelly ARGS`` importing jelly from
    ``checkout``."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
    start = time.perf_counter()
    # run from / : `python -m` puts the working directory first on sys.path, where a
    # checkout's jelly would win over PYTHONPATH
    pid = subprocess.Popen([sys.executable, "-m", "jelly", *args], env=env, cwd="/",
                           stdout=subprocess.DEVNULL).pid
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"jelly {' '.join(args)} failed ({checkout})")
    return seconds, usage.ru_maxrss / 1024


def prepare(work: str, statements: int) -> tuple[str, str]:
    """The generated sensor data as N-Triples and Jelly (each made once)."""
    sys.path.insert(0, HERE)
    import datagen
    os.makedirs(work, exist_ok=True)
    nt = os.path.join(work, f"sensors-{statements}.nt")
    if not os.path.exists(nt):
        datagen.write("sensors", statements, 1, nt + ".tmp")
        os.replace(nt + ".tmp", nt)
    jl = nt[:-3] + ".jelly"
    if not os.path.exists(jl):
        subprocess.run([sys.executable, "-m", "jelly", "convert", nt, jl, "-q"], check=True,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    return nt, jl


def star_data(work: str, statements: int) -> str:
    """An RDF-star Jelly file: every tenth statement has a quoted triple as its object."""
    jl = os.path.join(work, f"star-{statements}.jelly")
    if not os.path.exists(jl):
        nt = jl[:-6] + ".nt"
        with open(nt, "w") as f:
            for i in range(statements):
                if i % 10 == 0:
                    f.write(f'<http://ex/s{i}> <http://ex/says> << <http://ex/a{i}> '
                            f'<http://ex/b> "v{i}" >> .\n')
                else:
                    f.write(f'<http://ex/s{i}> <http://ex/p{i % 7}> "value {i}"@en .\n')
        subprocess.run([sys.executable, "-m", "jelly", "convert", nt, jl, "--rdf-star", "-q"],
                       check=True, env=dict(os.environ, PYTHONPATH=ROOT))
    return jl


def patch_text(work: str, operations: int) -> tuple[str, str]:
    """RDF Patch text of ``operations`` adds (transactions of 100, a comment before each)
    and an empty N-Quads dataset to apply it to."""
    os.makedirs(work, exist_ok=True)
    rdfp = os.path.join(work, f"patch-{operations}.rdfp")
    empty = os.path.join(work, "empty.nq")
    if not os.path.exists(rdfp):
        with open(rdfp + ".tmp", "w") as f:
            for i in range(operations):
                if i % 100 == 0:
                    f.write(f"# transaction {i // 100}\nTX .\n")
                f.write(f'A <http://ex/s{i % 1000}> <http://ex/p{i % 7}> "{i}" .\n')
                if i % 100 == 99 or i == operations - 1:
                    f.write("TC .\n")
        os.replace(rdfp + ".tmp", rdfp)
    open(empty, "w").close()
    return rdfp, empty


def in_formats(work: str, statements: int) -> dict[str, str]:
    """The generated sensor data (``statements``) as Jelly and as the text formats the
    ``jelly-text`` and ``text-in`` groups read, each written once by this checkout."""
    _, jl = prepare(work, statements)
    files = {".jelly": jl}
    for suffix in (".jelly.txt", ".ttl", ".trig", ".jsonld", ".rdf"):
        files[suffix] = jl[:-6] + suffix
        if not os.path.exists(files[suffix]):
            subprocess.run([sys.executable, "-m", "jelly", "convert", jl, files[suffix], "-q"],
                           check=True, env=dict(os.environ, PYTHONPATH=ROOT))
    return files


def cases_of(group: str, args: argparse.Namespace) -> dict[str, list[str]]:
    """The commands of one group (its data made first, and only its)."""
    work = os.path.abspath(args.work)
    out = os.path.join(work, "out")
    if group in ("validate", "documents"):
        nt, jl = prepare(work, args.statements)
        if group == "validate":
            return {"validate --compare-to (as datasets)": ["validate", jl, "--compare-to", nt],
                    "validate --compare-to --ordered": ["validate", jl, "--compare-to", nt,
                                                        "--ordered"],
                    "validate (no reference)": ["validate", jl]}
        return {"convert to RDF/XML": ["convert", jl, out + ".rdf", "-q"],
                "convert to JSON-LD": ["convert", jl, out + ".jsonld", "-q"]}
    if group == "patch":
        rdfp, empty = patch_text(work, args.text_statements)
        return {"patch validate (RDF Patch text)": ["patch", "validate", rdfp, "-q"],
                "patch apply (RDF Patch text to N-Quads)": ["patch", "apply", empty, rdfp,
                                                            out + ".nq"]}
    if group == "star-out":
        return {"convert RDF-star Jelly to Turtle": [
            "convert", star_data(work, args.text_statements), out + ".ttl", "-q"]}
    files = in_formats(work, args.text_statements)
    if group == "jelly-text":
        return {"convert Jelly-Text to N-Triples": ["convert", files[".jelly.txt"],
                                                    out + ".nt", "-q"],
                "convert Jelly to Jelly-Text": ["convert", files[".jelly"], out + ".jelly.txt",
                                                "-q"]}
    if group == "text-in":
        return {f"convert {label} to Jelly": ["convert", files[suffix], out + ".jelly", "-q"]
                for label, suffix in (("Turtle", ".ttl"), ("TriG", ".trig"),
                                      ("JSON-LD", ".jsonld"), ("RDF/XML", ".rdf"))}
    raise SystemExit(f"unknown group {group!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--statements", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", help="a checkout to compare with (its extensions built)")
    ap.add_argument("--only", default="validate", help="comma-separated groups: validate, "
                    "documents, jelly-text, text-in, star-out, patch (default validate)")
    ap.add_argument("--text-statements", type=int, default=200_000,
                    help="statements of the jelly-text, text-in and star-out groups, "
                         "operations of the patch group")
    ap.add_argument("--work", default=os.path.join(HERE, ".work", "validate"))
    ap.add_argument("--out", help="write the results as JSON here")
    args = ap.parse_args()
    sides = {"now": ROOT} | ({"baseline": args.baseline} if args.baseline else {})
    groups = args.only.split(",")
    cases = {case: argv for group in groups for case, argv in cases_of(group, args).items()}
    runs: dict[str, dict[str, list[tuple[float, float]]]] = {
        case: {side: [] for side in sides} for case in cases}
    for rnd in range(args.repeat):
        for case, argv in cases.items():
            for side in (list(sides) if rnd % 2 == 0 else list(sides)[::-1]):
                runs[case][side].append(run(sides[side], argv))
        print(f"round {rnd + 1} done", flush=True)
    big = {"validate", "documents"} & set(groups)
    print(f"\ngenerated data: {args.statements:,} statements" if big else "\ngenerated data:",
          f"{args.text_statements:,} statements" if set(groups) - big else "",
          f"(groups {', '.join(groups)}); medians of {args.repeat}\n")
    print("| jelly | " + " | ".join(f"{s}: s, peak MiB" for s in sides) + " |")
    print("|---|" + "--:|" * len(sides))
    results = {"statements": args.statements, "text_statements": args.text_statements,
               "groups": groups, "repeat": args.repeat, "cases": {}}
    for case in cases:
        row = {}
        for side in sides:
            row[side] = {"seconds": statistics.median(r[0] for r in runs[case][side]),
                         "peak_mib": statistics.median(r[1] for r in runs[case][side]),
                         "runs": runs[case][side]}
        results["cases"][case] = row
        print(f"| {case} | " + " | ".join(
            f"{row[s]['seconds']:.2f}, {row[s]['peak_mib']:.0f}" for s in sides) + " |")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
