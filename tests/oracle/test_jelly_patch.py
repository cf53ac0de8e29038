"""Self-tests of the Jelly-Patch oracle: frames built with the protobuf classes compiled from
``proto/patch.proto`` decode to hand-written neutral operations (the spec's own example among
them), and every strict / lenient rule is checked on an input built for it."""

from __future__ import annotations

import pytest

from oracle.jelly_patch import RefDecodeError, decode, decode_full, load_pb2
from oracle.wire import enc_varint

pb2 = load_pb2()
EX = "http://example.org/"
D = ("D",)
END = ("END",)


def options(statement=1, stream=3, **changes):
    fields = dict(statement_type=statement, stream_type=stream, max_name_table_size=8,
                  max_prefix_table_size=4, max_datatype_table_size=4, version=1)
    fields.update(changes)
    return pb2.RdfPatchRow(options=pb2.RdfPatchOptions(**fields))


def frame(*rows) -> bytes:
    return pb2.RdfPatchFrame(rows=list(rows)).SerializeToString()


def stream(*frames) -> bytes:
    return b"".join(enc_varint(len(f)) + f for f in frames)


def iri(prefix_id=0, name_id=0):
    return pb2.RdfIri(prefix_id=prefix_id, name_id=name_id)


def name(value, id=0):
    return pb2.RdfPatchRow(name=pb2.RdfNameEntry(id=id, value=value))


def prefix(value, id=0):
    return pb2.RdfPatchRow(prefix=pb2.RdfPrefixEntry(id=id, value=value))


def add(**terms):
    return pb2.RdfPatchRow(statement_add=pb2.RdfQuad(**terms))


def delete(**terms):
    return pb2.RdfPatchRow(statement_delete=pb2.RdfQuad(**terms))


def ns_add(name, value=None, **graph):
    ns = pb2.RdfPatchNamespace(name=name, **graph)
    if value is not None:
        ns.value.CopyFrom(value)
    return pb2.RdfPatchRow(namespace_add=ns)


def ns_delete(name, value=None, **graph):
    ns = pb2.RdfPatchNamespace(name=name, **graph)
    if value is not None:
        ns.value.CopyFrom(value)
    return pb2.RdfPatchRow(namespace_delete=ns)


def header(key, **value):
    return pb2.RdfPatchRow(header=pb2.RdfPatchHeader(key=key, **value))


TX = pb2.RdfPatchRow(transaction_start=pb2.RdfPatchTransactionStart())
TC = pb2.RdfPatchRow(transaction_commit=pb2.RdfPatchTransactionCommit())
TA = pb2.RdfPatchRow(transaction_abort=pb2.RdfPatchTransactionAbort())
PUNCT = pb2.RdfPatchRow(punctuation=pb2.RdfPatchPunctuation())


def lenient(data):
    return decode_full(data, strict=False)


def test_spec_example():
    """The example of the spec's "RDF terms and graph nodes" section, QUADS."""
    data = stream(frame(
        options(statement=2, stream=1),
        prefix(EX), name("iri"), header("id", h_iri=iri(prefix_id=1)),
        name(""), name("graph"),
        ns_add("ex", iri(), g_iri=iri()),
        add(s_bnode="b1", p_iri=iri(name_id=1), o_bnode="b2")))
    assert decode(data) == [
        ("H", "id", ("I", EX + "iri")),
        ("PA", "ex", ("I", EX), ("I", EX + "graph")),
        ("A", ("B", "b1"), ("I", EX + "iri"), ("B", "b2"), ("I", EX + "graph")),
        END]


def test_every_row_kind_triples_punctuated():
    lit = pb2.RdfLiteral(lex="x", langtag="en")
    data = stream(frame(
        options(), name("s"), name("p"), name("o"),
        header("k", h_literal=lit), header("b", h_bnode="n"),
        TX,
        add(s_iri=iri(0, 1), p_iri=iri(), o_iri=iri()),
        delete(o_literal=pb2.RdfLiteral(lex="v")),         # s, p repeated from the add
        ns_add("", iri(0, 1)), ns_delete("x"),
        TC, PUNCT), frame(TX, TA, PUNCT))
    s, p, o = ("I", "s"), ("I", "p"), ("I", "o")
    assert decode(data) == [
        ("H", "k", ("L", "x", "en", None)), ("H", "b", ("B", "n")), ("TX",),
        ("A", s, p, o, None), ("D", s, p, ("L", "v", None, None), None),
        ("PA", "", s, None), ("PD", "x", None, None), ("TC",), END, ("TX",), ("TA",), END]


def test_frame_stream_ends_a_patch_per_frame_and_flat_at_the_end():
    rows = [name("a"), add(s_iri=iri(0, 1), p_iri=iri(0, 1), o_iri=iri(0, 1))]
    a = ("A", ("I", "a"), ("I", "a"), ("I", "a"), None)
    assert decode(stream(frame(options(stream=1), *rows), frame())) == [a, END, END]
    flat = stream(frame(options(stream=2), *rows), frame(add()))
    r = lenient(flat)
    assert r.operations == [a, a, END] and r.frames == [[a], [a]] and not r.warnings
    assert decode(stream(frame(options(stream=2)))) == []


def test_quads_graph_repeats_across_statements_and_namespaces():
    data = stream(frame(
        options(statement=2), name("g"), name("s"),
        ns_add("ex", iri(0, 2), g_iri=iri(0, 1)),
        add(s_iri=iri(0, 2), p_iri=iri(0, 2), o_iri=iri(0, 2)),     # graph repeated from PA
        delete(g_default_graph=pb2.RdfDefaultGraph()),
        ns_delete("ex"), PUNCT))
    g, s = ("I", "g"), ("I", "s")
    assert decode(data) == [("PA", "ex", s, g), ("A", s, s, s, g), ("D", s, s, s, D),
                            ("PD", "ex", None, D), END]


def test_namespace_without_graph_first_in_quads_is_the_default_graph_with_a_warning():
    data = stream(frame(options(statement=2), name("n"), ns_add("ex", iri()), PUNCT))
    r = lenient(data)
    assert r.operations == [("PA", "ex", ("I", "n"), D), END] and r.warnings
    with pytest.raises(RefDecodeError):
        decode(data)


def test_graph_in_triples_is_ignored_leniently():
    data = stream(frame(options(), name("n"),
                        add(s_iri=iri(), p_iri=iri(0, 1), o_iri=iri(0, 1), g_bnode="g"), PUNCT))
    r = lenient(data)
    n = ("I", "n")
    assert r.operations == [("A", n, n, n, None), END] and r.warnings
    with pytest.raises(RefDecodeError):
        decode(data)


@pytest.mark.parametrize("rows, optional", [
    ([add(s_bnode="a", p_bnode="b", o_bnode="c")], True),             # no options first
    ([options(version=0)], False),
    ([options(version=2)], False),
    ([options(statement=0)], False),
    ([options(stream=0)], False),
    ([options(stream=4)], False),
    ([options(max_name_table_size=5000)], False),
    ([options(), options(stream=2)], False),                            # options differ
    ([options(stream=2), PUNCT], False),
    ([options(stream=1), PUNCT], False),
    ([options(statement=2), name("n"), add(s_iri=iri(), p_iri=iri(0, 1), o_iri=iri(0, 1))],
     False),                                                            # no graph to repeat
    ([options(), add(s_bnode="a", p_bnode="b")], False),               # no object to repeat
    ([options(), header("k")], False),                                  # header without value
    ([options(), ns_add("x")], False),                                  # PA without IRI
    ([options(), add(s_iri=iri(0, 1), p_iri=iri(0, 1), o_iri=iri(0, 1))], False),
])
def test_hard_errors(rows, optional):
    with pytest.raises(RefDecodeError) as e:
        lenient(stream(frame(*rows)))
    assert e.value.optional == optional


@pytest.mark.parametrize("rows", [
    [options(max_name_table_size=7)],
    [options(), TC, PUNCT],
    [options(), TX, TX, TC, PUNCT],
    [options(), TX, PUNCT],
    [options(), TX],                                                    # no punctuation at the end
    [options(), pb2.RdfPatchRow()],
    [options(), name("n"), add(s_iri=iri(), p_iri=iri(0, 1),
                               o_triple_term=pb2.RdfTriple(s_iri=iri(0, 1), p_iri=iri(0, 1),
                                                           o_iri=iri(0, 1))), PUNCT],
])
def test_soft_rules(rows):
    data = stream(frame(*rows))
    assert lenient(data).warnings
    with pytest.raises(RefDecodeError):
        decode(data)


def test_identical_options_later_are_fine():
    data = stream(frame(options(), TX, options(), TC, PUNCT))
    assert decode(data) == [("TX",), ("TC",), END]


def test_single_frame_input():
    data = frame(options(stream=1), TX, TC)
    assert decode(data) == [("TX",), ("TC",), END]
