# The state every line-based text parser of the package keeps (N-Triples / N-Quads in
# _ntriples, RDF Patch text in _rdfpatch): a block of whole lines, where it is in it, the line
# number, and the items parsed since the last step.

cdef class LineParser:
    cdef const unsigned char* p
    cdef const unsigned char* end
    cdef const unsigned char* line_start
    cdef Py_ssize_t line
    cdef bint at_start
    cdef list out

    # Start on buf[:n] (whole lines); buf must not change until step() reports done.
    cdef int begin(self, bytearray buf, Py_ssize_t n) except -1
    # Parse up to about `limit` items: (items, error or None, block done).
    cdef tuple step(self, Py_ssize_t limit)
    # The parser's own loop over the block: 1 at its end, 0 once `limit` items are collected.
    cdef int _run(self, Py_ssize_t limit) except -1
