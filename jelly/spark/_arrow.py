"""Arrow conversions between the core's columns and Spark's rows (no pyspark in this module).

Reading: the decoder writes each frame's terms straight into the buffers of Arrow arrays
(``output="arrow"``): with ``terms="nt"`` one :class:`jelly._ntformat.StringColumn` of
N-Triples strings per position, with ``terms="native"`` one
:class:`jelly._ntformat.TermColumns` (the four string columns of a term struct) per position.
They are joined in one copy per batch: no Python object per row.

Writing: each string column of a record batch is dictionary-encoded by Arrow (in C++); only the
distinct strings are parsed into jelly terms, and the column of terms is gathered from the
dictionary indices, so the encoder sees repeated terms as the same objects.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from .._ntformat import MAX_COLUMN_BYTES, StringColumn, TermColumns, term_to_nt
from .._ntriples import TermParser
from .._terms import BlankNode, IRI, Literal, Triple
from ..errors import JellyEncodeError

try:  # numpy makes the gather a vectorized take; without it, a C-level map does the same
    import numpy as _np
except ImportError:  # pragma: no cover - numpy comes with pyspark's Arrow support
    _np = None

#: Rows per Arrow batch when reading (frames are accumulated until a batch holds this many).
DEFAULT_BATCH_ROWS = 65536

#: Term layouts: N-Triples strings, or structs with the parts of a term.
LAYOUTS = ("nt", "struct")

#: Kinds of term in the struct layout.
KIND_IRI, KIND_BNODE, KIND_LITERAL, KIND_TRIPLE = "iri", "bnode", "literal", "triple"

POSITIONS = ("s", "p", "o", "g")


# ------------------------------------------------------------------------------- reading


def decoder_kwargs(layout: str) -> dict:
    """``terms`` and ``output`` of a decoder whose frames go into :func:`new_columns` of
    ``layout``: Arrow buffers of N-Triples strings or of term structs."""
    return {"terms": "nt" if layout == "nt" else "native", "output": "arrow"}


class _ArrowColumns:
    """Statement columns accumulated over frames decoded with ``output="arrow"``: each frame's
    :class:`StringColumn` s (N-Triples) or :class:`TermColumns` (term structs), joined into
    Arrow arrays once per batch."""

    __slots__ = ("column_type", "parts", "rows", "nbytes", "has_g")

    def __init__(self, layout: str) -> None:
        self.column_type = StringColumn if layout == "nt" else TermColumns
        self.parts: tuple[list, list, list, list] = ([], [], [], [])
        self.rows = 0
        self.nbytes = [0, 0, 0, 0]
        self.has_g = False

    def fits(self, frame) -> bool:
        """Whether ``frame`` can join the batch without a column passing what an Arrow string
        array holds."""
        return all(self.nbytes[i] + col.nbytes <= MAX_COLUMN_BYTES
                   for i, col in enumerate(frame.statements))

    def add(self, frame) -> None:
        columns = frame.statements
        n = len(columns[0])
        for i, col in enumerate(columns):
            self.parts[i].append(col)
            self.nbytes[i] += col.nbytes
        if len(columns) == 4:
            self.has_g = True
        else:
            self.parts[3].append(n)       # a TRIPLES frame: n default-graph nulls
        self.rows += n

    def arrays(self, types) -> list:
        join = self.column_type.concat
        arrays = [_array(join(part), typ) for part, typ in zip(self.parts[:3], types)]
        if not self.has_g:
            arrays.append(pa.nulls(self.rows, type=types[3]))
        else:
            g = []
            for part in self.parts[3]:
                if isinstance(part, int):
                    nulls = self.column_type()
                    nulls.add_nulls(part)
                    part = nulls
                g.append(part)
            arrays.append(_array(join(g), types[3]))
        return arrays


def _string_array(col: StringColumn, typ: pa.DataType) -> pa.Array:
    return pa.Array.from_buffers(typ, len(col), [None if b is None else pa.py_buffer(b)
                                                 for b in col.buffers()], col.null_count)


def _array(col, typ: pa.DataType) -> pa.Array:
    """The Arrow array of a joined column: a string array, or a struct of ``typ``'s fields
    (kind, value, datatype, language), null where the term is missing."""
    if isinstance(col, StringColumn):
        return _string_array(col, typ)
    fields = list(typ)
    children = [_string_array(c, f.type) for c, f in zip(col.fields, fields)]
    mask = children[0].is_null() if col.kind.null_count else None
    return pa.StructArray.from_arrays(children, fields=fields, mask=mask)


def new_columns(layout: str):
    """Columns to accumulate frames of a decoder made with :func:`decoder_kwargs`."""
    return _ArrowColumns(layout)


def batched(items, layout: str, batch_rows: int = DEFAULT_BATCH_ROWS, frame=None):
    """``items`` (frames decoded as :func:`decoder_kwargs` says, or anything ``frame(item)``
    turns into one) grouped for record batches: ``(columns, items)`` pairs, the columns
    (:func:`new_columns`) holding the statements of those items' frames.  A group ends once it
    holds ``batch_rows`` statements, or before a frame that would take a column past what an
    Arrow string array holds."""
    cols, group = new_columns(layout), []
    for item in items:
        f = item if frame is None else frame(item)
        if group and not cols.fits(f):
            yield cols, group
            cols, group = new_columns(layout), []
        cols.add(f)
        group.append(item)
        if cols.rows >= batch_rows:
            yield cols, group
            cols, group = new_columns(layout), []
    if group:
        yield cols, group


def statement_batches(frames, schema: pa.Schema, layout: str = "nt",
                      batch_rows: int = DEFAULT_BATCH_ROWS, path: str | None = None):
    """Record batches of ``schema`` (``s, p, o, g`` [, ``path``]) from frames decoded as
    :func:`decoder_kwargs` says, about ``batch_rows`` rows each; no batch for an input
    without statements."""
    types = [schema.field(name).type for name in POSITIONS]
    for cols, _ in batched(frames, layout, batch_rows):
        if not cols.rows:
            continue
        arrays = cols.arrays(types)
        if "path" in schema.names:
            arrays.append(pa.array([path] * cols.rows, type=schema.field("path").type))
        yield pa.RecordBatch.from_arrays(arrays, schema=schema)


def frame_batches(frames, schema: pa.Schema, layout: str = "nt",
                  batch_rows: int = DEFAULT_BATCH_ROWS, path: str | None = None):
    """Record batches of ``schema`` (``frame``, ``statements``, ``metadata`` [, ``path``]):
    one row per frame, frames accumulated until a batch holds about ``batch_rows``
    statements."""
    list_type = schema.field("statements").type
    struct_type = list_type.value_type
    types = [struct_type.field(name).type for name in POSITIONS]
    map_type = schema.field("metadata").type
    for cols, group in batched(frames, layout, batch_rows):
        offsets, moffsets, mkeys, mvalues = [0], [0], [], []
        for f in group:
            offsets.append(offsets[-1] + len(f.statements[0]))
            mkeys.extend(f.metadata)
            mvalues.extend(f.metadata.values())
            moffsets.append(len(mkeys))
        values = pa.StructArray.from_arrays(cols.arrays(types), fields=list(struct_type))
        statements = pa.ListArray.from_arrays(pa.array(offsets, type=pa.int32()), values,
                                              type=list_type)
        metadata = pa.MapArray.from_arrays(pa.array(moffsets, type=pa.int32()),
                                           pa.array(mkeys, type=map_type.key_type),
                                           pa.array(mvalues, type=map_type.item_type),
                                           type=map_type)
        arrays = [pa.array([f.index for f in group], type=schema.field("frame").type),
                  statements, metadata]
        if "path" in schema.names:
            arrays.append(pa.array([path] * len(group), type=schema.field("path").type))
        yield pa.RecordBatch.from_arrays(arrays, schema=schema)


# ------------------------------------------------------------------------------- writing


def _gather(terms: list, indices: pa.Array) -> list:
    """``[terms[i] for i in indices]`` without a Python loop; null indices give ``None``."""
    if indices.null_count:
        terms = terms + [None]
        indices = pc.fill_null(indices, len(terms) - 1)
    if _np is not None:
        table = _np.empty(len(terms), dtype=object)
        table[:] = terms
        return table[indices.to_numpy(zero_copy_only=False)].tolist()
    return list(map(terms.__getitem__, indices.to_pylist()))


class TermConverter:
    """Turns Arrow columns of terms (N-Triples strings or term structs) into lists of jelly
    terms for the encoder.  Keeps a bounded cache of parsed strings across batches."""

    CACHE_LIMIT = 1 << 17

    def __init__(self) -> None:
        self._parse = TermParser().parse
        self._cache: dict = {}

    def column(self, arr, what: str = "term") -> list:
        """A list of jelly terms (``None`` for nulls) for a string or struct array."""
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        if pa.types.is_struct(arr.type):
            return self._structs(arr, what)
        if pa.types.is_dictionary(arr.type):
            encoded = arr
        else:
            if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
                raise JellyEncodeError(f"{what} column must hold strings (N-Triples terms) or "
                                       f"term structs, not {arr.type}")
            encoded = pc.dictionary_encode(arr)
        distinct = encoded.dictionary.to_pylist()
        cache = self._cache
        if len(cache) > self.CACHE_LIMIT:
            cache.clear()
        parse = self._parse
        terms = []
        for text in distinct:
            term = cache.get(text)
            if term is None:
                try:
                    term = parse(text)
                except ValueError as exc:
                    raise JellyEncodeError(f"{what} {text!r} is not an N-Triples term: "
                                           f"{exc}") from None
                cache[text] = term
            terms.append(term)
        return _gather(terms, encoded.indices)

    def _checked(self, text: str, what: str):
        """The term of the N-Triples ``text`` built from a struct's IRI: the rules N-Triples
        strings meet (an absolute IRI), so that what is written reads back as N-Triples too."""
        try:
            return self._parse(text)
        except ValueError as exc:
            raise JellyEncodeError(f"{what} struct {text!r} is not valid N-Triples: "
                                   f"{exc}") from None

    def _structs(self, arr: pa.StructArray, what: str) -> list:
        names = arr.type.names
        if "kind" not in names or "value" not in names:
            raise JellyEncodeError(f"{what} structs need fields kind and value (and optional "
                                   f"datatype, language)")
        n = len(arr)
        kinds = arr.field("kind").to_pylist()
        values = arr.field("value").to_pylist()
        datatypes = arr.field("datatype").to_pylist() if "datatype" in names else [None] * n
        languages = arr.field("language").to_pylist() if "language" in names else [None] * n
        valid = arr.is_valid().to_pylist() if arr.null_count else None
        memo = self._cache
        out = []
        for i in range(n):
            if valid is not None and not valid[i]:
                out.append(None)
                continue
            key = (kinds[i], values[i], datatypes[i], languages[i])
            term = memo.get(key)
            if term is None:
                term = self._make(key, what)
                memo[key] = term
            out.append(term)
        if len(memo) > self.CACHE_LIMIT:
            memo.clear()
        return out

    def _make(self, key, what):
        kind, value, datatype, language = key
        if kind is None and value is None:
            return None
        if value is None:
            raise JellyEncodeError(f"{what} struct of kind {kind!r} has no value")
        if kind == KIND_IRI:
            # spelled as N-Triples spells it: what an IRI may hold only escaped (a space, '>')
            # a struct's IRI may hold too, as one read from N-Triples may
            return self._checked(term_to_nt(IRI(value)), what)
        if kind == KIND_LITERAL:
            # Checked as N-Triples checks them: what is written reads back as N-Triples.
            lang = None
            if language:
                try:
                    lang = self._parse(f'""@{language}').language
                except ValueError:
                    raise JellyEncodeError(f"{what} literal {value!r} has an invalid language "
                                           f"tag {language!r}") from None
                if datatype and datatype not in _LANG_DATATYPES:
                    raise JellyEncodeError(f"{what} literal {value!r} has a datatype and a "
                                           f"language tag; a literal has one or the other")
            dt = self._checked(term_to_nt(IRI(datatype)), what) if datatype and not lang else None
            try:
                return Literal(value, language=lang, datatype=dt)
            except ValueError as exc:       # rdf:langString without a language
                raise JellyEncodeError(f"{what} literal {value!r}: {exc}") from None
        if kind == KIND_BNODE:
            return BlankNode(value)
        if kind == KIND_TRIPLE:
            try:
                term = self._parse(value)
            except ValueError as exc:
                raise JellyEncodeError(f"{what} {value!r} is not a quoted triple: {exc}") from None
            if type(term) is not Triple:
                raise JellyEncodeError(f"{what} of kind 'triple' holds {value!r}")
            return term
        raise JellyEncodeError(f"{what} struct has unknown kind {kind!r} (iri, bnode, literal "
                               f"or triple)")


#: The datatypes a literal with a language tag has: given with the tag, they say it twice.
_LANG_DATATYPES = frozenset(("http://www.w3.org/1999/02/22-rdf-syntax-ns#langString",
                             "http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString"))
def _check_no_nulls(arr, what: str) -> None:
    if arr.null_count:
        raise JellyEncodeError(f"column {what} holds nulls; only g may be null (default graph)")


def batch_statements(batch, conv: TermConverter, with_graph: bool, names=POSITIONS):
    """Statement tuples of a record batch with columns ``s, p, o`` [and ``g``]: an iterator of
    ``(s, p, o)`` or, when ``with_graph``, ``(s, p, o, g)`` (``g`` None: default graph).

    When not ``with_graph``, a ``g`` column that holds a graph name is an error (a TRIPLES
    stream cannot hold it), rather than dropping the graph silently.
    """
    cols = []
    for name in names[:3]:
        arr = batch.column(name)
        _check_no_nulls(arr, name)
        cols.append(conv.column(arr, name))
    has_g = len(names) > 3 and names[3] in batch.schema.names
    if with_graph:
        if has_g:
            cols.append(conv.column(batch.column(names[3]), names[3]))
            return zip(*cols)
        return zip(*cols, _nones(batch.num_rows))
    if has_g:
        g = batch.column(names[3])
        if g.null_count != len(g):
            raise JellyEncodeError("the g column names graphs, but the stream is TRIPLES: set "
                                   "physicalType to quads or graphs, or drop g")
    return zip(*cols)


def _nones(n):
    return [None] * n


def frames_of_batch(batch, conv: TermConverter, with_graph: bool):
    """For a batch with a ``statements`` column (list of statement structs) and an optional
    ``metadata`` map column: yields ``(statements, metadata)`` per row, statements as tuples."""
    lists = batch.column("statements")
    if isinstance(lists, pa.ChunkedArray):
        lists = lists.combine_chunks()
    if lists.null_count:
        raise JellyEncodeError("the statements column holds nulls")
    offsets = lists.offsets.to_pylist()
    start = offsets[0]
    values = lists.values.slice(start, offsets[-1] - start)
    if not pa.types.is_struct(values.type) or not {"s", "p", "o"} <= set(values.type.names):
        raise JellyEncodeError("statements must be a list of structs with fields s, p, o [, g]")
    flat = pa.RecordBatch.from_arrays([values.field(n) for n in values.type.names],
                                      names=values.type.names)
    statements = list(batch_statements(flat, conv, with_graph))
    metas = None
    if "metadata" in batch.schema.names:
        metas = batch.column("metadata").to_pylist()
    for i in range(len(offsets) - 1):
        part = statements[offsets[i] - start:offsets[i + 1] - start]
        meta = None
        if metas is not None and metas[i]:
            meta = {k: v for k, v in metas[i]}
        yield part, meta


# ------------------------------------------------------------------------------- column helpers


def list_of_statements(frames, list_type: pa.DataType, layout: str) -> pa.ListArray:
    """A list array with one entry per element of ``frames`` (a frame decoded as
    :func:`decoder_kwargs` says, or None for a null entry): the frame's statements as structs
    of ``list_type``'s value type."""
    struct_type = list_type.value_type
    cols = new_columns(layout)
    offsets = [0]
    nulls = []
    for frame in frames:
        if frame is None:
            nulls.append(True)
        else:
            nulls.append(False)
            cols.add(frame)
        offsets.append(cols.rows)
    children = cols.arrays([f.type for f in struct_type])
    values = pa.StructArray.from_arrays(children, fields=list(struct_type))
    mask = pa.array(nulls, type=pa.bool_()) if any(nulls) else None
    return pa.ListArray.from_arrays(pa.array(offsets, type=pa.int32()), values, type=list_type,
                                    mask=mask)
