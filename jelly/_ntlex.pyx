# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The term lexer of the N-Triples / N-Quads parser: IRIREF, BLANK_NODE_LABEL,
STRING_LITERAL_QUOTE with LANG_DIR or a datatype, exactly as the W3C grammars spell them, with
a direct-mapped cache so that a repeated IRI or blank node costs one memcmp.  The statement
grammar is in ``jelly._ntriples`` (``_Parser`` extends :class:`TermLexer`).
"""

cimport cython
from cpython.ref cimport PyObject, Py_INCREF, Py_XDECREF
from cpython.unicode cimport PyUnicode_DecodeUTF8, PyUnicode_DecodeASCII, PyUnicode_DATA, \
    PyUnicode_GET_LENGTH
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcmp, memcpy

from jelly._terms cimport IRI, make_iri, make_bnode, make_literal
from jelly._ntchars cimport (utf8_seq, uchar_at, utf8_put, pn_chars_base, pn_chars_rest,
                             hash_span, is_absolute_iri)

import re

from .errors import RdfSyntaxError

__all__ = ["TermLexer"]

cdef str _XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
cdef str _RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
cdef str _RDF_DIRLANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString"

cdef enum:
    _CACHE_SLOTS = 8192        # direct-mapped term cache: memory stays flat on huge inputs
    _CACHE_MAX_KEY = 512       # longer IRIs are rarely repeated; don't pin their bytes

cdef tuple _SYNTAX_LABEL = ("", "RDF 1.2", "RDF-star")

# RFC 5646 (BCP 47) well-formed language tags; RDF 1.2 requires them.
_BCP47 = re.compile(r"""
    (?: (?: [a-z]{2,3} (?: -[a-z]{3} ){0,3} | [a-z]{4,8} )     # language (extlang)
        (?: -[a-z]{4} )?                                       # script
        (?: -(?: [a-z]{2} | [0-9]{3} ) )?                      # region
        (?: -(?: [a-z0-9]{5,8} | [0-9][a-z0-9]{3} ) )*         # variants
        (?: -[0-9a-wyz] (?: -[a-z0-9]{2,8} )+ )*               # extensions
        (?: -x (?: -[a-z0-9]{1,8} )+ )?                        # private use
      | x (?: -[a-z0-9]{1,8} )+
      | en-gb-oed | i-(?: ami|bnn|default|enochian|hak|klingon|lux|mingo|navajo|pwn|tao|tay|tsu)
      | sgn-(?: be-fr|be-nl|ch-de ) )
    """, re.VERBOSE | re.IGNORECASE | re.ASCII)


# ---------------------------------------------------------------------------------------------
# Byte classes (ASCII only; bytes >= 0x80 are handled by the UTF-8 paths)

cdef unsigned char _IRI_OK[256]     # allowed verbatim inside <...>
cdef unsigned char _LIT_OK[256]     # allowed verbatim inside "..."
cdef unsigned char _BN_FIRST[256]   # first char of a blank node label: PN_CHARS_U | [0-9]
cdef unsigned char _BN_REST[256]    # later chars of a blank node label: PN_CHARS | '.'
cdef unsigned char _ALPHA[256]
cdef unsigned char _ALNUM[256]
cdef unsigned char _ECHAR[256]      # value of \X escapes in literals, 0 = invalid


cdef void _init_tables() noexcept:
    cdef int i
    for i in range(256):
        _ALPHA[i] = (65 <= i <= 90) or (97 <= i <= 122)
        _ALNUM[i] = _ALPHA[i] or (48 <= i <= 57)
        _IRI_OK[i] = 0x21 <= i <= 0x7F and i not in (0x22, 0x3C, 0x3E, 0x5C, 0x5E, 0x60,
                                                     0x7B, 0x7C, 0x7D)
        _LIT_OK[i] = i < 0x80 and i not in (0x22, 0x5C, 0x0A, 0x0D)
        # PN_CHARS_U is PN_CHARS_BASE | '_' (the colon of the RDF 1.1 grammar is an erratum:
        # the W3C tests nt-syntax-bad-bnode-01/02 reject it)
        _BN_FIRST[i] = _ALNUM[i] or i == 0x5F
        _BN_REST[i] = _BN_FIRST[i] or i == 0x2D or i == 0x2E
        _ECHAR[i] = 0
    _ECHAR[ord('t')] = 9
    _ECHAR[ord('b')] = 8
    _ECHAR[ord('n')] = 10
    _ECHAR[ord('r')] = 13
    _ECHAR[ord('f')] = 12
    _ECHAR[ord('"')] = 34
    _ECHAR[ord("'")] = 39
    _ECHAR[ord('\\')] = 92


_init_tables()


cdef str describe(const unsigned char* p, const unsigned char* end):
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


cdef class TermLexer:
    """Reads single terms from a buffer (``p`` .. ``end``); positions in errors are counted
    from ``line_start`` on line ``line``."""

    def __cinit__(self, *args, **kwargs):
        self.slots = <TermSlot*>calloc(_CACHE_SLOTS, sizeof(TermSlot))
        if self.slots == NULL:
            raise MemoryError()
        self.line = 1

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.slots != NULL:
            for i in range(_CACHE_SLOTS):
                Py_XDECREF(<PyObject*>self.slots[i].val)
                free(self.slots[i].key)
            free(self.slots)
        free(self.sbuf)

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

    cdef int _fail_syntax(self, str what, const unsigned char* at) except -1:
        return self._fail(f"{what} is not {_SYNTAX_LABEL[self.syntax]} N-Triples / N-Quads "
                          f"(syntax {('rdf12', 'rdf-star')[self.syntax - 1]!r})", at)

    cdef void _ws(self) noexcept:
        cdef const unsigned char* p = self.p
        cdef const unsigned char* end = self.end
        while p < end and (p[0] == 32 or p[0] == 9):
            p += 1
        self.p = p

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
                k = uchar_at(p, end, &cp)
                if k == 0:
                    self._fail("invalid escape in IRI (only \\uXXXX and \\UXXXXXXXX are allowed)", p)
                self._check_cp(cp, p)
                esc = True
                p += k
            elif c >= 0x80:
                k = utf8_seq(p, end, &cp)
                if k == 0:
                    self._fail("invalid UTF-8 in IRI", p)
                p += k
            elif c == 10 or c == 13:
                self._fail("unterminated IRI", self.p)
            else:
                self._fail(f"{describe(p, end)} is not allowed in an IRI", p)
        self.p = p + 1
        return self._cached(start, p - start, 0, esc)

    cdef int _check_cp(self, uint32_t cp, const unsigned char* at) except -1:
        if 0xD800 <= cp <= 0xDFFF:
            self._fail(f"escape of the surrogate code point U+{<int>cp:04X}", at)
        if cp > 0x10FFFF:
            self._fail(f"escape of a code point beyond U+10FFFF", at)
        return 0

    cdef object _bnode(self):
        # BLANK_NODE_LABEL ::= '_:' (PN_CHARS_U | [0-9]) ((PN_CHARS | '.')* PN_CHARS)?
        cdef const unsigned char* p = self.p
        cdef const unsigned char* end = self.end
        cdef const unsigned char* start
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
                self._fail(f"{describe(p, end)} cannot start a blank node label", p)
            p += 1
        else:
            k = utf8_seq(p, end, &cp)
            if k == 0:
                self._fail("invalid UTF-8 in blank node label", p)
            if not pn_chars_base(cp):
                self._fail(f"{describe(p, end)} cannot start a blank node label", p)
            p += k
        while p < end:
            c = p[0]
            if c < 0x80:
                if not _BN_REST[c]:
                    break
                p += 1
            else:
                k = utf8_seq(p, end, &cp)
                if k == 0 or not pn_chars_rest(cp):
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
                    k = uchar_at(p, end, &cp)
                    if k == 0:
                        self._fail("invalid \\u or \\U escape", p)
                    self._check_cp(cp, p)
                    p += k
                elif _ECHAR[c]:
                    p += 2
                else:
                    self._fail(f"invalid escape sequence '\\{chr(c) if 0x21 <= c <= 0x7E else '?'}'", p)
            elif c >= 0x80:
                k = utf8_seq(p, end, &cp)
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
                if dt is not self.last_dt:
                    self._datatype(dt, q)
                return make_literal(lex, None, self.last_dt_value)
        self.p = p
        return make_literal(lex, None, None)

    cdef int _datatype(self, object dt, const unsigned char* at) except -1:
        """Check a datatype IRI not seen just before; xsd:string stands for no datatype."""
        cdef str v = (<IRI>dt).value
        if v == _RDF_LANGSTRING or v == _RDF_DIRLANGSTRING:
            self._fail(f"a literal with the datatype <{v}> needs a language tag "
                       f"(write \"...\"@tag)", at)
        self.last_dt = dt
        self.last_dt_value = None if v == _XSD_STRING else dt
        return 0

    cdef str _langtag(self, const unsigned char* at):
        # LANG_DIR ::= '@' [a-zA-Z]+ ('-' [a-zA-Z0-9]+)* ('--' [a-zA-Z]+)?   (RDF 1.2; RDF 1.1
        # and RDF-star have no direction).  The direction is 'ltr' or 'rtl'.
        cdef const unsigned char* s = at + 1
        cdef const unsigned char* r = s
        cdef const unsigned char* r2
        cdef const unsigned char* d = NULL
        cdef const unsigned char* end = self.end
        cdef Py_ssize_t n
        cdef str lang
        while r < end and _ALPHA[r[0]]:
            r += 1
        if r == s:
            self._fail("invalid language tag", at)
        while r < end and r[0] == 45:
            if end - r >= 2 and r[1] == 45:
                d = r + 2
                r2 = d
                while r2 < end and _ALPHA[r2[0]]:
                    r2 += 1
                if r2 - d != 3 or not (memcmp(d, b"ltr", 3) == 0 or memcmp(d, b"rtl", 3) == 0):
                    self._fail("invalid base direction: a language tag ends in '--ltr' or "
                               "'--rtl'", r)
                r = r2
                break
            r2 = r + 1
            while r2 < end and _ALNUM[r2[0]]:
                r2 += 1
            if r2 == r + 1:
                self._fail("invalid language tag", at)
            r = r2
        if r < end and (_ALNUM[r[0]] or r[0] == 45):
            self._fail("invalid language tag", at)
        n = r - s
        self.p = r
        lang = self.lang   # tags repeat; reuse the last one instead of allocating
        if lang is not None and PyUnicode_GET_LENGTH(lang) == n \
                and memcmp(PyUnicode_DATA(lang), s, n) == 0:
            return lang
        if d != NULL and self.syntax == SYNTAX_STAR:
            self._fail_syntax("a directional language tag (RDF 1.2)", d - 2)
        lang = PyUnicode_DecodeASCII(<char*>s, n, NULL)
        if self.syntax == SYNTAX_RDF12 and _BCP47.fullmatch(lang if d == NULL else lang[:d - 2 - s]) is None:
            self._fail(f"language tag {lang if d == NULL else lang[:d - 2 - s]!r} is not "
                       f"well-formed (BCP 47)", at)
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
                k = uchar_at(p, e, &cp)
                o += utf8_put(cp, out + o)
                p += k
            else:
                out[o] = <char>_ECHAR[p[1]]
                o += 1
                p += 2
        return PyUnicode_DecodeUTF8(out, o, NULL)

    cdef object _cached(self, const unsigned char* start, Py_ssize_t n, int kind, bint esc):
        """The IRI (kind 0) or blank node (kind 1) for the raw bytes start[:n], memoised."""
        cdef TermSlot* slot
        cdef str v
        cdef object term
        cdef char* key
        if n <= _CACHE_MAX_KEY:
            slot = &self.slots[(hash_span(start, n) + <uint64_t>kind) & (_CACHE_SLOTS - 1)]
            if slot.val != NULL and slot.klen == n and slot.kind == kind \
                    and memcmp(slot.key, start, n) == 0:
                return <object><PyObject*>slot.val
        else:
            slot = NULL
        if esc:
            v = self._unescape(start, n)
        else:
            v = PyUnicode_DecodeUTF8(<char*>start, n, NULL)
        if kind == 0:
            if not self.relative_ok and not is_absolute_iri(v):
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
            Py_XDECREF(<PyObject*>slot.val)
            slot.val = <void*>term
        return term
