#!/usr/bin/env python
"""zstd against gzip for Jelly (and N-Triples) files, through jelly's own I/O layer (not part of
the test suite; the table is in docs/performance.md, "Compression").

    python benchmarks/compression_bench.py --data-dir ../shared/bench-data --limit 500000

For each real file (the first ``--limit`` statements) it writes the statements as Jelly with
``jelly convert`` to ``.jelly``, ``.jelly.gz`` and ``.jelly.zst`` (gzip level 9, what
``gzip.GzipFile`` writes by default; zstd level 3, zstandard's default: what jelly writes), and
the N-Triples / N-Quads text likewise; then reads each Jelly file back with ``jelly.parse``
(every statement touched).  Rows run round-robin, ``--repeat`` times each, in this process;
the times are medians, the sizes exact.  Needs the ``zstandard`` package (``jelly[zstd]``).
"""

from __future__ import annotations

import argparse
import glob
import io
import os
import statistics
import sys
import tempfile
import time

import jelly
from jelly.convert import convert
from jelly.io import open_input, open_output

VARIANTS = (("none", ""), ("gzip", ".gz"), ("zstd", ".zst"))


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def prepare(path, limit, work):
    """The first ``limit`` statements of ``path`` as plain N-Triples / N-Quads text."""
    ext = ".nq" if ".nq" in os.path.basename(path) else ".nt"
    text = os.path.join(work, os.path.basename(path).split(".")[0] + ext)
    with open_input(path) as src, open(text, "wb") as out:
        lines = src if isinstance(src, io.BufferedIOBase) else io.BufferedReader(src, 1 << 16)
        for n, line in enumerate(lines, 1):
            out.write(line)
            if limit and n >= limit:
                break
    return text


def run(args):
    work = tempfile.mkdtemp(prefix="jelly-compress-")
    rows = []
    for path in sorted(glob.glob(os.path.join(args.data_dir, "*.n[tq]*"))):
        text = prepare(path, args.limit, work)
        statements = sum(1 for _ in open(text, "rb"))
        base = os.path.splitext(text)[0]
        sizes, write, read, text_sizes = {}, {}, {}, {}
        for _ in range(args.repeat):
            for name, suffix in VARIANTS:
                out = f"{base}.jelly{suffix}"
                write.setdefault(name, []).append(timed(lambda: convert(text, out)))
                sizes[name] = os.path.getsize(out)
                read.setdefault(name, []).append(
                    timed(lambda: sum(1 for _ in jelly.parse(out))))
        for name, suffix in VARIANTS:
            out = f"{text}{suffix}"
            if suffix:
                with open_output(out) as w, open(text, "rb") as f:
                    w.write(f.read())
            text_sizes[name] = os.path.getsize(out)
        rows.append((os.path.basename(path), statements, sizes, write, read, text_sizes))
    print(f"load average {open('/proc/loadavg').read().split()[:3]}", file=sys.stderr)
    print("| data | statements | compression | Jelly size | N-Triples size | write Jelly (convert) | "
          "read Jelly (parse) |")
    print("|---|---|---|---|---|---|---|")
    for name, n, sizes, write, read, text_sizes in rows:
        for comp, _ in VARIANTS:
            w, r = statistics.median(write[comp]), statistics.median(read[comp])
            plain_w, plain_r = statistics.median(write["none"]), statistics.median(read["none"])
            rel = "" if comp == "none" else f" ({w / plain_w:.2f}x)"
            relr = "" if comp == "none" else f" ({r / plain_r:.2f}x)"
            print(f"| {name} | {n:,} | {comp} | {sizes[comp] / 1e6:.2f} MB "
                  f"({sizes[comp] / sizes['none']:.1%}) | {text_sizes[comp] / 1e6:.2f} MB | "
                  f"{w:.2f} s{rel} | {r:.2f} s{relr} |")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", required=True, help="directory of .nt/.nq(.gz) files")
    p.add_argument("--limit", type=int, default=500000, help="statements per file (0: all)")
    p.add_argument("--repeat", type=int, default=3, help="runs per row (default 3)")
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
