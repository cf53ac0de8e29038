"""Self-tests of the Jelly-RDF oracle: frames built with the compiled protobuf classes decode to
hand-written neutral statements, and every strict / lenient rule is checked on an input built
for it."""

from __future__ import annotations

import pytest

from oracle.jelly_rdf import RefDecodeError, decode, decode_full, load_pb2, read_options
from oracle.wire import enc_varint

pb2 = load_pb2()
EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
D = ("D",)


def options(physical=1, **changes):
    fields = dict(physical_type=physical, max_name_table_size=8, max_prefix_table_size=4,
                  max_datatype_table_size=4, version=1)
    fields.update(changes)
    return pb2.RdfStreamRow(options=pb2.RdfStreamOptions(**fields))


def frame(*rows, metadata=None) -> bytes:
    return pb2.RdfStreamFrame(rows=list(rows), metadata=metadata or {}).SerializeToString()


def stream(*frames) -> bytes:
    return b"".join(enc_varint(len(f)) + f for f in frames)


def iri(prefix_id=0, name_id=0):
    return pb2.RdfIri(prefix_id=prefix_id, name_id=name_id)


def name(value, id=0):
    return pb2.RdfStreamRow(name=pb2.RdfNameEntry(id=id, value=value))


def prefix(value, id=0):
    return pb2.RdfStreamRow(prefix=pb2.RdfPrefixEntry(id=id, value=value))


def datatype(value, id=0):
    return pb2.RdfStreamRow(datatype=pb2.RdfDatatypeEntry(id=id, value=value))


def triple(**terms):
    return pb2.RdfStreamRow(triple=pb2.RdfTriple(**terms))


def quad(**terms):
    return pb2.RdfStreamRow(quad=pb2.RdfQuad(**terms))


def lenient(data, **kw):
    return decode_full(data, strict=False, **kw)


# -- decoding --------------------------------------------------------------------------------

def test_triples_with_lookups_deltas_and_repeated_terms():
    data = stream(frame(
        options(),
        prefix(EX), name("s"), name("p"), name("o"), datatype(XSD + "int"), datatype(XSD + "string"),
        # prefix 1 given, name 1; then prefix 0 (the previous) and name 0 (previous + 1) twice
        triple(s_iri=iri(1, 1), p_iri=iri(0, 0), o_iri=iri(0, 0)),
        # subject and predicate repeated; a typed literal
        triple(o_literal=pb2.RdfLiteral(lex="5", datatype=1)),
        # bnode subject, lang literal, xsd:string normalised away
        triple(s_bnode="b0", o_literal=pb2.RdfLiteral(lex="hi", langtag="en")),
        triple(o_literal=pb2.RdfLiteral(lex="plain", datatype=2)),
    ))
    opts, frames = decode(data)
    assert (opts.physical_type, opts.max_name_table_size, opts.version) == (1, 8, 1)
    s, p, o = ("I", EX + "s"), ("I", EX + "p"), ("I", EX + "o")
    assert frames == [[
        (s, p, o),
        (s, p, ("L", "5", None, XSD + "int")),
        (("B", "b0"), p, ("L", "hi", "en", None)),
        (("B", "b0"), p, ("L", "plain", None, None)),
    ]]


def test_entry_ids_and_prefix_zero_before_any_prefix():
    data = stream(frame(
        options(),
        name("a", id=3), name("b"),            # id 0 after 3 is 4
        triple(s_iri=iri(0, 3), p_iri=iri(0, 0), o_iri=iri(0, 3)),   # no prefix yet: ""
    ))
    assert decode(data)[1] == [[(("I", "a"), ("I", "b"), ("I", "a"))]]


def test_quads_default_and_named_graphs():
    data = stream(
        frame(options(2), name(EX + "s"), name(EX + "g"),
              quad(s_iri=iri(0, 1), p_iri=iri(0, 1), o_bnode="x", g_default_graph=pb2.RdfDefaultGraph()),
              quad(g_iri=iri(0, 2))),
        frame(quad(o_literal=pb2.RdfLiteral(lex="v"), g_bnode="gb")),
    )
    s = ("I", EX + "s")
    assert decode(data)[1] == [
        [(s, s, ("B", "x"), D), (s, s, ("B", "x"), ("I", EX + "g"))],
        [(s, s, ("L", "v", None, None), ("B", "gb"))],
    ]


def test_graphs_stream_and_quoted_triples():
    qt = pb2.RdfTriple(s_bnode="a", p_iri=iri(0, 1), o_literal=pb2.RdfLiteral(lex="1"))
    data = stream(frame(
        options(3, rdf_star=True), name(EX + "p"),
        pb2.RdfStreamRow(graph_start=pb2.RdfGraphStart(g_bnode="g")),
        triple(s_triple_term=qt, p_iri=iri(0, 1), o_bnode="o"),
        pb2.RdfStreamRow(graph_end=pb2.RdfGraphEnd()),
        pb2.RdfStreamRow(graph_start=pb2.RdfGraphStart(g_default_graph=pb2.RdfDefaultGraph())),
        triple(o_bnode="o2"),
        pb2.RdfStreamRow(graph_end=pb2.RdfGraphEnd()),
    ))
    p = ("I", EX + "p")
    quoted = ("T", ("B", "a"), p, ("L", "1", None, None))
    assert decode(data)[1] == [[(quoted, p, ("B", "o"), ("B", "g")), (quoted, p, ("B", "o2"), D)]]


def test_namespaces_metadata_and_options():
    data = stream(frame(
        options(1, stream_name="st", logical_type=1, version=2), prefix(EX), name("ns/"),
        pb2.RdfStreamRow(namespace=pb2.RdfNamespaceDeclaration(name="ex", value=iri(1, 1))),
        metadata={"k": b"\x00v"},
    ))
    result = decode_full(data)
    assert result.frames[0].namespaces == [("ex", ("I", EX + "ns/"))]
    assert result.frames[0].metadata == {"k": b"\x00v"}
    assert result.options.stream_name == "st" and result.options.logical_type == 1
    assert read_options(data).key() == (1, 1, False, False, 8, 4, 4)


def test_single_frame_input():
    data = frame(options(), name(EX), triple(s_iri=iri(0, 1), p_iri=iri(0, 1), o_iri=iri(0, 1)))
    assert data[:1] == b"\x0a"
    assert decode(data)[1] == [[(("I", EX),) * 3]]


def test_concatenated_streams():
    one = frame(options(), name("a"), triple(s_iri=iri(0, 1), p_iri=iri(0, 1), o_iri=iri(0, 1)))
    two = frame(options(max_name_table_size=9), name("b"),
                triple(s_iri=iri(0, 1), p_iri=iri(0, 1), o_iri=iri(0, 1)))
    with pytest.raises(RefDecodeError, match="differ"):
        decode(stream(one, two))
    result = decode_full(stream(one, two), new_streams=True)
    assert result.statement_frames == [[(("I", "a"),) * 3], [(("I", "b"),) * 3]]


# -- strict errors: rejected in both modes ---------------------------------------------------

HARD = {
    "version 0": [options(version=0)],
    "version 3": [options(version=3)],
    "physical 0": [options(0)],
    "name table over the cap": [options(max_name_table_size=4097)],
    "prefix table over the cap": [options(max_prefix_table_size=1025)],
    "datatype table over the cap": [options(max_datatype_table_size=257)],
    "name id past the table": [options(), name("x", id=9)],
    "prefix entry, table disabled": [options(max_prefix_table_size=0), prefix("x")],
    "undefined name": [options(), triple(s_iri=iri(0, 2), p_iri=iri(0, 2), o_iri=iri(0, 2))],
    "undefined prefix": [options(), name("x"),
                         triple(s_iri=iri(2, 1), p_iri=iri(0, 1), o_iri=iri(0, 1))],
    "datatype 0": [options(), name("x"), triple(s_iri=iri(0, 1), p_iri=iri(0, 1),
                                                o_literal=pb2.RdfLiteral(lex="1", datatype=0))],
    "repeated term first": [options(), name("x"), triple(p_iri=iri(0, 1), o_iri=iri(0, 1))],
    "triple in QUADS": [options(2), name("x"), triple(s_iri=iri(0, 1), p_iri=iri(0, 1),
                                                      o_iri=iri(0, 1))],
    "quad in TRIPLES": [options(1), name("x"), quad(s_iri=iri(0, 1), p_iri=iri(0, 1),
                                                    o_iri=iri(0, 1), g_iri=iri(0, 1))],
    "triple outside a graph": [options(3), name("x"), triple(s_iri=iri(0, 1), p_iri=iri(0, 1),
                                                             o_iri=iri(0, 1))],
    "graph_start in QUADS": [options(2), pb2.RdfStreamRow(graph_start=pb2.RdfGraphStart(
        g_bnode="g"))],
    "graph_start inside a graph": [options(3)] + [pb2.RdfStreamRow(
        graph_start=pb2.RdfGraphStart(g_bnode="g"))] * 2,
    "graph_start without a graph": [options(3), pb2.RdfStreamRow(
        graph_start=pb2.RdfGraphStart())],
    "repeated term in a quoted triple": [options(rdf_star=True), name("x"), triple(
        s_triple_term=pb2.RdfTriple(p_iri=iri(0, 1), o_iri=iri(0, 1)), p_iri=iri(0, 1),
        o_iri=iri(0, 1))],
    "options change": [options(), options(max_name_table_size=9)],
}


@pytest.mark.parametrize("rows", HARD.values(), ids=HARD.keys())
def test_errors_in_both_modes(rows):
    data = stream(frame(*rows))
    for strict in (True, False):
        with pytest.raises(RefDecodeError) as info:
            decode_full(data, strict=strict)
        assert not info.value.optional


def test_field_number_zero_is_rejected():
    # graph_end holding a field 0, which upb would let pass
    data = stream(frame(options(3), pb2.RdfStreamRow(graph_start=pb2.RdfGraphStart(g_bnode="g")))
                  + b"\x0a\x04\x2a\x02\x00\x00")
    with pytest.raises(RefDecodeError, match="field number 0"):
        decode_full(data, strict=False)


# -- optional errors: the implementation may choose ------------------------------------------

OPTIONAL = {
    "options not first": [name("x"), options()],
    "namespace without value": [options(version=2), pb2.RdfStreamRow(
        namespace=pb2.RdfNamespaceDeclaration(name="ex"))],
}


@pytest.mark.parametrize("rows", OPTIONAL.values(), ids=OPTIONAL.keys())
def test_optional_errors(rows):
    with pytest.raises(RefDecodeError) as info:
        lenient(stream(frame(*rows)))
    assert info.value.optional


# -- soft rules: strict raises, lenient warns and decodes --------------------------------------

def _soft_cases():
    x = ("I", "x")
    one = [name("x")]
    spo = dict(s_iri=iri(0, 1), p_iri=iri(0, 1))
    deep = pb2.RdfTriple(s_iri=iri(0, 1), p_iri=iri(0, 1), o_iri=iri(0, 1))
    want_deep = (x, x, x)
    for _ in range(61):
        deep = pb2.RdfTriple(s_iri=iri(0, 1), p_iri=iri(0, 1), o_triple_term=deep)
        want_deep = (x, x, ("T",) + want_deep)
    return {
        "name table below 8": ([options(max_name_table_size=7)], [], "< 8"),
        "unknown logical type": ([options(logical_type=5)], [], "unknown logical"),
        "logical type of another physical type": ([options(1, logical_type=2)], [],
                                                  "inconsistent"),
        "empty language tag": ([options()] + one + [triple(
            **spo, o_literal=pb2.RdfLiteral(lex="v", langtag=""))],
            [(x, x, ("L", "v", None, None))], "empty language tag"),
        "quoted triple without rdf_star": ([options()] + one + [triple(
            **spo, o_triple_term=pb2.RdfTriple(**spo, o_bnode="b"))],
            [(x, x, ("T", x, x, ("B", "b")))], "rdf_star = false"),
        "literal subject without generalized": ([options()] + one + [triple(
            s_literal=pb2.RdfLiteral(lex="l"), p_iri=iri(0, 1), o_iri=iri(0, 1))],
            [(("L", "l", None, None), x, x)], "generalized_statements = false"),
        "bnode predicate without generalized": ([options()] + one + [triple(
            s_iri=iri(0, 1), p_bnode="p", o_iri=iri(0, 1))],
            [(x, ("B", "p"), x)], "generalized_statements = false"),
        "literal graph without generalized": ([options(2)] + one + [quad(
            **spo, o_iri=iri(0, 1), g_literal=pb2.RdfLiteral(lex="g"))],
            [(x, x, x, ("L", "g", None, None))], "generalized_statements = false"),
        "graph_end outside a graph": ([options(3), pb2.RdfStreamRow(
            graph_end=pb2.RdfGraphEnd())], [], "graph_end outside"),
        "row without content": ([options(), pb2.RdfStreamRow()], [], "no field set"),
        "quoted triples nested deeper than 60": ([options(rdf_star=True)] + one + [triple(
            **spo, o_triple_term=deep)], [(x, x, ("T",) + want_deep)],
            "deeper than 60"),
    }


SOFT = _soft_cases()


@pytest.mark.parametrize("case", SOFT.values(), ids=SOFT.keys())
def test_soft_rules(case):
    rows, statements, warning = case
    data = stream(frame(*rows))
    with pytest.raises(RefDecodeError, match=warning):
        decode_full(data, strict=True)
    result = lenient(data)
    assert [w for w in result.warnings if warning in w], result.warnings
    assert result.statement_frames == [statements]


def test_stream_without_options_row():
    data = stream(frame())
    with pytest.raises(RefDecodeError, match="without options"):
        decode_full(data)
    assert lenient(data).warnings == ["stream without options row"]


def test_over_long_tag_is_read_with_a_warning():
    # the frame's rows tag (0A) written in 6 bytes: upb refuses it, protobuf-java reads it
    row = options().SerializeToString()
    payload = b"\x8a\x80\x80\x80\x80\x00" + enc_varint(len(row)) + row
    with pytest.raises(RefDecodeError, match="longer than 5"):
        decode_full(stream(payload))
    result = lenient(stream(payload))
    assert result.options.physical_type == 1
    assert result.warnings == ["tag or length varint longer than 5 bytes"]


def test_metadata_entry_with_an_unknown_field_is_kept():
    # map entry: key "k" (1), value "v" (2), unknown field 3; upb would drop the entry
    entry = b"\x0a\x01k\x12\x01v\x18\x01"
    payload = frame(options()) + b"\x7a" + enc_varint(len(entry)) + entry
    assert decode_full(stream(payload)).frames[0].metadata == {"k": b"v"}
