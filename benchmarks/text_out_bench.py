"""Jelly -> Turtle / TriG (``jelly.convert.convert``, pyoxigraph's writers), the way jelly takes
now against the way it took before 2026-11-25's eighth stop, side by side in one process.

Now: the Jelly decoder writes each frame as N-Triples / N-Quads text and pyoxigraph parses it
into its own terms.  Before: the decoder made jelly terms and ``jelly.oxigraph`` made a
pyoxigraph term of each (``OxigraphSink.text = False`` brings that way back).  Both write the
same bytes; the bench checks it.

Recipe (docs/performance.md, "Jelly to Turtle and TriG")::

    python benchmarks/text_out_bench.py --statements 300000 --repeat 5 \\
        --out benchmarks/results/text-out.json

Data: ``knowledge-graph`` and ``sensors-quads`` of benchmarks/datagen.py (seed 1), written as
Jelly once in ``--work``.  Times are wall seconds of one conversion to a file, medians of
``--repeat`` rounds in alternating order.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import datagen  # noqa: E402
import jelly.oxigraph  # noqa: E402
from jelly.convert import convert  # noqa: E402


def prepare(work: str, name: str, statements: int) -> str:
    path = os.path.join(work, f"{name}-{statements}.jelly")
    if not os.path.exists(path):
        nt = path[:-len(".jelly")] + (".nq" if "quads" in name else ".nt")
        datagen.write(name, statements, 1, nt)
        convert(nt, path)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--statements", type=int, default=300_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--work", default=os.path.join(os.path.dirname(__file__), ".work", "text-out"))
    ap.add_argument("--out", help="write the results as JSON here")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    cases = {"knowledge-graph -> Turtle":
             (prepare(args.work, "knowledge-graph", args.statements), "ttl"),
             "sensors-quads -> TriG":
             (prepare(args.work, "sensors-quads", args.statements), "trig")}
    times: dict[str, dict[str, list[float]]] = {c: {"now": [], "before": []} for c in cases}
    for rnd in range(args.repeat):
        for case, (src, fmt) in cases.items():
            outputs = {}
            for way in (("now", "before") if rnd % 2 == 0 else ("before", "now")):
                jelly.oxigraph.OxigraphSink.text = way == "now"
                dest = os.path.join(args.work, f"out-{way}.{fmt}")
                start = time.perf_counter()
                convert(src, dest)
                times[case][way].append(time.perf_counter() - start)
                with open(dest, "rb") as f:
                    outputs[way] = f.read()
            if outputs["now"] != outputs["before"]:
                raise SystemExit(f"the two ways wrote different {fmt} for {case}")
        print(f"round {rnd + 1} done", file=sys.stderr, flush=True)
    jelly.oxigraph.OxigraphSink.text = True
    print(f"| {args.statements:,} statements | now, s | before, s | before / now |")
    print("|---|--:|--:|--:|")
    for case in cases:
        now, before = (statistics.median(times[case][w]) for w in ("now", "before"))
        print(f"| {case} | {now:.2f} | {before:.2f} | {before / now:.2f} |")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"statements": args.statements, "times": times}, f, indent=1)


if __name__ == "__main__":
    main()
