"""Column helpers: Jelly frames in a binary column (e.g. Kafka message values) to statement rows,
and statement rows to frames.

Self-contained frames (each with its own options row and lookup entries: what
:func:`encode_frames` writes by default, and what one-frame-per-message producers send) decode
independently: :func:`decode_frames` and :func:`frame_statements` use a fresh decoder per value.
Frames of one stream that share lookups across frames must be decoded in order with one
decoder: :func:`decode_stream` groups the rows by a stream key and orders them by an offset.
"""

from __future__ import annotations

import uuid
from typing import Sequence, Union

import pyarrow as pa
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, BinaryType, LongType, StringType, StructField, StructType

from .._decoder import Decoder
from .._encoder import Encoder
from ..errors import JellyError, JellyOptionsError
from ..options import PhysicalStreamType
from ..writer import serialize
from . import _arrow
from ._options import WriteOptions, parse_layout
from .datasource import (_input_layout, arrow_schema, statement_type, stream_options)

Columns = Union[str, Sequence[str], None]


def _names(cols: Columns) -> list[str]:
    if cols is None:
        return []
    if isinstance(cols, str):
        return [cols]
    return list(cols)


def stream_decoder(terms: str = "nt", *, limits=None, strict: bool = False) -> Decoder:
    """A decoder for the frames of one stream, fed in order with ``decode_frame(bytes)``; each
    returned frame's ``statements`` are columns ``(s, p, o[, g])`` of N-Triples strings
    (``terms="nt"``) or of jelly terms (``terms="native"``).  One per stream: it keeps the
    lookup tables that later frames refer to."""
    return Decoder(limits=limits, strict=strict, terms="nt" if terms == "nt" else "native",
                   output="columns")


def _decoded_schema(df: DataFrame, keep: list[str], layout: str) -> StructType:
    fields = [df.schema[name] for name in keep]
    for name in keep:
        if name in ("s", "p", "o", "g"):
            raise JellyOptionsError(f"column {name} would clash with the decoded statements; "
                                    f"rename it or leave it out of keep")
    return StructType(fields + list(statement_type(layout).fields))


def _check_binary(df: DataFrame, column: str) -> None:
    if column not in df.columns:
        raise JellyOptionsError(f"no column {column!r} (columns: {', '.join(df.columns)})")
    if not isinstance(df.schema[column].dataType, BinaryType):
        raise JellyOptionsError(f"column {column} must be binary (one Jelly frame per value), "
                                f"not {df.schema[column].dataType.simpleString()}")


def _check_batch_rows(batch_rows: int) -> None:
    if batch_rows < 1:
        raise JellyOptionsError(f"batch_rows must be at least 1, not {batch_rows}")


def _emit(batch, keep, indices, cols, schema):
    fields = [schema.field(name) for name in ("s", "p", "o", "g")]
    arrays = [batch.column(name).take(pa.array(indices, type=pa.int64())) for name in keep]
    arrays += cols.arrays([f.type for f in fields])
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _statement_batches(batch, values, decode, keep, schema, layout, batch_rows):
    """Arrow batches of the statements of the frames in ``values`` (the binary column of
    ``batch``; ``decode(i, data)`` decodes the i-th as columns), each statement row with the
    ``keep`` columns of its frame's row."""
    decoded = ((i, decode(i, bytes(data))) for i, data in enumerate(values) if data is not None)
    for cols, group in _arrow.batched(decoded, layout, batch_rows, frame=lambda item: item[1]):
        if cols.rows:
            indices = [i for i, frame in group for _ in range(len(frame.statements[0]))]
            yield _emit(batch, keep, indices, cols, schema)


def decode_frames(df: DataFrame, column: str = "value", *, terms: str = "nt",
                  keep: Columns = None, batch_rows: int = _arrow.DEFAULT_BATCH_ROWS,
                  limits=None, strict: bool = False) -> DataFrame:
    """One row per statement of the self-contained frames in the binary ``column``.

    The columns in ``keep`` (default: every column but ``column``) are repeated on each
    statement row of their frame, followed by ``s, p, o, g`` (``terms="nt"``: N-Triples strings;
    ``"struct"``: term structs).  Null values give no rows.  Works on streaming DataFrames too.
    """
    _check_binary(df, column)
    _check_batch_rows(batch_rows)
    layout = parse_layout(terms)
    keep = [c for c in df.columns if c != column] if keep is None else _names(keep)
    schema = _decoded_schema(df, keep, layout)
    decoder_kwargs = _arrow.decoder_kwargs(layout)

    def decode_one(i, data):
        return Decoder(limits=limits, strict=strict, **decoder_kwargs).decode_frame(data)

    def decode(batches):
        out_schema = arrow_schema(schema)
        for batch in batches:
            yield from _statement_batches(batch, batch.column(column).to_pylist(), decode_one,
                                          keep, out_schema, layout, batch_rows)

    return df.mapInArrow(decode, schema)


def decode_stream(df: DataFrame, key: Columns, order: Columns, column: str = "value", *,
                  terms: str = "nt", keep: Columns = None, num_partitions: int | None = None,
                  batch_rows: int = _arrow.DEFAULT_BATCH_ROWS, limits=None,
                  strict: bool = False) -> DataFrame:
    """One row per statement of streams whose frames share lookups across frames.

    Rows are grouped by ``key`` (the stream: e.g. a Kafka message key, or ``topic`` and
    ``partition``) and ordered by ``order`` (e.g. ``offset``); each stream's frames go through
    one decoder in that order.  A stream must hold all its frames from the first one (the one
    with the stream options) on.  Memory per task is bounded: rows are shuffled by key and
    sorted within partitions, then decoded as they stream by.  Batch DataFrames only (a
    streaming query cannot sort).  Output: ``keep`` (default: every column but ``column``) and
    ``s, p, o, g``.  A frame given twice (at-least-once delivery) breaks its stream's state:
    drop duplicates by key and order first.
    """
    _check_binary(df, column)
    _check_batch_rows(batch_rows)
    layout = parse_layout(terms)
    key_cols, order_cols = _names(key), _names(order)
    if not key_cols or not order_cols:
        raise JellyOptionsError("decode_stream needs a key (the stream) and an order (e.g. the "
                                "offset) column")
    keep = [c for c in df.columns if c != column] if keep is None else _names(keep)
    schema = _decoded_schema(df, keep, layout)
    decoder_kwargs = _arrow.decoder_kwargs(layout)
    shuffled = (df.repartition(num_partitions, *key_cols) if num_partitions
                else df.repartition(*key_cols))
    ordered = shuffled.sortWithinPartitions(*key_cols, *order_cols)

    def decode(batches):
        out_schema = arrow_schema(schema)
        state = {"key": object(), "decoder": None}   # the stream being decoded

        for batch in batches:
            keys = list(zip(*(batch.column(k).to_pylist() for k in key_cols)))

            def decode_one(i, data):
                if keys[i] != state["key"]:
                    state["key"] = keys[i]
                    state["decoder"] = Decoder(limits=limits, strict=strict,
                                               **decoder_kwargs)
                try:
                    return state["decoder"].decode_frame(data)
                except JellyError as exc:
                    raise type(exc)(f"stream {state['key']!r}: {exc.message}",
                                    offset=exc.offset, frame=exc.frame, row=exc.row) from None

            yield from _statement_batches(batch, batch.column(column).to_pylist(), decode_one,
                                          keep, out_schema, layout, batch_rows)

    return ordered.mapInArrow(decode, schema)


def frame_statements(col: Union[Column, str], terms: str = "nt") -> Column:
    """A column expression: the statements of the self-contained frame in binary column
    ``col``, as an array of ``struct<s, p, o, g>`` (null for a null frame).  Use with
    ``F.inline(...)`` or ``F.explode(...)``:
    ``df.select("key", F.inline(frame_statements("value")))``.  Needs PySpark 4.1+."""
    from pyspark.sql.functions import arrow_udf
    layout = parse_layout(terms)
    return_type = ArrayType(statement_type(layout), False)
    decoder_kwargs = _arrow.decoder_kwargs(layout)

    def decode(values: pa.Array) -> pa.Array:
        from pyspark.sql.pandas.types import to_arrow_type
        list_type = to_arrow_type(return_type)
        frames = []
        for data in values.to_pylist():
            if data is None:
                frames.append(None)
            else:
                frames.append(Decoder(**decoder_kwargs).decode_frame(bytes(data)))
        return _arrow.list_of_statements(frames, list_type, layout)

    udf = arrow_udf(decode, return_type)
    return udf(F.col(col) if isinstance(col, str) else col)


def encode_frames(df: DataFrame, *, group_by: Columns = None, order_by: Columns = None,
                  rows_per_frame: int = 1024, self_contained: bool = True,
                  **options) -> DataFrame:
    """Jelly frames (a binary column ``frame``) from statement rows.

    - A DataFrame with a ``statements`` array column (as read with ``rows=frames``): one frame
      per row, with the row's ``metadata`` if there is that column; the other columns are kept
      (an index column ``frame`` is replaced by the frame's bytes).
    - ``group_by`` given: one frame per group (e.g. one RDF message per key), ordered within the
      group by ``order_by`` if given; output: the group columns and ``frame``.
    - Otherwise each partition's rows are cut into frames of ``rows_per_frame`` statements.
      With ``self_contained=False`` the frames of a partition form one stream sharing lookups:
      output ``stream`` (an id per partition), ``seq`` (0, 1, ...) and ``frame``, which
      :func:`decode_stream` (``key="stream", order="seq"``) reads back.

    Self-contained frames (the default) each start with the stream options and decode on their
    own, as Kafka consumers need.  Input terms are N-Triples strings or term structs; the
    writer ``options`` are those of the data source (``physicalType``, ``preset``, ``rdfStar``,
    ``maxNameTableSize``, ...; Python-style names work too).
    """
    opts = WriteOptions(options)
    if opts.compression:
        raise JellyOptionsError("compression applies to files, not to frames")
    layout, has_graph = _input_layout(df.schema)
    group_cols, order_cols = _names(group_by), _names(order_by)
    grouped = layout == "frames" or bool(group_cols)
    stream_opts, _ = stream_options(opts.writer_kwargs, has_graph, grouped)
    rows_per_frame = int(opts.writer_kwargs.get("rows_per_frame", rows_per_frame))
    if rows_per_frame < 1:
        raise JellyOptionsError("rows_per_frame must be at least 1")
    with_graph = stream_opts.physical_type != PhysicalStreamType.TRIPLES

    def one_frame(statements, metadata=None):
        if metadata:
            from ..writer import Writer
            w = Writer(None, stream_opts, delimited=False)
            w.write_frame(statements, metadata)
            w.close()
            return w.getvalue()
        return serialize(statements, None, stream_opts, delimited=False)

    if layout == "frames":
        if group_cols or not self_contained:
            raise JellyOptionsError("a DataFrame of frames (statements arrays) is encoded one "
                                    "frame per row: no group_by, self_contained only")
        keep = [c for c in df.columns if c not in ("statements", "metadata", "frame")]
        schema = StructType([df.schema[c] for c in keep]
                            + [StructField("frame", BinaryType(), False)])

        def per_row(batches):
            out_schema = arrow_schema(schema)
            conv = _arrow.TermConverter()
            for batch in batches:
                data = [one_frame(st, meta)
                        for st, meta in _arrow.frames_of_batch(batch, conv, with_graph)]
                arrays = [batch.column(c) for c in keep] + [pa.array(data, type=pa.binary())]
                yield pa.RecordBatch.from_arrays(arrays, schema=out_schema)

        return df.mapInArrow(per_row, schema)

    if group_cols:
        schema = StructType([df.schema[c] for c in group_cols]
                            + [StructField("frame", BinaryType(), False)])
        ordered = df.repartition(*group_cols).sortWithinPartitions(*group_cols, *order_cols)

        def per_group(batches):
            out_schema = arrow_schema(schema)
            conv = _arrow.TermConverter()
            current, pending = None, []
            keys_out, frames_out = [], []
            for batch in batches:
                keys = list(zip(*(batch.column(k).to_pylist() for k in group_cols)))
                statements = list(_arrow.batch_statements(batch, conv, with_graph))
                for k, st in zip(keys, statements):
                    if pending and k != current:
                        keys_out.append(current)
                        frames_out.append(one_frame(pending))
                        pending = []
                    current = k
                    pending.append(st)
                if len(frames_out) >= 1024:
                    yield _group_batch(keys_out, frames_out, out_schema)
                    keys_out, frames_out = [], []
            if pending:
                keys_out.append(current)
                frames_out.append(one_frame(pending))
            if frames_out:
                yield _group_batch(keys_out, frames_out, out_schema)

        return ordered.mapInArrow(per_group, schema)

    if self_contained:
        schema = StructType([StructField("frame", BinaryType(), False)])

        def chunks(batches):
            out_schema = arrow_schema(schema)
            conv = _arrow.TermConverter()
            pending = []
            for batch in batches:
                pending.extend(_arrow.batch_statements(batch, conv, with_graph))
                if len(pending) >= rows_per_frame:
                    cut = len(pending) - len(pending) % rows_per_frame
                    data = [one_frame(pending[i:i + rows_per_frame])
                            for i in range(0, cut, rows_per_frame)]
                    pending = pending[cut:]
                    yield pa.RecordBatch.from_arrays([pa.array(data, type=pa.binary())],
                                                     schema=out_schema)
            if pending:
                yield pa.RecordBatch.from_arrays([pa.array([one_frame(pending)],
                                                           type=pa.binary())], schema=out_schema)

        return df.mapInArrow(chunks, schema)

    schema = StructType([StructField("stream", StringType(), False),
                         StructField("seq", LongType(), False),
                         StructField("frame", BinaryType(), False)])
    job = uuid.uuid4().hex[:12]

    def shared(batches):
        from pyspark import TaskContext
        out_schema = arrow_schema(schema)
        ctx = TaskContext.get()
        stream = f"{job}-{ctx.partitionId() if ctx is not None else 0}"
        conv = _arrow.TermConverter()
        encoder = Encoder(stream_opts)
        seq = 0
        for batch in batches:
            frames = []
            it = iter(_arrow.batch_statements(batch, conv, with_graph))
            while not encoder.add_statements(it, rows_per_frame):
                frames.append(encoder.take_frame())
            if encoder.rows >= rows_per_frame:
                frames.append(encoder.take_frame())
            if frames:
                yield _stream_batch(stream, seq, frames, out_schema)
                seq += len(frames)
        encoder.end_graph()
        if encoder.pending:
            yield _stream_batch(stream, seq, [encoder.take_frame()], out_schema)

    return df.mapInArrow(shared, schema)


def _group_batch(keys, frames, schema):
    columns = list(zip(*keys))
    arrays = [pa.array(list(col), type=schema.field(i).type) for i, col in enumerate(columns)]
    arrays.append(pa.array(frames, type=pa.binary()))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _stream_batch(stream, seq, frames, schema):
    n = len(frames)
    return pa.RecordBatch.from_arrays([
        pa.array([stream] * n, type=pa.string()),
        pa.array(range(seq, seq + n), type=pa.int64()),
        pa.array(frames, type=pa.binary()),
    ], schema=schema)
