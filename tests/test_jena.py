"""Jena's RDF Binary (RDF Thrift, RDF Protobuf) in jelly's core: round trips through jelly's own
writer and reader, both ways through the independent oracle (upb and thriftpy2, see
``oracle/jena.py``), value forms, result sets, clear errors, and robustness (truncated,
mutated and streamed input gives statements or JellyError, nothing else).  Interop with Jena
itself is in ``test_jena_interop.py``.
"""

from __future__ import annotations

import gzip
import io
import math
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import jelly
import jelly.convert
import jelly.formats
import jelly.jena as J
import helpers
from helpers import from_jelly, to_jelly
from oracle import jena as oj
from oracle.isomorphism import ordered_isomorphic
from oracle.ntriples import nt_representable, parse_nquads
from oracle.terms import norm_term, walk
from strategies import D, scenario

FORMATS = ("thrift", "protobuf")
XSD = "http://www.w3.org/2001/XMLSchema#"
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def expected(statements):
    """What a reader gives for written statements: xsd:string as simple literals, the default
    graph as a triple."""
    out = []
    for s in statements:
        s = tuple(norm_term(t) for t in s)
        out.append(s[:3] if len(s) == 3 or s[3] == D else s)
    return out


def rows_of(statements, namespaces=()):
    """The rows a plain writer (no values, prefixed names or REPEAT) writes for statements."""
    rows = [("prefix", p, ns) for p, ns in namespaces]
    for s in expected(statements):
        rows.append(("triple",) + s if len(s) == 3 else ("quad",) + s)
    return rows


def neutral(statements):
    return [from_jelly(s) for s in statements]


def read(data, fmt, **kw):
    return neutral(J.parse(data, format=fmt, **kw))


# ------------------------------------------------------------------ round trips and oracles

@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(sc=scenario(), values=st.booleans(), repeat=st.booleans(), prefix_names=st.booleans())
def test_round_trip(fmt, sc, values, repeat, prefix_names):
    statements = sc["statements"]
    namespaces = {"ex": "http://example.org/", "n": "http://example.org/ns#", "e": ""}
    data = J.serialize([tuple(to_jelly(t) for t in s) for s in statements], format=fmt,
                       namespaces=namespaces, values=values, repeat=repeat,
                       prefix_names=prefix_names)
    with J.Reader(data, format=fmt) as reader:
        got = neutral(reader)
        assert reader.namespaces == namespaces
        counts = reader.row_counts
    assert got == expected(statements)
    assert counts["prefix"] == 3 and counts["triple"] + counts["quad"] == len(statements)
    # the oracle reads the same
    decode = oj.th_decode if fmt == "thrift" else oj.pb_decode
    assert oj.resolve(decode(data))[0] == expected(statements)
    # quads=True: every statement with its graph
    assert read(data, fmt, quads=True) == [s if len(s) == 4 else s + (D,)
                                           for s in expected(statements)]


@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(sc=scenario())
def test_bytes_equal_the_oracles(fmt, sc):
    """A plain writer writes exactly what upb / thriftpy2 write for the same rows."""
    statements = sc["statements"]
    ns = [("ex", "http://example.org/")]
    data = J.serialize([tuple(to_jelly(t) for t in s) for s in statements], format=fmt,
                       namespaces=dict(ns))
    encode = oj.th_encode if fmt == "thrift" else oj.pb_encode
    assert data == encode(rows_of(statements, ns))


@st.composite
def wire_rows(draw, protobuf):
    """Rows with everything a writer may use: prefixed names (also for datatypes), REPEAT,
    value forms, quads without a graph or with UNDEF, base rows (RDF Protobuf)."""
    sc = draw(scenario())
    prefixes = {"ex": "http://example.org/", "x": XSD, "": "urn:"}
    rows = [("prefix", p, ns) for p, ns in prefixes.items()]
    last = [None, None, None, None]

    def term(t, top):
        if t[0] == "I":
            for p, ns in prefixes.items():
                if t[1].startswith(ns) and draw(st.booleans()):
                    return ("N", p, t[1][len(ns):])
        if t[0] == "L" and t[3] is not None and t[3].startswith(XSD) and draw(st.booleans()):
            return ("LP", t[1], "x", t[3][len(XSD):])
        if t[0] == "T":
            return ("T",) + tuple(term(x, False) for x in t[1:])
        if top and draw(st.integers(0, 5)) == 0:
            return draw(st.sampled_from([
                ("VI", draw(st.integers(-(1 << 63), (1 << 63) - 1))),
                ("VF", draw(st.floats(allow_nan=True, allow_infinity=True))),
                ("VD", draw(st.integers(-(1 << 63), (1 << 63) - 1)), draw(st.integers(-40, 40)))]))
        return t

    for s in sc["statements"]:
        s = list(s) + ([D] if len(s) == 3 else [])
        out = []
        for i, t in enumerate(s):
            if i == 3:
                out.append(None if t == D and draw(st.booleans()) else
                           ("U",) if t == D and draw(st.booleans()) else
                           None if t == D else term(t, True))
            elif last[i] is not None and draw(st.integers(0, 3)) == 0:
                out.append(("R",))
            else:
                out.append(term(t, True))
        quad = s[3] != D or draw(st.booleans())
        rows.append(("quad", *out) if quad else ("triple", *out[:3]))
        last = [1, 1, 1, 1] if quad else [1, 1, 1, last[3]]
        if protobuf and draw(st.integers(0, 9)) == 0:
            rows.append(("base", draw(st.sampled_from(["http://base/", ""]))))
    return rows


@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(data=st.data())
def test_reads_what_the_oracle_writes(fmt, data):
    rows = data.draw(wire_rows(fmt == "protobuf"))
    encode = oj.th_encode if fmt == "thrift" else oj.pb_encode
    wire = encode(rows)
    statements, namespaces = oj.resolve(rows)
    with J.Reader(wire, format=fmt) as reader:
        got = neutral(reader)
        assert reader.namespaces == dict(namespaces)
        bases = [r[1] for r in rows if r[0] == "base"]
        assert reader.base == (bases[-1] if bases else None)
        assert reader.row_counts["base"] == len(bases)
    assert got == statements


@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(sc=scenario(max_statements=12), values=st.booleans(), repeat=st.booleans(),
       unbound=st.lists(st.booleans(), min_size=48, max_size=48))
def test_result_sets(fmt, sc, values, repeat, unbound):
    terms = [t for s in sc["statements"] for t in s if t != D]
    width = 1 + len(terms) % 4
    variables = [f"v{i}" for i in range(width)]
    rows = [tuple(None if unbound[(r * width + i) % 48] else norm_term(terms[(r + i) % len(terms)])
                  for i in range(width)) for r in range(len(terms) // 2)] if terms else []
    data = J.write_results(None, variables, [tuple(None if t is None else to_jelly(t) for t in r)
                                             for r in rows], format=fmt, values=values,
                           repeat=repeat)
    with J.read_results(data, format=fmt) as reader:
        assert reader.variables == variables
        got = [tuple(None if t is None else from_jelly(t) for t in r) for r in reader]
    assert got == rows
    decode = oj.th_decode_results if fmt == "thrift" else oj.pb_decode_results
    ovars, orows = decode(data)
    assert ovars == variables and oj.resolve_results(orows) == rows
    if not values and not repeat:
        encode = oj.th_encode_results if fmt == "thrift" else oj.pb_encode_results
        assert data == encode(variables, rows)
    # and what the oracle writes, with REPEAT
    orows = [tuple(("R",) if r and i % 2 and r[i] == rows[k - 1][i] and rows[k - 1][i] is not None
                   else t for i, t in enumerate(r)) if k else r for k, r in enumerate(rows)]
    encode = oj.th_encode_results if fmt == "thrift" else oj.pb_encode_results
    with J.read_results(encode(variables, orows), format=fmt) as reader:
        assert [tuple(None if t is None else from_jelly(t) for t in r) for r in reader] == rows


@pytest.mark.parametrize("fmt", FORMATS)
def test_empty_result_sets(fmt):
    for variables, rows in (([], []), (["a"], []), ([], [(), ()])):
        data = J.write_results(None, variables, rows, format=fmt)
        with J.read_results(data, format=fmt) as reader:
            assert reader.variables == variables
            assert list(reader) == rows
    with J.read_results(b"", format=fmt) as reader:
        assert reader.variables == [] and list(reader) == []


# ------------------------------------------------------------------ value forms

INTEGERS = [(0, "0"), (-1, "-1"), (42, "42"), ((1 << 63) - 1, "9223372036854775807"),
            (-(1 << 63), "-9223372036854775808")]
DECIMALS = [(0, 0, "0"), (0, 5, "0"), (25, 1, "2.5"), (-5, 3, "-0.005"), (5, -2, "500"),
            (100, 2, "1"), (-100, 3, "-0.1"), (123456, 2, "1234.56"), (7, 0, "7"),
            (-(1 << 63), 0, "-9223372036854775808"), (10, 1, "1"), (1, 20, "0.00000000000000000001")]
DOUBLES = [(1.0, "1.0E0"), (100.0, "1.0E2"), (0.001, "1.0E-3"), (2.5, "2.5E0"),
           (-123.456, "-1.23456E2"), (1.5e300, "1.5E300"), (0.0, "0.0E0"), (-0.0, "-0.0E0"),
           (math.inf, "INF"), (-math.inf, "-INF"), (math.nan, "NaN"), (5e-324, "5.0E-324"),
           (0.1, "1.0E-1"), (1e16, "1.0E16"), (123456789012345678.0, "1.2345678901234568E17")]


@pytest.mark.parametrize("fmt", FORMATS)
def test_value_forms_read_as_canonical_literals(fmt):
    terms = [("VI", v) for v, _ in INTEGERS] + [("VD", v, s) for v, s, _ in DECIMALS] + \
        [("VF", v) for v, _ in DOUBLES]
    lexes = [("integer", x) for _, x in INTEGERS] + [("decimal", x) for *_, x in DECIMALS] + \
        [("double", x) for _, x in DOUBLES]
    rows = [("triple", ("I", "http://s"), ("I", "http://p"), t) for t in terms]
    encode = oj.th_encode if fmt == "thrift" else oj.pb_encode
    got = read(encode(rows), fmt)
    assert [s[2] for s in got] == [("L", lex, None, XSD + dt) for dt, lex in lexes]
    # the oracle's own canonical forms agree with the table
    assert [s[2] for s in oj.resolve(rows)[0]] == [s[2] for s in got]


@pytest.mark.parametrize("fmt", FORMATS)
def test_values_written_only_for_canonical_literals(fmt):
    lits = [("1", "integer", True), ("01", "integer", False), ("+1", "integer", False),
            ("-0", "integer", False), ("9223372036854775808", "integer", False),
            ("٣", "integer", False), ("2.5", "decimal", True), ("2.50", "decimal", False),
            ("3", "decimal", True), ("3.0", "decimal", False), ("-0.5", "decimal", True),
            (".5", "decimal", False), ("1.0E2", "double", True), ("100", "double", False),
            ("1e2", "double", False), ("INF", "double", True), ("NaN", "double", True),
            ("inf", "double", False), ("1", "int", False)]
    statements = [(jelly.IRI("http://s"), jelly.IRI("http://p"),
                   jelly.Literal(lex, datatype=XSD + dt)) for lex, dt, _ in lits]
    data = J.serialize(statements, format=fmt, values=True)
    decode = oj.th_decode if fmt == "thrift" else oj.pb_decode
    kinds = [r[3][0] for r in decode(data)]
    assert kinds == [{"integer": "VI", "decimal": "VD", "double": "VF"}[dt] if value else "L"
                     for _, dt, value in lits]
    assert list(J.parse(data, format=fmt)) == statements      # nothing changed on the way


def test_canonical_form_functions():
    for v, lex in INTEGERS:
        assert J.decimal_lexical(v, 0) == lex
    for v, s, lex in DECIMALS:
        assert J.decimal_lexical(v, s) == lex
    for v, lex in DOUBLES:
        assert J.double_lexical(v) == lex


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_double_lexical_reads_back(v):
    lex = J.double_lexical(v)
    assert float(lex) == v and lex == oj.canonical_double(v)


# ------------------------------------------------------------------ what is refused

def _err(fmt, rows, match):
    encode = oj.th_encode if fmt == "thrift" else oj.pb_encode
    with pytest.raises(jelly.JellyError, match=match) as info:
        read(encode(rows), fmt)
    assert info.value.offset is not None and info.value.row is not None
    return info.value


S, P = ("I", "http://s"), ("I", "http://p")


@pytest.mark.parametrize("fmt", FORMATS)
def test_clear_errors(fmt):
    _err(fmt, [("triple", S, P, ("V", "x"))], r"variable \?x is not an RDF term")
    _err(fmt, [("triple", S, P, ("A",))], "RDF_Term any is not an RDF term")
    _err(fmt, [("triple", ("U",), P, S)], "UNDEF as the subject")
    _err(fmt, [("triple", ("R",), P, S)], "REPEAT subject in the first statement")
    _err(fmt, [("quad", S, P, S, ("R",))], "REPEAT graph before the first quad")
    _err(fmt, [("triple", S, P, S), ("quad", S, P, S, ("R",))],
         "REPEAT graph before the first quad")
    _err(fmt, [("triple", S, P, ("N", "ex", "a"))], "undeclared prefix 'ex'")
    _err(fmt, [("triple", S, P, ("LP", "1", "x", "int"))], "undeclared prefix 'x'")
    _err(fmt, [("triple", S, P, S), ("triple", S, P, ("T", ("R",), P, S))],
         "REPEAT inside a triple term")
    _err(fmt, [("triple", S, P, ("VD", 1, 5000))], "scale 5000 is beyond the limit")
    _err(fmt, [("triple", S, P, ("L", "x", None, "http://www.w3.org/1999/02/22-rdf-syntax-"
                                 "ns#langString"))], "langString literal without a language")
    e = _err(fmt, [("triple", S, P, S), ("triple", S, P, ("V", "y"))], "variable")
    assert e.row == 1
    nested = S
    for _ in range(70):
        nested = ("T", nested, P, S)
    _err(fmt, [("triple", S, P, nested)], "nested deeper than 64")
    with pytest.raises(jelly.JellyError, match="not an RDF term"):
        J.write_results(None, ["a"], [(jelly.DEFAULT_GRAPH,)], format=fmt)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("graph", [("U",), ("I", "urn:x-arq:DefaultGraphNode"), None,
                                   ("I", "http://g"), ("B", "g")])
def test_repeat_graph_is_the_previous_quads_graph(fmt, graph, tmp_path):
    """The default graph too, and for N-Triples terms too (where the default graph is None):
    that path, which jelly convert takes to N-Quads, took it for "no quad yet"."""
    o = ("I", "http://o")
    rows = [("quad", S, P, S, graph), ("triple", S, P, o), ("quad", S, P, o, ("R",))]
    if graph is None:
        rows[0] = ("quad", S, P, S)
    if fmt == "thrift" and graph is None:
        rows[0] = ("quad", S, P, S, ("U",))         # a Thrift quad's graph is required
    data = (oj.th_encode if fmt == "thrift" else oj.pb_encode)(rows)
    want = oj.resolve((oj.th_decode if fmt == "thrift" else oj.pb_decode)(data))[0]
    # Jena's name of the default graph is the default graph (the oracle keeps names as read)
    want = [st[:3] if st[3:] == (("I", "urn:x-arq:DefaultGraphNode"),) else st for st in want]
    assert read(data, fmt) == want
    with J.Reader(data, format=fmt, terms="nt", output="text") as r:
        text = b"".join(r.chunks()).decode()
    assert ordered_isomorphic([tuple(s) for s in parse_nquads(text)], want)
    (tmp_path / "in.rt").write_bytes(data)
    jelly.convert.convert(tmp_path / "in.rt", tmp_path / "out.nq", from_format=fmt)
    got = parse_nquads((tmp_path / "out.nq").read_text())
    assert ordered_isomorphic([tuple(s) for s in got], want)


def test_a_base_direction_is_written_as_jena_writes_it():
    """A directional language tag went into the language tag field of both encodings.  Jena
    (after 4.5) has RDF Thrift's langtag + baseDirection (fields 2 and 5) and RDF Protobuf's
    langdir ("en--ltr", field 5), as proto/ says; the oracles read what jelly wrote."""
    lits = [jelly.Literal("hello", language="en-GB--ltr"), jelly.Literal("y", language="ar--rtl"),
            jelly.Literal("x", language="en")]
    statements = [(jelly.IRI("http://s"), jelly.IRI("http://p"), o) for o in lits]
    T = oj.th()
    rows = oj._th_read(J.serialize(statements, format="thrift"), T.RDF_StreamRow)
    assert [(r.triple.O.literal.langtag, r.triple.O.literal.baseDirection) for r in rows] == \
        [("en-GB", "ltr"), ("ar", "rtl"), ("en", None)]
    P_ = oj.pb()
    got = []
    for raw in oj._undelimit(J.serialize(statements, format="protobuf")):
        lit = P_.RDF_StreamRow.FromString(raw).triple.O.literal
        got.append((lit.WhichOneof("literalKind"), lit.langdir or lit.langtag))
    assert got == [("langdir", "en-GB--ltr"), ("langdir", "ar--rtl"), ("langtag", "en")]
    for fmt in FORMATS:
        assert list(J.parse(J.serialize(statements, format=fmt), format=fmt)) == statements


def test_protobuf_specific_errors():
    P_ = oj.pb()
    row = P_.RDF_StreamRow()
    row.triple.S.iri.iri = "http://s"
    row.triple.P.iri.iri = "http://p"
    row.triple.O.literal.lex = "x"
    row.triple.O.literal.langdir = "en--ltr"
    data = row.SerializeToString()
    assert list(J.parse(bytes([len(data)]) + data, format="protobuf"))[0][2] == \
        jelly.Literal("x", language="en--ltr")
    with pytest.raises(jelly.JellyError, match="RDF_StreamRow without a member"):
        read(b"\x00", "protobuf")
    row = P_.RDF_StreamRow()
    row.triple.S.iri.iri = "http://s"
    row.triple.O.iri.iri = "http://o"
    data = row.SerializeToString()
    with pytest.raises(jelly.JellyError, match="RDF_Triple without its predicate"):
        read(bytes([len(data)]) + data, "protobuf")
    with pytest.raises(jelly.JellyError, match="result row with 2 values for 1 variables"):
        list(J.read_results(oj.pb_encode_results(["a"], [[("I", "x"), ("I", "y")]]),
                            format="protobuf"))
    # protobuf rules: a oneof's last member wins, repeated messages are merged
    t = P_.RDF_Term()
    t.iri.iri = "http://first"
    t2 = P_.RDF_Term()
    t2.bnode.label = "b"
    t3 = P_.RDF_Term()
    t3.literal.lex = "x"
    t4 = P_.RDF_Term()
    t4.literal.langtag = "en"
    body = b"\x0a" + bytes([len(t.SerializeToString())]) + t.SerializeToString()
    for x in (t2, t3, t4):
        b = x.SerializeToString()
        body += b"\x0a" + bytes([len(b)]) + b       # S four times: merged
    tp = P_.RDF_Term()
    tp.iri.iri = "http://p"
    b = tp.SerializeToString()
    body += b"\x12" + bytes([len(b)]) + b + b"\x1a\x04\x12\x02\x0a\x00"
    row = b"\x12" + bytes([len(body)]) + body
    assert P_.RDF_StreamRow.FromString(row).triple.S.literal.langtag == "en"
    assert read(bytes([len(row)]) + row, "protobuf") == \
        [(("L", "x", "en", None), ("I", "http://p"), ("B", ""))]


def test_thrift_specific_errors():
    T = oj.th()
    # a union with two members
    term = T.RDF_Term(iri=T.RDF_IRI(iri="http://a"), bnode=T.RDF_BNode(label="b"))
    row = T.RDF_StreamRow(triple=T.RDF_Triple(term, term, term))
    with pytest.raises(jelly.JellyError, match="more than one member"):
        read(oj._th_write([row]), "thrift")
    lit = T.RDF_Term(literal=T.RDF_Literal(lex="x", langtag="en", baseDirection="ltr"))
    row = T.RDF_StreamRow(triple=T.RDF_Triple(term.__class__(iri=T.RDF_IRI(iri="s")),
                                              T.RDF_Term(iri=T.RDF_IRI(iri="p")), lit))
    assert list(J.parse(oj._th_write([row]), format="thrift"))[0][2] == \
        jelly.Literal("x", language="en--ltr")
    row.triple.O.literal.langtag = None
    with pytest.raises(jelly.JellyError, match="baseDirection and no langtag"):
        read(oj._th_write([row]), "thrift")
    with pytest.raises(jelly.JellyError, match="without a member"):
        read(b"\x00", "thrift")
    with pytest.raises(jelly.JellyError, match="RDF_IRI|without its string"):
        read(b"\x2c\x1c\x1c\x00\x00", "thrift")
    with pytest.raises(jelly.JellyTruncatedError):
        read(b"\x2c\x1c", "thrift")
    with pytest.raises(jelly.JellyEncodeError, match="no base row"):
        J.Writer(None, format="thrift", base="http://b")


@pytest.mark.parametrize("fmt", FORMATS)
def test_limits(fmt):
    rows = [("triple", S, P, ("L", "x" * 5000, None, None))]
    encode = oj.th_encode if fmt == "thrift" else oj.pb_encode
    data = encode(rows)
    with pytest.raises(jelly.JellyLimitError):
        read(data, fmt, limits=jelly.ReaderLimits(max_frame_size=1000))
    with pytest.raises(jelly.JellyLimitError):
        read(encode([("triple", S, P, ("T", ("T", S, P, S), P, S))]), fmt,
             limits=jelly.ReaderLimits(max_quoted_depth=1))
    assert len(read(data, fmt)) == 1


@pytest.mark.parametrize("fmt", FORMATS)
def test_rows_are_bounded_whole_however_the_input_is_cut(fmt):
    """A row of many strings, each under the limit, is over it as a whole: refused from bytes
    and from a stream read in pieces of any size, in both encodings (RDF Thrift has no length
    prefix: its row was only measured where a piece ended inside it), and one under the limit
    is read."""
    encode = oj.th_encode if fmt == "thrift" else oj.pb_encode
    big = [("triple", ("I", "http://s/" + "a" * 9000), ("I", "http://p/" + "b" * 9000),
            ("T", ("I", "http://x/" + "c" * 9000), P, ("L", "d" * 9000, None, None)))]
    data = encode([("triple", S, P, ("L", "x", None, None))] + big)
    limits = jelly.ReaderLimits(max_frame_size=30000)
    for source in (data, io.BufferedReader(helpers.Pieces(data, 7)),
                   io.BufferedReader(helpers.Pieces(data, 100000))):
        got = []
        with pytest.raises(jelly.JellyLimitError, match="30000 bytes") as info:
            for st in J.parse(source, format=fmt, limits=limits):
                got.append(st)
        assert len(got) == 1 and info.value.row == 1
    assert len(read(data, fmt, limits=jelly.ReaderLimits(max_frame_size=40000))) == 2


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("source", ["bytes", "stream"])
def test_an_error_comes_after_the_statements_of_the_rows_before_it(fmt, source):
    """As the Jelly reader gives every frame before a broken one: a broken row's error comes
    after every statement of the rows before it (they were dropped with the piece being
    decoded), by statements and by frames; the reader stays failed."""
    sts = [(jelly.IRI("http://s"), jelly.IRI("http://p"), jelly.Literal(str(i)))
           for i in range(300)]
    data = J.serialize(sts, format=fmt)
    at = data.index(b"\x03250")         # the literal of row 250, in both encodings
    bad = data[:at] + b"\xff" * 12 + data[at + 12:]
    make = {"bytes": lambda: bad, "stream": lambda: io.BufferedReader(helpers.Pieces(bad, 1000))}
    got = []
    with pytest.raises(jelly.JellyDecodeError) as info:
        for st in J.parse(make[source](), format=fmt):
            got.append(st)
    assert got == sts[:250] and info.value.row == 250
    with J.Reader(make[source](), format=fmt) as r:
        got = []
        with pytest.raises(jelly.JellyDecodeError):
            for frame in r.frames(size=64):
                got += frame.statements
        assert got == sts[:250]
        with pytest.raises(jelly.JellyDecodeError):
            list(r)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_refused_statement_leaves_nothing_of_its_row(fmt):
    """A writer that refuses a statement, or a result row, halfway through its terms leaves
    none of its bytes behind: a program that catches the error and writes on gets a stream
    every reader reads (the independent one too), without the refused row."""
    s, p = jelly.IRI("http://ex/s"), jelly.IRI("http://ex/p")
    deep = s
    for _ in range(70):
        deep = jelly.Triple(deep, p, s)
    refused = [(s, p, jelly.Literal("bad \ud800")), (s, p, "a plain str"), (s, p, deep),
               (jelly.IRI("http://ex/\udfff"), p, s), (s, p, jelly.Literal("x", language="en--up"))]
    out = io.BytesIO()
    with J.Writer(out, format=fmt) as w:
        w.write((s, p, jelly.Literal("before")))
        for st in refused:
            with pytest.raises(jelly.JellyEncodeError):
                w.write(st)
        w.write((s, p, jelly.Literal("after")))
        with pytest.raises(jelly.JellyEncodeError):
            w.write_all([(s, p, jelly.Literal("in")), refused[0], (s, p, s)])
    want = [(s, p, jelly.Literal("before")), (s, p, jelly.Literal("after")),
            (s, p, jelly.Literal("in"))]
    data = out.getvalue()
    assert list(J.parse(data, format=fmt)) == want
    decode = oj.th_decode if fmt == "thrift" else oj.pb_decode
    assert len(decode(data)) == 3
    out = io.BytesIO()
    with J.Writer(out, format=fmt) as w:
        w.write_variables(["a", "b"])
        w.write_rows([[s, None]])
        with pytest.raises(jelly.JellyEncodeError):
            w.write_rows([[s, jelly.Literal("bad \ud800")]])
        w.write_rows([[None, p]])
    assert list(J.read_results(out.getvalue(), format=fmt)) == [(s, None), (None, p)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_namespace_must_be_an_iri(fmt):
    """As the Jelly writer: None, a number or bytes as a namespace was written as its text
    ("None", "b'http://c/'")."""
    st = (jelly.IRI("http://s"), jelly.IRI("http://p"), jelly.IRI("http://o"))
    for bad in (None, 42, b"http://c/"):
        with pytest.raises(jelly.JellyEncodeError, match="a namespace must be an IRI"):
            J.serialize([st], format=fmt, namespaces={"a": bad})
    data = J.serialize([st], format=fmt, namespaces={"a": "http://a/", "b": jelly.IRI("http://b/")})
    with J.Reader(data, format=fmt) as r:
        list(r)
        assert r.namespaces == {"a": "http://a/", "b": "http://b/"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_base_direction_is_ltr_or_rtl(fmt):
    """Read and written as Jena's TextDirection has it: 'ltr' or 'rtl', after a language
    tag; anything else is refused with its position (it gave a Literal that could not be
    printed), as by the N-Triples reader."""
    ok = [("en", "ltr"), ("ar-EG", "rtl")]
    bad = [("en", "up"), ("en", "LTR"), ("en", ""), ("", "ltr"), ("en--ltr", "rtl")]
    for tag, direction in ok + bad:
        if fmt == "thrift":
            T = oj.th()
            lit = T.RDF_Term(literal=T.RDF_Literal(lex="x", langtag=tag,
                                                   baseDirection=direction))
            row = T.RDF_StreamRow(triple=T.RDF_Triple(T.RDF_Term(iri=T.RDF_IRI(iri="s")),
                                                      T.RDF_Term(iri=T.RDF_IRI(iri="p")), lit))
            data = oj._th_write([row])
        else:
            data = oj.pb_encode([("triple", S, P, ("LDIR", "x", f"{tag}--{direction}"))])
        if (tag, direction) in ok:
            assert list(J.parse(data, format=fmt))[0][2] == \
                jelly.Literal("x", language=f"{tag}--{direction}")
            continue
        if fmt == "thrift" and not tag:     # no langtag: refused as before, for that
            continue
        with pytest.raises(jelly.JellyDecodeError, match="base direction") as info:
            list(J.parse(data, format=fmt))
        assert info.value.offset is not None and info.value.row == 0
        with pytest.raises(jelly.JellyEncodeError, match="base direction"):
            J.serialize([(jelly.IRI("http://s"), jelly.IRI("http://p"),
                          jelly.Literal("x", language=f"{tag}--{direction}"))], format=fmt)


# ------------------------------------------------------------------ robustness

def _samples(fmt):
    st_ = [(jelly.IRI("http://example.org/s"), jelly.IRI("http://example.org/p"),
            jelly.Literal("hello", language="en")),
           (jelly.BlankNode("b0"), jelly.IRI("http://example.org/p"),
            jelly.Triple(jelly.IRI("http://example.org/s"), jelly.IRI("http://example.org/q"),
                         jelly.Literal("12", datatype=XSD + "integer")),
            jelly.IRI("http://example.org/g")),
           (jelly.BlankNode("b0"), jelly.IRI("http://example.org/q"),
            jelly.Literal("2.5", datatype=XSD + "decimal"))]
    out = [J.serialize(st_, format=fmt, namespaces={"ex": "http://example.org/"}),
           J.serialize(st_, format=fmt, namespaces={"ex": "http://example.org/"}, values=True,
                       repeat=True, prefix_names=True),
           J.write_results(None, ["a", "b"], [(st_[0][0], None), (st_[1][0], st_[2][2])],
                           format=fmt)]
    return st_, out


def _decode_all(data, fmt, results):
    if results:
        with J.read_results(data, format=fmt) as r:
            return r.variables, list(r)
    return list(J.parse(data, format=fmt))


@pytest.mark.parametrize("fmt", FORMATS)
def test_truncation_gives_only_jelly_errors(fmt):
    _, samples = _samples(fmt)
    for k, data in enumerate(samples):
        results = k == 2
        full = _decode_all(data, fmt, results)
        for cut in range(len(data)):
            try:
                got = _decode_all(data[:cut], fmt, results)
            except jelly.JellyError:
                continue
            # a cut between rows is a valid, shorter stream
            if results:
                assert got[1] == full[1][:len(got[1])]
            else:
                assert got == full[:len(got)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_mutation_gives_only_jelly_errors(fmt):
    rng = random.Random(10)
    _, samples = _samples(fmt)
    for k, data in enumerate(samples):
        for _ in range(1500):
            b = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(len(b))
                b[i] = rng.choice([0, 0xFF, 0x80, rng.randrange(256), b[i] ^ (1 << rng.randrange(8))])
            try:
                _decode_all(bytes(b), fmt, k == 2)
            except jelly.JellyError:
                pass


class _Trickle(io.RawIOBase):
    """A stream returning a few bytes per read."""

    def __init__(self, data, n):
        self._data, self._pos, self._n = data, 0, n

    def readable(self):
        return True

    def readinto(self, b):
        chunk = self._data[self._pos:self._pos + min(self._n, len(b))]
        b[:len(chunk)] = chunk
        self._pos += len(chunk)
        return len(chunk)


@pytest.mark.parametrize("fmt", FORMATS)
def test_streamed_input_reads_the_same(fmt):
    statements, samples = _samples(fmt)
    data = samples[1]
    for n in (1, 2, 3, 7, 64):
        assert list(J.parse(_Trickle(data, n), format=fmt)) == statements
    assert list(J.parse(gzip.compress(data), format=fmt)) == statements
    # a stream that ends inside a row is an error at the right place
    with pytest.raises(jelly.JellyTruncatedError) as info:
        list(J.parse(_Trickle(data[:-1], 3), format=fmt))
    assert info.value.row == 3          # the prefix row is row 0
    # the decoder fed byte by byte
    dec = (J.ThriftDecoder if fmt == "thrift" else J.ProtoDecoder)()
    pos, got = 0, []
    for i in range(1, len(data) + 1):
        pos = dec.feed(data[:i], pos, 0, i == len(data))
        got += dec.take()
    assert pos == len(data) and got == statements


@pytest.mark.parametrize("fmt", FORMATS)
def test_large_rows_and_many_rows_stream(fmt):
    big = jelly.Literal("é" * 200_000)
    statements = [(jelly.IRI(f"http://e.org/{i}"), jelly.IRI("http://e.org/p"),
                   big if i % 1000 == 0 else jelly.Literal(str(i))) for i in range(20_000)]
    data = J.serialize(statements, format=fmt)
    assert list(J.parse(_Trickle(data, 100_000), format=fmt)) == statements
    with J.Reader(io.BytesIO(data), format=fmt) as r:
        assert sum(len(c) for c in r.chunks(1000)) == len(statements)


# ------------------------------------------------------------------ the API

def test_formats_from_names_and_paths(tmp_path):
    statements = [(jelly.IRI("http://s"), jelly.IRI("http://p"), jelly.Literal("o"))]
    for name, fmt in (("a.rt", "thrift"), ("a.trdf", "thrift"), ("a.rpb", "protobuf"),
                      ("a.pbrdf", "protobuf"), ("a.rt.gz", "thrift"), ("a.rpb.zst", "protobuf"),
                      ("A.RT.ZST", "thrift")):
        path = tmp_path / name
        J.serialize(statements, path)
        magic = {".gz": b"\x1f\x8b", ".zst": b"\x28\xb5\x2f\xfd"}.get(path.suffix.lower())
        assert magic is None or path.read_bytes().startswith(magic)   # compressed as named
        assert J.Reader(path).format == fmt
        assert list(J.parse(path)) == statements
        assert list(J.parse(path, format=fmt)) == statements
    with pytest.raises(jelly.JellyError, match="name the format"):
        J.serialize(statements, tmp_path / "a.bin")
    assert jelly.formats.for_path("x.rt").name == "rdf-thrift"
    assert jelly.formats.get("RDF-PROTO").name == "rdf-protobuf"
    assert jelly.formats.sniff(J.serialize(statements, format="thrift")).name == "rdf-thrift"
    assert jelly.formats.sniff(J.serialize([], format="thrift",
                                           namespaces={"a": "b"})).name == "rdf-thrift"


RPB_STARTS = {   # rows written by the protobuf oracle: each way an RDF Protobuf file starts
    "triple": [("triple", ("I", "http://s"), ("I", "http://p"), ("L", "x", None, None))],
    "quad": [("quad", ("B", "b0"), ("I", "http://p"), ("VI", 7), ("I", "http://g"))],
    "value": [("triple", ("I", "http://s"), ("I", "http://p"), ("VF", 1.5))],
    "prefix": [("prefix", "ex", "http://example.org/"),
               ("triple", ("I", "http://s"), ("I", "http://p"), ("I", "http://o"))],
    "empty prefix": [("prefix", "", "http://example.org/"),
                     ("triple", ("I", "http://s"), ("I", "http://p"), ("I", "http://o"))],
    "base": [("base", "http://example.org/"),
             ("triple", ("I", "http://s"), ("I", "http://p"), ("I", "http://o"))],
}


@pytest.mark.parametrize("start", sorted(RPB_STARTS))
def test_rdf_protobuf_is_recognised_and_never_read_as_jelly(tmp_path, start):
    """RDF Protobuf is a length and a protobuf message, as Jelly is; a file that starts with a
    triple row (field 2, unknown to a Jelly frame) was read as an empty Jelly stream."""
    from test_cli import fails, ok
    data = oj.pb_encode(RPB_STARTS[start])
    assert jelly.formats.sniff_content(data) is jelly.formats.RDF_PROTOBUF
    # converted without a name that tells (stdin)
    assert ok("convert", "-", "-", "--to", "nq", stdin=data).count(b" .\n") == 1
    message = "not a Jelly file (it looks like RDF Protobuf)"
    with pytest.raises(jelly.JellyDecodeError, match=re.escape(message)):
        list(jelly.parse(data))
    first = next(oj._undelimit(data))           # the decoder given the frame directly
    if first[:1] != b"\x0a":                    # (a prefix row fails as Jelly rows anyway)
        with pytest.raises(jelly.JellyDecodeError, match=re.escape(message)):
            jelly.Decoder().decode_frame(first)
    path = tmp_path / "in.jelly"
    path.write_bytes(data)
    for command in (("validate", path), ("inspect", path), ("transcode", path, tmp_path / "o"),
                    ("convert", path, tmp_path / "o.nt")):
        assert fails(*command) == f"jelly: error: {message}"


def test_jelly_is_never_taken_for_rdf_protobuf():
    streams = [data for _, data in _valid_conformance_files()]
    streams += [jelly.serialize([(jelly.IRI("http://s"), jelly.IRI("http://p"),
                                  jelly.Literal("o"))], stream_name=name, delimited=delimited)
                for name in ("", "x", "a" * 200) for delimited in (True, False)]
    assert len(streams) > 150
    for data in streams:
        assert jelly.formats.sniff_content(data[:4096]) is jelly.formats.JELLY


def _valid_conformance_files():
    import helpers
    return [(cid, path.read_bytes()) for cid, path in helpers.valid_jelly_files()]


def test_writer_is_atomic_and_has_a_base_row(tmp_path):
    path = tmp_path / "out.rpb"
    with pytest.raises(jelly.JellyError):
        with J.Writer(path) as w:
            w.write((jelly.IRI("http://s"), jelly.IRI("http://p"), jelly.IRI("http://o")))
            w.write((jelly.IRI("http://s"), None, jelly.IRI("http://o")))
    assert not path.exists()
    with J.Writer(path, base="http://base/") as w:
        w.write((jelly.IRI("http://s"), jelly.IRI("http://p"), jelly.IRI("http://o")))
    with J.Reader(path) as r:
        assert len(list(r)) == 1 and r.base == "http://base/"
        assert r.row_counts["base"] == 1
    assert oj.pb_decode(path.read_bytes())[0] == ("base", "http://base/")


def test_output_columns_and_lines():
    statements, samples = _samples("thrift")
    with J.Reader(samples[0], format="thrift", output="columns", quads=True) as r:
        cols = next(r.chunks())
        assert len(cols) == 4 and len(cols[0]) == 3
    with pytest.raises(ValueError):
        J.Reader(samples[0], format="thrift", output="columns")
    # not one item per statement: read in pieces, as jelly.Reader says (iterating them gave
    # the text's byte values, and columns as if they were statements)
    for kw in (dict(output="columns", quads=True), dict(terms="nt", output="text")):
        with J.Reader(samples[0], format="thrift", **kw) as r, \
                pytest.raises(ValueError, match="read in pieces"):
            iter(r)
    # a text frame counts its statements, not its bytes (jelly convert -v)
    with J.Reader(samples[0], format="thrift", terms="nt", output="text") as r:
        frames = list(r.frames())
    assert sum(f.statement_count for f in frames) == len(statements)
    assert b"".join(f.statements for f in frames).count(b"\n") == len(statements)
    lines = list(J.parse(samples[0], format="thrift", terms="nt"))
    assert lines[0][2] == '"hello"@en'
    with J.Reader(samples[0], format="thrift", terms="nt", output="lines") as r:
        text = "".join(line for chunk in r.chunks() for line in chunk)
    got = [tuple(t for t in s) for s in parse_nquads(text)]
    assert ordered_isomorphic(got, [from_jelly(s) for s in statements])


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(sc=scenario())
def test_lines_output_matches(fmt, sc):
    statements = [s for s in expected(sc["statements"])
                  if all(nt_representable(t) for t in walk(s))]
    data = J.serialize([tuple(to_jelly(t) for t in s) for s in statements], format=fmt)
    with J.Reader(data, format=fmt, terms="nt", output="lines") as r:
        text = "".join(line for chunk in r.chunks() for line in chunk)
    assert ordered_isomorphic([tuple(s) for s in parse_nquads(text)], statements)
    # the same lines as one bytes per chunk (what jelly convert writes)
    with J.Reader(data, format=fmt, terms="nt", output="text") as r:
        assert b"".join(r.chunks()) == text.encode("utf-8")
