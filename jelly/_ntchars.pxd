# Character-level helpers of the N-Triples / N-Quads codec (inline, no state): strict UTF-8,
# UCHAR escapes, the PN_CHARS classes of the W3C grammars, and the hash of the parser's term
# cache.  The byte tables stay in _ntriples.pyx (a .pxd cannot hold initialised arrays).
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memcmp, memcpy


cdef inline signed char hex_value(unsigned char c) noexcept nogil:
    if 48 <= c <= 57:
        return <signed char>(c - 48)
    if 65 <= c <= 70:
        return <signed char>(c - 55)
    if 97 <= c <= 102:
        return <signed char>(c - 87)
    return -1


cdef inline Py_ssize_t utf8_seq(const unsigned char* p, const unsigned char* end,
                                uint32_t* cp) noexcept nogil:
    """Length of the well-formed UTF-8 sequence at p (p[0] >= 0x80), or 0.

    Rejects overlong forms, surrogates and code points above U+10FFFF, like Python's codec.
    """
    cdef unsigned char c = p[0], c1, c2, c3
    if c < 0xC2:
        return 0
    if c < 0xE0:
        if end - p < 2:
            return 0
        c1 = p[1]
        if (c1 & 0xC0) != 0x80:
            return 0
        cp[0] = ((c & 0x1F) << 6) | (c1 & 0x3F)
        return 2
    if c < 0xF0:
        if end - p < 3:
            return 0
        c1 = p[1]
        c2 = p[2]
        if (c1 & 0xC0) != 0x80 or (c2 & 0xC0) != 0x80:
            return 0
        if (c == 0xE0 and c1 < 0xA0) or (c == 0xED and c1 >= 0xA0):
            return 0
        cp[0] = ((c & 0x0F) << 12) | ((c1 & 0x3F) << 6) | (c2 & 0x3F)
        return 3
    if c < 0xF5:
        if end - p < 4:
            return 0
        c1 = p[1]
        c2 = p[2]
        c3 = p[3]
        if (c1 & 0xC0) != 0x80 or (c2 & 0xC0) != 0x80 or (c3 & 0xC0) != 0x80:
            return 0
        if (c == 0xF0 and c1 < 0x90) or (c == 0xF4 and c1 >= 0x90):
            return 0
        cp[0] = ((c & 0x07) << 18) | ((c1 & 0x3F) << 12) | ((c2 & 0x3F) << 6) | (c3 & 0x3F)
        return 4
    return 0


cdef inline Py_ssize_t uchar_at(const unsigned char* p, const unsigned char* end,
                                uint32_t* cp) noexcept nogil:
    """Length (6 or 10) of the UCHAR escape \\uXXXX / \\UXXXXXXXX at p, or 0 if malformed."""
    cdef Py_ssize_t k, i
    cdef uint64_t v = 0
    cdef signed char h
    if end - p < 2:
        return 0
    if p[1] == 117:
        k = 4
    elif p[1] == 85:
        k = 8
    else:
        return 0
    if end - p < 2 + k:
        return 0
    for i in range(2, 2 + k):
        h = hex_value(p[i])
        if h < 0:
            return 0
        v = (v << 4) | <uint64_t>h
    cp[0] = <uint32_t>v
    return 2 + k


cdef inline Py_ssize_t utf8_put(uint32_t c, char* out) noexcept nogil:
    if c < 0x80:
        out[0] = <char>c
        return 1
    if c < 0x800:
        out[0] = <char>(0xC0 | (c >> 6))
        out[1] = <char>(0x80 | (c & 0x3F))
        return 2
    if c < 0x10000:
        out[0] = <char>(0xE0 | (c >> 12))
        out[1] = <char>(0x80 | ((c >> 6) & 0x3F))
        out[2] = <char>(0x80 | (c & 0x3F))
        return 3
    out[0] = <char>(0xF0 | (c >> 18))
    out[1] = <char>(0x80 | ((c >> 12) & 0x3F))
    out[2] = <char>(0x80 | ((c >> 6) & 0x3F))
    out[3] = <char>(0x80 | (c & 0x3F))
    return 4


cdef inline bint pn_chars_base(uint32_t c) noexcept nogil:
    """PN_CHARS_BASE above ASCII (the ASCII letters are in the parser's tables)."""
    return ((0xC0 <= c <= 0xD6) or (0xD8 <= c <= 0xF6) or (0xF8 <= c <= 0x2FF)
            or (0x370 <= c <= 0x37D) or (0x37F <= c <= 0x1FFF) or (0x200C <= c <= 0x200D)
            or (0x2070 <= c <= 0x218F) or (0x2C00 <= c <= 0x2FEF) or (0x3001 <= c <= 0xD7FF)
            or (0xF900 <= c <= 0xFDCF) or (0xFDF0 <= c <= 0xFFFD) or (0x10000 <= c <= 0xEFFFF))


cdef inline bint pn_chars_rest(uint32_t c) noexcept nogil:
    """PN_CHARS above ASCII."""
    return pn_chars_base(c) or c == 0xB7 or (0x300 <= c <= 0x36F) or (0x203F <= c <= 0x2040)


cdef inline uint64_t hash_span(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    # O(1): head, middle and tail words; a collision only costs a cache miss.
    cdef uint64_t a = 0, b = 0, c = 0, h
    if n >= 8:
        memcpy(&a, s, 8)
        memcpy(&b, s + n - 8, 8)
        memcpy(&c, s + (n >> 1) - 4, 8)
    else:
        memcpy(&a, s, n)
    h = (a * <uint64_t>0x9E3779B97F4A7C15) ^ (b * <uint64_t>0xC2B2AE3D27D4EB4F) \
        ^ (c * <uint64_t>0x165667B19E3779F9) ^ <uint64_t>n
    h ^= h >> 31
    h *= <uint64_t>0xBF58476D1CE4E5B9
    h ^= h >> 29
    return h


cdef inline bint ascii_alpha(unsigned char c) noexcept nogil:
    return (65 <= c <= 90) or (97 <= c <= 122)


cdef inline bint ascii_alnum(unsigned char c) noexcept nogil:
    return (65 <= c <= 90) or (97 <= c <= 122) or (48 <= c <= 57)


cdef inline bint is_absolute_iri(str v) noexcept:
    # scheme ":" with scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )  (RFC 3987)
    cdef Py_ssize_t i, n = len(v)
    cdef Py_UCS4 c
    if n == 0:
        return False
    c = v[0]
    if not (c < 128 and ascii_alpha(<unsigned char>c)):
        return False
    for i in range(1, n):
        c = v[i]
        if c == 0x3A:
            return True
        if not (c < 128 and (ascii_alnum(<unsigned char>c) or c == 0x2B or c == 0x2D
                             or c == 0x2E)):
            return False
    return False


cdef inline str describe(const unsigned char* p, const unsigned char* end):
    """The character at p, for error messages."""
    cdef unsigned char c = p[0]
    cdef uint32_t cp = 0
    if 0x21 <= c <= 0x7E:
        return f"character {chr(c)!r}"
    if c == 0x20:
        return "space"
    if c < 0x80:
        return f"control character U+{c:04X}"
    if utf8_seq(p, end, &cp):
        return f"character {chr(cp)!r} (U+{<int>cp:04X})"
    return f"invalid UTF-8 byte 0x{c:02X}"


cdef inline bint is_message(const unsigned char* s, const unsigned char* e):
    """A comment's text s..e is a message delimiter: the same test as
    re.match(r"\s*@message", text) (\s is str.isspace() for str patterns)."""
    cdef const unsigned char* q = s
    cdef unsigned char c
    while q < e:
        c = q[0]
        if c == 0x20 or c == 0x09 or c == 0x0B or c == 0x0C or 0x1C <= c <= 0x1F:
            q += 1
        elif c >= 0x80:
            text = PyUnicode_DecodeUTF8(<char*>s, e - s, NULL)
            return text.lstrip().startswith("@message")
        else:
            break
    return e - q >= 8 and memcmp(q, b"@message", 8) == 0
