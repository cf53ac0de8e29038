# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The Jelly term encoding, decode side, shared by Jelly-RDF and Jelly-Patch, and the frame
loop both formats have (rows in field 1 of the frame message, each a oneof of messages whose
winner goes to the format's ``row_content``).

IRIs are resolved through the lookup tables (prefix id 0: the previous prefix; name id 0: the
previous name + 1) and cached per name slot; literals take their datatype from the datatype
table; quoted triples nest up to the reader's limit; a statement position left empty repeats
the term of the previous statement.  Terms are decoded in the order the spec fixes for the IRI
deltas: subject, predicate, object, graph, recursively into quoted triples.  Every term is built
by the decoder's TermFactory.
"""

cimport cython
from libc.stdint cimport uint32_t, uint64_t
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_SIMPLE
from libc.string cimport memcmp, memcpy
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.list cimport PyList_GET_ITEM

cdef extern from "Python.h":
    int PyGC_Enable()
    int PyGC_Disable()

from ._wire cimport read_varint, WT_LEN, K_NONE, K_IRI, K_BNODE, K_LITERAL, K_TRIPLE, K_DEFAULT
from ._buffer cimport WireReader, Slot, F_UNKNOWN, F_VARINT, F_STRING, F_MSG
from ._lookup cimport DecodeTables
from ._sink cimport TermFactory

from ._terms import XSD_STRING
from .errors import JellyLimitError
from .options import MIN_NAME_TABLE_SIZE


cdef object _UNSET = object()
# The last ids of a stream whose earlier rows are unknown (unknown_past): an id 0 counting on
# from it comes out as 0 and fails.  The last prefix id is 64 bits wide, so its "unknown" is
# no uint32 id (ids are uint32 on the wire; 0xFFFFFFFF is a valid one).
cdef uint32_t _UNKNOWN = 0xFFFFFFFF
cdef uint64_t _UNKNOWN_PREFIX = 1ULL << 32
cdef tuple _POSITION_NAMES = ("subject", "predicate", "object", "graph")
cdef tuple _ENTRY_NAMES = ("name", "prefix", "datatype")


cdef inline int _kind_schema(int kind, int* sub) noexcept:
    if kind == K_BNODE:
        return F_STRING
    sub[0] = (M_IRI if kind == K_IRI else M_LITERAL if kind == K_LITERAL
              else M_TRIPLE if kind == K_TRIPLE else M_EMPTY)
    return F_MSG


cdef class TermDecoder(WireReader):
    """Term decoding state of one stream: lookup tables, the IRI cache, repeated terms."""

    def __init__(self, *, limits, terms, bint strict=False):
        WireReader.__init__(self)
        self.cap_names = limits.max_name_table_size
        self.cap_prefixes = limits.max_prefix_table_size
        self.cap_datatypes = limits.max_datatype_table_size
        self.max_depth = limits.max_quoted_depth
        self.max_nesting = self.max_depth + 8
        self.strict = strict
        self.terms = terms
        self.default_graph = terms.default_graph
        self.tables = DecodeTables()
        self.lang_strs = [None] * LANG_SLOTS
        self.reset_terms()

    def __dealloc__(self):
        self.release()

    cdef int reset_terms(self) except -1:
        # None is a term for some factories (the N-Triples default graph), so "no previous
        # term" is _UNSET.
        self.last = [_UNSET, _UNSET, _UNSET, _UNSET]
        self.has_tables = False
        return 0

    cdef int unknown_past(self) except -1:
        """The input starts inside a stream (at a segment start) whose earlier rows are not
        known: an id 0 that would count on from them (the first entry of a table, the first
        IRI's name) or mean their last prefix fails to decode, as do repeated terms before a
        term of that position and lookup slots used before the input defines them.  What
        decodes is then what a reader of the whole stream reads there."""
        cdef DecodeTables t = self.tables
        t.last_name_entry = t.last_prefix_entry = t.last_datatype_entry = _UNKNOWN
        t.last_name_id = _UNKNOWN
        if t.n_prefixes:
            t.last_prefix_id = _UNKNOWN_PREFIX     # beyond every table: the sparse path says so
        return 0

    cdef int field_kind(self, int mtype, uint64_t field, int* sub) noexcept:
        # The schema of the rdf.proto messages both formats use.
        if mtype == M_IRI:
            return F_VARINT if field == 1 or field == 2 else F_UNKNOWN
        if mtype == M_LITERAL:
            if field == 1 or field == 2:
                return F_STRING
            return F_VARINT if field == 3 else F_UNKNOWN
        if mtype == M_TRIPLE or mtype == M_QUAD:
            if field < 1 or field > (16 if mtype == M_QUAD else 12):
                return F_UNKNOWN
            if field <= 12:
                return _kind_schema(spo_kind(<int>field), sub)
            return _kind_schema(graph_kind(<int>field), sub)
        if mtype == M_ENTRY:
            if field == 1:
                return F_VARINT
            return F_STRING if field == 2 else F_UNKNOWN
        return F_UNKNOWN

    # ------------------------------------------------------------------ frames

    cdef void release(self) noexcept:
        if self.has_view:
            PyBuffer_Release(&self.view)
            self.has_view = False

    cdef int begin_view(self, object data, Py_ssize_t offset) except -1:
        """Hold the buffer of a frame to decode (``offset``: its position in the stream)."""
        cdef int i
        if self.failed is not None:
            raise self.failed
        self.release()
        PyObject_GetBuffer(data, &self.view, PyBUF_SIMPLE)
        self.has_view = True
        self.base = <const unsigned char*>self.view.buf
        self.pos = self.base
        self.stop = self.base + self.view.len
        self.base_offset = offset
        self.row_index = 0
        for i in range(16):
            self.counts[i] = 0
        self.in_scratch = False
        return 0

    cdef int run(self, Py_ssize_t max_statements) except -1:
        """Decode rows of the current frame until it ends or the sink holds max_statements
        (-1: no limit)."""
        cdef const unsigned char* p = self.pos
        cdef const unsigned char* end = self.stop
        cdef const unsigned char* q
        cdef uint64_t tag, v
        cdef int gc_was_enabled
        # A frame creates many objects and no cycles: without this, every 700 statement tuples
        # would start a collection.  The collector is back on when the run is done.
        gc_was_enabled = PyGC_Disable()
        try:
            while p < end:
                q = self.tag(p, end, &tag)
                if tag == 0x0A:
                    p = self.length(q, end, &v)
                    self.row(p, p + v)
                    self.row_index += 1
                    p = p + v
                else:
                    p = self.frame_field(tag, q, end)
                if max_statements >= 0 and self.sink.pending >= max_statements:
                    break
        except Exception as exc:
            self.release()
            raise self.locate(exc)
        except BaseException:
            self.release()
            raise
        finally:
            self.pos = p
            if gc_was_enabled:
                PyGC_Enable()
        return 0

    cdef const unsigned char* frame_field(self, uint64_t tag, const unsigned char* q,
                                          const unsigned char* end) except NULL:
        return self.skip(q, end, tag)

    cdef int row(self, const unsigned char* p, const unsigned char* end) except -1:
        """One row: the winning member of its oneof goes to row_content (merged when it occurs
        more than once)."""
        cdef Slot row
        cdef uint64_t tag, v
        cdef const unsigned char* start = p
        cdef const unsigned char* tagpos
        cdef const unsigned char* q
        cdef int f
        cdef Py_ssize_t saved
        cdef bytes merged
        row.field = 0
        # Fast path: the row is one length-delimited member of the oneof filling the row.
        if p < end and (p[0] & 7) == WT_LEN and p[0] < 0x80:
            f = p[0] >> 3
            if (self.row_members >> f) & 1:
                q = read_varint(p + 1, end, &v)
                if q != NULL and v == <uint64_t>(end - q):
                    self.counts[f] += 1
                    return self.row_content(f, q, end)
        # The row is one oneof of message members: find the winner.
        while p < end:
            tagpos = p
            q = self.tag(p, end, &tag)
            f = <int>(tag >> 3) if (tag >> 3) < 16 else 0
            if (tag & 7) == WT_LEN and (self.row_members >> f) & 1:
                p = self.length(q, end, &v)
                self.record(&row, f, self.row_type, tagpos, p, v)
                p = p + v
            else:
                p = self.skip(q, end, tag)
        if row.field == 0:
            self.fail(start, "stream row without content")
        self.counts[row.field] += 1
        if row.count > 1:
            merged = self.merged(&row, self.row_type)
            saved = self.scratch_begin(&row)
            try:
                p = <const unsigned char*>PyBytes_AS_STRING(merged)
                self.row_content(row.field, p, p + PyBytes_GET_SIZE(merged))
            finally:
                self.scratch_end(saved)
        else:
            self.row_content(row.field, row.p, row.end)
        return 0

    cdef int row_content(self, int f, const unsigned char* p, const unsigned char* end) except -1:
        raise NotImplementedError

    # ------------------------------------------------------------------ tables

    cdef int setup_tables(self, uint32_t names, uint32_t prefixes, uint32_t datatypes,
                          const unsigned char* at) except -1:
        """Check the table sizes of the stream options against the spec and the limits."""
        if names < MIN_NAME_TABLE_SIZE:
            self.fail(at, f"max_name_table_size {names} is below the minimum of "
                          f"{MIN_NAME_TABLE_SIZE}")
        for size, cap, what in ((names, self.cap_names, "name"),
                                (prefixes, self.cap_prefixes, "prefix"),
                                (datatypes, self.cap_datatypes, "datatype")):
            if size > cap:
                self.fail(at, f"max_{what}_table_size {size} exceeds this reader's limit of "
                              f"{cap} (raise it with ReaderLimits)", JellyLimitError)
        self.tables.reset(names, prefixes, datatypes)
        self.has_tables = True
        return 0

    cdef int entry(self, int which, const unsigned char* p, const unsigned char* end) except -1:
        """A name, prefix or datatype lookup entry row."""
        cdef uint64_t tag, v, ident = 0
        cdef const unsigned char* start = p
        cdef const unsigned char* q
        cdef const unsigned char* vp = NULL
        cdef const unsigned char* ve = NULL
        cdef str value
        cdef uint32_t id32, size, last
        cdef DecodeTables t = self.tables
        while p < end:
            q = self.tag(p, end, &tag)
            if tag == 0x08:
                p = self.varint(q, end, &ident)
            elif tag == 0x12:
                p = self.length(q, end, &v)
                if vp != NULL:
                    self.string(vp, ve)  # an overridden string must still be valid UTF-8
                vp = p
                ve = p + v
                p = p + v
            else:
                p = self.skip(q, end, tag)
        value = self.string(vp, ve) if vp != NULL else ""
        id32 = <uint32_t>ident
        if which == ENTRY_NAME:
            size, last = t.n_names, t.last_name_entry
        elif which == ENTRY_PREFIX:
            size, last = t.n_prefixes, t.last_prefix_entry
        else:
            size, last = t.n_datatypes, t.last_datatype_entry
        if id32 == 0:
            id32 = last + 1
        if id32 == 0 or id32 > size:
            kind = _ENTRY_NAMES[which]
            if last == _UNKNOWN:
                self.fail(start, f"{kind} entry id 0 (the previous entry's id + 1) in the "
                                 f"first {kind} entry of a segment")
            if size == 0:
                self.fail(start, f"{kind} entry in a stream whose {kind} table is disabled "
                                 f"(size 0)")
            self.fail(start, f"{kind} entry id {id32} is outside the {kind} table (size {size})")
        if which == ENTRY_NAME:
            t.set_name(id32, value)
        elif which == ENTRY_PREFIX:
            t.set_prefix(id32, value)
        else:
            # xsd:string is the same term as a simple literal: marked False.
            t.set_datatype(id32, False if value == XSD_STRING else self.terms.datatype(value))
        return 0

    # ------------------------------------------------------------------ terms

    @cython.final
    cdef object resolve_iri(self, uint64_t pid64, uint64_t nid64, const unsigned char* at):
        cdef uint64_t pid = <uint32_t>pid64     # uint32 fields: protobuf truncates
        cdef uint32_t nid = <uint32_t>nid64
        cdef DecodeTables t = self.tables
        cdef object iri, prefix, name
        # Slots at or above the allocated sizes are undefined or sparse (see _lookup): one
        # comparison each on the hot path, the rest worked out off it.
        if pid == 0:
            pid = t.last_prefix_id
        if nid == 0:
            nid = t.last_name_id + 1
        if pid >= t.cap_prefixes or nid == 0 or nid >= t.cap_names:
            return self.resolve_sparse(pid, nid, at)
        t.last_prefix_id = pid
        t.last_name_id = nid
        if t.cache_pid[nid] == pid and t.cache_gen[nid] == t.prefix_gen[pid]:
            return <object>PyList_GET_ITEM(t.iri_cache, nid)
        name = <object>PyList_GET_ITEM(t.names, nid)
        if name is None:
            self.fail(at, f"name id {nid} is used before it is defined")
        if pid == 0:
            iri = self.terms.iri(<str>name)
        else:
            prefix = <object>PyList_GET_ITEM(t.prefixes, pid)
            if prefix is None:
                self.fail(at, f"prefix id {pid} is used before it is defined")
            iri = self.terms.iri_parts(<str>prefix, <str>name)
        t.iri_cache[nid] = iri
        t.cache_pid[nid] = pid
        t.cache_gen[nid] = t.prefix_gen[pid]
        return iri

    cdef object resolve_sparse(self, uint64_t pid, uint32_t nid, const unsigned char* at):
        """An IRI with a prefix or name id beyond the dense tables: out of range, undefined,
        or kept sparse (built each time, not cached); an id 0 leaning on the unknown rows
        before a segment (``unknown_past``)."""
        cdef DecodeTables t = self.tables
        cdef object prefix, name
        if nid == 0 and t.last_name_id == _UNKNOWN:
            self.fail(at, "name id 0 (the previous name + 1) in the first IRI of a segment")
        if pid == _UNKNOWN_PREFIX:
            self.fail(at, "prefix id 0 (the previous prefix) in the first IRI of a segment")
        if pid >= t.cap_prefixes:
            if pid > t.n_prefixes:
                self.fail(at, f"prefix id {pid} is outside the prefix table (size "
                              f"{t.n_prefixes})")
            prefix = t.sparse_get(ENTRY_PREFIX, <uint32_t>pid)
            if prefix is None:
                self.fail(at, f"prefix id {pid} is used before it is defined")
        else:
            prefix = <object>PyList_GET_ITEM(t.prefixes, pid)
        if nid == 0 or nid >= t.cap_names:
            if nid == 0 or nid > t.n_names:
                self.fail(at, f"name id {nid} is outside the name table (size {t.n_names})")
            name = t.sparse_get(ENTRY_NAME, nid)
        else:
            name = <object>PyList_GET_ITEM(t.names, nid)
        if name is None:
            self.fail(at, f"name id {nid} is used before it is defined")
        if prefix is None:
            self.fail(at, f"prefix id {pid} is used before it is defined")
        t.last_prefix_id = pid
        t.last_name_id = nid
        if pid == 0:
            return self.terms.iri(<str>name)
        return self.terms.iri_parts(<str>prefix, <str>name)

    @cython.final
    cdef object iri(self, const unsigned char* p, const unsigned char* end):
        cdef uint64_t tag, pid = 0, nid = 0
        cdef const unsigned char* start = p
        cdef const unsigned char* q
        while p < end:
            q = self.tag(p, end, &tag)
            if tag == 0x08:
                p = self.varint(q, end, &pid)
            elif tag == 0x10:
                p = self.varint(q, end, &nid)
            else:
                p = self.skip(q, end, tag)
        return self.resolve_iri(pid, nid, start)

    @cython.final
    cdef str lang_tag(self, const unsigned char* p, Py_ssize_t n):
        """A language tag: the str made for the same bytes before, when the cache has it (a
        dataset uses a few dozen tags, and multilingual data cycles through them).  The
        cache is an open-addressing table keyed by the tag's bytes as two words."""
        cdef uint64_t key[2]
        cdef unsigned int h, i, slot
        cdef str s
        if n > LANG_MAX:
            return self.string(p, p + n)
        key[0] = key[1] = 0
        memcpy(key, p, n)
        h = <unsigned int>(((key[0] ^ (key[1] * 0xC2B2AE3D27D4EB4FULL) ^ <uint64_t>n)
                            * 0x9E3779B97F4A7C15ULL) >> 56)
        for i in range(4):
            slot = (h + i) % LANG_SLOTS
            if self.lang_len[slot] == n and self.lang_key[slot][0] == key[0] \
                    and self.lang_key[slot][1] == key[1]:
                return <str>PyList_GET_ITEM(self.lang_strs, slot)
            if self.lang_len[slot] == 0:
                break
        else:
            slot = h      # the probes are taken: replace the first
        s = self.string(p, p + n)
        self.lang_strs[slot] = s
        self.lang_key[slot][0] = key[0]
        self.lang_key[slot][1] = key[1]
        self.lang_len[slot] = <unsigned char>n
        return s

    @cython.final
    cdef object literal(self, const unsigned char* p, const unsigned char* end):
        cdef uint64_t tag, v, dt = 0
        cdef const unsigned char* start = p
        cdef const unsigned char* q
        cdef str lex = ""
        cdef str lang = None
        cdef int kind = 0
        cdef object dtobj = None
        cdef DecodeTables t
        while p < end:
            q = self.tag(p, end, &tag)
            if tag == 0x0A or tag == 0x12:
                p = self.length(q, end, &v)
                if tag == 0x0A:
                    lex = self.string(p, p + v)
                else:
                    # An empty language tag is no language tag: read it as a simple literal,
                    # as pyjelly does (BCP 47 has no empty tag).
                    lang = self.lang_tag(p, v) if v else None
                    kind = 2
                p = p + v
            elif tag == 0x18:
                p = self.varint(q, end, &dt)
                kind = 3
            else:
                p = self.skip(q, end, tag)
        if kind == 3:
            t = self.tables
            dt = <uint32_t>dt
            if dt == 0:
                self.fail(start, "literal datatype id 0 is invalid (datatype ids start at 1)")
            if dt > t.n_datatypes:
                self.fail(start, f"datatype id {dt} is outside the datatype table (size "
                                 f"{t.n_datatypes})")
            if dt < t.cap_datatypes:
                dtobj = <object>PyList_GET_ITEM(t.datatypes, dt)
            else:
                dtobj = t.sparse_get(ENTRY_DATATYPE, <uint32_t>dt)
            if dtobj is None:
                self.fail(start, f"datatype id {dt} is used before it is defined")
            if dtobj is False:  # xsd:string: the same term as a simple literal
                dtobj = None
            lang = None
        return self.terms.literal(lex, lang, dtobj)

    @cython.final
    cdef object slot_term(self, Slot* s, int kind, int mtype, int depth):
        """Decode the winning member of a oneof; merges repeated message occurrences."""
        cdef const unsigned char* p
        cdef bytes merged
        cdef object term
        cdef Py_ssize_t saved
        if s.count > 1:
            if kind == K_BNODE:
                self.validate_run(s, mtype, s.p)   # earlier strings must be valid UTF-8
            else:
                merged = self.merged(s, mtype)
                saved = self.scratch_begin(s)
                try:
                    p = <const unsigned char*>PyBytes_AS_STRING(merged)
                    term = self.term(kind, p, p + PyBytes_GET_SIZE(merged), depth)
                finally:
                    self.scratch_end(saved)
                return term
        return self.term(kind, s.p, s.end, depth)

    @cython.final
    cdef object term(self, int kind, const unsigned char* p, const unsigned char* end, int depth):
        if kind == K_IRI:
            return self.iri(p, end)
        if kind == K_BNODE:
            return self.terms.bnode(self.string(p, end))
        if kind == K_LITERAL:
            return self.literal(p, end)
        if kind == K_TRIPLE:
            return self.quoted(p, end, depth + 1)
        # K_DEFAULT: an empty message, but protobuf would still parse its content.
        if p != end:
            self.validate(M_EMPTY, p, end, depth)
        return self.default_graph

    @cython.final
    cdef object quoted(self, const unsigned char* p, const unsigned char* end, int depth):
        cdef Slot slots[3]
        cdef object s, pr, o
        if depth > self.max_depth:
            self.fail(p, f"RDF-star quoted triples nested deeper than {self.max_depth}",
                      JellyLimitError)
        if self.strict and not self.rdf_star:
            self.fail(p, "quoted triple in a stream whose options do not enable rdf_star")
        self.scan(M_TRIPLE, p, end, slots, 3, 1)
        if slots[0].field == 0 or slots[1].field == 0 or slots[2].field == 0:
            self.fail(p, "a quoted triple must not use repeated terms (a term is missing)")
        s = self.slot_term(&slots[0], spo_kind(slots[0].field), M_TRIPLE, depth)
        pr = self.slot_term(&slots[1], spo_kind(slots[1].field), M_TRIPLE, depth)
        o = self.slot_term(&slots[2], spo_kind(slots[2].field), M_TRIPLE, depth)
        if self.strict:
            self.check_generalized(p, slots, 3)
        return self.terms.triple(s, pr, o)

    @cython.final
    cdef int scan(self, int mtype, const unsigned char* p, const unsigned char* end,
                  Slot* slots, int nslots, int first_field) except -1:
        """Scan a message whose fields first_field .. first_field + 4*nslots - 1 form nslots
        oneofs of four length-delimited members each; everything else is skipped."""
        cdef uint64_t tag, v
        cdef const unsigned char* tagpos
        cdef const unsigned char* q
        cdef int f, k
        for k in range(nslots):
            slots[k].field = 0
        while p < end:
            tagpos = p
            q = self.tag(p, end, &tag)
            f = <int>(tag >> 3) - first_field
            if (tag & 7) == WT_LEN and 0 <= f < 4 * nslots and (tag >> 3) < 64:
                p = self.length(q, end, &v)
                self.record(&slots[f >> 2], f + first_field, mtype, tagpos, p, v)
                p = p + v
            else:
                p = self.skip(q, end, tag)
        return 0

    @cython.final
    cdef object position(self, Slot* slot, int k, const unsigned char* at):
        """The term at position k (subject, predicate, object, graph) of a statement: decoded,
        or repeated from the previous statement when the oneof is empty."""
        cdef object t
        if slot.field:
            if k == 3:
                t = self.slot_term(slot, graph_kind(slot.field), M_QUAD, 0)
            else:
                t = self.slot_term(slot, spo_kind(slot.field), M_TRIPLE, 0)
            self.last[k] = t
            return t
        t = <object>PyList_GET_ITEM(self.last, k)
        if t is _UNSET:
            self.fail(at, f"repeated {_POSITION_NAMES[k]} in the first statement of the stream")
        return t

    @cython.final
    cdef int check_generalized(self, const unsigned char* at, Slot* slots, int n) except -1:
        # In strict mode, terms outside RDF 1.1 / RDF-star positions need generalized_statements.
        cdef int ks = spo_kind(slots[0].field) if slots[0].field else K_IRI
        cdef int kp = spo_kind(slots[1].field) if slots[1].field else K_IRI
        cdef int kg = graph_kind(slots[3].field) if n == 4 and slots[3].field else K_IRI
        if self.generalized:
            return 0
        if ks == K_LITERAL or (kp != K_IRI) or kg == K_LITERAL:
            self.fail(at, "generalized statement in a stream whose options do not enable "
                          "generalized_statements")
        return 0

    @cython.final
    cdef int statement(self, int mtype, const unsigned char* p, const unsigned char* end,
                       int n, bint has_graph, object graph) except -1:
        """Decode an RdfTriple (n=3) or RdfQuad (n=4) message into the sink; a triple with
        ``has_graph`` goes to the sink as a quad in ``graph``.  An RdfQuad read as a triple
        (n=3: Jelly-Patch streams of statement type TRIPLES) must not have a graph term.
        Returns 1 for a statement in a named graph, else 0."""
        cdef Slot slots[4]
        cdef object s, pr, o
        if mtype == M_QUAD and n == 3:
            self.scan(mtype, p, end, slots, 4, 1)
            if slots[3].field:
                self.fail(p, "statement with a graph term in a stream of triples (statement "
                             "type TRIPLES)")
        else:
            self.scan(mtype, p, end, slots, n, 1)
        s = self.position(&slots[0], 0, p)
        pr = self.position(&slots[1], 1, p)
        o = self.position(&slots[2], 2, p)
        if self.strict:
            self.check_generalized(p, slots, n)
        if n == 4:
            graph = self.position(&slots[3], 3, p)
        elif not has_graph:
            self.sink.triple(s, pr, o)
            return 0
        self.sink.quad(s, pr, o, graph)
        return graph is not self.default_graph
