"""Writing Jelly streams: :class:`Writer`, :func:`serialize`, :func:`serialize_frames`."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence, overload

from ._encoder import Encoder
from ._terms import DEFAULT_GRAPH
from .errors import JellyEncodeError, JellyOptionsError
from .io import Destination
from .options import LogicalStreamType, StreamOptions, is_grouped, logical_base, make_options

if TYPE_CHECKING:
    from .io import Output

#: Rows per frame of flat streams, unless told otherwise: large enough that per-frame work is
#: negligible, small enough to stay far below the spec's recommended 1 MB per frame.
DEFAULT_ROWS_PER_FRAME = 1024

#: Statements per self-contained segment of what ``jelly convert`` writes (``segment_size`` of
#: :class:`Writer`): large enough that repeating the lookup entries a segment uses costs about
#: 1% of the file, small enough that a 1M-statement file splits into 10 parts (see
#: docs/architecture.md, "Segments").
DEFAULT_SEGMENT_SIZE = 100_000


class Writer(Destination):
    """A Jelly stream opened for writing.

    Flat streams: :meth:`write` / :meth:`write_all` statements; frames are cut every
    ``rows_per_frame`` rows.  Grouped streams (one graph or dataset per frame, e.g. RDF
    messages): :meth:`write_frame` per element.  ``delimited=False`` writes a single-frame
    (non-delimited) file.  Namespaces can be given up front (``namespaces={"ex": "http://..."}``)
    or with :meth:`declare_namespace`; the stream says protocol version 2 only if it uses them.

    ``segment_size=N`` starts a self-contained segment at the first frame boundary after every
    N statements: the options row is repeated and the lookups, repeated terms and IRI deltas
    start afresh, so that a reader can decode the stream from any segment start (in parallel,
    see :mod:`jelly.parallel`); the file stays a plain Jelly stream for every reader.  Its
    first segment is self-contained too, so segmented files of the same options concatenated
    (``cat a.jelly b.jelly``) are one valid stream.  A single-frame file has no segments.

    ``destination`` is a path (written to a temporary file and renamed into place when the
    writer closes without an error; ``.gz`` compresses), ``"-"`` (stdout), a binary file object,
    or ``None`` to collect the bytes (see :meth:`getvalue`).  The other arguments are those of
    :func:`jelly.make_options`.
    """

    def __init__(self, destination: Output | None = None, options: StreamOptions | None = None,
                 *, rows_per_frame: int = DEFAULT_ROWS_PER_FRAME, delimited: bool = True,
                 namespaces: Mapping[str, object] | None = None,
                 term_adapter: Callable[[Any], object] | None = None,
                 segment_size: int | None = None, **option_fields: Any) -> None:
        self.options = make_options(options, **option_fields)
        if rows_per_frame < 1:
            raise JellyOptionsError("rows_per_frame must be at least 1")
        if segment_size is not None and segment_size < 1:
            raise JellyOptionsError("segment_size must be at least 1 (None: no segments)")
        self.rows_per_frame = rows_per_frame
        self.delimited = delimited
        #: Statements per self-contained segment (None: one segment, the stream).
        self.segment_size = segment_size if delimited else None
        self._segment_start = 0
        self._encoder = Encoder(self.options, term_adapter=term_adapter)
        if self.segment_size is not None:
            # The stream's start is a segment start too (explicit ids: a few bytes), so that
            # segmented files of the same options concatenated (cat) are one valid stream.
            self._encoder.start_segment()
        super().__init__(destination)
        self._frames_written = 0
        self._statements_at_frame_start = 0
        self._single_used = False      # single-frame files: write_frame() was called
        self._single_metadata: Mapping[str, bytes] | None = None
        try:
            for name, iri in (namespaces or {}).items():
                self.declare_namespace(name, iri)
        except BaseException:
            self.abort()
            raise

    # -- writing -----------------------------------------------------------------------------

    def declare_namespace(self, name: str, iri: object) -> None:
        """Write a namespace declaration (``name`` without the colon)."""
        self._check_open()
        self._encoder.add_namespace(name, iri)

    def write(self, statement: Sequence[Any]) -> None:
        """Write one statement: ``(s, p, o)`` or ``(s, p, o, g)``."""
        self._check_open()
        if not self.delimited and self._single_used:
            raise JellyEncodeError("a single-frame (non-delimited) file holds one frame only")
        self._encoder.add(statement)
        if self.delimited and self._encoder.rows >= self.rows_per_frame:
            self._emit()

    def write_all(self, statements: Iterable[Sequence[Any]]) -> None:
        """Write many statements, cutting frames every ``rows_per_frame`` rows."""
        self.write_until(statements, None)

    def write_until(self, statements: Iterable[object], stop: object) -> bool:
        """Like :meth:`write_all`, but stop at the object ``stop`` if the iterable yields it
        (a message delimiter, say); returns True if it stopped there, False at the end."""
        self._check_open()
        it = iter(statements)
        enc = self._encoder
        if not self.delimited:
            if self._single_used:
                raise JellyEncodeError("a single-frame (non-delimited) file holds one frame only")
            done = enc.add_statements(it, -1, stop)
            return stop is not None and done is stop
        while True:
            done = enc.add_statements(it, self.rows_per_frame, stop)
            if done is stop and stop is not None:
                return True
            if done:
                if enc.rows >= self.rows_per_frame:
                    self._emit()
                return False
            self._emit()

    def write_frame(self, statements: Iterable[Sequence[Any]],
                    metadata: Mapping[str, bytes] | None = None) -> None:
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

    def _emit(self, metadata: Mapping[str, bytes] | None = None,
              close_graph: bool = False) -> None:
        enc = self._encoder
        # A segment ends with a frame, outside a graph (a graph goes on in the next segment).
        segment = self.segment_size is not None and \
            enc.statements - self._segment_start >= self.segment_size
        self._stream.write(enc.take_frame(metadata, close_graph or segment, True))
        self._statements_at_frame_start = enc.statements
        self._frames_written += 1
        if segment:
            enc.start_segment()
            self._segment_start = enc.statements

    def _finish(self) -> None:
        # close(): the last frame, after closing an open graph
        enc = self._encoder
        enc.end_graph()
        if not self.delimited:
            self._stream.write(enc.take_frame(self._single_metadata, True))
            self._frames_written = 1
        elif enc.pending or self._frames_written == 0:
            self._emit()

    @property
    def frames_written(self) -> int:
        return self._frames_written

    @property
    def statements_written(self) -> int:
        return self._encoder.statements


_END = object()


def _peek_quads(statements: Iterable[Sequence[Any]]) -> tuple[bool, Iterable[Sequence[Any]]]:
    """Whether the first statement is a quad, and the statements again."""
    it = iter(statements)
    first = next(it, _END)     # not None: a None statement must be refused, not skipped
    if first is _END:
        return False, it
    if not isinstance(first, (tuple, list)):
        raise JellyEncodeError(f"a statement must be a tuple (s, p, o) or (s, p, o, g), not "
                               f"{type(first).__name__}")
    return len(first) == 4, itertools.chain((first,), it)


def _peek_frames_quads(frames: Iterable[Iterable[Sequence[Any]]]
                       ) -> tuple[bool, Iterable[Iterable[Sequence[Any]]]]:
    """Whether the first statement of the first frame that has one is a quad, and the frames
    again (the empty frames before it kept)."""
    it = iter(frames)
    held: list[Iterable[Sequence[Any]]] = []
    for frame in it:
        statements = iter(frame)
        first: Any = next(statements, _END)
        if first is _END:
            held.append(())
            continue
        quads, frame = _peek_quads(itertools.chain((first,), statements))
        return quads, itertools.chain(held, (frame,), it)
    return False, held


@overload
def serialize(statements: Iterable[Sequence[Any]], destination: None = None,
              options: StreamOptions | None = None, *, rows_per_frame: int = ...,
              delimited: bool = ..., namespaces: Mapping[str, object] | None = ...,
              term_adapter: Callable[[Any], object] | None = ...,
              segment_size: int | None = ...,
              **option_fields: Any) -> bytes: ...


@overload
def serialize(statements: Iterable[Sequence[Any]], destination: Output,
              options: StreamOptions | None = None, *, rows_per_frame: int = ...,
              delimited: bool = ..., namespaces: Mapping[str, object] | None = ...,
              term_adapter: Callable[[Any], object] | None = ...,
              segment_size: int | None = ...,
              **option_fields: Any) -> None: ...


def serialize(statements: Iterable[Sequence[Any]], destination: Output | None = None,
              options: StreamOptions | None = None, *,
              rows_per_frame: int = DEFAULT_ROWS_PER_FRAME, delimited: bool = True,
              namespaces: Mapping[str, object] | None = None,
              term_adapter: Callable[[Any], object] | None = None,
              segment_size: int | None = None, **option_fields: Any) -> bytes | None:
    """Write statements as a Jelly stream; returns the bytes when ``destination`` is None.

    A flat stream is cut into frames of ``rows_per_frame`` rows.  A grouped logical type
    (GRAPHS, DATASETS and their subtypes) says that each frame is a stream element, so the
    statements are written as elements (:func:`write_elements`): one graph or dataset, one
    frame; ``rows_per_frame`` does not apply.

    Without an explicit ``physical_type`` (or ``options``), the first statement decides:
    QUADS for ``(s, p, o, g)``, TRIPLES for ``(s, p, o)``.  Table sizes come from
    ``preset`` (``"small"`` or ``"big"``, the default) or explicit ``max_*_table_size``;
    ``segment_size`` makes a splittable stream (see :class:`Writer`).
    """
    if options is None and option_fields.get("physical_type") is None:
        option_fields["quads"], statements = _peek_quads(statements)
    with Writer(destination, options, rows_per_frame=rows_per_frame, delimited=delimited,
                namespaces=namespaces, term_adapter=term_adapter, segment_size=segment_size,
                **option_fields) as writer:
        if delimited and is_grouped(int(writer.options.logical_type)):
            write_elements(writer, statements)
        else:
            writer.write_all(statements)
    return writer.getvalue() if destination is None else None


def _graph_of(statement: Sequence[Any]) -> Any:
    return statement[3] if len(statement) == 4 and statement[3] is not None else DEFAULT_GRAPH


def write_elements(writer: Writer, statements: Iterable[Sequence[Any]]) -> None:
    """Write ``statements`` as the stream elements of the writer's grouped logical type, a
    frame each (the spec: each frame of such a stream is an element): GRAPHS and DATASETS all
    of them as one graph or dataset; SUBJECT_GRAPHS each run of statements with one subject;
    NAMED_GRAPHS and TIMESTAMPED_NAMED_GRAPHS each run of one graph.  (Cut every
    ``rows_per_frame`` rows instead, one graph became several to every reader, and one
    blank node several to readers that scope them per frame, as jelly's rdflib parser
    does.)  A frame is held whole until written: memory grows with the largest element."""
    logical = int(writer.options.logical_type)
    if logical == LogicalStreamType.SUBJECT_GRAPHS:
        key: Callable[[Sequence[Any]], Any] | None = lambda st: st[0]   # noqa: E731
    elif logical_base(logical) == LogicalStreamType.DATASETS and \
            logical != LogicalStreamType.DATASETS:
        key = _graph_of
    else:
        key = None
    if key is None:
        writer.write_frame(statements)
        return
    for _, element in itertools.groupby(statements, key):
        writer.write_frame(element)


@overload
def serialize_frames(frames: Iterable[Iterable[Sequence[Any]]], destination: None = None,
                     options: StreamOptions | None = None, *,
                     namespaces: Mapping[str, object] | None = ...,
                     term_adapter: Callable[[Any], object] | None = ...,
                     **option_fields: Any) -> bytes: ...


@overload
def serialize_frames(frames: Iterable[Iterable[Sequence[Any]]], destination: Output,
                     options: StreamOptions | None = None, *,
                     namespaces: Mapping[str, object] | None = ...,
                     term_adapter: Callable[[Any], object] | None = ...,
                     **option_fields: Any) -> None: ...


def serialize_frames(frames: Iterable[Iterable[Sequence[Any]]], destination: Output | None = None,
                     options: StreamOptions | None = None, *,
                     namespaces: Mapping[str, object] | None = None,
                     term_adapter: Callable[[Any], object] | None = None,
                     **option_fields: Any) -> bytes | None:
    """Write each element of ``frames`` (an iterable of statements) as one frame: a stream of
    RDF messages (graphs or datasets).  Returns the bytes when ``destination`` is None.

    Without an explicit ``physical_type`` (or ``options``), the first statement decides, as
    for :func:`serialize`.  Without an explicit logical type, the stream is marked as a GRAPHS
    stream (TRIPLES) or a DATASETS stream (QUADS / GRAPHS).
    """
    if options is None and option_fields.get("physical_type") is None:
        option_fields["quads"], frames = _peek_frames_quads(frames)
    with Writer(destination, options, namespaces=namespaces, term_adapter=term_adapter,
                grouped=True, **option_fields) as writer:
        for frame in frames:
            writer.write_frame(frame)
    return writer.getvalue() if destination is None else None
