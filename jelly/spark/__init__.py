"""Spark support: the ``jelly`` data source and column helpers (needs ``pip install jelly[spark]``).

::

    import jelly.spark
    jelly.spark.register(spark)                       # once per SparkSession
    df = spark.read.format("jelly").load("data/")     # s, p, o, g: N-Triples strings
    df.write.format("jelly").mode("overwrite").save("out/")

    rows = jelly.spark.decode_frames(kafka_df, "value")          # frames -> statement rows
    frames = jelly.spark.encode_frames(rows, group_by="key")      # statement rows -> frames

This package is the only part of jelly that imports pyspark.  Executors import it too (the data
source and the helpers run there), so the compiled ``jelly`` package must be installed on every
executor: see docs/spark.md.
"""

from __future__ import annotations

from .columns import decode_frames, decode_stream, encode_frames, frame_statements, stream_decoder
from .datasource import (FORMAT, JellyCommitMessage, JellyDataSource, JellyReader, JellyWriter,
                         frames_schema, read_schema, statement_type, statements_schema, term_type)

__all__ = [
    "FORMAT", "JellyCommitMessage", "JellyDataSource", "JellyReader", "JellyWriter",
    "decode_frames", "decode_stream", "encode_frames", "frame_statements", "frames_schema",
    "read_schema", "register", "statement_type", "statements_schema", "stream_decoder",
    "term_type",
]


def register(spark=None):
    """Make ``format("jelly")`` available in ``spark`` (default: the active session); returns
    the session.  Registering again is harmless."""
    if spark is None:
        from pyspark.sql import SparkSession
        spark = SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()
    spark.dataSource.register(JellyDataSource)
    return spark
