# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""N-Triples / N-Quads parser: the W3C grammars of RDF 1.1 and RDF 1.2, the RDF-star
community-group syntax, and generalized RDF.

Works on raw UTF-8 bytes with C-level scanning.  Public API: ``parse_nquads``, ``TermParser``
(single terms, e.g. DataFrame columns) and the ``MESSAGE`` sentinel (a ``# @message`` comment
line, used as a message boundary).  Output is in ``jelly._ntformat``.

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
from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_GET_SIZE
from cpython.list cimport PyList_GET_SIZE
from libc.stdint cimport uint32_t
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.string cimport memcmp

from jelly._terms cimport Literal, make_triple
from jelly._ntchars cimport utf8_seq
from jelly._ntlex cimport TermLexer, describe, SYNTAX_ANY, SYNTAX_RDF12, SYNTAX_STAR

import io

from .errors import RdfSyntaxError

__all__ = ["parse_nquads", "MESSAGE", "TermParser", "UntilMessage", "SYNTAXES"]

#: The values of ``syntax=`` besides ``None``.
SYNTAXES = ("rdf12", "rdf-star")

cdef enum:
    _MAX_DEPTH = 64            # quoted-triple nesting accepted by the parser
    _DEFAULT_CHUNK = 1 << 20
    _BATCH = 128               # statements parsed per resumption of the generator


cdef int _syntax_code(object syntax) except -1:
    if syntax is None:
        return SYNTAX_ANY
    if syntax == "rdf12":
        return SYNTAX_RDF12
    if syntax == "rdf-star":
        return SYNTAX_STAR
    raise ValueError(f"unknown syntax {syntax!r}; choose None, 'rdf12' or 'rdf-star'")


@cython.final
cdef class _MessageMarker:
    """Type of the ``MESSAGE`` sentinel."""

    def __repr__(self):
        return "MESSAGE"

    def __reduce__(self):
        return "MESSAGE"


MESSAGE = _MessageMarker()


# ---------------------------------------------------------------------------------------------
# Reading

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


cdef tuple _ROLES = ("a subject", "a predicate", "an object", "a graph label or '.'")
cdef tuple _ROLE_NAMES = ("subject", "predicate", "object", "graph label")


@cython.final
cdef class _Parser(TermLexer):
    """Parses complete lines held in a buffer; state (line number, caches) persists across
    buffers."""

    cdef bint messages
    cdef bint at_start
    cdef list out

    def __cinit__(self, bint messages, bint relative_ok, int syntax=SYNTAX_ANY):
        self.messages = messages
        self.relative_ok = relative_ok
        self.syntax = syntax
        self.at_start = True

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
        if whole_line and self.messages and _is_message(start, p):
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
        if self.syntax == SYNTAX_STAR:
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
            self._fail(f"unexpected end of line, expected {_ROLES[role]}", p)
        c = p[0]
        if c == 60:
            if p + 1 < end and p[1] == 60:
                return self._quoted(depth + 1, role)
            return self._iri()
        if c == 34:
            if self.syntax != SYNTAX_ANY and role != 2:
                self._fail(f"a literal cannot be the {_ROLE_NAMES[role]} of a statement", p)
            return self._literal()
        if c == 95:
            if self.syntax != SYNTAX_ANY and role == 1:
                self._fail("a blank node cannot be a predicate", p)
            return self._bnode()
        if c == 46 and role == 2:
            self._fail("missing object before '.'", p)
        self._fail(f"unexpected {describe(p, end)}, expected {_ROLES[role]}", p)

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
            if self.syntax == SYNTAX_STAR:
                self._fail_syntax("the triple term '<<( ... )>>' (RDF 1.2)", start)
            if self.syntax == SYNTAX_RDF12 and role != 2:
                self._fail(f"a triple term cannot be the {_ROLE_NAMES[role]} of a statement "
                           f"(RDF 1.2 allows it as the object only)", start)
        elif self.syntax == SYNTAX_RDF12:
            self._fail("the RDF-star quoted triple '<< ... >>' is not RDF 1.2 N-Triples / "
                       "N-Quads (a triple term is written '<<( s p o )>>', as an object); "
                       "read RDF-star data with syntax 'rdf-star'", start)
        elif self.syntax == SYNTAX_STAR and role == 1:
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


def parse_nquads(source, *, messages=False, chunk_size=_DEFAULT_CHUNK, allow_relative_iris=False,
                 syntax=None):
    """Parse N-Triples / N-Quads from a binary stream or bytes.

    ``syntax``: ``None`` (RDF 1.2 and RDF-star notations, generalized statements), ``"rdf12"``
    (strict W3C RDF 1.2) or ``"rdf-star"`` (strict RDF-star).  Returns an iterator of
    ``(s, p, o)`` and ``(s, p, o, g)`` tuples, reading ``chunk_size`` bytes at a time.  With
    ``messages=True`` a comment line ``# @message`` yields ``MESSAGE``.  Syntax errors raise
    ``RdfSyntaxError`` with the line and column, after the statements of the lines before it
    were yielded.
    """
    cdef int code = _syntax_code(syntax)
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
    return _parse_chunks(read, _Parser(bool(messages), bool(allow_relative_iris), code), chunk_size)


@cython.final
cdef class TermParser:
    """Parses single terms in N-Triples syntax (an IRI, blank node, literal, ``<< s p o >>`` or
    ``<<( s p o )>>``), e.g. the string columns of a DataFrame; repeated IRIs come back as the
    same objects.  ``syntax`` as for :func:`parse_nquads`."""

    cdef _Parser parser

    def __init__(self, syntax=None):
        self.parser = _Parser(False, False, _syntax_code(syntax))

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
