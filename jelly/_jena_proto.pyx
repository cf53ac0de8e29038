# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""RDF Protobuf: Jena's RDF Binary as delimited protobuf messages (``binary-rdf.proto``).

A stream is a sequence of ``RDF_StreamRow`` messages, each after its length as a varint (Java's
``writeDelimitedTo``); a result set is a delimited ``RDF_VarTuple`` followed by delimited
``RDF_DataTuple`` messages.  Each message is read by the core's protobuf cursor
(``_buffer.WireReader``) as a compliant protobuf reader: fields in any order, unknown fields
skipped, the last member of a oneof wins (earlier ones are still checked, as protobuf parses
them), repeated occurrences of a singular message field are merged, strings are strict UTF-8.
Everything else is the shared term model of ``_jena``.
"""

cimport cython
from libc.stdint cimport uint64_t, uint32_t, int64_t, int32_t
from libc.string cimport memcpy, memcmp
from cpython.list cimport PyList_GET_ITEM
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE

from ._wire cimport read_varint, zigzag, unzigzag, WT_VARINT, WT_I64, WT_LEN
from ._buffer cimport (Slot, F_UNKNOWN, F_VARINT, F_STRING, F_MSG, WriteBuffer, wb_ensure,
                       wb_byte, wb_varint, wb_open, wb_close, wb_string_field, utf8_of)
from ._jena cimport (JenaDecoder, JenaEncoder, JTerm, MODE_RESULTS, T_IRI, T_BNODE, T_LITERAL,
                     T_PREFIXNAME, T_VARIABLE, T_ANY, T_UNDEFINED, T_REPEAT, T_TRIPLE,
                     T_INTEGER, T_DOUBLE, T_DECIMAL, C_DATATYPE, C_DTPREFIX, C_LANG, R_BASE,
                     bad_direction)

from ._jena import REPEAT, UNDEF
from .errors import JellyLimitError

# Messages of binary-rdf.proto, for validating those that are parsed but not decoded.
cdef enum:
    PM_IRI = 1
    PM_PNAME = 2
    PM_BNODE = 3
    PM_LITERAL = 4
    PM_DECIMAL = 5
    PM_VAR = 6
    PM_EMPTY = 7
    PM_TERM = 8
    PM_TRIPLE = 9
    PM_QUAD = 10
    PM_PDECL = 11
    PM_ROW = 12


cdef inline uint64_t _le64(const unsigned char* p) noexcept:
    cdef uint64_t u = 0
    cdef int i
    for i in range(8):
        u |= (<uint64_t>p[i]) << (8 * i)
    return u


cdef inline int32_t _sint32(uint64_t v) noexcept:
    # protobuf reads a sint32 from the low 32 bits of the varint
    cdef uint32_t u = <uint32_t>v
    return <int32_t>((u >> 1) ^ (-(<int32_t>(u & 1))))


@cython.final
cdef class ProtoDecoder(JenaDecoder):
    """Reads RDF Protobuf: RDF statements (``mode="rdf"``) or a result set (``"results"``).
    See :class:`jelly._jena.JenaDecoder` for feeding it."""

    cdef object r_s, r_p, r_o, r_g      # what spo() read (no tuple per row)

    cdef int field_kind(self, int mtype, uint64_t field, int* sub) noexcept:
        if mtype == PM_IRI or mtype == PM_BNODE or mtype == PM_VAR:
            return F_STRING if field == 1 else F_UNKNOWN
        if mtype == PM_PNAME or mtype == PM_PDECL:
            return F_STRING if field == 1 or field == 2 else F_UNKNOWN
        if mtype == PM_LITERAL:
            if field == 1 or field == 2 or field == 3 or field == 5:
                return F_STRING
            if field == 9:
                return F_VARINT
            if field == 4:
                sub[0] = PM_PNAME
                return F_MSG
            return F_UNKNOWN
        if mtype == PM_DECIMAL:
            return F_VARINT if field == 1 or field == 2 else F_UNKNOWN
        if mtype == PM_TERM:
            if field == 20:
                return F_VARINT
            sub[0] = (PM_IRI if field == 1 else PM_BNODE if field == 2 else
                      PM_LITERAL if field == 3 else PM_PNAME if field == 4 else
                      PM_VAR if field == 5 else PM_TRIPLE if field == 6 else
                      PM_EMPTY if 7 <= field <= 9 else PM_DECIMAL if field == 22 else 0)
            return F_MSG if sub[0] else F_UNKNOWN
        if mtype == PM_TRIPLE or mtype == PM_QUAD:
            if 1 <= field <= (4 if mtype == PM_QUAD else 3):
                sub[0] = PM_TERM
                return F_MSG
            return F_UNKNOWN
        if mtype == PM_ROW:
            sub[0] = (PM_PDECL if field == 1 else PM_TRIPLE if field == 2 else
                      PM_QUAD if field == 3 else PM_IRI if field == 4 else 0)
            return F_MSG if sub[0] else F_UNKNOWN
        return F_UNKNOWN

    # ------------------------------------------------------------------ helpers

    cdef inline int scalar(self, Slot* s, int field, int mtype, const unsigned char* tagpos,
                           uint64_t v) except -1:
        """A varint / fixed64 member of a oneof: the last occurrence wins."""
        if s.field != 0 and s.field != field:
            self.validate_run(s, mtype, tagpos)
        s.field = field
        s.count = 1
        s.run = tagpos
        s.value = v
        return 0

    cdef const unsigned char* strings(self, const unsigned char* p, const unsigned char* end,
                                      const unsigned char** s1, Py_ssize_t* n1,
                                      const unsigned char** s2, Py_ssize_t* n2) except NULL:
        """Fields 1 and 2 (strings, the last occurrence wins; ``s2`` may be NULL) of a
        message; an overridden string must still be valid UTF-8.  Absent strings are empty."""
        cdef uint64_t tag, v
        cdef const unsigned char* q
        s1[0] = p
        n1[0] = 0
        if s2 != NULL:
            s2[0] = p
            n2[0] = 0
        while p < end:
            q = self.tag(p, end, &tag)
            if tag == 0x0A or (tag == 0x12 and s2 != NULL):
                p = self.length(q, end, &v)
                if tag == 0x0A:
                    if n1[0]:
                        self.string(s1[0], s1[0] + n1[0])
                    s1[0] = p
                    n1[0] = <Py_ssize_t>v
                else:
                    if n2[0]:
                        self.string(s2[0], s2[0] + n2[0])
                    s2[0] = p
                    n2[0] = <Py_ssize_t>v
                p = p + v
            else:
                p = self.skip(q, end, tag)
        return p

    cdef object merged_member(self, Slot* s, int mtype, int depth):
        """The winning member of a oneof (or a singular message field), merged from all its
        occurrences when it occurs more than once."""
        cdef bytes merged
        cdef Py_ssize_t saved
        cdef const unsigned char* p
        if s.count > 1:
            merged = self.merged(s, mtype)
            saved = self.scratch_begin(s)
            try:
                p = <const unsigned char*>PyBytes_AS_STRING(merged)
                return self.member(s.field, p, p + PyBytes_GET_SIZE(merged), depth, s.run)
            finally:
                self.scratch_end(saved)
        return self.member(s.field, s.p, s.end, depth, s.run)

    # ------------------------------------------------------------------ terms

    cdef object term(self, const unsigned char* p, const unsigned char* end, int depth):
        """An RDF_Term message."""
        cdef Slot s
        cdef uint64_t tag, v
        cdef const unsigned char* q
        cdef const unsigned char* tagpos
        cdef const unsigned char* start = p
        cdef uint64_t f
        cdef double dv
        s.field = 0
        while p < end:
            tagpos = p
            q = self.tag(p, end, &tag)
            f = tag >> 3
            if (tag & 7) == WT_LEN and (f <= 9 or f == 22):
                p = self.length(q, end, &v)
                self.record(&s, <int>f, PM_TERM, tagpos, p, v)
                p = p + v
            elif tag == (20 << 3 | WT_VARINT):
                p = self.varint(q, end, &v)
                self.scalar(&s, 20, PM_TERM, tagpos, v)
            elif tag == (21 << 3 | WT_I64):
                if end - q < 8:
                    self.malformed(q, "truncated fixed64 field")
                self.scalar(&s, 21, PM_TERM, tagpos, _le64(q))
                p = q + 8
            else:
                p = self.skip(q, end, tag)
        if s.field == 0:
            self.fail(start, "RDF_Term without a value")
        if s.field == 20:
            return self.value_integer(unzigzag(s.value))
        if s.field == 21:
            memcpy(&dv, &s.value, 8)
            return self.value_double(dv)
        return self.merged_member(&s, PM_TERM, depth)

    cdef object member(self, int f, const unsigned char* p, const unsigned char* end, int depth,
                       const unsigned char* at):
        """The content of an RDF_Term member (field f) at p .. end."""
        cdef const unsigned char* s1
        cdef const unsigned char* s2
        cdef Py_ssize_t n1, n2
        cdef uint64_t tag, v
        cdef const unsigned char* q
        cdef int64_t value = 0
        cdef int32_t scale = 0
        if f == 1 or f == 2 or f == 4:
            self.strings(p, end, &s1, &n1, &s2 if f == 4 else NULL, &n2)
            if f == 4:
                return self.cached(T_PREFIXNAME, s1, n1, s2, n2, at)
            return self.cached(T_IRI if f == 1 else T_BNODE, s1, n1, NULL, 0, at)
        if f == 3:
            return self.literal_msg(p, end, at)
        if f == 5:
            self.strings(p, end, &s1, &n1, NULL, &n2)
            return self.not_rdf(T_VARIABLE, self.string(s1, s1 + n1), at)
        if f == 6:
            if depth >= self.max_depth:
                self.fail(at, f"RDF-star triple terms nested deeper than {self.max_depth}",
                          JellyLimitError)
            self.spo(p, end, 3, depth + 1, at)
            return self.triple_term(self.r_s, self.r_p, self.r_o, at)
        if f == 22:
            while p < end:
                q = self.tag(p, end, &tag)
                if tag == 0x08 or tag == 0x10:
                    p = self.varint(q, end, &v)
                    if tag == 0x08:
                        value = unzigzag(v)
                    else:
                        scale = _sint32(v)
                else:
                    p = self.skip(q, end, tag)
            return self.value_decimal(value, scale, at)
        # RDF_ANY, RDF_UNDEF, RDF_REPEAT: empty messages (whose content protobuf still parses)
        if p != end:
            self.validate(PM_EMPTY, p, end, depth)
        if f == 8:
            return UNDEF
        if f == 9:
            return REPEAT
        return self.not_rdf(T_ANY, None, at)

    cdef object literal_msg(self, const unsigned char* p, const unsigned char* end,
                            const unsigned char* at):
        cdef Slot s
        cdef uint64_t tag, v
        cdef uint64_t f
        cdef const unsigned char* q
        cdef const unsigned char* tagpos
        cdef const unsigned char* lex = p
        cdef Py_ssize_t nlex = 0
        cdef const unsigned char* s1
        cdef const unsigned char* s2
        cdef Py_ssize_t n1, n2
        cdef bytes merged
        cdef Py_ssize_t saved
        cdef object datatype = None
        cdef object lang = None
        s.field = 0
        while p < end:
            tagpos = p
            q = self.tag(p, end, &tag)
            f = tag >> 3
            if tag == 0x0A:
                p = self.length(q, end, &v)
                if nlex:
                    self.string(lex, lex + nlex)
                lex = p
                nlex = <Py_ssize_t>v
                p = p + v
            elif (tag & 7) == WT_LEN and 2 <= f <= 5:
                p = self.length(q, end, &v)
                self.record(&s, <int>f, PM_LITERAL, tagpos, p, v)
                p = p + v
            elif tag == (9 << 3 | WT_VARINT):
                p = self.varint(q, end, &v)
                self.scalar(&s, 9, PM_LITERAL, tagpos, v)
            else:
                p = self.skip(q, end, tag)
        if s.field == 4:
            if s.count > 1:
                merged = self.merged(&s, PM_LITERAL)
                saved = self.scratch_begin(&s)
                try:
                    q = <const unsigned char*>PyBytes_AS_STRING(merged)
                    self.strings(q, q + PyBytes_GET_SIZE(merged), &s1, &n1, &s2, &n2)
                    datatype = self.cached(C_DTPREFIX, s1, n1, s2, n2, at)
                finally:
                    self.scratch_end(saved)
            else:
                self.strings(s.p, s.end, &s1, &n1, &s2, &n2)
                datatype = self.cached(C_DTPREFIX, s1, n1, s2, n2, at)
        elif 2 <= s.field <= 5:
            if s.count > 1:
                self.validate_run(&s, PM_LITERAL, s.p)
            if s.field == 2 or s.field == 5:    # langdir: tag and direction, "en--ltr"
                lang = self.cached(C_LANG, s.p, s.end - s.p, NULL, 0, at)
                if s.field == 5:
                    why = bad_direction(lang)
                    if why is not None:
                        self.fail(at, why)
            else:
                datatype = self.cached(C_DATATYPE, s.p, s.end - s.p, NULL, 0, at)
        # no member, or simple: a simple literal (Jena refuses no member; proto3 allows it)
        return self.literal(self.string(lex, lex + nlex), lang, datatype, at)

    cdef int spo(self, const unsigned char* p, const unsigned char* end, int n, int depth,
                 const unsigned char* at) except -1:
        """RDF_Triple (n=3) or RDF_Quad (n=4) into r_s, r_p, r_o, r_g (None when absent)."""
        cdef Slot slots[4]
        cdef uint64_t tag, v
        cdef const unsigned char* q
        cdef const unsigned char* tagpos
        cdef int k, f
        cdef int mtype = PM_QUAD if n == 4 else PM_TRIPLE
        cdef object s, pr, o, g = None
        for k in range(4):
            slots[k].field = 0
        while p < end:
            tagpos = p
            q = self.tag(p, end, &tag)
            f = <int>(tag >> 3) if (tag >> 3) <= 4 else 0
            if (tag & 7) == WT_LEN and 1 <= f <= n:
                p = self.length(q, end, &v)
                self.record(&slots[f - 1], f, mtype, tagpos, p, v)
                p = p + v
            else:
                p = self.skip(q, end, tag)
        for k in range(3):
            if slots[k].field == 0:
                self.fail(at, f"{'RDF_Quad' if n == 4 else 'RDF_Triple'} without its " +
                          ("subject", "predicate", "object")[k])
        s = self.position_term(&slots[0], mtype, depth, 0)
        pr = self.position_term(&slots[1], mtype, depth, 1)
        o = self.position_term(&slots[2], mtype, depth, 2)
        if n == 4 and slots[3].field != 0:
            g = self.position_term(&slots[3], mtype, depth, 3)
        self.r_s = s
        self.r_p = pr
        self.r_o = o
        self.r_g = g
        return 0

    cdef object position_term(self, Slot* s, int mtype, int depth, int k):
        """The term of a statement position: the previous row's term here if its bytes are the
        same (statements only, not triple terms; one occurrence only)."""
        cdef Py_ssize_t n = s.end - s.p
        cdef object t
        if depth or s.count != 1:
            return self.slot_term(s, mtype, depth)
        if self.mlen[k] == n and memcmp(s.p, self.mptr[k], n) == 0:
            return <object>PyList_GET_ITEM(self.mterm, k)
        t = self.slot_term(s, mtype, depth)
        self.mptr[k] = s.p
        self.mlen[k] = n
        self.mterm[k] = t
        return t

    cdef object slot_term(self, Slot* s, int mtype, int depth):
        """An RDF_Term field (merged from all its occurrences)."""
        cdef bytes merged
        cdef Py_ssize_t saved
        cdef const unsigned char* p
        if s.count > 1:
            merged = self.merged(s, mtype)
            saved = self.scratch_begin(s)
            try:
                p = <const unsigned char*>PyBytes_AS_STRING(merged)
                return self.term(p, p + PyBytes_GET_SIZE(merged), depth)
            finally:
                self.scratch_end(saved)
        return self.term(s.p, s.end, depth)

    # ------------------------------------------------------------------ rows

    cdef const unsigned char* next_row(self, const unsigned char* p,
                                       const unsigned char* end) except NULL:
        cdef uint64_t n
        cdef const unsigned char* q = read_varint(p, end, &n)
        if q == NULL:
            if end - p >= 10:
                self.malformed(p, "row length longer than 10 bytes")
            self.short(p)
        if n > <uint64_t>self.max_row:
            self.fail(p, f"row of {n} bytes exceeds the limit of {self.max_row} bytes "
                         f"(ReaderLimits.max_frame_size)", JellyLimitError)
        if n > <uint64_t>(end - q):
            self.short(end)
        if self.mode == MODE_RESULTS:
            self.result_row(q, q + n)
        else:
            self.row(q, q + n)
        return q + n

    cdef int row(self, const unsigned char* p, const unsigned char* end) except -1:
        cdef Slot s
        cdef uint64_t tag, v
        cdef const unsigned char* q
        cdef const unsigned char* tagpos
        cdef const unsigned char* start = p
        cdef const unsigned char* s1
        cdef const unsigned char* s2
        cdef Py_ssize_t n1, n2, saved
        cdef int f
        cdef bytes merged
        cdef tuple st
        s.field = 0
        while p < end:
            tagpos = p
            q = self.tag(p, end, &tag)
            f = <int>(tag >> 3) if (tag >> 3) <= 4 else 0
            if (tag & 7) == WT_LEN and f >= 1:
                p = self.length(q, end, &v)
                self.record(&s, f, PM_ROW, tagpos, p, v)
                p = p + v
            else:
                p = self.skip(q, end, tag)
        if s.field == 0:
            self.fail(start, "RDF_StreamRow without a member")
        if s.count > 1:
            merged = self.merged(&s, PM_ROW)
            saved = self.scratch_begin(&s)
            try:
                p = <const unsigned char*>PyBytes_AS_STRING(merged)
                self.row_member(s.field, p, p + PyBytes_GET_SIZE(merged), start)
            finally:
                self.scratch_end(saved)
        else:
            self.row_member(s.field, s.p, s.end, start)
        return 0

    cdef int row_member(self, int f, const unsigned char* p, const unsigned char* end,
                        const unsigned char* at) except -1:
        cdef const unsigned char* s1
        cdef const unsigned char* s2
        cdef Py_ssize_t n1, n2
        cdef tuple st
        if f == 1 or f == 4:
            self.strings(p, end, &s1, &n1, &s2 if f == 1 else NULL, &n2)
            if f == 1:
                self.prefix_decl(self.string(s1, s1 + n1), self.string(s2, s2 + n2))
            else:
                self.base_iri = self.string(s1, s1 + n1)
                self.counts[R_BASE] += 1
        elif f == 2:
            self.spo(p, end, 3, 0, at)
            self.statement(self.r_s, self.r_p, self.r_o, None, False, at)
        else:
            self.spo(p, end, 4, 0, at)
            self.statement(self.r_s, self.r_p, self.r_o, self.r_g, True, at)
        return 0

    cdef int result_row(self, const unsigned char* p, const unsigned char* end) except -1:
        """RDF_VarTuple (repeated RDF_Var vars = 1) first, then RDF_DataTuple (repeated
        RDF_Term row = 1)."""
        cdef uint64_t tag, v
        cdef const unsigned char* q
        cdef const unsigned char* start = p
        cdef const unsigned char* s1
        cdef Py_ssize_t n1, n2
        cdef bint header = self.variables is None
        cdef list items = []
        while p < end:
            q = self.tag(p, end, &tag)
            if tag == 0x0A:
                p = self.length(q, end, &v)
                if header:
                    self.strings(p, p + v, &s1, &n1, NULL, &n2)
                    items.append(self.string(s1, s1 + n1))
                else:
                    items.append(self.term(p, p + v, 0))
                p = p + v
            else:
                p = self.skip(q, end, tag)
        if header:
            self.set_variables(items, start)
        else:
            self.data_row(items, start)
        return 0


# ---------------------------------------------------------------------------------- writing

@cython.final
cdef class ProtoEncoder(JenaEncoder):
    """Writes RDF Protobuf (delimited rows).  ``values=True`` writes numeric literals in
    canonical form as valInteger / valDecimal / valDouble; ``prefix_names=True`` writes IRIs in
    declared namespaces as prefixed names; ``repeat=True`` writes REPEAT for a term equal to
    the previous row's in the same position (Jena reads neither of the last two)."""

    cdef int term_body(self, JTerm* t, object term, int depth) except -1:
        cdef WriteBuffer* b = &self.buf
        cdef int k = t.kind
        cdef Py_ssize_t m, m2
        cdef uint64_t u
        cdef int i
        wb_ensure(b, 32)
        if k == T_IRI or k == T_BNODE:
            wb_byte(b, 0x0A if k == T_IRI else 0x12)
            m = wb_open(b)
            if t.n1:
                wb_string_field(b, 0x0A, t.s1, t.n1)
            wb_close(b, m)
        elif k == T_LITERAL:
            wb_byte(b, 0x1A)
            m = wb_open(b)
            if t.n1:
                wb_string_field(b, 0x0A, t.s1, t.n1)
            if t.lang:      # langtag (2), or langdir (5): tag and direction, "en--ltr"
                wb_string_field(b, 0x2A if t.langdir else 0x12, t.s2, t.n2)
            elif t.s3 != NULL:
                wb_ensure(b, 2)
                wb_byte(b, 0x22)
                m2 = wb_open(b)
                if t.n3:
                    wb_string_field(b, 0x0A, t.s3, t.n3)
                if t.n2:
                    wb_string_field(b, 0x12, t.s2, t.n2)
                wb_close(b, m2)
            elif t.s2 != NULL:
                wb_string_field(b, 0x1A, t.s2, t.n2)
            else:
                wb_ensure(b, 2)
                wb_byte(b, 0x48)                # simple = true: Jena needs the oneof set
                wb_byte(b, 0x01)
            wb_close(b, m)
        elif k == T_PREFIXNAME:
            wb_byte(b, 0x22)
            m = wb_open(b)
            if t.n1:
                wb_string_field(b, 0x0A, t.s1, t.n1)
            if t.n2:
                wb_string_field(b, 0x12, t.s2, t.n2)
            wb_close(b, m)
        elif k == T_UNDEFINED or k == T_REPEAT:
            wb_byte(b, 0x42 if k == T_UNDEFINED else 0x4A)
            wb_byte(b, 0)
        elif k == T_TRIPLE:
            wb_byte(b, 0x32)
            m = wb_open(b)
            self.nested(0x0A, term.s, depth + 1)
            self.nested(0x12, term.p, depth + 1)
            self.nested(0x1A, term.o, depth + 1)
            wb_close(b, m)
        elif k == T_INTEGER:
            wb_byte(b, 0xA0)
            wb_byte(b, 0x01)
            wb_varint(b, zigzag(t.ivalue))
        elif k == T_DOUBLE:
            wb_byte(b, 0xA9)
            wb_byte(b, 0x01)
            memcpy(&u, &t.dvalue, 8)
            for i in range(8):
                wb_byte(b, <unsigned char>(u >> (8 * i)))
        elif k == T_DECIMAL:
            wb_byte(b, 0xB2)
            wb_byte(b, 0x01)
            m = wb_open(b)
            if t.ivalue:
                wb_byte(b, 0x08)
                wb_varint(b, zigzag(t.ivalue))
            if t.scale:
                wb_byte(b, 0x10)
                wb_varint(b, <uint32_t>((<int32_t>t.scale << 1) ^ (<int32_t>t.scale >> 31)))
            wb_close(b, m)
        return 0

    cdef inline int nested(self, unsigned char tag, object term, int depth) except -1:
        # An RDF_Term field: tag, length, the term.
        cdef Py_ssize_t m
        wb_ensure(&self.buf, 2)
        wb_byte(&self.buf, tag)
        m = wb_open(&self.buf)
        self.write_term(term, None, depth)
        wb_close(&self.buf, m)
        return 0

    cdef inline int term_field(self, unsigned char tag, object term, object last) except -1:
        cdef Py_ssize_t m
        wb_ensure(&self.buf, 2)
        wb_byte(&self.buf, tag)
        m = wb_open(&self.buf)
        self.write_term(term, last, 0)
        wb_close(&self.buf, m)
        return 0

    cdef int triple_row(self, object s, object p, object o) except -1:
        cdef Py_ssize_t row, msg
        wb_ensure(&self.buf, 4)
        row = wb_open(&self.buf)
        wb_byte(&self.buf, 0x12)
        msg = wb_open(&self.buf)
        self.term_field(0x0A, s, self.last_s)
        self.term_field(0x12, p, self.last_p)
        self.term_field(0x1A, o, self.last_o)
        wb_close(&self.buf, msg)
        wb_close(&self.buf, row)
        self.last_s, self.last_p, self.last_o = s, p, o
        return 0

    cdef int quad_row(self, object s, object p, object o, object g) except -1:
        cdef Py_ssize_t row, msg
        wb_ensure(&self.buf, 4)
        row = wb_open(&self.buf)
        wb_byte(&self.buf, 0x1A)
        msg = wb_open(&self.buf)
        self.term_field(0x0A, s, self.last_s)
        self.term_field(0x12, p, self.last_p)
        self.term_field(0x1A, o, self.last_o)
        self.term_field(0x22, g, self.last_g)
        wb_close(&self.buf, msg)
        wb_close(&self.buf, row)
        self.last_s, self.last_p, self.last_o, self.last_g = s, p, o, g
        return 0

    cdef int prefix_row(self, str prefix, str iri) except -1:
        cdef const char* s1
        cdef const char* s2
        cdef Py_ssize_t n1, n2, row, msg
        utf8_of(prefix, &s1, &n1)
        utf8_of(iri, &s2, &n2)
        wb_ensure(&self.buf, 4)
        row = wb_open(&self.buf)
        wb_byte(&self.buf, 0x0A)
        msg = wb_open(&self.buf)
        if n1:
            wb_string_field(&self.buf, 0x0A, s1, n1)
        if n2:
            wb_string_field(&self.buf, 0x12, s2, n2)
        wb_close(&self.buf, msg)
        wb_close(&self.buf, row)
        return 0

    cdef int base_row(self, str iri) except -1:
        cdef const char* s
        cdef Py_ssize_t n, row, msg
        utf8_of(iri, &s, &n)
        wb_ensure(&self.buf, 4)
        row = wb_open(&self.buf)
        wb_byte(&self.buf, 0x22)
        msg = wb_open(&self.buf)
        if n:
            wb_string_field(&self.buf, 0x0A, s, n)
        wb_close(&self.buf, msg)
        wb_close(&self.buf, row)
        return 0

    cdef int vars_row(self, list names) except -1:
        cdef const char* s
        cdef Py_ssize_t n, row, msg
        wb_ensure(&self.buf, 2)
        row = wb_open(&self.buf)
        for name in names:
            utf8_of(<str>name, &s, &n)
            wb_ensure(&self.buf, 2)
            wb_byte(&self.buf, 0x0A)
            msg = wb_open(&self.buf)
            if n:
                wb_string_field(&self.buf, 0x0A, s, n)
            wb_close(&self.buf, msg)
        wb_close(&self.buf, row)
        return 0

    cdef int data_row(self, list values) except -1:
        cdef Py_ssize_t i, n = len(values), row
        cdef list last = self.last_row
        wb_ensure(&self.buf, 2)
        row = wb_open(&self.buf)
        for i in range(n):
            self.term_field(0x0A, values[i], last[i] if last is not None else None)
        wb_close(&self.buf, row)
        self.last_row = values
        return 0
