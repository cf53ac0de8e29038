# cython: language_level=3, boundscheck=False, wraparound=False
"""RDF terms of the library-free API.

``IRI``, ``BlankNode``, ``Literal`` and ``Triple`` (an RDF-star quoted triple) are immutable and
hashable; ``str(term)`` is the term in N-Triples syntax and ``repr(term)`` is Python syntax.
Statements are plain tuples ``(s, p, o)`` or ``(s, p, o, g)``; the default graph is
``DEFAULT_GRAPH``.  A literal whose datatype is ``xsd:string`` is the same term as the simple
literal, so it is stored with ``datatype=None``.

Terms hold only strings and other terms, so they can never be part of a reference cycle: they
are not tracked by the garbage collector (``no_gc``), which keeps collections cheap when
millions of them are alive.  A nested ``Triple`` is hashed, compared, ordered, printed and freed
from an explicit stack, so no depth a program can build crashes on the C stack.  (CPython's
trashcan, ``cython.trashcan``, would free deep triples too, but it needs objects tracked by the
garbage collector, which made reading RDF-star data up to 1.7 times slower.)
"""

cimport cython
from cpython.object cimport PyObject, PyObject_RichCompare, PyTypeObject, Py_LE, Py_LT

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"

# Distinct salts keep IRI('x'), BlankNode('x') and Literal('x') apart in hash tables.
cdef Py_hash_t _IRI_SALT = 0x1F3A5
cdef Py_hash_t _BNODE_SALT = 0x2B7C9
cdef Py_hash_t _LIT_SALT = 0x3D1E7
cdef Py_hash_t _TRIPLE_SALT = 0x4E2F1


cdef inline Py_hash_t _fix(Py_hash_t h):
    return -2 if h == -1 else h


@cython.freelist(64)
@cython.final
@cython.no_gc
cdef class IRI:
    """An IRI; ``value`` is the IRI string."""

    def __init__(self, value):
        if not isinstance(value, str):
            raise TypeError(f"IRI value must be str, not {type(value).__name__}")
        self.value = value
        self._hash = 0

    def __hash__(self):
        if self._hash == 0:
            self._hash = _fix(hash(self.value) ^ _IRI_SALT)
        return self._hash

    def __eq__(self, other):
        return type(other) is IRI and (<IRI>other).value == self.value

    def __ne__(self, other):
        return not self.__eq__(other)

    def __lt__(self, other):
        return _order(self, other, Py_LT)

    def __le__(self, other):       # > and >= are these, reflected
        return _order(self, other, Py_LE)


    def __repr__(self):
        return f"IRI({self.value!r})"

    def __str__(self):
        from ._ntformat import term_to_nt
        return term_to_nt(self)

    def __reduce__(self):
        return (IRI, (self.value,))


@cython.freelist(64)
@cython.final
@cython.no_gc
cdef class BlankNode:
    """A blank node; ``value`` is its label (without ``_:``)."""

    def __init__(self, value):
        if not isinstance(value, str):
            raise TypeError(f"BlankNode label must be str, not {type(value).__name__}")
        self.value = value
        self._hash = 0

    def __hash__(self):
        if self._hash == 0:
            self._hash = _fix(hash(self.value) ^ _BNODE_SALT)
        return self._hash

    def __eq__(self, other):
        return type(other) is BlankNode and (<BlankNode>other).value == self.value

    def __ne__(self, other):
        return not self.__eq__(other)

    def __lt__(self, other):
        return _order(self, other, Py_LT)

    def __le__(self, other):       # > and >= are these, reflected
        return _order(self, other, Py_LE)


    def __repr__(self):
        return f"BlankNode({self.value!r})"

    def __str__(self):
        from ._ntformat import term_to_nt
        return term_to_nt(self)

    def __reduce__(self):
        return (BlankNode, (self.value,))


@cython.freelist(4096)
@cython.final
@cython.no_gc
cdef class Literal:
    """A literal: lexical form, optional language tag, optional datatype IRI.

    ``datatype`` is ``None`` for simple (``xsd:string``) and language-tagged literals.
    """

    def __init__(self, lex, language=None, datatype=None):
        if not isinstance(lex, str):
            raise TypeError(f"literal lexical form must be str, not {type(lex).__name__}")
        if language is not None:
            if not isinstance(language, str) or not language:
                raise ValueError("language tag must be a non-empty str")
            if datatype is not None and _dt_value(datatype) != RDF_LANGSTRING:
                raise ValueError("a literal cannot have both a language tag and a datatype")
            datatype = None
        elif datatype is not None:
            if isinstance(datatype, str):
                datatype = IRI(datatype)
            elif type(datatype) is not IRI:
                raise TypeError("datatype must be an IRI or str")
            if (<IRI>datatype).value == RDF_LANGSTRING:
                raise ValueError("an rdf:langString literal needs a language tag")
            if (<IRI>datatype).value == XSD_STRING:
                datatype = None
        self.lex = lex
        self.language = language
        self.datatype = datatype
        self._hash = 0

    def __hash__(self):
        if self._hash == 0:
            self._hash = _fix(hash((self.lex, self.language, self.datatype)) ^ _LIT_SALT)
        return self._hash

    def __eq__(self, other):
        if type(other) is not Literal:
            return False
        cdef Literal o = <Literal>other
        return o.lex == self.lex and o.language == self.language and o.datatype == self.datatype

    def __ne__(self, other):
        return not self.__eq__(other)

    def __lt__(self, other):
        return _order(self, other, Py_LT)

    def __le__(self, other):       # > and >= are these, reflected
        return _order(self, other, Py_LE)


    def __repr__(self):
        if self.language is not None:
            return f"Literal({self.lex!r}, language={self.language!r})"
        if self.datatype is not None:
            return f"Literal({self.lex!r}, datatype={(<IRI>self.datatype).value!r})"
        return f"Literal({self.lex!r})"

    def __str__(self):
        from ._ntformat import term_to_nt
        return term_to_nt(self)

    def __reduce__(self):
        return (Literal, (self.lex, self.language, self.datatype))


@cython.freelist(32)
@cython.final
@cython.no_gc
cdef class Triple:
    """An RDF-star quoted triple, usable as a term."""

    def __init__(self, s, p, o):
        for t in (s, p, o):     # any term in any place (generalized RDF-star), nothing else
            if type(t) not in _TERMS:
                raise TypeError(f"a quoted triple holds IRI, BlankNode, Literal or Triple "
                                f"terms, not {type(t).__name__}")
        self.s = s
        self.p = p
        self.o = o
        self._hash = 0

    def __dealloc__(self):
        # Nested triples that only this one holds are taken out and freed one at a time, each
        # after its own such triples were taken out, so freeing never recurses.
        cdef list stack
        if not (_lone(<PyObject*>self.s) or _lone(<PyObject*>self.p)
                or _lone(<PyObject*>self.o)):
            return
        stack = []
        _detach(self, stack)
        while stack:
            t = stack.pop()
            _detach(<Triple>t, stack)
            t = None        # freed here, with nothing nested left to free

    def __hash__(self):
        if self._hash == 0:
            _hash_nested(self)
        return self._hash

    def __eq__(self, other):
        if type(other) is not Triple:
            return False
        return _eq_nested(self, <Triple>other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __lt__(self, other):
        return _order(self, other, Py_LT)

    def __le__(self, other):       # > and >= are these, reflected
        return _order(self, other, Py_LE)


    def __iter__(self):
        return iter((self.s, self.p, self.o))

    def __repr__(self):
        # Pieces in order from an explicit stack: text as str, terms wrapped in 1-tuples.
        cdef list out = [], stack = [(self,)]
        while stack:
            item = stack.pop()
            if type(item) is str:
                out.append(item)
                continue
            term = (<tuple>item)[0]
            if type(term) is Triple:
                t = <Triple>term
                out.append("Triple(")
                stack += [")", (t.o,), ", ", (t.p,), ", ", (t.s,)]
            else:
                out.append(repr(term))
        return "".join(out)

    def __str__(self):
        from ._ntformat import term_to_nt
        return term_to_nt(self)

    def __reduce__(self):
        return (Triple, (self.s, self.p, self.o))


cdef inline bint _lone(PyObject* x) noexcept:
    # A triple nobody else holds (read without taking a reference).
    return x.ob_type == <PyTypeObject*>Triple and x.ob_refcnt == 1


cdef int _detach(Triple t, list stack) except -1:
    # Move t's lone nested triples onto the stack (which then holds the only reference).
    if _lone(<PyObject*>t.s):
        stack.append(t.s)
        t.s = None
    if _lone(<PyObject*>t.p):
        stack.append(t.p)
        t.p = None
    if _lone(<PyObject*>t.o):
        stack.append(t.o)
        t.o = None
    return 0


cdef int _hash_nested(Triple root) except -1:
    """Hash root and every nested triple not hashed yet, innermost first, so that hashing a
    triple only ever asks for cached hashes of the triples in it."""
    cdef list stack = [root]
    cdef Triple t
    cdef Py_hash_t h
    cdef bint ready
    while stack:
        t = <Triple>stack[len(stack) - 1]
        ready = True
        for c in (t.s, t.p, t.o):
            if type(c) is Triple and (<Triple>c)._hash == 0:
                stack.append(c)
                ready = False
        if ready:
            stack.pop()
            h = hash((t.s, t.p, t.o)) ^ _TRIPLE_SALT
            t._hash = h if h != 0 and h != -1 else 1    # 0 means "not hashed yet"
    return 0


cdef bint _eq_nested(Triple a, Triple b) except -1:
    """Equality of two triples, nested triples compared from an explicit stack."""
    cdef list stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        if a is b:
            continue
        if a._hash != 0 and b._hash != 0 and a._hash != b._hash:
            return False
        for x, y in ((a.s, b.s), (a.p, b.p), (a.o, b.o)):
            if type(x) is Triple or type(y) is Triple:
                if type(x) is not type(y):
                    return False
                stack.append((x, y))
            elif not (x == y):
                return False
    return True


@cython.final
cdef class DefaultGraph:
    """The default graph of a dataset; use the ``DEFAULT_GRAPH`` singleton."""

    def __hash__(self):
        return 0x5A5A5

    def __eq__(self, other):
        return type(other) is DefaultGraph

    def __ne__(self, other):
        return type(other) is not DefaultGraph

    def __lt__(self, other):
        return _order(self, other, Py_LT)

    def __le__(self, other):       # > and >= are these, reflected
        return _order(self, other, Py_LE)


    def __repr__(self):
        return "DEFAULT_GRAPH"

    def __str__(self):
        return ""

    def __reduce__(self):
        return "DEFAULT_GRAPH"


DEFAULT_GRAPH = DefaultGraph()

cdef frozenset _SORTABLE = frozenset((IRI, BlankNode, Literal, Triple, DefaultGraph))
cdef frozenset _TERMS = frozenset((IRI, BlankNode, Literal, Triple))


cdef object _dt_value(object dt):
    return (<IRI>dt).value if type(dt) is IRI else dt


cdef object _order(a, b, int op):
    """``a op b`` in the order of :func:`_sort_key`; ``NotImplemented`` for what is not a
    term, so that Python raises its usual ``TypeError``."""
    if type(b) not in _SORTABLE:
        return NotImplemented
    return PyObject_RichCompare(_sort_key(a), _sort_key(b), op)


def _sort_key(term):
    """A total order over terms (kind first), so statements can be sorted for display and tests."""
    t = type(term)
    if t is IRI:
        return (1, (<IRI>term).value)
    if t is BlankNode:
        return (0, (<BlankNode>term).value)
    if t is Literal:
        lit = <Literal>term
        return (2, lit.lex, lit.language or "", (<IRI>lit.datatype).value if lit.datatype is not None else "")
    if t is Triple:
        # Flat: the keys of the nested terms in pre-order.  Each key starts with its kind and
        # has a fixed shape per kind, so flat keys order exactly as nested ones would, and
        # neither building nor comparing them recurses.
        out = []
        stack = [term]
        while stack:
            item = stack.pop()
            if type(item) is Triple:
                tr = <Triple>item
                out.append(3)
                stack += [tr.o, tr.p, tr.s]
            else:
                out += _sort_key(item)
        return tuple(out)
    if t is DefaultGraph:
        return (-1,)
    raise TypeError(f"not an RDF term: {term!r}")


# Fast constructors for the decoder: no argument checks (the decoder has validated its input).

cdef IRI make_iri(str value):
    cdef IRI t = IRI.__new__(IRI)
    t.value = value
    return t


cdef BlankNode make_bnode(str value):
    cdef BlankNode t = BlankNode.__new__(BlankNode)
    t.value = value
    return t


cdef Literal make_literal(str lex, object language, object datatype):
    cdef Literal t = Literal.__new__(Literal)
    t.lex = lex
    t.language = language
    t.datatype = datatype
    return t


cdef Triple make_triple(object s, object p, object o):
    cdef Triple t = Triple.__new__(Triple)
    t.s = s
    t.p = p
    t.o = o
    return t
