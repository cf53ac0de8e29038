"""Files and streams: opening sources, gzip, delimited / single-frame detection, frame iteration.

Frames are read one at a time from any binary stream (files, pipes, sockets, HTTP bodies), so
memory is bounded by the largest frame plus the lookup tables; nothing here calls ``read()``
without a size.
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from typing import BinaryIO, Iterator

from .errors import JellyDecodeError, JellyError, JellyLimitError, JellyTruncatedError
from .options import DEFAULT_LIMITS, ReaderLimits

CHUNK_SIZE = 1 << 16
GZIP_MAGIC = b"\x1f\x8b"


class _PrefixedReader(io.RawIOBase):
    """A stream that first returns ``prefix`` and then the rest of ``raw`` (a peek for pipes)."""

    def __init__(self, prefix: bytes, raw) -> None:
        self._prefix = prefix
        self._raw = raw

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        if self._prefix:
            n = min(len(b), len(self._prefix))
            b[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._raw.read(len(b))
        if not data:
            return 0
        n = len(data)
        b[:n] = data
        return n


def _read_some(raw, n: int) -> bytes:
    data = raw.read(n)
    if data is None:  # a non-blocking stream with nothing available yet
        return b""
    if not isinstance(data, (bytes, bytearray)):
        raise JellyError("expected a binary stream (open the file in 'rb' mode)")
    return bytes(data)


def open_binary(source) -> tuple[BinaryIO, bool]:
    """Return ``(stream, owned)`` for a path, bytes-like object or binary file object."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(source)), True
    if isinstance(source, (str, os.PathLike)):
        try:
            return open(source, "rb"), True
        except OSError as exc:
            raise JellyError(f"cannot open {os.fspath(source)!r}: {exc.strerror or exc}") from None
    if hasattr(source, "read"):
        if isinstance(source, io.TextIOBase):
            raise JellyError("expected a binary stream, got a text stream (open the file in 'rb' mode)")
        return source, False
    raise TypeError(f"cannot read Jelly from {type(source).__name__}: pass a path, bytes or a "
                    f"binary file object")


def maybe_gunzip(raw) -> BinaryIO:
    """Wrap ``raw`` in a gzip decompressor when it starts with the gzip magic bytes."""
    head = b""
    while len(head) < 2:
        more = _read_some(raw, 2 - len(head))
        if not more:
            break
        head += more
    stream = _PrefixedReader(head, raw)
    if head == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=io.BufferedReader(stream, CHUNK_SIZE), mode="rb")
    return stream


class FrameSource:
    """Splits a binary stream into the byte strings of its frames.

    Detects the delimited variant (each frame prefixed by its length as a varint) and the
    single-frame (non-delimited) variant from the first bytes, like jelly-jvm does: every
    non-delimited file starts with ``0A`` (field 1 of ``RdfStreamFrame``) followed by the length
    of the first row, whose first field is in turn tagged ``0A``.
    """

    def __init__(self, stream, limits: ReaderLimits = DEFAULT_LIMITS) -> None:
        self._raw = stream
        self._buf = bytearray()
        self._pos = 0
        self._eof = False
        self._offset = 0          # stream offset of self._buf[0]
        self._max_frame = limits.max_frame_size
        self.delimited: bool | None = None
        self.frame_offset = 0      # stream offset of the last frame returned

    # -- buffered reading -------------------------------------------------------------------

    def _fill(self, n: int) -> bool:
        """Try to have ``n`` unread bytes buffered; False when the stream ends first."""
        while len(self._buf) - self._pos < n and not self._eof:
            if self._pos > CHUNK_SIZE and self._pos * 2 > len(self._buf):
                del self._buf[:self._pos]
                self._offset += self._pos
                self._pos = 0
            try:
                data = _read_some(self._raw, max(CHUNK_SIZE, n - (len(self._buf) - self._pos)))
            except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
                raise JellyDecodeError(f"cannot read the input: {exc}",
                                       offset=self._offset + len(self._buf)) from None
            if data:
                self._buf += data
            else:
                self._eof = True
        return len(self._buf) - self._pos >= n

    @property
    def position(self) -> int:
        return self._offset + self._pos

    def _take(self, n: int) -> bytes:
        data = bytes(self._buf[self._pos:self._pos + n])
        self._pos += n
        return data

    def _read_frame_bytes(self, n: int, frame_index: int) -> bytes:
        if n > self._max_frame:
            raise JellyLimitError(f"frame of {n} bytes exceeds the limit of {self._max_frame} bytes",
                                  offset=self.position, frame=frame_index)
        if not self._fill(n):
            raise JellyTruncatedError(
                f"input ends inside a frame: {n} bytes announced, "
                f"{len(self._buf) - self._pos} present", offset=self.position, frame=frame_index)
        return self._take(n)

    def _read_length(self, frame_index: int) -> int | None:
        start = self.position
        result = 0
        shift = 0
        for i in range(10):
            if not self._fill(1):
                if i == 0:
                    return None
                raise JellyTruncatedError("input ends inside a frame length prefix", offset=start,
                                          frame=frame_index)
            b = self._buf[self._pos]
            self._pos += 1
            result |= (b & 0x7F) << shift
            if b < 0x80:
                return result & 0xFFFFFFFFFFFFFFFF
            shift += 7
        raise JellyDecodeError("malformed frame length prefix (varint longer than 10 bytes)",
                               offset=start, frame=frame_index)

    # -- frames -----------------------------------------------------------------------------

    def detect(self) -> bool:
        self._fill(3)
        head = bytes(self._buf[self._pos:self._pos + 3])
        if len(head) == 0 or head[0] != 0x0A:
            self.delimited = True
        elif len(head) < 2 or head[1] != 0x0A:
            self.delimited = False
        else:
            self.delimited = len(head) < 3 or head[2] != 0x0A
        return self.delimited

    def frames(self) -> Iterator[bytes]:
        """Yield the bytes of each frame; ``frame_offset`` tells where each one started."""
        if self.delimited is None:
            self.detect()
        index = 0
        if not self.delimited:
            chunks = []
            size = 0
            while self._fill(1):
                piece = self._take(len(self._buf) - self._pos)
                size += len(piece)
                if size > self._max_frame:
                    raise JellyLimitError(
                        f"single-frame input exceeds the frame size limit of {self._max_frame} bytes",
                        offset=0, frame=0)
                chunks.append(piece)
            self.frame_offset = 0
            yield b"".join(chunks)
            return
        while True:
            start = self.position
            n = self._read_length(index)
            if n is None:
                return
            data = self._read_frame_bytes(n, index)
            self.frame_offset = start + (self.position - start - n)
            yield data
            index += 1


def varint_bytes(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)
