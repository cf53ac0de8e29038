"""What ``jelly convert --jobs 2`` pays besides converting (not part of the test suite): the start
of the interpreter and of ``jelly``, and two processes writing into one file, whose writes take
the file's inode lock in turn.

Recipe (docs/performance.md, "Measured again, and where the rest goes")::

    python benchmarks/split_bench.py --only convert --repeat 1     # makes the 2M-statement file
    python benchmarks/startup_writes_bench.py --repeat 9 --out benchmarks/results/startup-writes.json

Rows: wall milliseconds of a fresh interpreter (bare, with ``site``, importing ``jelly`` and
``jelly.cli``), and of ``jelly convert`` of a one-statement file as the command runs it
(``cli.run``, which leaves with ``os._exit`` after the exit handlers) and through ``cli.main``
and ``sys.exit`` (the interpreter's teardown, as before 2026-11-25); 2 x 130 MB written with
``os.pwrite`` in 2 MiB pieces by one process, by two processes into one file and into two
files, and through a shared mapping of the file by one and by two processes;
``jelly.convert.convert(..., jobs=2)`` of the 2M-statement file as it writes (both workers into
the output file) against each worker writing into a file of its own (the output is then wrong:
timing only). Medians of ``--repeat`` rounds in alternating order.
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
JELLY_FILE = os.path.join(HERE, ".work", "split", "sensors-2000000.jelly")
PART = 130 << 20
PIECE = 2 << 20


def start_ms(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True)
    return (time.perf_counter() - start) * 1000


def _write(path: str, base: int, piece: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for offset in range(0, PART, PIECE):
            os.pwrite(fd, piece, base + offset)
    finally:
        os.close(fd)


def _mapped(path: str, base: int, piece: bytes) -> None:
    fd = os.open(path, os.O_RDWR)
    try:
        with mmap.mmap(fd, PART, offset=base) as m:
            for offset in range(0, PART, PIECE):
                m[offset:offset + PIECE] = piece
    finally:
        os.close(fd)


def writes_ms(kind: str, work: str, piece: bytes) -> float:
    paths = [os.path.join(work, "a"), os.path.join(work, "b")]
    for p in paths:
        if os.path.exists(p):
            os.unlink(p)                # not timed: freeing a large file
    if kind.startswith("mmap"):
        with open(paths[0], "wb") as f:
            f.truncate(2 * PART)
    one_file = kind != "two processes, two files"
    jobs = [(paths[0] if one_file else paths[i], i * PART if one_file else 0) for i in (0, 1)]
    run = _mapped if kind.startswith("mmap") else _write
    start = time.perf_counter()
    if kind in ("one process", "mmap, one process"):
        for path, base in jobs:
            run(path, base, piece)
    else:
        pids = []
        for path, base in jobs:
            pid = os.fork()
            if pid == 0:
                run(path, base, piece)
                os._exit(0)
            pids.append(pid)
        for pid in pids:
            os.waitpid(pid, 0)
    return (time.perf_counter() - start) * 1000


def convert_ms(own_files: bool, work: str) -> float:
    from jelly import parallel
    from jelly.convert import convert
    write_at = parallel._write_at
    fds: dict[int, int] = {}

    def own(fd: int, offset: int, chunks: list[bytes]) -> None:
        mine = fds.get(os.getpid())
        if mine is None:
            mine = fds[os.getpid()] = os.open(os.path.join(work, f"own-{os.getpid()}"),
                                              os.O_WRONLY | os.O_CREAT, 0o644)
        write_at(mine, offset, chunks)
    for name in os.listdir(work):
        os.unlink(os.path.join(work, name))
    parallel._write_at = own if own_files else write_at
    try:
        start = time.perf_counter()
        convert(JELLY_FILE, os.path.join(work, "out.nt"), jobs=2)
        return (time.perf_counter() - start) * 1000
    finally:
        parallel._write_at = write_at


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--out", help="write the results as JSON here")
    args = ap.parse_args()
    if not os.path.exists(JELLY_FILE):
        raise SystemExit(f"{JELLY_FILE} is missing: run split_bench.py first (see above)")
    tiny = tempfile.mkdtemp(dir=os.path.join(HERE, ".work"))
    one = os.path.join(tiny, "one.nt")
    with open(one, "w") as f:
        f.write("<http://example.org/s> <http://example.org/p> <http://example.org/o> .\n")
    convert_one = ["convert", one, os.path.join(tiny, "one.jelly"), "-q"]
    starts = {"python -S -c pass": ["-S", "-c", "pass"], "python -c pass": ["-c", "pass"],
              "import jelly": ["-c", "import jelly"],
              "import jelly.cli": ["-c", "import jelly.cli"],
              "jelly convert, one statement (cli.run: os._exit after the exit handlers)":
                  ["-m", "jelly", *convert_one],
              "the same through cli.main and sys.exit (the interpreter's teardown)":
                  ["-c", "import sys; from jelly.cli import main; sys.exit(main())", *convert_one]}
    writes = ["one process", "two processes, one file", "two processes, two files",
              "mmap, one process", "mmap, two processes"]
    converts = {"convert(jobs=2), one output file": False,
                "convert(jobs=2), a file per worker (timing only)": True}
    rows: dict[str, list[float]] = {k: [] for k in [*starts, *writes, *converts]}
    piece = os.urandom(PIECE)
    with tempfile.TemporaryDirectory(dir=os.path.join(HERE, ".work")) as work:
        for rnd in range(args.repeat):
            for name in (list(rows) if rnd % 2 == 0 else list(rows)[::-1]):
                if name in starts:
                    rows[name].append(start_ms(starts[name]))
                elif name in converts:
                    rows[name].append(convert_ms(converts[name], work))
                else:
                    rows[name].append(writes_ms(name, work, piece))
            print(f"round {rnd + 1} done", file=sys.stderr, flush=True)
    print("| what | median, ms |\n|---|--:|")
    for name, values in rows.items():
        print(f"| {name} | {statistics.median(values):.1f} |")
    shutil.rmtree(tiny)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"medians_ms": {k: statistics.median(v) for k, v in rows.items()},
                       "runs_ms": rows, "repeat": args.repeat}, f, indent=1)


if __name__ == "__main__":
    main()
