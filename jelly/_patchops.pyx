# cython: language_level=3, boundscheck=False, wraparound=False
"""Operations of an RDF Patch, shared by Jelly-Patch and RDF Patch text.

A patch is a sequence of operations: ``Add`` / ``Delete`` of a statement (``g`` is ``None`` in a
triples patch, a graph term or ``DEFAULT_GRAPH`` in a quads patch), ``PrefixAdd`` /
``PrefixDelete`` of a namespace (optionally in a graph), ``Header``, the transaction marks
``TX_START`` / ``TX_COMMIT`` / ``TX_ABORT``, and ``END_OF_PATCH`` where one patch of a stream of
patches ends.  Operations are immutable and hashable, compare by value, and ``str(op)`` is the
operation as a row of RDF Patch text.  They work with ``match``: ``case Add(s, p, o, g):``.
"""

cimport cython
from cpython.object cimport PyObject, PyTypeObject

cdef extern from "structmember.h":
    ctypedef struct PyMemberDef:
        const char* name
        int type
        Py_ssize_t offset
        int flags
        const char* doc
    int T_OBJECT_EX
    int READONLY

cdef extern from "Python.h":
    object PyDescr_NewMember(PyTypeObject* t, PyMemberDef* m)
    void PyType_Modified(PyTypeObject* t)
    int PyDict_SetItemString(object d, const char* key, object v) except -1



cdef inline Py_hash_t _fix(Py_hash_t h):
    return -2 if h == -1 else h


cdef class PatchOp:
    """Base class of every patch operation (``kind`` is the compiled readers' and writers' tag)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("PatchOp is abstract: use Add, Delete, PrefixAdd, PrefixDelete, Header "
                        "or the TX_START / TX_COMMIT / TX_ABORT / END_OF_PATCH constants")

    def __str__(self):
        from ._rdfpatch import format_op
        return format_op(self)


@cython.final
@cython.no_gc
cdef class Add(PatchOp):
    """Add a statement: ``g`` is ``None`` for a triple, else the graph (or ``DEFAULT_GRAPH``)."""

    __match_args__ = ('s', 'p', 'o', 'g')

    def __init__(self, s, p, o, g=None):
        self.kind = OP_ADD
        self.s = s
        self.p = p
        self.o = o
        self.g = g

    @property
    def statement(self):
        """The statement as a tuple: ``(s, p, o)`` or ``(s, p, o, g)``."""
        return (self.s, self.p, self.o) if self.g is None else (self.s, self.p, self.o, self.g)

    def __hash__(self):
        if self._hash == 0:
            self._hash = _fix(hash((OP_ADD, self.s, self.p, self.o, self.g)))
        return self._hash

    def __eq__(self, other):
        if type(other) is not Add:
            return NotImplemented if not isinstance(other, PatchOp) else False
        cdef Add a = <Add>other
        return a.s == self.s and a.p == self.p and a.o == self.o and a.g == self.g

    def __repr__(self):
        if self.g is None:
            return f"Add({self.s!r}, {self.p!r}, {self.o!r})"
        return f"Add({self.s!r}, {self.p!r}, {self.o!r}, {self.g!r})"

    def __reduce__(self):
        return (Add, (self.s, self.p, self.o, self.g))


@cython.final
@cython.no_gc
cdef class Delete(PatchOp):
    """Delete a statement: ``g`` is ``None`` for a triple, else the graph (or ``DEFAULT_GRAPH``)."""

    __match_args__ = ('s', 'p', 'o', 'g')

    def __init__(self, s, p, o, g=None):
        self.kind = OP_DELETE
        self.s = s
        self.p = p
        self.o = o
        self.g = g

    @property
    def statement(self):
        """The statement as a tuple: ``(s, p, o)`` or ``(s, p, o, g)``."""
        return (self.s, self.p, self.o) if self.g is None else (self.s, self.p, self.o, self.g)

    def __hash__(self):
        if self._hash == 0:
            self._hash = _fix(hash((OP_DELETE, self.s, self.p, self.o, self.g)))
        return self._hash

    def __eq__(self, other):
        if type(other) is not Delete:
            return NotImplemented if not isinstance(other, PatchOp) else False
        cdef Delete d = <Delete>other
        return d.s == self.s and d.p == self.p and d.o == self.o and d.g == self.g

    def __repr__(self):
        if self.g is None:
            return f"Delete({self.s!r}, {self.p!r}, {self.o!r})"
        return f"Delete({self.s!r}, {self.p!r}, {self.o!r}, {self.g!r})"

    def __reduce__(self):
        return (Delete, (self.s, self.p, self.o, self.g))


cdef str _prefix_arg(object prefix):
    if not isinstance(prefix, str):
        raise TypeError(f"a namespace prefix must be str, not {type(prefix).__name__}")
    return <str>prefix


@cython.final
@cython.no_gc
cdef class PrefixAdd(PatchOp):
    """Add a namespace: ``prefix`` (without ``:``) for the IRI ``iri``, optionally in ``graph``."""

    __match_args__ = ('prefix', 'iri', 'graph')

    def __init__(self, prefix, iri, graph=None):
        if iri is None:
            raise TypeError("PrefixAdd needs a namespace IRI")
        self.kind = OP_PREFIX_ADD
        self.prefix = _prefix_arg(prefix)
        self.iri = iri
        self.graph = graph

    def __hash__(self):
        return _fix(hash((OP_PREFIX_ADD, self.prefix, self.iri, self.graph)))

    def __eq__(self, other):
        if type(other) is not PrefixAdd:
            return NotImplemented if not isinstance(other, PatchOp) else False
        cdef PrefixAdd a = <PrefixAdd>other
        return a.prefix == self.prefix and a.iri == self.iri and a.graph == self.graph

    def __repr__(self):
        g = "" if self.graph is None else f", graph={self.graph!r}"
        return f"PrefixAdd({self.prefix!r}, {self.iri!r}{g})"

    def __reduce__(self):
        return (PrefixAdd, (self.prefix, self.iri, self.graph))


@cython.final
@cython.no_gc
cdef class PrefixDelete(PatchOp):
    """Delete a namespace: ``prefix``, optionally the IRI it was bound to and a ``graph``."""

    __match_args__ = ('prefix', 'iri', 'graph')

    def __init__(self, prefix, iri=None, graph=None):
        self.kind = OP_PREFIX_DELETE
        self.prefix = _prefix_arg(prefix)
        self.iri = iri
        self.graph = graph

    def __hash__(self):
        return _fix(hash((OP_PREFIX_DELETE, self.prefix, self.iri, self.graph)))

    def __eq__(self, other):
        if type(other) is not PrefixDelete:
            return NotImplemented if not isinstance(other, PatchOp) else False
        cdef PrefixDelete d = <PrefixDelete>other
        return d.prefix == self.prefix and d.iri == self.iri and d.graph == self.graph

    def __repr__(self):
        i = "" if self.iri is None else f", {self.iri!r}"
        g = "" if self.graph is None else f", graph={self.graph!r}"
        return f"PrefixDelete({self.prefix!r}{i}{g})"

    def __reduce__(self):
        return (PrefixDelete, (self.prefix, self.iri, self.graph))


@cython.final
@cython.no_gc
cdef class Header(PatchOp):
    """A header: ``key`` and a term ``value`` (IRI, blank node, literal or quoted triple)."""

    __match_args__ = ('key', 'value')

    def __init__(self, key, value):
        if not isinstance(key, str):
            raise TypeError(f"a header key must be str, not {type(key).__name__}")
        if value is None:
            raise TypeError("a header needs a value")
        self.kind = OP_HEADER
        self.key = key
        self.value = value

    def __hash__(self):
        return _fix(hash((OP_HEADER, self.key, self.value)))

    def __eq__(self, other):
        if type(other) is not Header:
            return NotImplemented if not isinstance(other, PatchOp) else False
        cdef Header h = <Header>other
        return h.key == self.key and h.value == self.value

    def __repr__(self):
        return f"Header({self.key!r}, {self.value!r})"

    def __reduce__(self):
        return (Header, (self.key, self.value))


# The field-less operations: one instance each, compared by type.

@cython.final
cdef class TxStart(PatchOp):
    """Start of a transaction (``TX``); use the ``TX_START`` constant."""

    def __init__(self):
        self.kind = OP_TX_START

    def __hash__(self):
        return OP_TX_START

    def __eq__(self, other):
        return type(other) is TxStart

    def __repr__(self):
        return "TX_START"

    def __reduce__(self):
        return "TX_START"


@cython.final
cdef class TxCommit(PatchOp):
    """Commit of a transaction (``TC``); use the ``TX_COMMIT`` constant."""

    def __init__(self):
        self.kind = OP_TX_COMMIT

    def __hash__(self):
        return OP_TX_COMMIT

    def __eq__(self, other):
        return type(other) is TxCommit

    def __repr__(self):
        return "TX_COMMIT"

    def __reduce__(self):
        return "TX_COMMIT"


@cython.final
cdef class TxAbort(PatchOp):
    """Abort of a transaction (``TA``); use the ``TX_ABORT`` constant."""

    def __init__(self):
        self.kind = OP_TX_ABORT

    def __hash__(self):
        return OP_TX_ABORT

    def __eq__(self, other):
        return type(other) is TxAbort

    def __repr__(self):
        return "TX_ABORT"

    def __reduce__(self):
        return "TX_ABORT"


@cython.final
cdef class EndOfPatch(PatchOp):
    """The end of one patch in a stream of patches; use the ``END_OF_PATCH`` constant."""

    def __init__(self):
        self.kind = OP_END_OF_PATCH

    def __hash__(self):
        return OP_END_OF_PATCH

    def __eq__(self, other):
        return type(other) is EndOfPatch

    def __repr__(self):
        return "END_OF_PATCH"

    def __reduce__(self):
        return "END_OF_PATCH"


TX_START = TxStart()
TX_COMMIT = TxCommit()
TX_ABORT = TxAbort()
END_OF_PATCH = EndOfPatch()


cdef Add make_add(object s, object p, object o, object g):
    cdef Add a = Add.__new__(Add)
    a.kind = OP_ADD
    a.s = s
    a.p = p
    a.o = o
    a.g = g
    return a


cdef Delete make_delete(object s, object p, object o, object g):
    cdef Delete d = Delete.__new__(Delete)
    d.kind = OP_DELETE
    d.s = s
    d.p = p
    d.o = o
    d.g = g
    return d


cdef PrefixAdd make_prefix_add(str prefix, object iri, object graph):
    cdef PrefixAdd a = PrefixAdd.__new__(PrefixAdd)
    a.kind = OP_PREFIX_ADD
    a.prefix = prefix
    a.iri = iri
    a.graph = graph
    return a


cdef PrefixDelete make_prefix_delete(str prefix, object iri, object graph):
    cdef PrefixDelete d = PrefixDelete.__new__(PrefixDelete)
    d.kind = OP_PREFIX_DELETE
    d.prefix = prefix
    d.iri = iri
    d.graph = graph
    return d


cdef Header make_header(str key, object value):
    cdef Header h = Header.__new__(Header)
    h.kind = OP_HEADER
    h.key = key
    h.value = value
    return h


cdef PatchOp tx_start():
    return TX_START


cdef PatchOp tx_commit():
    return TX_COMMIT


cdef PatchOp tx_abort():
    return TX_ABORT


cdef PatchOp end_of_patch():
    return END_OF_PATCH


# The fields of the operations are read as plain member descriptors instead of Cython's
# properties: CPython (3.11+) then specializes ``op.s`` to a direct load of the field
# (LOAD_ATTR_SLOT), several times faster than a property call, which is much of what a consumer
# of parsed operations spends per statement.
cdef PyMemberDef _MEMBERS[16]
cdef int _n_members = 0


cdef int _field_as_member(type cls, object instance, const char* name) except -1:
    """Make ``cls.<name>`` a read-only member descriptor of the field that holds
    ``getattr(instance, name)`` (a value of its own, found in the instance's memory)."""
    global _n_members
    cdef object value = getattr(instance, name.decode())
    cdef PyObject** words = <PyObject**><PyObject*>instance
    cdef Py_ssize_t i, offset = -1
    for i in range((<PyTypeObject*>cls).tp_basicsize // sizeof(PyObject*)):
        if words[i] == <PyObject*>value:
            offset = i * sizeof(PyObject*)
    if offset < 0 or _n_members == 16:
        raise RuntimeError(f"field {name!r} of {cls.__name__} not found")
    cdef PyMemberDef* m = &_MEMBERS[_n_members]
    _n_members += 1
    m.name = name
    m.type = T_OBJECT_EX
    m.offset = offset
    m.flags = READONLY
    m.doc = NULL
    PyDict_SetItemString(<object>(<PyTypeObject*>cls).tp_dict, name,
                         PyDescr_NewMember(<PyTypeObject*>cls, m))
    PyType_Modified(<PyTypeObject*>cls)
    return 0


cdef int _fields_as_members() except -1:
    # Each field holds an object of its own, so its place in memory is unambiguous.
    for cls, op in ((Add, make_add(object(), object(), object(), object())),
                    (Delete, make_delete(object(), object(), object(), object()))):
        for name in (b"s", b"p", b"o", b"g"):
            _field_as_member(cls, op, name)
    for cls, op in ((PrefixAdd, make_prefix_add("", object(), object())),
                    (PrefixDelete, make_prefix_delete("", object(), object()))):
        for name in (b"iri", b"graph"):
            _field_as_member(cls, op, name)
    _field_as_member(Header, make_header("", object()), b"value")
    return 0


_fields_as_members()
