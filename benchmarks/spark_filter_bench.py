"""Spark reading one Jelly file with filters: the reader applying the filters Spark pushes down
(option ``filterPushdown``) against Spark applying them to every row itself, side by side in
one Spark session (not part of the test suite).

Recipe (docs/spark.md, "Filter pushdown")::

    python benchmarks/split_bench.py --only spark --repeat 1    # prepares the 2M-statement file
    python benchmarks/spark_filter_bench.py --repeat 7 --out benchmarks/results/spark-filter.json

The session has ``spark.sql.python.filterPushdown.enabled`` on for both sides; the file is
read in 2 partitions (cut at the segment start nearest the middle).  Each query filters,
then runs split_bench.py's aggregate (a count and a hash of every row kept, so that Spark takes
every string of them); the warm-up runs check that both sides give the same count and hash.
Times are wall seconds, medians of ``--repeat`` rounds in alternating order.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOSA = "http://www.w3.org/ns/sosa/"
RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
SENSOR = "<http://sensors.example.org/city/sensor/hillside-noiseLevel-15>"

#: name -> condition on the s, p, o, g columns (N-Triples strings)
QUERIES = {
    "one sensor's observations": lambda c: (c("p") == f"<{SOSA}madeBySensor>")
    & (c("o") == SENSOR),
    "one predicate": lambda c: c("p") == f"<{SOSA}madeBySensor>",
    "literals": lambda c: c("o").startswith('"'),
    "all but rdf:type": lambda c: c("p") != RDF_TYPE,
}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", default=os.path.join(HERE, ".work", "split",
                                                     "sensors-2000000.jelly"))
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    if not os.path.exists(args.input):
        raise SystemExit(f"{args.input} is missing: run benchmarks/split_bench.py first")
    sys.path.insert(0, HERE)
    import split_bench
    from pyspark.sql import functions as F

    spark = split_bench.spark_session("jelly-spark-filter-bench")
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    size = split_bench.partition_sizes(args.input)["2"]

    def read(query: str, pushdown: bool):
        df = (spark.read.format("jelly").options(partitionSize=size, filterPushdown=pushdown)
              .load(args.input).filter(QUERIES[query](F.col)))
        start = time.perf_counter()
        seen = split_bench.spark_query(df)
        return time.perf_counter() - start, seen

    runs = [(q, p) for q in QUERIES for p in (False, True)]
    seen = {run: read(*run)[1] for run in runs}         # warm-up and the check
    for q in QUERIES:
        if seen[q, False] != seen[q, True]:
            raise SystemExit(f"{q}: pushdown gives {seen[q, True]}, Spark {seen[q, False]}")
    times: dict[str, list[float]] = {f"{q}/{p}": [] for q, p in runs}
    for rnd in range(args.repeat):
        for run in (runs if rnd % 2 == 0 else runs[::-1]):
            times[f"{run[0]}/{run[1]}"].append(read(*run)[0])
    total = split_bench.spark_query(spark.read.format("jelly").load(args.input))[0]
    spark.stop()
    med = {k: statistics.median(v) for k, v in times.items()}
    lines = ["| query | rows kept | Spark filters, s | pushed down, s | speed-up |",
             "|---|--:|--:|--:|--:|"]
    for q in QUERIES:
        off, on = med[f"{q}/False"], med[f"{q}/True"]
        lines.append(f"| {q} | {seen[q, True][0]:,} of {total:,} "
                     f"({100 * seen[q, True][0] / total:.0f}%) | {off:.2f} | {on:.2f} | "
                     f"{off / on:.2f}x |")
    print("\n".join(lines))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({**split_bench.provenance("spark_filter_bench.py", argv),
                       "input": os.path.basename(args.input), "rows": total,
                       "kept": {q: seen[q, True][0] for q in QUERIES},
                       "medians": med, "runs": times}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
