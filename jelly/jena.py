"""Jena's RDF Binary: RDF Thrift and RDF Protobuf, graphs, datasets and SPARQL result sets.

Reading::

    for s, p, o, *g in jelly.jena.parse("data.rt"): ...          # format from the name
    with jelly.jena.Reader("data.rpb", format="protobuf") as r:   # or give it
        for statement in r: ...
        r.namespaces                                              # {prefix: namespace}
    results = jelly.jena.read_results("answers.srt")              # .variables, iterate rows

Writing::

    jelly.jena.serialize(statements, "out.rt", namespaces={"ex": "http://example.org/"})
    jelly.jena.write_results("answers.srp", ["s", "o"], rows)

Both encodings are read and written by the compiled core (``jelly._jena_thrift``,
``jelly._jena_proto`` on the term model of ``jelly._jena``), streaming: memory is bounded by the
largest row, not the input.  Statements come as ``(s, p, o)`` for triples in the default graph
and ``(s, p, o, g)`` for statements in named graphs (``quads=True``: always ``(s, p, o, g)``).
Value forms (``valInteger`` / ``valDouble`` / ``valDecimal``) are read into the canonical lexical
form of their XSD type and written only when asked (``values=True``, and only for literals
already in that canonical form, so nothing changes on the way).  The rest of the choices are
in ``docs/jena.md``.  This module also holds the format registry's sources and sinks for
:mod:`jelly.convert` and the report of ``jelly inspect``.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence

from ._jena import ROW_KINDS, decimal_lexical, double_lexical
from ._jena_proto import ProtoDecoder, ProtoEncoder
from ._jena_thrift import ThriftDecoder, ThriftEncoder
from .errors import JellyDecodeError, JellyError
from .io import (CHUNK_SIZE, READ_ERRORS, Destination, compression_of_name, in_place, open_input,
                 read_some)
from .options import DEFAULT_LIMITS, ReaderLimits

if TYPE_CHECKING:
    from .io import BinaryReader, BinaryWriter, Input, Output

__all__ = ["Reader", "Writer", "ResultReader", "parse", "serialize", "read_results",
           "write_results", "ROW_KINDS", "decimal_lexical", "double_lexical"]

#: Statements (or result rows) decoded at a time.
STATEMENT_CHUNK = 4096

_CODECS = {"thrift": (ThriftDecoder, ThriftEncoder), "protobuf": (ProtoDecoder, ProtoEncoder)}
_NAMES = {"thrift": "thrift", "rdf-thrift": "thrift", "rt": "thrift", "trdf": "thrift",
          "srt": "thrift", "protobuf": "protobuf", "rdf-protobuf": "protobuf",
          "proto": "protobuf", "rpb": "protobuf", "pbrdf": "protobuf", "srp": "protobuf"}
_SUFFIXES = {".rt": "thrift", ".trdf": "thrift", ".srt": "thrift", ".rpb": "protobuf",
             ".pbrdf": "protobuf", ".srp": "protobuf"}
LABELS = {"thrift": "RDF Thrift", "protobuf": "RDF Protobuf"}


def codec(format: str | None, source: object = None) -> str:
    """``"thrift"`` or ``"protobuf"`` from a format name, or from a path's suffix."""
    if format is None:
        if isinstance(source, (str, os.PathLike)):
            name = os.fspath(source).lower()
            compressed = compression_of_name(name)
            if compressed is not None:      # data.rt.gz, data.rpb.zst
                name = name[:name.rindex(".")]
            for suffix, value in _SUFFIXES.items():
                if name.endswith(suffix):
                    return value
        raise JellyError("name the format: format='thrift' or format='protobuf'")
    found = _NAMES.get(format.lower())
    if found is None:
        raise JellyError(f"unknown RDF Binary format {format!r}; use 'thrift' or 'protobuf'")
    return found


def _pieces(decoder: Any, source: Input, max_items: int,
            stack: contextlib.ExitStack) -> Iterator[None]:
    """Feed ``source`` to ``decoder``; yields whenever it has decoded something (or at the
    end), so the caller takes the results piece by piece."""
    view = in_place(source)
    if view is not None:
        pos = 0
        while True:
            pos = decoder.feed(view, pos, 0, True, max_items)
            yield None
            if pos >= len(view):
                return
    stream = stack.enter_context(open_input(source))
    buf = b""
    pos = offset = 0
    eof = False
    while True:
        pos = decoder.feed(buf, pos, offset, eof, max_items)
        yield None
        if decoder.need_more or pos >= len(buf):
            if eof:
                return
            # A row longer than what is buffered is read in growing pieces (no quadratic copy).
            try:
                data = read_some(stream, max(CHUNK_SIZE, len(buf) - pos))
            except READ_ERRORS as exc:
                raise JellyDecodeError(f"cannot read the input: {exc}",
                                       offset=offset + len(buf)) from None
            if data:
                offset += pos
                buf = buf[pos:] + data if pos < len(buf) else data
                pos = 0
            else:
                eof = True


class Frame:
    """A piece of an RDF Binary stream for the conversion library: statements, the prefixes
    declared before them, how many are in named graphs."""

    __slots__ = ("index", "statements", "namespaces", "metadata", "named_graph_statements",
                 "statement_count")
    #: As :attr:`jelly.Frame.frames`: a piece counts as one frame.
    frames = 1

    def __init__(self, index: int, statements: Any, namespaces: list[tuple[str, Any]],
                 named: int, count: int) -> None:
        self.index = index
        self.statements = statements        # a list, or with output="text" one bytes
        self.namespaces = namespaces
        self.metadata: dict[str, bytes] = {}
        self.named_graph_statements = named
        self.statement_count = count

    def __len__(self) -> int:
        return self.statement_count

    def __iter__(self) -> Iterator[Any]:
        return iter(self.statements)


class Reader:
    """An RDF Thrift or RDF Protobuf stream opened for reading.

    ``source``: a path, ``"-"``, bytes or a binary stream (gzip is recognised).  ``format``:
    ``"thrift"`` or ``"protobuf"`` (default: from the path's suffix: ``.rt`` / ``.trdf``,
    ``.rpb`` / ``.pbrdf``).  ``terms`` and ``output`` are those of :class:`jelly.Reader`
    (``output="columns"`` needs ``quads=True``).  ``quads=True`` gives every statement with its
    graph.  Prefix declarations are kept in :attr:`namespaces`; a base row (RDF Protobuf) in
    :attr:`base` (IRIs are not resolved against it, as in Jena).
    """

    _mode = "rdf"

    def __init__(self, source: Input, *, format: str | None = None,
                 limits: ReaderLimits | None = None, terms: Any = "native",
                 output: Any = "tuples", quads: bool = False) -> None:
        self.format = codec(format, source)
        self.limits = limits if limits is not None else DEFAULT_LIMITS
        decoder_cls = _CODECS[self.format][0]
        self._decoder = decoder_cls(mode=self._mode, limits=self.limits, terms=terms,
                                    output=output, quads=quads)
        self._source = source
        self._output = output
        self._stack = contextlib.ExitStack()
        self._feed: Iterator[None] | None = None
        self._error: JellyError | None = None

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stack.close()

    def _next(self, max_items: int) -> bool:
        """Decode the next piece; False at the end."""
        if self._error is not None:
            raise self._error
        if self._feed is None:
            self._feed = _pieces(self._decoder, self._source, max_items, self._stack)
        try:
            return next(self._feed, False) is None
        except JellyError as exc:
            self._error = exc
            raise

    def chunks(self, size: int = STATEMENT_CHUNK) -> Iterator[Any]:
        """The statements (or result rows) in pieces of about ``size``."""
        dec = self._decoder
        while self._next(size):
            if dec.pending:
                yield dec.take()

    def frames(self, size: int = STATEMENT_CHUNK) -> Iterator[Frame]:
        """The statements in :class:`Frame` pieces of about ``size``, each with the prefix
        declarations read before its statements."""
        dec = self._decoder
        index = 0
        more = True
        while more:
            try:
                more = self._next(size)
                while more and dec.pending < size:
                    more = self._next(size)
            except JellyError:
                if not dec.pending:
                    raise
                more = True     # the statements before the error first; the next call raises
            namespaces = dec.take_namespaces()
            if dec.pending or namespaces or (index == 0 and not more):
                named, count = dec.named_graph_statements, dec.pending
                yield Frame(index, dec.take(), namespaces, named, count)
                index += 1

    def __iter__(self) -> Iterator[Any]:
        """Every statement (or result row); outputs that are no statement each (``"text"``,
        ``"columns"``) are read with :meth:`chunks` or :meth:`frames`, as for
        :class:`jelly.Reader`."""
        if self._output in ("columns", "text"):
            raise ValueError(f"a reader with output={self._output!r} is read in pieces "
                             f"(chunks() or frames())")
        return itertools.chain.from_iterable(self.chunks())

    @property
    def namespaces(self) -> dict[str, str]:
        """Prefixes declared so far: ``{prefix: namespace}``."""
        return self._decoder.namespaces

    @property
    def base(self) -> str | None:
        """The IRI of the last base row read (RDF Protobuf), or None."""
        return self._decoder.base_iri

    @property
    def row_counts(self) -> dict[str, int]:
        """Rows read so far by kind (see :data:`ROW_KINDS`)."""
        return self._decoder.row_counts


class ResultReader(Reader):
    """A SPARQL result set in RDF Thrift or RDF Protobuf: :attr:`variables` (names without
    '?'), then rows: tuples of terms in the order of the variables, ``None`` where unbound."""

    _mode = "results"

    @property
    def variables(self) -> list[str]:
        """The result variables (read from the header on first use; [] for an empty input)."""
        dec = self._decoder
        while dec.variables is None:
            if not self._next(0):
                break
        return list(dec.variables or [])


def parse(source: Input, *, format: str | None = None, limits: ReaderLimits | None = None,
          terms: Any = "native", quads: bool = False) -> Iterator[tuple[Any, ...]]:
    """Iterate the statements of an RDF Thrift or RDF Protobuf stream (see :class:`Reader`)."""
    def run() -> Iterator[Any]:
        with Reader(source, format=format, limits=limits, terms=terms, quads=quads) as reader:
            yield from reader.chunks()
    return itertools.chain.from_iterable(run())


def read_results(source: Input, *, format: str | None = None,
                 limits: ReaderLimits | None = None, terms: Any = "native") -> ResultReader:
    """A result set reader (``.srt``: RDF Thrift, ``.srp``: RDF Protobuf); close it (or use it
    in a ``with``) when it was given a path."""
    return ResultReader(source, format=format, limits=limits, terms=terms)


class Writer(Destination):
    """An RDF Thrift or RDF Protobuf stream opened for writing.

    ``destination``: a path (written atomically; ``.gz`` compresses), ``"-"``, a binary stream,
    or None to collect the bytes (:meth:`getvalue`).  ``values=True`` writes numeric literals
    in canonical form as value forms; ``prefix_names=True`` writes IRIs in declared namespaces
    as prefixed names (Jena's RDF Thrift writer does); ``repeat=True`` writes REPEAT for a term
    equal to the previous row's in the same position (Jena cannot read it).  ``term_adapter``
    turns other libraries' terms into jelly terms (see :class:`jelly.Writer`).
    """

    def __init__(self, destination: Output | None = None, *, format: str | None = None,
                 namespaces: Mapping[str, object] | None = None, values: bool = False,
                 prefix_names: bool = False, repeat: bool = False, base: str | None = None,
                 term_adapter: Any = None) -> None:
        self.format = codec(format, destination)
        self._encoder = _CODECS[self.format][1](values=values, repeat=repeat,
                                                prefix_names=prefix_names,
                                                term_adapter=term_adapter)
        super().__init__(destination)
        try:
            if base is not None:
                self._encoder.write_base(base)
            for prefix, iri in (namespaces or {}).items():
                self._encoder.declare_prefix(prefix, iri)
        except BaseException:
            self.abort()
            raise

    def _drain(self) -> None:
        if self._encoder.size >= CHUNK_SIZE:
            self._stream.write(self._encoder.take())

    def declare_namespace(self, prefix: str, iri: object) -> None:
        """Write a prefix declaration."""
        self._check_open()
        self._encoder.declare_prefix(prefix, iri)

    def write(self, statement: Sequence[Any]) -> None:
        """Write ``(s, p, o)`` or ``(s, p, o, g)``."""
        self._check_open()
        self._encoder.add(statement)
        self._drain()

    def write_all(self, statements: Iterable[Sequence[Any]]) -> None:
        """Write many statements."""
        self._check_open()
        it = iter(statements)
        while not self._encoder.add_statements(it, CHUNK_SIZE):
            self._stream.write(self._encoder.take())
        self._drain()

    def write_variables(self, names: Iterable[str]) -> None:
        """Start a result set: its variable names (without '?')."""
        self._check_open()
        self._encoder.write_variables(names)

    def write_rows(self, rows: Iterable[Sequence[Any]]) -> None:
        """Write result rows: terms in the order of the variables, ``None`` for unbound."""
        self._check_open()
        it = iter(rows)
        while not self._encoder.add_rows(it, CHUNK_SIZE):
            self._stream.write(self._encoder.take())
        self._drain()

    def _write_out(self) -> None:
        self._stream.write(self._encoder.take())

    def _finish(self) -> None:
        self._write_out()

    @property
    def statements_written(self) -> int:
        return int(self._encoder.statements)


def serialize(statements: Iterable[Sequence[Any]], destination: Output | None = None, *,
              format: str | None = None, namespaces: Mapping[str, object] | None = None,
              **options: Any) -> bytes | None:
    """Write statements as RDF Thrift or RDF Protobuf; the bytes when ``destination`` is None.
    ``options`` are those of :class:`Writer`."""
    with Writer(destination, format=format, namespaces=namespaces, **options) as writer:
        writer.write_all(statements)
    return writer.getvalue() if destination is None else None


def write_results(destination: Output | None, variables: Iterable[str],
                  rows: Iterable[Sequence[Any]], *, format: str | None = None,
                  **options: Any) -> bytes | None:
    """Write a SPARQL result set; the bytes when ``destination`` is None."""
    with Writer(destination, format=format, **options) as writer:
        writer.write_variables(variables)
        writer.write_rows(rows)
    return writer.getvalue() if destination is None else None


# ------------------------------------------------------------------ the conversion library

class _Source:
    """A source of :mod:`jelly.convert` (see there): the statements in frames of
    ``rows_per_frame``.  ``quads`` (whether a Jelly output needs graphs) cannot be known before
    the end of the input: it is False only if the first frame ends the input without a
    statement in a named graph, and True otherwise."""

    _format = "thrift"
    options = None
    grouped = False

    def __init__(self, stream: BinaryReader, *, text: bool = False, messages: bool = False,
                 limits: ReaderLimits | None = None, rows_per_frame: int = STATEMENT_CHUNK,
                 **_: Any) -> None:
        if messages:
            raise JellyError(f"{LABELS[self._format]} has no RDF message log form")
        self.text = text
        self._reader = Reader(stream, format=self._format, limits=limits,
                              terms="nt" if text else "native",
                              output="text" if text else "tuples")
        self._frames = self._reader.frames(max(rows_per_frame, STATEMENT_CHUNK))
        first = next(self._frames, None)
        second = next(self._frames, None) if first is not None else None
        self._head = [f for f in (first, second) if f is not None]
        self.quads = second is not None or bool(first and first.named_graph_statements)

    def frames(self) -> Iterator[tuple[Frame, bool]]:
        for frame in self._head:
            yield frame, False
        self._head = []
        for frame in self._frames:
            yield frame, False

    def close(self) -> None:
        self._reader.close()


class ThriftSource(_Source):
    _format = "thrift"


class ProtobufSource(_Source):
    _format = "protobuf"


class _Sink:
    """A sink of :mod:`jelly.convert`: every frame's prefixes and statements, as rows.
    Options: ``values`` and ``prefix_names`` (see :class:`Writer`)."""

    _format = "thrift"
    text = False

    def __init__(self, stream: BinaryWriter, source: Any, *, values: bool = False,
                 prefix_names: bool = False, messages: bool = False, **_: Any) -> None:
        if messages:
            raise JellyError(f"{LABELS[self._format]} has no RDF message log form")
        self._writer = Writer(stream, format=self._format, values=values,
                              prefix_names=prefix_names)
        self.frames_written = 0

    @property
    def statements_written(self) -> int:
        return self._writer.statements_written

    def write(self, frame: Any, message: bool) -> None:
        writer = self._writer
        for prefix, iri in frame.namespaces:
            writer.declare_namespace(prefix, iri)
        writer.write_all(frame.statements)
        self.frames_written += 1

    def close(self) -> None:
        self._writer.close()

    def abort(self) -> None:
        self._writer.abort()


class ThriftSink(_Sink):
    _format = "thrift"


class ProtobufSink(_Sink):
    _format = "protobuf"


def inspect(source: Input, *, format: str, per_frame: bool = True) -> dict[str, Any]:
    """The report of ``jelly inspect`` for RDF Thrift / RDF Protobuf: rows of each kind (no
    frames in these formats)."""
    with Reader(source, format=format) as reader:
        for _ in reader.chunks(1 << 16):
            pass
        rows = reader.row_counts
        report: dict[str, Any] = {
            "format": "rdf-" + reader.format,
            "delimited": None,
            "frames": 0,
            "streams": 1,
            "options": None,
            "totals": {**rows, "bytes": reader._decoder.bytes_read},
            "namespaces": reader.namespaces,
        }
    if per_frame:
        report["frame_rows"] = []
    return report


#: The inspectors of the format registry.
inspect_thrift = functools.partial(inspect, format="thrift")
inspect_protobuf = functools.partial(inspect, format="protobuf")
