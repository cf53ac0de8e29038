"""Spark reading one Jelly file: the reader whose decoder writes Arrow buffers itself
(``output="arrow"``) against the reader of an earlier commit that built its batches from lists
of strings (``output="columns"`` and ``pa.array``), side by side in one Spark session (not part
of the test suite).

Recipe (docs/performance.md, "Spark: Arrow buffers from the decoder")::

    python benchmarks/split_bench.py --only spark --repeat 1    # prepares the 2M-statement file
    python benchmarks/spark_arrow_bench.py --repeat 9 --out benchmarks/results/spark-arrow.json

The earlier reader is ``jelly/spark/_arrow.py`` of ``--before`` (taken with ``git show``, so
this needs the repository's history), registered as a second data source ``jellybefore`` that
decodes with today's core.  Both read the same file with 1 and 2 partitions (cut at the
segment start nearest the middle), in alternating order, and run the same query as
split_bench.py (a count and a hash of every row, which makes Spark take every string); the
warm-up reads check that both give the same count and hash.  Times are wall seconds, medians.

Outside Spark, the Python worker's part alone: the CPU seconds of turning the whole file into
the record batches Spark gets, with each reader, for both term layouts (N-Triples strings and
term structs), and of decoding it to column lists without building batches (the share of
batch building), medians in alternating order.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
#: The last commit whose Spark reader built batches with pa.array from lists.
BEFORE = "1f645cd"

_BEFORE_SOURCE = '''
from jelly import parallel
from jelly.reader import Reader
from jelly.spark import datasource as ds
import before_arrow


class BeforeReader(ds.JellyReader):
    def read(self, partition):
        schema = ds.arrow_schema(self.schema)
        opts = self.options
        if isinstance(partition.value, tuple):
            path, part = partition.value
            with ds._fs.open_random_access(path) as f:
                yield from before_arrow.statement_batches(parallel.part_frames(
                    parallel.opener(f.read_at), part, limits=opts.limits, terms="nt",
                    output="columns"), schema, "nt", opts.batch_rows, path)
            return
        path = partition.value
        fs, inner = ds._fs.filesystem(path)
        with fs.open_input_stream(inner, compression=None, buffer_size=ds._IO_BUFFER) as st:
            yield from before_arrow.statement_batches(
                Reader(st, limits=opts.limits, terms="nt", output="columns").frames(),
                schema, "nt", opts.batch_rows, path)


class BeforeSource(ds.JellyDataSource):
    @classmethod
    def name(cls):
        return "jellybefore"

    def reader(self, schema):
        r = super().reader(schema)
        return BeforeReader(r.paths, r.options, r.schema)
'''


def before_module(commit: str, where: str) -> None:
    """``before_arrow.py`` (the commit's _arrow.py, importing jelly absolutely) and
    ``before_source.py`` (a data source on it) in ``where``."""
    text = subprocess.run(["git", "-C", REPO, "show", f"{commit}:jelly/spark/_arrow.py"],
                          check=True, capture_output=True, text=True).stdout
    text = text.replace("from ..", "from jelly.")
    with open(os.path.join(where, "before_arrow.py"), "w") as f:
        f.write(text)
    with open(os.path.join(where, "before_source.py"), "w") as f:
        f.write(_BEFORE_SOURCE)


def outside_spark(path: str, repeat: int) -> dict[str, float]:
    """CPU seconds of the whole file's record batches with each reader, for N-Triples strings
    and (``... struct``) term structs, and of decoding it to column lists alone
    (``decode``)."""
    import before_arrow

    from jelly.reader import Reader
    from jelly.spark import _arrow
    from jelly.spark.datasource import arrow_schema, statements_schema

    def decode():
        with open(path, "rb") as f:
            for _ in Reader(f, terms="nt", output="columns").frames():
                pass

    def batches(module, kwargs, layout="nt"):
        schema = arrow_schema(statements_schema(layout))
        with open(path, "rb") as f:
            for _ in module.statement_batches(Reader(f, **kwargs).frames(), schema, layout):
                pass

    runs = {"decode": decode,
            "before": lambda: batches(before_arrow, {"terms": "nt", "output": "columns"}),
            "now": lambda: batches(_arrow, _arrow.decoder_kwargs("nt")),
            "before struct": lambda: batches(before_arrow, {"terms": "native",
                                                            "output": "columns"}, "struct"),
            "now struct": lambda: batches(_arrow, _arrow.decoder_kwargs("struct"), "struct")}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    for rnd in range(repeat):
        for name in (list(runs) if rnd % 2 == 0 else list(runs)[::-1]):
            start = time.process_time()
            runs[name]()
            cpu[name].append(time.process_time() - start)
    return {name: statistics.median(v) for name, v in cpu.items()}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", default=os.path.join(HERE, ".work", "split",
                                                     "sensors-2000000.jelly"))
    ap.add_argument("--before", default=BEFORE, help=f"commit of the earlier reader ({BEFORE})")
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    if not os.path.exists(args.input):
        raise SystemExit(f"{args.input} is missing: run benchmarks/split_bench.py first")
    where = tempfile.mkdtemp(prefix="jelly-spark-before-")
    before_module(args.before, where)
    sys.path.insert(0, where)
    # Spark's Python workers import the earlier reader too.
    os.environ["PYTHONPATH"] = where + os.pathsep + os.environ.get("PYTHONPATH", "")

    import split_bench
    from before_source import BeforeSource

    outside = outside_spark(args.input, args.repeat)
    print(f"outside Spark, CPU s: decode to lists {outside['decode']:.2f}; batches of "
          f"N-Triples strings: lists + pa.array ({args.before}) {outside['before']:.2f}, Arrow "
          f"buffers (now) {outside['now']:.2f}; batches of term structs: "
          f"{outside['before struct']:.2f} ({args.before}), {outside['now struct']:.2f} (now)",
          flush=True)

    spark = split_bench.spark_session("jelly-spark-arrow-bench")
    spark.dataSource.register(BeforeSource)
    sizes = split_bench.partition_sizes(args.input)

    def read(fmt: str, parts: int):
        df = spark.read.format(fmt).option("partitionSize", sizes[str(parts)]).load(args.input)
        start = time.perf_counter()
        seen = split_bench.spark_query(df)
        return time.perf_counter() - start, seen

    runs = [(fmt, parts) for fmt in ("jelly", "jellybefore") for parts in (1, 2)]
    seen = {run: read(*run)[1] for run in runs}           # warm-up and the check
    if len(set(seen.values())) != 1:
        raise SystemExit(f"the readers disagree: {seen}")
    times: dict[str, list[float]] = {f"{fmt}/{parts}": [] for fmt, parts in runs}
    for rnd in range(args.repeat):
        for run in (runs if rnd % 2 == 0 else runs[::-1]):
            times[f"{run[0]}/{run[1]}"].append(read(*run)[0])
    spark.stop()
    med = {k: statistics.median(v) for k, v in times.items()}
    lines = [f"| partitions | arrow buffers (now), s | lists + pa.array ({args.before}), s | "
             f"speed-up |", "|--:|--:|--:|--:|"]
    for parts in (1, 2):
        now, before = med[f"jelly/{parts}"], med[f"jellybefore/{parts}"]
        lines.append(f"| {parts} | {now:.2f} | {before:.2f} | {before / now:.2f}x |")
    print("\n".join(lines))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({**split_bench.provenance("spark_arrow_bench.py", argv),
                       "input": os.path.basename(args.input), "rows": seen["jelly", 1][0],
                       "before": args.before, "medians": med, "runs": times,
                       "outside_spark_cpu": outside}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
