"""Instruction counts of jelly operations, this checkout against another, under callgrind.

Wall-clock benchmarks on a shared 2-core machine move by several percent from run to run;
callgrind counts the instructions an operation executes, which repeat exactly for the same
binary and input whatever else the machine does.  Each operation runs in a fresh interpreter
once with one repetition and once with two; the difference is the cost of one repetition, with
interpreter start-up and imports cancelled out.

    python benchmarks/callgrind_compare.py --baseline /path/to/other/checkout \\
        --data benchmarks/.work/gen-sensors-100k-seed1/data.nt

The other checkout needs its extensions built in place (``python setup.py build_ext --inplace``).
Operations: parse (``jelly.parse`` of a Jelly file), serialize (``jelly.serialize`` of
pre-built statements), nt-parse (the N-Triples / N-Quads codec, ``jelly._ntriples.parse_nquads``),
to-nt (``jelly.parse`` of Jelly, each statement formatted as N-Triples), convert-to-jelly and
convert-from-jelly (``jelly convert`` of N-Triples to Jelly and back, through the command's
``main()`` in the interpreter).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

# The program run under callgrind: argv = op, input, repetitions.  Only the public API that
# every version of jelly has since the first release (and the text codec's parse_nquads).
PROGRAM = r"""
import sys, jelly
op, path, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
if op == "serialize":
    statements = list(jelly.parse(path))
for _ in range(reps):
    if op == "parse":
        n = sum(1 for _ in jelly.parse(path))
    elif op == "serialize":
        data = jelly.serialize(statements, preset="big")
    elif op == "nt-parse":
        from jelly._ntriples import parse_nquads
        with open(path, "rb") as f:
            n = sum(1 for _ in parse_nquads(f))
    elif op == "to-nt":
        n = sum(len(" ".join(map(str, st))) for st in jelly.parse(path))
    elif op in ("convert-to-jelly", "convert-from-jelly"):
        from jelly.cli import main
        out = "out.jelly" if op == "convert-to-jelly" else "out.nt"
        if main(["convert", path, out]) != 0:
            raise SystemExit("jelly convert failed")
"""


def instructions(checkout: str, op: str, path: str, reps: int) -> int:
    env = dict(os.environ, PYTHONPATH=checkout)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        proc = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             sys.executable, "-c", PROGRAM, op, path, str(reps)],
            env=env, cwd=tmp, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"{op} in {checkout} failed:\n{proc.stderr[-2000:]}")
        m = re.search(r"Collected : (\d+)", proc.stderr)
        if not m:
            raise SystemExit(f"no instruction count in callgrind's output:\n{proc.stderr[-2000:]}")
        return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", required=True, help="the other checkout (built in place)")
    ap.add_argument("--data", required=True, help="an N-Triples (.nt) or N-Quads (.nq) file")
    ap.add_argument("--checkout", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="the checkout measured against the baseline (default: this one)")
    ap.add_argument("--ops", default="parse,serialize,nt-parse,to-nt,convert-to-jelly,"
                                     "convert-from-jelly")
    args = ap.parse_args()
    here = os.path.abspath(args.checkout)
    data = os.path.abspath(args.data)
    sys.path.insert(0, here)
    import jelly
    from jelly._ntriples import parse_nquads
    with tempfile.TemporaryDirectory() as tmp:
        jelly_file = os.path.join(tmp, "data.jelly")
        with open(data, "rb") as f:
            jelly.serialize(parse_nquads(f), jelly_file, preset="big")
        print(f"| operation | baseline (instructions) | this checkout | this / baseline |")
        print("|---|--:|--:|--:|")
        for op in args.ops.split(","):
            src = data if op in ("nt-parse", "convert-to-jelly") else jelly_file
            cost = {}
            for name, checkout in (("baseline", os.path.abspath(args.baseline)), ("this", here)):
                cost[name] = (instructions(checkout, op, src, 2)
                              - instructions(checkout, op, src, 1))
            print(f"| {op} | {cost['baseline']:,} | {cost['this']:,} | "
                  f"{cost['this'] / cost['baseline']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
