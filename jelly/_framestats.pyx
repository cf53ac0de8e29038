# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""What a Jelly frame is made of, on the wire: rows of each kind and the terms of statement
rows by position and kind, counted and measured in bytes, for ``jelly inspect --detail`` and
``--size``.

A row's bytes are those of its field in the frame (tag, length and payload); a term's are those
of its field in the row.  Terms are the ones written in the row: a repeated term (left out of
the row) is not counted, and a quoted triple counts once, as a triple.  The graph of a
``graph_start`` row counts as a graph term.  Where a oneof occurs more than once the last
member counts, as protobuf reads it.  Frames reach this module after the decoder accepted
them, so it only needs to be safe on malformed input, not precise.
"""

from libc.stdint cimport uint64_t

from ._wire cimport WT_LEN
from ._buffer cimport WireReader

from ._decoder import ROW_KINDS

#: Kinds of terms, in the order of the counts.
TERM_KINDS = ("iri", "bnode", "literal", "triple", "default_graph")
#: Positions of terms, in the order of the counts.
POSITIONS = ("subject", "predicate", "object", "graph")

# Row field numbers to the index of ROW_KINDS (jelly._decoder); -1: not a row kind.
cdef int ROW_INDEX[12]
ROW_INDEX[:] = [-1, 0, 1, 2, 3, 4, 5, -1, -1, 6, 7, 8]
# Member of a term oneof (0-3) to its kind; graphs have the default graph third.
cdef int SPO_KIND[4]
SPO_KIND[:] = [0, 1, 2, 3]
cdef int GRAPH_KIND[4]
GRAPH_KIND[:] = [0, 1, 4, 2]


cdef class FrameStats(WireReader):
    """Counts of one frame (see the module docstring); :meth:`read` returns them."""

    cdef Py_ssize_t row_counts[9]
    cdef Py_ssize_t row_bytes[9]
    cdef Py_ssize_t term_counts[20]
    cdef Py_ssize_t term_bytes[20]
    cdef Py_ssize_t metadata_count, metadata_bytes

    cdef int terms(self, const unsigned char* p, const unsigned char* end,
                   bint graph_start) except -1:
        cdef uint64_t tag, v
        cdef const unsigned char* q
        cdef const unsigned char* start
        cdef int last_kind[4]
        cdef Py_ssize_t last_bytes[4]
        cdef int pos, member, i
        for i in range(4):
            last_kind[i] = -1
        while p < end:
            start = p
            q = self.tag(p, end, &tag)
            p = self.skip(q, end, tag)
            member = <int>(tag >> 3) - 1
            if graph_start:
                if member > 3:
                    continue
                member += 12
            if member < 0 or member > 15:
                continue
            pos = member // 4
            last_kind[pos] = GRAPH_KIND[member % 4] if pos == 3 else SPO_KIND[member % 4]
            last_bytes[pos] = p - start
        for pos in range(4):
            if last_kind[pos] >= 0:
                self.term_counts[pos * 5 + last_kind[pos]] += 1
                self.term_bytes[pos * 5 + last_kind[pos]] += last_bytes[pos]
        return 0

    cdef int row(self, const unsigned char* p, const unsigned char* end, Py_ssize_t size) except -1:
        cdef uint64_t tag, v
        cdef const unsigned char* q
        cdef const unsigned char* body = NULL
        cdef const unsigned char* body_end = NULL
        cdef int field = 0
        while p < end:
            q = self.tag(p, end, &tag)
            if (tag >> 3) < 12 and ROW_INDEX[tag >> 3] >= 0 and (tag & 7) == WT_LEN:
                field = <int>(tag >> 3)
                body = self.length(q, end, &v)
                body_end = body + v
                p = body_end
            else:
                p = self.skip(q, end, tag)
        if field == 0:
            return 0
        self.row_counts[ROW_INDEX[field]] += 1
        self.row_bytes[ROW_INDEX[field]] += size
        if field == 2 or field == 3 or field == 4:
            self.terms(body, body_end, field == 4)
        return 0

    def read(self, data):
        """Counts of the frame ``data`` (bytes of an ``RdfStreamFrame``): a dict with
        ``rows`` and ``row_bytes`` (by the row kinds of :data:`jelly._decoder.ROW_KINDS`),
        ``terms`` and ``term_bytes`` (``{position: {kind: n}}``), ``metadata`` and
        ``metadata_bytes``."""
        cdef bytes b = bytes(data)
        cdef const unsigned char* p = <const unsigned char*><char*>b
        cdef const unsigned char* end = p + len(b)
        cdef const unsigned char* start
        cdef const unsigned char* q
        cdef uint64_t tag, v
        cdef int i
        for i in range(9):
            self.row_counts[i] = self.row_bytes[i] = 0
        for i in range(20):
            self.term_counts[i] = self.term_bytes[i] = 0
        self.metadata_count = self.metadata_bytes = 0
        self.base = p
        self.row_index = 0
        while p < end:
            start = p
            q = self.tag(p, end, &tag)
            if (tag >> 3) == 1 and (tag & 7) == WT_LEN:
                q = self.length(q, end, &v)
                self.row(q, q + v, q + v - start)
                p = q + v
                self.row_index += 1
            else:
                p = self.skip(q, end, tag)
                if (tag >> 3) == 15:
                    self.metadata_count += 1
                    self.metadata_bytes += p - start
        return {
            "rows": {k: self.row_counts[i] for i, k in enumerate(ROW_KINDS)},
            "row_bytes": {k: self.row_bytes[i] for i, k in enumerate(ROW_KINDS)},
            "terms": {pos: {k: self.term_counts[j * 5 + i] for i, k in enumerate(TERM_KINDS)}
                      for j, pos in enumerate(POSITIONS)},
            "term_bytes": {pos: {k: self.term_bytes[j * 5 + i] for i, k in enumerate(TERM_KINDS)}
                           for j, pos in enumerate(POSITIONS)},
            "metadata": self.metadata_count,
            "metadata_bytes": self.metadata_bytes,
        }
