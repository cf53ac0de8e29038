# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""RDF Patch text (RDF Delta's format, ``.rdfp``): the reader and writer of patch operations.

One row per line, ending with ``.``; ``#`` starts a comment after a row or on a line of its own::

    H key term .               header (key: a word or a quoted string)
    TX .  TC .  TA .           transaction start, commit, abort (``TB`` is read as ``TX``)
    PA "prefix" <iri> [g] .    namespace add (prefix: a quoted string or a word; iri: an IRI
                               or, as Jena writes it, a quoted string)
    PD "prefix" [g] .          namespace delete
    A s p o [g] .              add a triple (a quad with a graph)
    D s p o [g] .              delete
    SEG .                      end of a patch (Jena's segment mark; jelly-jvm maps it to
                               punctuation and to the end of a frame)

Terms are read by the N-Triples parser (``_ntriples.TermScanner``: RDF-star ``<< >>``, RDF 1.2
``<<( )>>``, ``syntax=`` as for N-Triples) and written by the N-Triples writer
(``_ntformat._term_nt``).  Besides N-Triples terms the reader takes what Jena's RDF Patch writer
writes: blank nodes as ``<_:label>``, and Turtle's numbers and ``true`` / ``false``.
"""

cimport cython
from cpython.bytearray cimport PyByteArray_AS_STRING
from cpython.list cimport PyList_GET_SIZE
from cpython.unicode cimport PyUnicode_DecodeUTF8, PyUnicode_GET_LENGTH
from libc.stdint cimport uint32_t

from jelly._terms cimport IRI, Literal, Triple, DefaultGraph, make_iri, make_literal
from jelly._ntchars cimport utf8_seq, pn_chars_base, pn_chars_rest, is_absolute_iri, describe
from jelly._lines cimport LineParser
from jelly._ntriples cimport TermScanner
from jelly._ntformat cimport _term_nt, _lex_nt, _rdf12
from jelly._ntformat import NQuadsWriter
from jelly._patchops cimport (PatchOp, Add, Delete, PrefixAdd, PrefixDelete, Header,
                              make_add, make_delete, make_prefix_add, make_prefix_delete,
                              make_header, tx_start, tx_commit, tx_abort, end_of_patch,
                              OP_ADD, OP_DELETE, OP_PREFIX_ADD, OP_PREFIX_DELETE, OP_TX_START,
                              OP_TX_COMMIT, OP_TX_ABORT, OP_HEADER, OP_END_OF_PATCH)

import io
from functools import partial

from ._lines import parse_lines
from .errors import RdfSyntaxError
from .io import read_some

__all__ = ["parse_rdfpatch", "format_op", "TextPatchWriter"]


#: Jena's names of the default graph (``Quad.defaultGraphIRI``, ``defaultGraphNodeGenerated``).
cdef frozenset _JENA_DEFAULT_GRAPHS = frozenset(("urn:x-arq:DefaultGraph",
                                                 "urn:x-arq:DefaultGraphNode"))

cdef enum:
    _DEFAULT_CHUNK = 1 << 20
    _BATCH = 128               # operations per resumption of the generator

cdef str _XSD = "http://www.w3.org/2001/XMLSchema#"
cdef IRI _XSD_INTEGER = make_iri(_XSD + "integer")
cdef IRI _XSD_DECIMAL = make_iri(_XSD + "decimal")
cdef IRI _XSD_DOUBLE = make_iri(_XSD + "double")
cdef IRI _XSD_BOOLEAN = make_iri(_XSD + "boolean")

cdef str _ROWS = "H, TX, TC, TA, PA, PD, A, D or SEG"


cdef inline bint _is_ws(unsigned char c) noexcept:
    return c == 32 or c == 9


cdef inline bint _is_eol(const unsigned char* p, const unsigned char* end) noexcept:
    return p >= end or p[0] == 10 or p[0] == 13


cdef inline bint _ascii_word_start(unsigned char c) noexcept:
    return (65 <= c <= 90) or (97 <= c <= 122) or c == 95


cdef inline bint _ascii_word_rest(unsigned char c) noexcept:
    return _ascii_word_start(c) or (48 <= c <= 57) or c == 45 or c == 46


cdef inline bint _digit(unsigned char c) noexcept:
    return 48 <= c <= 57


# ---------------------------------------------------------------------------------------------
# Reading

@cython.final
cdef class _RowParser(LineParser):
    """RDF Patch rows (the line state: :class:`jelly._lines.LineParser`); the operations since
    the last end of a patch are counted across buffers."""

    cdef TermScanner terms
    cdef bint strict                 # a strict syntax: literals only as objects
    cdef readonly Py_ssize_t open_ops  # operations since the last SEG (or the start)
    cdef readonly bint lined         # each operation with its line: (op, line)

    def __cinit__(self, syntax, bint lined=False):
        self.terms = TermScanner(syntax)
        self.strict = syntax is not None
        self.lined = lined

    cdef int _run(self, Py_ssize_t limit) except -1:
        cdef const unsigned char* p
        cdef const unsigned char* end = self.end
        cdef unsigned char c
        while True:
            p = self.p
            while p < end and _is_ws(p[0]):
                p += 1
            self.p = p
            if p >= end:
                return 1
            if PyList_GET_SIZE(self.out) >= limit:
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
                self._comment()
            else:
                self._row()

    cdef int _fail(self, str msg, const unsigned char* at) except -1:
        return self.terms.fail(msg, at, self.end, self.line_start, self.line)

    cdef int _comment(self) except -1:
        cdef const unsigned char* p = self.p + 1
        cdef const unsigned char* end = self.end
        cdef Py_ssize_t k
        cdef uint32_t cp = 0
        while p < end and p[0] != 10 and p[0] != 13:
            if p[0] < 0x80:
                p += 1
            else:
                k = utf8_seq(p, end, &cp)
                if k == 0:
                    self._fail("invalid UTF-8 in comment", p)
                p += k
        self.p = p
        return 0

    cdef inline void _ws(self) noexcept:
        cdef const unsigned char* p = self.p
        while p < self.end and _is_ws(p[0]):
            p += 1
        self.p = p

    cdef int _row(self) except -1:
        cdef const unsigned char* start = self.p
        cdef const unsigned char* p = start
        cdef Py_ssize_t n
        cdef object op
        while p < self.end and ((65 <= p[0] <= 90) or (97 <= p[0] <= 122)):
            p += 1
        n = p - start
        if n == 0:
            self._fail(f"unexpected {describe(start, self.end)}, expected a row ({_ROWS})",
                       start)
        self.p = p
        code = PyUnicode_DecodeUTF8(<char*>start, n, NULL)
        if code == "A" or code == "D":
            op = self._statement(code == "A")
        elif code == "PA":
            op = self._prefix_add()
        elif code == "PD":
            op = self._prefix_delete()
        elif code == "H":
            op = self._header()
        elif code == "TX" or code == "TB":
            op = tx_start()
        elif code == "TC":
            op = tx_commit()
        elif code == "TA":
            op = tx_abort()
        elif code == "SEG":
            op = end_of_patch()
        else:
            self._fail(f"unknown row {code!r}, expected {_ROWS}", start)
        self._dot(code)
        self.out.append((op, self.line) if self.lined else op)
        if op is end_of_patch():
            self.open_ops = 0
        else:
            self.open_ops += 1
        return 0

    cdef int _dot(self, str code) except -1:
        """The '.' that ends a row, then only white space and a comment on the line."""
        cdef const unsigned char* p
        self._ws()
        p = self.p
        if _is_eol(p, self.end):
            self._fail(f"missing '.' at the end of the {code} row", p)
        if p[0] != 46:
            self._fail(f"expected '.' to end the {code} row, found {describe(p, self.end)}", p)
        self.p = p + 1
        self._ws()
        p = self.p
        if p < self.end and p[0] == 35:
            self._comment()
            p = self.p
        if not _is_eol(p, self.end):
            self._fail(f"expected the end of the line after '.', found {describe(p, self.end)} "
                       f"(one row per line)", p)
        return 0

    cdef bint _more(self) noexcept:
        """Another term follows on this row (not its '.')."""
        cdef const unsigned char* p
        self._ws()
        p = self.p
        return not _is_eol(p, self.end) and (p[0] != 46 or (self.end - p >= 2 and _digit(p[1])))

    cdef object _graph(self):
        """The graph term of a row; Jena's names of the default graph are the default graph
        (as Jena's Quad.isDefaultGraph and jelly-jvm read them; Jena writes them on PA / PD)."""
        cdef object g = self._term(3)
        if type(g) is IRI and (<IRI>g).value in _JENA_DEFAULT_GRAPHS:
            return None
        return g

    cdef object _statement(self, bint add):
        cdef object s, pr, o, g = None
        s = self._term(0)
        pr = self._term(1)
        o = self._term(2)
        if self._more():
            g = self._graph()
        return make_add(s, pr, o, g) if add else make_delete(s, pr, o, g)

    cdef object _prefix_add(self):
        cdef str name = self._name("a prefix")
        cdef object iri, g = None
        cdef const unsigned char* at
        self._ws()
        at = self.p
        if _is_eol(at, self.end) or at[0] == 46:
            self._fail("expected the namespace IRI of the PA row", at)
        if at[0] == 34:
            iri = self._string("the namespace IRI")
            if not is_absolute_iri(<str>iri):
                self._fail("the namespace IRI must be absolute", at)
            iri = make_iri(<str>iri)
        else:
            iri = self._term(2)
            if type(iri) is not IRI:
                self._fail("expected the namespace IRI of the PA row", at)
        if self._more():
            g = self._graph()
        return make_prefix_add(name, iri, g)

    cdef object _prefix_delete(self):
        cdef str name = self._name("a prefix")
        cdef object g = None
        if self._more():
            g = self._graph()
            if self._more():
                self._fail("a PD row has a prefix and an optional graph, nothing else", self.p)
        return make_prefix_delete(name, None, g)

    cdef object _header(self):
        cdef str key = self._name("a header key")
        if not self._more():
            self._fail("expected the value of the header", self.p)
        return make_header(key, self._term(2))

    cdef str _name(self, str what):
        """A prefix or header key: a quoted string, or a word (PN_PREFIX-like, no ':')."""
        cdef const unsigned char* p
        cdef const unsigned char* start
        cdef const unsigned char* end = self.end
        cdef Py_ssize_t k
        cdef uint32_t cp = 0
        self._ws()
        start = p = self.p
        if not _is_eol(p, end) and p[0] == 34:
            return self._string(what)
        while p < end:
            if p[0] < 0x80:
                if not (_ascii_word_start(p[0]) if p == start else _ascii_word_rest(p[0])):
                    break
                p += 1
            else:
                k = utf8_seq(p, end, &cp)
                if k == 0 or not (pn_chars_base(cp) if p == start else pn_chars_rest(cp)):
                    break
                p += k
        while p > start and (p - 1)[0] == 46:   # a word cannot end with '.'
            p -= 1
        if p == start:
            if _is_eol(p, end):
                self._fail(f"unexpected end of line, expected {what}", p)
            self._fail(f"expected {what} (a word or a quoted string), found "
                       f"{describe(p, end)}", p)
        if p < end and p[0] == 58:
            self._fail(f"write {what} without ':' (as a quoted string: "
                       f"\"{PyUnicode_DecodeUTF8(<char*>start, p - start, NULL)}\")", p)
        self.p = p
        return PyUnicode_DecodeUTF8(<char*>start, p - start, NULL)

    cdef str _string(self, str what):
        """A quoted string (a literal without language tag or datatype)."""
        cdef const unsigned char* at = self.p
        cdef const unsigned char* after = at
        lit = self.terms.scan(at, self.end, self.line_start, self.line, 2, &after)
        if type(lit) is not Literal or (<Literal>lit).language is not None \
                or (<Literal>lit).datatype is not None:
            self._fail(f"{what} must be a plain quoted string", at)
        self.p = after
        return (<Literal>lit).lex

    cdef object _term(self, int role):
        """An N-Triples term, or one of the forms Jena's RDF Patch writer adds."""
        cdef const unsigned char* p
        cdef const unsigned char* end = self.end
        cdef const unsigned char* after
        cdef unsigned char c
        cdef object term
        self._ws()
        p = self.p
        after = p
        if not _is_eol(p, end):
            c = p[0]
            if c == 60 and end - p >= 3 and p[1] == 95 and p[2] == 58:
                # <_:label>: a blank node (Jena's RiotLib.createIRIorBNode)
                term = self.terms.scan(p + 1, end, self.line_start, self.line, role, &after)
                if after >= end or after[0] != 62:
                    self._fail("expected '>' to close the blank node <_:label>", after)
                self.p = after + 1
                return term
            if (_digit(c) or c == 43 or c == 45 or (c == 46 and end - p >= 2 and _digit(p[1]))) \
                    and (role == 2 or not self.strict) and role != 3:
                return self._number()
            if (c == 116 or c == 102) and (role == 2 or not self.strict):
                term = self._boolean()
                if term is not None:
                    return term
        term = self.terms.scan(p, end, self.line_start, self.line, role, &after)
        self.p = after
        return term

    cdef object _number(self):
        # Turtle: INTEGER [+-]?[0-9]+, DECIMAL [+-]?[0-9]*.[0-9]+, DOUBLE with an exponent
        cdef const unsigned char* start = self.p
        cdef const unsigned char* p = start
        cdef const unsigned char* end = self.end
        cdef const unsigned char* q
        cdef Py_ssize_t digits = 0
        cdef bint point = False, exponent = False
        if p[0] == 43 or p[0] == 45:
            p += 1
        while p < end and _digit(p[0]):
            p += 1
            digits += 1
        if end - p >= 2 and p[0] == 46 and _digit(p[1]):
            point = True
            p += 1
            while p < end and _digit(p[0]):
                p += 1
                digits += 1
        elif digits and end - p >= 2 and p[0] == 46 and (p[1] == 101 or p[1] == 69):
            point = True      # "1.e5": the '.' belongs to the number only with an exponent
            p += 1
        if digits and p < end and (p[0] == 101 or p[0] == 69):
            q = p + 1
            if q < end and (q[0] == 43 or q[0] == 45):
                q += 1
            if q < end and _digit(q[0]):
                while q < end and _digit(q[0]):
                    q += 1
                p = q
                exponent = True
        if point and not exponent and (p - 1)[0] == 46:
            p -= 1            # "1." then the row's '.'
            point = False
        if digits == 0 or (p < end and not (_is_ws(p[0]) or p[0] == 10 or p[0] == 13
                                             or p[0] == 46 or p[0] == 62 or p[0] == 41)):
            self._fail(f"invalid number or term", start)
        self.p = p
        lex = PyUnicode_DecodeUTF8(<char*>start, p - start, NULL)
        return make_literal(lex, None, _XSD_DOUBLE if exponent else
                            _XSD_DECIMAL if point else _XSD_INTEGER)

    cdef object _boolean(self):
        cdef const unsigned char* p = self.p
        cdef const unsigned char* end = self.end
        cdef Py_ssize_t n
        if end - p >= 4 and p[0] == 116 and p[1] == 114 and p[2] == 117 and p[3] == 101:
            n = 4
        elif end - p >= 5 and p[0] == 102 and p[1] == 97 and p[2] == 108 and p[3] == 115 \
                and p[4] == 101:
            n = 5
        else:
            return None
        if end - p > n and not (_is_ws(p[n]) or p[n] == 10 or p[n] == 13 or p[n] == 46
                                or p[n] == 62):
            return None
        self.p = p + n
        return make_literal("true" if n == 4 else "false", None, _XSD_BOOLEAN)


def _parse_chunks(read, _RowParser parser, Py_ssize_t chunk_size):
    yield from parse_lines(read, parser, chunk_size, _BATCH, "the RDF Patch text reader")
    if parser.open_ops:
        # the end of the input ends the last patch (on no line of its own)
        yield (end_of_patch(), None) if parser.lined else end_of_patch()


def parse_rdfpatch(source, *, syntax=None, chunk_size=_DEFAULT_CHUNK, bint lines=False):
    """Parse RDF Patch text from a binary stream or bytes: an iterator of operations
    (``jelly._patchops``), reading ``chunk_size`` bytes at a time.  ``SEG .`` rows and the end
    of the input (after operations) give ``END_OF_PATCH``.  ``syntax`` as for N-Triples
    (``None``, ``"rdf12"`` or ``"rdf-star"``).  Errors raise ``RdfSyntaxError`` with the line
    and column, after the operations of the lines before were yielded.  ``lines=True`` gives
    ``(operation, line)`` pairs (``None``: the end of the input ended the patch), for errors
    of a patch's structure that name the line."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        source = io.BytesIO(source)
    elif isinstance(source, str):
        raise TypeError("RDF Patch text is read from bytes or a binary stream, not str")
    if getattr(source, "read", None) is None or isinstance(source, io.TextIOBase):
        raise TypeError(f"RDF Patch text is read from bytes or a binary stream, not "
                        f"{type(source).__name__}")
    # what a pipe has now; a non-blocking stream's "no data yet" is waited on, not the end
    read = partial(read_some, source)
    chunk_size = int(chunk_size)
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    return _parse_chunks(read, _RowParser(syntax, lines), chunk_size)


# ---------------------------------------------------------------------------------------------
# Writing

cdef bint _is_word(str s):
    """A header key that can be written without quotes (what the reader takes as a word)."""
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(s)
    cdef Py_UCS4 c
    if n == 0 or s[n - 1] == ".":
        return False
    for i in range(n):
        c = s[i]
        if c < 128:
            if not (_ascii_word_start(<unsigned char>c) if i == 0
                    else _ascii_word_rest(<unsigned char>c)):
                return False
        elif not (pn_chars_base(c) if i == 0 else pn_chars_rest(c)):
            return False
    return True


cdef str _graph_nt(object g, bint rdf12):
    """' <graph>' or '' for no graph / the default graph."""
    if g is None or type(g) is DefaultGraph:
        return ""
    if type(g) is Triple:
        raise ValueError("a quoted triple cannot be a graph label")
    return " " + _term_nt(g, 0, rdf12, 2)


cdef str _iri_nt(object iri):
    if isinstance(iri, str):
        iri = make_iri(<str>iri)
    if type(iri) is not IRI:
        raise TypeError(f"a namespace IRI must be an IRI, not {type(iri).__name__}")
    return _term_nt(iri, 0, False, 2)


cdef str _statement_row(str code, object s, object p, object o, object g, bint rdf12):
    return (f"{code} {_term_nt(s, 0, rdf12, 0)} {_term_nt(p, 0, rdf12, 1)} "
            f"{_term_nt(o, 0, rdf12, 2)}{_graph_nt(g, rdf12)} .")


cdef str _format(PatchOp op, bint rdf12):
    cdef int kind = op.kind
    cdef Add a
    cdef Delete d
    cdef Header h
    if kind == OP_ADD:
        a = <Add>op
        return _statement_row("A", a.s, a.p, a.o, a.g, rdf12)
    if kind == OP_DELETE:
        d = <Delete>op
        return _statement_row("D", d.s, d.p, d.o, d.g, rdf12)
    if kind == OP_PREFIX_ADD:
        return (f"PA {_lex_nt((<PrefixAdd>op).prefix)} {_iri_nt((<PrefixAdd>op).iri)}"
                f"{_graph_nt((<PrefixAdd>op).graph, rdf12)} .")
    if kind == OP_PREFIX_DELETE:
        # RDF Patch text has no place for the IRI of a deleted namespace (Jena: deletePrefix)
        return (f"PD {_lex_nt((<PrefixDelete>op).prefix)}"
                f"{_graph_nt((<PrefixDelete>op).graph, rdf12)} .")
    if kind == OP_HEADER:
        h = <Header>op
        return (f"H {h.key if _is_word(h.key) else _lex_nt(h.key)} "
                f"{_term_nt(h.value, 0, rdf12, 2)} .")
    if kind == OP_TX_START:
        return "TX ."
    if kind == OP_TX_COMMIT:
        return "TC ."
    if kind == OP_TX_ABORT:
        return "TA ."
    return "SEG ."


def format_op(op, syntax=None):
    """One operation as a row of RDF Patch text, without the line end (``END_OF_PATCH`` is
    ``SEG .``).  ``syntax="rdf12"`` writes quoted triples as RDF 1.2 triple terms."""
    if not isinstance(op, PatchOp):
        raise TypeError(f"not a patch operation: {op!r}")
    return _format(<PatchOp>op, _rdf12(syntax))


@cython.final
cdef class TextPatchWriter:
    """Writes operations as RDF Patch text to a binary stream, buffering about 64 KiB (in the
    N-Quads writer, ``_ntformat.NQuadsWriter``).

    ``END_OF_PATCH`` is written as ``SEG .``, except a last one right after an operation: the
    end of the text ends that patch (what the reader gives back).  ``close()`` flushes but
    leaves the underlying stream open.
    """

    cdef object _out
    cdef bint _rdf12
    cdef bint _pending_end         # an END_OF_PATCH not written yet
    cdef bint _end_follows_op      # ... right after an operation (a patch of its own)
    cdef bint _last_was_op
    cdef readonly Py_ssize_t operations_written

    def __init__(self, stream, *, syntax=None):
        self._rdf12 = _rdf12(syntax)
        self._out = NQuadsWriter(stream)

    def write(self, op):
        """Buffer one operation."""
        if not isinstance(op, PatchOp):
            raise TypeError(f"not a patch operation: {op!r}")
        if self._pending_end:
            self._out.write_lines(["SEG .\n"])
            self._pending_end = False
        if (<PatchOp>op).kind == OP_END_OF_PATCH:
            self._pending_end = True
            self._end_follows_op = self._last_was_op
            self._last_was_op = False
        else:
            self._out.write_lines([_format(<PatchOp>op, self._rdf12) + "\n"])
            self._last_was_op = True
            self.operations_written += 1

    def write_all(self, ops):
        """Buffer every operation of an iterable."""
        for op in ops:
            self.write(op)

    def flush(self):
        """Write out the buffer and flush the underlying stream (if it can be flushed)."""
        self._out.flush()

    def close(self):
        """Write a pending ``SEG .`` that ends an empty last patch, and flush."""
        if self._pending_end and not self._end_follows_op:
            self._out.write_lines(["SEG .\n"])
        self._pending_end = False
        self._out.flush()
