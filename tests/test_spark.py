"""jelly.spark: the ``jelly`` data source and the column helpers, on one local SparkSession.

Every round trip is checked against what the core reader yields for the same bytes
(``jelly.parse``), for TRIPLES, QUADS and GRAPHS streams and both term layouts.
"""

from __future__ import annotations

import gzip
import os
import random

import pyarrow as pa
import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import jelly
import jelly.spark as js
from jelly import DEFAULT_GRAPH, BlankNode, IRI, Literal, Triple
from jelly.spark import _arrow, _fs
from jelly.spark._options import ReadOptions, WriteOptions

from helpers import term_struct
from oracle import wire

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
PHYSICAL = ["triples", "quads", "graphs"]


# ------------------------------------------------------------------------------- data


def make_statements(physical: str, n: int = 240, seed: int = 7) -> list:
    """Statements with every kind of term: IRIs, blank nodes, simple / language-tagged / typed
    literals (escapes, newlines, non-ASCII), quoted triples (nested), and for QUADS / GRAPHS
    named graphs (IRI and blank node) and the default graph, in runs as a producer writes
    them."""
    rnd = random.Random(seed)
    subjects = [IRI(f"{EX}s{i}") for i in range(20)] + [BlankNode(f"b{i}") for i in range(5)]
    predicates = [IRI(f"{EX}p{i}") for i in range(6)] + [IRI(f"{EX}ü/π#{i}") for i in range(2)]
    objects = [
        Literal("plain"), Literal("tab\there \"quoted\" back\\slash"), Literal("line\nbreak\r"),
        Literal("chat", language="fr"), Literal("colour", language="en-GB"),
        Literal("42", datatype=IRI(XSD + "integer")), Literal("2.5", datatype=IRI(XSD + "double")),
        Literal("日本語 ✓ \U0001F600"), Literal(""), IRI(f"{EX}o"), BlankNode("b0"),
    ]
    graphs = [IRI(f"{EX}g1"), IRI(f"{EX}g2"), BlankNode("gb"), DEFAULT_GRAPH]
    out = []
    g = DEFAULT_GRAPH
    for i in range(n):
        s = rnd.choice(subjects)
        p = rnd.choice(predicates)
        o = rnd.choice(objects + subjects)
        if i % 17 == 0:
            s = Triple(rnd.choice(subjects), rnd.choice(predicates), rnd.choice(objects))
        if i % 29 == 0:
            o = Triple(s if type(s) is not Triple else subjects[0], p,
                       Triple(subjects[1], predicates[0], Literal("nested", language="de")))
        if physical == "triples":
            out.append((s, p, o))
        else:
            if i % 9 == 0:
                g = rnd.choice(graphs)
            out.append((s, p, o, g))
    return out


def write_core(path, statements, physical, **kwargs):
    jelly.serialize(statements, str(path), physical_type=physical, rdf_star=True,
                    rows_per_frame=kwargs.pop("rows_per_frame", 16), **kwargs)
    return str(path)


def core_rows(path) -> list:
    """What the core reader yields, as (s, p, o, g) N-Triples strings (g None: default)."""
    rows = []
    for st in jelly.parse(path, terms="nt"):
        rows.append(tuple(st) if len(st) == 4 else tuple(st) + (None,))
    return rows


def native_rows(path) -> list:
    rows = []
    for st in jelly.parse(path):
        if len(st) == 3:
            st = tuple(st) + (None,)
        rows.append(tuple(None if t == DEFAULT_GRAPH else t for t in st))
    return rows


def spo(row) -> tuple:
    d = row.asDict()
    return (d["s"], d["p"], d["o"], d.get("g"))


def struct_row(row) -> tuple:
    return tuple(None if row[k] is None else tuple(row[k]) for k in ("s", "p", "o", "g"))


def key(row):
    return tuple("" if x is None else str(x) for x in row)


def files_in(path) -> list:
    return sorted(f for f in os.listdir(path) if not f.startswith((".", "_")))


# ------------------------------------------------------------------------------- session


@pytest.fixture(scope="session")
def spark():
    session = (SparkSession.builder.master("local[2]")
               .appName("jelly-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.driver.memory", "1g")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    js.register(session)
    yield session
    session.stop()


@pytest.fixture(scope="session")
def files(tmp_path_factory):
    """One core-written file per physical type, frames of 16 rows."""
    base = tmp_path_factory.mktemp("jelly-in")
    return {ph: write_core(base / f"{ph}.jelly", make_statements(ph), ph) for ph in PHYSICAL}


# ------------------------------------------------------------------------------- reading


@pytest.mark.parametrize("physical", PHYSICAL)
def test_read_statements_nt(spark, files, physical):
    df = spark.read.format("jelly").option("batchSize", 50).load(files[physical])
    assert df.columns == ["s", "p", "o", "g"]
    assert df.rdd.getNumPartitions() == 1
    rows = [spo(r) for r in df.collect()]
    assert rows == core_rows(files[physical])      # one file: one partition, in order
    if physical == "triples":
        assert all(r[3] is None for r in rows)
    else:
        assert {r[3] for r in rows} >= {None, f"<{EX}g1>", "_:gb"}


def test_a_user_schema_may_relax_nullability(spark, files):
    """The reader accepted it, then built its batches for its own schema, which Spark
    refused in every task (DATA_SOURCE_RETURN_SCHEMA_MISMATCH)."""
    df = spark.read.format("jelly").schema("s string, p string, o string, g string") \
        .load(files["quads"])
    assert [spo(r) for r in df.collect()] == core_rows(files["quads"])


@pytest.mark.parametrize("physical", PHYSICAL)
def test_read_statements_struct(spark, files, physical):
    df = spark.read.format("jelly").option("terms", "struct").load(files[physical])
    assert df.schema["s"].dataType.names == ["kind", "value", "datatype", "language"]
    got = [struct_row(r) for r in df.collect()]
    want = [tuple(term_struct(t) for t in st) for st in native_rows(files[physical])]
    assert got == want


@pytest.mark.parametrize("physical", PHYSICAL)
def test_read_frames(spark, tmp_path, physical):
    messages = [make_statements(physical, n=k, seed=k) for k in (5, 0, 12, 3)]
    path = str(tmp_path / "messages.jelly")
    with jelly.Writer(path, physical_type=physical, rdf_star=True,
                      logical_type="graphs" if physical == "triples" else "datasets") as w:
        for i, m in enumerate(messages):
            w.write_frame(m, metadata={"id": str(i).encode(), "raw": b"\x00\xff"})
    df = (spark.read.format("jelly").option("rows", "frames").option("includePath", True)
          .load(path))
    assert df.columns == ["frame", "statements", "metadata", "path"]
    got = df.orderBy("frame").collect()
    want = list(jelly.parse_frames(path, terms="nt"))
    assert [r["frame"] for r in got] == [f.index for f in want]
    for row, frame in zip(got, want):
        assert row["path"] == path
        assert dict(row["metadata"]) == frame.metadata
        expected = [tuple(st) + (None,) * (4 - len(st)) for st in frame.statements]
        assert [spo(st) for st in row["statements"]] == expected
    # batches of a few statements, cut between frames, give the same rows
    assert (spark.read.format("jelly").options(rows="frames", includePath=True, batchSize=6)
            .load(path).orderBy("frame").collect()) == got
    # the struct layout nests the same way
    sdf = spark.read.format("jelly").options(rows="frames", terms="struct").load(path)
    nested = [[struct_row(st) for st in r["statements"]] for r in sdf.orderBy("frame").collect()]
    assert nested == [[tuple(term_struct(None if t == DEFAULT_GRAPH else t)
                             for t in (tuple(st) + (None,) * (4 - len(st))))
                       for st in f.statements] for f in jelly.parse_frames(path)]


def test_encode_frames_of_a_frames_dataframe(spark, tmp_path):
    """rows=frames -> one self-contained frame per row (metadata kept) -> statements again."""
    path = str(tmp_path / "messages.jelly")
    messages = [make_statements("quads", n=k, seed=k) for k in (4, 9, 2)]
    with jelly.Writer(path, physical_type="quads", rdf_star=True, logical_type="datasets") as w:
        for i, m in enumerate(messages):
            w.write_frame(m, metadata={"id": bytes([i])})
    df = spark.read.format("jelly").option("rows", "frames").load(path)
    frames = js.encode_frames(df, rdf_star=True)
    assert frames.columns == ["frame"]           # the frame index column is replaced
    got = sorted((bytes(r["frame"]) for r in frames.collect()), key=len)
    parsed = [next(iter(jelly.parse_frames(b))) for b in got]
    assert sorted(p.metadata["id"] for p in parsed) == [b"\x00", b"\x01", b"\x02"]
    assert sorted(len(p) for p in parsed) == [2, 4, 9]
    by_id = {p.metadata["id"][0]: [tuple(s) for s in p.statements] for p in parsed}
    assert by_id == {i: [tuple(s) for s in m] for i, m in enumerate(messages)}


def test_read_directory_in_parallel(spark, tmp_path):
    d = tmp_path / "many"
    (d / "sub").mkdir(parents=True)
    expected = []
    for i, ph in enumerate(["triples", "quads", "graphs", "quads"]):
        sts = make_statements(ph, n=40 + i, seed=i)
        path = d / ("sub" if i == 3 else "") / f"f{i}.jelly"
        write_core(path, sts, ph)
        expected += core_rows(str(path))
    gz_statements = make_statements("triples", n=30, seed=99)
    with gzip.open(d / "f9.jelly.gz", "wb") as f:
        f.write(jelly.serialize(gz_statements, rdf_star=True))
    expected += core_rows(str(d / "f9.jelly.gz"))
    (d / "_SUCCESS").write_bytes(b"")
    (d / ".hidden.jelly").write_bytes(b"not jelly")
    (d / "_tmp").mkdir()
    (d / "_tmp" / "x.jelly").write_bytes(b"not jelly")
    df = spark.read.format("jelly").load(str(d))
    assert df.rdd.getNumPartitions() == 5
    assert sorted(map(spo, df.collect()), key=key) == sorted(expected, key=key)
    # a glob over names, a glob in the path, several paths, and the path column
    only = spark.read.format("jelly").option("pathGlobFilter", "*.gz").load(str(d))
    assert only.count() == 30
    globbed = spark.read.format("jelly").option("includePath", "true").load(str(d / "f[01].jelly"))
    assert {r["path"] for r in globbed.select("path").distinct().collect()} == {
        str(d / "f0.jelly"), str(d / "f1.jelly")}
    braces = spark.read.format("jelly").load(str(d / "{f0.jelly,sub/f*}"))
    assert braces.count() == 40 + 43
    two = spark.read.format("jelly").load([str(d / "f0.jelly"), str(d / "sub")])
    assert two.count() == 40 + 43
    (d / "_tmp" / "empty").mkdir()
    assert spark.read.format("jelly").load(str(d / "_tmp" / "empty")).count() == 0


def test_one_segmented_file_in_partitions(spark, tmp_path):
    """df.write writes segmented files; a large one is read in partitions split at segment
    starts, rows in file order; a stream whose later frames depend on earlier ones (but look
    like segment starts) still reads as a whole-file reader reads it."""
    from jelly import parallel
    sts = make_statements("quads", n=2000, seed=5)
    rows = core_rows(write_core(tmp_path / "src.jelly", sts, "quads"))
    src = spark.createDataFrame(rows, "s string, p string, o string, g string").coalesce(1)
    out = str(tmp_path / "out")
    (src.write.format("jelly").mode("overwrite").options(rowsPerFrame=50, segmentSize=250,
                                                         rdfStar=True).save(out))
    path = os.path.join(out, files_in(out)[0])
    with open(path, "rb") as f:
        data = f.read()
    found = parallel.scan(lambda n, offset: data[offset:offset + n], len(data))
    parts = parallel.plan(found, len(data), len(data) // 4)
    assert len(found[0]) >= 7 and len(parts) >= 4
    df = spark.read.format("jelly").option("partitionSize", len(data) // 4).load(path)
    assert df.rdd.getNumPartitions() == len(parts)
    assert [spo(r) for r in df.collect()] == core_rows(path) == rows
    frames = (spark.read.format("jelly").options(rows="frames", partitionSize=len(data) // 4)
              .load(path).collect())
    assert [r["frame"] for r in frames] == [f.index for f in jelly.parse_frames(path)]
    # one partition without the option, or for a file that is not segmented
    assert spark.read.format("jelly").option("partitionSize", 0).load(path) \
        .rdd.getNumPartitions() == 1
    plain = write_core(tmp_path / "plain.jelly", sts, "quads", rows_per_frame=50)
    assert spark.read.format("jelly").option("partitionSize", 1000).load(plain) \
        .rdd.getNumPartitions() == 1
    from test_split import crafted
    dependent = tmp_path / "dependent.jelly"
    dependent.write_bytes(crafted("name id 0"))
    df = spark.read.format("jelly").option("partitionSize", 1).load(str(dependent))
    assert df.rdd.getNumPartitions() == 3
    assert [spo(r) for r in df.collect()] == core_rows(str(dependent))


PUSHDOWN = "spark.sql.python.filterPushdown.enabled"


def has_filter_node(df) -> bool:
    return "Filter " in df._jdf.queryExecution().executedPlan().toString()


def test_pushed_filters_keep_the_rows_spark_keeps(spark, tmp_path):
    """With filter pushdown on, the reader drops the rows a query's conditions on columns
    reject (Spark's plan has no Filter left for them) and the rows are exactly those Spark
    keeps when it evaluates the conditions itself; conditions the reader cannot evaluate stay
    with Spark."""
    path = write_core(tmp_path / "q.jelly", make_statements("quads", n=3000, seed=11), "quads",
                      segment_size=500)
    rows = core_rows(path)
    p0, o_lit = rows[0][1], next(r[2] for r in rows if r[2].startswith('"chat"'))
    g0 = next(r[3] for r in rows if r[3] is not None)
    c = F.col
    cases = [   # (layout, condition, whether Spark keeps a Filter of its own)
        ("nt", lambda: (c("p") == p0) & c("g").isNull(), False),
        ("nt", lambda: c("o").isin(o_lit, '"plain"', "<nowhere>") | F.lit(False), False),
        ("nt", lambda: (c("g") != g0) & c("o").startswith('"') & ~c("s").contains("s1"), False),
        ("nt", lambda: (c("s") >= "<http://example.org/s3") & c("o").endswith("@fr"), False),
        ("nt", lambda: c("g").eqNullSafe(g0) & (F.length("o") > 8), True),    # length()
        ("struct", lambda: (c("o.language") == "fr") | (c("o.kind") == "bnode"), True),  # OR
        ("struct", lambda: (c("o.kind") == "literal") & c("o.datatype").isNotNull()
         & (c("g.value") < EX + "g2"), False),
    ]
    spark.conf.set(PUSHDOWN, "true")
    try:
        for layout, cond, spark_filters in cases:
            def query(pushdown: bool):
                return (spark.read.format("jelly")
                        .options(terms=layout, partitionSize=20000, filterPushdown=pushdown)
                        .load(path).filter(cond()))
            pushed, spark_side = query(True), query(False)
            assert pushed.rdd.getNumPartitions() > 1
            got = sorted(map(key, pushed.collect()))
            want = sorted(map(key, spark_side.collect()))
            assert 0 < len(want) < len(rows) and got == want, str(cond())
            assert has_filter_node(spark_side)
            assert has_filter_node(pushed) == spark_filters, str(cond())
        frames = (spark.read.format("jelly")
                  .options(rows="frames", includePath=True, filterPushdown=True).load(path)
                  .filter((c("frame") >= 5) & (c("frame") < 9) & (c("path") == path)))
        assert not has_filter_node(frames)
        assert [r["frame"] for r in frames.collect()] == [5, 6, 7, 8]
        # a condition on the path picks the files: the others are not read at all
        folder = tmp_path / "folder"
        folder.mkdir()
        paths = [write_core(folder / f"{i}.jelly", make_statements("triples", n=40, seed=i),
                            "triples") for i in range(3)]
        by_path = (spark.read.format("jelly").options(includePath=True, filterPushdown=True)
                   .load(str(folder)).filter(c("path").isin(paths[0], paths[2])))
        assert by_path.rdd.getNumPartitions() == 2 and not has_filter_node(by_path)
        assert sorted(map(key, (r[:4] for r in by_path.collect()))) == \
            sorted(map(key, core_rows(paths[0]) + core_rows(paths[2])))
    finally:
        spark.conf.unset(PUSHDOWN)
    with pytest.raises(Exception, match=PUSHDOWN):     # Spark's own error: set the conf
        spark.read.format("jelly").option("filterPushdown", True).load(path).count()


def test_read_many_batches_counts_all_columns(spark, tmp_path):
    sts = make_statements("quads", n=3000, seed=3)
    path = write_core(tmp_path / "big.jelly", sts, "quads", rows_per_frame=100)
    df = spark.read.format("jelly").option("batchSize", 700).load(path)
    row = df.agg(F.count(F.lit(1)).alias("n"), F.sum(F.length("o")).alias("chars"),
                 F.count("g").alias("named")).collect()[0]
    rows = core_rows(path)
    assert row["n"] == len(rows) == 3000
    assert row["chars"] == sum(len(r[2]) for r in rows)
    assert row["named"] == sum(r[3] is not None for r in rows)


def test_read_one_statement_frames(spark, tmp_path):
    """A file of RDF messages, a statement a frame: its frames are decoded together into
    the columns of a batch (runs), rows as the core reader gives them, in order; one row
    per frame with ``rows=frames``."""
    sts = make_statements("quads", n=2500, seed=5)
    path = write_core(tmp_path / "messages.jelly", sts, "quads", rows_per_frame=1)
    assert len(list(jelly.parse_frames(path))) == 2500
    df = spark.read.format("jelly").option("batchSize", 1000).load(path)
    assert [spo(r) for r in df.collect()] == core_rows(path)
    df = spark.read.format("jelly").option("terms", "struct").load(path)
    assert [struct_row(r) for r in df.collect()] == \
        [tuple(term_struct(t) for t in st) for st in native_rows(path)]
    frames = spark.read.format("jelly").option("rows", "frames").load(path)
    assert frames.count() == len(list(jelly.parse_frames(path)))


def test_read_errors_name_the_file(spark, tmp_path):
    good = jelly.serialize(make_statements("triples", n=50), rdf_star=True)
    bad = tmp_path / "broken.jelly"
    bad.write_bytes(good[: len(good) // 2])
    with pytest.raises(Exception, match="broken.jelly"):
        spark.read.format("jelly").load(str(bad)).count()
    with pytest.raises(Exception, match="unknown jelly read option"):
        spark.read.format("jelly").option("termz", "nt").load(str(bad)).count()
    with pytest.raises(Exception, match="does not exist"):
        spark.read.format("jelly").load(str(tmp_path / "missing")).count()


# ------------------------------------------------------------------------------- writing


@pytest.mark.parametrize("physical", PHYSICAL)
def test_write_roundtrip(spark, files, tmp_path, physical):
    df = spark.read.format("jelly").load(files[physical]).repartition(3)
    if physical == "triples":
        df = df.drop("g")
    out = str(tmp_path / "out")
    (df.write.format("jelly").mode("overwrite")
     .option("physicalType", physical).option("rdfStar", "true").option("rowsPerFrame", 10)
     .option("preset", "small").save(out))
    parts = files_in(out)
    assert len(parts) == 3 and all(p.endswith(".jelly") for p in parts)
    assert os.path.exists(os.path.join(out, "_SUCCESS"))
    assert not [f for f in os.listdir(out) if f.endswith(".tmp")]
    written = []
    for p in parts:
        opts = jelly.read_options(os.path.join(out, p))
        assert opts.physical_type.name.lower() == physical
        assert opts.max_name_table_size == 128       # preset small
        written += core_rows(os.path.join(out, p))
    assert sorted(written, key=key) == sorted(core_rows(files[physical]), key=key)


@pytest.mark.parametrize("physical", PHYSICAL)
def test_write_struct_layout_roundtrip(spark, files, tmp_path, physical):
    df = spark.read.format("jelly").option("terms", "struct").load(files[physical])
    out = str(tmp_path / "out")
    df.write.format("jelly").mode("append").options(physical_type=physical,
                                                    rdf_star=True).save(out)
    (part,) = files_in(out)
    assert native_rows(os.path.join(out, part)) == native_rows(files[physical])


@pytest.mark.parametrize("physical", PHYSICAL)
def test_write_frames_roundtrip(spark, tmp_path, physical):
    src = str(tmp_path / "in.jelly")
    messages = [make_statements(physical, n=k, seed=k) for k in (7, 1, 0, 20)]
    with jelly.Writer(src, physical_type=physical, rdf_star=True,
                      logical_type="graphs" if physical == "triples" else "datasets") as w:
        for i, m in enumerate(messages):
            w.write_frame(m, metadata={"n": bytes([i])})
    df = spark.read.format("jelly").option("rows", "frames").load(src)
    if physical == "triples":
        df = df.withColumn("statements", F.expr("transform(statements, x -> "
                                                "named_struct('s', x.s, 'p', x.p, 'o', x.o))"))
    out = str(tmp_path / "out")
    df.coalesce(1).write.format("jelly").mode("overwrite").options(
        physicalType=physical, rdfStar=True).save(out)
    (part,) = files_in(out)
    path = os.path.join(out, part)
    assert jelly.read_options(path).logical_type.name == ("GRAPHS" if physical == "triples"
                                                          else "DATASETS")
    got = [(f.metadata, [tuple(s) for s in f.statements]) for f in jelly.parse_frames(path)]
    want = [(f.metadata, [tuple(s) for s in f.statements]) for f in jelly.parse_frames(src)]
    assert got == want


def test_write_takes_column_names_in_any_case(spark, files, tmp_path):
    """Spark resolves column names regardless of case, so ``S, P, O, G`` are the columns to
    write (they were refused); an exact ``s`` wins over an ``S`` beside it."""
    df = spark.read.format("jelly").load(files["quads"])
    out = str(tmp_path / "upper")
    df.toDF("S", "P", "O", "G").write.format("jelly").mode("overwrite").option(
        "rdfStar", "true").save(out)
    (part,) = files_in(out)
    assert core_rows(os.path.join(out, part)) == core_rows(files["quads"])
    assert js.datasource.written_columns(["S", "s", "x", "Metadata"]) == {
        "s": "s", "metadata": "Metadata"}


def test_write_gzip_and_default_physical_type(spark, files, tmp_path):
    out = str(tmp_path / "gz")
    df = spark.read.format("jelly").load(files["quads"])
    df.write.format("jelly").mode("overwrite").option("compression", "gzip").option(
        "rdf_star", True).save(out)
    (part,) = files_in(out)
    assert part.endswith(".jelly.gz")
    path = os.path.join(out, part)
    with open(path, "rb") as f:
        assert f.read(2) == b"\x1f\x8b"
    assert jelly.read_options(path).physical_type.name == "QUADS"   # g column: quads
    assert core_rows(path) == core_rows(files["quads"])
    # without g the default is TRIPLES; a named graph in a TRIPLES stream is refused
    tri = str(tmp_path / "tri")
    df.drop("g").write.format("jelly").mode("overwrite").option("rdfStar", 1).save(tri)
    assert jelly.read_options(os.path.join(tri, files_in(tri)[0])).physical_type.name == "TRIPLES"
    with pytest.raises(Exception, match="g column names graphs"):
        df.write.format("jelly").mode("overwrite").options(
            physicalType="triples", rdfStar=True).save(str(tmp_path / "refused"))


def test_write_modes_and_abort(spark, files, tmp_path):
    out = str(tmp_path / "modes")
    df = spark.read.format("jelly").load(files["triples"]).drop("g")
    df.write.format("jelly").mode("overwrite").option("rdfStar", True).save(out)
    first = files_in(out)
    df.write.format("jelly").mode("append").option("rdfStar", True).save(out)
    assert len(files_in(out)) == 2 * len(first)
    assert spark.read.format("jelly").load(out).count() == 2 * df.count()
    df.write.format("jelly").mode("overwrite").option("rdfStar", True).save(out)
    assert len(files_in(out)) == len(first) and not set(files_in(out)) & set(first)
    kept = set(files_in(out))
    with pytest.raises(Exception, match="Append|Overwrite"):
        df.write.format("jelly").save(out)                 # default mode ErrorIfExists
    # One partition holds a term that is not N-Triples: the job fails, nothing is committed,
    # no temporary file stays, and the previous content is intact (overwrite happens at commit).
    bad = df.union(spark.createDataFrame([("not a term", "<http://x/p>", "<http://x/o>")],
                                         df.schema)).repartition(3)
    with pytest.raises(Exception, match="not an N-Triples term"):
        bad.write.format("jelly").mode("overwrite").option("rdfStar", True).save(out)
    assert set(os.listdir(out)) == kept | {"_SUCCESS"}
    # quoted triples need rdfStar: the encoder's refusal reaches the caller
    with pytest.raises(Exception, match="(?i)rdf.?star|quoted"):
        df.write.format("jelly").mode("overwrite").save(str(tmp_path / "nostar"))
    with pytest.raises(Exception, match="unknown jelly write option"):
        df.write.format("jelly").mode("overwrite").option("rdfstars", True).save(out)


def test_write_generalized_statements(spark, tmp_path):
    sts = [(Literal("lit subject"), BlankNode("p"), IRI(EX + "o")),
           (IRI(EX + "s"), IRI(EX + "p"), Literal("x", language="en"))]
    src = str(tmp_path / "gen.jelly")
    jelly.serialize(sts, src, generalized_statements=True)
    df = spark.read.format("jelly").load(src).drop("g")
    out = str(tmp_path / "out")
    df.write.format("jelly").mode("overwrite").option("generalizedStatements", True).save(out)
    assert native_rows(os.path.join(out, files_in(out)[0])) == native_rows(src)


# ------------------------------------------------------------------------------- columns


@pytest.mark.parametrize("physical", PHYSICAL)
def test_encode_decode_frames_per_group(spark, files, physical):
    df = (spark.read.format("jelly").load(files[physical])
          .withColumn("msg", (F.monotonically_increasing_id() % 7).cast("int")))
    if physical == "triples":
        df = df.drop("g")
    frames = js.encode_frames(df, group_by="msg", physical_type=physical, rdf_star=True)
    assert frames.columns == ["msg", "frame"]
    got_frames = frames.collect()
    assert len(got_frames) == 7
    for row in got_frames:       # each frame decodes on its own, as the core reads it
        assert list(jelly.parse(bytes(row["frame"]))), "empty frame"
    decoded = js.decode_frames(frames, "frame")
    assert decoded.columns == ["msg", "s", "p", "o", "g"]
    want = sorted(((r["msg"],) + spo(r) for r in df.collect()), key=key)
    assert sorted(((r["msg"],) + spo(r) for r in decoded.collect()), key=key) == want
    # the column expression gives the same statements
    inline = frames.select("msg", F.inline(js.frame_statements("frame")))
    assert sorted(((r["msg"],) + spo(r) for r in inline.collect()), key=key) == want
    # and the core agrees on every frame
    core = []
    for row in got_frames:
        core += [(row["msg"],) + tuple(st) + (None,) * (4 - len(st))
                 for st in jelly.parse(bytes(row["frame"]), terms="nt")]
    assert sorted(core, key=key) == want


@pytest.mark.parametrize("physical", PHYSICAL)
def test_encode_decode_struct_layout(spark, files, physical):
    df = spark.read.format("jelly").option("terms", "struct").load(files[physical])
    frames = js.encode_frames(df, rows_per_frame=25, physical_type=physical, rdf_star=True)
    assert frames.columns == ["frame"]
    decoded = js.decode_frames(frames, "frame", terms="struct")
    want = sorted((tuple(term_struct(t) for t in st) for st in native_rows(files[physical])),
                  key=key)
    assert sorted(map(struct_row, decoded.collect()), key=key) == want
    listed = frames.select(F.explode(js.frame_statements("frame", terms="struct")).alias("st"))
    assert sorted((struct_row(r["st"]) for r in listed.collect()), key=key) == want


@pytest.mark.parametrize("physical", PHYSICAL)
def test_shared_lookup_stream(spark, files, physical):
    """Frames of one stream share lookups: decode_stream orders them by offset per key."""
    df = spark.read.format("jelly").load(files[physical]).repartition(2)
    stream = js.encode_frames(df, self_contained=False, rows_per_frame=10,
                              physical_type=physical, rdf_star=True)
    assert stream.columns == ["stream", "seq", "frame"]
    rows = stream.collect()
    assert len({r["stream"] for r in rows}) == 2
    # shuffle the frames, as a message bus may deliver them, then decode in order
    shuffled = spark.createDataFrame(random.Random(1).sample(rows, len(rows)), stream.schema)
    decoded = js.decode_stream(shuffled, key="stream", order="seq", column="frame")
    assert decoded.columns == ["stream", "seq", "s", "p", "o", "g"]
    got = sorted((spo(r) for r in decoded.collect()), key=key)
    assert got == sorted(core_rows(files[physical]), key=key)
    # the same rows through the core: each stream's frames concatenated in order
    core = []
    for name in {r["stream"] for r in rows}:
        frames = sorted((r for r in rows if r["stream"] == name), key=lambda r: r["seq"])
        data = b"".join(wire.enc_varint(len(r["frame"])) + bytes(r["frame"])
                        for r in frames)
        core += core_rows(data)
    assert sorted(core, key=key) == got


def test_decode_stream_of_a_core_file(spark, files):
    """A Kafka-like table of one core-written stream's frames (key, offset, value)."""
    import io
    src = files["graphs"]
    with open(src, "rb") as f:
        frames = wire.split_frames(f.read())
    rows = [("sensor-1", i, frame) for i, frame in enumerate(frames)]
    df = spark.createDataFrame(random.Random(2).sample(rows, len(rows)),
                               "key string, offset long, value binary")
    out = js.decode_stream(df, key="key", order="offset").orderBy("offset")
    assert [spo(r) for r in out.collect()] == core_rows(src)
    # decoding them as self-contained frames fails: later frames refer to earlier lookups
    with pytest.raises(Exception):
        js.decode_frames(df.where("offset > 0")).collect()
    del io


def test_decode_frames_on_a_streaming_dataframe(spark, files, tmp_path):
    """Kafka-like: self-contained frames arrive in a stream; decode_frames works there too."""
    df = spark.read.format("jelly").load(files["quads"]).withColumn(
        "key", (F.monotonically_increasing_id() % 5).cast("string"))
    frames = js.encode_frames(df, group_by="key", rdf_star=True)
    src = str(tmp_path / "incoming")
    frames.withColumnRenamed("frame", "value").write.parquet(src)
    stream = spark.readStream.schema("key string, value binary").parquet(src)
    query = (js.decode_frames(stream).writeStream.format("memory").queryName("decoded_frames")
             .trigger(availableNow=True).start())
    query.awaitTermination(120)
    got = spark.sql("select * from decoded_frames").collect()
    assert sorted(((r["key"],) + spo(r) for r in got), key=key) == \
        sorted(((r["key"],) + spo(r) for r in df.collect()), key=key)


def test_helpers_validate_input(spark):
    df = spark.createDataFrame([("x",)], "value string")
    with pytest.raises(jelly.JellyOptionsError, match="binary"):
        js.decode_frames(df)
    with pytest.raises(jelly.JellyOptionsError, match="s, p, o"):
        js.encode_frames(df)
    with pytest.raises(jelly.JellyOptionsError, match="unknown"):
        js.encode_frames(spark.createDataFrame([("<a:b>",) * 3], "s string, p string, o string"),
                         presett="small")
    frames = spark.createDataFrame([(bytearray(jelly.serialize(
        [(IRI(EX + "s"), IRI(EX + "p"), Literal("v" * 200))], delimited=False)),)],
        "value binary")
    with pytest.raises(jelly.JellyOptionsError, match="batch_rows must be at least 1"):
        js.decode_frames(frames, batch_rows=0)
    with pytest.raises(Exception, match="exceeds the limit of 100 bytes"):
        js.decode_frames(frames, limits=jelly.ReaderLimits(max_frame_size=100)).collect()


def test_register_is_idempotent(spark):
    assert js.register(spark) is spark
    assert js.register() is spark
    assert js.JellyDataSource.name() == "jelly"


# ------------------------------------------------------------------------------- no Spark


def test_arrow_batches_without_spark():
    sts = make_statements("quads", n=100)
    data = jelly.serialize(sts, rdf_star=True, rows_per_frame=8)
    schema = js.datasource.arrow_schema(js.statements_schema("nt"))
    frames = jelly.parse_frames(data, **_arrow.decoder_kwargs("nt"))
    batches = list(_arrow.statement_batches(frames, schema, "nt", batch_rows=30))
    assert all(b.schema.equals(schema) for b in batches)
    assert sum(b.num_rows for b in batches) == 100
    assert 3 <= len(batches) <= 5
    table = pa.Table.from_batches(batches)
    got = list(zip(*(table.column(n).to_pylist() for n in "spog")))
    assert got == core_rows(data)
    # and back: the converter gives terms that the encoder writes as the same statements
    conv = _arrow.TermConverter()
    back = [st for b in batches for st in _arrow.batch_statements(b, conv, True)]
    assert [tuple(DEFAULT_GRAPH if t is None else t for t in st) for st in back] == \
        [tuple(st) for st in jelly.parse(data)]


def test_batches_stop_short_of_what_an_arrow_string_array_holds(monkeypatch):
    # Repeated terms make text far larger than Jelly: a batch must not pass 2 GiB of it in a
    # column.  The limit, made small here, cuts batches between frames.
    sts = make_statements("quads", n=60)
    data = jelly.serialize(sts, rdf_star=True, rows_per_frame=7)
    schema = js.datasource.arrow_schema(js.statements_schema("nt"))
    whole = pa.Table.from_batches(list(_arrow.statement_batches(
        jelly.parse_frames(data, **_arrow.decoder_kwargs("nt")), schema, "nt")))
    text = [sum(len(v.encode()) for v in whole.column(i).to_pylist()) for i in range(3)]
    limit = max(text) // 3
    monkeypatch.setattr(_arrow, "MAX_COLUMN_BYTES", limit)
    batches = list(_arrow.statement_batches(
        jelly.parse_frames(data, **_arrow.decoder_kwargs("nt")), schema, "nt"))
    assert len(batches) >= 3
    for b in batches:
        assert max(sum(len(v.encode()) for v in b.column(i).to_pylist())
                   for i in range(3)) <= limit
    assert pa.Table.from_batches(batches).equals(whole)


def test_struct_terms_without_spark():
    """Decoded into term structs and converted back for writing, every kind of term is
    itself again; a missing graph is a null struct."""
    terms = [IRI(EX + "a"), BlankNode("x"), Literal("v", language="en"),
             Literal("1", datatype=IRI(XSD + "integer")), Literal("p"),
             Triple(IRI(EX + "a"), IRI(EX + "b"), Literal("c"))]
    graphs = [IRI(EX + "g"), DEFAULT_GRAPH, BlankNode("g")] * 2
    data = jelly.serialize([(IRI(EX + "s"), IRI(EX + "p"), t, g) for t, g in zip(terms, graphs)],
                           physical_type="quads", rdf_star=True, rows_per_frame=4)
    schema = js.datasource.arrow_schema(js.statements_schema("struct"))
    (batch,) = _arrow.statement_batches(
        jelly.parse_frames(data, **_arrow.decoder_kwargs("struct")), schema, "struct")
    o, g = batch.column("o"), batch.column("g")
    assert [term_struct(t) for t in terms] == [tuple(v.values()) for v in o.to_pylist()]
    assert g.null_count == 2 and g.to_pylist()[1] is None
    assert _arrow.TermConverter().column(o) == terms
    assert _arrow.TermConverter().column(g) == [None if x is DEFAULT_GRAPH else x for x in graphs]
    with pytest.raises(jelly.JellyEncodeError, match="unknown kind"):
        _arrow.TermConverter().column(pa.array([{"kind": "iry", "value": "x"}]))
    with pytest.raises(jelly.JellyEncodeError, match="not an N-Triples term"):
        _arrow.TermConverter().column(pa.array(["<a> <b>"]))
    # struct terms meet the rules N-Triples strings meet: written, they read back as text
    for bad, words in [({"kind": "literal", "value": "x", "language": "not a tag!"},
                        "literal 'x' has an invalid language tag 'not a tag!'"),
                       ({"kind": "literal", "value": "hello", "language": "en_US"},
                        "literal 'hello' has an invalid language tag 'en_US'"),
                       ({"kind": "iri", "value": "rel"}, "relative IRI"),
                       ({"kind": "literal", "value": "x", "datatype": "dt"}, "relative IRI"),
                       ({"kind": "literal", "value": "5", "datatype": XSD + "integer",
                         "language": "en"}, "has a datatype and a language tag"),
                       ({"kind": "literal", "value": "x",
                         "datatype": RDF + "langString"}, "needs a language tag")]:
        with pytest.raises(jelly.JellyEncodeError, match=words):
            _arrow.TermConverter().column(pa.array([bad]), "o")


def test_struct_iris_take_what_n_triples_strings_take():
    """An IRI N-Triples spells with escapes (``\\u0020``, ``\\u003E``) holds a space or a
    ``>`` once read; read as a term struct and written again it is the same IRI (it was
    refused as not N-Triples, while the string column of the same rows was written)."""
    conv = _arrow.TermConverter()
    text = ["<http://ex/a\\u0020b>", "<http://ex/c\\u003Ed>", '"5"^^<http://ex/t\\u0020x>']
    from_text = conv.column(pa.array(text))
    structs = [{"kind": "iri", "value": "http://ex/a b"}, {"kind": "iri", "value": "http://ex/c>d"},
               {"kind": "literal", "value": "5", "datatype": "http://ex/t x"}]
    assert conv.column(pa.array(structs)) == from_text == [
        IRI("http://ex/a b"), IRI("http://ex/c>d"), Literal("5", datatype=IRI("http://ex/t x"))]
    # a language tag given with rdf:langString as its datatype says the same thing twice
    assert conv.column(pa.array([{"kind": "literal", "value": "x", "language": "en",
                                  "datatype": RDF + "langString"}])) == [Literal("x", "en")]


def test_a_string_that_is_not_a_term_says_what_was_expected():
    with pytest.raises(jelly.JellyEncodeError) as caught:
        _arrow.TermConverter().column(pa.array(["http://ex/a"]), "s")
    assert str(caught.value) == ("s 'http://ex/a' is not an N-Triples term: unexpected "
                                 "character 'h', expected a term at column 1")


def test_a_frame_given_whole_meets_the_frame_size_limit():
    """``ReaderLimits.max_frame_size`` held for frames read from a stream, not for a frame
    given whole (a Kafka value to ``decode_frames``)."""
    frame = jelly.serialize([(IRI(EX + str(i)), IRI(EX + "p"), Literal("v" * 40))
                             for i in range(50)], delimited=False)
    from jelly._decoder import Decoder
    with pytest.raises(jelly.JellyLimitError, match=f"frame of {len(frame)} bytes exceeds "
                                                    f"the limit of 100 bytes"):
        Decoder(limits=jelly.ReaderLimits(max_frame_size=100)).decode_frame(frame)
    limits = jelly.ReaderLimits(max_frame_size=len(frame))
    assert len(Decoder(limits=limits).decode_frame(frame).statements) == 50


def test_options_without_spark():
    opts = ReadOptions({"ROWS": "frames", "terms": "STRUCT", "batch_size": "10",
                        "maxNameTableSize": "99", "path": "x"})
    assert (opts.rows, opts.terms, opts.batch_rows) == ("frames", "struct", 10)
    assert opts.limits.max_name_table_size == 99
    w = WriteOptions({"physicalType": "graphs", "rdf_star": "true", "rowsPerFrame": "5",
                      "compression": "gzip", "logicalType": "14"})
    assert w.writer_kwargs == {"physical_type": "graphs", "rdf_star": True,
                               "rows_per_frame": 5, "logical_type": 14}
    assert w.extension == ".jelly.gz"
    for bad in ({"rows": "lines"}, {"terms": "xml"}, {"batchSize": "0"}, {"strict": "maybe"}):
        with pytest.raises(jelly.JellyOptionsError):
            ReadOptions(bad)


def test_list_files_without_spark(tmp_path):
    for name in ("a.jelly", "b.jelly.gz", "_SUCCESS", ".x.tmp", "sub/c.jelly", "_skip/d.jelly"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    base = str(tmp_path)
    assert _fs.list_files(base) == [f"{base}/a.jelly", f"{base}/b.jelly.gz",
                                    f"{base}/sub/c.jelly"]
    assert _fs.list_files(base, "*.gz") == [f"{base}/b.jelly.gz"]
    assert _fs.list_files(f"{base}/*.jelly") == [f"{base}/a.jelly"]
    assert _fs.list_files(f"{base}/s*") == [f"{base}/sub/c.jelly"]
    assert _fs.list_files("file://" + base + "/a.jelly") == ["file://" + base + "/a.jelly"]
    with pytest.raises(jelly.JellyError, match="does not exist"):
        _fs.list_files(f"{base}/nope")
    with pytest.raises(jelly.JellyError, match="no file matches"):
        _fs.list_files(f"{base}/*.nt")
    (tmp_path / "empty").mkdir()
    assert _fs.list_files(f"{base}/empty") == []
    # Hadoop's {a,b} alternatives, nested, across "/", and in a URI; one may match nothing
    assert _fs.list_files(f"{base}/{{a,sub/c}}.jelly") == [f"{base}/a.jelly",
                                                            f"{base}/sub/c.jelly"]
    assert _fs.list_files(f"{base}/{{a.jelly,b.jelly{{.gz,.zst}}}}") == [
        f"{base}/a.jelly", f"{base}/b.jelly.gz"]
    assert _fs.list_files(f"{base}/{{sub,nope}}") == [f"{base}/sub/c.jelly"]
    assert _fs.list_files(f"file://{base}/{{a,x}}*") == [f"file://{base}/a.jelly"]
    with pytest.raises(jelly.JellyError, match="no file matches"):
        _fs.list_files(f"{base}/{{x,y}}.jelly")
    (tmp_path / "{odd").mkdir()
    (tmp_path / "{odd" / "e.jelly").write_bytes(b"")
    assert _fs.list_files(f"{base}/{{odd") == [f"{base}/{{odd/e.jelly"]   # no "}": a name
