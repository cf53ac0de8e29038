# The Jelly-RDF statement encoder; the transcoder extends it to write wire values.
from libc.stdint cimport uint64_t

from ._buffer cimport WriteBuffer
from ._termencoder cimport TermEncoder


cdef Py_ssize_t write_options_message(WriteBuffer* b, object o, uint64_t version) except -1


cdef class Encoder(TermEncoder):
    cdef readonly object options
    cdef int physical_type
    cdef bint options_written
    cdef Py_ssize_t version_pos
    cdef public bint used_namespaces
    cdef int final_version
    cdef object open_graph
    cdef bint graph_is_open
    cdef readonly Py_ssize_t statements

    cdef int write_options(self) except -1
    cdef int statement_row(self, unsigned char row_tag, int nterms) except -1
    cdef int triple(self, object s, object p, object o) except -1
    cdef int quad(self, object s, object p, object o, object g) except -1
    cdef int graph_start(self, object g) except -1
    cdef int graph_end(self) except -1
    cdef int statement(self, object st) except -1
