"""Jelly-Text (``.jelly.txt``): the protobuf text format of Jelly frames, as a format of the
conversion library, for looking at streams and for crafting test files (the codec is the
compiled :mod:`jelly._jellytext`; the format is described there).

* Jelly to Jelly-Text prints the input's frames exactly as they are on the wire (with
  ``--take-frames``, only those), without decoding them; from other formats the statements are
  first written as Jelly with the writer options given, and those frames are printed.
* Jelly-Text to Jelly writes the frames the text spells, byte for byte and unchecked (so a
  malformed stream can be crafted); with writer options, or to any other format, the frames
  are decoded like any Jelly input.

:func:`dumps` and :func:`loads` are the same for code: frames to text and back.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, Iterator

from ._framing import FrameSplitter
from ._jellytext import frame_to_text, split_frames, text_to_frame
from ._streaming import delimit
from .errors import RdfSyntaxError
from .io import read_some

if TYPE_CHECKING:
    from .convert import Source
    from .io import BinaryReader, BinaryWriter, Input

__all__ = ["RawFrame", "dumps", "loads", "frame_to_text", "text_to_frame"]


class RawFrame:
    """The bytes of one frame, not decoded (``data``, without a length prefix), and its index
    in the input."""

    __slots__ = ("index", "data", "namespaces", "metadata")

    def __init__(self, index: int, data: bytes) -> None:
        self.index = index
        self.data = data
        self.namespaces: list[tuple[str, Any]] = []
        self.metadata: dict[str, bytes] = {}


def text_frames(stream: BinaryReader, delimited: bool = False) -> Iterator[bytes]:
    """The frames that the Jelly-Text on ``stream`` spells, one at a time."""
    for first_line, text in split_frames(lambda n: read_some(stream, n)):
        yield text_to_frame(text, first_line, delimited)


class _FramesAsStream(io.RawIOBase):
    """The frames of a Jelly-Text document as a delimited Jelly byte stream."""

    def __init__(self, stream: BinaryReader) -> None:
        self._frames = text_frames(stream, delimited=True)
        self._buf = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        while not self._buf:
            nxt = next(self._frames, None)
            if nxt is None:
                return 0
            self._buf = memoryview(nxt)
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]         # a view: a frame larger than b is not copied again
        return n


def jelly_stream(stream: BinaryReader) -> BinaryReader:
    """The delimited Jelly stream that the Jelly-Text on ``stream`` spells, read a frame at a
    time."""
    return io.BufferedReader(_FramesAsStream(stream))


def JellyTextSource(stream: BinaryReader, *, raw: bool = False, **options: Any) -> Source:
    """Frames of a Jelly-Text document: undecoded (``raw``) or decoded as Jelly."""
    from .convert import JellySource
    return JellySource(_FramesAsStream(stream), raw=raw, **options)


class JellyTextSink:
    """Writes frames as Jelly-Text: undecoded frames as they are, anything else written as
    Jelly first (with the writer options) and then printed frame by frame."""

    text = False

    def __init__(self, stream: BinaryWriter, source: Source, **options: Any) -> None:
        self._stream = stream
        self._source = source
        self._options = {k: v for k, v in options.items() if k not in ("format", "messages")}
        self._jelly: Any = None
        self._printer = _FramePrinter(self._print)
        self.frames_written = 0
        self.statements_written = 0

    def _print(self, frame: bytes | memoryview, offset: int = 0, index: int | None = None
               ) -> None:
        number = self.frames_written if index is None else index
        self._stream.write(frame_to_text(frame, number, offset).encode("utf-8"))
        self.frames_written += 1

    def write(self, frame: Any, message: bool) -> None:
        if isinstance(frame, RawFrame):       # numbered as in the input
            self._print(frame.data, index=frame.index)
            return
        if self._jelly is None:
            from .convert import JellySink
            self._jelly = JellySink(self._printer, self._source, **self._options)
        self._jelly.write(frame, message)
        self.statements_written = self._jelly.statements_written

    def close(self) -> None:
        if self._jelly is not None:
            self._jelly.close()
            self.statements_written = self._jelly.statements_written
        self._printer.finish()


class _FramePrinter:
    """The stream an inner Jelly writer writes to: each complete frame is printed at once."""

    def __init__(self, emit: Any) -> None:
        self._emit = emit
        self._splitter = FrameSplitter(delimited=True)

    def write(self, data: bytes) -> int:
        for offset, frame in self._splitter.feed(data):
            self._emit(frame, offset)
        return len(data)

    def flush(self) -> None:
        pass

    def finish(self) -> None:
        for offset, frame in self._splitter.finish():
            self._emit(frame, offset)


class RawJellySink:
    """Writes undecoded frames as a Jelly stream, byte for byte (Jelly-Text to Jelly)."""

    text = False

    def __init__(self, stream: BinaryWriter, delimited: bool = True) -> None:
        self._stream = stream
        self._delimited = delimited
        self.frames_written = 0
        self.statements_written = 0

    def write(self, frame: Any, message: bool) -> None:
        if not self._delimited and self.frames_written:
            from .errors import JellyError
            raise JellyError("a single-frame file holds one frame; this input has more "
                             "(leave out --single-frame)")
        self._stream.write(delimit(frame.data) if self._delimited else frame.data)
        self.frames_written += 1

    def close(self) -> None:
        pass


def dumps(source: Input) -> str:
    """The Jelly-Text of a Jelly stream (path, ``"-"``, bytes or binary file): every frame as
    it is on the wire."""
    from .io import FrameReader, open_input
    out = []
    with open_input(source) as stream:
        for index, (offset, frame) in enumerate(FrameReader(stream)):
            out.append(frame_to_text(frame, index, offset))
    return "".join(out)


def loads(text: str, *, delimited: bool = True) -> bytes:
    """The Jelly stream that the Jelly-Text ``text`` spells (delimited, or one frame)."""
    # the str may hold lone surrogates: they are written as they are (surrogatepass)
    data = io.BytesIO(text.encode("utf-8", "surrogatepass"))
    frames = [text_to_frame(chunk.decode("utf-8", "surrogatepass"), first, delimited)
              for first, chunk in split_frames(data.read)]
    if not delimited and len(frames) != 1:
        raise RdfSyntaxError(f"a single frame was asked for, but the text holds {len(frames)}")
    return b"".join(frames)
