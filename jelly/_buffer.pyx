# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The read cursor and the write buffer shared by every wire format.

``WireReader`` is a compliant protobuf reader over one frame: every read is checked against the
end of its message, fields may come in any order, unknown fields are skipped by wire type,
repeated occurrences of a singular message field are merged and the last member of a oneof
wins.  Every error carries the byte offset in the stream, the frame and the row.

``WriteBuffer`` is the growable output of an encoder; it owns the length prefixes of messages
(``wb_open`` / ``wb_close``) and of frames (``wb_take``).
"""

from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.unicode cimport PyUnicode_AsUTF8AndSize

from ._wire cimport WT_LEN, read_varint, skip_field, write_varint, varint_size

from .errors import JellyDecodeError, JellyEncodeError, JellyError, JellyLimitError


# ---------------------------------------------------------------------------------- writing

cdef int wb_init(WriteBuffer* b, Py_ssize_t cap) except -1:
    b.data = <unsigned char*>malloc(cap)
    if b.data == NULL:
        raise MemoryError()
    b.len = 0
    b.cap = cap
    return 0


cdef void wb_free(WriteBuffer* b) noexcept:
    free(b.data)
    b.data = NULL
    b.len = b.cap = 0


cdef int wb_grow(WriteBuffer* b, Py_ssize_t need) except -1:
    cdef Py_ssize_t cap = b.cap if b.cap > 0 else 64
    cdef unsigned char* nd
    while cap < need:
        cap *= 2
    nd = <unsigned char*>realloc(b.data, cap)
    if nd == NULL:
        raise MemoryError()
    b.data = nd
    b.cap = cap
    return 0


cdef bytes wb_take(WriteBuffer* b, bint delimited):
    """The buffer's bytes (after their length as a varint when ``delimited``); empties it."""
    cdef Py_ssize_t n = varint_size(b.len) if delimited else 0
    cdef bytes out = PyBytes_FromStringAndSize(NULL, n + b.len)
    cdef unsigned char* p = <unsigned char*>PyBytes_AS_STRING(out)
    if delimited:
        write_varint(p, b.len)
    memcpy(p + n, b.data, b.len)
    b.len = 0
    return out


cdef int utf8_encoded(str s, const char** out, Py_ssize_t* n) except -1:
    """The UTF-8 bytes of ``s`` (cached inside the str object, valid while it lives); see
    ``utf8_of``, which calls this for a str that is not ASCII."""
    try:
        out[0] = PyUnicode_AsUTF8AndSize(s, n)
    except UnicodeEncodeError:
        raise JellyEncodeError(f"string {s[:40]!r} cannot be written as UTF-8 "
                               f"(it holds a lone surrogate)") from None
    return 0


# ------------------------------------------------------------------------- worker memory

cdef extern from *:
    """
    #if defined(__linux__) && defined(__GLIBC__)
    #include <malloc.h>
    #include <stdint.h>
    #include <sys/mman.h>
    #include <unistd.h>
    static int jelly_hold_heap(size_t reserve) {
        void *before, *p, *top;
        uintptr_t start;
        size_t probe = (size_t)16 << 20;
        int advised = 0;
        /* Every block from the heap (up to glibc's most, 32 MiB), never given back: a block
           freed is used again without a page fault. */
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
        if (reserve > (1u << 30))
            reserve = (size_t)1 << 30;
        mallopt(M_TOP_PAD, (int)reserve);
        /* Grow the heap now (a block larger than its free top: by the block and the pad)
           and ask for huge pages in what it grew by. */
        before = sbrk(0);
        p = malloc(probe);
        if (p == NULL)
            return 0;
        top = sbrk(0);
    #ifdef MADV_HUGEPAGE
        start = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
        if (before != (void *)-1 && top != (void *)-1 && top > before
                && (uintptr_t)top > start && (uintptr_t)top - start <= probe + reserve)
            advised = madvise((void *)start, (uintptr_t)top - start, MADV_HUGEPAGE) == 0;
    #endif
        free(p);
        return advised;
    }
    #else
    static int jelly_hold_heap(size_t reserve) { (void)reserve; return 0; }
    #endif
    """
    int jelly_hold_heap(size_t reserve) nogil


def hold_heap(size_t reserve):
    """Make this process keep the memory it frees and take the next ``reserve`` bytes of its
    heap in huge pages, where the system allows it (Linux with glibc; elsewhere nothing is
    done).  True if huge pages were asked for.

    For a worker process of a parallel conversion (:mod:`jelly.parallel`): it holds each part's
    output until its place is known, and a forked process takes every page of that memory
    with a page fault, first touched: two workers took 33,000 of them for 260 MB of N-Triples,
    where one process reusing its memory took 1,700, and spent a tenth of their time there.
    (A worker forked from a process with a large heap, a long-running program, reuses the free
    memory it inherits instead, with a copy-on-write fault per page.)"""
    return bool(jelly_hold_heap(reserve))


# ---------------------------------------------------------------------------------- reading

cdef class WireReader:

    def __init__(self):
        self.max_nesting = 100

    cdef Py_ssize_t offset_of(self, const unsigned char* at):
        if self.in_scratch:
            return self.scratch_offset
        return self.base_offset + (at - self.base)

    cdef int fail(self, const unsigned char* at, str message, type cls=JellyDecodeError) except -1:
        raise cls(message, offset=self.offset_of(at), frame=self.frame_index, row=self.row_index)

    cdef int malformed(self, const unsigned char* at, str what) except -1:
        return self.fail(at, f"malformed protobuf: {what}")

    cdef int field_kind(self, int mtype, uint64_t field, int* sub) noexcept:
        return F_UNKNOWN

    cdef int validate(self, int mtype, const unsigned char* p, const unsigned char* end,
                      int depth) except -1:
        """Check a message as protobuf would parse it, without decoding it."""
        cdef uint64_t tag, v
        cdef const unsigned char* q
        cdef int sub = 0
        cdef int kind
        if depth > self.max_nesting:
            self.fail(p, "messages nested too deeply", JellyLimitError)
        while p < end:
            q = self.tag(p, end, &tag)
            kind = self.field_kind(mtype, tag >> 3, &sub)
            if kind == F_VARINT and (tag & 7) == 0:
                p = self.varint(q, end, &v)
            elif (kind == F_STRING or kind == F_MSG) and (tag & 7) == WT_LEN:
                p = self.length(q, end, &v)
                if kind == F_STRING:
                    self.string(p, p + v)
                else:
                    self.validate(sub, p, p + v, depth + 1)
                p = p + v
            else:
                p = self.skip(q, end, tag)
        return 0

    cdef int validate_run(self, Slot* s, int mtype, const unsigned char* stop) except -1:
        """Validate every occurrence of ``s.field`` from ``s.run`` to ``stop`` (payloads that a
        later occurrence or another oneof member overrides)."""
        cdef const unsigned char* p = s.run
        cdef const unsigned char* q
        cdef uint64_t tag, v
        cdef int sub = 0
        cdef int kind
        while p < stop:
            q = read_varint(p, stop, &tag)
            if (tag >> 3) == <uint64_t>s.field and (tag & 7) == WT_LEN:
                p = read_varint(q, stop, &v)
                kind = self.field_kind(mtype, tag >> 3, &sub)
                if kind == F_STRING:
                    self.string(p, p + v)
                else:
                    self.validate(sub, p, p + v, 0)
                p = p + v
            else:
                p = skip_field(q, stop, tag, 0)
        return 0

    cdef bytes merged(self, Slot* s, int mtype):
        """Protobuf merges repeated occurrences of a singular message: that is the same as
        parsing their payloads concatenated, once each payload is valid on its own."""
        cdef const unsigned char* p = s.run
        cdef const unsigned char* q
        cdef uint64_t tag, v
        self.validate_run(s, mtype, s.end)
        parts = []
        while p < s.end:
            q = read_varint(p, s.end, &tag)
            if (tag >> 3) == <uint64_t>s.field and (tag & 7) == WT_LEN:
                p = read_varint(q, s.end, &v)
                parts.append(PyBytes_FromStringAndSize(<const char*>p, v))
                p = p + v
            else:
                p = skip_field(q, s.end, tag, 0)
        return b"".join(parts)

    cdef Py_ssize_t scratch_begin(self, Slot* s):
        """Enter a merged payload (a bytes copy): errors in it are reported at the first
        occurrence.  Returns what scratch_end needs to restore."""
        cdef Py_ssize_t saved = self.scratch_offset if self.in_scratch else -1
        if not self.in_scratch:
            self.scratch_offset = self.offset_of(s.run)
        self.in_scratch = True
        return saved

    cdef void scratch_end(self, Py_ssize_t saved) noexcept:
        self.in_scratch = saved >= 0
        if saved >= 0:
            self.scratch_offset = saved

    cdef object locate(self, object exc):
        """The error to raise for ``exc`` caught while decoding a frame: a JellyError keeps its
        type and message and gets the location if it has none (e.g. one raised by a term
        factory); anything else becomes a JellyDecodeError.  The reader stays failed."""
        if isinstance(exc, JellyError):
            if exc.offset is None and exc.frame is None:
                exc.offset, exc.frame, exc.row = self.base_offset, self.frame_index, self.row_index
                exc.args = (exc._describe(),)
        else:
            exc = JellyDecodeError(f"cannot decode frame: {exc!r}", offset=self.base_offset,
                                   frame=self.frame_index, row=self.row_index)
        self.failed = exc
        return exc
