# N-Triples writing helpers shared with the decoder's N-Triples term mode.

cdef str _iri_nt(str v)
cdef str _lex_nt(str lex)
cdef str _bnode_nt(str label)
cdef str _lang_nt(str lang)
