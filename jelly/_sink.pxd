# Term factories (what a decoder builds for each RDF term) and statement sinks (where decoded
# statements go).  A decoder has one path; a new output is a new factory or sink, not a mode.


cdef class TermFactory:
    # The term of the default graph.
    cdef readonly object default_graph
    # True when the terms can never be part of a reference cycle, so containers of them (the
    # statement tuples) may be kept away from the garbage collector.
    cdef readonly bint acyclic

    cdef object iri(self, str value)
    # An IRI written as prefix + name (prefix not empty); factories that keep the parts apart
    # override it, the others get iri(prefix + name).
    cdef object iri_parts(self, str prefix, str name)
    cdef object bnode(self, str label)
    # The object kept per datatype lookup slot and handed to literal().
    cdef object datatype(self, str iri)
    # language: str or None; datatype: an object from datatype(), or None (simple literal).
    cdef object literal(self, str lex, object language, object datatype)
    cdef object triple(self, object s, object p, object o)


cdef class NativeTerms(TermFactory):
    pass


cdef class PyTerms(TermFactory):
    cdef object f_iri, f_bnode, f_literal, f_triple, f_datatype


cdef class StatementSink:
    # Statements collected since the last take().
    cdef readonly Py_ssize_t pending

    cdef int triple(self, object s, object p, object o) except -1
    cdef int quad(self, object s, object p, object o, object g) except -1
    cdef object take(self, bint quads)
    # Where the output of the statements so far ends (-1: this sink cannot go back to it),
    # and take() of the output up to such a mark, the rest dropped: a decoder that decodes
    # several frames in one call gives the frames before an error first.
    cdef Py_ssize_t mark(self)
    cdef object take_to(self, Py_ssize_t mark, bint quads)


cdef class TupleSink(StatementSink):
    cdef list out
    cdef bint untrack


cdef class ColumnSink(StatementSink):
    cdef list s, p, o, g


cdef TermFactory term_factory(object terms)
cdef StatementSink statement_sink(object output, TermFactory terms)
