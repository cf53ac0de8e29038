# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""N-Triples / N-Quads parser: the W3C grammars of RDF 1.1 and RDF 1.2, the RDF-star
community-group syntax, and generalized RDF.

Works on raw UTF-8 bytes with C-level scanning.  Public API: ``parse_nquads``, ``TermParser``
(single terms, e.g. DataFrame columns), ``TermScanner`` (the term scanners for RDF Patch text);
``MESSAGE`` (a ``# @message`` comment line, a message boundary) and ``UntilMessage`` come from
``jelly._lines``, with the reading of whole lines.  Output is in ``jelly._ntformat``.

Three syntaxes (``syntax=``):

* ``None`` (default): RDF 1.2 triple terms ``<<( s p o )>>`` and RDF-star quoted triples
  ``<< s p o >>``, both in any position, and generalized statements (any term anywhere), as
  Jelly streams may hold them;
* ``"rdf12"``: strict RDF 1.2 N-Triples / N-Quads: triple terms only as objects, ``<< >>``
  rejected, language tags well-formed BCP 47;
* ``"rdf-star"``: strict RDF-star N-Triples: ``<< >>`` as subject or object, nothing of RDF 1.2.

A directional language tag (``"x"@en--ltr``) is kept as the literal's language ``"en--ltr"``.
"""

cimport cython
from cpython.bytearray cimport PyByteArray_AS_STRING
from cpython.list cimport PyList_GET_SIZE
from cpython.ref cimport PyObject, Py_INCREF, Py_XDECREF
from cpython.unicode cimport PyUnicode_DecodeUTF8, PyUnicode_DecodeASCII, PyUnicode_DATA, \
    PyUnicode_GET_LENGTH
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcmp, memcpy

from jelly._lines cimport LineParser
from jelly._terms cimport IRI, Literal, make_iri, make_bnode, make_literal, make_triple
from jelly._ntchars cimport (utf8_seq, uchar_at, utf8_put, pn_chars_base, pn_chars_rest,
                             hash_span, is_absolute_iri, describe, is_message)

import io
import re
from functools import partial

from ._lines import MESSAGE, UntilMessage, parse_lines
from .errors import RdfSyntaxError
from .io import read_some

__all__ = ["parse_nquads", "MESSAGE", "TermParser", "TermScanner", "UntilMessage", "SYNTAXES"]

#: The values of ``syntax=`` besides ``None``.
SYNTAXES = ("rdf12", "rdf-star")

cdef enum:
    _ANY = 0                   # both notations, generalized statements
    _RDF12 = 1                 # strict W3C RDF 1.2
    _STAR = 2                  # strict RDF-star community-group syntax

cdef enum:
    _MAX_DEPTH = 64            # quoted-triple nesting accepted by the parser
    _DEFAULT_CHUNK = 1 << 20
    _BATCH = 128               # statements parsed per resumption of the generator

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


cdef int _syntax_code(object syntax) except -1:
    if syntax is None:
        return _ANY
    if syntax == "rdf12":
        return _RDF12
    if syntax == "rdf-star":
        return _STAR
    raise ValueError(f"unknown syntax {syntax!r}; choose None, 'rdf12' or 'rdf-star'")




# ---------------------------------------------------------------------------------------------
# Reading

cdef tuple _ROLES = ("a subject", "a predicate", "an object", "a graph label or '.'")
cdef tuple _ROLE_NAMES = ("subject", "predicate", "object", "graph label")



ctypedef struct _Slot:
    PyObject* val
    char* key
    Py_ssize_t klen
    Py_ssize_t kcap
    int kind


@cython.final
cdef class _Parser(LineParser):
    """N-Triples / N-Quads lines (the line state: :class:`jelly._lines.LineParser`)."""

    cdef bint messages
    cdef bint relative_ok
    cdef public bint triples    # N-Triples by strict syntax: a graph label is an error
    cdef int syntax
    cdef tuple roles           # what each position expects, for errors (_ROLES)
    cdef _Slot* slots
    cdef char* sbuf
    cdef Py_ssize_t scap
    cdef str lang              # the last language tag (tags repeat: checked once, reused)
    cdef object last_dt        # the last datatype IRI seen, checked, and what it stands for
    cdef object last_dt_value

    def __cinit__(self, bint messages, bint relative_ok, int syntax=_ANY):
        self.slots = <_Slot*>calloc(_CACHE_SLOTS, sizeof(_Slot))
        if self.slots == NULL:
            raise MemoryError()
        self.messages = messages
        self.relative_ok = relative_ok
        self.syntax = syntax
        self.roles = _ROLES

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.slots != NULL:
            for i in range(_CACHE_SLOTS):
                Py_XDECREF(self.slots[i].val)
                free(self.slots[i].key)
            free(self.slots)
        free(self.sbuf)

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
            elif c == 86:
                self.p = p
                self._version()
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
                k = utf8_seq(p, end, &cp)
                if k == 0:
                    self._fail("invalid UTF-8 in comment", p)
                p += k
        if whole_line and self.messages and is_message(start, p):
            self.out.append(MESSAGE)
        self.p = p
        return 0

    cdef int _line_end(self, str after) except -1:
        """Only white space and a comment may follow on the line."""
        cdef const unsigned char* p = self.p
        cdef const unsigned char* end = self.end
        while p < end and (p[0] == 32 or p[0] == 9):
            p += 1
        if p < end and p[0] == 35:
            self.p = p
            self._comment(False)
            p = self.p
        if p < end and p[0] != 10 and p[0] != 13:
            self._fail(f"expected end of line after {after}, found {describe(p, end)}", p)
        self.p = p
        return 0

    cdef int _version(self) except -1:
        # RDF 1.2: versionDirective ::= 'VERSION' STRING_LITERAL_QUOTE, on a line of its own
        cdef const unsigned char* p = self.p
        if self.end - p < 7 or memcmp(p, b"VERSION", 7) != 0:
            self._fail(f"unexpected {describe(p, self.end)}, expected a subject", p)
        if self.syntax == _STAR:
            self._fail_syntax("the VERSION directive (RDF 1.2)", p)
        self.p = p + 7
        self._ws()
        p = self.p
        if p >= self.end or p[0] != 34:
            self._fail("expected a version string in double quotes after VERSION", p)
        version = self._literal()
        if (<Literal>version).language is not None or (<Literal>version).datatype is not None:
            self._fail("the version after VERSION is a plain string", p)
        self._line_end("the VERSION directive")
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
            if self.triples and p < end and p[0] != 10 and p[0] != 13:
                self._fail(f"expected '.' (N-Triples has no graph label; read it as N-Quads), "
                           f"found {describe(p, end)}", p)
            g = self._graph()
            self._ws()
            p = self.p
            if p >= end or p[0] != 46:
                if p >= end or p[0] == 10 or p[0] == 13:
                    self._fail("missing '.' at the end of the statement", p)
                self._fail(f"expected '.' after the graph label, found {describe(p, end)}", p)
        self.p = p + 1
        self._line_end("'.'")
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
            self._fail(f"unexpected end of line, expected {self.roles[role]}", p)
        c = p[0]
        if c == 60:
            if p + 1 < end and p[1] == 60:
                return self._quoted(depth + 1, role)
            return self._iri()
        if c == 34:
            if self.syntax != _ANY and role != 2:
                self._fail(f"a literal cannot be the {_ROLE_NAMES[role]} of a statement", p)
            return self._literal()
        if c == 95:
            if self.syntax != _ANY and role == 1:
                self._fail("a blank node cannot be a predicate", p)
            return self._bnode()
        if c == 46 and role == 2:
            self._fail("missing object before '.'", p)
        self._fail(f"unexpected {describe(p, end)}, expected {self.roles[role]}", p)

    cdef object _graph(self):
        cdef const unsigned char* p = self.p
        cdef const unsigned char* end = self.end
        if p >= end or p[0] == 10 or p[0] == 13:
            self._fail("missing '.' at the end of the statement", p)
        if p[0] == 60 and p + 1 < end and p[1] == 60:
            self._fail("a quoted triple cannot be a graph label", p)
        return self._term(0, 3)

    cdef object _quoted(self, int depth, int role):
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
            if self.syntax == _STAR:
                self._fail_syntax("the triple term '<<( ... )>>' (RDF 1.2)", start)
            if self.syntax == _RDF12 and role != 2:
                self._fail(f"a triple term cannot be the {_ROLE_NAMES[role]} of a statement "
                           f"(RDF 1.2 allows it as the object only)", start)
        elif self.syntax == _RDF12:
            self._fail("the RDF-star quoted triple '<< ... >>' is not RDF 1.2 N-Triples / "
                       "N-Quads (a triple term is written '<<( s p o )>>', as an object); "
                       "read RDF-star data with syntax 'rdf-star'", start)
        elif self.syntax == _STAR and role == 1:
            self._fail("a quoted triple cannot be a predicate", start)
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


    cdef int _fail(self, str msg, const unsigned char* at) except -1:
        cdef const unsigned char* q = self.line_start
        cdef Py_ssize_t col = 1
        if at > self.end:
            at = self.end
        while q < at:
            if (q[0] & 0xC0) != 0x80:
                col += 1
            q += 1
        raise RdfSyntaxError(f"{msg} at column {col}", line=self.line or None)  # 0: no line

    cdef int _fail_syntax(self, str what, const unsigned char* at) except -1:
        return self._fail(f"{what} is not {_SYNTAX_LABEL[self.syntax]} N-Triples / N-Quads "
                          f"(syntax {('rdf12', 'rdf-star')[self.syntax - 1]!r})", at)

    cdef inline void _ws(self) noexcept:
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
        # lengths first: Cython compares str with PyUnicode_Compare, which walks the common
        # prefix ("http://www.w3.org/") of every datatype before it tells them apart
        cdef Py_ssize_t n = len(v)
        if ((n == len(_RDF_LANGSTRING) and v == _RDF_LANGSTRING)
                or (n == len(_RDF_DIRLANGSTRING) and v == _RDF_DIRLANGSTRING)):
            self._fail(f"a literal with the datatype <{v}> needs a language tag "
                       f"(write \"...\"@tag)", at)
        self.last_dt = dt
        self.last_dt_value = None if n == len(_XSD_STRING) and v == _XSD_STRING else dt
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
        if d != NULL and self.syntax == _STAR:
            self._fail_syntax("a directional language tag (RDF 1.2)", d - 2)
        lang = PyUnicode_DecodeASCII(<char*>s, n, NULL)
        if self.syntax == _RDF12 and _BCP47.fullmatch(lang if d == NULL else lang[:d - 2 - s]) is None:
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
        cdef _Slot* slot
        cdef str v
        cdef object term
        cdef char* key
        if n <= _CACHE_MAX_KEY:
            slot = &self.slots[(hash_span(start, n) + <uint64_t>kind) & (_CACHE_SLOTS - 1)]
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
            Py_XDECREF(slot.val)
            slot.val = <PyObject*>term
        return term


def parse_nquads(source, *, messages=False, chunk_size=_DEFAULT_CHUNK, allow_relative_iris=False,
                 syntax=None, at_start=True, triples=False):
    """Parse N-Triples / N-Quads from a binary stream or bytes.

    ``syntax``: ``None`` (RDF 1.2 and RDF-star notations, generalized statements), ``"rdf12"``
    (strict W3C RDF 1.2) or ``"rdf-star"`` (strict RDF-star).  Returns an iterator of
    ``(s, p, o)`` and ``(s, p, o, g)`` tuples, reading ``chunk_size`` bytes at a time.  With
    ``messages=True`` a comment line ``# @message`` yields ``MESSAGE``.  Syntax errors raise
    ``RdfSyntaxError`` with the line and column, after the statements of the lines before it
    were yielded.  ``at_start=False``: ``source`` is a piece from inside a document (a worker's
    chunk), where a byte order mark is a character like any other (at the start of a document
    it is passed over).  ``triples=True``: N-Triples, where a graph label is an error (the
    strict syntaxes; by default N-Triples text may hold a quad).
    """
    cdef int code = _syntax_code(syntax)
    cdef _Parser parser
    if isinstance(source, (bytes, bytearray, memoryview)):
        source = io.BytesIO(source)
    elif isinstance(source, str):
        raise TypeError("parse_nquads needs bytes or a binary stream, not str")
    if getattr(source, "read", None) is None or isinstance(source, io.TextIOBase):
        raise TypeError(f"parse_nquads needs bytes or a binary stream, not {type(source).__name__}")
    # what a pipe has now, so that a live stream is parsed as it arrives; a non-blocking
    # stream's "no data yet" is waited on, never taken for the end
    read = partial(read_some, source)
    chunk_size = int(chunk_size)
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    parser = _Parser(bool(messages), bool(allow_relative_iris), code)
    parser.at_start = bool(at_start)
    parser.triples = bool(triples)
    return parse_lines(read, parser, chunk_size, _BATCH, "parse_nquads")


@cython.final
cdef class TermParser:
    """Parses single terms in N-Triples syntax (an IRI, blank node, literal, ``<< s p o >>`` or
    ``<<( s p o )>>``), e.g. the string columns of a DataFrame; repeated IRIs come back as the
    same objects.  ``syntax`` as for :func:`parse_nquads`."""

    cdef _Parser parser

    def __init__(self, syntax=None):
        self.parser = _Parser(False, False, _syntax_code(syntax))
        # a term is read as an object (what may stand there may stand anywhere), said so
        self.parser.roles = _ROLES[:2] + ("a term",) + _ROLES[3:]

    def parse(self, str text):
        """The term that ``text`` spells; :class:`RdfSyntaxError` if it is not exactly one."""
        cdef bytearray buf = bytearray(text.encode("utf-8", "surrogatepass"))
        cdef _Parser p = self.parser
        p.line = 0                  # one term is on no line
        p.begin(buf, len(buf))
        p._ws()
        term = p._term(0, 2)
        p._ws()
        if p.p != p.end:
            p._fail("unexpected text after the term", p.p)
        return term


@cython.final
cdef class TermScanner:
    """Terms at a position of another line-based format's buffer (RDF Patch text): the same
    scanners, caches and errors as :func:`parse_nquads`; used from Cython (``_ntriples.pxd``).
    ``syntax`` as for :func:`parse_nquads`."""

    def __init__(self, syntax=None):
        self.parser = _Parser(False, False, _syntax_code(syntax))

    cdef object scan(self, const unsigned char* p, const unsigned char* end,
                     const unsigned char* line_start, Py_ssize_t line, int role,
                     const unsigned char** after):
        cdef _Parser ps = <_Parser>self.parser
        ps.p = p
        ps.end = end
        ps.line_start = line_start
        ps.line = line
        term = ps._graph() if role == 3 else ps._term(0, role)
        after[0] = ps.p
        return term

    cdef int fail(self, str msg, const unsigned char* at, const unsigned char* end,
                  const unsigned char* line_start, Py_ssize_t line) except -1:
        cdef _Parser ps = <_Parser>self.parser
        ps.end = end
        ps.line_start = line_start
        ps.line = line
        return ps._fail(msg, at)
