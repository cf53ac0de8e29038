"""Property tests: whatever jelly writes, jelly reads back identically.

Statements are generated in a neutral tuple form (``("I", iri)``, ``("B", label)``,
``("L", lex, lang, datatype)``, ``("T", s, p, o)``, ``("D",)``), turned into jelly terms for
writing, and the decoded statements are turned back into that form, so the expected value is
the generated input itself (with only the RDF rule that ``xsd:string`` literals are simple
literals applied by the test) and does not rely on jelly's term equality.

A ``JellyEncodeError`` is accepted only where one statement genuinely needs more distinct
entries than a lookup table holds; :func:`table_needs` computes, independently of jelly, a lower
and an upper bound of what each statement needs:

* upper bound: all distinct IRIs (as whole-IRI names) and datatypes of the statement; at or
  below the table sizes the statement always fits (an encoder can write whole IRIs as names with
  the empty prefix), so an error there is a bug;
* lower bound: only the terms that differ from the previous statement in the same position
  (repeated terms take no table entry); with no prefix table every IRI is a name, so a statement
  above the name table (or any statement above the datatype table) cannot be encoded and
  writing it must fail rather than produce a stream.
"""

from __future__ import annotations

import gzip
import io

import pytest
from hypothesis import HealthCheck, assume, event, given, settings, strategies as st

import jelly
from helpers import from_jelly
from oracle.terms import walk
from strategies import (ANY_CHAR, D, IRI_TEXT, ODD_CHARS, PHYSICAL, XSD, XSD_STRING, decoded,
                        expected_statements, jstatements, scenario, write_kwargs)


class OneByteReader:
    """A non-seekable binary stream that hands out at most one byte per read()."""

    def __init__(self, data: bytes):
        self._data = data
        self._pos = 0
        self.reads = 0

    def read(self, n=-1):
        self.reads += 1
        if n == 0 or self._pos >= len(self._data):
            return b""
        b = self._data[self._pos:self._pos + 1]
        self._pos += 1
        return b

    def readable(self):
        return True

    def seekable(self):
        return False

    def seek(self, *a):
        raise io.UnsupportedOperation("not seekable")

    def tell(self):
        raise io.UnsupportedOperation("not seekable")


# --------------------------------------------------------------------------------------
# independent table-needs model
# --------------------------------------------------------------------------------------


def _collect(term, iris, dts):
    if term[0] == "I":
        iris.add(term[1])
    elif term[0] == "L":
        if term[3] is not None and term[3] != XSD_STRING:
            dts.add(term[3])
    elif term[0] == "T":
        for x in term[1:]:
            _collect(x, iris, dts)


def table_needs(statements, physical):
    """Per statement: (lower_names, lower_dts, upper_names, upper_dts), and the same for the
    graph_start row that precedes it in a GRAPHS stream (or None)."""
    prev = [None, None, None, None]
    open_graph = None
    result = []
    for s in expected_statements(statements, physical):
        positions = 3 if physical in ("triples", "graphs") else 4
        lo_i, lo_d, up_i, up_d = set(), set(), set(), set()
        for i in range(positions):
            _collect(s[i], up_i, up_d)
            if s[i] != prev[i]:
                _collect(s[i], lo_i, lo_d)
            prev[i] = s[i]
        gs = None
        if physical == "graphs" and s[3] != open_graph:
            gi, gd = set(), set()
            _collect(s[3], gi, gd)
            gs = (len(gi), len(gd))
            open_graph = s[3]
        result.append(((len(lo_i), len(lo_d), len(up_i), len(up_d)), gs))
    return result


def fit_verdict(statements, physical, names, prefixes, datatypes):
    """Per statement: "fits" (must encode), "cannot" (must fail) or "either"."""
    out = []
    for (lo_i, lo_d, up_i, up_d), gs in table_needs(statements, physical):
        if gs is not None and (gs[0] > names or gs[1] > datatypes):
            out.append("cannot")
            continue
        if lo_d > datatypes or (prefixes == 0 and lo_i > names):
            out.append("cannot")
        elif up_i <= names and up_d <= datatypes:
            out.append("fits")
        else:
            out.append("either")
    return out


def first_failure(sc):
    """Index of the statement on which a Writer refuses (or None), writing one by one."""
    w = jelly.Writer(None, rows_per_frame=sc["rows_per_frame"], **write_kwargs(sc))
    for i, s in enumerate(jstatements(sc["statements"])):
        try:
            w.write(s)
        except jelly.JellyEncodeError:
            return i
    w.close()
    return None


def check_roundtrip(sc, data):
    got = decoded(jelly.parse(data))
    want = expected_statements(sc["statements"], sc["physical"])
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want)):
        assert a == b, f"statement {i}: got {a!r}, wrote {b!r}"
    opts = jelly.read_options(data)
    assert opts.physical_type.name.lower() == sc["physical"]
    assert (opts.max_name_table_size, opts.max_prefix_table_size,
            opts.max_datatype_table_size) == sc["tables"]
    assert opts.rdf_star == sc["rdf_star"]
    assert opts.generalized_statements == sc["generalized"]
    assert opts.version == 1
    return got


# --------------------------------------------------------------------------------------
# the main property
# --------------------------------------------------------------------------------------

def run_roundtrip(sc):
    verdict = fit_verdict(sc["statements"], sc["physical"], *sc["tables"])
    event("verdict: " + ("cannot" if "cannot" in verdict else "either" if "either" in verdict
                         else "fits"))
    try:
        data = jelly.serialize(jstatements(sc["statements"]), rows_per_frame=sc["rows_per_frame"],
                               delimited=sc["delimited"], **write_kwargs(sc))
    except jelly.JellyEncodeError as exc:
        event("refused")
        at = first_failure(sc)
        assert at is not None, f"serialize refused ({exc}) what a Writer writes one by one"
        assert verdict[at] != "fits", (
            f"statement {at} fits the tables {sc['tables']} but was refused: {exc}; "
            f"statement: {sc['statements'][at]!r}")
        assert "cannot" not in verdict[:at], "an earlier statement that cannot fit was written"
        return
    assert "cannot" not in verdict, (
        f"statement {verdict.index('cannot')} cannot fit the tables {sc['tables']} but was "
        f"written without an error")
    check_roundtrip(sc, data)
    frames = list(jelly.parse_frames(data))
    if not sc["delimited"]:
        assert len(frames) == 1
    else:
        # rows_per_frame bounds the frames: every frame but the last has at least that many rows
        for f in frames[:-1]:
            assert sum(f.rows.values()) >= sc["rows_per_frame"]


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenario())
def test_serialize_parse_roundtrip(sc):
    run_roundtrip(sc)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenario(min_statements=1, max_statements=12, pressure=True), st.integers(0, 1))
def test_tables_too_small_only_fail_when_they_must(sc, squeeze):
    """The same, with tables squeezed to the minimum so that the error paths are exercised."""
    names = 8
    prefixes = squeeze   # 0: whole IRIs as names; 1: a single prefix slot
    typed = any(t[0] == "L" and t[3] not in (None, XSD_STRING)
                for s in sc["statements"] for t in walk(s))
    sc = dict(sc, tables=(names, prefixes, 1 if typed else 0))
    run_roundtrip(sc)


def test_squeezed_tables_hit_both_outcomes():
    """A fixed case of each kind, so the error-path checks above cannot be vacuous."""
    iris = [("I", f"http://example.org/{i}") for i in range(12)]
    # one statement with 9 distinct IRIs (nested quoted triples) and a name table of 8
    big = (("T", iris[0], iris[1], ("T", iris[2], iris[3], iris[4])), iris[5],
           ("T", iris[6], iris[7], iris[8]))
    sc = dict(physical="triples", rdf_star=True, generalized=False, statements=[big],
              tables=(8, 0, 0), rows_per_frame=5, delimited=True)
    assert fit_verdict(sc["statements"], "triples", 8, 0, 0) == ["cannot"]
    with pytest.raises(jelly.JellyEncodeError):
        jelly.serialize(jstatements(sc["statements"]), **write_kwargs(sc))
    # 8 distinct IRIs fit a name table of 8 even with a single prefix slot and 8 prefixes
    fits = (("T", iris[0], ("I", "urn:a:p"), ("T", ("I", "tag:b"), ("I", "mailto:c"), iris[4])),
            ("I", "https://x/y#z"), ("T", ("I", "q"), ("I", "http://o/"), iris[0]))
    sc = dict(sc, statements=[fits], tables=(8, 1, 0))
    assert fit_verdict(sc["statements"], "triples", 8, 1, 0) == ["fits"]
    check_roundtrip(sc, jelly.serialize(jstatements([fits]), **write_kwargs(sc)))
    # two typed literals with different datatypes in one (generalized) statement, table of 1
    two = (("L", "1", None, XSD + "int"), ("I", "p"), ("L", "x", None, XSD + "date"))
    sc = dict(sc, generalized=True, rdf_star=False, statements=[two], tables=(8, 0, 1))
    assert fit_verdict([two], "triples", 8, 0, 1) == ["cannot"]
    with pytest.raises(jelly.JellyEncodeError, match="datatype"):
        jelly.serialize(jstatements([two]), **write_kwargs(sc))
    sc = dict(sc, tables=(8, 0, 2))
    check_roundtrip(sc, jelly.serialize(jstatements([two]), **write_kwargs(sc)))


# --------------------------------------------------------------------------------------
# input plumbing: 1-byte pieces, gzip
# --------------------------------------------------------------------------------------

def _writable(sc):
    try:
        return jelly.serialize(jstatements(sc["statements"]), rows_per_frame=sc["rows_per_frame"],
                               delimited=sc["delimited"], **write_kwargs(sc))
    except jelly.JellyEncodeError:
        return None


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenario(max_statements=15))
def test_one_byte_pieces_and_gzip(sc):
    data = _writable(sc)
    assume(data is not None)
    whole = decoded(jelly.parse(data))
    reader = OneByteReader(data)
    assert decoded(jelly.parse(reader)) == whole
    assert reader.reads >= len(data)
    gz = gzip.compress(data)
    assert decoded(jelly.parse(gz)) == whole
    assert decoded(jelly.parse(io.BytesIO(gz))) == whole
    assert decoded(jelly.parse(OneByteReader(gz))) == whole
    # frames too
    assert [len(f) for f in jelly.parse_frames(OneByteReader(data))] == [
        len(f) for f in jelly.parse_frames(data)]
    assert jelly.read_options(OneByteReader(gz)) == jelly.read_options(data)


def test_one_byte_pieces_of_a_large_stream(tmp_path):
    statements = [(("I", f"http://example.org/s{i % 50}"), ("I", f"http://example.org/p{i % 7}"),
                   ("L", "x" * (i % 300) + "é", None, None), ("I", f"urn:g:{i % 3}"))
                  for i in range(3000)]
    data = jelly.serialize(jstatements(statements), physical_type="graphs", preset="small",
                           rows_per_frame=64)
    assert len(data) > 70000          # larger than the reader's 64 KiB chunk
    want = expected_statements(statements, "graphs")
    assert decoded(jelly.parse(OneByteReader(data))) == want
    path = tmp_path / "big.jelly.gz"
    path.write_bytes(gzip.compress(data))
    assert decoded(jelly.parse(path)) == want
    assert decoded(jelly.parse(str(path))) == want


# --------------------------------------------------------------------------------------
# frames: serialize_frames grouping, metadata
# --------------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenario(max_statements=30), st.lists(st.integers(0, 30), min_size=0, max_size=8))
def test_serialize_frames_keeps_grouping(sc, cuts):
    statements = sc["statements"]
    cuts = sorted(min(c, len(statements)) for c in cuts)
    bounds = [0] + cuts + [len(statements)]
    groups = [statements[a:b] for a, b in zip(bounds, bounds[1:])]   # may hold empty groups
    try:
        data = jelly.serialize_frames([jstatements(g) for g in groups], **write_kwargs(sc))
    except jelly.JellyEncodeError:
        assert "cannot" in fit_verdict(statements, sc["physical"], *sc["tables"]) or \
            "either" in fit_verdict(statements, sc["physical"], *sc["tables"])
        return
    frames = list(jelly.parse_frames(data))
    assert [decoded(f.statements) for f in frames] == [
        expected_statements(g, sc["physical"]) for g in groups]
    opts = jelly.read_options(data)
    assert int(opts.logical_type) == (3 if sc["physical"] == "triples" else 4)
    if sc["physical"] == "graphs":
        # every RDF message is complete in its frame: graphs opened in a frame close in it
        for f in frames:
            assert f.rows["graph_start"] == f.rows["graph_end"]


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(0, 4),
                          st.dictionaries(st.text(ANY_CHAR, max_size=8), st.binary(max_size=20),
                                          max_size=4)),
                min_size=1, max_size=6),
       st.sampled_from(PHYSICAL))
def test_frame_metadata_roundtrip(frames_spec, physical):
    out = io.BytesIO()
    expected = []
    n = 0
    with jelly.Writer(out, physical_type=physical, preset="small") as w:
        for count, metadata in frames_spec:
            stmts = [(("I", f"http://e.org/s{n + i}"), ("I", "http://e.org/p"),
                      ("L", str(n + i), None, None),
                      D if physical == "triples" else ("I", "urn:g")) for i in range(count)]
            n += count
            w.write_frame(jstatements(stmts), metadata=metadata)
            expected.append((expected_statements(stmts, physical), metadata))
    got = [(decoded(f.statements), f.metadata) for f in jelly.parse_frames(out.getvalue())]
    assert got == expected


def test_flush_frame_metadata_on_flat_stream():
    out = io.BytesIO()
    with jelly.Writer(out, physical_type="triples", rows_per_frame=1000) as w:
        w.write((jelly.IRI("s"), jelly.IRI("p"), jelly.Literal("1")))
        w.flush_frame(metadata={"seq": b"\x01"})
        w.flush_frame()                                   # nothing pending: no frame
        w.flush_frame(metadata={"only": b"meta"})         # metadata alone makes a frame
        w.write((jelly.IRI("s"), jelly.IRI("p"), jelly.Literal("2")))
    frames = list(jelly.parse_frames(out.getvalue()))
    assert [f.metadata for f in frames] == [{"seq": b"\x01"}, {"only": b"meta"}, {}]
    assert [len(f) for f in frames] == [1, 0, 1]


# --------------------------------------------------------------------------------------
# namespaces and the stream version
# --------------------------------------------------------------------------------------

NS_NAME = st.text(st.one_of(ANY_CHAR, ODD_CHARS), max_size=6)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenario(max_statements=20),
       st.lists(st.tuples(NS_NAME, IRI_TEXT), max_size=5),
       st.lists(st.tuples(st.integers(0, 20), NS_NAME, IRI_TEXT), max_size=5))
def test_namespaces_roundtrip_and_version(sc, upfront, later):
    # statements that might not fit the tables are covered elsewhere; here every write must work
    assume(set(fit_verdict(sc["statements"], sc["physical"], *sc["tables"])) <= {"fits"})
    statements = jstatements(sc["statements"])
    out = io.BytesIO()
    expected_ns = []     # declarations in stream order
    events = sorted(later, key=lambda e: e[0])
    w = jelly.Writer(out, rows_per_frame=sc["rows_per_frame"], delimited=sc["delimited"],
                     namespaces=dict(upfront), **write_kwargs(sc))
    expected_ns += list(dict(upfront).items())
    declared = bool(upfront)

    def declare(name, iri):
        nonlocal declared
        if declared or w.frames_written == 0:
            w.declare_namespace(name, iri)
            expected_ns.append((name, iri))
            declared = True
        else:
            # version 1 was already written: a later declaration must be refused
            with pytest.raises(jelly.JellyEncodeError):
                w.declare_namespace(name, iri)

    for i, s in enumerate(statements):
        while events and events[0][0] <= i:
            declare(*events.pop(0)[1:])
        w.write(s)
    for _, name, iri in events:
        declare(name, iri)
    w.close()
    data = out.getvalue()
    assert jelly.read_options(data).version == (2 if expected_ns else 1)
    frames = list(jelly.parse_frames(data))
    got_ns = [(name, from_jelly(iri)) for f in frames for name, iri in f.namespaces]
    assert got_ns == [(name, ("I", iri)) for name, iri in expected_ns]
    assert decoded(s for f in frames for s in f.statements) == expected_statements(
        sc["statements"], sc["physical"])
    with jelly.Reader(data) as reader:
        list(reader)
        assert {k: from_jelly(v) for k, v in reader.namespaces.items()} == {
            name: ("I", iri) for name, iri in expected_ns}


def test_version_one_without_namespaces_two_with():
    s = [(jelly.IRI("http://e.org/s"), jelly.IRI("http://e.org/p"), jelly.Literal("o"))]
    assert jelly.read_options(jelly.serialize(s)).version == 1
    assert jelly.read_options(jelly.serialize(s, namespaces={})).version == 1
    assert jelly.read_options(jelly.serialize(s, namespaces={"e": "http://e.org/"})).version == 2
    assert jelly.read_options(jelly.serialize_frames([s], namespaces={"e": "http://e.org/"})).version == 2
    assert jelly.read_options(jelly.serialize(s, delimited=False,
                                              namespaces={"e": jelly.IRI("http://e.org/")})).version == 2


# --------------------------------------------------------------------------------------
# long streams through tiny tables (many evictions, prefix-table conflicts)
# --------------------------------------------------------------------------------------

def _long_stream(seed, n, physical, star):
    import random
    r = random.Random(seed)
    prefixes = [f"http://example.org/p{i}/" for i in range(9)] + ["urn:a:", "", "tag:x#"]
    dts = [XSD + "int", XSD + "date", "urn:dt", XSD_STRING]

    def iri():
        return ("I", r.choice(prefixes) + r.choice(["a", "b", "", "c/d", str(r.randrange(40))]))

    def obj(depth=0):
        k = r.randrange(5 if star and depth < 2 else 4)
        if k == 0:
            return iri()
        if k == 1:
            return ("B", r.choice(["x", "y", "", "é"]))
        if k == 2:
            return ("L", r.choice(["", "v", "\x00"]), r.choice([None, "en"]), None)
        if k == 3:
            return ("L", str(r.randrange(9)), None, r.choice(dts))
        return ("T", iri(), iri(), obj(depth + 1))

    out = []
    for _ in range(n):
        s = (iri() if r.random() < 0.8 else ("B", "s"), iri(), obj())
        if physical != "triples":
            s += (r.choice([D, iri(), ("B", "g")]),)
        out.append(s)
    return out


@pytest.mark.parametrize("tables", [(8, 0, 1), (8, 1, 1), (8, 2, 1), (8, 3, 2), (9, 8, 4)],
                         ids=lambda t: "n%dp%dd%d" % t)
@pytest.mark.parametrize("physical", PHYSICAL)
def test_long_streams_with_tiny_tables(physical, tables):
    statements = _long_stream(sum(tables) * 7 + len(physical), 1500, physical, star=True)
    sc = dict(physical=physical, rdf_star=True, generalized=False, statements=statements,
              tables=tables, rows_per_frame=33, delimited=True)
    assert set(fit_verdict(statements, physical, *tables)) == {"fits"}
    data = jelly.serialize(jstatements(statements), rows_per_frame=33, **write_kwargs(sc))
    check_roundtrip(sc, data)
