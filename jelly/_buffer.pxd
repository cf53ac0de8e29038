# The read cursor and the write buffer: every wire format of the package reads through
# WireReader and writes through WriteBuffer.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memmove

from ._wire cimport read_varint, bad_tag, skip_field, write_varint, varint_size
from ._ntchars cimport utf8_seq

cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, uint32_t maxchar)
    void* PyUnicode_DATA(object s)
    bint PyUnicode_IS_COMPACT_ASCII(object s)
    Py_ssize_t PyUnicode_GET_LENGTH(object s)


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


cdef int utf8_encoded(str s, const char** out, Py_ssize_t* n) except -1


cdef inline int utf8_of(str s, const char** out, Py_ssize_t* n) except -1:
    # The UTF-8 bytes of s, valid while it lives: an ASCII str's own characters (most IRIs and
    # N-Triples terms, with no call), else the UTF-8 copy the str caches (utf8_encoded).
    if PyUnicode_IS_COMPACT_ASCII(s):
        out[0] = <const char*>PyUnicode_DATA(s)
        n[0] = PyUnicode_GET_LENGTH(s)
        return 0
    return utf8_encoded(s, out, n)


# ---------------------------------------------------------------------------------- reading

cdef inline void _put(void* d, uint32_t widest, Py_ssize_t j, uint32_t cp) noexcept nogil:
    # Character j of a str's data, of the kind that widest selects.
    if widest == 0xFF:
        (<uint8_t*>d)[j] = <uint8_t>cp
    elif widest == 0xFFFF:
        (<uint16_t*>d)[j] = <uint16_t>cp
    else:
        (<uint32_t*>d)[j] = cp


cdef inline object utf8_str(const unsigned char* p, Py_ssize_t n):
    """Strict UTF-8 (as Python's codec: no overlongs, surrogates or code points above U+10FFFF)
    to a str, or None if invalid.  A cheap first pass sizes the str (characters: the bytes that
    are not continuation bytes; its kind: from the highest lead byte), the second decodes into
    it, checking every sequence.  CPython's decoder instead grows a buffer and shrinks it,
    which is most of the cost of the short non-ASCII strings RDF literals are."""
    cdef Py_ssize_t i = 0, j, k, m, cont = 0
    cdef uint64_t w
    cdef uint32_t cp, widest
    cdef unsigned char b, top = 0
    cdef object s
    cdef void* d
    while i + 8 <= n:
        memcpy(&w, p + i, 8)
        if w & 0x8080808080808080ULL:
            break
        i += 8
    while i < n and p[i] < 0x80:
        i += 1
    if i == n:
        s = PyUnicode_New(n, 127)
        memcpy(PyUnicode_DATA(s), p, n)
        return s
    for k in range(i, n):
        b = p[k]
        cont += (b & 0xC0) == 0x80
        if b > top:
            top = b
    # Leads C2-C3 encode U+0080-U+00FF, up to EF the rest of the BMP, F0-F4 the planes above.
    widest = 0xFF if top < 0xC4 else 0xFFFF if top < 0xF0 else 0x10FFFF
    m = n - cont              # characters, if the bytes are valid
    s = PyUnicode_New(m, widest)
    d = PyUnicode_DATA(s)
    for j in range(i):
        _put(d, widest, j, p[j])
    j = k = i
    while k < n:
        if p[k] < 0x80:
            cp = p[k]
            k += 1
        else:
            b = <unsigned char>utf8_seq(p + k, p + n, &cp)
            if b == 0:
                return None
            k += b
        if j == m:
            return None
        _put(d, widest, j, cp)
        j += 1
    return s if j == m else None


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
        s = utf8_str(p, end - p)
        if s is None:
            self.fail(p, "invalid UTF-8 in a string field")
        return <str>s

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
