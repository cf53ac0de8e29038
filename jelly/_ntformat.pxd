# The N-Triples writer's term formatting, for other line-based text formats (RDF Patch text in
# _rdfpatch.pyx): one canonical escaping for every text output.

# A term in N-Triples (role 0 subject, 1 predicate, 2 object; rdf12: triple terms <<( )>>).
cdef str _term_nt(object t, int depth, bint rdf12=*, int role=*)
# A string as an N-Triples string literal "..." (escaped).
cdef str _lex_nt(str lex)
# syntax= of the writers: True for "rdf12" (triple terms), False for None / "rdf-star".
cdef bint _rdf12(object syntax) except -1
