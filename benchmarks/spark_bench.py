"""Spark benchmark: the ``jelly`` data source against Spark's own text reader, on the same data.

Recipe (numbers in docs/spark.md, "Performance")::

    pip install -e ".[spark]"
    python benchmarks/spark_bench.py --limit 1000000 --files 4 --runs 3

The data (``--source``, an N-Triples file, gzip or not; by default the shared Aarhus IoT
stream, or generated data with ``--generate``) is cut into ``--files`` files, each written
both as N-Triples and, with the core, as Jelly.  Then, in one Spark session (``local[2]``):

- read N-Triples: ``spark.read.text`` split into ``s``, ``p``, ``o``
- read Jelly: ``spark.read.format("jelly")``
- write Jelly from a cached DataFrame of the same statements (``df.write.format("jelly")``)
- write N-Triples from that DataFrame (``df.write.text``), for reference

Every read ends in the same aggregate over all columns (a count and an XOR of hashes of ``s, p, o``),
so that no column is pruned away; a plain ``count()`` is shown too (Spark's text reader prunes
the split away there).  Times are medians of ``--runs`` runs; rows/s per core divides by the
number of cores that had work (``min(cores, files)``).
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SOURCE = os.path.join(HERE, "..", "..", "shared", "bench-data", "aarhus-iot.nt.gz")


def _open_text(path):
    return gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else \
        open(path, encoding="utf-8")


def generated_lines(n):
    """Sensor-like N-Triples: observations with typed literals, blank nodes, language tags."""
    ex = "http://example.org/"
    sosa = "http://www.w3.org/ns/sosa/"
    xsd = "http://www.w3.org/2001/XMLSchema#"
    i = 0
    while True:
        obs = f"<{ex}obs/{i}>"
        sensor = f"<{ex}sensor/{i % 50}>"
        for line in (
            f"{obs} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{sosa}Observation> .",
            f"{obs} <{sosa}madeBySensor> {sensor} .",
            f"{obs} <{sosa}hasResult> _:r{i} .",
            f"_:r{i} <{sosa}hasSimpleResult> \"{(i * 37) % 1000 / 10}\"^^<{xsd}double> .",
            f"{obs} <{sosa}resultTime> \"2024-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z\"^^<{xsd}dateTime> .",
            f"{sensor} <http://www.w3.org/2000/01/rdf-schema#label> \"Sensor {i % 50}\"@en .",
        ):
            yield line
            n -= 1
            if n == 0:
                return
        i += 1


def prepare(args, work):
    """Write the N-Triples and Jelly files; return (nt_dir, jelly_dir, rows)."""
    import jelly
    from jelly._ntriples import parse_nquads

    nt_dir = os.path.join(work, "nt")
    jelly_dir = os.path.join(work, "jelly")
    os.makedirs(nt_dir)
    os.makedirs(jelly_dir)
    if args.generate:
        lines = generated_lines(args.limit)
    else:
        src = _open_text(args.source)
        lines = (line.rstrip("\n") for line in src)
    rows = 0
    outs = [open(os.path.join(nt_dir, f"part-{i:03d}.nt"), "w", encoding="utf-8")
            for i in range(args.files)]
    buffered = []
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        buffered.append(line)
        rows += 1
        if rows >= args.limit:
            break
    per_file = -(-len(buffered) // args.files)
    for i, out in enumerate(outs):
        out.write("\n".join(buffered[i * per_file:(i + 1) * per_file]))
        out.write("\n")
        out.close()
    del buffered
    for i in range(args.files):
        with open(os.path.join(nt_dir, f"part-{i:03d}.nt"), "rb") as f:
            jelly.serialize(parse_nquads(f), os.path.join(jelly_dir, f"part-{i:03d}.jelly"),
                            physical_type="triples")
    return nt_dir, jelly_dir, rows


def timed(fn, runs):
    times = []
    result = None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times, result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=DEFAULT_SOURCE, help="N-Triples file (.nt/.nt.gz)")
    parser.add_argument("--generate", action="store_true", help="use generated data instead")
    parser.add_argument("--limit", type=int, default=1_000_000, help="statements (default 1M)")
    parser.add_argument("--files", type=int, default=4, help="files to cut the data into")
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--work", default=None, help="work directory (default: a temp dir)")
    args = parser.parse_args(argv)

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    import jelly.spark

    work = args.work or tempfile.mkdtemp(prefix="jelly-spark-bench-")
    if os.path.exists(work) and os.listdir(work):
        shutil.rmtree(work)
    os.makedirs(work, exist_ok=True)
    try:
        nt_dir, jelly_dir, rows = prepare(args, work)
        nt_bytes = sum(os.path.getsize(os.path.join(nt_dir, f)) for f in os.listdir(nt_dir))
        jelly_bytes = sum(os.path.getsize(os.path.join(jelly_dir, f))
                          for f in os.listdir(jelly_dir))
        spark = (SparkSession.builder.master(args.master).appName("jelly-spark-bench")
                 .config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.driver.memory", "4g")
                 .config("spark.sql.files.maxPartitionBytes", str(max(nt_bytes // args.files, 1 << 20) + 1))
                 .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        jelly.spark.register(spark)
        cores = spark.sparkContext.defaultParallelism

        def text_df():
            parts = F.split("value", " ", 3)
            rest = parts.getItem(2)
            return (spark.read.text(nt_dir)
                    .select(parts.getItem(0).alias("s"), parts.getItem(1).alias("p"),
                            F.expr("substring(split(value, ' ', 3)[2], 1, "
                                   "length(split(value, ' ', 3)[2]) - 2)").alias("o"))
                    .where(rest.isNotNull()))

        def jelly_df():
            return spark.read.format("jelly").load(jelly_dir)

        def forced(df):
            return df.agg(F.count(F.lit(1)).alias("n"),
                          F.bit_xor(F.xxhash64("s", "p", "o")).alias("h")).collect()[0]

        # warm up both paths (JIT, Python workers), and check they agree
        a, b = forced(text_df()), forced(jelly_df())
        if a["n"] != rows or b["n"] != rows or a["h"] != b["h"]:
            print(f"warning: text and Jelly disagree: {a} vs {b} (rows {rows})",
                  file=sys.stderr)

        results = []

        def record(name, fn, parts):
            median, times, _ = timed(fn, args.runs)
            used = min(cores, parts)
            results.append((name, median, rows / median, rows / median / used, times))
            print(f"{name:48s} {median:7.2f} s  {rows / median:11,.0f} rows/s  "
                  f"{rows / median / used:11,.0f} rows/s/core", flush=True)

        text_parts = text_df().rdd.getNumPartitions()
        record("read N-Triples text + split, forced", lambda: forced(text_df()), text_parts)
        record("read Jelly (data source), forced", lambda: forced(jelly_df()), args.files)
        record("read N-Triples text + split, count()", lambda: text_df().count(), text_parts)
        record("read Jelly (data source), count()", lambda: jelly_df().count(), args.files)

        cached = jelly_df().select("s", "p", "o").cache()
        cached.count()
        out = os.path.join(work, "out")
        cached.limit(1000).write.format("jelly").mode("overwrite").save(out + "-warm")  # warm-up
        record("write Jelly from cached DataFrame",
               lambda: cached.write.format("jelly").mode("overwrite").save(out + "-jelly"),
               args.files)
        record("write N-Triples text from cached DataFrame",
               lambda: cached.select(F.concat_ws(" ", "s", "p", "o", F.lit("."))).write
               .mode("overwrite").text(out + "-nt"), args.files)
        written = spark.read.format("jelly").load(out + "-jelly")
        check = forced(written)
        if check["n"] != rows or check["h"] != b["h"]:
            print(f"warning: written Jelly reads back differently: {check}", file=sys.stderr)

        print()
        print(f"data: {rows:,} statements in {args.files} files; N-Triples {nt_bytes / 1e6:.1f} MB,"
              f" Jelly {jelly_bytes / 1e6:.1f} MB; master {args.master} ({cores} cores); "
              f"median of {args.runs} runs")
        print()
        print("| operation | time (s) | rows/s | rows/s per core |")
        print("|---|---:|---:|---:|")
        for name, median, rate, per_core, _ in results:
            print(f"| {name} | {median:.2f} | {rate:,.0f} | {per_core:,.0f} |")
        base = results[0][3]
        print()
        print(f"Jelly read / text read (forced): {results[1][3] / base:.2f}x; "
              f"Jelly write / text read (forced): {results[4][3] / base:.2f}x")
        spark.stop()
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
