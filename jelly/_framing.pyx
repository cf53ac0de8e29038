# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Framing: where the frames of a byte stream begin and end.

Jelly files (and Jelly-Patch files) come in two variants: delimited (each frame prefixed by its
length as a varint) and single-frame (one frame, no prefix).  They are told apart from the first
bytes, as jelly-jvm does: every single-frame file starts with ``0A`` (field 1 of the frame
message) followed by the length of the first row, whose first field is again tagged ``0A``;
a delimited file starts with a length, then the frame's ``0A``.  So: a first byte other than
``0A`` (or empty input) means delimited; ``0A`` followed by a byte other than ``0A`` means
single-frame; ``0A 0A`` means delimited unless the third byte is ``0A`` too.

``FrameSplitter`` is the push interface (``feed(bytes)`` returns the frames completed so far,
for sockets, gRPC and asyncio); ``next_frame`` finds the next frame of a buffer that is
already in memory, so frames can be decoded in place without copies.  Declared
lengths are checked against the frame size limit before anything is buffered, and buffering
follows the bytes actually fed, never the declared length.
"""

from libc.stdint cimport uint64_t
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_SIMPLE
from cpython.bytes cimport PyBytes_FromStringAndSize

from ._wire cimport read_varint

from .errors import JellyDecodeError, JellyLimitError, JellyTruncatedError


cdef int _detect(const unsigned char* p, Py_ssize_t n) noexcept:
    """1: delimited, 0: single frame, -1: not enough bytes to tell."""
    if n == 0:
        return -1
    if p[0] != 0x0A:
        return 1
    if n < 2:
        return -1
    if p[1] != 0x0A:
        return 0
    if n < 3:
        return -1
    return 1 if p[2] != 0x0A else 0


def detect_delimited(head, bint complete=False):
    """Whether the stream starting with ``head`` is delimited (True), a single frame (False),
    or cannot be told yet (None: fewer than three bytes).  With ``complete`` (``head`` is the
    whole stream) a short input is read as what it can be: empty input and ``0A 0A`` (a frame
    length of 10) as delimited, a lone ``0A`` as a single frame."""
    cdef bytes h = bytes(head[:3])
    cdef int r = _detect(<const unsigned char*><char*>h, len(h))
    if r >= 0:
        return bool(r)
    if complete:
        return len(h) == 0 or h[0] != 0x0A or (len(h) >= 2 and h[1] == 0x0A)
    return None


cdef class FrameSplitter:
    """Splits a byte stream fed in pieces into frames.

    ``feed(data)`` returns a list of ``(offset, frame_bytes)`` for the frames completed by
    ``data`` (offset: where the frame's bytes start in the stream, after its length prefix);
    ``finish()`` says the stream has ended: it returns the frame of a single-frame stream and
    raises :class:`JellyTruncatedError` if the stream ended inside a frame.  ``delimited``
    forces a variant (default: detect it).
    """

    cdef bytearray buf          # bytes fed and not yet returned
    cdef Py_ssize_t base        # stream offset of buf[0]
    cdef Py_ssize_t start       # first unconsumed byte in buf
    cdef public object delimited
    cdef uint64_t max_frame
    cdef Py_ssize_t frames
    cdef bint finished

    def __init__(self, *, max_frame_size=512 * 1024 * 1024, delimited=None):
        self.buf = bytearray()
        self.base = 0
        self.start = 0
        self.delimited = delimited
        self.max_frame = max_frame_size
        self.frames = 0

    @property
    def position(self):
        """Stream offset of the first byte not yet returned in a frame."""
        return self.base + self.start

    @property
    def buffered(self):
        """Bytes fed but not yet returned in a frame."""
        return len(self.buf) - self.start

    def feed(self, data):
        """Add the next bytes of the stream; returns the frames they complete."""
        cdef list out = []
        cdef const unsigned char* p
        cdef const unsigned char* q
        cdef const unsigned char* end
        cdef uint64_t n
        cdef int r
        if self.finished:
            raise ValueError("feed() after finish()")
        if data:
            self.buf += data
        p = <const unsigned char*>(<char*>self.buf) + self.start
        end = <const unsigned char*>(<char*>self.buf) + len(self.buf)
        if self.delimited is None:
            r = _detect(p, end - p)
            if r < 0:
                return out
            self.delimited = bool(r)
        if not self.delimited:
            if <uint64_t>(end - p) > self.max_frame:
                raise JellyLimitError(f"single-frame input exceeds the frame size limit of "
                                      f"{self.max_frame} bytes", offset=self.base, frame=0)
            return out
        while p < end:
            q = read_varint(p, end, &n)
            if q == NULL:
                if end - p >= 10:
                    raise JellyDecodeError("malformed frame length prefix (varint longer than "
                                           "10 bytes)", offset=self.position, frame=self.frames)
                break       # the prefix is not complete yet
            if n > self.max_frame:
                raise JellyLimitError(f"frame of {n} bytes exceeds the limit of "
                                      f"{self.max_frame} bytes", offset=self.position + (q - p),
                                      frame=self.frames)
            if n > <uint64_t>(end - q):
                break       # the frame is not complete yet
            out.append((self.base + (q - <const unsigned char*>(<char*>self.buf)),
                        PyBytes_FromStringAndSize(<const char*>q, n)))
            self.frames += 1
            p = q + n
            self.start = p - <const unsigned char*>(<char*>self.buf)
        self._compact()
        return out

    cdef void _compact(self) noexcept:
        # Drop consumed bytes once they are most of the buffer (amortised O(1) per byte).
        if self.start > 65536 and self.start * 2 > len(self.buf):
            del self.buf[:self.start]
            self.base += self.start
            self.start = 0

    def finish(self):
        """The stream has ended: returns ``[(0, frame)]`` for a single-frame stream, ``[]``
        otherwise; raises if it ended inside a frame or a length prefix."""
        cdef const unsigned char* p
        cdef const unsigned char* q
        cdef uint64_t n
        cdef Py_ssize_t left = len(self.buf) - self.start
        self.finished = True
        if self.delimited is None:
            self.delimited = detect_delimited(self.buf[self.start:], True)
        if not self.delimited:
            data = bytes(self.buf[self.start:])
            self.buf = bytearray()
            return [(self.base + self.start, data)]
        if left == 0:
            return []
        p = <const unsigned char*>(<char*>self.buf) + self.start
        q = read_varint(p, p + left, &n)
        if q == NULL:
            raise JellyTruncatedError("input ends inside a frame length prefix",
                                      offset=self.position, frame=self.frames)
        raise JellyTruncatedError(f"input ends inside a frame: {n} bytes announced, "
                                  f"{left - (q - p)} present", offset=self.position + (q - p),
                                  frame=self.frames)


def next_frame(data, Py_ssize_t pos, uint64_t max_frame_size=2**62, Py_ssize_t index=0):
    """``(begin, end)`` of the delimited frame whose length prefix starts at ``pos`` in
    ``data`` (any buffer holding a complete stream), or None at its end; scans only the
    prefix.  Raises like :class:`FrameSplitter` for malformed, oversized or truncated input
    (``index`` is the frame's number, for the error)."""
    cdef Py_buffer view
    cdef const unsigned char* base
    cdef const unsigned char* p
    cdef const unsigned char* q
    cdef const unsigned char* end
    cdef uint64_t n
    PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
    try:
        base = <const unsigned char*>view.buf
        p = base + pos
        end = base + view.len
        if p >= end:
            return None
        q = read_varint(p, end, &n)
        if q == NULL:
            if end - p >= 10:
                raise JellyDecodeError("malformed frame length prefix (varint longer than 10 "
                                       "bytes)", offset=pos, frame=index)
            raise JellyTruncatedError("input ends inside a frame length prefix", offset=pos,
                                      frame=index)
        if n > max_frame_size:
            raise JellyLimitError(f"frame of {n} bytes exceeds the limit of {max_frame_size} "
                                  f"bytes", offset=q - base, frame=index)
        if n > <uint64_t>(end - q):
            raise JellyTruncatedError(f"input ends inside a frame: {n} bytes announced, "
                                      f"{end - q} present", offset=q - base, frame=index)
        return q - base, q - base + <Py_ssize_t>n
    finally:
        PyBuffer_Release(&view)
