# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""N-Triples / N-Quads parser with RDF-star quoted triples and generalized RDF.

Works on raw UTF-8 bytes with C-level scanning.  Public API: ``parse_nquads``, ``TermParser``
(single terms, e.g. DataFrame columns) and the ``MESSAGE`` sentinel (a ``# @message`` comment
line, used as a message boundary).  Output is in ``jelly._ntformat``.
"""

cimport cython
from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_GET_SIZE
from cpython.list cimport PyList_GET_SIZE
from cpython.ref cimport PyObject, Py_INCREF, Py_XDECREF
from cpython.unicode cimport (PyUnicode_DecodeUTF8, PyUnicode_DecodeASCII, PyUnicode_KIND,
                              PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_1BYTE_KIND)
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcmp, memcpy

from jelly._terms cimport (IRI, BlankNode, Literal, Triple, DefaultGraph,
                           make_iri, make_bnode, make_literal, make_triple)

import io

from .errors import JellyEncodeError, RdfSyntaxError

__all__ = ["parse_nquads", "MESSAGE", "TermParser", "UntilMessage"]

cdef str _XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"

cdef enum:
    _MAX_DEPTH = 64            # quoted-triple nesting accepted by the parser
    _CACHE_SLOTS = 8192        # direct-mapped term cache: memory stays flat on huge inputs
    _CACHE_MAX_KEY = 512       # longer IRIs are rarely repeated; don't pin their bytes
    _DEFAULT_CHUNK = 1 << 20
    _BATCH = 128               # statements parsed per resumption of the generator


@cython.final
cdef class _MessageMarker:
    """Type of the ``MESSAGE`` sentinel."""

    def __repr__(self):
        return "MESSAGE"

    def __reduce__(self):
        return "MESSAGE"


MESSAGE = _MessageMarker()


# ---------------------------------------------------------------------------------------------
# Byte classes (ASCII only; bytes >= 0x80 are handled by the UTF-8 paths)

cdef unsigned char _IRI_OK[256]     # allowed verbatim inside <...>
cdef unsigned char _LIT_OK[256]     # allowed verbatim inside "..."
cdef unsigned char _BN_FIRST[256]   # first char of a blank node label
cdef unsigned char _BN_REST[256]    # later chars of a blank node label (incl. '.')
cdef unsigned char _ALPHA[256]
cdef unsigned char _ALNUM[256]
cdef unsigned char _ECHAR[256]      # value of \X escapes in literals, 0 = invalid
cdef signed char _HEX[256]


cdef void _init_tables() noexcept:
    cdef int i
    for i in range(256):
        _ALPHA[i] = (65 <= i <= 90) or (97 <= i <= 122)
        _ALNUM[i] = _ALPHA[i] or (48 <= i <= 57)
        _IRI_OK[i] = 0x21 <= i <= 0x7F and i not in (0x22, 0x3C, 0x3E, 0x5C, 0x5E, 0x60,
                                                     0x7B, 0x7C, 0x7D)
        _LIT_OK[i] = i < 0x80 and i not in (0x22, 0x5C, 0x0A, 0x0D)
        _BN_FIRST[i] = _ALNUM[i] or i == 0x5F or i == 0x3A
        _BN_REST[i] = _BN_FIRST[i] or i == 0x2D or i == 0x2E
        _ECHAR[i] = 0
        _HEX[i] = -1
    for i in range(10):
        _HEX[48 + i] = i
    for i in range(6):
        _HEX[65 + i] = 10 + i
        _HEX[97 + i] = 10 + i
    _ECHAR[ord('t')] = 9
    _ECHAR[ord('b')] = 8
    _ECHAR[ord('n')] = 10
    _ECHAR[ord('r')] = 13
    _ECHAR[ord('f')] = 12
    _ECHAR[ord('"')] = 34
    _ECHAR[ord("'")] = 39
    _ECHAR[ord('\\')] = 92


_init_tables()


# ---------------------------------------------------------------------------------------------
# Reading

ctypedef struct _Slot:
    PyObject* val
    char* key
    Py_ssize_t klen
    Py_ssize_t kcap
    int kind


cdef inline Py_ssize_t _utf8_seq(const unsigned char* p, const unsigned char* end,
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


cdef inline Py_ssize_t _uchar_at(const unsigned char* p, const unsigned char* end,
                                 uint32_t* cp) noexcept nogil:
    """Length (6 or 10) of the \\uXXXX / \\UXXXXXXXX escape at p, or 0 if malformed."""
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
        h = _HEX[p[i]]
        if h < 0:
            return 0
        v = (v << 4) | <uint64_t>h
    cp[0] = <uint32_t>v
    return 2 + k


cdef inline Py_ssize_t _utf8_put(uint32_t c, char* out) noexcept nogil:
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


cdef inline bint _pn_base(uint32_t c) noexcept nogil:
    # PN_CHARS_BASE above ASCII
    return ((0xC0 <= c <= 0xD6) or (0xD8 <= c <= 0xF6) or (0xF8 <= c <= 0x2FF)
            or (0x370 <= c <= 0x37D) or (0x37F <= c <= 0x1FFF) or (0x200C <= c <= 0x200D)
            or (0x2070 <= c <= 0x218F) or (0x2C00 <= c <= 0x2FEF) or (0x3001 <= c <= 0xD7FF)
            or (0xF900 <= c <= 0xFDCF) or (0xFDF0 <= c <= 0xFFFD) or (0x10000 <= c <= 0xEFFFF))


cdef inline bint _pn_rest(uint32_t c) noexcept nogil:
    return _pn_base(c) or c == 0xB7 or (0x300 <= c <= 0x36F) or (0x203F <= c <= 0x2040)


cdef inline uint64_t _hash_span(const unsigned char* s, Py_ssize_t n) noexcept nogil:
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


cdef bint _is_absolute(str v):
    # scheme ":" with scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(v)
    cdef Py_UCS4 c
    if n == 0:
        return False
    c = v[0]
    if not (c < 128 and _ALPHA[c]):
        return False
    for i in range(1, n):
        c = v[i]
        if c == 0x3A:
            return True
        if not (c < 128 and (_ALNUM[c] or c == 0x2B or c == 0x2D or c == 0x2E)):
            return False
    return False


cdef bint _is_message(const unsigned char* s, const unsigned char* e):
    # Same test as re.match(r"\s*@message", text): \s is str.isspace() for str patterns.
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


cdef str _describe(const unsigned char* p, const unsigned char* end):
    cdef unsigned char c = p[0]
    cdef uint32_t cp = 0
    if 0x21 <= c <= 0x7E:
        return f"character {chr(c)!r}"
    if c == 0x20:
        return "space"
    if c < 0x80:
        return f"control character U+{c:04X}"
    if _utf8_seq(p, end, &cp):
        return f"character {chr(cp)!r} (U+{<int>cp:04X})"
    return f"invalid UTF-8 byte 0x{c:02X}"


cdef tuple _ROLES = ("a subject", "a predicate", "an object", "a graph label or '.'")


@cython.final
cdef class _Parser:
    """Parses complete lines held in a buffer; state (line number, caches) persists across
    buffers."""

    cdef const unsigned char* p
    cdef const unsigned char* end
    cdef const unsigned char* line_start
    cdef Py_ssize_t line
    cdef bint messages
    cdef bint relative_ok
    cdef bint at_start
    cdef list out
    cdef _Slot* slots
    cdef char* sbuf
    cdef Py_ssize_t scap
    cdef str lang

    def __cinit__(self, bint messages, bint relative_ok):
        self.slots = <_Slot*>calloc(_CACHE_SLOTS, sizeof(_Slot))
        if self.slots == NULL:
            raise MemoryError()
        self.line = 1
        self.messages = messages
        self.relative_ok = relative_ok
        self.at_start = True

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.slots != NULL:
            for i in range(_CACHE_SLOTS):
                Py_XDECREF(self.slots[i].val)
                free(self.slots[i].key)
            free(self.slots)
        free(self.sbuf)

    cdef int begin(self, bytearray buf, Py_ssize_t n) except -1:
        """Start on buf[:n] (whole lines); buf must not change until step() reports done."""
        cdef const unsigned char* d = <const unsigned char*>PyByteArray_AS_STRING(buf)
        self.p = d
        self.end = d + n
        self.line_start = d
        if self.at_start:
            self.at_start = False
            if n >= 3 and d[0] == 0xEF and d[1] == 0xBB and d[2] == 0xBF:
                self.p = d + 3   # tolerate a UTF-8 byte order mark
        return 0

    cdef tuple step(self, Py_ssize_t limit):
        """Parse up to about `limit` items; returns (items, error or None, block done).

        Small batches keep the objects young: a big batch of live statements gets promoted
        through the GC generations and triggers costly full collections.
        """
        cdef bint done = False
        self.out = []
        err = None
        try:
            done = self._run(limit)
        except RdfSyntaxError as e:
            err = e
            done = True
        out = self.out
        self.out = None
        return out, err, done

    cdef int _fail(self, str msg, const unsigned char* at) except -1:
        cdef const unsigned char* q = self.line_start
        cdef Py_ssize_t col = 1
        if at > self.end:
            at = self.end
        while q < at:
            if (q[0] & 0xC0) != 0x80:
                col += 1
            q += 1
        raise RdfSyntaxError(f"{msg} at column {col}", line=self.line)

    cdef inline void _ws(self) noexcept:
        cdef const unsigned char* p = self.p
        cdef const unsigned char* end = self.end
        while p < end and (p[0] == 32 or p[0] == 9):
            p += 1
        self.p = p

    cdef int _run(self, Py_ssize_t limit) except -1:
        """Returns 1 at the end of the block, 0 once `limit` items are collected."""
        cdef const unsigned char* p
        cdef const unsigned char* end = self.end
        cdef unsigned char c
        while True:
            p = self.p
            while p < end and (p[0] == 32 or p[0] == 9):
                p += 1
            if p >= end:
                self.p = p
                return 1
            if PyList_GET_SIZE(self.out) >= limit:
                self.p = p
                return 0
            c = p[0]
            if c == 10 or c == 13:
                p += 1
                if c == 13 and p < end and p[0] == 10:
                    p += 1
                self.line += 1
                self.line_start = p
                self.p = p
            elif c == 35:
                self.p = p
                self._comment(True)
            else:
                self.p = p
                self._statement()

    cdef int _comment(self, bint whole_line) except -1:
        cdef const unsigned char* start = self.p + 1
        cdef const unsigned char* p = start
        cdef const unsigned char* end = self.end
        cdef unsigned char c
        cdef Py_ssize_t k
        cdef uint32_t cp = 0
        while p < end:
            c = p[0]
            if c < 0x80:
                if c == 10 or c == 13:
                    break
                p += 1
            else:
                k = _utf8_seq(p, end, &cp)
                if k == 0:
                    self._fail("invalid UTF-8 in comment", p)
                p += k
        if whole_line and self.messages and _is_message(start, p):
            self.out.append(MESSAGE)
        self.p = p
        return 0

    cdef int _statement(self) except -1:
        cdef object s, pr, o, g = None
        cdef const unsigned char* p
        cdef const unsigned char* end = self.end
        s = self._term(0, 0)
        self._ws()
        pr = self._term(0, 1)
        self._ws()
        o = self._term(0, 2)
        self._ws()
        p = self.p
        if p >= end or p[0] != 46:
            g = self._graph()
            self._ws()
            p = self.p
            if p >= end or p[0] != 46:
                if p >= end or p[0] == 10 or p[0] == 13:
                    self._fail("missing '.' at the end of the statement", p)
                self._fail(f"expected '.' after the graph label, found {_describe(p, end)}", p)
        p += 1
        while p < end and (p[0] == 32 or p[0] == 9):
            p += 1
        if p < end and p[0] == 35:
            self.p = p
            self._comment(False)
            p = self.p
        if p < end and p[0] != 10 and p[0] != 13:
            self._fail(f"expected end of line after '.', found {_describe(p, end)}", p)
        self.p = p
        if g is None:
            self.out.append((s, pr, o))
        else:
            self.out.append((s, pr, o, g))
        return 0

    cdef object _term(self, int depth, int role):
        cdef const unsigned char* p = self.p
        cdef const unsigned char* end = self.end
        cdef unsigned char c
        if p >= end or p[0] == 10 or p[0] == 13:
            self._fail(f"unexpected end of line, expected {_ROLES[role]}", p)
        c = p[0]
        if c == 60:
            if p + 1 < end and p[1] == 60:
                return self._quoted(depth + 1)
            return self._iri()
        if c == 34:
            return self._literal()
        if c == 95:
            return self._bnode()
        if c == 46 and role == 2:
            self._fail("missing object before '.'", p)
        self._fail(f"unexpected {_describe(p, end)}, expected {_ROLES[role]}", p)

    cdef object _graph(self):
        cdef const unsigned char* p = self.p
        cdef const unsigned char* end = self.end
        if p >= end or p[0] == 10 or p[0] == 13:
            self._fail("missing '.' at the end of the statement", p)
        if p[0] == 60 and p + 1 < end and p[1] == 60:
            self._fail("a quoted triple cannot be a graph label", p)
        return self._term(0, 3)

    cdef object _quoted(self, int depth):
        cdef const unsigned char* start = self.p
        cdef const unsigned char* p
        cdef const unsigned char* end = self.end
        cdef bint paren
        cdef object s, pr, o
        if depth > _MAX_DEPTH:
            self._fail(f"quoted triples nested deeper than {_MAX_DEPTH}", start)
        p = start + 2
        paren = p < end and p[0] == 40   # RDF 1.2 triple term <<( s p o )>>
        if paren:
            p += 1
        self.p = p
        self._ws()
        s = self._term(depth, 0)
        self._ws()
        pr = self._term(depth, 1)
        self._ws()
        o = self._term(depth, 2)
        self._ws()
        p = self.p
        if paren:
            if end - p >= 3 and p[0] == 41 and p[1] == 62 and p[2] == 62:
                self.p = p + 3
            else:
                self._fail("expected ')>>' to close the triple term", p)
        else:
            if end - p >= 2 and p[0] == 62 and p[1] == 62:
                self.p = p + 2
            else:
                self._fail("expected '>>' to close the quoted triple", p)
        return make_triple(s, pr, o)

    cdef object _iri(self):
        cdef const unsigned char* start = self.p + 1
        cdef const unsigned char* p = start
        cdef const unsigned char* end = self.end
        cdef unsigned char c
        cdef bint esc = False
        cdef Py_ssize_t k
        cdef uint32_t cp = 0
        while True:
            if p >= end:
                self._fail("unterminated IRI", self.p)
            c = p[0]
            if _IRI_OK[c]:
                p += 1
            elif c == 62:
                break
            elif c == 92:
                k = _uchar_at(p, end, &cp)
                if k == 0:
                    self._fail("invalid escape in IRI (only \\uXXXX and \\UXXXXXXXX are allowed)", p)
                self._check_cp(cp, p)
                esc = True
                p += k
            elif c >= 0x80:
                k = _utf8_seq(p, end, &cp)
                if k == 0:
                    self._fail("invalid UTF-8 in IRI", p)
                p += k
            elif c == 10 or c == 13:
                self._fail("unterminated IRI", self.p)
            else:
                self._fail(f"{_describe(p, end)} is not allowed in an IRI", p)
        self.p = p + 1
        return self._cached(start, p - start, 0, esc)

    cdef int _check_cp(self, uint32_t cp, const unsigned char* at) except -1:
        if 0xD800 <= cp <= 0xDFFF:
            self._fail(f"escape of the surrogate code point U+{<int>cp:04X}", at)
        if cp > 0x10FFFF:
            self._fail(f"escape of a code point beyond U+10FFFF", at)
        return 0

    cdef object _bnode(self):
        cdef const unsigned char* p = self.p
        cdef const unsigned char* end = self.end
        cdef const unsigned char* start
        cdef const unsigned char* last
        cdef unsigned char c
        cdef Py_ssize_t k
        cdef uint32_t cp = 0
        if end - p < 2 or p[1] != 58:
            self._fail("expected '_:' to start a blank node", p)
        p += 2
        start = p
        if p >= end:
            self._fail("empty blank node label", p)
        c = p[0]
        if c < 0x80:
            if not _BN_FIRST[c]:
                self._fail(f"{_describe(p, end)} cannot start a blank node label", p)
            p += 1
        else:
            k = _utf8_seq(p, end, &cp)
            if k == 0:
                self._fail("invalid UTF-8 in blank node label", p)
            if not _pn_base(cp):
                self._fail(f"{_describe(p, end)} cannot start a blank node label", p)
            p += k
        while p < end:
            c = p[0]
            if c < 0x80:
                if not _BN_REST[c]:
                    break
                p += 1
            else:
                k = _utf8_seq(p, end, &cp)
                if k == 0 or not _pn_rest(cp):
                    break
                p += k
        while (p - 1)[0] == 46:   # a label cannot end with '.': it is the statement's terminator
            p -= 1
        self.p = p
        return self._cached(start, p - start, 1, False)

    cdef object _literal(self):
        cdef const unsigned char* start = self.p + 1
        cdef const unsigned char* p = start
        cdef const unsigned char* q
        cdef const unsigned char* end = self.end
        cdef unsigned char c
        cdef bint esc = False
        cdef Py_ssize_t k
        cdef uint32_t cp = 0
        cdef str lex
        cdef object dt
        while True:
            if p >= end:
                self._fail("unterminated string literal", self.p)
            c = p[0]
            if _LIT_OK[c]:
                p += 1
            elif c == 34:
                break
            elif c == 92:
                esc = True
                if end - p < 2:
                    self._fail("unterminated string literal", self.p)
                c = p[1]
                if c == 117 or c == 85:
                    k = _uchar_at(p, end, &cp)
                    if k == 0:
                        self._fail("invalid \\u or \\U escape", p)
                    self._check_cp(cp, p)
                    p += k
                elif _ECHAR[c]:
                    p += 2
                else:
                    self._fail(f"invalid escape sequence '\\{chr(c) if 0x21 <= c <= 0x7E else '?'}'", p)
            elif c >= 0x80:
                k = _utf8_seq(p, end, &cp)
                if k == 0:
                    self._fail("invalid UTF-8 in string literal", p)
                p += k
            else:
                self._fail("unterminated string literal (line break inside)", self.p)
        if esc:
            lex = self._unescape(start, p - start)
        else:
            lex = PyUnicode_DecodeUTF8(<char*>start, p - start, NULL)
        p += 1
        q = p
        while q < end and (q[0] == 32 or q[0] == 9):
            q += 1
        if q < end:
            if q[0] == 64:
                return make_literal(lex, self._langtag(q), None)
            if q[0] == 94:
                if end - q < 2 or q[1] != 94:
                    self._fail("expected '^^' before the datatype IRI", q)
                q += 2
                while q < end and (q[0] == 32 or q[0] == 9):
                    q += 1
                if q >= end or q[0] != 60 or (end - q >= 2 and q[1] == 60):
                    self._fail("expected a datatype IRI after '^^'", q)
                self.p = q
                dt = self._iri()
                if (<IRI>dt).value == _XSD_STRING:
                    dt = None
                return make_literal(lex, None, dt)
        self.p = p
        return make_literal(lex, None, None)

    cdef str _langtag(self, const unsigned char* at):
        # LANGTAG ::= '@' [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*
        cdef const unsigned char* s = at + 1
        cdef const unsigned char* r = s
        cdef const unsigned char* r2
        cdef const unsigned char* end = self.end
        cdef Py_ssize_t n
        cdef str lang
        while r < end and _ALPHA[r[0]]:
            r += 1
        if r == s:
            self._fail("invalid language tag", at)
        while r < end and r[0] == 45:
            r2 = r + 1
            while r2 < end and _ALNUM[r2[0]]:
                r2 += 1
            if r2 == r + 1:
                self._fail("invalid language tag", at)
            r = r2
        if r < end and (_ALNUM[r[0]] or r[0] == 95):
            self._fail("invalid language tag", at)
        n = r - s
        self.p = r
        lang = self.lang   # tags repeat; reuse the last one instead of allocating
        if lang is not None and PyUnicode_GET_LENGTH(lang) == n \
                and memcmp(PyUnicode_DATA(lang), s, n) == 0:
            return lang
        lang = PyUnicode_DecodeASCII(<char*>s, n, NULL)
        self.lang = lang
        return lang

    cdef str _unescape(self, const unsigned char* s, Py_ssize_t n):
        """Decode an already validated span with escapes (the output is never longer)."""
        cdef const unsigned char* p = s
        cdef const unsigned char* e = s + n
        cdef char* out
        cdef Py_ssize_t o = 0, k
        cdef unsigned char c
        cdef uint32_t cp = 0
        if self.scap < n:
            out = <char*>realloc(self.sbuf, n if n > 256 else 256)
            if out == NULL:
                raise MemoryError()
            self.sbuf = out
            self.scap = n if n > 256 else 256
        out = self.sbuf
        while p < e:
            c = p[0]
            if c != 92:
                out[o] = <char>c
                o += 1
                p += 1
            elif p[1] == 117 or p[1] == 85:
                k = _uchar_at(p, e, &cp)
                o += _utf8_put(cp, out + o)
                p += k
            else:
                out[o] = <char>_ECHAR[p[1]]
                o += 1
                p += 2
        return PyUnicode_DecodeUTF8(out, o, NULL)

    cdef object _cached(self, const unsigned char* start, Py_ssize_t n, int kind, bint esc):
        """The IRI (kind 0) or blank node (kind 1) for the raw bytes start[:n], memoised."""
        cdef _Slot* slot
        cdef str v
        cdef object term
        cdef char* key
        if n <= _CACHE_MAX_KEY:
            slot = &self.slots[(_hash_span(start, n) + <uint64_t>kind) & (_CACHE_SLOTS - 1)]
            if slot.val != NULL and slot.klen == n and slot.kind == kind \
                    and memcmp(slot.key, start, n) == 0:
                return <object>slot.val
        else:
            slot = NULL
        if esc:
            v = self._unescape(start, n)
        else:
            v = PyUnicode_DecodeUTF8(<char*>start, n, NULL)
        if kind == 0:
            if not self.relative_ok and not _is_absolute(v):
                self._fail("relative IRI not allowed", start - 1)
            term = make_iri(v)
        else:
            term = make_bnode(v)
        if slot != NULL:
            if slot.kcap < n:
                key = <char*>realloc(slot.key, n if n > 64 else 64)
                if key == NULL:
                    raise MemoryError()
                slot.key = key
                slot.kcap = n if n > 64 else 64
            memcpy(slot.key, start, n)
            slot.klen = n
            slot.kind = kind
            Py_INCREF(term)
            Py_XDECREF(slot.val)
            slot.val = <PyObject*>term
        return term


cdef Py_ssize_t _split_point(bytearray buf, Py_ssize_t lo):
    """Index just after the last line end in buf[lo:], or 0 if none.

    A CR as the very last byte is not a split point: an LF may follow in the next chunk.
    """
    cdef const unsigned char* d = <const unsigned char*>PyByteArray_AS_STRING(buf)
    cdef Py_ssize_t i = PyByteArray_GET_SIZE(buf) - 1
    if i >= 0 and d[i] == 13:
        i -= 1
    if lo < 0:
        lo = 0
    while i >= lo and d[i] != 10 and d[i] != 13:
        i -= 1
    return i + 1 if i >= lo else 0


def _parse_chunks(read, _Parser parser, Py_ssize_t chunk_size):
    cdef bytearray pending = bytearray()
    cdef Py_ssize_t cut, before
    cdef bint eof = False, done
    cdef list out
    while not eof:
        chunk = read(chunk_size)
        if not chunk:
            eof = True
            cut = PyByteArray_GET_SIZE(pending)   # the last line may lack a line end
        else:
            if not isinstance(chunk, (bytes, bytearray)):
                if isinstance(chunk, memoryview):
                    chunk = chunk.tobytes()
                else:
                    raise TypeError(f"parse_nquads needs a binary stream; read() returned "
                                    f"{type(chunk).__name__}")
            before = PyByteArray_GET_SIZE(pending)
            pending += chunk
            cut = _split_point(pending, before - 1)   # only the new bytes (and a held-back CR)
        if cut:
            parser.begin(pending, cut)
            done = False
            while not done:
                out, err, done = parser.step(_BATCH)
                for item in out:
                    yield item
                if err is not None:
                    raise err
            del pending[:cut]


def parse_nquads(source, *, messages=False, chunk_size=_DEFAULT_CHUNK, allow_relative_iris=False):
    """Parse N-Triples / N-Quads (with RDF-star and generalized RDF) from a binary stream or bytes.

    Returns an iterator of ``(s, p, o)`` and ``(s, p, o, g)`` tuples, reading ``chunk_size``
    bytes at a time.  With ``messages=True`` a comment line ``# @message`` yields ``MESSAGE``.
    Syntax errors raise ``RdfSyntaxError`` with the line number, after the statements of the
    lines before it were yielded.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        source = io.BytesIO(source)
    elif isinstance(source, str):
        raise TypeError("parse_nquads needs bytes or a binary stream, not str")
    # read1: what a pipe has now, so that a live stream is parsed as it arrives
    read = getattr(source, "read1", None) or getattr(source, "read", None)
    if read is None:
        raise TypeError(f"parse_nquads needs bytes or a binary stream, not {type(source).__name__}")
    chunk_size = int(chunk_size)
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    return _parse_chunks(read, _Parser(bool(messages), bool(allow_relative_iris)), chunk_size)


@cython.final
cdef class TermParser:
    """Parses single terms in N-Triples syntax (an IRI, blank node, literal or ``<< s p o >>``),
    e.g. the string columns of a DataFrame; repeated IRIs come back as the same objects."""

    cdef _Parser parser

    def __init__(self):
        self.parser = _Parser(False, False)

    def parse(self, str text):
        """The term that ``text`` spells; :class:`RdfSyntaxError` if it is not exactly one."""
        cdef bytearray buf = bytearray(text.encode("utf-8", "surrogatepass"))
        cdef _Parser p = self.parser
        p.line = 1
        p.begin(buf, len(buf))
        p._ws()
        term = p._term(0, 2)
        p._ws()
        if p.p != p.end:
            p._fail("unexpected text after the term", p.p)
        return term



@cython.final
cdef class UntilMessage:
    """The statements of a parse (an iterator of statements and ``MESSAGE`` items) up to the
    next ``MESSAGE`` or the end: one RDF message of a message log.  Afterwards ``delimited``
    says that it stopped at a delimiter (which it consumed) and ``ended`` that the input ended.
    Iterating costs no Python frame per statement."""

    cdef object _it
    cdef readonly bint delimited
    cdef readonly bint ended

    def __init__(self, items):
        self._it = iter(items)

    def __iter__(self):
        return self

    def __next__(self):
        if self.delimited or self.ended:
            raise StopIteration
        try:
            item = next(self._it)
        except StopIteration:
            self.ended = True
            raise
        if item is MESSAGE:
            self.delimited = True
            raise StopIteration
        return item
