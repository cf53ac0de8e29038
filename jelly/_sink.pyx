# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Term factories and statement sinks.

A decoder asks its ``TermFactory`` for every term it builds (IRIs once per lookup slot, thanks
to the IRI cache) and hands every statement to its ``StatementSink``.  Built in:

* factories: ``NativeTerms`` (jelly's own terms), ``PyTerms`` (wraps an object with Python
  callables, e.g. the rdflib adapter's); ``jelly._ntformat`` adds ``NTriplesTerms``;
* sinks: ``TupleSink`` (a list of ``(s, p, o[, g])`` tuples), ``ColumnSink`` (a tuple of lists,
  one per position); ``jelly._ntformat`` adds ``LineSink`` (a str per line), ``TextSink`` (a
  frame's lines as one ``bytes``) and ``ArrowSink`` (Arrow buffers of strings or of term
  structs).

``term_factory`` and ``statement_sink`` resolve the names the public API takes (``terms="nt"``,
``output="columns"``); factories and sinks that live elsewhere are imported on first use, so
this module depends on no codec.
"""

cimport cython

cdef extern from "Python.h":
    void PyObject_GC_UnTrack(object)

from ._terms cimport make_iri, make_bnode, make_literal, make_triple
from ._terms import DEFAULT_GRAPH


cdef class TermFactory:
    """Base of the compiled term factories (see the module docstring)."""

    cdef object iri(self, str value):
        raise NotImplementedError

    cdef object iri_parts(self, str prefix, str name):
        return self.iri(prefix + name)

    cdef object bnode(self, str label):
        raise NotImplementedError

    cdef object datatype(self, str iri):
        raise NotImplementedError

    cdef object literal(self, str lex, object language, object datatype):
        raise NotImplementedError

    cdef object triple(self, object s, object p, object o):
        raise NotImplementedError


@cython.final
cdef class NativeTerms(TermFactory):
    """jelly's own terms: IRI, BlankNode, Literal, Triple and DEFAULT_GRAPH."""

    def __init__(self):
        self.default_graph = DEFAULT_GRAPH
        self.acyclic = True

    cdef object iri(self, str value):
        return make_iri(value)

    cdef object bnode(self, str label):
        return make_bnode(label)

    cdef object datatype(self, str iri):
        return make_iri(iri)

    cdef object literal(self, str lex, object language, object datatype):
        return make_literal(lex, language, datatype)

    cdef object triple(self, object s, object p, object o):
        return make_triple(s, p, o)


@cython.final
cdef class PyTerms(TermFactory):
    """Terms of another library, built by an object with callables ``iri(str)``,
    ``bnode(str)``, ``literal(lex, language, datatype)``, ``triple(s, p, o)``, ``datatype(str)``
    (the object passed to ``literal``) and a ``default_graph`` value."""

    def __init__(self, factory):
        try:
            self.f_iri = factory.iri
            self.f_bnode = factory.bnode
            self.f_literal = factory.literal
            self.f_triple = factory.triple
            self.f_datatype = factory.datatype
            self.default_graph = factory.default_graph
        except AttributeError as exc:
            raise TypeError(f"a term factory needs iri, bnode, literal, triple, datatype and "
                            f"default_graph: {exc}") from None
        self.acyclic = False

    cdef object iri(self, str value):
        return self.f_iri(value)

    cdef object bnode(self, str label):
        return self.f_bnode(label)

    cdef object datatype(self, str iri):
        return self.f_datatype(iri)

    cdef object literal(self, str lex, object language, object datatype):
        return self.f_literal(lex, language, datatype)

    cdef object triple(self, object s, object p, object o):
        return self.f_triple(s, p, o)


cdef class StatementSink:
    """Base of the compiled statement sinks (see the module docstring)."""

    cdef int triple(self, object s, object p, object o) except -1:
        raise NotImplementedError

    cdef int quad(self, object s, object p, object o, object g) except -1:
        raise NotImplementedError

    cdef object take(self, bint quads):
        """The statements collected since the last call, in the sink's shape."""
        raise NotImplementedError

    cdef Py_ssize_t mark(self):
        return -1

    cdef object take_to(self, Py_ssize_t mark, bint quads):
        raise NotImplementedError


@cython.final
cdef class TupleSink(StatementSink):
    """A list of ``(s, p, o)`` / ``(s, p, o, g)`` tuples."""

    def __init__(self, bint untrack=False):
        # Tuples of acyclic terms can never be in a cycle: keeping them away from the
        # collector saves a collection every 700 statements.
        self.untrack = untrack
        self.out = []

    cdef int triple(self, object s, object p, object o) except -1:
        cdef tuple st = (s, p, o)
        if self.untrack:
            PyObject_GC_UnTrack(st)
        self.out.append(st)
        self.pending += 1
        return 0

    cdef int quad(self, object s, object p, object o, object g) except -1:
        cdef tuple st = (s, p, o, g)
        if self.untrack:
            PyObject_GC_UnTrack(st)
        self.out.append(st)
        self.pending += 1
        return 0

    cdef object take(self, bint quads):
        cdef list out = self.out
        self.out = []
        self.pending = 0
        return out

    cdef Py_ssize_t mark(self):
        return len(self.out)

    cdef object take_to(self, Py_ssize_t mark, bint quads):
        del self.out[mark:]
        return self.take(quads)


@cython.final
cdef class ColumnSink(StatementSink):
    """A tuple of lists ``(s, p, o)`` or ``(s, p, o, g)``: no tuple per statement."""

    def __init__(self):
        self.s, self.p, self.o, self.g = [], [], [], []

    cdef int triple(self, object s, object p, object o) except -1:
        self.s.append(s)
        self.p.append(p)
        self.o.append(o)
        self.pending += 1
        return 0

    cdef int quad(self, object s, object p, object o, object g) except -1:
        self.s.append(s)
        self.p.append(p)
        self.o.append(o)
        self.g.append(g)
        self.pending += 1
        return 0

    cdef object take(self, bint quads):
        out = (self.s, self.p, self.o, self.g) if quads else (self.s, self.p, self.o)
        self.s, self.p, self.o, self.g = [], [], [], []
        self.pending = 0
        return out


# Names the public API takes, and where the compiled classes live (imported on first use).
TERM_FACTORIES = {"native": "jelly._sink:NativeTerms", "nt": "jelly._ntformat:NTriplesTerms"}
SINKS = {"tuples": "jelly._sink:TupleSink", "columns": "jelly._sink:ColumnSink",
         "lines": "jelly._ntformat:LineSink",
         "text": "jelly._ntformat:TextSink", "arrow": "jelly._ntformat:arrow_sink"}


def _load(spec):
    import importlib
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


cdef TermFactory term_factory(object terms):
    """A factory from ``terms``: a name of TERM_FACTORIES, a TermFactory, or any object with
    the factory callables (wrapped in PyTerms)."""
    if isinstance(terms, TermFactory):
        return <TermFactory>terms
    if isinstance(terms, str):
        spec = TERM_FACTORIES.get(terms)
        if spec is None:
            raise ValueError(f"terms must be one of {', '.join(map(repr, TERM_FACTORIES))} or a "
                             f"term factory, not {terms!r}")
        return _load(spec)()
    return PyTerms(terms)


cdef StatementSink statement_sink(object output, TermFactory terms):
    """A sink from ``output``: a name of SINKS or a StatementSink."""
    if isinstance(output, StatementSink):
        return <StatementSink>output
    spec = SINKS.get(output) if isinstance(output, str) else None
    if spec is None:
        raise ValueError(f"output must be one of {', '.join(map(repr, SINKS))}, not {output!r}")
    cls = _load(spec)
    if cls is TupleSink:
        return TupleSink(terms.acyclic)
    return cls(terms) if output in ("lines", "text", "arrow") else cls()
