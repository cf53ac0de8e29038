# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""N-Triples / N-Quads output: terms and statements in the W3C canonical escaping, and the
decoder's N-Triples term factory and its sinks.

``term_to_nt`` and ``statement_to_nt`` format jelly terms.  ``NTriplesTerms`` makes a decoder
build every term as its N-Triples string (IRIs once per lookup slot, thanks to the IRI cache;
the default graph is ``None``); ``TextSink`` writes decoded statements as N-Triples / N-Quads
text into one buffer (``LineSink``: a str per line), so Jelly becomes text without building
any term object.  ``ArrowSink`` fills the buffers of Arrow arrays instead.
"""

cimport cython
from cpython.unicode cimport PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_1BYTE_KIND

from ._terms cimport IRI, BlankNode, Literal, Triple, DefaultGraph
from ._ntchars cimport is_absolute_iri
from ._sink cimport TermFactory, StatementSink, NativeTerms
from ._buffer cimport utf8_of, WriteBuffer, wb_init, wb_free, wb_ensure, wb_bytes, wb_take
from libc.stdint cimport int32_t
from libc.string cimport memcpy, memset
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, _PyBytes_Resize
from cpython.ref cimport PyObject, Py_INCREF, Py_XDECREF
from cpython.buffer cimport PyBuffer_FillInfo

from ._ntriples import MESSAGE as _MESSAGE
from .errors import JellyDecodeError, JellyEncodeError, JellyError

__all__ = ["term_to_nt", "statement_to_nt", "NQuadsWriter", "NTriplesTerms", "LineSink",
           "TextSink", "ArrowColumn", "StringColumn", "TermColumns", "ArrowSink", "arrow_sink"]

cdef str _XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"

cdef enum:
    _WRITE_BUFFER = 1 << 16

cdef str _MESSAGE_LINE = "# @message\n"

cdef unsigned char _W_IRI[256]      # Latin-1 chars that must be \u-escaped in IRIs
cdef unsigned char _W_LIT[256]      # Latin-1 chars that must be escaped in literals


cdef void _init_tables() noexcept:
    cdef int i
    for i in range(256):
        _W_IRI[i] = i <= 0x20 or i in (0x22, 0x3C, 0x3E, 0x5C, 0x5E, 0x60, 0x7B, 0x7C, 0x7D)
        _W_LIT[i] = i < 0x20 or i in (0x22, 0x5C, 0x7F)


_init_tables()


# ---------------------------------------------------------------------------------------------
# Terms and statements as N-Triples

cdef inline bint _iri_bad(Py_UCS4 c) noexcept:
    return c <= 0x20 or c == 0x22 or c == 0x3C or c == 0x3E or c == 0x5C or c == 0x5E \
        or c == 0x60 or c == 0x7B or c == 0x7C or c == 0x7D


cdef inline bint _lit_bad(Py_UCS4 c) noexcept:
    # RDF 1.2 canonical N-Triples also escapes the noncharacters U+FFFE and U+FFFF
    return c < 0x20 or c == 0x22 or c == 0x5C or c == 0x7F or c == 0xFFFE or c == 0xFFFF


cdef inline bint _is_surrogate(Py_UCS4 c) noexcept:
    return 0xD800 <= c <= 0xDFFF


cdef str _uchar(Py_UCS4 c):
    # Canonical form: uppercase hex, the short form whenever it fits.
    if c <= 0xFFFF:
        return "\\u%04X" % <long>c
    return "\\U%08X" % <long>c


cdef int _no_surrogates(str s, str what) except -1:
    # Lone surrogates cannot be encoded as UTF-8, nor written as a valid \u escape.
    cdef Py_UCS4 c
    if PyUnicode_KIND(s) == PyUnicode_1BYTE_KIND:
        return 0
    for c in s:
        if _is_surrogate(c):
            raise ValueError(f"{what} contains a lone surrogate U+{<int>c:04X}, which cannot be written")
    return 0


cdef str _iri_nt(str v):
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(v)
    cdef const unsigned char* d
    cdef Py_UCS4 c
    if PyUnicode_KIND(v) == PyUnicode_1BYTE_KIND:
        d = <const unsigned char*>PyUnicode_DATA(v)
        for i in range(n):
            if _W_IRI[d[i]]:
                return _iri_nt_slow(v)
    else:
        for c in v:
            if _iri_bad(c) or _is_surrogate(c):
                return _iri_nt_slow(v)
    return f"<{v}>"


cdef str _iri_nt_slow(str v):
    cdef list parts = ["<"]
    cdef Py_ssize_t i, start = 0, n = PyUnicode_GET_LENGTH(v)
    cdef Py_UCS4 c
    for i in range(n):
        c = v[i]
        if _is_surrogate(c):
            raise ValueError(f"IRI contains a lone surrogate U+{<int>c:04X}, which cannot be written")
        if _iri_bad(c):
            if i > start:
                parts.append(v[start:i])
            parts.append(_uchar(c))
            start = i + 1
    if n > start:
        parts.append(v[start:])
    parts.append(">")
    return "".join(parts)


cdef str _lex_nt(str lex):
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(lex)
    cdef const unsigned char* d
    cdef Py_UCS4 c
    if PyUnicode_KIND(lex) == PyUnicode_1BYTE_KIND:
        d = <const unsigned char*>PyUnicode_DATA(lex)
        for i in range(n):
            if _W_LIT[d[i]]:
                return _lex_nt_slow(lex)
    else:
        for c in lex:
            if _lit_bad(c) or _is_surrogate(c):
                return _lex_nt_slow(lex)
    return f'"{lex}"'


cdef extern from "Python.h":
    Py_UCS4 PyUnicode_READ(int kind, const void* data, Py_ssize_t index)
    void PyUnicode_WRITE(int kind, void* data, Py_ssize_t index, Py_UCS4 value)
    Py_UCS4 PyUnicode_MAX_CHAR_VALUE(object s)
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)


cdef const char* _HEX = b"0123456789ABCDEF"


cdef inline unsigned char _echar(Py_UCS4 c) noexcept:
    # The letter of the ECHAR of c ('n' for LF, ...), or 0: \u00XX.
    if c == 0x22 or c == 0x5C:
        return <unsigned char>c
    if c == 0x0A:
        return 110
    if c == 0x0D:
        return 114
    if c == 0x09:
        return 116
    if c == 0x08:
        return 98
    if c == 0x0C:
        return 102
    return 0


cdef str _lex_nt_latin1(str lex, const unsigned char* d, Py_ssize_t n):
    # _lex_nt_slow of a one-byte str: the runs between escapes copied whole.
    cdef Py_ssize_t i, j, start = 0, size = n + 2
    cdef unsigned char* o
    cdef unsigned char e
    for i in range(n):
        if _W_LIT[d[i]]:
            size += 1 if _echar(d[i]) else 5
    out = PyUnicode_New(size, PyUnicode_MAX_CHAR_VALUE(lex))
    o = <unsigned char*>PyUnicode_DATA(out)
    o[0] = 0x22
    j = 1
    for i in range(n):
        if not _W_LIT[d[i]]:
            continue
        memcpy(o + j, d + start, i - start)
        j += i - start
        start = i + 1
        o[j] = 0x5C
        e = _echar(d[i])
        if e:
            o[j + 1] = e
            j += 2
        else:
            o[j + 1] = 0x75
            o[j + 2] = 0x30
            o[j + 3] = 0x30
            o[j + 4] = _HEX[d[i] >> 4]
            o[j + 5] = _HEX[d[i] & 0xF]
            j += 6
    memcpy(o + j, d + start, n - start)
    o[j + n - start] = 0x22
    return out


cdef str _lex_nt_slow(str lex):
    # ECHAR for BS, HT, LF, FF, CR, '"' and '\', \uXXXX for the other C0 controls, DEL and
    # U+FFFE / U+FFFF.  Measured, then written into one new str: a list of pieces took 65
    # bytes of memory per escaped character (a literal of 15M newlines: 1.3 GB), and
    # str.translate a dict lookup per character (3-10 times slower on common literals).
    cdef Py_ssize_t i, j, n = PyUnicode_GET_LENGTH(lex), size = n + 2
    cdef int kind = PyUnicode_KIND(lex), okind
    cdef const void* data = PyUnicode_DATA(lex)
    cdef void* odata
    cdef Py_UCS4 c
    cdef unsigned char e
    cdef unsigned int code
    cdef int k
    if kind == PyUnicode_1BYTE_KIND:
        return _lex_nt_latin1(lex, <const unsigned char*>data, n)
    cdef Py_UCS4 widest = 127           # of what is copied: a str's kind must fit it exactly
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if _lit_bad(c):
            size += 1 if _echar(c) else 5
        elif _is_surrogate(c):
            raise ValueError(f"literal contains a lone surrogate U+{<int>c:04X}, which cannot "
                             f"be written")
        elif c > widest:
            widest = c
    out = PyUnicode_New(size, widest)
    okind = PyUnicode_KIND(out)
    odata = PyUnicode_DATA(out)
    PyUnicode_WRITE(okind, odata, 0, 0x22)
    j = 1
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if not _lit_bad(c):
            PyUnicode_WRITE(okind, odata, j, c)
            j += 1
            continue
        PyUnicode_WRITE(okind, odata, j, 0x5C)
        e = _echar(c)
        if e:
            PyUnicode_WRITE(okind, odata, j + 1, e)
            j += 2
            continue
        PyUnicode_WRITE(okind, odata, j + 1, 0x75)
        code = <unsigned int>c
        for k in range(4):
            PyUnicode_WRITE(okind, odata, j + 2 + k, _HEX[(code >> (12 - 4 * k)) & 0xF])
        j += 6
    PyUnicode_WRITE(okind, odata, j, 0x22)
    return out


cdef inline bint _pn_chars_base(Py_UCS4 c) noexcept:
    return ((0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A) or (0xC0 <= c <= 0xD6)
            or (0xD8 <= c <= 0xF6) or (0xF8 <= c <= 0x2FF) or (0x370 <= c <= 0x37D)
            or (0x37F <= c <= 0x1FFF) or (0x200C <= c <= 0x200D) or (0x2070 <= c <= 0x218F)
            or (0x2C00 <= c <= 0x2FEF) or (0x3001 <= c <= 0xD7FF) or (0xF900 <= c <= 0xFDCF)
            or (0xFDF0 <= c <= 0xFFFD) or (0x10000 <= c <= 0xEFFFF))


cdef inline bint _pn_chars(Py_UCS4 c) noexcept:
    # PN_CHARS of the N-Triples grammar (PN_CHARS_U, '-', digits and a few combining ranges);
    # PN_CHARS_U has no ':' (the W3C tests nt-syntax-bad-bnode-01/02 reject it).
    return (_pn_chars_base(c) or c == 0x5F or c == 0x2D or (0x30 <= c <= 0x39)
            or c == 0xB7 or (0x300 <= c <= 0x36F) or (0x203F <= c <= 0x2040))


cdef bint _label_ok(str label, Py_ssize_t n):
    # BLANK_NODE_LABEL of N-Triples (without the '_:').
    cdef Py_ssize_t i
    cdef Py_UCS4 c
    cdef bint ok = n > 0
    if ok:
        c = label[0]
        ok = _pn_chars_base(c) or c == 0x5F or (0x30 <= c <= 0x39)
        i = 1
        while ok and i < n:
            c = label[i]
            ok = _pn_chars(c) or (c == 0x2E and i < n - 1)
            i += 1
    return ok


cdef str _bnode_nt(str label):
    # Labels come from other syntaxes (Jelly allows any string): one that is not a valid
    # BLANK_NODE_LABEL is written as 'j-' + the hex of its UTF-8, which always is.
    if not _escaped(label):
        return f"_:{label}"
    _no_surrogates(label, "blank node label")
    return "_:j-" + label.encode("utf-8").hex()


cdef bint _escaped(str label):
    """Whether ``label`` is written in the escaped form: it is not a BLANK_NODE_LABEL, or it
    is the escaped form of a label that is ('j-' + hex pairs of the UTF-8 of one), so that
    the mapping stays one-to-one.  Any other label, 'j-ab' (no UTF-8) or 'j-6162' ('ab' is
    written as it is) say, is written as it is: escaping every label of that shape renamed
    such nodes on every text-to-text pass."""
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(label)
    cdef Py_UCS4 c
    if not _label_ok(label, n):
        return True
    if n < 4 or label[0] != "j" or label[1] != "-" or n % 2 == 1:
        return False
    for i in range(2, n):
        c = label[i]
        if not ((0x30 <= c <= 0x39) or (0x61 <= c <= 0x66)):
            return False
    try:
        inner = bytes.fromhex(label[2:]).decode("utf-8")
    except UnicodeDecodeError:
        return False            # what no label is escaped to
    return _escaped(inner)      # each level half as long


cdef str _lang_nt(str lang):
    # LANG_DIR ::= '@' [a-zA-Z]+ ('-' [a-zA-Z0-9]+)* ('--' ('ltr' | 'rtl'))?; anything else
    # would break the line.
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(lang)
    cdef Py_UCS4 c
    cdef bint first = True, empty = True
    cdef bint ok
    if n > 5 and lang[n - 5] == "-" and lang[n - 4] == "-" and lang[n - 3:] in ("ltr", "rtl"):
        n -= 5          # a base direction (RDF 1.2)
    ok = n > 0
    for i in range(n):
        c = lang[i]
        if c == 0x2D:
            if empty:
                ok = False
                break
            first = False
            empty = True
        elif (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A) or (not first and 0x30 <= c <= 0x39):
            empty = False
        else:
            ok = False
            break
    if not ok or empty:
        raise JellyEncodeError(f"language tag {lang!r} is not well-formed (letters, then "
                               f"'-' and letters or digits)")
    return "@" + lang


cdef str _term_nt(object t, int depth, bint rdf12=False, int role=2):
    # role: 0 subject, 1 predicate, 2 object (RDF 1.2 allows triple terms as objects only)
    cdef object tp = type(t)
    cdef Literal lit
    cdef Triple tr
    cdef str s, label
    cdef object dt, lang
    if tp is IRI:
        if rdf12 and not is_absolute_iri((<IRI>t).value):
            _relative((<IRI>t).value)
        return _iri_nt((<IRI>t).value)
    if tp is Literal:
        lit = <Literal>t
        s = _lex_nt(lit.lex)
        lang = lit.language
        if lang is not None:
            if type(lang) is not str:
                raise TypeError("literal language tag must be str")
            return s + _lang_nt(<str>lang)
        dt = lit.datatype
        if dt is None:
            return s
        if type(dt) is IRI:
            dt = (<IRI>dt).value
        elif type(dt) is not str:
            raise TypeError("literal datatype must be an IRI")
        if dt == _XSD_STRING:   # xsd:string is the simple literal
            return s
        if rdf12 and not is_absolute_iri(<str>dt):
            _relative(<str>dt)
        return f"{s}^^{_iri_nt(<str>dt)}"
    if tp is BlankNode:
        return _bnode_nt((<BlankNode>t).value)
    if tp is Triple:
        return _triple_nt(<Triple>t, rdf12, role)
    if tp is DefaultGraph:
        raise TypeError("DEFAULT_GRAPH has no N-Triples form")
    raise TypeError(f"not an RDF term: {t!r}")


cdef str _triple_nt(Triple t, bint rdf12, int role):
    # Pieces in order from an explicit stack (text as str, terms as (term, role)), so any
    # nesting depth prints without recursion.
    cdef list out = [], stack = [(t, role)]
    cdef Triple tr
    while stack:
        item = stack.pop()
        if type(item) is str:
            out.append(item)
            continue
        term, role = item
        if type(term) is not Triple:
            out.append(_term_nt(term, 0, rdf12, role))
            continue
        tr = <Triple>term
        if rdf12:
            if role != 2:
                _not_rdf12(role)
            _check_terms_rdf12(tr.s, tr.p, None)
        out.append("<<( " if rdf12 else "<< ")
        stack += [" )>>" if rdf12 else " >>", (tr.o, 2), " ", (tr.p, 1), " ", (tr.s, 0)]
    return "".join(out)


cdef int _not_rdf12(int role) except -1:
    raise JellyError(f"a quoted triple as {('subject', 'predicate', 'object')[role]} cannot be "
                     f"written in RDF 1.2 (triple terms are objects only); convert RDF-star to "
                     f"RDF 1.2 reifiers first (jelly convert --to-rdf12), or write RDF-star")


cdef bint _rdf12(object syntax) except -1:
    if syntax is None or syntax == "rdf-star":
        return False
    if syntax == "rdf12":
        return True
    raise ValueError(f"unknown syntax {syntax!r}; choose None, 'rdf12' or 'rdf-star'")


cdef str _statement_nt(object stmt, bint rdf12=False):
    cdef Py_ssize_t n
    cdef object s, p, o, g = None
    cdef str line
    if type(stmt) is tuple:
        n = len(<tuple>stmt)
        if n == 3:
            s, p, o = <tuple>stmt
        elif n == 4:
            s, p, o, g = <tuple>stmt
        else:
            raise ValueError(f"a statement has 3 or 4 terms, not {n}")
    elif type(stmt) is Triple:
        s, p, o = (<Triple>stmt).s, (<Triple>stmt).p, (<Triple>stmt).o
    else:
        return _statement_nt(tuple(stmt), rdf12)
    if rdf12:
        _check_terms_rdf12(s, p, g)
    line = f"{_term_nt(s, 0, rdf12, 0)} {_term_nt(p, 0, rdf12, 1)} {_term_nt(o, 0, rdf12, 2)}"
    if g is None or type(g) is DefaultGraph:
        return f"{line} .\n"
    if type(g) is Triple:
        raise ValueError("a quoted triple cannot be a graph label")
    return f"{line} {_term_nt(g, 0, rdf12, 0)} .\n"


def absolute_iri(str iri):
    """Whether ``iri`` starts with a scheme (RFC 3987): what RDF 1.2 N-Triples and Turtle
    prefixes take."""
    return is_absolute_iri(iri)


def term_to_nt(term, syntax=None):
    """The N-Triples form of an IRI, blank node, literal or quoted triple: ``<< s p o >>``, or
    with ``syntax="rdf12"`` the RDF 1.2 triple term ``<<( s p o )>>``."""
    return _term_nt(term, 0, _rdf12(syntax), 2)


def statement_to_nt(stmt, syntax=None):
    """One N-Triples / N-Quads line (with ``" .\\n"``) for ``(s, p, o)`` or ``(s, p, o, g)``.

    A graph of ``DEFAULT_GRAPH`` or ``None`` gives a triple line.  ``syntax="rdf12"`` writes
    quoted triples as RDF 1.2 triple terms and refuses them where RDF 1.2 has none.
    """
    return _statement_nt(stmt, _rdf12(syntax))


@cython.final
cdef class NQuadsWriter:
    """Writes statements as N-Quads lines to a binary stream, buffering about 64 KiB of UTF-8.

    ``write(MESSAGE)`` is the same as ``write_message()``.  ``close()`` flushes but leaves the
    underlying stream open.
    """

    cdef object _stream
    cdef object _write
    cdef WriteBuffer _buf
    cdef Py_ssize_t _limit
    cdef bint _triple_terms
    cdef bint _star

    def __cinit__(self, *args, **kwargs):
        wb_init(&self._buf, _WRITE_BUFFER)

    def __dealloc__(self):
        wb_free(&self._buf)

    def __init__(self, stream, *, Py_ssize_t buffer_size=_WRITE_BUFFER, syntax=None):
        self._triple_terms = _rdf12(syntax)
        self._star = syntax == "rdf-star"
        self._stream = stream
        self._write = stream.write
        self._limit = buffer_size if buffer_size > 0 else 1

    cdef int _put(self, str line) except -1:
        cdef const char* p
        cdef Py_ssize_t n
        utf8_of(line, &p, &n)
        wb_bytes(&self._buf, p, n)
        return 0

    cdef inline int _filled(self) except -1:
        if self._buf.len >= self._limit:
            self._drain()
        return 0

    def write(self, stmt):
        """Buffer one statement (a 3- or 4-tuple)."""
        if self._star and stmt is not _MESSAGE:
            for term in stmt:
                check_rdf_star(term, "; write it without syntax 'rdf-star'")
        self._put(_MESSAGE_LINE if stmt is _MESSAGE else _statement_nt(stmt, self._triple_terms))
        self._filled()

    def write_lines(self, list lines):
        """Buffer complete lines (str, each ending in a line feed), e.g. a frame of a decoder
        with ``output="lines"``."""
        for line in lines:
            self._put(<str?>line)
        self._filled()

    def write_text(self, text):
        """Buffer complete lines as UTF-8 bytes, e.g. a frame of a decoder with
        ``output="text"``; text at least as large as the buffer goes to the stream as it is
        (after what is buffered), without a copy."""
        cdef const unsigned char[::1] view = text
        cdef Py_ssize_t n = view.shape[0]
        if n >= self._limit:
            self._drain()
            self._write(text)
        elif n:
            wb_bytes(&self._buf, <const char*>&view[0], n)
            self._filled()

    def write_message(self):
        """Write a message boundary: the line ``# @message``."""
        self._put(_MESSAGE_LINE)
        self._filled()

    cdef int _drain(self) except -1:
        if self._buf.len:
            self._write(wb_take(&self._buf, False))
        return 0

    def flush(self):
        """Write out the buffer and flush the underlying stream (if it can be flushed)."""
        self._drain()
        flush = getattr(self._stream, "flush", None)
        if flush is not None:
            flush()

    def close(self):
        """Flush; the underlying stream stays open."""
        self.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.flush()
        return False


# ---------------------------------------------------------------------------------------------
# The decoder's factory and sink

@cython.final
cdef class NTriplesTerms(TermFactory):
    """Every term as its N-Triples string; the default graph is ``None``.  With
    ``syntax="rdf12"`` quoted triples are RDF 1.2 triple terms ``<<( s p o )>>``."""

    cdef readonly bint rdf12

    def __init__(self, syntax=None):
        self.default_graph = None
        self.acyclic = True
        self.rdf12 = _rdf12(syntax)

    cdef object iri(self, str value):
        if self.rdf12 and not is_absolute_iri(value):
            _relative(value)
        return _iri_nt(value)

    cdef object bnode(self, str label):
        return _bnode_nt(label)

    cdef object datatype(self, str iri):
        if self.rdf12 and not is_absolute_iri(iri):
            _relative(iri)
        return "^^" + _iri_nt(iri)

    cdef object literal(self, str lex, object language, object datatype):
        if language is not None:
            try:
                return _lex_nt(lex) + _lang_nt(<str>language)
            except JellyEncodeError as exc:
                raise JellyDecodeError(exc.message) from None
        if datatype is not None:
            return _lex_nt(lex) + <str>datatype       # datatype is "^^<iri>"
        return _lex_nt(lex)

    cdef object triple(self, object s, object p, object o):
        if self.rdf12:
            _check_rdf12(<str>s, <str>p)
            return f"<<( {<str>s} {<str>p} {<str>o} )>>"
        return f"<< {<str>s} {<str>p} {<str>o} >>"


cdef inline int _check_rdf12(str s, str p, object g=None) except -1:
    # terms are N-Triples strings here: a triple term is the only one starting with '<<', a
    # literal the only one starting with '"', a blank node the only one starting with '_'
    if PyUnicode_GET_LENGTH(s) > 1 and s[1] == "<":
        _not_rdf12(0)
    if PyUnicode_GET_LENGTH(p) > 1 and p[1] == "<":
        _not_rdf12(1)
    if s.startswith('"'):
        _generalized("a literal", "subject")
    if not p.startswith("<"):
        _generalized("a literal" if p.startswith('"') else "a blank node", "predicate")
    if g is not None and (<str>g).startswith('"'):
        _generalized("a literal", "graph name")
    return 0


cdef object _directed(object t):
    # a literal with a base direction in t (quoted triples too), or None
    cdef object lang, found
    if type(t) is Literal:
        lang = (<Literal>t).language
        return t if lang is not None and "--" in lang else None
    if type(t) is Triple:
        found = _directed((<Triple>t).s)
        return found if found is not None else _directed((<Triple>t).o)
    return None


cpdef int check_rdf_star(object t, str advice="") except -1:
    """Refuse ``t`` if it holds a literal with a base direction (quoted triples too): what RDF
    1.2 says and RDF-star cannot (``--to-rdf-star`` and ``syntax="rdf-star"`` output)."""
    found = _directed(t)
    if found is not None:
        raise JellyError(f"the literal {_term_nt(found, 0)} has a base direction (RDF 1.2), "
                         f"which RDF-star cannot say{advice}")
    return 0


cdef int _check_terms_rdf12(object s, object p, object g) except -1:
    # a generalized statement (or triple term) has no RDF 1.2 text; quoted triples as subject
    # or predicate are refused where they are written (_triple_nt)
    if type(s) is Literal:
        _generalized("a literal", "subject")
    if type(p) is Literal or type(p) is BlankNode:
        _generalized("a literal" if type(p) is Literal else "a blank node", "predicate")
    if type(g) is Literal:
        _generalized("a literal", "graph name")
    return 0


cdef int _relative(str iri) except -1:
    raise JellyError(f"the IRI {iri!r} is relative, which RDF 1.2 N-Triples / N-Quads cannot "
                     f"hold; write it without syntax 'rdf12'")


cdef int _generalized(str what, str role) except -1:
    raise JellyError(f"{what} as {role} (a generalized statement) cannot be written in RDF 1.2 "
                     f"N-Triples / N-Quads; write it without syntax 'rdf12'")


@cython.final
cdef class LineSink(StatementSink):
    """N-Triples / N-Quads lines (each ending in ``" .\\n"``) of N-Triples terms."""

    cdef list out
    cdef bint rdf12

    def __init__(self, terms):
        if not isinstance(terms, NTriplesTerms):
            raise ValueError("output='lines' needs terms='nt'")
        self.out = []
        self.rdf12 = (<NTriplesTerms>terms).rdf12

    cdef int triple(self, object s, object p, object o) except -1:
        if self.rdf12:
            _check_rdf12(<str>s, <str>p)
        self.out.append(f"{<str>s} {<str>p} {<str>o} .\n")
        self.pending += 1
        return 0

    cdef int quad(self, object s, object p, object o, object g) except -1:
        if self.rdf12:
            _check_rdf12(<str>s, <str>p, g)
        if g is None:
            self.out.append(f"{<str>s} {<str>p} {<str>o} .\n")
        else:
            self.out.append(f"{<str>s} {<str>p} {<str>o} {<str>g} .\n")
        self.pending += 1
        return 0

    cdef object take(self, bint quads):
        cdef list out = self.out
        self.out = []
        self.pending = 0
        return out


@cython.final
cdef class TextSink(StatementSink):
    """N-Triples / N-Quads text of N-Triples terms: the lines of a frame (each ending in
    ``" .\\n"``) as one ``bytes`` of UTF-8, written into it as they are decoded: no str per
    line, and no copy of the text when the frame is taken."""

    # The bytes object being filled (only this sink refers to it, so it may be resized), its
    # bytes written and its room; NULL until a frame has text.
    cdef PyObject* text
    cdef Py_ssize_t used
    cdef Py_ssize_t room
    # The room a frame's text starts with: about the size of the last one.
    cdef Py_ssize_t hint
    cdef bint rdf12

    def __init__(self, terms):
        if not isinstance(terms, NTriplesTerms):
            raise ValueError("output='text' needs terms='nt'")
        self.rdf12 = (<NTriplesTerms>terms).rdf12
        self.hint = 1 << 16

    def __dealloc__(self):
        Py_XDECREF(self.text)

    cdef int _grow(self, Py_ssize_t need) except -1:
        cdef Py_ssize_t room = max(need, 2 * self.room, self.hint)
        cdef object fresh
        if self.text == NULL:
            fresh = PyBytes_FromStringAndSize(NULL, room)
            Py_INCREF(fresh)                      # the sink's own reference, in self.text
            self.text = <PyObject*>fresh
        else:
            self._resize(room)
        self.room = room
        return 0

    cdef int _resize(self, Py_ssize_t size) except -1:
        try:
            _PyBytes_Resize(&self.text, size)
        except MemoryError:                     # the text is gone (NULL): start afresh
            self.used = self.room = 0
            raise
        return 0

    cdef int _line(self, str s, str p, str o, object g) except -1:
        cdef const char* t[4]
        cdef Py_ssize_t n[4]
        cdef int k, count = 3 if g is None else 4
        cdef Py_ssize_t total = 2             # "." and the line feed; each term adds a space
        cdef char* at
        if self.rdf12:
            _check_rdf12(s, p, g)
        utf8_of(s, &t[0], &n[0])
        utf8_of(p, &t[1], &n[1])
        utf8_of(o, &t[2], &n[2])
        if count == 4:
            utf8_of(<str>g, &t[3], &n[3])
        for k in range(count):
            total += n[k] + 1
        if self.used + total > self.room:
            self._grow(self.used + total)
        at = PyBytes_AS_STRING(<object>self.text) + self.used
        for k in range(count):
            memcpy(at, t[k], n[k])
            at[n[k]] = 32                   # ' '
            at += n[k] + 1
        at[0] = 46                          # '.'
        at[1] = 10                          # line feed
        self.used += total
        self.pending += 1
        return 0

    cdef int triple(self, object s, object p, object o) except -1:
        return self._line(<str>s, <str>p, <str>o, None)

    cdef int quad(self, object s, object p, object o, object g) except -1:
        return self._line(<str>s, <str>p, <str>o, g)

    cdef object take(self, bint quads):
        cdef object out
        self.pending = 0
        if self.used == 0:
            return b""
        self._resize(self.used)                  # shrinks in place
        out = <object>self.text                  # a new reference...
        Py_XDECREF(self.text)                    # ...and the sink's let go
        self.text = NULL
        # The next frame is likely as large; past 16 MiB it grows by doubling.
        self.hint = min(self.used + (self.used >> 3), 1 << 24)
        self.used = self.room = 0
        return out

    cdef Py_ssize_t mark(self):
        return self.used

    cdef object take_to(self, Py_ssize_t mark, bint quads):
        self.used = mark
        return self.take(quads)


# ---------------------------------------------------------------------------------------------
# Arrow string columns

cdef enum:
    # The most UTF-8 bytes an Arrow ``string`` array holds (its offsets are int32).
    _MAX_COLUMN_BYTES = 0x7FFFFFFF

#: The most UTF-8 bytes a :class:`StringColumn` (an Arrow ``string`` array) holds.
MAX_COLUMN_BYTES = _MAX_COLUMN_BYTES


@cython.final
cdef class _Region:
    """Bytes of a :class:`StringColumn`, lent through the buffer protocol (read-only); the
    column lives as long as a view of them does."""
    cdef StringColumn owner
    cdef const unsigned char* ptr
    cdef Py_ssize_t size

    def __getbuffer__(self, Py_buffer* view, int flags):
        PyBuffer_FillInfo(view, self, <void*>self.ptr, self.size, 1, flags)

    def __releasebuffer__(self, Py_buffer* view):
        pass


cdef inline int _set_bit(WriteBuffer* b, Py_ssize_t i, bint v) except -1:
    # Bit i of a validity bitmap that holds bits 0 .. i-1: a new byte every eight bits.
    if (i & 7) == 0:
        wb_ensure(b, 1)
        b.data[b.len] = 0
        b.len += 1
    if v:
        b.data[i >> 3] |= <unsigned char>(1 << (i & 7))
    else:
        b.data[i >> 3] &= <unsigned char>~(1 << (i & 7))
    return 0


cdef class ArrowColumn:
    """What ``output="arrow"`` fills for each position of a frame: :class:`StringColumn` or
    :class:`TermColumns`."""

    cdef int add(self, object term) except -1:
        raise NotImplementedError

    cpdef int add_nulls(self, Py_ssize_t count) except -1:
        raise NotImplementedError

    cdef Py_ssize_t length(self):
        raise NotImplementedError

    cdef ArrowColumn sized_like(self, Py_ssize_t rows):
        """An empty column of this kind, with room for ``rows`` terms and as many bytes as
        this one holds."""
        raise NotImplementedError

    cdef int truncate(self, Py_ssize_t rows) except -1:
        """Keep the first ``rows`` terms (not yet lent): the output of the frames before one
        that failed (``StatementSink.take_to``)."""
        raise NotImplementedError


@cython.final
cdef class StringColumn(ArrowColumn):
    """One position's N-Triples strings (``None``: the default graph), as the buffers of an
    Arrow ``string`` array: :meth:`buffers` gives the validity bitmap (None without nulls),
    the int32 offsets and the UTF-8 data, for ``pyarrow.Array.from_buffers`` without a copy.
    Once lent, the column can no longer grow."""

    cdef WriteBuffer data
    cdef WriteBuffer offsets
    cdef WriteBuffer valid              # data NULL until the first null
    cdef Py_ssize_t n
    cdef readonly Py_ssize_t null_count
    cdef bint lent

    def __cinit__(self, Py_ssize_t rows=0, Py_ssize_t size=0):
        wb_init(&self.data, max(size, 64))
        wb_init(&self.offsets, 4 * max(rows + 1, 16))
        (<int32_t*>self.offsets.data)[0] = 0
        self.offsets.len = 4

    def __dealloc__(self):
        wb_free(&self.data)
        wb_free(&self.offsets)
        wb_free(&self.valid)

    def __len__(self):
        return self.n

    cdef Py_ssize_t length(self):
        return self.n

    cdef ArrowColumn sized_like(self, Py_ssize_t rows):
        return StringColumn(rows, self.data.len)

    cdef int truncate(self, Py_ssize_t rows) except -1:
        cdef Py_ssize_t i
        if rows >= self.n:
            return 0
        self.n = rows
        self.offsets.len = 4 * (rows + 1)
        self.data.len = (<int32_t*>self.offsets.data)[rows]
        if self.valid.data != NULL:
            self.valid.len = (rows + 7) >> 3
            self.null_count = 0
            for i in range(rows):
                if not (self.valid.data[i >> 3] >> (i & 7)) & 1:
                    self.null_count += 1
        return 0

    @property
    def nbytes(self):
        """Bytes of UTF-8 data."""
        return self.data.len

    cdef inline int _grow_check(self, Py_ssize_t extra) except -1:
        if self.lent or self.data.len + extra > _MAX_COLUMN_BYTES:
            self._cannot_grow()
        return 0

    cdef int _cannot_grow(self) except -1:
        if self.lent:
            raise ValueError("a StringColumn whose buffers are lent cannot grow")
        raise JellyError(f"more than {<long>_MAX_COLUMN_BYTES} bytes of N-Triples text in one "
                         f"column, more than an Arrow string array holds")

    cdef int _validity(self) except -1:
        # The bitmap starts at the first null: every string before it is valid.
        cdef Py_ssize_t nbytes = (self.n + 7) >> 3
        wb_init(&self.valid, max(nbytes, 16))
        memset(self.valid.data, 0xFF, nbytes)
        self.valid.len = nbytes
        return 0

    cdef int add(self, object term) except -1:
        """Append a str, or a null for None."""
        cdef const char* p
        cdef Py_ssize_t k
        if term is None:
            return self.add_nulls(1)
        utf8_of(<str?>term, &p, &k)
        self._grow_check(k)
        wb_bytes(&self.data, p, k)
        wb_ensure(&self.offsets, 4)
        (<int32_t*>(self.offsets.data + self.offsets.len))[0] = <int32_t>self.data.len
        self.offsets.len += 4
        if self.valid.data != NULL:
            _set_bit(&self.valid, self.n, True)
        self.n += 1
        return 0

    cpdef int add_nulls(self, Py_ssize_t count) except -1:
        """Append ``count`` nulls."""
        cdef Py_ssize_t i
        cdef int32_t end = <int32_t>self.data.len
        cdef int32_t* o
        self._grow_check(0)
        if count <= 0:
            return 0
        if self.valid.data == NULL:
            self._validity()
        wb_ensure(&self.offsets, 4 * count)
        o = <int32_t*>(self.offsets.data + self.offsets.len)
        for i in range(count):
            o[i] = end
            _set_bit(&self.valid, self.n + i, False)
        self.offsets.len += 4 * count
        self.n += count
        self.null_count += count
        return 0

    @staticmethod
    def concat(list columns):
        """One column holding the strings of ``columns`` one after the other (a batch of frames),
        in a single copy."""
        cdef StringColumn c, out
        cdef Py_ssize_t rows = 0, size = 0, i, base, at
        cdef const int32_t* src
        cdef int32_t* dst
        cdef bint nulls = False
        for c in columns:
            rows += c.n
            size += c.data.len
            nulls = nulls or c.null_count > 0
        out = StringColumn(rows, size)
        out._grow_check(size)
        if nulls:
            out._validity()
        for c in columns:
            base = out.data.len
            memcpy(out.data.data + base, c.data.data, c.data.len)
            out.data.len += c.data.len
            src = <const int32_t*>c.offsets.data
            dst = <int32_t*>(out.offsets.data + out.offsets.len)
            for i in range(c.n):
                dst[i] = <int32_t>(src[i + 1] + base)
            out.offsets.len += 4 * c.n
            if nulls:
                for i in range(c.n):
                    at = out.n + i
                    _set_bit(&out.valid, at, c.valid.data == NULL
                             or (c.valid.data[i >> 3] >> (i & 7)) & 1)
            out.n += c.n
            out.null_count += c.null_count
        return out

    def buffers(self):
        """``[validity, offsets, data]`` as read-only memoryviews (validity None without
        nulls): the buffers of an Arrow ``string`` array of ``len(self)`` strings and
        ``null_count`` nulls.  The column no longer grows after this."""
        self.lent = True
        return [self._region(&self.valid) if self.null_count else None,
                self._region(&self.offsets), self._region(&self.data)]

    cdef object _region(self, WriteBuffer* b):
        cdef _Region r = _Region.__new__(_Region)
        r.owner = self
        r.ptr = b.data
        r.size = b.len
        return memoryview(r)


@cython.final
cdef class ArrowSink(StatementSink):
    """Each frame's statements as :class:`ArrowColumn` s, one per position, of the kind of
    ``first`` (``output="arrow"``: see :func:`arrow_sink`)."""

    cdef ArrowColumn s, p, o, g

    def __init__(self, ArrowColumn first not None):
        self.s = first
        self.p = first.sized_like(0)
        self.o = first.sized_like(0)
        self.g = first.sized_like(0)

    cdef int triple(self, object s, object p, object o) except -1:
        self.s.add(s)
        self.p.add(p)
        self.o.add(o)
        self.pending += 1
        return 0

    cdef int quad(self, object s, object p, object o, object g) except -1:
        self.s.add(s)
        self.p.add(p)
        self.o.add(o)
        self.g.add(g)
        self.pending += 1
        return 0

    cdef object take(self, bint quads):
        cdef Py_ssize_t rows = self.pending
        # Nothing collected: keep the sized columns.  s is the first column a statement goes
        # into, so when it is empty the others are too, even after a frame that failed halfway.
        if self.s.length() == 0:
            return tuple([self.s.sized_like(0) for _ in range(4 if quads else 3)])
        out = (self.s, self.p, self.o, self.g) if quads else (self.s, self.p, self.o)
        # The next frame's columns, sized like this frame's (frames of a stream are alike).
        self.s = self.s.sized_like(rows)
        self.p = self.p.sized_like(rows)
        self.o = self.o.sized_like(rows)
        self.g = self.g.sized_like(rows)
        self.pending = 0
        return out

    cdef Py_ssize_t mark(self):
        return self.pending

    cdef object take_to(self, Py_ssize_t mark, bint quads):
        # A statement that failed halfway left terms in some of the columns only.
        self.s.truncate(mark)
        self.p.truncate(mark)
        self.o.truncate(mark)
        self.g.truncate(mark)
        self.pending = mark
        return self.take(quads)


cdef str _KIND_IRI = "iri"
cdef str _KIND_BNODE = "bnode"
cdef str _KIND_LITERAL = "literal"
cdef str _KIND_TRIPLE = "triple"


@cython.final
cdef class TermColumns(ArrowColumn):
    """One position's jelly terms as the buffers of an Arrow term struct: four
    :class:`StringColumn` s ``kind`` (``iri``, ``bnode``, ``literal`` or ``triple``),
    ``value`` (the IRI, label, lexical form, or a quoted triple's N-Triples text),
    ``datatype`` (typed literals only) and ``language``.  A missing term (the default graph)
    is null in all four."""

    cdef readonly StringColumn kind, value, datatype, language

    def __cinit__(self, Py_ssize_t rows=0, TermColumns like=None):
        self.kind = StringColumn(rows, 8 * rows)
        self.value = StringColumn(rows, like.value.data.len if like is not None else 0)
        self.datatype = StringColumn(rows, like.datatype.data.len if like is not None else 0)
        self.language = StringColumn(rows, like.language.data.len if like is not None else 0)

    def __len__(self):
        return self.kind.n

    cdef Py_ssize_t length(self):
        return self.kind.n

    cdef ArrowColumn sized_like(self, Py_ssize_t rows):
        return TermColumns(rows, self)

    cdef int truncate(self, Py_ssize_t rows) except -1:
        self.kind.truncate(rows)
        self.value.truncate(rows)
        self.datatype.truncate(rows)
        self.language.truncate(rows)
        return 0

    @property
    def fields(self):
        """``(kind, value, datatype, language)``."""
        return self.kind, self.value, self.datatype, self.language

    @property
    def nbytes(self):
        """Bytes of UTF-8 data of the largest of the four (each is an Arrow string array)."""
        return max(self.kind.data.len, self.value.data.len, self.datatype.data.len,
                   self.language.data.len)

    cdef int add(self, object t) except -1:
        cdef type tt = type(t)
        cdef Literal lit
        if tt is IRI:
            self.kind.add(_KIND_IRI)
            self.value.add((<IRI>t).value)
        elif tt is Literal:
            lit = <Literal>t
            self.kind.add(_KIND_LITERAL)
            self.value.add(lit.lex)
            self.datatype.add(None if lit.datatype is None else (<IRI?>lit.datatype).value)
            self.language.add(lit.language)
            return 0
        elif tt is BlankNode:
            self.kind.add(_KIND_BNODE)
            self.value.add((<BlankNode>t).value)
        elif tt is Triple:
            text = str(t)           # first: it fails on a term N-Triples cannot hold
            self.kind.add(_KIND_TRIPLE)
            self.value.add(text)
        elif t is None or tt is DefaultGraph:
            return self.add_nulls(1)
        else:
            raise TypeError(f"not a jelly term: {t!r}")
        self.datatype.add_nulls(1)
        self.language.add_nulls(1)
        return 0

    cpdef int add_nulls(self, Py_ssize_t count) except -1:
        """Append ``count`` missing terms."""
        self.kind.add_nulls(count)
        self.value.add_nulls(count)
        self.datatype.add_nulls(count)
        self.language.add_nulls(count)
        return 0

    @staticmethod
    def concat(list columns):
        """One :class:`TermColumns` holding the terms of ``columns`` one after the other."""
        cdef TermColumns out = TermColumns.__new__(TermColumns)
        cdef TermColumns c
        out.kind = StringColumn.concat([c.kind for c in columns])
        out.value = StringColumn.concat([c.value for c in columns])
        out.datatype = StringColumn.concat([c.datatype for c in columns])
        out.language = StringColumn.concat([c.language for c in columns])
        return out


def arrow_sink(terms):
    """The sink of ``output="arrow"``: N-Triples strings (``terms="nt"``) in
    :class:`StringColumn` s, jelly terms (``terms="native"``) in :class:`TermColumns`."""
    if isinstance(terms, NTriplesTerms):
        return ArrowSink(StringColumn())
    if type(terms) is NativeTerms:
        return ArrowSink(TermColumns())
    raise ValueError("output='arrow' needs terms='nt' or terms='native'")
