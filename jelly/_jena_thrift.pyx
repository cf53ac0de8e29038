# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""RDF Thrift: Jena's RDF Binary in the Thrift compact protocol.

A stream is a plain sequence of ``RDF_StreamRow`` structs (a result set: one ``RDF_VarTuple``,
then ``RDF_DataTuple`` structs) with no framing: the end of the input ends it.  The compact
protocol: a field header byte holds the field id delta (high nibble; 0: a zigzag i16 id follows)
and the type (low nibble); i16/i32/i64 are zigzag varints (the varint code of ``_wire``);
doubles are 8 bytes little-endian; strings are a varint length and UTF-8; a list header holds the
size (high nibble; 15: a varint follows) and the element type.  Fields may come in any order,
unknown fields are skipped by type (nesting bounded), and a field of a known id but another type
is skipped (as Thrift's generated code does); required fields must be present; a union holds
exactly one member.  Everything else is the shared term model of ``_jena``.
"""

cimport cython
from libc.stdint cimport uint64_t, int64_t, int32_t
from libc.string cimport memcpy, memcmp
from cpython.list cimport PyList_GET_ITEM

from ._wire cimport read_varint, zigzag, unzigzag
from ._buffer cimport wb_ensure, wb_byte, wb_varint, WriteBuffer, utf8_of
from ._jena cimport (JenaDecoder, JenaEncoder, JTerm, MODE_RESULTS, T_IRI, T_BNODE, T_LITERAL,
                     T_PREFIXNAME, T_VARIABLE, T_ANY, T_UNDEFINED, T_REPEAT, T_TRIPLE,
                     T_INTEGER, T_DOUBLE, T_DECIMAL, C_DATATYPE, C_DTPREFIX, C_LANG,
                     bad_direction)

from ._jena import REPEAT, UNDEF
from .errors import JellyEncodeError, JellyLimitError

# Compact protocol types.
cdef enum:
    CT_STOP = 0
    CT_TRUE = 1
    CT_FALSE = 2
    CT_BYTE = 3
    CT_I16 = 4
    CT_I32 = 5
    CT_I64 = 6
    CT_DOUBLE = 7
    CT_BINARY = 8
    CT_LIST = 9
    CT_SET = 10
    CT_MAP = 11
    CT_STRUCT = 12
    CT_UUID = 13

# The compact type of each RDF_Term member (index: field id).
cdef int TERM_TYPE[13]
TERM_TYPE[:] = [0, CT_STRUCT, CT_STRUCT, CT_STRUCT, CT_STRUCT, CT_STRUCT, CT_STRUCT, CT_STRUCT,
                CT_STRUCT, CT_STRUCT, CT_I64, CT_DOUBLE, CT_STRUCT]


cdef inline double _le_double(const unsigned char* p) noexcept:
    cdef uint64_t u = 0
    cdef int i
    cdef double d
    for i in range(8):
        u |= (<uint64_t>p[i]) << (8 * i)
    memcpy(&d, &u, 8)
    return d


cdef inline Py_ssize_t _dir_at(const char* s, Py_ssize_t n) noexcept:
    """Where the "--" of a language tag with a base direction ("en--ltr") starts (subtags are
    separated by single hyphens, so it is the last double one)."""
    cdef Py_ssize_t i = n - 2
    while i > 0 and not (s[i] == 45 and s[i + 1] == 45):
        i -= 1
    return i


@cython.final
cdef class ThriftDecoder(JenaDecoder):
    """Reads RDF Thrift: RDF statements (``mode="rdf"``) or a result set (``"results"``).
    See :class:`jelly._jena.JenaDecoder` for feeding it."""

    cdef object r_s, r_p, r_o, r_g      # what spo() read (no tuple per row)

    # ------------------------------------------------------------------ the cursor

    cdef inline const unsigned char* uvarint(self, const unsigned char* p,
                                             const unsigned char* end, uint64_t* v) except NULL:
        cdef const unsigned char* q = read_varint(p, end, v)
        if q == NULL:
            if end - p >= 10:
                self.fail(p, "malformed Thrift: varint longer than 10 bytes")
            self.short(p)
        return q

    cdef inline const unsigned char* field(self, const unsigned char* p, const unsigned char* end,
                                           int* fid, int* ftype) except NULL:
        """A field header; ``fid`` holds the struct's previous field id on entry."""
        cdef unsigned char b
        cdef uint64_t v
        cdef int64_t i
        if p >= end:
            self.short(p)
        b = p[0]
        if b == 0:
            ftype[0] = CT_STOP
            return p + 1
        ftype[0] = b & 0x0F
        if ftype[0] == CT_STOP:
            self.fail(p, "malformed Thrift: field header of type 0")
        if b >> 4:
            fid[0] += b >> 4
            return p + 1
        p = self.uvarint(p + 1, end, &v)
        i = unzigzag(v)
        if i < -32768 or i > 32767:
            self.fail(p, "malformed Thrift: field id out of the i16 range")
        fid[0] = <int>i
        return p

    cdef inline const unsigned char* binary(self, const unsigned char* p,
                                            const unsigned char* end,
                                            const unsigned char** s, Py_ssize_t* n) except NULL:
        cdef uint64_t v
        cdef const unsigned char* q = self.uvarint(p, end, &v)
        if v > 0x7FFFFFFF:
            self.fail(p, "malformed Thrift: negative string length")
        if <Py_ssize_t>v > self.max_row:
            self.fail(p, f"string of {v} bytes exceeds the row limit of {self.max_row} bytes "
                         f"(ReaderLimits.max_frame_size)", JellyLimitError)
        if <Py_ssize_t>v > end - q:
            self.short(q)
        s[0] = q
        n[0] = <Py_ssize_t>v
        return q + v

    cdef inline const unsigned char* list_header(self, const unsigned char* p,
                                                 const unsigned char* end, int* etype,
                                                 uint64_t* size) except NULL:
        if p >= end:
            self.short(p)
        etype[0] = p[0] & 0x0F
        size[0] = p[0] >> 4
        if size[0] == 15:
            return self.uvarint(p + 1, end, size)
        return p + 1

    cdef const unsigned char* tskip(self, const unsigned char* p, const unsigned char* end,
                                    int t, int depth, bint element) except NULL:
        """Skip a value of compact type ``t`` (``element``: inside a list, set or map, where a
        bool is a byte)."""
        cdef uint64_t v, size, i
        cdef const unsigned char* s
        cdef Py_ssize_t n
        cdef int et, kt, vt, fid = 0, ft
        if depth > self.max_nesting:
            self.fail(p, "Thrift values nested too deeply", JellyLimitError)
        if t == CT_TRUE or t == CT_FALSE:
            if not element:
                return p
            if p >= end:
                self.short(p)
            return p + 1
        if t == CT_BYTE:
            if p >= end:
                self.short(p)
            return p + 1
        if t == CT_I16 or t == CT_I32 or t == CT_I64:
            return self.uvarint(p, end, &v)
        if t == CT_DOUBLE or t == CT_UUID:
            n = 8 if t == CT_DOUBLE else 16
            if end - p < n:
                self.short(end)
            return p + n
        if t == CT_BINARY:
            return self.binary(p, end, &s, &n)
        if t == CT_LIST or t == CT_SET:
            p = self.list_header(p, end, &et, &size)
            for i in range(size):
                p = self.tskip(p, end, et, depth + 1, True)
            return p
        if t == CT_MAP:
            p = self.uvarint(p, end, &size)
            if size == 0:
                return p
            if p >= end:
                self.short(p)
            kt = p[0] >> 4
            vt = p[0] & 0x0F
            p += 1
            for i in range(size):
                p = self.tskip(p, end, kt, depth + 1, True)
                p = self.tskip(p, end, vt, depth + 1, True)
            return p
        if t == CT_STRUCT:
            while True:
                p = self.field(p, end, &fid, &ft)
                if ft == CT_STOP:
                    return p
                p = self.tskip(p, end, ft, depth + 1, False)
        self.fail(p, f"malformed Thrift: unknown compact type {t}")

    cdef const unsigned char* strings(self, const unsigned char* p, const unsigned char* end,
                                      const unsigned char** s1, Py_ssize_t* n1,
                                      const unsigned char** s2, Py_ssize_t* n2,
                                      int* found) except NULL:
        """A struct whose fields 1 and 2 are strings (``found``: bit 1 and 2 for each)."""
        cdef int fid = 0, ft
        found[0] = 0
        while True:
            p = self.field(p, end, &fid, &ft)
            if ft == CT_STOP:
                return p
            if ft == CT_BINARY and fid == 1:
                p = self.binary(p, end, s1, n1)
                found[0] |= 1
            elif ft == CT_BINARY and fid == 2 and s2 != NULL:
                p = self.binary(p, end, s2, n2)
                found[0] |= 2
            else:
                p = self.tskip(p, end, ft, 1, False)

    # ------------------------------------------------------------------ terms

    cdef object term(self, const unsigned char** pp, const unsigned char* end, int depth):
        """An RDF_Term struct at ``pp[0]``; moves ``pp[0]`` past it."""
        cdef const unsigned char* p = pp[0]
        cdef const unsigned char* start = p
        cdef int fid = 0, ft, kind = 0
        cdef object result = None
        while True:
            p = self.field(p, end, &fid, &ft)
            if ft == CT_STOP:
                break
            if 1 <= fid <= 12 and ft == TERM_TYPE[fid]:
                if kind:
                    self.fail(start, "RDF_Term union with more than one member")
                kind = fid
                result = self.member(kind, &p, end, depth)
            else:
                p = self.tskip(p, end, ft, 1, False)
        if kind == 0:
            self.fail(start, "RDF_Term without a (known) member")
        pp[0] = p
        return result

    cdef object member(self, int kind, const unsigned char** pp, const unsigned char* end,
                       int depth):
        cdef const unsigned char* p = pp[0]
        cdef const unsigned char* start = p
        cdef const unsigned char* s1 = NULL
        cdef const unsigned char* s2 = NULL
        cdef Py_ssize_t n1 = 0, n2 = 0
        cdef int found = 0, fid = 0, ft
        cdef uint64_t v
        cdef int64_t value = 0, scale = 0
        cdef object result, s, pr, o
        if kind == T_IRI or kind == T_BNODE or kind == T_PREFIXNAME or kind == T_VARIABLE:
            p = self.strings(p, end, &s1, &n1,
                             &s2 if kind == T_PREFIXNAME else NULL, &n2, &found)
            if kind == T_PREFIXNAME:
                if found != 3:
                    self.fail(start, "RDF_PrefixName without its prefix or localName")
                result = self.cached(T_PREFIXNAME, s1, n1, s2, n2, start)
            elif not found:
                self.fail(start, f"RDF_Term {'iri' if kind == T_IRI else 'bnode' if kind == T_BNODE else 'variable'} "
                                 f"without its string")
            elif kind == T_VARIABLE:
                self.not_rdf(kind, self.string(s1, s1 + n1), start)
            else:
                result = self.cached(kind, s1, n1, NULL, 0, start)
        elif kind == T_LITERAL:
            result = self.literal_struct(&p, end)
        elif kind == T_TRIPLE:
            if depth >= self.max_depth:
                self.fail(start, f"RDF-star triple terms nested deeper than {self.max_depth}",
                          JellyLimitError)
            self.spo(&p, end, depth + 1, False)
            result = self.triple_term(self.r_s, self.r_p, self.r_o, start)
        elif kind == T_INTEGER:
            p = self.uvarint(p, end, &v)
            result = self.value_integer(unzigzag(v))
        elif kind == T_DOUBLE:
            if end - p < 8:
                self.short(end)
            result = self.value_double(_le_double(p))
            p += 8
        elif kind == T_DECIMAL:
            while True:
                p = self.field(p, end, &fid, &ft)
                if ft == CT_STOP:
                    break
                if fid == 1 and ft == CT_I64:
                    p = self.uvarint(p, end, &v)
                    value = unzigzag(v)
                    found |= 1
                elif fid == 2 and ft == CT_I32:
                    p = self.uvarint(p, end, &v)
                    if v > 0xFFFFFFFF:
                        self.fail(p, "malformed Thrift: i32 varint out of range")
                    scale = unzigzag(v)
                    found |= 2
                else:
                    p = self.tskip(p, end, ft, 1, False)
            if found != 3:
                self.fail(start, "RDF_Decimal without its value or scale")
            result = self.value_decimal(value, scale, start)
        else:
            p = self.tskip(p, end, CT_STRUCT, 1, False)     # RDF_ANY, RDF_UNDEF, RDF_REPEAT
            if kind == T_UNDEFINED:
                result = UNDEF
            elif kind == T_REPEAT:
                result = REPEAT
            else:
                self.not_rdf(kind, None, start)
        pp[0] = p
        return result

    cdef object literal_struct(self, const unsigned char** pp, const unsigned char* end):
        cdef const unsigned char* p = pp[0]
        cdef const unsigned char* start = p
        cdef const unsigned char* lex = NULL
        cdef const unsigned char* lang = NULL
        cdef const unsigned char* bdir = NULL
        cdef Py_ssize_t nbdir = 0
        cdef const unsigned char* dt = NULL
        cdef const unsigned char* pre = NULL
        cdef const unsigned char* loc = NULL
        cdef Py_ssize_t nlex = 0, nlang = 0, ndt = 0, npre = 0, nloc = 0
        cdef int fid = 0, ft, found
        cdef bint dtprefix = False
        cdef object datatype = None
        while True:
            p = self.field(p, end, &fid, &ft)
            if ft == CT_STOP:
                break
            if ft == CT_BINARY and 1 <= fid <= 3:
                if fid == 1:
                    p = self.binary(p, end, &lex, &nlex)
                elif fid == 2:
                    p = self.binary(p, end, &lang, &nlang)
                else:
                    p = self.binary(p, end, &dt, &ndt)
            elif ft == CT_STRUCT and fid == 4:
                p = self.strings(p, end, &pre, &npre, &loc, &nloc, &found)
                if found != 3:
                    self.fail(start, "RDF_PrefixName without its prefix or localName")
                dtprefix = True
            elif ft == CT_BINARY and fid == 5:  # baseDirection (RDF 1.2), beside langtag
                p = self.binary(p, end, &bdir, &nbdir)
            else:
                p = self.tskip(p, end, ft, 1, False)
        if lex == NULL:
            self.fail(start, "RDF_Literal without its lexical form")
        pp[0] = p
        # As Jena: a datatype IRI takes precedence over a datatype prefixed name.
        if dt != NULL:
            datatype = self.cached(C_DATATYPE, dt, ndt, NULL, 0, start)
        elif dtprefix:
            datatype = self.cached(C_DTPREFIX, pre, npre, loc, nloc, start)
        language = self.cached(C_LANG, lang, nlang, NULL, 0, start) if lang != NULL else None
        if bdir != NULL:            # jelly's terms hold the direction as N-Triples does
            if language is None:
                self.fail(start, "RDF_Literal with a baseDirection and no langtag")
            language = f"{language}--{self.string(bdir, bdir + nbdir)}"
            why = bad_direction(language)
            if why is not None:
                self.fail(start, why)
        return self.literal(self.string(lex, lex + nlex), language, datatype, start)

    cdef int spo(self, const unsigned char** pp, const unsigned char* end, int depth,
                 bint quad) except -1:
        """An RDF_Triple or RDF_Quad struct into r_s, r_p, r_o, r_g (None when absent)."""
        cdef const unsigned char* p = pp[0]
        cdef const unsigned char* start = p
        cdef int fid = 0, ft
        cdef int maxf = 4 if quad else 3
        cdef int k
        cdef Py_ssize_t n
        cdef const unsigned char* q
        cdef object s = None, pr = None, o = None, g = None
        while True:
            p = self.field(p, end, &fid, &ft)
            if ft == CT_STOP:
                break
            if ft == CT_STRUCT and 1 <= fid <= maxf:
                k = fid - 1
                n = self.mlen[k]
                if depth == 0 and n >= 0 and end - p >= n and memcmp(p, self.mptr[k], n) == 0:
                    # the same bytes as the previous row's term here: the same term
                    t = <object>PyList_GET_ITEM(self.mterm, k)
                    p += n
                else:
                    q = p
                    t = self.term(&p, end, depth)
                    if depth == 0:
                        self.mptr[k] = q
                        self.mlen[k] = p - q
                        self.mterm[k] = t
                if fid == 1:
                    s = t
                elif fid == 2:
                    pr = t
                elif fid == 3:
                    o = t
                else:
                    g = t
            else:
                p = self.tskip(p, end, ft, 1, False)
        if s is None or pr is None or o is None:
            self.fail(start, f"{'RDF_Quad' if quad else 'RDF_Triple'} without its " +
                      ("subject" if s is None else "predicate" if pr is None else "object"))
        pp[0] = p
        self.r_s = s
        self.r_p = pr
        self.r_o = o
        self.r_g = g
        return 0

    # ------------------------------------------------------------------ rows

    cdef const unsigned char* next_row(self, const unsigned char* p,
                                       const unsigned char* end) except NULL:
        cdef const unsigned char* start = p
        cdef const unsigned char* s1 = NULL
        cdef const unsigned char* s2 = NULL
        cdef Py_ssize_t n1 = 0, n2 = 0
        cdef int fid = 0, ft, kind = 0, found
        if self.mode == MODE_RESULTS:
            return self.result_row(p, end)
        while True:
            p = self.field(p, end, &fid, &ft)
            if ft == CT_STOP:
                break
            if ft == CT_STRUCT and 1 <= fid <= 3:
                if kind:
                    self.fail(start, "RDF_StreamRow union with more than one member")
                kind = fid
                if fid == 1:
                    p = self.strings(p, end, &s1, &n1, &s2, &n2, &found)
                    if found != 3:
                        self.fail(start, "RDF_PrefixDecl without its prefix or uri")
                else:
                    self.spo(&p, end, 0, fid == 3)
            else:
                p = self.tskip(p, end, ft, 1, False)
                if kind == 0:
                    kind = -1          # a member this reader does not know: skipped
        if kind == 0:
            self.fail(start, "RDF_StreamRow without a member")
        self.whole_row(start, p)
        # The row is complete: only now does it change the stream's state.
        if kind == 1:
            self.prefix_decl(self.string(s1, s1 + n1), self.string(s2, s2 + n2))
        elif kind == 2:
            self.statement(self.r_s, self.r_p, self.r_o, None, False, start)
        elif kind == 3:
            self.statement(self.r_s, self.r_p, self.r_o, self.r_g, True, start)
        return p

    cdef const unsigned char* result_row(self, const unsigned char* p,
                                         const unsigned char* end) except NULL:
        """The header (RDF_VarTuple: a list of RDF_VAR) or a row (RDF_DataTuple: a list of
        RDF_Term): both are a struct with the list as field 1."""
        cdef const unsigned char* start = p
        cdef const unsigned char* s1 = NULL
        cdef Py_ssize_t n1 = 0
        cdef int fid = 0, ft, et, found
        cdef uint64_t size, i
        cdef bint header = self.variables is None
        cdef list items = []
        while True:
            p = self.field(p, end, &fid, &ft)
            if ft == CT_STOP:
                break
            if fid == 1 and ft == CT_LIST:
                p = self.list_header(p, end, &et, &size)
                if et != CT_STRUCT and size:
                    self.fail(start, "malformed result set: a list of non-structs")
                items = []
                for i in range(size):
                    if header:
                        p = self.strings(p, end, &s1, &n1, NULL, NULL, &found)
                        if not found:
                            self.fail(start, "RDF_VAR without its name")
                        items.append(self.string(s1, s1 + n1))
                    else:
                        items.append(self.term(&p, end, 0))
            else:
                p = self.tskip(p, end, ft, 1, False)
        self.whole_row(start, p)
        if header:
            self.set_variables(items, start)
        else:
            self.data_row(items, start)
        return p


# ---------------------------------------------------------------------------------- writing

cdef inline void _bin(WriteBuffer* b, const char* s, Py_ssize_t n) noexcept:
    # Callers ensure room for n + 10 bytes.
    wb_varint(b, <uint64_t>n)
    memcpy(b.data + b.len, s, n)
    b.len += n


cdef inline void _list_header(WriteBuffer* b, Py_ssize_t n) noexcept:
    if n < 15:
        wb_byte(b, <unsigned char>((n << 4) | CT_STRUCT))
    else:
        wb_byte(b, 0xF0 | CT_STRUCT)
        wb_varint(b, <uint64_t>n)


@cython.final
cdef class ThriftEncoder(JenaEncoder):
    """Writes RDF Thrift.  ``values=True`` writes numeric literals in canonical form as
    valInteger / valDecimal / valDouble; ``prefix_names=True`` writes IRIs in declared
    namespaces as prefixed names (as Jena does); ``repeat=True`` writes REPEAT for a term equal
    to the previous row's in the same position (Jena cannot read REPEAT)."""

    cdef int term_body(self, JTerm* t, object term, int depth) except -1:
        cdef WriteBuffer* b = &self.buf
        cdef int k = t.kind
        cdef uint64_t u
        cdef int i
        cdef Py_ssize_t d
        wb_ensure(b, 48 + t.n1 + t.n2 + t.n3)
        if k == T_IRI or k == T_BNODE:
            wb_byte(b, <unsigned char>((k << 4) | CT_STRUCT))
            wb_byte(b, 0x18)
            _bin(b, t.s1, t.n1)
            wb_byte(b, 0)
        elif k == T_LITERAL:
            wb_byte(b, 0x3C)
            wb_byte(b, 0x18)
            _bin(b, t.s1, t.n1)
            if t.langdir:
                # "en--ltr": the tag in langtag (field 2), the direction in baseDirection (5)
                d = _dir_at(t.s2, t.n2)
                wb_byte(b, 0x18)                # field 2 (delta 1)
                _bin(b, t.s2, d)
                wb_byte(b, 0x38)                # field 5 (delta 3)
                _bin(b, t.s2 + d + 2, t.n2 - d - 2)
            elif t.lang:
                wb_byte(b, 0x18)                # field 2 (delta 1)
                _bin(b, t.s2, t.n2)
            elif t.s3 != NULL:
                wb_byte(b, 0x3C)                # field 4 (delta 3): dtPrefix
                wb_byte(b, 0x18)
                _bin(b, t.s3, t.n3)
                wb_byte(b, 0x18)
                _bin(b, t.s2, t.n2)
                wb_byte(b, 0)
            elif t.s2 != NULL:
                wb_byte(b, 0x28)                # field 3 (delta 2): datatype
                _bin(b, t.s2, t.n2)
            wb_byte(b, 0)
        elif k == T_PREFIXNAME:
            wb_byte(b, 0x4C)
            wb_byte(b, 0x18)
            _bin(b, t.s1, t.n1)
            wb_byte(b, 0x18)
            _bin(b, t.s2, t.n2)
            wb_byte(b, 0)
        elif k == T_UNDEFINED or k == T_REPEAT:
            wb_byte(b, <unsigned char>((k << 4) | CT_STRUCT))
            wb_byte(b, 0)
        elif k == T_TRIPLE:
            wb_byte(b, 0x9C)
            wb_byte(b, 0x1C)
            self.write_term(term.s, None, depth + 1)
            wb_ensure(b, 1)
            wb_byte(b, 0x1C)
            self.write_term(term.p, None, depth + 1)
            wb_ensure(b, 1)
            wb_byte(b, 0x1C)
            self.write_term(term.o, None, depth + 1)
            wb_ensure(b, 2)
            wb_byte(b, 0)
        elif k == T_INTEGER:
            wb_byte(b, 0xA6)
            wb_varint(b, zigzag(t.ivalue))
        elif k == T_DOUBLE:
            wb_byte(b, 0xB7)
            memcpy(&u, &t.dvalue, 8)
            for i in range(8):
                wb_byte(b, <unsigned char>(u >> (8 * i)))
        elif k == T_DECIMAL:
            wb_byte(b, 0xCC)
            wb_byte(b, 0x16)
            wb_varint(b, zigzag(t.ivalue))
            wb_byte(b, 0x15)
            wb_varint(b, zigzag(t.scale))
            wb_byte(b, 0)
        wb_byte(b, 0)                           # end of the RDF_Term union
        return 0

    cdef int triple_row(self, object s, object p, object o) except -1:
        wb_ensure(&self.buf, 2)
        wb_byte(&self.buf, 0x2C)
        wb_byte(&self.buf, 0x1C)
        self.write_term(s, self.last_s, 0)
        wb_ensure(&self.buf, 1)
        wb_byte(&self.buf, 0x1C)
        self.write_term(p, self.last_p, 0)
        wb_ensure(&self.buf, 1)
        wb_byte(&self.buf, 0x1C)
        self.write_term(o, self.last_o, 0)
        wb_ensure(&self.buf, 2)
        wb_byte(&self.buf, 0)
        wb_byte(&self.buf, 0)
        self.last_s, self.last_p, self.last_o = s, p, o
        return 0

    cdef int quad_row(self, object s, object p, object o, object g) except -1:
        wb_ensure(&self.buf, 2)
        wb_byte(&self.buf, 0x3C)
        wb_byte(&self.buf, 0x1C)
        self.write_term(s, self.last_s, 0)
        wb_ensure(&self.buf, 1)
        wb_byte(&self.buf, 0x1C)
        self.write_term(p, self.last_p, 0)
        wb_ensure(&self.buf, 1)
        wb_byte(&self.buf, 0x1C)
        self.write_term(o, self.last_o, 0)
        wb_ensure(&self.buf, 1)
        wb_byte(&self.buf, 0x1C)
        self.write_term(g, self.last_g, 0)
        wb_ensure(&self.buf, 2)
        wb_byte(&self.buf, 0)
        wb_byte(&self.buf, 0)
        self.last_s, self.last_p, self.last_o, self.last_g = s, p, o, g
        return 0

    cdef int prefix_row(self, str prefix, str iri) except -1:
        cdef const char* s1
        cdef const char* s2
        cdef Py_ssize_t n1, n2
        utf8_of(prefix, &s1, &n1)
        utf8_of(iri, &s2, &n2)
        wb_ensure(&self.buf, 32 + n1 + n2)
        wb_byte(&self.buf, 0x1C)
        wb_byte(&self.buf, 0x18)
        _bin(&self.buf, s1, n1)
        wb_byte(&self.buf, 0x18)
        _bin(&self.buf, s2, n2)
        wb_byte(&self.buf, 0)
        wb_byte(&self.buf, 0)
        return 0

    cdef int base_row(self, str iri) except -1:
        raise JellyEncodeError("RDF Thrift has no base row (only RDF Protobuf does)")

    cdef int vars_row(self, list names) except -1:
        cdef const char* s
        cdef Py_ssize_t n
        wb_ensure(&self.buf, 12)
        wb_byte(&self.buf, 0x19)
        _list_header(&self.buf, len(names))
        for name in names:
            utf8_of(<str>name, &s, &n)
            wb_ensure(&self.buf, 16 + n)
            wb_byte(&self.buf, 0x18)
            _bin(&self.buf, s, n)
            wb_byte(&self.buf, 0)
        wb_ensure(&self.buf, 1)
        wb_byte(&self.buf, 0)
        return 0

    cdef int data_row(self, list values) except -1:
        cdef Py_ssize_t i, n = len(values)
        cdef list last = self.last_row
        wb_ensure(&self.buf, 12)
        wb_byte(&self.buf, 0x19)
        _list_header(&self.buf, n)
        for i in range(n):
            self.write_term(values[i], last[i] if last is not None else None, 0)
        wb_ensure(&self.buf, 1)
        wb_byte(&self.buf, 0)
        self.last_row = values
        return 0

