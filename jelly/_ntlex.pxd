# The term lexer of the N-Triples / N-Quads parser (jelly/_ntlex.pyx): IRIs, blank nodes,
# literals, with the term cache.  _ntriples._Parser extends it with the statement grammar.
from libc.stdint cimport uint32_t

cdef enum:
    SYNTAX_ANY = 0             # both notations, generalized statements
    SYNTAX_RDF12 = 1           # strict W3C RDF 1.2
    SYNTAX_STAR = 2            # strict RDF-star community-group syntax

ctypedef struct TermSlot:
    void* val
    char* key
    Py_ssize_t klen
    Py_ssize_t kcap
    int kind

cdef str describe(const unsigned char* p, const unsigned char* end)


cdef class TermLexer:
    cdef const unsigned char* p
    cdef const unsigned char* end
    cdef const unsigned char* line_start
    cdef Py_ssize_t line
    cdef bint relative_ok
    cdef int syntax
    cdef TermSlot* slots
    cdef char* sbuf
    cdef Py_ssize_t scap
    cdef str lang              # the last language tag (tags repeat: checked once, reused)
    cdef object last_dt        # the last datatype IRI seen, checked, and what it stands for
    cdef object last_dt_value

    cdef int _fail(self, str msg, const unsigned char* at) except -1
    cdef int _fail_syntax(self, str what, const unsigned char* at) except -1
    cdef void _ws(self) noexcept
    cdef object _iri(self)
    cdef int _check_cp(self, uint32_t cp, const unsigned char* at) except -1
    cdef object _bnode(self)
    cdef object _literal(self)
    cdef int _datatype(self, object dt, const unsigned char* at) except -1
    cdef str _langtag(self, const unsigned char* at)
    cdef str _unescape(self, const unsigned char* s, Py_ssize_t n)
    cdef object _cached(self, const unsigned char* start, Py_ssize_t n, int kind, bint esc)
