from ._termdecoder cimport TermDecoder


cdef class Decoder(TermDecoder):
    cdef public object options
    cdef tuple options_key
    cdef int physical_type
    cdef bint in_graph
    cdef object graph
    cdef bint new_streams
    cdef bint segment          # the first options row starts a segment (unknown_past)
    cdef public Py_ssize_t stream_index
    cdef Py_ssize_t named
    cdef list out_namespaces
    cdef dict metadata
    cdef unsigned long long max_frame  # ReaderLimits.max_frame_size, for frames given whole

    cdef int open_frame(self, object data, Py_ssize_t offset) except -1
    cdef object run_frame(self, Py_ssize_t first, Py_ssize_t frames, object statements,
                          list run_namespaces, Py_ssize_t* rows, Py_ssize_t named,
                          dict metadata)
    cdef tuple read_options(self, const unsigned char* p, const unsigned char* end)
    cdef int apply_options(self, tuple key, const unsigned char* at) except -1
    cdef int rdf_statement(self, const unsigned char* p, const unsigned char* end, bint quad) except -1
    cdef int graph_start(self, const unsigned char* p, const unsigned char* end) except -1
    cdef int namespace(self, const unsigned char* p, const unsigned char* end) except -1
    cdef int metadata_entry(self, const unsigned char* p, const unsigned char* end) except -1
