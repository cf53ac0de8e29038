"""Spark as the README's install gives it: a fresh session finds the ``jelly`` data source
without ``jelly.spark.register`` (PySpark lists the top-level modules named ``pyspark_*`` on
``sys.path``; the editable install puts the project root there), and reads and writes zstd
files.  One subprocess, one session: the environment is the test's, without ``PYTHONPATH``
(which would find ``pyspark_jelly`` whatever the install does).

The same session then runs the Spark blocks of README.md and docs/spark.md as a reader pastes
them (test_docs.py leaves them to this test): it was started in the directory holding the files
they name, and Spark resolves relative paths such as ``data/`` against the directory it started
in, not the one a test could change to later."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import zstandard

import docsnippets
import jelly
from oracle import jelly_rdf as rd


def test_fresh_session_without_register_then_the_spark_guide(tmp_path):
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
        (df.write.format("jelly").mode("overwrite").option("compression", "zstd")
           .save({str(tmp_path / "zstd-out")!r}))

        import json, jelly
        frames = []                         # one self-contained frame per message
        for message in jelly.parse_frames("messages.jelly"):
            encoder = jelly.Encoder(jelly.make_options(preset="small"))
            encoder.add_statements(message.statements)
            frames.append(encoder.take_frame())
        guide = {{"spark": spark,        # kafka_df: frames in a binary column, as Kafka gives them
                 "kafka_df": spark.createDataFrame([(f,) for f in frames], "value binary")}}
        for label, code in json.load(open("guide.json")):
            exec(compile(code, label, "exec"), guide)
        print("guide", guide["rows"].count(), guide["df"].count())
        spark.stop()
    """)
    docsnippets.workdir(tmp_path)
    (tmp_path / "data").mkdir()
    for name in ("data.jelly", "quads.jelly"):
        (tmp_path / "data" / name).write_bytes((tmp_path / name).read_bytes())
    guide = [(docsnippets.label(doc, line), code)
             for doc in (docsnippets.REPO_ROOT / "README.md",
                         docsnippets.REPO_ROOT / "docs" / "spark.md")
             for line, code in docsnippets.blocks(doc, "python")
             if docsnippets.elsewhere(code) == docsnippets.SPARK]
    assert len(guide) == 5
    (tmp_path / "guide.json").write_text(json.dumps(guide))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYSPARK_PYTHON"] = sys.executable
    proc = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "modules ['pyspark_jelly']" in proc.stdout
    assert "rows 30 ['\"0\"', '\"1\"']" in proc.stdout
    (part,) = [p for p in os.listdir(tmp_path / "zstd-out") if not p.startswith(("_", "."))]
    assert part.endswith(".jelly.zst")
    data = zstandard.ZstdDecompressor().stream_reader(open(tmp_path / "zstd-out" / part,
                                                           "rb")).read()
    _, frames = rd.decode(data)
    assert sorted(st[2][1] for f in frames for st in f) == sorted(str(i) for i in range(30))

    # the guide: its reads, its show(), and what it wrote
    lines = (tmp_path / "data.nt").read_text().splitlines()
    made_by = sum(line.split()[1] == "<http://www.w3.org/ns/sosa/madeBySensor>" for line in lines)
    messages = sum(not line.startswith("#")
                   for line in (tmp_path / "log.nq").read_text().splitlines())
    # rows of kafka_df's frames; df: the last one the guide makes (filter pushdown)
    assert f"guide {messages} {made_by}" in proc.stdout
    assert "only showing top 20 rows" in proc.stdout                # df.where(...).show()
    written = [p for p in (tmp_path / "out").iterdir() if p.name.endswith(".jelly")]
    assert sum(len(list(jelly.parse(p))) for p in written) == made_by    # the last df written
