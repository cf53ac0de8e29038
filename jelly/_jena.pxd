# Jena's RDF Binary (RDF Thrift and RDF Protobuf): the term model both encodings share.  The
# wire readers (_jena_thrift, _jena_proto) parse rows and hand their parts to JenaDecoder, which
# builds terms through the TermFactory and statements into the StatementSink; the writers extend
# JenaEncoder, which classifies terms (IRI, prefixed name, literal or value form, ...).
from libc.stdint cimport uint32_t, uint64_t, int64_t, int32_t

from ._buffer cimport WireReader, WriteBuffer
from ._sink cimport TermFactory, StatementSink

# RDF_Term kinds (the union / oneof members, named as in the spec).
cdef enum:
    T_NONE = 0
    T_IRI = 1
    T_BNODE = 2
    T_LITERAL = 3
    T_PREFIXNAME = 4
    T_VARIABLE = 5
    T_ANY = 6
    T_UNDEFINED = 7
    T_REPEAT = 8
    T_TRIPLE = 9
    T_INTEGER = 10
    T_DOUBLE = 11
    T_DECIMAL = 12
    C_DATATYPE = 13       # cache kinds besides the term kinds: a datatype IRI,
    C_DTPREFIX = 14       # a datatype prefixed name, a language tag (the str itself)
    C_LANG = 15

# What a stream holds.
cdef enum:
    MODE_RDF = 0          # RDF_StreamRow rows
    MODE_RESULTS = 1      # RDF_VarTuple, then RDF_DataTuple rows

# Row kinds, in the order of ROW_KINDS.
cdef enum:
    R_PREFIX = 0
    R_TRIPLE = 1
    R_QUAD = 2
    R_BASE = 3
    R_VARS = 4
    R_DATA = 5
    N_ROW_KINDS = 6

# Slots of the IRI / blank node cache (a power of two).
cdef enum:
    CACHE_SLOTS = 4096


# One slot of the term cache: the key's hash, kind and UTF-8 (inside strs the cache keeps).
cdef struct CacheKey:
    uint64_t hash
    const char* p1
    const char* p2
    Py_ssize_t n1
    Py_ssize_t n2
    int kind


cdef str bad_direction(str language)


cdef class JenaDecoder(WireReader):
    cdef TermFactory terms
    cdef StatementSink sink
    cdef object default_graph
    cdef object dt_integer, dt_decimal, dt_double
    cdef bint as_quads                  # triple rows as quads in the default graph
    cdef readonly int mode
    cdef bint final                     # the data fed ends the stream
    cdef bint need_more                 # the last feed stopped at a row cut off by its end
    cdef const unsigned char* row_start
    cdef Py_ssize_t max_row             # the reader's limits
    cdef int max_depth
    cdef dict prefixes                  # prefix -> namespace, as declared so far
    cdef dict dtcache                   # datatype IRI -> the factory's datatype object
    cdef list namespaces_out            # declarations since the last take
    cdef list rows_out                  # result rows since the last take
    cdef public list variables          # result set variables, once the header is read
    cdef public object base_iri         # the last base row (RDF Protobuf)
    cdef Py_ssize_t counts[6]
    cdef Py_ssize_t named               # statements in named graphs since the last take
    cdef Py_ssize_t consumed            # stream offset after the last complete row
    cdef object last_s, last_p, last_o, last_g
    cdef bint had_quad                  # last_g is the previous quad's graph
    cdef list last_row
    cdef object jena_dgn, jena_dg       # terms of Jena's default graph IRIs, once read
    # The previous row's terms by position (s, p, o, g) and the bytes they were read from: a
    # term whose bytes are the same is the same term, read without a cache look-up.
    cdef const unsigned char* mptr[4]
    cdef Py_ssize_t mlen[4]
    cdef list mterm
    # The term cache: terms by the bytes they were read from (kind, two strings).
    cdef list ckey1, ckey2, cval
    cdef CacheKey ckeys[CACHE_SLOTS]

    cdef int short(self, const unsigned char* at) except -1
    cdef int whole_row(self, const unsigned char* start, const unsigned char* end) except -1
    cdef void forget_rows(self) noexcept
    cdef const unsigned char* next_row(self, const unsigned char* p,
                                       const unsigned char* end) except NULL
    cdef object cached(self, int kind, const unsigned char* p1, Py_ssize_t n1,
                       const unsigned char* p2, Py_ssize_t n2, const unsigned char* at)
    cdef object build(self, int kind, str s1, str s2, const unsigned char* at)
    cdef object literal(self, str lex, str lang, object datatype, const unsigned char* at)
    cdef object iri_term(self, str iri)
    cdef object datatype_iri(self, str iri)
    cdef object value_integer(self, int64_t v)
    cdef object value_double(self, double v)
    cdef object value_decimal(self, int64_t v, int64_t scale, const unsigned char* at)
    cdef object not_rdf(self, int kind, str name, const unsigned char* at)
    cdef object triple_term(self, object s, object p, object o, const unsigned char* at)
    cdef int statement(self, object s, object p, object o, object g, bint quad,
                       const unsigned char* at) except -1
    cdef int prefix_decl(self, str prefix, str uri) except -1
    cdef int set_variables(self, list names, const unsigned char* at) except -1
    cdef int data_row(self, list values, const unsigned char* at) except -1


# What an encoder writes for one term.
cdef struct JTerm:
    int kind
    const char* s1          # IRI, label, lexical form, prefix, variable name
    Py_ssize_t n1
    const char* s2          # language tag, datatype IRI, local name
    Py_ssize_t n2
    bint lang               # s2 is a language tag
    bint langdir            # ... with a base direction ("en--ltr": Jena's langdir field)
    const char* s3          # datatype prefix name: prefix (s2 its local name)
    Py_ssize_t n3
    int64_t ivalue          # valInteger, valDecimal's unscaled value
    int64_t scale           # valDecimal's scale
    double dvalue           # valDouble


cdef class JenaEncoder:
    cdef WriteBuffer buf
    cdef bint values, repeat, prefix_names
    cdef object term_adapter
    cdef int max_depth
    cdef dict namespaces            # namespace -> prefix (for prefixed names)
    cdef object last_s, last_p, last_o, last_g
    cdef list last_row
    cdef list keep                  # strings the JTerms of the current row point into
    cdef readonly Py_ssize_t rows
    cdef readonly Py_ssize_t statements
    cdef int nvars                  # result sets: the header's variable count (-1: none yet)

    cdef object resolve(self, object term)
    cdef int classify(self, object term, JTerm* t, object last, int depth) except -1
    cdef int abbreviate(self, str iri, JTerm* t, bint datatype) except -1
    cdef int write_term(self, object term, object last, int depth) except -1
    cdef int term_body(self, JTerm* t, object term, int depth) except -1
    cdef int triple_row(self, object s, object p, object o) except -1
    cdef int quad_row(self, object s, object p, object o, object g) except -1
    cdef int prefix_row(self, str prefix, str iri) except -1
    cdef int base_row(self, str iri) except -1
    cdef int vars_row(self, list names) except -1
    cdef int data_row(self, list values) except -1
    cdef int add_one(self, object st) except -1
    cdef int write_row(self, int kind, object a, object b) except -1
    cdef int statement_row(self, object st) except -1
