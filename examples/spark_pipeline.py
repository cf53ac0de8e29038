"""A Spark pipeline: read N-Triples (or Jelly), transform with DataFrame operations, write Jelly.

Run:  python examples/spark_pipeline.py [INPUT] [OUTPUT_DIR]
      (INPUT: .nt file, .jelly file or directory of them; default examples/data/sensors.nt)

It puts each sensor's observations into a named graph of their own (a join), writes the quads
as one Jelly file per partition, reads them back, and also turns each graph into one
self-contained Jelly frame, as a Kafka producer would send it.

Locally it runs on ``local[2]``; the same code runs on a cluster through spark-submit
(``spark-submit --master yarn --archives env.tar.gz#env examples/spark_pipeline.py in out``),
see docs/spark.md.
"""

import os
import sys
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import jelly
import jelly.spark

HERE = os.path.dirname(os.path.abspath(__file__))
SOSA = "http://www.w3.org/ns/sosa/"
# One N-Triples statement: subject and predicate hold no spaces; the object runs to " ."
NT_LINE = r"^\s*(\S+)\s+(\S+)\s+(.*\S)\s*\.\s*$"


def session():
    builder = SparkSession.builder.appName("jelly-spark-pipeline") \
        .config("spark.ui.showConsoleProgress", "false")
    if "PYSPARK_GATEWAY_PORT" not in os.environ:   # not under spark-submit: run locally
        builder = builder.master("local[2]").config("spark.ui.enabled", "false") \
            .config("spark.sql.shuffle.partitions", "4")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    jelly.spark.register(spark)          # makes format("jelly") available in this session
    return spark


def read_statements(spark, path):
    """s, p, o (and g) columns of N-Triples strings, from N-Triples or Jelly input."""
    if path.endswith(".nt"):
        lines = spark.read.text(path).where(~F.col("value").rlike(r"^\s*(#.*)?$"))
        return lines.select(*(F.regexp_extract("value", NT_LINE, i).alias(c)
                               for i, c in ((1, "s"), (2, "p"), (3, "o"))))
    return spark.read.format("jelly").load(path)


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "data", "sensors.nt")
    temp = None if len(sys.argv) > 2 else tempfile.TemporaryDirectory(prefix="jelly-spark-")
    out = sys.argv[2] if temp is None else os.path.join(temp.name, "sensors")
    spark = session()

    df = read_statements(spark, source).select("s", "p", "o").cache()
    total = df.count()
    print(f"read {total} statements from {os.path.basename(source)}")

    # Which sensor is each node about?  Observations name their sensor; result nodes belong to
    # the observation that has them.
    made_by = df.where(F.col("p") == f"<{SOSA}madeBySensor>") \
        .select(F.col("s").alias("node"), F.col("o").alias("sensor"))
    results = df.where(F.col("p") == f"<{SOSA}hasResult>") \
        .select(F.col("o").alias("node"), F.col("s").alias("obs")) \
        .join(made_by.withColumnRenamed("node", "obs"), "obs").select("node", "sensor")
    owner = made_by.unionByName(results)
    quads = (df.join(owner, df.s == owner.node, "left")
             .select("s", "p", "o", F.col("sensor").alias("g"))   # no sensor: default graph
             .repartition(2, "g").sortWithinPartitions("g", "s"))  # runs compress better

    quads.write.format("jelly").mode("overwrite") \
        .option("physicalType", "graphs").option("preset", "small").save(out)
    parts = sorted(f for f in os.listdir(out) if f.endswith(".jelly"))
    size = sum(os.path.getsize(os.path.join(out, f)) for f in parts)
    print(f"wrote {len(parts)} Jelly files ({size} bytes) to {out if temp is None else 'a temp dir'}")

    back = spark.read.format("jelly").load(out)
    for row in back.groupBy("g").count().orderBy("g").collect():
        print(f"graph {row['g'] or 'default'}: {row['count']} statements")
    same = back.select("s", "p", "o").exceptAll(df).count() == 0 and back.count() == total
    print(f"read back: {back.count()} statements, identical to the input: {same}")
    core = sum(1 for f in parts for _ in jelly.parse(os.path.join(out, f)))
    print(f"the core reads {core} statements from the files")

    # One self-contained frame per graph: a Kafka message value each, decoded on its own.
    messages = jelly.spark.encode_frames(back.where(F.col("g").isNotNull()), group_by="g",
                                         preset="small")
    sizes = [len(r["frame"]) for r in messages.collect()]
    decoded = jelly.spark.decode_frames(messages.withColumnRenamed("g", "sensor"), "frame")
    print(f"messages: {len(sizes)} frames of {min(sizes)}..{max(sizes)} bytes; "
          f"decoded back: {decoded.count()} statements")
    spark.stop()
    if temp is not None:
        temp.cleanup()


if __name__ == "__main__":
    main()
