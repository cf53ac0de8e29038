"""Spark as the README's install gives it: a fresh session finds the ``jelly`` data source
without ``jelly.spark.register`` (PySpark lists the top-level modules named ``pyspark_*`` on
``sys.path``; the editable install puts the project root there), and reads and writes zstd
files.  One subprocess, one session: the environment is the test's, without ``PYTHONPATH``
(which would find ``pyspark_jelly`` whatever the install does)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import zstandard

import jelly
from oracle import jelly_rdf as rd


def test_fresh_session_reads_and_writes_without_register(tmp_path):
    statements = [(jelly.IRI(f"http://s/{i}"), jelly.IRI("http://p"), jelly.Literal(str(i)))
                  for i in range(30)]
    jelly.serialize(statements, tmp_path / "d.jelly.zst")
    program = textwrap.dedent(f"""
        import pkgutil
        print("modules", [m.name for m in pkgutil.iter_modules() if m.name == "pyspark_jelly"])
        from pyspark.sql import SparkSession
        spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        df = spark.read.format("jelly").load({str(tmp_path / "d.jelly.zst")!r})
        print("rows", df.count(), sorted(r.o for r in df.collect())[:2])
        df.write.format("jelly").mode("overwrite").option("compression", "zstd").save({str(tmp_path / "out")!r})
        spark.stop()
    """)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYSPARK_PYTHON"] = sys.executable
    proc = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "modules ['pyspark_jelly']" in proc.stdout
    assert "rows 30 ['\"0\"', '\"1\"']" in proc.stdout
    (part,) = [p for p in os.listdir(tmp_path / "out") if not p.startswith(("_", "."))]
    assert part.endswith(".jelly.zst")
    data = zstandard.ZstdDecompressor().stream_reader(open(tmp_path / "out" / part, "rb")).read()
    _, frames = rd.decode(data)
    assert sorted(st[2][1] for f in frames for st in f) == sorted(str(i) for i in range(30))
