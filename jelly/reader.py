"""Reading Jelly streams: :class:`Reader`, :func:`parse`, :func:`parse_frames`, :func:`read_options`."""

from __future__ import annotations

import contextlib
import itertools
from typing import TYPE_CHECKING, Any, Iterator, TypeVar, cast

from ._decoder import Decoder, Frame
from .errors import JellyError
from .io import Frames, not_jelly, open_frames
from .options import DEFAULT_LIMITS, ReaderLimits, StreamOptions

if TYPE_CHECKING:
    from ._decoder import _Statements, _Terms
    from ._sink import StatementSink, TermFactory, _PyFactory
    from .io import Input

#: Statements decoded at a time when iterating a reader statement by statement: large frames
#: stream out in pieces of this size instead of being built whole, small frames are gathered
#: into pieces of about this size.  The objects of a piece stay in the CPU's caches while the
#: consumer goes through them: 4,096 took 5-10% longer on every frame shape measured.
STATEMENT_CHUNK = 1024
#: A run of whole frames decoded together (:meth:`Reader._runs`) ends once it holds this many
#: statements: enough to spread the cost of a run over many small frames, and a frame of a
#: thousand statements stays alone (two of them in one text took fresh memory every time:
#: Jelly -> N-Triples of 1,024-row frames was 15% slower).
RUN_STATEMENTS = 256


class FrameInput:
    """What a reader of a Jelly or Jelly-Patch stream does with its input, frame by frame
    (:class:`Reader`, :class:`jelly.patch.PatchReader`): the input opened (:func:`open_frames`)
    and closed with the reader, frames read ahead to learn the options, and errors: a reader
    that failed stays failed.  ``_decoder`` decodes a frame (``decode_frame(data, offset)``)
    and knows the ``options`` and the ``frame_index``."""

    _decoder: Any

    #: What the input is read as (for errors: "not a Jelly file (it looks like ...)").
    KIND = "Jelly"

    def __init__(self, source: Input, limits: ReaderLimits, delimited: bool | None) -> None:
        self.limits = limits
        self._stack = contextlib.ExitStack()
        self._frames = open_frames(source, self._stack, limits, delimited, self.KIND)
        self._iter: Iterator[Frames] | None = None
        self._batch: Frames = []    # frames read, not yet taken
        self._at = 0                # the next of them
        self._error: JellyError | None = None
        self._pending: list[Any] = []     # frames read ahead to learn the options
        self._closed = False
        #: Size in bytes of the last frame read.
        self.last_frame_size = 0
        #: The bytes of the last frame read (without its length prefix).
        self.last_frame: bytes | memoryview = b""

    def __enter__(self: _R) -> _R:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._closed = True
        self._stack.close()

    def _next_raw(self) -> tuple[int, bytes | memoryview] | None:
        """The next (offset, frame bytes), or None at the end."""
        if self._at >= len(self._batch) and not self._next_batch():
            return None
        item = self._batch[self._at]
        self._at += 1
        self.last_frame = item[1]
        self.last_frame_size = len(item[1])
        return item

    def _next_batch(self) -> bool:
        """Read the next frames into ``_batch``; False at the end of the input."""
        if self._closed:        # bytes would still be there: a closed reader reads none
            raise ValueError("read of a closed reader")
        if self._error is not None:
            raise self._error
        try:
            if self._iter is None:
                self._iter = self._frames.batches()
            batch = next(self._iter, None)
        except JellyError as exc:
            self._error = exc
            raise
        self._batch = batch if batch is not None else []
        self._at = 0
        return batch is not None

    def _failed(self, exc: JellyError) -> JellyError:
        """Remember the error: a reader that failed stays failed."""
        self._error = exc
        return exc

    def _decoded(self, frame: Any) -> Any:
        """What a reader does with each decoded frame (a hook)."""
        return frame

    def _next_frame(self) -> Any:
        item = self._next_raw()
        if item is None:
            return None
        try:
            return self._decoded(self._decoder.decode_frame(item[1], item[0]))
        except JellyError as exc:
            raise self._failed(exc) from None

    def _frames_in_order(self) -> Iterator[Any]:
        while self._pending:
            yield self._pending.pop(0)
        while True:
            frame = self._next_frame()
            if frame is None:
                return
            yield frame

    def _read_options(self) -> Any:
        """The stream's options; reads ahead to the first frame that holds them if needed
        (frames before it can only be empty)."""
        if self._decoder.options is None and self._iter is None:
            while self._decoder.options is None:
                frame = self._next_frame()
                if frame is None:
                    break
                self._pending.append(frame)
        return self._decoder.options

    @property
    def delimited(self) -> bool | None:
        """True for the delimited variant, False for a single-frame file (None before reading)."""
        return self._frames.delimited if self._iter is not None else None

    @property
    def frame_count(self) -> int:
        """Frames decoded so far."""
        count: int = self._decoder.frame_index
        return count


_R = TypeVar("_R", bound=FrameInput)


class Reader(FrameInput):
    """A Jelly stream opened for reading, frame by frame.

    ``source`` is a path, ``"-"`` (stdin), a bytes-like object or a binary file object (pipes
    and sockets work: the input is read in chunks and never sought).  Gzip-compressed input and
    both the delimited and the single-frame variant are recognised from the first bytes.

    ``terms`` says what terms become: ``"native"`` (jelly's :class:`~jelly.IRI`,
    :class:`~jelly.BlankNode`, :class:`~jelly.Literal`, :class:`~jelly.Triple`), ``"nt"``
    (N-Triples strings; default graph ``None``) or a term factory (see
    :class:`jelly.Decoder`; ``factory=`` is an older name for it).  ``output`` shapes
    :attr:`Frame.statements`: ``"tuples"``, ``"columns"`` (a tuple of lists, one per
    position), ``"arrow"`` (per position the buffers of Arrow arrays: with ``terms="nt"`` a
    ``jelly._ntformat.StringColumn`` of strings, with ``terms="native"`` a
    ``jelly._ntformat.TermColumns`` of term structs), ``"lines"`` (N-Triples / N-Quads lines,
    with ``terms="nt"``) or ``"text"`` (with ``terms="nt"``: the frame's N-Triples / N-Quads
    lines as one ``bytes`` of UTF-8, the fastest way to text).
    ``strict=True`` also rejects RDF-star and generalized terms that the stream options do not
    announce.  ``new_streams=True`` reads concatenated streams (a frame that starts with
    different options starts a new stream: :attr:`Frame.stream_index`).
    """

    _decoder: Decoder

    def __init__(self, source: Input, *, limits: ReaderLimits | None = None,
                 terms: _Terms = "native", output: str | StatementSink = "tuples",
                 strict: bool = False, factory: TermFactory | _PyFactory | None = None,
                 new_streams: bool = False, delimited: bool | None = None) -> None:
        limits = limits if limits is not None else DEFAULT_LIMITS
        if not isinstance(limits, ReaderLimits):
            raise TypeError(f"limits must be a jelly.ReaderLimits, not {type(limits).__name__}")
        # The decoder first: it checks the arguments before a file is opened.
        self._decoder = Decoder(limits=limits, terms=terms, output=output, strict=strict,
                                factory=factory, new_streams=new_streams)
        self._output = output
        super().__init__(source, limits, delimited)
        #: Namespace declarations seen so far (name -> IRI term); a later one replaces an earlier.
        self.namespaces: dict[str, Any] = {}
        self._in_frame = False      # iterating statements, between begin_frame and end_frame

    # -- frames ------------------------------------------------------------------------------

    def _decoded(self, frame: Frame) -> Frame:
        for name, iri in frame.namespaces:
            self.namespaces[name] = iri
        return frame

    def _failed(self, exc: JellyError) -> JellyError:
        """Remember the error (a reader that failed stays failed); one in the first frame of
        an input that looks like another format says so."""
        if self._decoder.frame_index == 0:
            exc = not_jelly(self._frames.head, exc)
        return super()._failed(exc)

    def frames(self) -> Iterator[Frame]:
        """Yield each :class:`Frame` (statements, metadata, namespace declarations) in order.
        While the statements of a frame are being iterated (they come in pieces) it raises
        ``ValueError``: the frames would lose that frame's rest."""
        if self._in_frame:
            raise ValueError(f"frames() in the middle of frame {self._decoder.frame_index}, "
                             f"whose statements are being iterated: read a reader by "
                             f"statements or by frames")
        return self._frames_in_order()

    def _runs(self) -> Iterator[Frame]:
        """Frames as :meth:`frames` gives them, except that frames in a row are decoded into
        one :class:`Frame` (those one read of the input completes, up to about
        ``RUN_STATEMENTS`` statements; see ``Decoder.decode_run``): for a consumer to whom
        frame boundaries do not matter, such as text output of a flat stream."""
        decoder = self._decoder
        while self._pending:
            yield self._pending.pop(0)
        while True:
            if self._at >= len(self._batch) and not self._next_batch():
                return
            try:
                run, self._at = decoder.decode_run(self._batch, self._at, RUN_STATEMENTS)
            except JellyError as exc:
                raise self._failed(exc) from None
            if run is not None:
                yield self._decoded(cast(Frame, run))

    def _statement_chunks(self) -> Iterator[_Statements]:
        decoder = self._decoder
        for frame in self._pending:
            yield frame.statements
        self._pending.clear()
        while True:
            if self._at >= len(self._batch) and not decoder.mid_frame:
                if not self._next_batch():
                    return
            try:
                # Whole frames (or pieces of a large one) into one chunk, in C: a stream of
                # one-statement frames costs no Python per frame.
                chunk, self._at = decoder.decode_run(self._batch, self._at, STATEMENT_CHUNK,
                                                     self.namespaces)
            except JellyError as exc:
                self._in_frame = False          # failed: every read raises the error
                raise self._failed(exc) from None
            self._in_frame = decoder.mid_frame
            if self._at:
                self.last_frame = self._batch[self._at - 1][1]
                self.last_frame_size = len(self.last_frame)
            if chunk is not None:
                yield cast("_Statements", chunk)
                # Let go of the chunk before the next is decoded: once the consumer is done
                # with its statements, the next chunk reuses their memory (free lists).
                del chunk

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        """Iterate every statement: ``(s, p, o)`` for TRIPLES streams, ``(s, p, o, g)``
        otherwise.  Frames are decoded about a thousand statements at a time: a large one
        in pieces, small ones together."""
        if self._output in ("columns", "arrow", "text"):
            raise ValueError(f"a reader with output={self._output!r} is read frame by frame "
                             f"(frames())")
        # chain walks each chunk in C: no Python frame per statement.
        return itertools.chain.from_iterable(self._statement_chunks())

    @property
    def options(self) -> StreamOptions | None:
        """The stream options; reads ahead to the first frame that holds them if needed (frames
        before it can only be empty).  ``None`` for an input without any options row.
        """
        options: StreamOptions | None = self._read_options()
        return options

    @property
    def in_graph(self) -> bool:
        """True when the stream so far ends inside a graph of a GRAPHS stream."""
        return self._decoder.in_graph_now


def _chunks(source: Input, kwargs: dict[str, Any]) -> Iterator[_Statements]:
    with Reader(source, **kwargs) as reader:
        yield from reader._statement_chunks()


def parse(source: Input, *, limits: ReaderLimits | None = None, terms: _Terms = "native",
          strict: bool = False, factory: TermFactory | _PyFactory | None = None,
          new_streams: bool = False) -> Iterator[tuple[Any, ...]]:
    """Iterate the statements of a Jelly stream (see :class:`Reader`).  The input is opened
    when the iteration starts and closed when it ends."""
    # chain walks each chunk in C: no Python frame per statement.
    return itertools.chain.from_iterable(_chunks(source, dict(
        limits=limits, terms=terms, strict=strict, factory=factory, new_streams=new_streams)))


def parse_frames(source: Input, *, limits: ReaderLimits | None = None,
                 terms: _Terms = "native", output: str | StatementSink = "tuples",
                 strict: bool = False, factory: TermFactory | _PyFactory | None = None,
                 new_streams: bool = False) -> Iterator[Frame]:
    """Iterate the frames of a Jelly stream as :class:`Frame` objects (see :class:`Reader`)."""
    with Reader(source, limits=limits, terms=terms, output=output, strict=strict,
                factory=factory, new_streams=new_streams) as reader:
        yield from reader.frames()


def read_options(source: Input, *, limits: ReaderLimits | None = None) -> StreamOptions:
    """The stream options of a Jelly stream (from its first frame)."""
    with Reader(source, limits=limits) as reader:
        options = reader.options
    if options is None:
        raise JellyError("the input holds no Jelly frame, so it has no stream options")
    return options
