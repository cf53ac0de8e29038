# The Jelly term encoding, decode side: IRIs through the lookup tables, literals, blank nodes,
# quoted triples, repeated terms and lookup entry rows.  Jelly-RDF and Jelly-Patch decoders
# both extend TermDecoder.
cimport cython
from libc.stdint cimport uint32_t, uint64_t
from cpython.buffer cimport Py_buffer

from ._buffer cimport WireReader, Slot
from ._lookup cimport DecodeTables
from ._sink cimport TermFactory, StatementSink

# Message types of rdf.proto shared by both formats (subclasses number theirs from M_FIRST_OWN).
cdef enum:
    M_IRI = 1
    M_LITERAL = 2
    M_TRIPLE = 3
    M_QUAD = 4
    M_EMPTY = 5          # RdfDefaultGraph, RdfGraphEnd and other messages without fields
    M_ENTRY = 6          # name, prefix and datatype entries
    M_FIRST_OWN = 16

# The language tag cache: slots, and the longest tag it holds (longer ones are decoded each time).
cdef enum:
    LANG_SLOTS = 256
    LANG_MAX = 16

# Lookup entry kinds.
cdef enum:
    ENTRY_NAME = 0
    ENTRY_PREFIX = 1
    ENTRY_DATATYPE = 2

from ._wire cimport K_IRI, K_BNODE, K_LITERAL, K_TRIPLE, K_DEFAULT


cdef inline int spo_kind(int field) noexcept nogil:
    # Member kind of a subject/predicate/object oneof by field number (four members each).
    cdef int r = (field - 1) & 3
    return K_IRI if r == 0 else K_BNODE if r == 1 else K_LITERAL if r == 2 else K_TRIPLE


cdef inline int graph_kind(int field) noexcept nogil:
    # Member kind of a graph oneof (g_iri, g_bnode, g_default_graph, g_literal).
    cdef int r = (field - 1) & 3
    return K_IRI if r == 0 else K_BNODE if r == 1 else K_DEFAULT if r == 2 else K_LITERAL


cdef class TermDecoder(WireReader):
    cdef TermFactory terms
    cdef StatementSink sink
    cdef object default_graph
    cdef bint strict
    cdef uint32_t cap_names, cap_prefixes, cap_datatypes   # the reader's limits
    cdef int max_depth
    cdef DecodeTables tables
    cdef bint has_tables
    cdef bint rdf_star, generalized
    # The previous statement's terms by position (subject, predicate, object, graph), for
    # repeated terms; _UNSET until a position is first set.
    cdef list last
    # The frame being decoded (both formats: rows in field 1 of the frame message, each a
    # oneof of message members): its buffer, where decoding stopped, its rows by field number.
    cdef Py_buffer view
    cdef bint has_view
    cdef const unsigned char* pos
    cdef const unsigned char* stop
    cdef Py_ssize_t counts[16]
    # The format's row message: bit f of row_members is set for its oneof's field f.
    cdef unsigned int row_members
    cdef int row_type
    # Language tags repeat: the str of each tag seen, by its bytes (see lang_tag).
    cdef list lang_strs
    cdef unsigned char lang_len[LANG_SLOTS]
    cdef uint64_t lang_key[LANG_SLOTS][2]

    cdef int setup_tables(self, uint32_t names, uint32_t prefixes, uint32_t datatypes,
                          const unsigned char* at) except -1
    cdef int entry(self, int which, const unsigned char* p, const unsigned char* end) except -1
    cdef int reset_terms(self) except -1
    cdef void release(self) noexcept
    cdef int begin_view(self, object data, Py_ssize_t offset) except -1
    cdef int run(self, Py_ssize_t max_statements) except -1
    cdef int row(self, const unsigned char* p, const unsigned char* end) except -1
    # The format's rules: a row's content (the oneof member f), and a frame field other
    # than the rows (returns where it ends).
    cdef int row_content(self, int f, const unsigned char* p, const unsigned char* end) except -1
    cdef const unsigned char* frame_field(self, uint64_t tag, const unsigned char* q,
                                          const unsigned char* end) except NULL
    cdef int unknown_past(self) except -1
    # The hot path is final: calls inside this module are direct C calls, and a decoder of
    # another module calls statement() once per statement.
    @cython.final
    cdef int statement(self, int mtype, const unsigned char* p, const unsigned char* end,
                       int n, bint has_graph, object graph) except -1
    @cython.final
    cdef object resolve_iri(self, uint64_t pid64, uint64_t nid64, const unsigned char* at)
    cdef object resolve_sparse(self, uint64_t pid, uint32_t nid, const unsigned char* at)
    @cython.final
    cdef object iri(self, const unsigned char* p, const unsigned char* end)
    @cython.final
    cdef str lang_tag(self, const unsigned char* p, Py_ssize_t n)
    @cython.final
    cdef object literal(self, const unsigned char* p, const unsigned char* end)
    @cython.final
    cdef object term(self, int kind, const unsigned char* p, const unsigned char* end, int depth)
    @cython.final
    cdef object slot_term(self, Slot* s, int kind, int mtype, int depth)
    @cython.final
    cdef object quoted(self, const unsigned char* p, const unsigned char* end, int depth)
    @cython.final
    cdef int scan(self, int mtype, const unsigned char* p, const unsigned char* end,
                  Slot* slots, int nslots, int first_field) except -1
    @cython.final
    cdef object position(self, Slot* slot, int k, const unsigned char* at)
    @cython.final
    cdef int check_generalized(self, const unsigned char* at, Slot* slots, int n) except -1
