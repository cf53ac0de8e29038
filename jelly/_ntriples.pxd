# The N-Triples parser's entry points for other line-based text formats (RDF Patch text in
# _rdfpatch.pyx): its term scanners, term caches and errors (line and column) at a position of
# the caller's buffer, so that no second term lexer exists.

cdef class TermScanner:
    cdef object parser         # the parser (a _Parser, private to _ntriples)

    # The term at p (role 0 subject, 1 predicate, 2 object, 3 graph label) of the line that
    # starts at line_start; *after is where it ends.  Raises RdfSyntaxError at line, column.
    cdef object scan(self, const unsigned char* p, const unsigned char* end,
                     const unsigned char* line_start, Py_ssize_t line, int role,
                     const unsigned char** after)
    # RdfSyntaxError "msg at column N" (the column of `at` in the line) at line `line`.
    cdef int fail(self, str msg, const unsigned char* at, const unsigned char* end,
                  const unsigned char* line_start, Py_ssize_t line) except -1
