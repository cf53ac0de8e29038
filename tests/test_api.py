"""Focused unit tests of the public API: terms, errors, limits, writer refusals, destinations.

Bad inputs are written byte by byte with the small protobuf encoder below (checked against the
protobuf classes shipped with pyjelly), and expected values are written by hand.
"""

from __future__ import annotations

import gzip
import io
import pickle

import pytest

import helpers
import jelly
from jelly import DEFAULT_GRAPH, BlankNode, IRI, Literal, Triple

XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_STRING = XSD + "string"
RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


# --------------------------------------------------------------------------------------
# a tiny protobuf writer for hand-made Jelly bytes
# --------------------------------------------------------------------------------------

def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def fv(num: int, v: int) -> bytes:
    return varint(num << 3) + varint(v)


def fb(num: int, b) -> bytes:
    if isinstance(b, str):
        b = b.encode("utf-8")
    return varint(num << 3 | 2) + varint(len(b)) + b


def options(physical=1, names=8, prefixes=0, datatypes=0, version=1, logical=0, star=False,
            gen=False, name=""):
    m = fb(1, name) if name else b""
    m += fv(2, physical) if physical else b""
    m += fv(3, 1) if gen else b""
    m += fv(4, 1) if star else b""
    m += fv(9, names) if names else b""
    m += fv(10, prefixes) if prefixes else b""
    m += fv(11, datatypes) if datatypes else b""
    m += fv(14, logical) if logical else b""
    m += fv(15, version) if version else b""
    return fb(1, m)


def iri(prefix_id=0, name_id=0):
    return (fv(1, prefix_id) if prefix_id else b"") + (fv(2, name_id) if name_id else b"")


def lit(lex="", lang=None, dt=None):
    m = fb(1, lex) if lex else b""
    m += fb(2, lang) if lang is not None else b""
    m += fv(3, dt) if dt is not None else b""
    return m


def entry(row_field, value, id=0):
    return fb(row_field, (fv(1, id) if id else b"") + fb(2, value))


def name_entry(value, id=0):
    return entry(9, value, id)


def prefix_entry(value, id=0):
    return entry(10, value, id)


def datatype_entry(value, id=0):
    return entry(11, value, id)


_KIND = {"iri": 0, "bnode": 1, "literal": 2, "triple": 3}


def spo(s=None, p=None, o=None):
    m = b""
    for i, t in enumerate((s, p, o)):
        if t is not None:
            m += fb(1 + 4 * i + _KIND[t[0]], t[1])
    return m


def triple_row(s=None, p=None, o=None):
    return fb(2, spo(s, p, o))


def quad_row(s, p, o, g):
    m = spo(s, p, o)
    if g is not None:
        m += fb({"iri": 13, "bnode": 14, "default": 15, "literal": 16}[g[0]], g[1])
    return fb(3, m)


def graph_start(g):
    return fb(4, fb({"iri": 1, "bnode": 2, "default": 3, "literal": 4}[g[0]], g[1]))


def graph_end():
    return fb(5, b"")


def namespace_row(name, iri_bytes):
    return fb(6, fb(1, name) + fb(2, iri_bytes))


class Stream:
    """Delimited Jelly bytes built frame by frame, remembering where each row lies."""

    def __init__(self):
        self.data = b""
        self.rows = {}      # (frame, row) -> (start, end) in the stream
        self.frames = 0

    def frame(self, *rows, metadata=None):
        body = b""
        spans = []
        for r in rows:
            piece = fb(1, r)
            spans.append((len(body), len(body) + len(piece)))
            body += piece
        for k, v in (metadata or {}).items():
            body += fb(15, fb(1, k) + fb(2, v))
        prefix = varint(len(body))
        base = len(self.data) + len(prefix)
        for i, (a, b) in enumerate(spans):
            self.rows[(self.frames, i)] = (base + a, base + b)
        self.frames += 1
        self.data += prefix + body
        return self


S_IRI = ("iri", iri(0, 1))


def simple_stream(**opts):
    """One frame: options, one name entry, one triple <s> <s> "x"."""
    return Stream().frame(options(**opts), name_entry("s"), triple_row(S_IRI, S_IRI,
                                                                       ("literal", lit("x"))))


def test_hand_encoder_matches_protobuf():
    """The helper above writes what protobuf itself reads (pyjelly ships the compiled schema)."""
    from pyjelly import jelly as pb
    data = Stream().frame(options(physical=2, names=9, prefixes=3, datatypes=2, version=2,
                                  logical=14, star=True, gen=True, name="n"),
                          prefix_entry("http://e/", 2), name_entry("a"), datatype_entry("urn:d"),
                          quad_row(("iri", iri(2, 1)), ("bnode", b"b"), ("literal", lit("v", dt=1)),
                                   ("default", b"")),
                          namespace_row("ex", iri(2, 1)),
                          metadata={"k": b"v"}).data
    frame = pb.RdfStreamFrame()
    frame.ParseFromString(data[1:])
    o = frame.rows[0].options
    assert (o.stream_name, o.physical_type, o.max_name_table_size, o.max_prefix_table_size,
            o.max_datatype_table_size, o.version, o.logical_type, o.rdf_star,
            o.generalized_statements) == ("n", 2, 9, 3, 2, 2, 14, True, True)
    assert (frame.rows[1].prefix.id, frame.rows[1].prefix.value) == (2, "http://e/")
    assert frame.rows[2].name.value == "a" and frame.rows[3].datatype.value == "urn:d"
    q = frame.rows[4].quad
    assert (q.s_iri.prefix_id, q.s_iri.name_id, q.p_bnode, q.o_literal.lex, q.o_literal.datatype,
            q.WhichOneof("graph")) == (2, 1, "b", "v", 1, "g_default_graph")
    assert frame.rows[5].namespace.name == "ex" and dict(frame.metadata) == {"k": b"v"}


# --------------------------------------------------------------------------------------
# terms
# --------------------------------------------------------------------------------------

def test_term_equality_and_hash():
    assert IRI("http://a/b") == IRI("http://a/b")
    assert hash(IRI("http://a/b")) == hash(IRI("http://a/b"))
    assert IRI("x") != BlankNode("x") and BlankNode("x") != Literal("x") and IRI("x") != Literal("x")
    assert IRI("x") != "x" and "x" != IRI("x") and not (BlankNode("x") == "x")
    assert len({IRI("x"), BlankNode("x"), Literal("x"), IRI("x"), BlankNode("x")}) == 3
    assert Literal("1", datatype=XSD + "int") == Literal("1", datatype=IRI(XSD + "int"))
    assert Literal("1", datatype=XSD + "int") != Literal("1", datatype=XSD + "integer")
    assert Literal("1", datatype=XSD + "int") != Literal("1")
    assert Literal("a", language="en") != Literal("a")
    assert Literal("a", language="en") != Literal("a", language="de")
    t1 = Triple(IRI("s"), IRI("p"), Triple(BlankNode("b"), IRI("q"), Literal("o", language="en")))
    t2 = Triple(IRI("s"), IRI("p"), Triple(BlankNode("b"), IRI("q"), Literal("o", language="en")))
    assert t1 == t2 and hash(t1) == hash(t2) and t1 != Triple(IRI("s"), IRI("p"), IRI("o"))
    assert t1 != (IRI("s"), IRI("p"), t1.o)       # a quoted triple is not a tuple
    s, p, o = t1
    assert (s, p) == (IRI("s"), IRI("p")) and o.o == Literal("o", language="en")
    assert DEFAULT_GRAPH == jelly.DefaultGraph() and DEFAULT_GRAPH != IRI("")
    assert {DEFAULT_GRAPH: 1}[jelly.DefaultGraph()] == 1
    assert IRI("") != BlankNode("") and Literal("") == Literal("")


def test_xsd_string_normalisation():
    a = Literal("v", datatype=XSD_STRING)
    b = Literal("v", datatype=IRI(XSD_STRING))
    assert a.datatype is None and b.datatype is None
    assert a == Literal("v") == b and hash(a) == hash(Literal("v"))
    assert repr(a) == "Literal('v')" and str(a) == '"v"'
    # on the wire: no datatype entry at all, and back as a simple literal
    data = jelly.serialize([(IRI("s"), IRI("p"), a)], max_datatype_table_size=0)
    assert list(jelly.parse(data)) == [(IRI("s"), IRI("p"), Literal("v"))]
    # a stream that does declare xsd:string as a datatype decodes to the simple literal too
    data = Stream().frame(options(datatypes=1), name_entry("s"), datatype_entry(XSD_STRING),
                          triple_row(S_IRI, S_IRI, ("literal", lit("v", dt=1)))).data
    [(_, _, o)] = list(jelly.parse(data))
    assert o == Literal("v") and o.datatype is None and o.language is None


def test_literal_constructor_checks():
    assert Literal("x", language="en", datatype=RDF_LANGSTRING) == Literal("x", language="en")
    with pytest.raises(ValueError):
        Literal("x", language="en", datatype=XSD + "int")
    with pytest.raises(ValueError):
        Literal("x", language="")
    with pytest.raises(TypeError):
        Literal(5)
    with pytest.raises(TypeError):
        Literal("x", datatype=5)
    with pytest.raises(TypeError):
        IRI(b"http://a")
    with pytest.raises(TypeError):
        BlankNode(None)


def test_repr():
    assert repr(IRI("http://a/b")) == "IRI('http://a/b')"
    assert repr(BlankNode("b1")) == "BlankNode('b1')"
    assert repr(Literal("x")) == "Literal('x')"
    assert repr(Literal("x", language="en")) == "Literal('x', language='en')"
    assert repr(Literal("1", datatype=XSD + "int")) == (
        "Literal('1', datatype='http://www.w3.org/2001/XMLSchema#int')")
    assert repr(Triple(IRI("s"), IRI("p"), Literal("o"))) == (
        "Triple(IRI('s'), IRI('p'), Literal('o'))")
    assert repr(DEFAULT_GRAPH) == "DEFAULT_GRAPH"
    for t in (IRI("a'\"\n"), BlankNode("é"), Literal("a\x00b", language="en-GB"),
              Literal("1", datatype="urn:x"), Triple(BlankNode("b"), IRI("p"), Literal("é\U0001F600"))):
        assert eval(repr(t), vars(jelly)) == t


def test_str_is_ntriples():
    assert str(IRI("http://a/b#c")) == "<http://a/b#c>"
    assert str(BlankNode("b1")) == "_:b1"
    assert str(Literal("plain")) == '"plain"'
    assert str(Literal("x", language="en-GB")) == '"x"@en-GB'
    assert str(Literal("1", datatype=XSD + "int")) == '"1"^^<http://www.w3.org/2001/XMLSchema#int>'
    assert str(Literal('a"b\\c\nd\re')) == r'"a\"b\\c\nd\re"'
    assert str(Literal("é日😀")) == '"é日😀"'
    assert str(Triple(IRI("s"), IRI("p"), Triple(BlankNode("x"), IRI("q"), Literal("o")))) == (
        '<< <s> <p> << _:x <q> "o" >> >>')


def test_str_is_parsed_back_by_rdflib():
    """rdflib, an independent N-Triples reader, reads str() back to the same terms."""
    import rdflib
    terms = [Literal(s) for s in ("", "\x00\x01\x08\x0c\x1f\x7f", "tab\tcr\rnl\n", '"\\', "é𝔘\ufeff")]
    terms += [Literal("x", language="zh-Hant-TW"), Literal("1", datatype="http://e.org/d#t")]
    lines = "".join(f"<http://s> <http://p> {t} .\n" for t in terms)
    g = rdflib.Graph()
    g.parse(data=lines, format="nt")
    got = {(str(o), o.language, str(o.datatype) if o.datatype else None) for o in g.objects()}
    assert got == {(t.lex, t.language, t.datatype.value if t.datatype else None) for t in terms}


def test_pickle_and_sort():
    terms = [IRI("b"), BlankNode("a"), Literal("c", language="en"), Literal("1", datatype="urn:d"),
             Triple(IRI("s"), IRI("p"), IRI("o")), DEFAULT_GRAPH]
    for t in terms:
        assert pickle.loads(pickle.dumps(t)) == t
    assert pickle.loads(pickle.dumps(DEFAULT_GRAPH)) is DEFAULT_GRAPH
    assert sorted(terms[:5]) == sorted(reversed(terms[:5]))     # a total order across kinds


def test_terms_and_the_default_graph_are_totally_ordered():
    """Quads whose graph names mix the default graph with other terms sort in any input
    order, and ``<=`` / ``>`` / ``>=`` agree with ``<`` and ``==``."""
    import itertools
    terms = [DEFAULT_GRAPH, BlankNode("b"), BlankNode("a"), IRI("b"), IRI("a"),
             Literal("x"), Literal("x", language="en"), Literal("1", datatype="urn:d"),
             Triple(IRI("s"), IRI("p"), IRI("o")), Triple(IRI("s"), IRI("p"), Literal("o"))]
    for a, b in itertools.product(terms, repeat=2):
        lt, eq = a < b, a == b
        assert [lt, eq, b < a].count(True) == 1, (a, b)            # exactly one holds
        assert (a <= b) == (lt or eq) and (a > b) == (b < a) and (a >= b) == (not lt), (a, b)
    s, p, o = IRI("http://s"), IRI("http://p"), Literal("o")
    quads = [(s, p, o, g) for g in terms]
    for order in itertools.islice(itertools.permutations(quads), 0, 2000, 97):
        assert sorted(order) == sorted(quads)
    assert sorted(quads)[0][3] is DEFAULT_GRAPH                    # the default graph first
    with pytest.raises(TypeError):
        IRI("a") < 1
    with pytest.raises(TypeError):
        DEFAULT_GRAPH >= "x"


# --------------------------------------------------------------------------------------
# errors of the reader, on hand-made bytes
# --------------------------------------------------------------------------------------

def _fail(data, cls=jelly.JellyDecodeError, **kw):
    with pytest.raises(cls) as info:
        for _ in jelly.parse(data, **kw):
            pass
    exc = info.value
    assert isinstance(exc, jelly.JellyError) and isinstance(exc, ValueError)
    return exc


def _in_row(exc, stream, frame, row):
    start, end = stream.rows[(frame, row)]
    assert (exc.frame, exc.row) == (frame, row), str(exc)
    assert start <= exc.offset < end, f"offset {exc.offset} not in row bytes [{start}, {end})"


def test_error_truncated_frame():
    data = simple_stream().data
    for cut in (1, 5, len(data) - 1):
        exc = _fail(data[:cut], jelly.JellyTruncatedError)
        assert exc.frame == 0 and exc.row is None and 0 <= exc.offset <= cut
    # a second frame whose length prefix is cut in the middle
    exc = _fail(data + b"\x80", jelly.JellyTruncatedError)
    assert exc.frame == 1 and exc.offset == len(data)


def test_error_varint_of_eleven_bytes():
    good = simple_stream().data
    exc = _fail(b"\x80" * 10 + b"\x01" + good[1:])        # as the frame length
    assert not isinstance(exc, jelly.JellyTruncatedError)
    assert exc.frame == 0 and exc.offset == 0 and "varint" in exc.message
    # inside a frame: an IRI name_id of 11 bytes
    s = Stream().frame(options(), name_entry("s"),
                       triple_row(("iri", b"\x10" + b"\x81" * 10 + b"\x01"), S_IRI, S_IRI))
    _in_row(_fail(s.data), s, 0, 2)


def test_error_invalid_utf8_in_name_entry():
    s = Stream().frame(options(), name_entry(b"ok"), name_entry(b"bad\xff\xfe"))
    exc = _fail(s.data)
    _in_row(exc, s, 0, 2)
    assert "UTF-8" in exc.message


@pytest.mark.parametrize("version,word", [(0, "version"), (3, "version")])
def test_error_bad_version(version, word):
    s = simple_stream(version=version)
    exc = _fail(s.data)
    _in_row(exc, s, 0, 0)
    assert word in exc.message and str(version) in exc.message


def test_error_physical_type_zero():
    s = simple_stream(physical=0)
    exc = _fail(s.data)
    _in_row(exc, s, 0, 0)
    assert "physical" in exc.message


def test_error_table_above_cap_and_reader_limits():
    for field, size in (("names", 5000), ("prefixes", 2000), ("datatypes", 300)):
        s = simple_stream(**{field: size})
        exc = _fail(s.data, jelly.JellyLimitError)
        _in_row(exc, s, 0, 0)
        assert str(size) in exc.message and "ReaderLimits" in exc.message
        limit = {"names": "max_name_table_size", "prefixes": "max_prefix_table_size",
                 "datatypes": "max_datatype_table_size"}[field]
        got = list(jelly.parse(s.data, limits=jelly.ReaderLimits(**{limit: size})))
        assert got == [(IRI("s"), IRI("s"), Literal("x"))]
    # the same with a stream written by jelly itself
    data = jelly.serialize([(IRI("s"), IRI("p"), IRI("o"))], max_name_table_size=10_000)
    _fail(data, jelly.JellyLimitError)
    assert list(jelly.parse(data, limits=jelly.ReaderLimits(max_name_table_size=10_000))) == [
        (IRI("s"), IRI("p"), IRI("o"))]
    assert jelly.read_options(
        data, limits=jelly.ReaderLimits(max_name_table_size=10_000)).max_name_table_size == 10_000


def test_reader_limits_frame_size_and_depth():
    data = jelly.serialize([(IRI("s"), IRI("p"), Literal("x" * 1000))])
    exc = _fail(data, jelly.JellyLimitError, limits=jelly.ReaderLimits(max_frame_size=500))
    assert exc.frame == 0
    nested = IRI("o")
    for _ in range(5):
        nested = Triple(IRI("s"), IRI("p"), nested)
    data = jelly.serialize([(IRI("s"), IRI("p"), nested)], rdf_star=True)
    _fail(data, jelly.JellyLimitError, limits=jelly.ReaderLimits(max_quoted_depth=4))
    assert list(jelly.parse(data, limits=jelly.ReaderLimits(max_quoted_depth=5)))[0][2] == nested


def test_error_options_change_mid_stream():
    s = simple_stream()
    s.frame(options(names=9), triple_row(S_IRI, S_IRI, ("literal", lit("y"))))
    exc = _fail(s.data)
    _in_row(exc, s, 1, 0)
    assert "options" in exc.message
    # the very same options again are fine
    s = simple_stream()
    s.frame(options(), triple_row(S_IRI, S_IRI, ("literal", lit("y"))))
    assert [o.lex for _, _, o in jelly.parse(s.data)] == ["x", "y"]


@pytest.mark.parametrize("missing", [0, 1, 2])
def test_error_repeated_term_in_first_statement(missing):
    terms = [S_IRI, S_IRI, S_IRI]
    terms[missing] = None
    s = Stream().frame(options(), name_entry("s"), triple_row(*terms))
    exc = _fail(s.data)
    _in_row(exc, s, 0, 2)
    assert "repeated" in exc.message


def test_error_repeated_graph_in_first_quad():
    s = Stream().frame(options(physical=2), name_entry("s"), quad_row(S_IRI, S_IRI, S_IRI, None))
    _in_row(_fail(s.data), s, 0, 2)


def test_error_graphs_triple_outside_graph():
    s = Stream().frame(options(physical=3), name_entry("s"), graph_start(("default", b"")),
                       triple_row(S_IRI, S_IRI, S_IRI), graph_end(),
                       triple_row(S_IRI, S_IRI, ("literal", lit("x"))))
    exc = _fail(s.data)
    _in_row(exc, s, 0, 5)
    assert "graph" in exc.message


def test_error_other_stream_rules():
    s = Stream().frame(name_entry("s"))
    _in_row(_fail(s.data), s, 0, 0)                                        # no options first
    s = Stream().frame(options(physical=2), name_entry("s"), triple_row(S_IRI, S_IRI, S_IRI))
    _in_row(_fail(s.data), s, 0, 2)                                        # triple in QUADS
    s = Stream().frame(options(star=True), name_entry("s"),
                       triple_row(S_IRI, S_IRI, ("triple", spo(None, S_IRI, S_IRI))))
    _in_row(_fail(s.data), s, 0, 2)                                        # repeat in quoted
    s = Stream().frame(options(), name_entry("s"), triple_row(S_IRI, S_IRI, ("iri", iri(0, 2))))
    _in_row(_fail(s.data), s, 0, 2)                                        # undefined name
    s = Stream().frame(options(), name_entry("s"), triple_row(S_IRI, S_IRI, ("literal", lit("1", dt=1))))
    _in_row(_fail(s.data), s, 0, 2)                                        # no datatype table
    s = Stream().frame(options(), name_entry("s", id=9))
    _in_row(_fail(s.data), s, 0, 1)                                        # id past the table


def test_strict_mode_rejects_unannounced_features():
    s = Stream().frame(options(), name_entry("s"),
                       triple_row(("literal", lit("x")), S_IRI, ("triple", spo(S_IRI, S_IRI, S_IRI))))
    assert len(list(jelly.parse(s.data))) == 1                            # lenient by default
    _in_row(_fail(s.data, strict=True), s, 0, 2)


def test_empty_language_tag_is_not_a_language_tagged_literal():
    """A literal whose langtag field is present but empty: jelly must not build a Literal that
    its own constructor refuses (Literal(lex, language="") raises) and that prints as invalid
    N-Triples ('"x"@').  Either a simple literal (as pyjelly decodes it) or a decode error."""
    s = Stream().frame(options(), name_entry("s"), triple_row(S_IRI, S_IRI, ("literal", lit("x", lang=""))))
    try:
        [(_, _, o)] = list(jelly.parse(s.data))
    except jelly.JellyDecodeError:
        return
    assert o.language is None and o == Literal("x"), f"decoded {o!r}"


def test_iri_delta_coding_by_hand():
    """The spec's default values: prefix_id 0 = previous prefix, name_id 0 = previous name + 1,
    also across namespace declarations."""
    s = Stream().frame(options(prefixes=4, version=2), prefix_entry("http://e.com/"),
                       name_entry("example"), name_entry(""), name_entry("test"),
                       triple_row(("iri", iri(1, 0)), ("iri", iri(0, 0)), ("iri", iri(0, 0))),
                       namespace_row("ex", iri(0, 2)),
                       triple_row(("iri", iri(0, 0)), None, ("bnode", b"b")))
    frames = list(jelly.parse_frames(s.data))
    assert frames[0].statements == [
        (IRI("http://e.com/example"), IRI("http://e.com/"), IRI("http://e.com/test")),
        (IRI("http://e.com/test"), IRI("http://e.com/"), BlankNode("b"))]
    assert frames[0].namespaces == [("ex", IRI("http://e.com/"))]
    assert frames[0].rows == {"options": 1, "triple": 2, "quad": 0, "graph_start": 0,
                              "graph_end": 0, "namespace": 1, "name": 3, "prefix": 1, "datatype": 0}


def test_error_pickles_with_location():
    exc = _fail(Stream().frame(options(), name_entry(b"\xff")).data)
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is type(exc)
    assert (back.offset, back.frame, back.row, back.message) == (exc.offset, exc.frame, exc.row,
                                                                  exc.message)
    assert issubclass(jelly.JellyLimitError, jelly.JellyDecodeError)
    assert issubclass(jelly.JellyTruncatedError, jelly.JellyDecodeError)
    for cls in (jelly.JellyDecodeError, jelly.JellyEncodeError, jelly.JellyOptionsError):
        assert issubclass(cls, jelly.JellyError) and issubclass(cls, ValueError)


def _bad_streams():
    good = Stream().frame(options(), name_entry("s"), triple_row(S_IRI, S_IRI, ("literal", lit("1"))))
    good_frame2 = Stream().frame(triple_row(None, None, ("literal", lit("2")))).data
    bad_frame = Stream().frame(name_entry(b"\xff")).data
    return {
        "bad last frame": good.data + bad_frame,
        "bad middle frame": good.data + bad_frame + good_frame2,
        "truncated last frame": good.data + good_frame2[:-2],
        "options change": good.data + Stream().frame(options(names=9)).data + good_frame2,
    }


@pytest.mark.parametrize("name", list(_bad_streams()))
def test_reader_that_failed_stays_failed(name):
    data = _bad_streams()[name]
    reader = jelly.Reader(data)
    seen = []
    with pytest.raises(jelly.JellyError) as first:
        for st in reader:
            seen.append(st)
    assert seen == [(IRI("s"), IRI("s"), Literal("1"))]
    for _ in range(2):      # iterating again must not look like a clean end of the stream
        with pytest.raises(type(first.value)):
            list(reader)
        with pytest.raises(type(first.value)):
            list(reader.frames())


def test_frames_in_the_middle_of_a_frames_statements_are_refused():
    """Statements come in pieces of a frame: frames() in the middle of one lost its rest (and
    its namespaces) and numbered the next frame 0."""
    sts = [(IRI("http://s"), IRI("http://p"), Literal(str(i))) for i in range(10000)]
    data = jelly.serialize(sts, rows_per_frame=6000, namespaces={"ex": "http://ex/"})
    with jelly.Reader(data) as r:
        assert next(iter(r)) == sts[0]
        with pytest.raises(ValueError, match="middle of frame 0"):
            r.frames()
    with jelly.Reader(data) as r:       # every statement read: no frame is left
        assert list(r) == sts and list(r.frames()) == []
        assert r.namespaces == {"ex": IRI("http://ex/")}


def _frame_ends(data: bytes) -> list[int]:
    """Where each frame of a delimited stream ends, read from the length prefixes."""
    ends, pos = [], 0
    while pos < len(data):
        n, shift = 0, 0
        while True:
            b = data[pos]
            pos += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        pos += n
        ends.append(pos)
    return ends


def _small_frames_stream():
    """One statement per frame, an empty frame after every 7th, a namespace declared again
    and again, and one large frame in the middle: (bytes, statements, frames)."""
    sts = [(IRI(f"http://s/{i % 13}"), IRI("http://p"), Literal(str(i), language="en"))
           for i in range(15000)]
    out = io.BytesIO()
    with jelly.Writer(out, rows_per_frame=1) as w:
        for i, st in enumerate(sts):
            if i % 500 == 0:
                w.declare_namespace("ex", f"http://ex/{i}/")
            if i == 3000:
                w.rows_per_frame = 10 ** 6      # one frame of 10,000 statements
            if i == 13000:
                w.flush_frame()
                w.rows_per_frame = 1
            w.write(st)
    data, pos = out.getvalue(), 0
    pieces = []
    for k, end in enumerate(_frame_ends(data)):
        pieces.append(data[pos:end] + (b"\x00" if k % 7 == 6 else b""))   # + an empty frame
        pos = end
    data = b"".join(pieces)
    frames = [list(f.statements) for f in jelly.parse_frames(data)]
    return data, sts, frames


@pytest.mark.parametrize("source", ["bytes", "file", "pipe"])
def test_many_small_frames_read_by_statements_as_by_frames(tmp_path, source):
    """The statement path decodes runs of frames in one call: statements, namespaces, frame
    count and the refusal of frames() inside the large frame are as frame by frame."""
    data, sts, frames = _small_frames_stream()
    assert sum(map(len, frames)) == len(sts) and max(map(len, frames)) == 10000
    assert len(frames) > 5000 and frames.count([]) > 700
    path = tmp_path / "small.jelly"
    path.write_bytes(data)
    make = {"bytes": lambda: data, "file": lambda: str(path),
            "pipe": lambda: io.BufferedReader(helpers.Pieces(data, 1000))}[source]
    assert list(jelly.parse(make())) == sts
    with jelly.Reader(make()) as r:
        it = iter(r)
        got = [next(it) for _ in range(9000)]     # inside the large frame
        with pytest.raises(ValueError, match="middle of frame"):
            r.frames()
        got += list(it)
        assert got == sts
        assert r.namespaces == {"ex": IRI("http://ex/14500/")}
        assert r.frame_count == len(frames)


def test_large_frames_of_a_file_read_as_of_bytes(tmp_path):
    """Frames of megabytes are read from a file straight into their buffer, in reads that
    grow: the statements and frames are those of the same bytes in memory, and a file cut
    inside such a frame, or with one broken, fails as the bytes do, after the frames
    before it."""
    sts = [(IRI(f"http://s/{i}"), IRI("http://p"), Literal(f"{i} " + "lorem ipsum " * (500 + i % 7)))
           for i in range(1200)]
    data = jelly.serialize(sts, rows_per_frame=300)
    ends = _frame_ends(data)
    assert len(ends) > 3 and min(b - a for a, b in zip([0] + ends, ends[:3])) > 1 << 19
    before = sum(len(f) for f in list(jelly.parse_frames(data))[:2])
    path = tmp_path / "large.jelly"
    path.write_bytes(data)
    assert list(jelly.parse(str(path))) == sts
    assert [len(f) for f in jelly.parse_frames(str(path))] == \
        [len(f) for f in jelly.parse_frames(data)]
    for bad in (data[:ends[1] + 70000], data[:ends[2] - 1],
                data[:ends[1] + 5000] + b"\xff" * 20 + data[ends[1] + 5020:]):
        path.write_bytes(bad)
        got = []
        with pytest.raises(jelly.JellyError) as from_file:
            for st in jelly.parse(str(path)):
                got.append(st)
        with pytest.raises(jelly.JellyError) as from_bytes:
            list(jelly.parse(bad))
        assert str(from_file.value) == str(from_bytes.value)
        assert got == sts[:before]          # the two frames before the damaged one


@pytest.mark.parametrize("source", ["bytes", "pipe"])
def test_an_error_after_small_frames_comes_after_all_their_statements(source):
    """Frames decoded together in one call: an error in one of them (a broken row, a broken
    length prefix, a frame cut short) still comes after every statement of the frames before
    it, as frame by frame, and the reader stays failed."""
    data, sts, frames = _small_frames_stream()
    ends = _frame_ends(data)
    for k in (1, 40, 41, 1031, 3430, 3431, 4500, len(ends) - 1):
        before = sum(map(len, frames[:k]))
        broken = b"\x0a\x03\xff\xff\xff"      # a row whose first tag never ends
        cuts = [data[:ends[k] - 1]] if frames[k] else []        # frame k cut short
        for bad in [data[:ends[k - 1]] + varint(len(broken)) + broken + data[ends[k - 1]:],
                    data[:ends[k - 1]] + b"\xff" * 11 + data[ends[k - 1]:]] + cuts:
            make = {"bytes": lambda: bad, "pipe": lambda: io.BufferedReader(helpers.Pieces(bad, 1 << 16))}
            with jelly.Reader(make[source]()) as r:
                seen = []
                with pytest.raises(jelly.JellyError):
                    for st in r:
                        seen.append(st)
                assert seen == sts[:before], (k, len(seen), before)
                with pytest.raises(jelly.JellyError):
                    list(r)


@pytest.mark.parametrize("logical, physical", [
    ("graphs", "triples"), ("subject_graphs", "triples"), ("datasets", "quads"),
    ("named_graphs", "quads"), ("timestamped_named_graphs", "graphs"), ("flat_triples", "triples")])
def test_serialize_writes_the_elements_of_a_grouped_logical_type(logical, physical):
    """Each frame of a grouped stream is an element (spec): serialize writes a graph or
    dataset as one frame however many rows it has, one per subject for SUBJECT_GRAPHS and
    per graph for the named-graph types (a 2,100-statement graph came out as three graphs,
    and jelly's rdflib parser gave its blank node three nodes); a flat stream is still cut
    at rows_per_frame, which grouped streams ignore.  Namespaces go into the first element,
    not a frame of their own."""
    b = BlankNode("b")
    sts = [(b if k == 0 else IRI(f"http://ex/s{k}"), IRI("http://ex/p"), Literal(str(i)))
           + (() if physical == "triples" else (IRI(f"http://ex/g{k}") if k else DEFAULT_GRAPH,))
           for k in range(3) for i in range(700)]
    data = jelly.serialize(sts, physical_type=physical, logical_type=logical,
                           namespaces={"ex": "http://ex/"}, rows_per_frame=500)
    frames = [list(f.statements) for f in jelly.parse_frames(data)]
    assert [st for f in frames for st in f] == sts
    by_subject = [sts[k * 700:(k + 1) * 700] for k in range(3)]
    want = {"graphs": [sts], "datasets": [sts], "subject_graphs": by_subject,
            "named_graphs": by_subject, "timestamped_named_graphs": by_subject}
    if logical in want:
        assert frames == want[logical]
    else:
        assert len(frames) > 3 and max(map(len, frames)) <= 500


def test_serialize_frames_takes_the_physical_type_from_the_first_statement():
    """As serialize does (the user guide's options table): default-graph quads came back as
    triples, and a quad in a named graph was refused."""
    q = (IRI("http://s"), IRI("http://p"), IRI("http://o"), jelly.DEFAULT_GRAPH)
    named = q[:3] + (IRI("http://g"),)
    data = jelly.serialize_frames(iter([iter([]), iter([q, named])]))
    assert jelly.read_options(data).physical_type == jelly.PhysicalStreamType.QUADS
    assert [list(f.statements) for f in jelly.parse_frames(data)] == [[], [q, named]]
    data = jelly.serialize_frames([[q[:3]]])
    assert jelly.read_options(data).physical_type == jelly.PhysicalStreamType.TRIPLES


@pytest.mark.parametrize("version, match", [
    (3, "version 3 cannot be written"), (-1, "version must be an integer"),
    (2 ** 40, "version must be an integer"), (True, "version must be an integer")])
def test_a_version_no_reader_takes_is_refused(version, match):
    T = (IRI("http://s"), IRI("http://p"), IRI("http://o"))
    with pytest.raises(jelly.JellyOptionsError, match=match):
        jelly.serialize([T], version=version)
    for automatic in (None, 0):
        assert jelly.read_options(jelly.serialize([T], version=automatic)).version == 1
    with pytest.raises(jelly.JellyOptionsError, match="stream_name must be a str"):
        jelly.serialize([T], stream_name=5)
    with pytest.raises(jelly.JellyEncodeError, match="the options say version 1"):
        jelly.serialize([T], version=1, namespaces={"ex": "http://ex/"})


# --------------------------------------------------------------------------------------
# the writer refuses
# --------------------------------------------------------------------------------------

S, P, O = IRI("http://e.org/s"), IRI("http://e.org/p"), Literal("o")


@pytest.mark.parametrize("statement,kwargs,words", [
    ((S, P, Triple(S, P, O)), {}, ["rdf_star"]),
    ((Triple(S, P, O), P, O), {}, ["rdf_star"]),
    ((Literal("s"), P, O), {}, ["generalized"]),
    ((S, BlankNode("p"), O), {}, ["generalized"]),
    ((S, Literal("p"), O), {}, ["generalized"]),
    ((S, P, O, Literal("g")), {"physical_type": "quads"}, ["generalized"]),
    ((S, P, Literal("1", datatype=XSD + "int")), {"max_datatype_table_size": 0}, ["datatype", "0"]),
    ((S, P, O, IRI("http://e.org/g")), {"physical_type": "triples"}, ["TRIPLES", "graph"]),
    ((S, P, O, BlankNode("g")), {"physical_type": "triples"}, ["TRIPLES"]),
    ((S, P, "o"), {}, ["RDF term"]),
    ((S, P, 42), {}, ["RDF term"]),
    ((S, "http://e.org/p", O), {}, ["RDF term"]),
    ((S, None, O), {}, ["predicate"]),
    ((DEFAULT_GRAPH, P, O), {}, ["default graph"]),
    ((S, P, O, Triple(S, P, O)), {"physical_type": "quads", "rdf_star": True}, ["graph"]),
    ((S, P), {}, ["3 or 4"]),
    ((S, P, O, DEFAULT_GRAPH, DEFAULT_GRAPH), {}, ["3 or 4"]),
])
def test_writer_refuses(statement, kwargs, words):
    for call in (lambda: jelly.serialize([statement], **kwargs),
                 lambda: jelly.Writer(None, **kwargs).write(statement)):
        with pytest.raises(jelly.JellyEncodeError) as info:
            call()
        for w in words:
            assert w in str(info.value), f"{w!r} not in {info.value}"


def test_writer_refuses_a_statement_that_is_not_a_tuple():
    with pytest.raises(jelly.JellyEncodeError):
        jelly.Writer(None).write(5)
    with pytest.raises(jelly.JellyEncodeError):   # with the physical type inferred, too
        jelly.serialize([5])


def test_writer_refuses_lone_surrogates_with_jelly_errors():
    for statement in [(S, P, Literal("\ud800")), (BlankNode("\udfff"), P, O),
                      (IRI("http://e.org/\ud800"), P, O), (S, P, Literal("1", datatype="urn:\ud800")),
                      (S, P, Literal("x", language="e\ud800"))]:
        with pytest.raises(jelly.JellyEncodeError):
            jelly.serialize([statement])
    for kwargs in ({"namespaces": {"e\ud800": "http://e.org/"}}, {"stream_name": "\udc00"}):
        with pytest.raises(jelly.JellyError):
            jelly.serialize([(S, P, O)], **kwargs)
    with pytest.raises(jelly.JellyError):
        jelly.Writer(None).write_frame([(S, P, O)], metadata={"k\ud800": b""})


def test_writer_options_refused():
    for kwargs, word in [({"max_name_table_size": 7}, "max_name_table_size"),
                         ({"max_name_table_size": 0}, "max_name_table_size"),
                         ({"max_prefix_table_size": -1}, "max_prefix_table_size"),
                         ({"physical_type": "foo"}, "physical"),
                         ({"physical_type": 0}, "physical"),
                         ({"physical_type": "triples", "logical_type": "flat_quads"}, "logical"),
                         ({"preset": "huge"}, "preset"),
                         ({"rows_per_frame": 0}, "rows_per_frame")]:
        with pytest.raises(jelly.JellyOptionsError) as info:
            jelly.Writer(None, **kwargs)
        assert word in str(info.value)
        with pytest.raises(jelly.JellyOptionsError):
            jelly.serialize([(S, P, O)], **kwargs)


@pytest.mark.parametrize("bad", [
    (IRI("http://c.org/s3"), IRI("http://c.org/p3"), Triple(S, P, O)),        # rdf_star off
    (IRI("http://c.org/s3"), IRI("http://c.org/p3"), 42),                     # not a term
    (IRI("http://c.org/s3"), IRI("http://c.org/p3"), Literal("x", datatype="urn:d")),  # dt table 0
    (IRI("http://c.org/s3"), IRI("http://c.org/p3"), Literal("\ud800")),      # lone surrogate
    (IRI("http://c.org/s3"), IRI("http://c.org/p3\ud800"), Literal("x")),     # ... in an IRI
])
def test_writer_after_a_refused_statement_writes_a_correct_stream(bad):
    """After a refused statement, the writer must either go on writing a stream that reads back
    as the accepted statements, or refuse everything after: never a silently corrupt stream."""
    good = [(IRI("http://a.org/s1"), IRI("http://a.org/p1"), Literal("1")),
            (IRI("http://b.org/s2"), IRI("http://b.org/p2"), Literal("2")),
            (IRI("http://c.org/s3"), IRI("http://c.org/p3"), Literal("3"))]
    w = jelly.Writer(None, max_datatype_table_size=0, max_prefix_table_size=4)
    w.write(good[0])
    with pytest.raises(Exception):     # the error's class is checked by the tests above
        w.write(bad)
    accepted = good[:1]
    for st in good[1:]:
        try:
            w.write(st)
        except jelly.JellyError:
            break
        accepted.append(st)
    try:
        w.close()
    except jelly.JellyError:
        pass
    assert list(jelly.parse(w.getvalue())) == accepted


def test_namespace_declarations_need_version_two_up_front():
    w = jelly.Writer(None)
    w.write_frame([(S, P, O)])
    with pytest.raises(jelly.JellyEncodeError, match="version"):
        w.declare_namespace("ex", "http://e.org/")
    with pytest.raises(jelly.JellyEncodeError):
        jelly.Writer(None, namespaces={"ex": 5})


def test_single_frame_file_holds_one_frame():
    w = jelly.Writer(None, delimited=False)
    w.write_frame([(S, P, O)])
    with pytest.raises(jelly.JellyEncodeError):
        w.write_frame([(S, P, O)])


def test_single_frame_file_never_drops_statements():
    """A single-frame writer whose frame has been emitted must refuse more statements (or keep
    them): never drop them silently."""
    def by_flush(w):
        w.write((S, P, Literal("1")))
        w.flush_frame()

    def by_write_frame(w):
        w.write_frame([(S, P, Literal("1"))])

    for emit in (by_flush, by_write_frame):
        w = jelly.Writer(None, delimited=False)
        emit(w)
        try:
            w.write((S, P, Literal("2")))
            w.close()
        except jelly.JellyEncodeError:
            continue
        assert [o.lex for _, _, o in jelly.parse(w.getvalue())] == ["1", "2"], emit.__name__


def test_reader_options_read_ahead_keeps_every_statement():
    statements = [(S, P, Literal(str(i))) for i in range(30)]
    data = jelly.serialize(statements, rows_per_frame=5)
    reader = jelly.Reader(data)
    assert reader.options.max_name_table_size == 4000 and reader.delimited is not None
    assert list(reader) == statements
    # an empty frame before the options row is skipped by the look-ahead, not lost
    s = Stream().frame().frame(options(), name_entry("s"), triple_row(S_IRI, S_IRI, S_IRI))
    reader = jelly.Reader(s.data)
    assert reader.options.physical_type == jelly.PhysicalStreamType.TRIPLES
    assert [len(f) for f in reader.frames()] == [0, 1]


def test_writer_closed():
    w = jelly.Writer(None)
    w.write((S, P, O))
    w.close()
    w.close()                     # twice is fine
    with pytest.raises(jelly.JellyError, match="closed"):
        w.write((S, P, O))
    assert list(jelly.parse(w.getvalue())) == [(S, P, O)]


def test_metadata_must_be_str_to_bytes():
    with pytest.raises(jelly.JellyEncodeError):
        jelly.Writer(None).write_frame([(S, P, O)], metadata={"k": "not bytes"})
    with pytest.raises(jelly.JellyEncodeError):
        jelly.Writer(None).write_frame([(S, P, O)], metadata={1: b"v"})


# --------------------------------------------------------------------------------------
# destinations and sources
# --------------------------------------------------------------------------------------

STATEMENTS = [(S, P, Literal(str(i))) for i in range(50)] + [(BlankNode("b"), P, S)]


def test_writer_to_path(tmp_path):
    path = tmp_path / "out.jelly"
    with jelly.Writer(path, rows_per_frame=10) as w:
        w.write_all(STATEMENTS)
    assert list(jelly.parse(path)) == STATEMENTS
    assert list(jelly.parse(str(path))) == STATEMENTS
    with open(path, "rb") as f:
        assert list(jelly.parse(f)) == STATEMENTS
    jelly.serialize(STATEMENTS, str(tmp_path / "b.jelly"))
    assert (tmp_path / "b.jelly").read_bytes() == jelly.serialize(STATEMENTS)


def test_writer_to_binary_stream_leaves_it_open():
    buf = io.BytesIO()
    assert jelly.serialize(STATEMENTS, buf) is None
    assert not buf.closed
    buf.seek(0)
    assert list(jelly.parse(buf)) == STATEMENTS
    buf2 = io.BytesIO()
    with jelly.Writer(buf2) as w:
        w.write_all(STATEMENTS)
    assert not buf2.closed and buf2.getvalue() == buf.getvalue()


class _Trickle(io.RawIOBase):
    """A raw stream that takes at most 7 bytes a write, as a raw stream may."""

    def __init__(self):
        self.data = bytearray()

    def writable(self):
        return True

    def write(self, b):
        b = bytes(b)[:7]
        self.data += b
        return len(b)


def test_writers_finish_short_writes_of_a_raw_stream():
    import jelly.jena
    many = [(IRI(f"http://e/s{i}"), IRI("http://e/p"), Literal(str(i))) for i in range(300)]
    raw = _Trickle()
    jelly.serialize(many, raw)
    assert bytes(raw.data) == jelly.serialize(many) and not raw.closed
    raw = _Trickle()
    with jelly.Writer(raw) as w:
        w.write_all(many)
    assert list(jelly.parse(bytes(raw.data))) == many and not raw.closed
    raw = _Trickle()
    jelly.jena.serialize(many, raw, format="thrift")
    assert list(jelly.jena.parse(bytes(raw.data), format="thrift")) == many


def test_an_output_with_only_a_write_method():
    """Any object with write() is an output (no closed, no seek); one without flush() ended in
    an AttributeError after everything was written."""
    class Chunks:
        def __init__(self):
            self.parts = []

        def write(self, b):
            self.parts.append(bytes(b))
            return len(b)

    many = [(IRI(f"http://e/s{i}"), IRI("http://e/p"), Literal(str(i))) for i in range(300)]
    for kwargs in ({}, {"delimited": False}, {"rows_per_frame": 7}):
        out = Chunks()
        jelly.serialize(many, out, **kwargs)
        assert b"".join(out.parts) == jelly.serialize(many, **kwargs)
    out = Chunks()
    with jelly.Writer(out) as w:
        w.write_all(many)
    assert list(jelly.parse(b"".join(out.parts))) == many


def test_arguments_of_the_wrong_type_are_type_errors():
    """A dict where StreamOptions or ReaderLimits belong failed deep inside with an
    AttributeError; rdf_star="no" turned RDF-star on; a quoted triple took strings."""
    with pytest.raises(TypeError, match="rdf_star must be True or False"):
        jelly.serialize([], rdf_star="no")
    with pytest.raises(TypeError, match="not str"):
        Triple("a", "b", "c")
    with pytest.raises(TypeError, match="not DefaultGraph"):
        Triple(IRI("s"), IRI("p"), DEFAULT_GRAPH)
    nested = Triple(Triple(BlankNode("b"), IRI("p"), Literal("o")), IRI("p"), IRI("o"))
    assert nested.s.o == Literal("o")                 # any term, quoted triples too
    for call in (lambda: jelly.Encoder(None), lambda: jelly.Encoder({"preset": "small"}),
                 lambda: jelly.serialize([], options={"preset": "small"}),
                 lambda: list(jelly.parse(b"", limits={"max_name_table_size": 10}))):
        with pytest.raises(TypeError, match=r"must be a jelly\.(StreamOptions|ReaderLimits)"):
            call()


def test_a_closed_reader_reads_nothing():
    """A closed Reader over bytes still gave its statements (its frames() gave none)."""
    data = jelly.serialize(STATEMENTS)
    reader = jelly.Reader(data)
    reader.close()
    for read in (lambda: list(reader), lambda: list(reader.frames())):
        with pytest.raises(ValueError, match="closed reader"):
            read()


def test_writer_to_none_gives_bytes():
    data = jelly.serialize(STATEMENTS)
    assert isinstance(data, bytes) and list(jelly.parse(data)) == STATEMENTS
    w = jelly.Writer(None)
    w.write_all(STATEMENTS)
    w.close()
    assert w.getvalue() == data
    with pytest.raises(jelly.JellyError):
        jelly.Writer(io.BytesIO()).getvalue()


def test_writer_to_gz_path(tmp_path):
    path = tmp_path / "out.jelly.gz"
    jelly.serialize(STATEMENTS, path)
    raw = path.read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    assert gzip.decompress(raw) == jelly.serialize(STATEMENTS)
    assert list(jelly.parse(path)) == STATEMENTS
    with jelly.Writer(str(tmp_path / "w.gz"), physical_type="quads") as w:
        w.write_all(STATEMENTS)
    assert list(jelly.parse(tmp_path / "w.gz")) == [st + (DEFAULT_GRAPH,) for st in STATEMENTS]


def test_text_streams_rejected(tmp_path):
    with pytest.raises(jelly.JellyError, match="binary"):
        jelly.serialize(STATEMENTS, io.StringIO())
    with open(tmp_path / "t.txt", "w") as f, pytest.raises(jelly.JellyError, match="binary"):
        jelly.Writer(f)
    (tmp_path / "x.jelly").write_bytes(jelly.serialize(STATEMENTS))
    with open(tmp_path / "x.jelly", "r") as f, pytest.raises(jelly.JellyError, match="binary"):
        list(jelly.parse(f))
    with pytest.raises(jelly.JellyError, match="binary"):
        list(jelly.parse(io.StringIO("x")))


def test_bad_sources_and_destinations(tmp_path):
    with pytest.raises(jelly.JellyError):
        list(jelly.parse(tmp_path / "missing.jelly"))
    with pytest.raises(jelly.JellyError):
        jelly.serialize(STATEMENTS, tmp_path / "no" / "such" / "dir.jelly")
    with pytest.raises(TypeError):
        list(jelly.parse(42))
    with pytest.raises(TypeError):
        jelly.serialize(STATEMENTS, 42)


# --------------------------------------------------------------------------------------
# presets, inference, options
# --------------------------------------------------------------------------------------

def _sizes(o):
    return (o.max_name_table_size, o.max_prefix_table_size, o.max_datatype_table_size)


def test_presets():
    assert _sizes(jelly.preset("small")) == (128, 16, 16)
    assert _sizes(jelly.preset("big")) == (4000, 150, 32)
    assert _sizes(jelly.read_options(jelly.serialize(STATEMENTS, preset="small"))) == (128, 16, 16)
    assert _sizes(jelly.read_options(jelly.serialize(STATEMENTS, preset="big"))) == (4000, 150, 32)
    assert _sizes(jelly.read_options(jelly.serialize(STATEMENTS))) == (4000, 150, 32)
    assert _sizes(jelly.read_options(jelly.serialize(STATEMENTS, preset="small",
                                                     max_prefix_table_size=0))) == (128, 0, 16)
    with pytest.raises(jelly.JellyOptionsError, match="small"):
        jelly.preset("medium")
    opts = jelly.preset("small", physical_type=jelly.PhysicalStreamType.QUADS)
    o = jelly.read_options(jelly.serialize([st + (DEFAULT_GRAPH,) for st in STATEMENTS], options=opts))
    assert _sizes(o) == (128, 16, 16) and o.physical_type == jelly.PhysicalStreamType.QUADS


def test_serialize_infers_the_physical_type():
    quads = [(S, P, O, IRI("http://e.org/g")), (S, P, O, DEFAULT_GRAPH)]
    o = jelly.read_options(jelly.serialize(quads))
    assert o.physical_type == jelly.PhysicalStreamType.QUADS
    assert int(o.logical_type) == 2                                   # FLAT_QUADS
    assert list(jelly.parse(jelly.serialize(iter(quads)))) == quads   # from a one-shot iterator
    o = jelly.read_options(jelly.serialize(iter([(S, P, O)])))
    assert o.physical_type == jelly.PhysicalStreamType.TRIPLES and int(o.logical_type) == 1
    o = jelly.read_options(jelly.serialize([(S, P, O)], physical_type="graphs"))
    assert o.physical_type == jelly.PhysicalStreamType.GRAPHS
    assert list(jelly.parse(jelly.serialize([(S, P, O)], physical_type="quads"))) == [
        (S, P, O, DEFAULT_GRAPH)]


def test_options_fields_round_trip():
    data = jelly.serialize([(S, P, O)], stream_name="name ☃", rdf_star=True,
                           generalized_statements=True, max_name_table_size=33,
                           max_prefix_table_size=0, max_datatype_table_size=0,
                           logical_type="subject_graphs")
    o = jelly.read_options(data)
    assert (o.stream_name, o.rdf_star, o.generalized_statements, _sizes(o), int(o.logical_type),
            o.version) == ("name ☃", True, True, (33, 0, 0), 13, 1)
    with pytest.raises(jelly.JellyError):
        jelly.read_options(b"")


def test_writer_closes_the_file_it_opened(tmp_path):
    """Writer(path).close() leaves no file open (python -X dev turns the leak into an error)."""
    import subprocess
    import sys
    from helpers import jelly_subprocess_env
    code = ("import jelly, sys\n"
            f"w = jelly.Writer({str(tmp_path / 'x.jelly')!r})\n"
            "w.write((jelly.IRI('http://e/s'), jelly.IRI('http://e/p'), jelly.Literal('o')))\n"
            "w.close()\n"
            "del w\n"
            "import gc; gc.collect()\n"
            "print(len(list(jelly.parse(sys.argv[1]))))\n")
    proc = subprocess.run([sys.executable, "-X", "dev", "-W", "error::ResourceWarning", "-c",
                           code, str(tmp_path / "x.jelly")], capture_output=True, text=True,
                          env=jelly_subprocess_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "1"
    assert "ResourceWarning" not in proc.stderr


def test_writer_leaves_an_existing_file_when_it_fails(tmp_path):
    path = tmp_path / "x.jelly"
    path.write_bytes(b"old")
    with pytest.raises(jelly.JellyEncodeError):
        with jelly.Writer(path) as w:
            w.write((jelly.IRI("http://e/s"), jelly.IRI("http://e/p"), None))
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.jelly"]
