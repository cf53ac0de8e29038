# The read cursor and the write buffer: every wire format of the package reads through
# WireReader and writes through WriteBuffer.
from libc.stdint cimport uint64_t
from libc.string cimport memcpy, memmove
from cpython.unicode cimport PyUnicode_DecodeUTF8

from ._wire cimport read_varint, bad_tag, skip_field, write_varint, varint_size


# ---------------------------------------------------------------------------------- writing

cdef struct WriteBuffer:
    unsigned char* data
    Py_ssize_t len
    Py_ssize_t cap

cdef int wb_init(WriteBuffer* b, Py_ssize_t cap) except -1
cdef void wb_free(WriteBuffer* b) noexcept
cdef int wb_grow(WriteBuffer* b, Py_ssize_t need) except -1
cdef bytes wb_take(WriteBuffer* b, bint delimited)


cdef inline int wb_ensure(WriteBuffer* b, Py_ssize_t extra) except -1:
    if b.len + extra > b.cap:
        wb_grow(b, b.len + extra)
    return 0


cdef inline void wb_byte(WriteBuffer* b, unsigned char c) noexcept:
    # Callers ensure room first (wb_ensure), once for a run of small writes.
    b.data[b.len] = c
    b.len += 1


cdef inline void wb_varint(WriteBuffer* b, uint64_t v) noexcept:
    b.len = write_varint(b.data + b.len, v) - b.data


cdef inline Py_ssize_t wb_open(WriteBuffer* b) noexcept:
    # Reserve one byte for the length of a message; wb_close writes it (moving the body in the
    # rare case the length needs more than one byte).
    cdef Py_ssize_t at = b.len
    b.len += 1
    return at


cdef inline int wb_close(WriteBuffer* b, Py_ssize_t at) except -1:
    cdef Py_ssize_t body = b.len - at - 1
    cdef int n
    if body < 0x80:
        b.data[at] = <unsigned char>body
        return 0
    n = varint_size(body)
    wb_ensure(b, n - 1)
    memmove(b.data + at + n, b.data + at + 1, body)
    write_varint(b.data + at, body)
    b.len += n - 1
    return 0


cdef inline int wb_bytes(WriteBuffer* b, const char* s, Py_ssize_t n) except -1:
    wb_ensure(b, n)
    memcpy(b.data + b.len, s, n)
    b.len += n
    return 0


cdef inline int wb_string_field(WriteBuffer* b, uint64_t tag, const char* s,
                                Py_ssize_t n) except -1:
    # A length-delimited protobuf field: tag, length, bytes.
    wb_ensure(b, 20 + n)
    wb_varint(b, tag)
    wb_varint(b, n)
    memcpy(b.data + b.len, s, n)
    b.len += n
    return 0


cdef int utf8_of(str s, const char** out, Py_ssize_t* n) except -1


# ---------------------------------------------------------------------------------- reading

# Field kinds of a message schema, for validating messages that are not decoded.
cdef enum:
    F_UNKNOWN = 0
    F_VARINT = 1
    F_STRING = 2
    F_MSG = 3


cdef struct Slot:
    # The state of one oneof while a message is scanned.
    int field                       # the member set last (0: none)
    int count                       # occurrences of that member since it was last set
    const unsigned char* run        # tag of the first occurrence since it was last set
    const unsigned char* p          # payload of the last occurrence
    const unsigned char* end
    uint64_t value                  # varint members


cdef class WireReader:
    """A protobuf reader over the bytes of one frame, with the position of every error.

    Subclasses hold the rules of one format and describe its schema in field_kind, which
    validate uses for messages that are parsed but not decoded (protobuf parses them)."""

    cdef const unsigned char* base      # start of the frame being decoded
    cdef Py_ssize_t base_offset         # its offset in the whole stream
    cdef public Py_ssize_t frame_index
    cdef Py_ssize_t row_index
    cdef bint in_scratch                # decoding a merged copy: errors at scratch_offset
    cdef Py_ssize_t scratch_offset
    cdef int max_nesting
    cdef public object failed           # the error that stopped this reader, if any

    cdef Py_ssize_t offset_of(self, const unsigned char* at)
    cdef int fail(self, const unsigned char* at, str message, type cls=*) except -1
    cdef int malformed(self, const unsigned char* at, str what) except -1
    cdef int field_kind(self, int mtype, uint64_t field, int* sub) noexcept
    cdef int validate(self, int mtype, const unsigned char* p, const unsigned char* end,
                      int depth) except -1
    cdef int validate_run(self, Slot* s, int mtype, const unsigned char* stop) except -1
    cdef bytes merged(self, Slot* s, int mtype)
    cdef Py_ssize_t scratch_begin(self, Slot* s)
    cdef void scratch_end(self, Py_ssize_t saved) noexcept
    cdef object locate(self, object exc)

    cdef inline const unsigned char* tag(self, const unsigned char* p, const unsigned char* end,
                                         uint64_t* tag) except NULL:
        """Read a field tag at p; returns the position after it."""
        cdef const unsigned char* q = read_varint(p, end, tag)
        if q == NULL or bad_tag(tag[0]):
            self.malformed(p, "bad field tag (field 0, truncated, or longer than 10 bytes)")
        return q

    cdef inline const unsigned char* length(self, const unsigned char* q,
                                            const unsigned char* end, uint64_t* v) except NULL:
        """Read the length of a length-delimited field at q; returns where its payload starts."""
        cdef const unsigned char* p = read_varint(q, end, v)
        if p == NULL or v[0] > <uint64_t>(end - p):
            self.malformed(q, "length past the end of the message")
        return p

    cdef inline const unsigned char* varint(self, const unsigned char* q,
                                            const unsigned char* end, uint64_t* v) except NULL:
        """Read a varint field value at q."""
        cdef const unsigned char* p = read_varint(q, end, v)
        if p == NULL:
            self.malformed(q, "truncated field or varint longer than 10 bytes")
        return p

    cdef inline const unsigned char* skip(self, const unsigned char* q, const unsigned char* end,
                                          uint64_t tag) except NULL:
        """Skip the value of an unknown field whose tag ended at q."""
        cdef const unsigned char* p = skip_field(q, end, tag, 0)
        if p == NULL:
            self.malformed(q, "truncated field or varint longer than 10 bytes")
        return p

    cdef inline str string(self, const unsigned char* p, const unsigned char* end):
        """A string field's value: strict UTF-8."""
        if p == end:
            return ""
        try:
            return PyUnicode_DecodeUTF8(<const char*>p, end - p, NULL)
        except UnicodeDecodeError:
            self.fail(p, "invalid UTF-8 in a string field")

    cdef inline int record(self, Slot* s, int field, int mtype, const unsigned char* tagpos,
                           const unsigned char* p, uint64_t v) except -1:
        """Note an occurrence of a oneof member (payload p .. p + v, tag at tagpos): a later
        member overrides the earlier one (which protobuf still parses, so it is validated), and
        repeated occurrences of one member are counted for merging."""
        if s.field == field:
            s.count += 1
        else:
            if s.field != 0:
                self.validate_run(s, mtype, tagpos)
            s.field = field
            s.count = 1
            s.run = tagpos
        s.p = p
        s.end = p + v
        return 0
