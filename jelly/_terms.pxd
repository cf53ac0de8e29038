# RDF terms of the library-free API: small immutable, hashable extension types that the
# decoder builds without going through Python-level constructors.

cdef class IRI:
    cdef readonly str value
    cdef Py_hash_t _hash
    # Encoder-private cache (its split and lookup slots), valid for the encoder whose id matches.
    cdef object _enc
    cdef unsigned long long _enc_id

cdef class BlankNode:
    cdef readonly str value
    cdef Py_hash_t _hash

cdef class Literal:
    cdef readonly str lex
    cdef readonly object language   # str or None
    cdef readonly object datatype   # IRI or None (None: simple literal or language-tagged)
    cdef Py_hash_t _hash

cdef class Triple:
    cdef readonly object s
    cdef readonly object p
    cdef readonly object o
    cdef Py_hash_t _hash

cdef class DefaultGraph:
    pass

cdef IRI make_iri(str value)
cdef BlankNode make_bnode(str value)
cdef Literal make_literal(str lex, object language, object datatype)
cdef Triple make_triple(object s, object p, object o)
