"""Writing Jelly streams: :class:`Writer`, :func:`serialize`, :func:`serialize_frames`."""

from __future__ import annotations

import gzip
import io
import itertools
import os
from typing import Iterable, Mapping

from ._encoder import Encoder
from .errors import JellyEncodeError, JellyError, JellyOptionsError
from .io import varint_bytes
from .options import (LogicalStreamType, PhysicalStreamType, PRESETS, StreamOptions, is_grouped,
                      preset as _preset)

#: Rows per frame of flat streams, unless told otherwise: large enough that per-frame work is
#: negligible, small enough to stay far below the spec's recommended 1 MB per frame.
DEFAULT_ROWS_PER_FRAME = 1024
DEFAULT_PRESET = "big"

_DEFAULT_LOGICAL = {
    PhysicalStreamType.TRIPLES: LogicalStreamType.FLAT_TRIPLES,
    PhysicalStreamType.QUADS: LogicalStreamType.FLAT_QUADS,
    PhysicalStreamType.GRAPHS: LogicalStreamType.FLAT_QUADS,
}


def _enum(value, enum, what):
    if isinstance(value, str):
        try:
            return enum[value.upper().replace("-", "_")]
        except KeyError:
            names = ", ".join(m.name.lower() for m in enum if m.value)
            raise JellyOptionsError(f"unknown {what} {value!r}; choose one of {names}") from None
    return value


def make_options(options: StreamOptions | None = None, *, preset: str | None = None,
                 physical_type=None, logical_type=None, max_name_table_size: int | None = None,
                 max_prefix_table_size: int | None = None,
                 max_datatype_table_size: int | None = None, rdf_star: bool | None = None,
                 generalized_statements: bool | None = None, stream_name: str | None = None,
                 default_physical=PhysicalStreamType.TRIPLES) -> StreamOptions:
    """Stream options from a base (``options`` or a named ``preset``) and field overrides.

    Physical and logical types may be given as enum members, ints or names (``"quads"``).
    Without a logical type, the flat one matching the physical type is used.
    """
    if options is not None and preset is not None:
        raise JellyOptionsError("give either options or a preset, not both")
    base = options if options is not None else _preset(preset or DEFAULT_PRESET)
    changes = {}
    if physical_type is not None:
        changes["physical_type"] = _enum(physical_type, PhysicalStreamType, "physical type")
    elif options is None:
        changes["physical_type"] = default_physical
    if logical_type is not None:
        changes["logical_type"] = _enum(logical_type, LogicalStreamType, "logical type")
    for name, value in (("max_name_table_size", max_name_table_size),
                        ("max_prefix_table_size", max_prefix_table_size),
                        ("max_datatype_table_size", max_datatype_table_size),
                        ("rdf_star", rdf_star), ("generalized_statements", generalized_statements),
                        ("stream_name", stream_name)):
        if value is not None:
            changes[name] = value
    result = base.replace(**changes)
    if result.physical_type == PhysicalStreamType.UNSPECIFIED:
        raise JellyOptionsError("physical_type must be TRIPLES, QUADS or GRAPHS")
    if logical_type is None and options is None and int(result.logical_type) == 0:
        result = result.replace(logical_type=_DEFAULT_LOGICAL[result.physical_type])
    result.validate_for_writing()
    return result


def _open_destination(destination):
    """(stream, owned, result_buffer) for a path, binary file object or None (bytes result)."""
    if destination is None:
        buf = io.BytesIO()
        return buf, False, buf
    if isinstance(destination, (str, os.PathLike)):
        path = os.fspath(destination)
        try:
            raw = open(path, "wb")
        except OSError as exc:
            raise JellyError(f"cannot write {path!r}: {exc.strerror or exc}") from None
        if path.endswith(".gz"):
            return gzip.GzipFile(fileobj=raw, mode="wb", mtime=0), [raw], None
        return raw, [], None
    if hasattr(destination, "write"):
        if isinstance(destination, io.TextIOBase):
            raise JellyError("Jelly is binary: pass a binary stream (opened with 'wb'), not a "
                             "text stream")
        return destination, False, None
    raise TypeError(f"cannot write Jelly to {type(destination).__name__}: pass a path, a binary "
                    f"file object or None")


class Writer:
    """A Jelly stream opened for writing.

    Flat streams: :meth:`write` / :meth:`write_all` statements; frames are cut every
    ``rows_per_frame`` rows.  Grouped streams (one graph or dataset per frame, e.g. RDF
    messages): :meth:`write_frame` per element.  ``delimited=False`` writes a single-frame
    (non-delimited) file.  Namespaces can be given up front (``namespaces={"ex": "http://..."}``)
    or with :meth:`declare_namespace`; the stream says protocol version 2 only if it uses them.

    ``destination`` is a path (``.gz`` compresses), a binary file object, or ``None`` to collect
    the bytes (see :meth:`getvalue`).  The other arguments are those of :func:`make_options`.
    """

    def __init__(self, destination=None, options: StreamOptions | None = None, *,
                 rows_per_frame: int = DEFAULT_ROWS_PER_FRAME, delimited: bool = True,
                 namespaces: Mapping[str, object] | None = None, term_adapter=None,
                 **option_fields) -> None:
        self.options = make_options(options, **option_fields)
        if rows_per_frame < 1:
            raise JellyOptionsError("rows_per_frame must be at least 1")
        self.rows_per_frame = rows_per_frame
        self.delimited = delimited
        self._encoder = Encoder(self.options, term_adapter=term_adapter)
        self._stream, self._owned, self._result = _open_destination(destination)
        self._frames_written = 0
        self._closed = False
        self._statements_at_frame_start = 0
        self._single_used = False      # single-frame files: write_frame() was called
        self._single_metadata = None
        self.grouped = is_grouped(int(self.options.logical_type))
        for name, iri in (namespaces or {}).items():
            self.declare_namespace(name, iri)

    # -- context manager ---------------------------------------------------------------------

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self._release()

    # -- writing -----------------------------------------------------------------------------

    def declare_namespace(self, name: str, iri) -> None:
        """Write a namespace declaration (``name`` without the colon)."""
        self._check_open()
        self._encoder.add_namespace(name, iri)

    def write(self, statement) -> None:
        """Write one statement: ``(s, p, o)`` or ``(s, p, o, g)``."""
        self._check_open()
        if not self.delimited and self._single_used:
            raise JellyEncodeError("a single-frame (non-delimited) file holds one frame only")
        self._encoder.add(statement)
        if self.delimited and self._encoder.rows >= self.rows_per_frame:
            self._emit()

    def write_all(self, statements: Iterable) -> None:
        """Write many statements, cutting frames every ``rows_per_frame`` rows."""
        self._check_open()
        it = iter(statements)
        enc = self._encoder
        if not self.delimited:
            if self._single_used:
                raise JellyEncodeError("a single-frame (non-delimited) file holds one frame only")
            enc.add_statements(it)
            return
        while not enc.add_statements(it, self.rows_per_frame):
            self._emit()
        if enc.rows >= self.rows_per_frame:
            self._emit()

    def write_until(self, statements: Iterable, stop) -> bool:
        """Like :meth:`write_all`, but stop at the object ``stop`` if the iterable yields it
        (a message delimiter, say); returns True if it stopped there, False at the end."""
        self._check_open()
        it = iter(statements)
        enc = self._encoder
        while True:
            if not self.delimited:
                if self._single_used:
                    raise JellyEncodeError("a single-frame (non-delimited) file holds one frame "
                                           "only")
                return enc.add_statements(it, -1, stop) is stop
            done = enc.add_statements(it, self.rows_per_frame, stop)
            if done is stop:
                return True
            if done:
                if enc.rows >= self.rows_per_frame:
                    self._emit()
                return False
            self._emit()

    def write_frame_until(self, statements: Iterable, stop,
                          metadata: Mapping[str, bytes] | None = None) -> bool:
        """Write statements as one frame (see :meth:`write_frame`) up to the object ``stop``
        or the end of the iterable; returns True if it stopped at ``stop``."""
        self._check_open()
        if not self.delimited:
            raise JellyEncodeError("a single-frame (non-delimited) file holds one frame only")
        if self._encoder.statements > self._statements_at_frame_start:
            self._emit()
        stopped = self._encoder.add_statements(statements, -1, stop) is stop
        self._emit(metadata, close_graph=True)
        return stopped

    def write_frame(self, statements: Iterable, metadata: Mapping[str, bytes] | None = None) -> None:
        """Write the statements as one frame of their own (one RDF message: a graph or dataset).

        Rows pending from :meth:`write` are flushed first as a frame of their own; an empty
        iterable writes an empty frame.  Graphs of a GRAPHS stream are closed in the frame.
        """
        self._check_open()
        if not self.delimited:
            # A single-frame file holds one frame: this one, and nothing else.
            if self._single_used:
                raise JellyEncodeError("a single-frame (non-delimited) file holds one frame only")
            self._single_used = True
            self._single_metadata = metadata
            self._encoder.add_statements(statements)
            return
        if self._encoder.statements > self._statements_at_frame_start:
            self._emit()   # statements from write(): they were not part of this message
        # Rows without statements (options, namespaces, lookups) belong in this frame.
        self._encoder.add_statements(statements)
        self._emit(metadata, close_graph=True)

    def flush_frame(self, metadata: Mapping[str, bytes] | None = None) -> None:
        """End the current frame now (if it holds rows, or metadata is given)."""
        self._check_open()
        if not self.delimited:
            # The one frame of a single-frame file ends when the writer closes.
            if metadata:
                self._single_metadata = {**(self._single_metadata or {}), **metadata}
            return
        if self._encoder.pending or metadata:
            self._emit(metadata)

    def _emit(self, metadata=None, close_graph=False) -> None:
        data = self._encoder.take_frame(metadata, close_graph)
        self._statements_at_frame_start = self._encoder.statements
        self._stream.write(varint_bytes(len(data)))
        self._stream.write(data)
        self._frames_written += 1

    def close(self) -> None:
        """Flush the last frame, close graphs, and close the destination if we opened it."""
        if self._closed:
            return
        try:
            enc = self._encoder
            enc.end_graph()
            if not self.delimited:
                self._stream.write(enc.take_frame(self._single_metadata, True))
                self._frames_written = 1
            elif enc.pending or self._frames_written == 0:
                self._emit()
            self._stream.flush()
        finally:
            self._release()

    def _release(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._owned:
            self._stream.close()
            for inner in self._owned:
                inner.close()

    def _check_open(self) -> None:
        if self._closed:
            raise JellyError("the writer is closed")

    def getvalue(self) -> bytes:
        """The bytes written so far, when the destination was ``None``."""
        if self._result is None:
            raise JellyError("getvalue() is only for writers created without a destination")
        return self._result.getvalue()

    @property
    def frames_written(self) -> int:
        return self._frames_written

    @property
    def statements_written(self) -> int:
        return self._encoder.statements


def _peek_physical(statements):
    """Physical type from the first statement: quads for 4-tuples, triples otherwise."""
    it = iter(statements)
    first = next(it, None)
    if first is None:
        return PhysicalStreamType.TRIPLES, it
    if not isinstance(first, (tuple, list)):
        raise JellyEncodeError(f"a statement must be a tuple (s, p, o) or (s, p, o, g), not "
                               f"{type(first).__name__}")
    physical = PhysicalStreamType.QUADS if len(first) == 4 else PhysicalStreamType.TRIPLES
    return physical, itertools.chain((first,), it)


def serialize(statements: Iterable, destination=None, options: StreamOptions | None = None, *,
              rows_per_frame: int = DEFAULT_ROWS_PER_FRAME, delimited: bool = True,
              namespaces=None, term_adapter=None, **option_fields):
    """Write statements as a flat Jelly stream; returns the bytes when ``destination`` is None.

    Without an explicit ``physical_type`` (or ``options``), the first statement decides:
    QUADS for ``(s, p, o, g)``, TRIPLES for ``(s, p, o)``.  Table sizes come from
    ``preset`` (``"small"`` or ``"big"``, the default) or explicit ``max_*_table_size``.
    """
    if options is None and option_fields.get("physical_type") is None:
        option_fields["physical_type"], statements = _peek_physical(statements)
    writer = Writer(destination, options, rows_per_frame=rows_per_frame, delimited=delimited,
                    namespaces=namespaces, term_adapter=term_adapter, **option_fields)
    with writer:
        writer.write_all(statements)
    return writer.getvalue() if destination is None else None


def serialize_frames(frames: Iterable[Iterable], destination=None,
                     options: StreamOptions | None = None, *, namespaces=None, term_adapter=None,
                     **option_fields):
    """Write each element of ``frames`` (an iterable of statements) as one frame: a stream of
    RDF messages (graphs or datasets).  Returns the bytes when ``destination`` is None.

    Without an explicit logical type, the stream is marked as a GRAPHS stream (TRIPLES) or a
    DATASETS stream (QUADS / GRAPHS).
    """
    if options is None and option_fields.get("logical_type") is None:
        physical = option_fields.get("physical_type")
        if physical is None:
            physical = PhysicalStreamType.TRIPLES
        physical = _enum(physical, PhysicalStreamType, "physical type")
        option_fields["logical_type"] = (LogicalStreamType.GRAPHS
                                         if physical == PhysicalStreamType.TRIPLES
                                         else LogicalStreamType.DATASETS)
    writer = Writer(destination, options, namespaces=namespaces, term_adapter=term_adapter,
                    **option_fields)
    with writer:
        for frame in frames:
            writer.write_frame(frame)
    return writer.getvalue() if destination is None else None
