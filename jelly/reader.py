"""Reading Jelly streams: :class:`Reader`, :func:`parse`, :func:`parse_frames`, :func:`read_options`."""

from __future__ import annotations

import itertools
from typing import Iterator

from ._decoder import Decoder, Frame
from .errors import JellyError
from .io import FrameSource, maybe_gunzip, open_binary
from .options import DEFAULT_LIMITS, ReaderLimits, StreamOptions


class Reader:
    """A Jelly stream opened for reading, frame by frame.

    ``source`` is a path, a bytes-like object or a binary file object (pipes and sockets work:
    the input is read in chunks and never sought).  Gzip-compressed input and both the delimited
    and the single-frame variant are recognised from the first bytes.

    ``factory`` builds terms of another library (see :class:`jelly._decoder.Decoder`); by
    default statements hold jelly's own :class:`~jelly.IRI`, :class:`~jelly.BlankNode`,
    :class:`~jelly.Literal` and :class:`~jelly.Triple`.  ``strict=True`` also rejects
    RDF-star and generalized terms that the stream options do not announce.

    ``terms="nt"`` gives every term as its N-Triples string (default graph: ``None``), and
    ``output`` shapes :attr:`Frame.statements`: ``"tuples"``, ``"columns"`` (a tuple of lists,
    one per position: what Arrow and Spark want) or ``"lines"`` (N-Triples / N-Quads lines).
    Iterating a reader statement by statement needs ``output="tuples"``.
    """

    def __init__(self, source, *, limits: ReaderLimits | None = None, factory=None,
                 strict: bool = False, terms: str = "native", output: str = "tuples") -> None:
        self.limits = limits if limits is not None else DEFAULT_LIMITS
        # The decoder first: it checks the arguments before a file is opened.
        self._decoder = Decoder(limits=self.limits, factory=factory, strict=strict, terms=terms,
                                output=output)
        self._stream, self._owned = open_binary(source)
        self._frames = None
        self._output = output
        self._source = None
        self._error: JellyError | None = None
        self._pending: list[Frame] = []   # frames read ahead to learn the options
        #: Size in bytes of the last frame read.
        self.last_frame_size = 0
        #: Namespace declarations seen so far (name -> IRI term); a later one replaces an earlier.
        self.namespaces: dict = {}

    # -- context manager ---------------------------------------------------------------------

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._owned:
            self._stream.close()

    # -- frames ------------------------------------------------------------------------------

    def _next_frame(self) -> Frame | None:
        if self._error is not None:   # a reader that failed stays failed
            raise self._error
        try:
            if self._source is None:
                self._source = FrameSource(maybe_gunzip(self._stream), self.limits)
                self._frames = self._source.frames()
            data = next(self._frames, None)
            if data is None:
                return None
            frame = self._decoder.decode_frame(data, self._source.frame_offset)
        except JellyError as exc:
            self._error = exc
            raise
        self.last_frame_size = len(data)
        for name, iri in frame.namespaces:
            self.namespaces[name] = iri
        return frame

    def frames(self) -> Iterator[Frame]:
        """Yield each :class:`Frame` (statements, metadata, namespace declarations) in order."""
        while self._pending:
            yield self._pending.pop(0)
        while True:
            frame = self._next_frame()
            if frame is None:
                return
            yield frame

    def __iter__(self) -> Iterator[tuple]:
        """Iterate every statement: ``(s, p, o)`` for TRIPLES streams, ``(s, p, o, g)`` otherwise."""
        if self._output == "columns":
            raise ValueError("a reader with output='columns' is read frame by frame (frames())")
        # chain walks each frame's list in C: no Python frame per statement.
        return itertools.chain.from_iterable(frame.statements for frame in self.frames())

    @property
    def options(self) -> StreamOptions | None:
        """The stream options; reads ahead to the first frame that holds them if needed (frames
        before it can only be empty).  ``None`` for an input without any options row.
        """
        if self._decoder.options is None and self._source is None:
            while self._decoder.options is None:
                frame = self._next_frame()
                if frame is None:
                    break
                self._pending.append(frame)
        return self._decoder.options

    @property
    def delimited(self) -> bool | None:
        """True for the delimited variant, False for a single-frame file (None before reading)."""
        return self._source.delimited if self._source is not None else None

    @property
    def frame_count(self) -> int:
        """Frames decoded so far."""
        return self._decoder.frame_index


def parse(source, *, limits: ReaderLimits | None = None, factory=None,
          strict: bool = False, terms: str = "native") -> Iterator[tuple]:
    """Iterate the statements of a Jelly stream, frame by frame (see :class:`Reader`)."""
    return itertools.chain.from_iterable(
        frame.statements for frame in parse_frames(source, limits=limits, factory=factory,
                                                   strict=strict, terms=terms))


def parse_frames(source, *, limits: ReaderLimits | None = None, factory=None,
                 strict: bool = False, terms: str = "native",
                 output: str = "tuples") -> Iterator[Frame]:
    """Iterate the frames of a Jelly stream as :class:`Frame` objects (see :class:`Reader`)."""
    with Reader(source, limits=limits, factory=factory, strict=strict, terms=terms,
                output=output) as reader:
        yield from reader.frames()


def read_options(source, *, limits: ReaderLimits | None = None) -> StreamOptions:
    """The stream options of a Jelly stream (from its first frame)."""
    with Reader(source, limits=limits) as reader:
        options = reader.options
    if options is None:
        raise JellyError("the input holds no Jelly frame, so it has no stream options")
    return options
