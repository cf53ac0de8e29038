# The Jelly term encoding, encode side: lookup entries, IRI deltas, repeated terms and the
# two-pass plan of each row's terms.  Jelly-RDF and Jelly-Patch encoders both extend it.
from libc.stdint cimport uint32_t, uint64_t

from ._buffer cimport WriteBuffer
from ._lookup cimport EncodeTable, IriSplit
from ._terms cimport IRI

# Term positions.
cdef enum:
    POS_S = 0
    POS_P = 1
    POS_O = 2
    POS_G = 3
    POS_GRAPH_START = 4

# What plan_terms plans (besides 3 and 4: a triple or quad with repeated terms).
cdef enum:
    PLAN_GRAPH = -1        # one graph term (graph_start), never repeated
    PLAN_TERM = -2         # one term in the object position, never repeated (namespace IRI,
                           # patch header value)
    PLAN_TERM_GRAPH = -3   # one term (never repeated) and a graph term (repeated like a quad's)

cdef struct Planned:
    int kind
    uint32_t prefix_id          # values to write (0: field omitted)
    uint32_t name_id
    uint32_t datatype
    const char* s1              # bnode label or literal lexical form (UTF-8 inside the str)
    Py_ssize_t n1
    const char* s2              # language tag
    Py_ssize_t n2


cdef class TermEncoder:
    cdef bint rdf_star, generalized
    cdef uint32_t n_names, n_prefixes, n_datatypes
    cdef EncodeTable names, prefixes, datatypes
    cdef unsigned long long encoder_id
    cdef str last_prefix
    cdef dict splits        # IRI string -> IriSplit, for IRI objects met for the first time
    cdef dict dt_splits     # the same for datatype IRIs
    cdef bint use_splits    # terms come in new objects: ``splits`` pays (see split)
    cdef Py_ssize_t split_lookups, split_hits
    cdef object term_adapter
    cdef uint32_t last_prefix_id, last_name_id
    cdef object last_s, last_p, last_o, last_g
    cdef uint64_t epoch
    cdef int max_depth
    cdef list keep      # adapter-made terms whose UTF-8 strings the plan points into
    # Tiny prefix tables cannot hold the prefixes of every statement: such a statement is
    # planned again with whole IRIs as names (only the empty prefix), and after repeated
    # conflicts the whole stream is written that way.
    cdef bint whole_iris
    cdef bint retry_whole
    cdef int conflicts
    # Row tags of the lookup entries in this format's row message.
    cdef unsigned char name_tag, prefix_tag, datatype_tag
    # The frame being written.
    cdef WriteBuffer buf
    cdef readonly Py_ssize_t rows
    # The plan of the row being encoded.
    cdef Planned* plan
    cdef int plan_len
    cdef int plan_cap

    cdef int init_terms(self, options, object term_adapter, int max_depth,
                        unsigned char name_tag) except -1
    cdef int begin_row(self) except -1
    cdef int entry_row(self, unsigned char row_tag, EncodeTable table, uint32_t slot,
                       str value) except -1
    cdef Planned* push(self) except NULL
    cdef IriSplit split(self, IRI iri, dict splits)
    cdef int keep_split(self, dict splits, str value, IriSplit sp) except -1
    cdef int judge_splits(self) except -1
    cdef int resolve_iri(self, IRI iri, Planned* pl) except -1
    cdef int resolve_split(self, IriSplit sp, Planned* pl) except -1
    cdef int resolve(self, object term, int pos, int depth) except -1
    cdef int position(self, object term, int pos, object last) except -1
    cdef int plan_terms(self, object s, object p, object o, object g, int n) except -1
    cdef int plan_row(self, object s, object p, object o, object g, int n) except -1
    cdef int write_term(self, int* i, int field_base, bint graph_oneof) except -1
    cdef int write_terms(self, int nterms) except -1
    cdef int reset_state(self) except -1
