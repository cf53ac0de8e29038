"""Reading a Jelly file of empty frames (docs/robustness.md): one frame with a statement and the
options, then ``--frames`` empty frames; CPU time of reading it, median of 5 reads in one
process, for jelly (this checkout, or the one on PYTHONPATH) and pyjelly's parse_jelly_flat.

    python benchmarks/empty_frames.py --frames 300000
    PYTHONPATH=<other checkout> python benchmarks/empty_frames.py --only jelly
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time


def make_file(path: str, frames: int) -> None:
    import jelly
    from jelly import IRI
    first = jelly.serialize([(IRI("http://example.org/s"), IRI("http://example.org/p"),
                              IRI("http://example.org/o"))])
    with open(path, "wb") as f:
        f.write(first + b"\x00" * frames)      # an empty frame: its length, 0


def reader(tool: str):
    if tool == "pyjelly":
        from pyjelly.integrations.generic.parse import parse_jelly_flat

        def run(path: str) -> int:
            with open(path, "rb") as f:
                return sum(1 for _ in parse_jelly_flat(f))
        return run
    import jelly
    return lambda path: sum(1 for _ in jelly.parse(path))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=300_000)
    ap.add_argument("--only", choices=["jelly", "pyjelly"])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "empty.jelly")
        make_file(path, args.frames)
        for tool in [args.only] if args.only else ["jelly", "pyjelly"]:
            run = reader(tool)
            times = []
            for _ in range(5):
                t = time.process_time()
                assert run(path) == 1
                times.append(time.process_time() - t)
            med = statistics.median(times)
            print(f"{tool}: {med:.4f} s, {med / args.frames * 1e6:.2f} us a frame")


if __name__ == "__main__":
    main()
