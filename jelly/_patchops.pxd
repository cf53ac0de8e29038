# Operations of an RDF Patch (Jelly-Patch and RDF Patch text share them): small immutable
# extension types that the compiled readers build without Python-level constructors, and that
# the writers tell apart by `kind` without isinstance chains.

# Operation kinds (PatchOp.kind); the numbers are this library's, not the wire's.
cdef enum:
    OP_ADD = 1
    OP_DELETE = 2
    OP_PREFIX_ADD = 3
    OP_PREFIX_DELETE = 4
    OP_TX_START = 5
    OP_TX_COMMIT = 6
    OP_TX_ABORT = 7
    OP_HEADER = 8
    OP_END_OF_PATCH = 9


cdef class PatchOp:
    cdef readonly int kind


cdef class Add(PatchOp):
    cdef readonly object s, p, o, g
    cdef Py_hash_t _hash

cdef class Delete(PatchOp):
    cdef readonly object s, p, o, g
    cdef Py_hash_t _hash

cdef class PrefixAdd(PatchOp):
    cdef readonly str prefix
    cdef readonly object iri, graph

cdef class PrefixDelete(PatchOp):
    cdef readonly str prefix
    cdef readonly object iri, graph

cdef class Header(PatchOp):
    cdef readonly str key
    cdef readonly object value

cdef class TxStart(PatchOp):
    pass

cdef class TxCommit(PatchOp):
    pass

cdef class TxAbort(PatchOp):
    pass

cdef class EndOfPatch(PatchOp):
    pass


# Fast constructors for the readers: no argument checks (the reader has validated its input).
cdef Add make_add(object s, object p, object o, object g)
cdef Delete make_delete(object s, object p, object o, object g)
cdef PrefixAdd make_prefix_add(str prefix, object iri, object graph)
cdef PrefixDelete make_prefix_delete(str prefix, object iri, object graph)
cdef Header make_header(str key, object value)
# The field-less operations are singletons (TX_START, TX_COMMIT, TX_ABORT, END_OF_PATCH).
cdef PatchOp tx_start()
cdef PatchOp tx_commit()
cdef PatchOp tx_abort()
cdef PatchOp end_of_patch()
