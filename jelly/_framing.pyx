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
for sockets, gRPC and asyncio); ``frames_in`` splits the frames of a buffer that is
already in memory, so frames can be decoded in place without copies.  Declared
lengths are checked against the frame size limit before anything is buffered, and buffering
follows the bytes actually fed, never the declared length.
"""

from libc.stdint cimport uint64_t
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_SIMPLE
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.bytearray cimport PyByteArray_Resize

from ._wire cimport rdf_protobuf_row, read_varint, skip_field

from .errors import JellyDecodeError, JellyError, JellyLimitError, JellyTruncatedError


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


def is_rdf_protobuf_row(const unsigned char[::1] frame):
    """Whether the bytes of a frame (without its length) are a row of Jena's RDF Protobuf and
    not Jelly (the rule is :func:`jelly._wire.rdf_protobuf_row`, which the decoder applies
    too)."""
    if frame.shape[0] == 0:
        return False
    return rdf_protobuf_row(&frame[0], &frame[0] + frame.shape[0])


cdef class FrameSplitter:
    """Splits a byte stream fed in pieces into frames.

    ``feed(data)`` returns a list of ``(offset, frame_bytes)`` for the frames completed by
    ``data`` (offset: where the frame's bytes start in the stream, after its length prefix;
    the bytes: ``bytes``, or a ``memoryview`` of a frame gathered from several pieces);
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
    cdef object error           # raised by the next call (frames before it went out)

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

    @property
    def wanted(self):
        """Bytes that the frame begun in what was fed still lacks, once its length prefix is
        there (else 0): a reader of a file may read them straight into place
        (:meth:`read_into`)."""
        cdef const unsigned char* p
        cdef const unsigned char* q
        cdef uint64_t size
        cdef Py_ssize_t left = len(self.buf) - self.start
        if not self.delimited or left == 0 or self.finished or self.error is not None:
            return 0
        p = <const unsigned char*>(<char*>self.buf) + self.start
        q = read_varint(p, p + left, &size)
        if q == NULL or size > self.max_frame:
            return 0            # feed() says what is wrong
        return max(0, (q - p) + <Py_ssize_t>size - left)

    def read_into(self, readinto, Py_ssize_t n):
        """Read at most ``n`` (at most :attr:`wanted`) bytes of the stream with
        ``readinto`` (a file's method) into the buffer of the frame begun, without the copies
        of feed(); returns ``(bytes read, the frames completed)``: 0 at the end of the
        stream, then :meth:`finish` says what is missing."""
        cdef Py_ssize_t old = len(self.buf), got = 0, need = self.wanted
        cdef const unsigned char* p
        cdef const unsigned char* q
        cdef uint64_t size
        cdef list out = []
        if n <= 0 or n > need:
            raise ValueError("read_into() of more than the frame begun lacks")
        PyByteArray_Resize(self.buf, old + n)       # not initialised: readinto fills it
        try:
            with memoryview(self.buf) as whole:
                with whole[old:] as space:
                    got = readinto(space) or 0
        finally:
            PyByteArray_Resize(self.buf, old + got)
        if got == need:                             # the frame is complete
            p = <const unsigned char*>(<char*>self.buf) + self.start
            q = read_varint(p, p + (len(self.buf) - self.start), &size)
            out.append((self.position + (q - p), memoryview(self.buf)[self.start + (q - p):]))
            self.frames += 1
            self._drop()
        return got, out

    def feed(self, data):
        """Add the next bytes of the stream; returns the frames they complete.  Frames
        before an error in the same bytes are returned first: the next call raises it."""
        cdef list out = []
        if self.error is not None:
            raise self.error
        try:
            self._feed(data, out)
        except JellyError as exc:
            if not out:
                raise
            self.error = exc
        return out

    cdef int _feed(self, object data, list out) except -1:
        cdef Py_buffer view
        cdef const unsigned char* d
        cdef Py_ssize_t n, used = 0, taken
        cdef int r
        if self.finished:
            raise ValueError("feed() after finish()")
        if self.delimited is None:
            self.buf += data
            r = _detect(<const unsigned char*>(<char*>self.buf) + self.start,
                        len(self.buf) - self.start)
            if r < 0:
                return 0
            self.delimited = bool(r)
            if self.delimited:      # go on with what was buffered as the new data
                data = bytes(self.buf[self.start:])
                self.base += self.start
                self.buf = bytearray()
                self.start = 0
            else:
                data = b""          # already in buf
        if not self.delimited:
            if data:
                self.buf += data
            if <uint64_t>(len(self.buf) - self.start) > self.max_frame:
                raise JellyLimitError(f"single-frame input exceeds the frame size limit of "
                                      f"{self.max_frame} bytes", offset=self.base, frame=0)
            return 0
        PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
        try:
            d = <const unsigned char*>view.buf
            n = view.len
            if self.start < len(self.buf):
                used = self._complete(d, n, out)
                if used < 0:
                    return 0        # data went into the frame that is still incomplete
            # Frames that lie whole in data are copied out of it once; the rest is kept.
            taken = self._split(d + used, d + n, self.position, out)
            self.base += taken
            if used + taken < n:
                self.buf += (<const char*>d)[used + taken:n]
        finally:
            PyBuffer_Release(&view)
        return 0

    cdef void _drop(self) noexcept:
        # Every byte in buf has been returned in a frame.
        self.base += len(self.buf)
        self.buf = bytearray()
        self.start = 0

    cdef Py_ssize_t _split(self, const unsigned char* p, const unsigned char* end,
                           Py_ssize_t at, list out) except -1:
        """Append the complete frames at p (stream offset ``at``) to out; returns the bytes
        they take (an incomplete frame at the end is left)."""
        cdef const unsigned char* begin = p
        cdef const unsigned char* q
        cdef uint64_t n
        while p < end:
            q = read_varint(p, end, &n)
            if q == NULL:
                if end - p >= 10:
                    raise JellyDecodeError("malformed frame length prefix (varint longer than "
                                           "10 bytes)", offset=at + (p - begin),
                                           frame=self.frames)
                break       # the prefix is not complete yet
            if n > self.max_frame:
                raise JellyLimitError(f"frame of {n} bytes exceeds the limit of "
                                      f"{self.max_frame} bytes", offset=at + (q - begin),
                                      frame=self.frames)
            if n > <uint64_t>(end - q):
                break       # the frame is not complete yet
            out.append((at + (q - begin), PyBytes_FromStringAndSize(<const char*>q, n)))
            self.frames += 1
            p = q + n
        return p - begin

    cdef Py_ssize_t _complete(self, const unsigned char* d, Py_ssize_t n, list out) except -2:
        """Give the frame pending in buf the bytes of d[:n] it lacks: returns how many it
        took once it is complete (then it is in out and buf is empty), or -1 if all of d went
        into it and it is still incomplete."""
        cdef bytes head
        cdef const unsigned char* h
        cdef const unsigned char* q
        cdef uint64_t size
        cdef Py_ssize_t need, m
        # The length prefix (at most 10 bytes) may lie partly in data.
        head = bytes(self.buf[self.start:self.start + 10]) + (<const char*>d)[:min(n, 10)]
        h = <const unsigned char*><char*>head
        m = min(len(head), 10)
        q = read_varint(h, h + m, &size)
        if q == NULL:
            if m >= 10:
                raise JellyDecodeError("malformed frame length prefix (varint longer than 10 "
                                       "bytes)", offset=self.position, frame=self.frames)
            self.buf += (<const char*>d)[:n]     # the prefix is not complete yet
            return -1
        if size > self.max_frame:
            raise JellyLimitError(f"frame of {size} bytes exceeds the limit of "
                                  f"{self.max_frame} bytes", offset=self.position + (q - h),
                                  frame=self.frames)
        need = <Py_ssize_t>((q - h) + size) - (len(self.buf) - self.start)
        if n < need:
            self.buf += (<const char*>d)[:n]
            return -1
        self.buf += (<const char*>d)[:need]
        # The frame is the rest of buf: a view of it, not a copy (for a frame of megabytes,
        # the copy into fresh memory took as long as decoding it).
        out.append((self.position + (q - h),
                    memoryview(self.buf)[self.start + (q - h):]))
        self.frames += 1
        self._drop()
        return need

    def finish(self):
        """The stream has ended: returns ``[(0, frame)]`` for a single-frame stream, ``[]``
        otherwise; raises if it ended inside a frame or a length prefix."""
        cdef const unsigned char* p
        cdef const unsigned char* q
        cdef uint64_t n
        cdef Py_ssize_t left = len(self.buf) - self.start
        if self.error is not None:
            raise self.error
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


cdef int _span(const unsigned char* base, Py_ssize_t size, Py_ssize_t pos,
               uint64_t max_frame_size, Py_ssize_t index, Py_ssize_t* begin,
               Py_ssize_t* stop) except -1:
    """1 and the frame whose length prefix starts at pos (begin, stop), or 0 at the end."""
    cdef const unsigned char* p = base + pos
    cdef const unsigned char* end = base + size
    cdef const unsigned char* q
    cdef uint64_t n
    if p >= end:
        return 0
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
    begin[0] = q - base
    stop[0] = q - base + <Py_ssize_t>n
    return 1


def frames_in(memoryview data, Py_ssize_t pos, uint64_t max_frame_size, Py_ssize_t index,
              Py_ssize_t max_frames):
    """``(frames, pos)``: up to ``max_frames`` delimited frames of the stream in ``data``
    from ``pos`` as ``(offset, view of the frame)``, and where the next begins; no frames at
    the end.  Frames before an error are returned first: the next call raises it."""
    cdef Py_buffer view
    cdef Py_ssize_t begin, stop
    cdef list out = []
    PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
    try:
        while len(out) < max_frames:
            try:
                if not _span(<const unsigned char*>view.buf, view.len, pos, max_frame_size,
                             index + len(out), &begin, &stop):
                    break
            except JellyError:
                if out:
                    break
                raise
            out.append((begin, data[begin:stop]))
            pos = stop
    finally:
        PyBuffer_Release(&view)
    return out, pos


# How much of a frame's start the segment scan looks at: the length prefix, the first row's
# prefix and the options message, which is small (a longer one is not taken for a segment start).
DEF HEADER_WINDOW = 4096


cdef int _first_row(const unsigned char* p, const unsigned char* fend, const unsigned char* win,
                    const unsigned char** opt, uint64_t* optlen) noexcept:
    """What the first row of the frame p..fend is, from the bytes before win: 0 not a stream
    options row; 1 a row that is exactly one options message (a segment start: opt, optlen);
    2 cannot tell (it may be an options row: the file is not split)."""
    cdef const unsigned char* t
    cdef const unsigned char* r
    cdef const unsigned char* row_end
    cdef const unsigned char* o = NULL
    cdef uint64_t tag, v
    cdef int field, last = 0, options = 0, others = 0
    while True:                 # to the frame's first rows field (0A)
        if p >= fend:
            return 0            # a frame without rows
        if p >= win:
            return 2
        t = read_varint(p, win, &tag)
        if t == NULL:
            return 2
        if tag == 0x0A:
            break
        if (tag & 7) == 2:
            t = read_varint(t, win, &v)
            if t == NULL or v > <uint64_t>(fend - t):
                return 2
            p = t + v
        else:
            p = skip_field(t, win, tag, 0)
            if p == NULL:
                return 2
    r = read_varint(t, win, &v)
    if r == NULL:
        return 2
    if v > <uint64_t>(fend - r):
        return 0                # malformed: every reader rejects the frame
    row_end = r + v
    while r < row_end:          # the row's fields: the last member of the oneof wins
        if r >= win:
            return 2
        t = read_varint(r, win, &tag)
        if t == NULL:
            return 2
        field = <int>(tag >> 3) if (tag >> 3) < 64 else 0
        if (tag & 7) == 2:
            r = read_varint(t, win, &v)
            if r == NULL or v > <uint64_t>(row_end - r):
                return 2
            if field == 1:
                options += 1
                o = r
                optlen[0] = v
            elif 2 <= field <= 6 or 9 <= field <= 11:
                others += 1
            if 1 <= field <= 6 or 9 <= field <= 11:
                last = field
            r = r + v
        else:
            r = skip_field(t, win, tag, 0)
            if r == NULL:
                return 2
    if last != 1:
        return 0
    if options == 1 and others == 0 and o + optlen[0] <= win:
        opt[0] = o
        return 1
    return 2


def segment_starts(data, Py_ssize_t pos=0, Py_ssize_t index=0,
                   uint64_t max_frame_size=2**62):
    """Walk the length prefixes of the delimited frames in ``data`` (any buffer) from ``pos``, a
    frame boundary (``index``: that frame's number), and find the candidate segment starts:
    frames whose first row is exactly a stream options row (see :mod:`jelly.parallel`).  Only
    each frame's prefix and first bytes are read.

    Returns ``(starts, pos, index)``: ``starts`` a list of ``(offset, frame index, options)``
    (``offset``: where the frame's length prefix is; ``options``: the bytes of its
    ``RdfStreamOptions``, or None for a frame whose first row may be an options row in a form
    that is not a plain segment start), and where the walk stopped, with that frame's number:
    at the end of ``data``; before a frame whose start ``data`` does not hold (a block of a
    larger file: read on from there; in a whole file, it is truncated); or beyond the end of
    ``data``, when the last frame walked ends there.  Raises like :class:`FrameSplitter` for a
    malformed or oversized length prefix."""
    cdef Py_buffer view
    cdef const unsigned char* base
    cdef const unsigned char* p
    cdef const unsigned char* q
    cdef const unsigned char* o = NULL
    cdef const unsigned char* end
    cdef const unsigned char* win
    cdef uint64_t n, optlen = 0
    cdef int kind
    cdef list starts = []
    PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
    try:
        base = <const unsigned char*>view.buf
        end = base + view.len
        p = base + pos
        while p < end:
            q = read_varint(p, end, &n)
            if q == NULL:
                if end - p >= 10:
                    raise JellyDecodeError("malformed frame length prefix (varint longer than "
                                           "10 bytes)", offset=p - base, frame=index)
                break       # the prefix is not in data
            if n > max_frame_size:
                raise JellyLimitError(f"frame of {n} bytes exceeds the limit of "
                                      f"{max_frame_size} bytes", offset=q - base, frame=index)
            win = q + (n if n < HEADER_WINDOW else HEADER_WINDOW)
            if win > end:
                break       # the frame's start is not in data
            kind = _first_row(q, q + n, win, &o, &optlen)
            if kind == 1:
                starts.append((p - base, index, PyBytes_FromStringAndSize(<const char*>o, optlen)))
            elif kind == 2:
                starts.append((p - base, index, None))
            index += 1
            if n > <uint64_t>(end - q):
                return starts, (q - base) + <Py_ssize_t>n, index     # it ends beyond data
            p = q + n
        return starts, p - base, index
    finally:
        PyBuffer_Release(&view)
