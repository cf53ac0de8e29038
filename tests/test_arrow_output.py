"""``output="arrow"``: each frame's terms written by the decoder straight into the buffers of
Arrow arrays: N-Triples strings (``terms="nt"``, ``jelly._ntformat.StringColumn``) or the four
string columns of term structs (``terms="native"``, ``jelly._ntformat.TermColumns``).  The
oracle is pyarrow building the same arrays from the terms of ``output="columns"``
(``pa.array``; term structs by ``helpers.term_struct``), so the offsets, the UTF-8 data, the
validity bitmaps and their joins are all checked against Arrow's own construction."""

from __future__ import annotations

import io
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jelly
import strategies
from helpers import term_struct
from jelly._ntformat import StringColumn, TermColumns


def arrow_of(col: StringColumn) -> pa.Array:
    buffers = [None if b is None else pa.py_buffer(b) for b in col.buffers()]
    arr = pa.Array.from_buffers(pa.string(), len(col), buffers, col.null_count)
    arr.validate(full=True)          # offsets in order and inside the data, valid UTF-8
    return arr


def frames_of(data: bytes, output: str, terms: str = "nt") -> list:
    return [f.statements for f in jelly.parse_frames(data, terms=terms, output=output)]


def frames_or_error(data: bytes, output: str, terms: str = "nt"):
    try:
        return frames_of(data, output, terms)
    except jelly.JellyError as exc:      # a term N-Triples cannot hold (a bad language tag)
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(strategies.scenario(max_statements=60))
def test_arrow_output_holds_the_strings_of_column_output(sc):
    data = strategies.delimited_stream(sc)
    want, got = frames_or_error(data, "columns"), frames_or_error(data, "arrow")
    if isinstance(want, str):
        assert got == want
        return
    assert len(got) == len(want)
    for w, g in zip(want, got):
        assert len(g) == len(w)                      # 3 columns for TRIPLES, else 4
        for wcol, gcol in zip(w, g):
            assert arrow_of(gcol).equals(pa.array(wcol, type=pa.string()))
    # A batch of all frames, joined in one copy, is the whole column in order (lent columns
    # are read, not grown, by a join).
    for i in range(len(want[0]) if want else 0):
        joined = StringColumn.concat([g[i] for g in got])
        assert arrow_of(joined).equals(
            pa.array([v for w in want for v in w[i]], type=pa.string()))


def struct_arrays(col: TermColumns) -> list:
    """The four arrays of a term-struct column, each checked by Arrow."""
    return [arrow_of(c) for c in col.fields]


def want_structs(terms: list) -> list:
    """The four lists Arrow should hold for these jelly terms (``helpers.term_struct``; the
    default graph or None: null in all four)."""
    rows = [term_struct(None if t == jelly.DEFAULT_GRAPH else t) or (None,) * 4 for t in terms]
    return [pa.array([r[i] for r in rows], type=pa.string()) for i in range(4)]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(strategies.scenario(max_statements=60))
def test_arrow_output_of_jelly_terms_holds_their_structs(sc):
    data = strategies.delimited_stream(sc)
    want = frames_or_error(data, "columns", "native")
    got = frames_or_error(data, "arrow", "native")
    if isinstance(want, str):
        assert got == want
        return
    if isinstance(got, str):    # a quoted triple's N-Triples text cannot hold a bad language tag
        assert got.startswith("JellyEncodeError: ")
        with pytest.raises(jelly.JellyEncodeError):
            [want_structs(col) for w in want for col in w]
        return
    assert len(got) == len(want)
    for w, g in zip(want, got):
        assert len(g) == len(w)
        for wcol, gcol in zip(w, g):
            assert struct_arrays(gcol) == want_structs(wcol)
            assert gcol.nbytes == max(c.nbytes for c in gcol.fields)
    for i in range(len(want[0]) if want else 0):
        joined = TermColumns.concat([g[i] for g in got])
        assert struct_arrays(joined) == want_structs([t for w in want for t in w[i]])


def graph_column(graphs: list) -> StringColumn:
    """The ``g`` column of a one-frame QUADS stream with these graph names (None: the default
    graph, a null)."""
    data = jelly.serialize(
        [(jelly.IRI("http://ex/s"), jelly.IRI("http://ex/p"), jelly.IRI("http://ex/o"),
          jelly.DEFAULT_GRAPH if g is None else jelly.IRI(f"http://ex/{g}")) for g in graphs],
        physical_type="quads", delimited=False)
    return jelly.Decoder(terms="nt", output="arrow").decode_frame(data).statements[3]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.one_of(st.none(), st.text("ab\u00e9\u20ac", max_size=4)),
                         max_size=19), max_size=6))
def test_concat_keeps_nulls_across_columns_of_any_length(pieces):
    # Columns of any length, so that most joins start inside a byte of the validity bitmap.
    joined = arrow_of(StringColumn.concat([graph_column(p) for p in pieces]))
    want = [None if g is None else f"<http://ex/{g}>" for p in pieces for g in p]
    assert joined.equals(pa.array(want, type=pa.string()))
    assert joined.null_count == want.count(None)


def test_nulls_added_to_strings():
    col = StringColumn.concat([graph_column(["a"]), StringColumn()])
    tail = StringColumn()
    tail.add_nulls(9)
    assert arrow_of(StringColumn.concat([col, tail, graph_column(["b", None])])).to_pylist() \
        == ["<http://ex/a>"] + [None] * 9 + ["<http://ex/b>", None]


def test_default_graph_is_null_and_graphs_are_strings():
    data = jelly.serialize([
        (jelly.IRI("http://ex/a"), jelly.IRI("http://ex/p"), jelly.Literal("é€😀", language="fr"),
         jelly.IRI("http://ex/g")),
        (jelly.IRI("http://ex/b"), jelly.IRI("http://ex/p"), jelly.BlankNode("x"),
         jelly.DEFAULT_GRAPH)])
    (frame,) = frames_of(data, "arrow")
    g = arrow_of(frame[3])
    assert g.to_pylist() == ["<http://ex/g>", None] and g.null_count == 1
    assert arrow_of(frame[2]).to_pylist() == ['"é€😀"@fr', "_:x"]


def test_lent_columns_do_not_grow_and_arrow_needs_nt_or_jelly_terms():
    col = StringColumn()
    col.add_nulls(2)
    views = col.buffers()
    assert views[1].readonly and len(views[1]) == 12            # three int32 offsets
    with pytest.raises(ValueError, match="lent"):
        col.add_nulls(1)
    class Terms:           # a term factory of the caller's own (wrapped in PyTerms)
        iri = bnode = datatype = str
        default_graph = None
        literal = triple = staticmethod(lambda *parts: parts)
    with pytest.raises(ValueError, match="terms='nt' or terms='native'"):
        jelly.Decoder(terms=Terms(), output="arrow")
    with pytest.raises(ValueError, match="frame by frame"):
        list(jelly.Reader(jelly.serialize([]), terms="nt", output="arrow"))


def _messages(k: int) -> tuple[bytes, list]:
    """Quads, one a frame (every third in the default graph, literals plain, typed or with a
    language), except frame ``k``, which holds three, its last one broken (invalid UTF-8 in
    its literal): (bytes, the statements of the frames before ``k``)."""
    I, L = jelly.IRI, jelly.Literal
    sts = [(I(f"http://ex/s{i % 11}"), I("http://ex/p"),
            L(str(i), language="en") if i % 4 == 0 else
            L(str(i), datatype=I("http://www.w3.org/2001/XMLSchema#int")) if i % 4 == 1 else
            L(f"v{i}"), jelly.DEFAULT_GRAPH if i % 3 == 0 else I(f"http://ex/g{i % 5}"))
           for i in range(k + 2)] + [(I("http://ex/s"), I("http://ex/p"), L("ZZZZ"),
                                      jelly.DEFAULT_GRAPH)]
    out = io.BytesIO()
    with jelly.Writer(out, physical_type="quads", rows_per_frame=10 ** 6) as w:
        for i, st in enumerate(sts):
            w.write(st)
            if i < k:
                w.flush_frame()
    data = out.getvalue()
    assert data.count(b"ZZZZ") == 1
    return data.replace(b"ZZZZ", b"\xff" * 4), sts[:k]


@pytest.mark.parametrize("terms", ["nt", "native"])
@pytest.mark.parametrize("k", [1, 2, 9, 300])
def test_runs_of_small_frames_end_at_the_frame_before_an_error(terms, k):
    """Frames decoded together into Arrow columns (``Reader._runs``, what the Spark data
    source reads): an error inside a frame comes after exactly the rows of the frames before
    it: the columns are cut back at the frame boundary, the rows the broken frame gave
    before its error taken out, nulls counted again."""
    data, before = _messages(k)
    got = []
    reader = jelly.Reader(data, terms=terms, output="arrow")
    with pytest.raises(jelly.JellyError, match="UTF-8"):
        for frame in reader._runs():
            got.append(frame.statements)
    with pytest.raises(jelly.JellyError, match="UTF-8"):
        next(reader._runs())
    assert len(got) < k or k == 1           # frames were decoded together
    want = [[st[i] for st in before] for i in range(4)]
    for i in range(4):
        if terms == "nt":
            joined = arrow_of(StringColumn.concat([g[i] for g in got]))
            assert joined.equals(pa.array([None if t == jelly.DEFAULT_GRAPH else str(t)
                                           for t in want[i]], type=pa.string()))
            assert joined.null_count == sum(t == jelly.DEFAULT_GRAPH for t in want[i])
        else:
            assert struct_arrays(TermColumns.concat([g[i] for g in got])) == \
                want_structs(want[i])
