"""Writing literals that need escapes as N-Triples text (not part of the test suite): the
time of ``term_to_nt`` on four shapes of literal, and the time and peak memory of writing
one 45 MB literal of 15M newlines as RDF Patch text, each in a fresh process.

Recipe (the table in docs/performance.md, "Escapes in text output")::

    python benchmarks/escape_bench.py --repeat 5 --baseline /tmp/wt-base \\
        --out benchmarks/results/escapes.json

With ``--baseline DIR`` (a checkout with its extensions built) every row is also timed with
jelly imported from DIR, in the same rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SHAPES = ("1 MB, one newline", "1 MB, a newline in ten", "200k short literals with quotes",
          "1 MB non-Latin, one tab", "45 MB of newlines as patch text")


def _worker(shape: str) -> None:
    import resource

    from jelly import IRI, Literal
    from jelly._ntformat import term_to_nt
    if shape == SHAPES[4]:
        import jelly.rdfpatch as rp
        from jelly.patch import Add
        op = Add(IRI("http://e/s"), IRI("http://e/p"), Literal("ab\n" * 15_000_000))
        t0 = time.perf_counter()
        rp.serialize([op])
    else:
        literals = {SHAPES[0]: [Literal("a" * 1_000_000 + "\n")] * 20,
                    SHAPES[1]: [Literal("abcdefghi\n" * 100_000)] * 20,
                    SHAPES[2]: [Literal(f'he said "hi" {i}') for i in range(200_000)],
                    SHAPES[3]: [Literal("é€" * 500_000 + "\t")] * 20}[shape]
        t0 = time.perf_counter()
        for lit in literals:
            term_to_nt(lit)
    seconds = time.perf_counter() - t0
    print(json.dumps({"s": seconds,
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def _run(shape: str, jelly_dir: str | None) -> dict:
    env = dict(os.environ)
    if jelly_dir:
        env["PYTHONPATH"] = jelly_dir + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", shape],
                         capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--baseline", metavar="DIR", help="also time jelly imported from DIR")
    p.add_argument("--out", help="write the results as JSON here")
    args = p.parse_args()
    if args.worker:
        _worker(args.worker)
        return
    sides = [("now", None)] + ([("baseline", args.baseline)] if args.baseline else [])
    results: dict[str, dict[str, dict[str, float]]] = {}
    for shape in SHAPES:
        runs: dict[str, list[dict]] = {name: [] for name, _ in sides}
        for _ in range(args.repeat):
            for name, where in sides:
                runs[name].append(_run(shape, where))
        results[shape] = {name: {"s": statistics.median(r["s"] for r in rs),
                                 "peak_mb": statistics.median(r["peak_mb"] for r in rs)}
                          for name, rs in runs.items()}
        print(shape, json.dumps({k: {m: round(v, 4) for m, v in d.items()}
                                 for k, d in results[shape].items()}), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"when": time.strftime("%Y-%m-%d %H:%M"), "repeat": args.repeat,
                       "baseline": args.baseline, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
