# Wire-format primitives shared by every reader and writer (protobuf and Thrift compact): the
# only varint code of the package.
from libc.stdint cimport uint64_t, int64_t

# Protobuf wire types.
cdef enum:
    WT_VARINT = 0
    WT_I64 = 1
    WT_LEN = 2
    WT_SGROUP = 3
    WT_EGROUP = 4
    WT_I32 = 5

# Kinds of RDF terms, as the oneofs of rdf.proto distinguish them (K_NONE: no term, i.e. a
# repeated term).
cdef enum:
    K_NONE = 0
    K_IRI = 1
    K_BNODE = 2
    K_LITERAL = 3
    K_TRIPLE = 4
    K_DEFAULT = 5

# Deepest group nesting skipped inside unknown fields (upb's default recursion limit).
cdef enum:
    MAX_GROUP_DEPTH = 100


cdef inline const unsigned char* read_varint(const unsigned char* p, const unsigned char* end,
                                             uint64_t* out) noexcept nogil:
    """Read a varint of at most 10 bytes; NULL when truncated or longer than 10 bytes.

    Bits above 64 in a 10th byte are dropped, as protobuf implementations do.
    """
    cdef uint64_t result = 0
    cdef unsigned int shift = 0
    cdef unsigned char b
    if p < end and p[0] < 0x80:
        out[0] = p[0]
        return p + 1
    while shift <= 63:
        if p >= end:
            return NULL
        b = p[0]
        p += 1
        result |= (<uint64_t>(b & 0x7F)) << shift
        if b < 0x80:
            out[0] = result
            return p
        shift += 7
    return NULL


cdef inline bint bad_tag(uint64_t tag) noexcept nogil:
    """Field number 0, or above protobuf's maximum of 2**29 - 1 (the tag exceeds 32 bits)."""
    return (tag >> 3) == 0 or (tag >> 32) != 0


cdef inline const unsigned char* skip_field(const unsigned char* p, const unsigned char* end,
                                            uint64_t tag, int depth) noexcept nogil:
    """Skip the value of a protobuf field whose tag was just read; NULL if malformed."""
    cdef uint64_t v
    cdef unsigned int wt = tag & 7
    if wt == WT_VARINT:
        return read_varint(p, end, &v)
    if wt == WT_I64:
        return p + 8 if end - p >= 8 else NULL
    if wt == WT_LEN:
        p = read_varint(p, end, &v)
        if p == NULL or v > <uint64_t>(end - p):
            return NULL
        return p + v
    if wt == WT_I32:
        return p + 4 if end - p >= 4 else NULL
    if wt == WT_SGROUP:
        if depth >= MAX_GROUP_DEPTH:
            return NULL
        while True:
            p = read_varint(p, end, &v)
            if p == NULL or bad_tag(v):
                return NULL
            if (v & 7) == WT_EGROUP:
                return p if (v >> 3) == (tag >> 3) else NULL
            p = skip_field(p, end, v, depth + 1)
            if p == NULL:
                return NULL
    return NULL  # a stray end-group, or wire types 6 and 7


cdef inline int varint_size(uint64_t v) noexcept nogil:
    cdef int n = 1
    while v >= 0x80:
        v >>= 7
        n += 1
    return n


cdef inline unsigned char* write_varint(unsigned char* p, uint64_t v) noexcept nogil:
    while v >= 0x80:
        p[0] = <unsigned char>((v & 0x7F) | 0x80)
        v >>= 7
        p += 1
    p[0] = <unsigned char>v
    return p + 1


# Zigzag encoding of signed integers (protobuf sint32/sint64, Thrift compact i16/i32/i64).

cdef inline uint64_t zigzag(int64_t v) noexcept nogil:
    return (<uint64_t>v << 1) ^ <uint64_t>(v >> 63)


cdef inline int64_t unzigzag(uint64_t v) noexcept nogil:
    return <int64_t>(v >> 1) ^ -<int64_t>(v & 1)


cdef inline bint rdf_protobuf_row(const unsigned char* p, const unsigned char* end) noexcept nogil:
    """Whether the bytes of a frame ``p`` .. ``end`` are a row of Jena's RDF Protobuf rather
    than Jelly: it is delimited protobuf too, and its triple, quad and base rows (fields 2, 3,
    4, unknown to RdfStreamFrame) read as a frame of one unknown field and no rows, which would
    pass as empty.  So: one such field, whole, holding a message (its field 1).  A Jelly frame
    with unknown fields beside its rows is what a later version may write."""
    cdef uint64_t n
    cdef const unsigned char* q
    if end - p < 3 or not (p[0] == 0x12 or p[0] == 0x1A or p[0] == 0x22):
        return False
    q = read_varint(p + 1, end, &n)
    return q != NULL and q < end and n == <uint64_t>(end - q) and q[0] == 0x0A
