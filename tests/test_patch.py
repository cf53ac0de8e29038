"""Jelly-Patch through the public API (``jelly.patch``): every row kind, stream type and
statement type written and read back; random operation sequences (hypothesis), tables smaller
than the data included, checked against the input and the upb oracle; the writer's and the
reader's choices of ``docs/patch.md``; options errors; inputs (gzip, pipes, files);
the five shared RDF Patch examples."""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import jelly
from jelly import patch
from jelly.patch import (END_OF_PATCH, TX_ABORT, TX_COMMIT, TX_START, Add, Delete, Header,
                         PatchOptions, PatchReader, PatchWriter, PrefixAdd, PrefixDelete)
from oracle import jelly_patch as rp
from oracle.wire import enc_varint
from patch_neutral import END, expected, op_from_jelly, op_to_jelly
from oracle.terms import walk
from strategies import XSD_STRING, scenario

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
PB = rp.load_pb2()
STREAM_TYPES = ("frame", "flat", "punctuated")
EXAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "patch-examples"


def I(name):  # noqa: E743 - short on purpose
    return jelly.IRI(EX + name)


def neutral(ops):
    return [op_from_jelly(op) for op in ops]


def oracle(data, transactions_checked=True):
    """The operations the upb oracle reads, strictly but for the pairing of transactions when
    ``transactions_checked`` is False (random sequences); an empty FRAME stream is no bytes."""
    if not data:
        return []
    result = rp.decode_full(data, strict=False)
    assert all("transaction" in w for w in result.warnings) if not transactions_checked \
        else not result.warnings, result.warnings
    return result.operations


def roundtrip(ops, **kw):
    data = patch.serialize(ops, **kw)
    return data, list(patch.parse(data))


# Every operation kind and term kind, in two patches.
TRIPLE_OPS = [
    Header("id", jelly.IRI("uuid:bbe2edae")), Header("label", jelly.Literal("chrząszcz", "pl")),
    Header("blank", jelly.BlankNode("b1")),
    Header("n", jelly.Literal("12", datatype=XSD + "integer")),
    Header("star", jelly.Triple(I("s"), I("p"), I("o"))),
    TX_START,
    PrefixAdd("ex", I("")), PrefixAdd("", jelly.IRI("http://example.org#")),
    Add(I("s"), I("p"), I("o")), Add(I("s"), I("p"), jelly.Literal("simple")),
    Add(I("s"), I("p"), jelly.Literal("12", datatype=XSD + "integer")),
    Add(jelly.BlankNode("b1"), I("p3"), jelly.BlankNode("b2")),
    Add(jelly.Triple(I("s"), I("p"), I("o")), I("q"), jelly.Triple(I("a"), I("b"), I("c"))),
    PrefixDelete("ex"), PrefixDelete("", jelly.IRI("http://example.org#")),
    TX_COMMIT, END_OF_PATCH,
    TX_START, Delete(I("s"), I("p"), I("o")), Delete(I("s"), I("p"), I("o")),
    Delete(I("s"), I("p"), jelly.Literal("x", "en")), TX_ABORT, END_OF_PATCH]
QUAD_OPS = [
    Header("id", I("patch")), TX_START,
    PrefixAdd("rdf", I("rdf#"), I("g1")), PrefixAdd("rdf", I("rdf#")),
    PrefixDelete("rdf", None, I("g1")), PrefixDelete("x", I("x"), jelly.BlankNode("g")),
    Add(I("s"), I("p1"), I("o1"), I("g1")), Add(I("s"), I("p1"), I("o2")),
    Add(I("s"), I("p2"), I("o2"), I("g1")), Add(I("s"), I("p2"), I("o2"), jelly.DEFAULT_GRAPH),
    Add(jelly.BlankNode("b1"), I("p3"), jelly.Literal("v"), jelly.BlankNode("g2")),
    TX_COMMIT, END_OF_PATCH,
    Delete(I("s"), I("p1"), I("o1"), I("g1")), Delete(I("s"), I("p1"), I("o1"), I("g2")),
    PrefixAdd("ex", I(""), I("g2")), END_OF_PATCH]


def flat(ops):
    return [op for op in ops if op is not END_OF_PATCH] + [END_OF_PATCH]


def case_ops(statement_type, stream_type):
    ops = TRIPLE_OPS if statement_type == "triples" else QUAD_OPS
    return flat(ops) if stream_type == "flat" else ops


@pytest.mark.parametrize("delimited", [True, False])
@pytest.mark.parametrize("stream_type", STREAM_TYPES)
@pytest.mark.parametrize("statement_type", ["triples", "quads"])
def test_every_row_kind_round_trips(statement_type, stream_type, delimited):
    ops = case_ops(statement_type, stream_type)
    if not delimited and stream_type == "frame":
        ops = ops[:ops.index(END_OF_PATCH) + 1]        # a single frame holds one patch
    data, back = roundtrip(ops, stream_type=stream_type, statement_type=statement_type,
                           delimited=delimited, rdf_star=True, rows_per_frame=5,
                           preset="small")
    want = expected(neutral(ops), statement_type, stream_type)
    assert neutral(back) == want
    assert oracle(data) == want                  # the upb oracle reads the same
    reader = PatchReader(data)
    assert reader.options == PatchOptions(statement_type, stream_type, rdf_star=True,
                                          max_name_table_size=128, max_prefix_table_size=16,
                                          max_datatype_table_size=16)
    rows = {}
    for frame in reader.frames():
        for kind, n in frame.rows.items():
            rows[kind] = rows.get(kind, 0) + n
    assert reader.delimited is delimited
    kinds = {Add: "statement_add", Delete: "statement_delete", PrefixAdd: "namespace_add",
             PrefixDelete: "namespace_delete", Header: "header",
             type(TX_START): "transaction_start", type(TX_COMMIT): "transaction_commit",
             type(TX_ABORT): "transaction_abort"}
    need = {"options", "name", "prefix"} | {kinds[type(op)] for op in ops if type(op) in kinds}
    if statement_type == "triples":
        need.add("datatype")
    if stream_type == "punctuated":
        need.add("punctuation")
    assert need <= {k for k, v in rows.items() if v}
    if stream_type != "punctuated":
        assert rows["punctuation"] == 0


def test_frames_cut_by_the_row_budget_except_frame_streams():
    ops = [Add(I(f"s{i}"), I("p"), I("o")) for i in range(40)] + [END_OF_PATCH]
    for st_type, many in (("punctuated", True), ("flat", True), ("frame", False)):
        reader = PatchReader(patch.serialize(ops, stream_type=st_type, rows_per_frame=10))
        frames = list(reader.frames())
        assert (len(frames) > 1) is many, st_type
        assert all(f.rows["options"] == (f.index == 0) for f in frames)


def test_parse_patches_and_frames():
    ops = [TX_START, Add(I("s"), I("p"), I("o")), TX_COMMIT, END_OF_PATCH, END_OF_PATCH,
           Header("k", I("v")), END_OF_PATCH]
    for st_type in ("frame", "punctuated"):
        data = patch.serialize(ops, stream_type=st_type)
        assert [neutral(p) for p in patch.parse_patches(data)] == \
            [neutral(ops[:3]), [], neutral(ops[5:6])]
    frames = list(PatchReader(patch.serialize(ops, stream_type="frame")).frames())
    assert [len(f) for f in frames] == [4, 1, 2]
    assert frames[0].operations[-1] is END_OF_PATCH and frames[1].operations == [END_OF_PATCH]


# ------------------------------------------------------------------------- random sequences

def fits(terms, names, datatypes):
    """Whether a row of these terms fits the tables: at most ``names`` distinct IRIs (the
    writer falls back to whole IRIs as names) and ``datatypes`` distinct datatypes."""
    terms = list(walk([t for t in terms if isinstance(t, tuple)]))
    return len({t for t in terms if t[0] == "I"}) <= names and \
        len({t[3] for t in terms if t[0] == "L" and t[3] not in (None, XSD_STRING)}) \
        <= datatypes


@st.composite
def patch_case(draw):
    """A scenario of strategies.py (statements, table sizes, flags) turned into operations."""
    sc = draw(scenario(max_statements=25))
    quads = sc["physical"] != "triples"
    stream_type = draw(st.sampled_from(STREAM_TYPES))
    iris = [t for s in sc["statements"] for t in s[:3] if t[0] == "I"] or [("I", EX)]
    graphs = [s[3] for s in sc["statements"] if len(s) == 4 and s[3][0] != "L"] or [("D",)]
    values = [t for s in sc["statements"] for t in s[:3]] or [("B", "x")]
    ops = []
    for s in sc["statements"]:
        for _ in range(draw(st.integers(0, 2)) if draw(st.integers(0, 3)) == 0 else 0):
            k = draw(st.sampled_from(["PA", "PD", "H", "TX", "TC", "TA", "END"]))
            g = draw(st.sampled_from(graphs + [None])) if quads else None
            if k == "PA":
                ops.append(("PA", draw(st.sampled_from(["", "ex", "é"])),
                            draw(st.sampled_from(iris)), g))
            elif k == "PD":
                ops.append(("PD", "ex", draw(st.sampled_from(iris + [None])), g))
            elif k == "H":
                v = draw(st.sampled_from(values))
                if v[0] != "T" or sc["rdf_star"]:
                    ops.append(("H", draw(st.sampled_from(["id", "", "k"])), v))
            elif k != "END" or stream_type != "flat":
                ops.append((k,))
        g = s[3] if len(s) == 4 else None
        if not quads and g is not None:
            g = None if g == ("D",) else g
            if g is not None:
                continue
        ops.append((draw(st.sampled_from("AD")), *s[:3], g))
    if stream_type == "flat" and draw(st.booleans()):
        ops.append(END)
    ops = [op for op in ops if fits(op[1:], *sc["tables"][::2])]
    return sc, "quads" if quads else "triples", stream_type, ops


@settings(max_examples=60)
@given(patch_case())
def test_random_operations_round_trip(case):
    sc, statement_type, stream_type, ops = case
    names, prefixes, datatypes = sc["tables"]
    if not sc["delimited"] and stream_type == "frame" and END in ops[:-1]:
        ops = ops[:ops.index(END) + 1]
    data = patch.serialize(
        [op_to_jelly(op) for op in ops], stream_type=stream_type, statement_type=statement_type,
        rdf_star=sc["rdf_star"], generalized=sc["generalized"], max_name_table_size=names,
        max_prefix_table_size=prefixes, max_datatype_table_size=datatypes,
        rows_per_frame=sc["rows_per_frame"], delimited=sc["delimited"])
    want = expected(ops, statement_type, stream_type)
    assert neutral(patch.parse(data)) == want
    assert oracle(data, transactions_checked=False) == want


@settings(max_examples=20)
@given(scenario(min_statements=5, max_statements=30, pressure=True))
def test_tables_smaller_than_the_data(sc):
    ops = [("A" if i % 3 else "D", *s[:3], s[3] if len(s) == 4 else None)
           for i, s in enumerate(sc["statements"]) if fits(s, 8, 2)]
    data = patch.serialize([op_to_jelly(op) for op in ops], statement_type="quads",
                           rdf_star=True, generalized=sc["generalized"],
                           max_name_table_size=8, max_prefix_table_size=1,
                           max_datatype_table_size=2, rows_per_frame=7)
    want = expected(ops, "quads", "punctuated")
    assert neutral(patch.parse(data)) == want
    assert oracle(data) == want


# ------------------------------------------------------------------------- writer choices

def test_statement_type_from_the_first_operation_that_tells():
    held = [Header("id", I("h")), TX_START, PrefixAdd("ex", I(""))]
    w = PatchWriter()
    w.write_all(held)
    assert w.options is None                 # nothing tells yet: held back
    w.write(Add(I("s"), I("p"), I("o"), I("g")))
    assert w.options.statement_type == "quads"
    w.close()
    assert neutral(patch.parse(w.getvalue())) == neutral(
        held[:2] + [PrefixAdd("ex", I(""), jelly.DEFAULT_GRAPH),
                    Add(I("s"), I("p"), I("o"), I("g")), END_OF_PATCH])
    assert patch.read_options(patch.serialize([Add(I("s"), I("p"), I("o"))])).statement_type \
        == "triples"
    assert patch.read_options(patch.serialize([PrefixDelete("x", None, I("g"))])) \
        .statement_type == "quads"
    # Nothing tells before a frame must leave: TRIPLES.
    data = patch.serialize([Header("k", I("v"))] * 3, rows_per_frame=2)
    assert patch.read_options(data).statement_type == "triples"
    assert len(list(PatchReader(data).frames())) == 2
    data = patch.serialize([TX_START, END_OF_PATCH], stream_type="frame")
    assert patch.read_options(data).statement_type == "triples"
    with pytest.raises(jelly.JellyEncodeError):      # ... so a later quad cannot be written
        patch.serialize([TX_START, END_OF_PATCH, Add(I("s"), I("p"), I("o"), I("g"))],
                        stream_type="frame")


def test_graphs_and_statement_types():
    q = patch.serialize([Add(I("s"), I("p"), I("o")), PrefixAdd("ex", I(""))],
                        statement_type="quads")
    assert list(patch.parse(q)) == [Add(I("s"), I("p"), I("o"), jelly.DEFAULT_GRAPH),
                                    PrefixAdd("ex", I(""), jelly.DEFAULT_GRAPH), END_OF_PATCH]
    t = patch.serialize([Add(I("s"), I("p"), I("o"), jelly.DEFAULT_GRAPH),
                         PrefixDelete("ex", None, jelly.DEFAULT_GRAPH)], statement_type="triples")
    assert list(patch.parse(t)) == [Add(I("s"), I("p"), I("o")), PrefixDelete("ex"),
                                    END_OF_PATCH]
    for op in (Add(I("s"), I("p"), I("o"), I("g")), Delete(I("s"), I("p"), I("o"), I("g")),
               PrefixAdd("ex", I(""), I("g"))):
        with pytest.raises(jelly.JellyEncodeError, match="TRIPLES"):
            patch.serialize([op], statement_type="triples")


def test_flat_stream_holds_one_patch():
    ops = [Add(I("s"), I("p"), I("o")), END_OF_PATCH]
    assert list(patch.parse(patch.serialize(ops, stream_type="flat"))) == ops
    for more in ([Add(I("s"), I("p"), I("x"))], [END_OF_PATCH]):
        with pytest.raises(jelly.JellyEncodeError, match="FLAT"):
            patch.serialize(ops + more, stream_type="flat")
    # An empty patch cannot be told from no patch in a FLAT stream.
    assert list(patch.parse(patch.serialize([END_OF_PATCH], stream_type="flat"))) == []


def test_empty_streams():
    assert patch.serialize([], stream_type="frame") == b""
    for st_type in ("flat", "punctuated"):
        data = patch.serialize([], stream_type=st_type)
        assert patch.read_options(data).stream_type == st_type and list(patch.parse(data)) == []
    for st_type in ("frame", "punctuated"):
        assert list(patch.parse(patch.serialize([END_OF_PATCH], stream_type=st_type))) == \
            [END_OF_PATCH]


def test_single_frame_frame_stream_holds_one_patch():
    ops = [Add(I("s"), I("p"), I("o")), END_OF_PATCH]
    data = patch.serialize(ops, stream_type="frame", delimited=False)
    assert PatchReader(data).options is not None and list(patch.parse(data)) == ops
    with pytest.raises(jelly.JellyEncodeError, match="one patch"):
        patch.serialize(ops + ops, stream_type="frame", delimited=False)


def test_rdf_star_automatic():
    star = Add(jelly.Triple(I("s"), I("p"), I("o")), I("q"), I("z"))
    plain = Add(I("s"), I("p"), I("o"))
    assert patch.read_options(patch.serialize([plain])).rdf_star is False
    assert patch.read_options(patch.serialize([plain, star])).rdf_star is True
    assert patch.read_options(patch.serialize([Header("h", star.s)])).rdf_star is True
    with pytest.raises(jelly.JellyEncodeError, match="rdf_star=True"):
        patch.serialize([plain, END_OF_PATCH, star], stream_type="frame")
    assert patch.read_options(patch.serialize([plain, END_OF_PATCH, star], stream_type="frame",
                                              rdf_star=True)).rdf_star is True
    with pytest.raises(jelly.JellyEncodeError):
        patch.serialize([star], rdf_star=False)


def test_writer_refusals_and_api_misuse():
    with pytest.raises(jelly.JellyEncodeError, match="not a patch operation"):
        patch.serialize([(I("s"), I("p"), I("o"))], statement_type="triples")
    with pytest.raises(jelly.JellyEncodeError):
        patch.serialize([Header("k", jelly.DEFAULT_GRAPH)], statement_type="triples")
    with pytest.raises(jelly.JellyOptionsError):
        PatchWriter(stream_type="segments")
    with pytest.raises(jelly.JellyOptionsError):
        PatchWriter(statement_type="graphs")
    with pytest.raises(jelly.JellyOptionsError):
        PatchWriter(max_name_table_size=7)
    w = PatchWriter(stream_type="frame")
    with pytest.raises(jelly.JellyEncodeError, match="end_patch"):
        w.flush()
    w.close()
    with pytest.raises(jelly.JellyError, match="closed"):
        w.write(TX_START)


def test_a_failed_write_leaves_the_stream_valid():
    w = PatchWriter(statement_type="triples")
    w.write(Add(I("s"), I("p"), I("o")))
    with pytest.raises(jelly.JellyEncodeError):
        w.write(Add(I("s"), I("p"), I("o"), I("g")))
    w.write(Delete(I("s"), I("p"), I("o")))
    w.close()
    assert list(patch.parse(w.getvalue())) == [Add(I("s"), I("p"), I("o")),
                                               Delete(I("s"), I("p"), I("o")), END_OF_PATCH]
    w = PatchWriter(statement_type="triples")
    with pytest.raises(jelly.JellyEncodeError):
        w.write_all([Add(I("s"), I("p"), I("o")), Add(I("s"), I("p"), I("o"), I("g"))])
    w.close()                   # the patch of the add written before the refusal is ended
    assert list(patch.parse(w.getvalue())) == [Add(I("s"), I("p"), I("o")), END_OF_PATCH]


def test_writing_to_paths_is_atomic_and_gzip(tmp_path):
    ops = [Add(I("s"), I("p"), I("o")), END_OF_PATCH]
    path = tmp_path / "out.jellyp.gz"
    patch.serialize(ops, path)
    assert gzip.decompress(path.read_bytes()) and list(patch.parse(path)) == ops
    with pytest.raises(jelly.JellyEncodeError):
        with PatchWriter(path, statement_type="triples") as w:
            w.write(Header("k", I("v")))
            w.write(Add(I("s"), I("p"), I("o"), I("g")))
    assert list(patch.parse(path)) == ops          # the old file is untouched
    assert sorted(os.listdir(tmp_path)) == ["out.jellyp.gz"]


# ------------------------------------------------------------------------- reading

def frame(*rows):
    return PB.RdfPatchFrame(rows=list(rows)).SerializeToString()


def stream(*frames):
    return b"".join(enc_varint(len(f)) + f for f in frames)


def options(statement=1, stream_type=3, **changes):
    fields = dict(statement_type=statement, stream_type=stream_type, max_name_table_size=8,
                  max_prefix_table_size=4, max_datatype_table_size=4, version=1)
    fields.update(changes)
    return PB.RdfPatchRow(options=PB.RdfPatchOptions(**fields))


def name(value):
    return PB.RdfPatchRow(name=PB.RdfNameEntry(value=value))


def add_row(**terms):
    return PB.RdfPatchRow(statement_add=PB.RdfQuad(**terms))


TX = PB.RdfPatchRow(transaction_start=PB.RdfPatchTransactionStart())
TC = PB.RdfPatchRow(transaction_commit=PB.RdfPatchTransactionCommit())
PUNCT = PB.RdfPatchRow(punctuation=PB.RdfPatchPunctuation())
SPO = dict(s_bnode="a", p_bnode="b", o_bnode="c")


@pytest.mark.parametrize("rows, message, error", [
    ([TX], "does not start with a patch options row", jelly.JellyDecodeError),
    ([options(version=0)], "version 0", jelly.JellyDecodeError),
    ([options(version=2)], "protocol version 2", jelly.JellyDecodeError),
    ([options(statement=0)], "statement type is unspecified", jelly.JellyDecodeError),
    ([options(statement=3)], "unknown statement type 3", jelly.JellyDecodeError),
    ([options(stream_type=0)], "patch stream type is unspecified", jelly.JellyDecodeError),
    ([options(stream_type=7)], "unknown patch stream type 7", jelly.JellyDecodeError),
    ([options(max_name_table_size=7)], "below the minimum of 8", jelly.JellyDecodeError),
    ([options(max_name_table_size=4097)], "exceeds this reader's limit", jelly.JellyLimitError),
    ([options(max_prefix_table_size=1025)], "exceeds this reader's limit",
     jelly.JellyLimitError),
    ([options(max_datatype_table_size=257)], "exceeds this reader's limit",
     jelly.JellyLimitError),
    ([options(), TX, options(stream_type=1)], "differ", jelly.JellyDecodeError),
    ([options(), TX, options(rdf_star=True)], "differ", jelly.JellyDecodeError),
    ([options(stream_type=1), PUNCT], "punctuation row in a FRAME stream",
     jelly.JellyDecodeError),
    ([options(stream_type=2), PUNCT], "punctuation row in a FLAT stream",
     jelly.JellyDecodeError),
    ([options(), add_row(g_default_graph=PB.RdfDefaultGraph(), **SPO)], "graph term",
     jelly.JellyDecodeError),
    ([options(), PB.RdfPatchRow(namespace_add=PB.RdfPatchNamespace(
        name="x", value=PB.RdfIri(name_id=1), g_bnode="g"))], "graph term",
     jelly.JellyDecodeError),
    ([options(statement=2), add_row(**SPO)], "repeated graph", jelly.JellyDecodeError),
    ([options(), PB.RdfPatchRow(header=PB.RdfPatchHeader(key="k"))], "without a value",
     jelly.JellyDecodeError),
    ([options(), PB.RdfPatchRow(namespace_add=PB.RdfPatchNamespace(name="x"))],
     "without an IRI", jelly.JellyDecodeError),
    ([options(), PB.RdfPatchRow()], "without content", jelly.JellyDecodeError),
    ([options(), TX], "ends inside a patch", jelly.JellyDecodeError),
])
def test_reader_errors(rows, message, error):
    data = stream(frame(*rows))
    with pytest.raises(error, match=message) as e:
        list(patch.parse(data))
    assert e.value.offset is not None and e.value.frame == 0
    if "ends inside" not in message:
        assert e.value.row == len(rows) - 1


def test_a_jelly_rdf_stream_is_not_taken_for_a_patch():
    data = jelly.serialize([(I("s"), I("p"), I("o"))])
    with pytest.raises(jelly.JellyDecodeError, match="is this a Jelly-RDF stream"):
        list(patch.parse(data))


def test_error_location_and_a_failed_reader_stays_failed():
    data = stream(frame(options(), name("n"), TX, TC, PUNCT),
                  frame(TX, PB.RdfPatchRow(header=PB.RdfPatchHeader(key="k"))))
    reader = PatchReader(data)
    it = iter(reader)
    assert [next(it) for _ in range(3)] == [TX_START, TX_COMMIT, END_OF_PATCH]
    with pytest.raises(jelly.JellyDecodeError) as e:
        list(it)
    first = len(stream(frame(options(), name("n"), TX, TC, PUNCT)))
    assert (e.value.frame, e.value.row) == (1, 1) and e.value.offset > first
    with pytest.raises(jelly.JellyDecodeError):
        list(reader.frames())


def test_strict_transactions_and_features():
    ok = stream(frame(options(), TX, TC, PUNCT))
    assert list(patch.parse(ok, strict=True)) == [TX_START, TX_COMMIT, END_OF_PATCH]
    for rows in ([TX, TX], [TC], [PB.RdfPatchRow(transaction_abort=PB.RdfPatchTransactionAbort())],
                 [TX, PUNCT]):
        data = stream(frame(options(), *rows, PUNCT))
        assert list(patch.parse(data))                          # lenient by default
        with pytest.raises(jelly.JellyDecodeError, match="transaction"):
            list(patch.parse(data, strict=True))
    with pytest.raises(jelly.JellyDecodeError, match="transaction"):
        list(patch.parse(stream(frame(options(stream_type=2), TX)), strict=True))
    star = add_row(s_triple_term=PB.RdfTriple(**SPO), p_bnode="b", o_bnode="c")
    data = stream(frame(options(), star, PUNCT))
    assert len(list(patch.parse(data))) == 2
    with pytest.raises(jelly.JellyDecodeError, match="rdf_star"):
        list(patch.parse(data, strict=True))


def test_namespace_without_graph_in_quads_repeats_or_is_the_default_graph():
    n = PB.RdfIri(name_id=1)
    data = stream(frame(
        options(statement=2), name("n"),
        PB.RdfPatchRow(namespace_add=PB.RdfPatchNamespace(name="a", value=n)),
        add_row(s_bnode="s", p_bnode="p", o_bnode="o", g_bnode="g"),
        PB.RdfPatchRow(namespace_delete=PB.RdfPatchNamespace(name="a")), PUNCT))
    assert list(patch.parse(data)) == [
        PrefixAdd("a", jelly.IRI("n"), jelly.DEFAULT_GRAPH),
        Add(jelly.BlankNode("s"), jelly.BlankNode("p"), jelly.BlankNode("o"),
            jelly.BlankNode("g")),
        PrefixDelete("a", None, jelly.BlankNode("g")), END_OF_PATCH]


def test_a_namespace_first_without_graph_is_the_graph_a_statement_repeats():
    """The default graph that a first namespace row without a graph is read as is the last
    graph, as a graph term of the row would be: a statement without one repeats it (and the
    upb oracle, leniently, reads the same)."""
    n = PB.RdfIri(name_id=1)
    data = stream(frame(
        options(statement=2), name("n"),
        PB.RdfPatchRow(namespace_add=PB.RdfPatchNamespace(name="a", value=n)),
        add_row(s_iri=n, p_iri=n, o_iri=n), PUNCT))
    ops = list(patch.parse(data))
    assert ops == [PrefixAdd("a", jelly.IRI("n"), jelly.DEFAULT_GRAPH),
                   Add(jelly.IRI("n"), jelly.IRI("n"), jelly.IRI("n"), jelly.DEFAULT_GRAPH),
                   END_OF_PATCH]
    assert rp.decode_full(data, strict=False).operations == neutral(ops)


def test_inputs_gzip_file_objects_and_pipes(tmp_path):
    ops = [Add(I("s"), I("p"), I(f"o{i}")) for i in range(3000)] + [END_OF_PATCH]
    data = patch.serialize(ops, rows_per_frame=100)
    path = tmp_path / "p.jellyp"
    path.write_bytes(gzip.compress(data))
    assert list(patch.parse(path)) == ops
    assert list(patch.parse(io.BytesIO(data))) == ops
    assert list(patch.parse(memoryview(data))) == ops
    # compressed bytes are decompressed as a compressed file is (zstd bytes were split as
    # they were, as frames, once)
    import zstandard
    assert list(patch.parse(gzip.compress(data))) == ops
    assert list(patch.parse(zstandard.ZstdCompressor().compress(data))) == ops
    code = ("import sys, jelly.patch as p\n"
            "print(sum(1 for _ in p.parse('-')), p.read_options(sys.argv[1]).stream_type)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], input=gzip.compress(data),
                         capture_output=True, check=True, cwd=tmp_path)
    assert out.stdout.split() == [b"3001", b"punctuated"]


def test_operation_fields_are_plain_read_only_members():
    """The fields are member descriptors (CPython's fast, specialized attribute load), still
    read-only, and each reads its own field."""
    cases = [(Add(1, 2, 3, 4), dict(s=1, p=2, o=3, g=4)),
             (Delete(5, 6, 7, 8), dict(s=5, p=6, o=7, g=8)),
             (PrefixAdd("x", 1, 2), dict(iri=1, graph=2)),
             (PrefixDelete("y", 3, 4), dict(iri=3, graph=4)), (Header("k", 9), dict(value=9))]
    for op, fields in cases:
        assert {n: getattr(op, n) for n in fields} == fields
        for n in fields:
            assert type(type(op).__dict__[n]).__name__ == "member_descriptor"
            with pytest.raises(AttributeError):
                setattr(op, n, 0)


def test_large_frames_are_read_in_pieces():
    ops = [Add(I("s"), I("p"), jelly.Literal(str(i))) for i in range(10000)] + [END_OF_PATCH]
    data = patch.serialize(ops, stream_type="frame")
    reader = PatchReader(data)
    chunks = list(reader._chunks())
    assert len(chunks) > 2 and [op for c in chunks for op in c] == ops


# ------------------------------------------------------------------------- shared examples

def _example_cases():
    files = sorted(EXAMPLES.glob("*.rdfp"))
    if not files:
        return [pytest.param(None, id="patch-examples-missing")]
    return [pytest.param(f, id=f.stem) for f in files]


@pytest.mark.parametrize("path", _example_cases())
def test_shared_examples_round_trip(path):
    """Each example of ../shared/patch-examples (read with jelly.rdfpatch) through every stream
    type and statement type that can hold it."""
    assert path is not None, f"no RDF Patch examples in {EXAMPLES}"
    from jelly import rdfpatch
    ops = list(rdfpatch.parse(path))
    assert ops and ops[-1] is END_OF_PATCH
    has_graphs = any(isinstance(op, (Add, Delete)) and op.g is not None or
                     isinstance(op, (PrefixAdd, PrefixDelete)) and op.graph is not None
                     for op in ops)
    for statement_type in (("quads",) if has_graphs else ("triples", "quads")):
        for stream_type in STREAM_TYPES:
            if stream_type == "flat" and END_OF_PATCH in ops[:-1]:
                continue
            data = patch.serialize(ops, stream_type=stream_type, statement_type=statement_type,
                                   rows_per_frame=16, preset="small")
            want = expected(neutral(ops), statement_type, stream_type)
            assert neutral(patch.parse(data)) == want, (statement_type, stream_type)
            assert oracle(data) == want
