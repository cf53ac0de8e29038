# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Frame decoder: turns the bytes of one ``RdfStreamFrame`` into statements.

A hand-written protobuf reader that stays compliant: fields in any order, unknown fields skipped
by wire type, a known field with an unexpected wire type treated as unknown, repeated occurrences
of a singular message field merged, the last member of a oneof winning, varints of at most 10
bytes, strict UTF-8 for strings.  Every message that protobuf would parse is validated, even when
a later field overrides it, so this decoder accepts exactly what a protobuf library accepts.

One ``Decoder`` holds the state of one stream (options, lookup tables, repeated terms), so frames
must be fed in order.  After an error it stays failed.
"""

cimport cython
from libc.stdint cimport uint64_t, uint32_t, int32_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE, PyBytes_FromStringAndSize
from cpython.unicode cimport PyUnicode_DecodeUTF8
from cpython.list cimport PyList_GET_ITEM, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF

cdef extern from "Python.h":
    void PyObject_GC_UnTrack(object)
    int PyGC_Enable()
    int PyGC_Disable()

from ._wire cimport (bad_tag, read_varint, skip_field, WT_VARINT, WT_LEN, K_NONE, K_IRI,
                     K_BNODE, K_LITERAL, K_TRIPLE, K_DEFAULT)
from ._terms cimport IRI, make_iri, make_bnode, make_literal, make_triple
from ._ntriples cimport _iri_nt, _lex_nt, _bnode_nt, _lang_nt

from ._terms import DEFAULT_GRAPH, XSD_STRING
from .errors import JellyDecodeError, JellyError, JellyLimitError, JellyTruncatedError
from .options import (DEFAULT_LIMITS, LogicalStreamType, PhysicalStreamType, PROTOCOL_VERSION,
                      MIN_NAME_TABLE_SIZE, StreamOptions)

# Message types, for validating messages whose content is overridden or ignored.
cdef enum:
    M_IRI = 1
    M_LITERAL = 2
    M_TRIPLE = 3
    M_QUAD = 4
    M_EMPTY = 5          # RdfDefaultGraph, RdfGraphEnd
    M_GRAPH_START = 6
    M_NAMESPACE = 7
    M_ENTRY = 8          # name, prefix and datatype entries
    M_OPTIONS = 9
    M_ROW = 10

# Field kinds for validation.
cdef enum:
    F_UNKNOWN = 0
    F_VARINT = 1
    F_STRING = 2
    F_MSG = 3

# Term modes: what the decoder builds.
cdef enum:
    MODE_NATIVE = 0      # jelly's own term types
    MODE_FACTORY = 1     # calls into a Python term factory (rdflib and friends)
    MODE_NT = 2          # N-Triples strings (the default graph is None)

# Output shapes of a frame's statements.
cdef enum:
    OUT_TUPLES = 0       # a list of (s, p, o) / (s, p, o, g) tuples
    OUT_COLUMNS = 1      # a tuple of lists (s, p, o) or (s, p, o, g): no tuple per statement
    OUT_LINES = 2        # a list of N-Triples / N-Quads lines (MODE_NT only)

# Oneof member kinds of the subject/predicate/object oneofs and of the graph oneof, by
# (field - 1) & 3.
cdef int SPO_KINDS[4]
SPO_KINDS[:] = [K_IRI, K_BNODE, K_LITERAL, K_TRIPLE]
cdef int GRAPH_KINDS[4]
GRAPH_KINDS[:] = [K_IRI, K_BNODE, K_DEFAULT, K_LITERAL]

# Physical stream types, as C constants for the hot path.
cdef enum:
    PT_TRIPLES = 1
    PT_QUADS = 2
    PT_GRAPHS = 3

# Row oneof field numbers.
cdef enum:
    ROW_OPTIONS = 1
    ROW_TRIPLE = 2
    ROW_QUAD = 3
    ROW_GRAPH_START = 4
    ROW_GRAPH_END = 5
    ROW_NAMESPACE = 6
    ROW_NAME = 9
    ROW_PREFIX = 10
    ROW_DATATYPE = 11


# Row kinds by field number of the RdfStreamRow oneof, in the order of Frame.row_counts.
ROW_KINDS = ("options", "triple", "quad", "graph_start", "graph_end", "namespace", "name",
             "prefix", "datatype")
cdef int ROW_KIND_INDEX[12]
ROW_KIND_INDEX[:] = [0, 0, 1, 2, 3, 4, 5, 0, 0, 6, 7, 8]


cdef object _UNSET = object()
cdef tuple _POSITION_NAMES = ("subject", "predicate", "object", "graph")


cdef struct Slot:
    # The state of one oneof while a message is scanned.
    int field                       # the member set last (0: none)
    int count                       # occurrences of that member since it was last set
    const unsigned char* run        # tag of the first occurrence since it was last set
    const unsigned char* p          # payload of the last occurrence
    const unsigned char* end
    uint64_t value                  # varint members


cdef class Frame:
    """One decoded frame: its statements, metadata and namespace declarations."""

    cdef readonly Py_ssize_t index
    cdef readonly object statements
    cdef readonly dict metadata
    cdef readonly list namespaces
    cdef readonly tuple row_counts
    cdef readonly Py_ssize_t named_graph_statements

    def __init__(self, index, statements, metadata=None, namespaces=None, row_counts=None,
                 named_graph_statements=0):
        self.index = index
        self.statements = statements
        self.metadata = metadata if metadata is not None else {}
        self.namespaces = namespaces if namespaces is not None else []
        self.row_counts = row_counts if row_counts is not None else (0,) * len(ROW_KINDS)
        #: How many statements are in a named graph (not the default graph).
        self.named_graph_statements = named_graph_statements

    @property
    def rows(self):
        """Rows of the frame by kind: ``{"options": 1, "triple": 10, ...}``."""
        return dict(zip(ROW_KINDS, self.row_counts))

    def __len__(self):
        """Number of statements (also for column output, where ``statements`` is a tuple of
        lists)."""
        if type(self.statements) is tuple:
            return len(self.statements[0]) if self.statements else 0
        return len(self.statements)

    def __iter__(self):
        return iter(self.statements)

    def __repr__(self):
        return (f"<Frame {self.index}: {len(self.statements)} statements, "
                f"{len(self.metadata)} metadata, {len(self.namespaces)} namespaces>")


cdef inline int _message_field_kind(int mtype, uint64_t field, int* sub) noexcept:
    # The schema of rdf.proto, as needed to validate a message without decoding it.
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
            return _kind_schema(SPO_KINDS[(field - 1) & 3], sub)
        return _kind_schema(GRAPH_KINDS[(field - 1) & 3], sub)
    if mtype == M_GRAPH_START:
        if field < 1 or field > 4:
            return F_UNKNOWN
        return _kind_schema(GRAPH_KINDS[(field - 1) & 3], sub)
    if mtype == M_NAMESPACE:
        if field == 1:
            return F_STRING
        if field == 2:
            sub[0] = M_IRI
            return F_MSG
        return F_UNKNOWN
    if mtype == M_ENTRY:
        if field == 1:
            return F_VARINT
        return F_STRING if field == 2 else F_UNKNOWN
    if mtype == M_OPTIONS:
        if field == 1:
            return F_STRING
        if field in (2, 3, 4, 9, 10, 11, 14, 15):
            return F_VARINT
        return F_UNKNOWN
    if mtype == M_ROW:
        sub[0] = {1: M_OPTIONS, 2: M_TRIPLE, 3: M_QUAD, 4: M_GRAPH_START, 5: M_EMPTY,
                  6: M_NAMESPACE, 9: M_ENTRY, 10: M_ENTRY, 11: M_ENTRY}.get(field, 0)
        return F_MSG if sub[0] != 0 else F_UNKNOWN
    return F_UNKNOWN


cdef inline int _kind_schema(int kind, int* sub) noexcept:
    if kind == K_BNODE:
        return F_STRING
    sub[0] = {K_IRI: M_IRI, K_LITERAL: M_LITERAL, K_TRIPLE: M_TRIPLE, K_DEFAULT: M_EMPTY}[kind]
    return F_MSG


@cython.final
cdef class Decoder:
    """Decoding state of one Jelly stream; feed it frames in order with :meth:`decode_frame`."""

    # Configuration.
    cdef int mode
    cdef int output
    cdef object factory
    cdef object f_iri, f_bnode, f_literal, f_triple, f_datatype
    cdef object default_graph
    cdef bint strict
    cdef uint32_t cap_names, cap_prefixes, cap_datatypes
    cdef int max_depth

    # Stream state.
    cdef public object options
    cdef tuple options_key
    cdef int physical_type
    cdef bint rdf_star, generalized
    cdef uint32_t n_names, n_prefixes, n_datatypes
    cdef list names, prefixes, datatypes
    cdef uint32_t last_name_entry, last_prefix_entry, last_datatype_entry
    cdef uint32_t last_prefix_id, last_name_id
    # IRI cache: per name slot, the IRI built with the prefix slot cache_pid at generation
    # cache_gen of that prefix slot.
    cdef list iri_cache
    cdef long long* cache_pid
    cdef unsigned long long* cache_gen
    cdef unsigned long long* prefix_gen
    cdef list last      # the previous statement's terms by position, for repeated terms
    cdef bint in_graph
    cdef object graph
    cdef public object failed
    cdef public Py_ssize_t frame_index

    # Position of the frame being decoded, for error messages.
    cdef const unsigned char* base
    cdef Py_ssize_t base_offset
    cdef Py_ssize_t row_index
    cdef Py_ssize_t counts[9]
    cdef Py_ssize_t named
    cdef bint in_scratch
    cdef Py_ssize_t scratch_offset

    # Output of the frame being decoded.
    cdef list out
    cdef list col_s, col_p, col_o, col_g
    cdef list out_namespaces

    def __cinit__(self):
        self.cache_pid = NULL
        self.cache_gen = NULL
        self.prefix_gen = NULL

    def __init__(self, *, limits=None, factory=None, strict=False, terms="native",
                 output="tuples"):
        """``factory`` builds terms other than jelly's own: an object with callables
        ``iri(str)``, ``bnode(str)``, ``literal(lex, language, datatype)``, ``triple(s, p, o)``,
        ``datatype(str)`` (the object passed to ``literal``) and a ``default_graph`` value.

        ``terms="nt"`` builds every term as its N-Triples string instead (the default graph is
        ``None``).  ``output`` shapes each frame's ``statements``: ``"tuples"`` (a list of
        tuples), ``"columns"`` (a tuple of lists, one per position) or ``"lines"`` (a list of
        N-Triples / N-Quads lines; needs ``terms="nt"``).
        """
        limits = limits if limits is not None else DEFAULT_LIMITS
        self.cap_names = limits.max_name_table_size
        self.cap_prefixes = limits.max_prefix_table_size
        self.cap_datatypes = limits.max_datatype_table_size
        self.max_depth = limits.max_quoted_depth
        self.strict = strict
        if output not in ("tuples", "columns", "lines"):
            raise ValueError(f"output must be 'tuples', 'columns' or 'lines', not {output!r}")
        if terms not in ("native", "nt"):
            raise ValueError(f"terms must be 'native' or 'nt', not {terms!r}")
        if output == "lines" and terms != "nt":
            raise ValueError("output='lines' needs terms='nt'")
        self.output = {"tuples": OUT_TUPLES, "columns": OUT_COLUMNS, "lines": OUT_LINES}[output]
        if terms == "nt":
            if factory is not None:
                raise ValueError("give either a factory or terms='nt', not both")
            self.mode = MODE_NT
            self.default_graph = None
        elif factory is None:
            self.mode = MODE_NATIVE
            self.default_graph = DEFAULT_GRAPH
        else:
            self.mode = MODE_FACTORY
            self.factory = factory
            self.f_iri = factory.iri
            self.f_bnode = factory.bnode
            self.f_literal = factory.literal
            self.f_triple = factory.triple
            self.f_datatype = factory.datatype
            self.default_graph = factory.default_graph
        # None is a term in N-Triples mode (the default graph), so "no previous term" is _UNSET.
        self.last = [_UNSET, _UNSET, _UNSET, _UNSET]
        self.options = None
        self.failed = None
        self.frame_index = 0
        self.in_graph = False

    def __dealloc__(self):
        free(self.cache_pid)
        free(self.cache_gen)
        free(self.prefix_gen)

    # ------------------------------------------------------------------ errors

    cdef Py_ssize_t _offset(self, const unsigned char* at):
        if self.in_scratch:
            return self.scratch_offset
        return self.base_offset + (at - self.base)

    cdef int _fail(self, const unsigned char* at, str message, type cls=JellyDecodeError) except -1:
        raise cls(message, offset=self._offset(at), frame=self.frame_index, row=self.row_index)

    cdef int _malformed(self, const unsigned char* at, str what) except -1:
        return self._fail(at, f"malformed protobuf: {what}")

    # ------------------------------------------------------------------ primitives

    cdef inline const unsigned char* _tag(self, const unsigned char* p, const unsigned char* end,
                                          uint64_t* tag) except NULL:
        """Read a field tag at p; returns the position after it."""
        cdef const unsigned char* q = read_varint(p, end, tag)
        if q == NULL or bad_tag(tag[0]):
            self._malformed(p, "bad field tag (field 0, truncated, or longer than 10 bytes)")
        return q

    cdef inline const unsigned char* _length(self, const unsigned char* q,
                                             const unsigned char* end, uint64_t* v) except NULL:
        """Read the length of a length-delimited field at q; returns where its payload starts."""
        cdef const unsigned char* p = read_varint(q, end, v)
        if p == NULL or v[0] > <uint64_t>(end - p):
            self._malformed(q, "length past the end of the message")
        return p

    cdef inline const unsigned char* _skip(self, const unsigned char* q, const unsigned char* end,
                                           uint64_t tag) except NULL:
        """Skip the value of an unknown field whose tag ended at q."""
        cdef const unsigned char* p = skip_field(q, end, tag, 0)
        if p == NULL:
            self._malformed(q, "truncated field or varint longer than 10 bytes")
        return p

    cdef int _record(self, Slot* s, int field, int mtype, const unsigned char* tagpos,
                     const unsigned char* p, uint64_t v) except -1:
        """Note an occurrence of a oneof member (payload p .. p + v, tag at tagpos): a later
        member overrides the earlier one (which protobuf still parses, so it is validated), and
        repeated occurrences of one member are counted for merging."""
        if s.field == field:
            s.count += 1
        else:
            if s.field != 0:
                self._validate_run(s, mtype, tagpos)
            s.field = field
            s.count = 1
            s.run = tagpos
        s.p = p
        s.end = p + v
        return 0

    cdef Py_ssize_t _scratch_begin(self, Slot* s):
        """Enter a merged payload (a bytes copy): errors in it are reported at the first
        occurrence.  Returns what _scratch_end needs to restore."""
        cdef Py_ssize_t saved = self.scratch_offset if self.in_scratch else -1
        if not self.in_scratch:
            self.scratch_offset = self._offset(s.run)
        self.in_scratch = True
        return saved

    cdef void _scratch_end(self, Py_ssize_t saved) noexcept:
        self.in_scratch = saved >= 0
        if saved >= 0:
            self.scratch_offset = saved

    cdef bytes _merged(self, Slot* s, int mtype):
        """Protobuf merges repeated occurrences of a singular message: that is the same as
        parsing their payloads concatenated, once each payload is valid on its own."""
        self._validate_run(s, mtype, s.end)
        return self._concat_run(s)

    cdef inline str _string(self, const unsigned char* p, const unsigned char* end):
        if p == end:
            return ""
        try:
            return PyUnicode_DecodeUTF8(<const char*>p, end - p, NULL)
        except UnicodeDecodeError:
            self._fail(p, "invalid UTF-8 in a string field")

    cdef int _validate(self, int mtype, const unsigned char* p, const unsigned char* end,
                       int depth) except -1:
        """Check a message as protobuf would parse it, without decoding it."""
        cdef uint64_t tag, v
        cdef const unsigned char* q
        cdef int sub = 0
        cdef int kind
        if depth > self.max_depth + 8:
            self._fail(p, "messages nested too deeply", JellyLimitError)
        while p < end:
            q = self._tag(p, end, &tag)
            kind = _message_field_kind(mtype, tag >> 3, &sub)
            if kind == F_VARINT and (tag & 7) == WT_VARINT:
                p = read_varint(q, end, &v)
            elif (kind == F_STRING or kind == F_MSG) and (tag & 7) == WT_LEN:
                p = self._length(q, end, &v)
                if kind == F_STRING:
                    self._string(p, p + v)
                else:
                    self._validate(sub, p, p + v, depth + 1)
                p = p + v
            else:
                p = self._skip(q, end, tag)
            if p == NULL:   # a varint value above was truncated
                self._malformed(q, "truncated field or varint longer than 10 bytes")
        return 0

    cdef int _validate_run(self, Slot* s, int mtype, const unsigned char* stop) except -1:
        """Validate every occurrence of ``s.field`` from ``s.run`` to ``stop`` (payloads that a
        later occurrence or another oneof member overrides)."""
        cdef const unsigned char* p = s.run
        cdef const unsigned char* q
        cdef uint64_t tag, v
        cdef int sub = 0
        cdef int kind
        while p < stop:
            q = read_varint(p, stop, &tag)
            if (tag >> 3) == <uint64_t>s.field and (tag & 7) == WT_LEN:
                p = read_varint(q, stop, &v)
                kind = _message_field_kind(mtype, tag >> 3, &sub)
                if kind == F_STRING:
                    self._string(p, p + v)
                else:
                    self._validate(sub, p, p + v, 0)
                p = p + v
            else:
                p = skip_field(q, stop, tag, 0)
        return 0

    cdef int _scan(self, int mtype, const unsigned char* p, const unsigned char* end,
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
            q = self._tag(p, end, &tag)
            f = <int>(tag >> 3) - first_field
            if (tag & 7) == WT_LEN and 0 <= f < 4 * nslots and (tag >> 3) < 64:
                p = self._length(q, end, &v)
                self._record(&slots[f >> 2], f + first_field, mtype, tagpos, p, v)
                p = p + v
            else:
                p = self._skip(q, end, tag)
        return 0

    # ------------------------------------------------------------------ terms

    cdef object _make_iri(self, str value):
        if self.mode == MODE_NATIVE:
            return make_iri(value)
        if self.mode == MODE_NT:
            return _iri_nt(value)
        return self.f_iri(value)

    cdef object _resolve_iri(self, uint64_t pid64, uint64_t nid64, const unsigned char* at):
        cdef uint32_t pid = <uint32_t>pid64
        cdef uint32_t nid = <uint32_t>nid64
        cdef object iri
        cdef str prefix, name
        if pid == 0:
            pid = self.last_prefix_id
        else:
            if pid > self.n_prefixes:
                self._fail(at, f"prefix id {pid} is outside the prefix table (size {self.n_prefixes})")
            self.last_prefix_id = pid
        if nid == 0:
            nid = self.last_name_id + 1
        if nid > self.n_names or nid == 0:
            self._fail(at, f"name id {nid} is outside the name table (size {self.n_names})")
        self.last_name_id = nid
        if self.cache_pid[nid] == pid and self.cache_gen[nid] == self.prefix_gen[pid]:
            return <object>PyList_GET_ITEM(self.iri_cache, nid)
        name = <str>PyList_GET_ITEM(self.names, nid)
        if name is None:
            self._fail(at, f"name id {nid} is used before it is defined")
        if pid == 0:
            iri = self._make_iri(name)
        else:
            prefix = <str>PyList_GET_ITEM(self.prefixes, pid)
            if prefix is None:
                self._fail(at, f"prefix id {pid} is used before it is defined")
            iri = self._make_iri(prefix + name)
        self.iri_cache[nid] = iri
        self.cache_pid[nid] = pid
        self.cache_gen[nid] = self.prefix_gen[pid]
        return iri

    cdef object _iri(self, const unsigned char* p, const unsigned char* end):
        cdef uint64_t tag, pid = 0, nid = 0
        cdef const unsigned char* start = p
        cdef const unsigned char* q
        while p < end:
            q = self._tag(p, end, &tag)
            if tag == 0x08:
                p = read_varint(q, end, &pid)
            elif tag == 0x10:
                p = read_varint(q, end, &nid)
            else:
                p = self._skip(q, end, tag)
            if p == NULL:   # a varint value above was truncated
                self._malformed(q, "truncated field or varint longer than 10 bytes")
        return self._resolve_iri(pid, nid, start)

    cdef object _literal(self, const unsigned char* p, const unsigned char* end):
        cdef uint64_t tag, v, dt = 0
        cdef const unsigned char* start = p
        cdef const unsigned char* q
        cdef str lex = ""
        cdef object lang = None
        cdef int kind = 0
        cdef object dtobj
        while p < end:
            q = self._tag(p, end, &tag)
            if tag == 0x0A or tag == 0x12:
                p = self._length(q, end, &v)
                if tag == 0x0A:
                    lex = self._string(p, p + v)
                else:
                    lang = self._string(p, p + v)
                    kind = 2
                p = p + v
            elif tag == 0x18:
                p = read_varint(q, end, &dt)
                kind = 3
            else:
                p = self._skip(q, end, tag)
            if p == NULL:   # a varint value above was truncated
                self._malformed(q, "truncated field or varint longer than 10 bytes")
        if kind == 3:
            dt = <uint32_t>dt
            if dt == 0:
                self._fail(start, "literal datatype id 0 is invalid (datatype ids start at 1)")
            if dt > self.n_datatypes:
                self._fail(start, f"datatype id {dt} is outside the datatype table (size {self.n_datatypes})")
            dtobj = <object>PyList_GET_ITEM(self.datatypes, dt)
            if dtobj is None:
                self._fail(start, f"datatype id {dt} is used before it is defined")
            if dtobj is False:  # xsd:string: the same term as a simple literal
                dtobj = None
            lang = None
        elif kind != 2 or not lang:
            # An empty language tag is no language tag: read it as a simple literal, as
            # pyjelly does (BCP 47 has no empty tag).
            lang = None
            dtobj = None
        else:
            dtobj = None
        if self.mode == MODE_NATIVE:
            return make_literal(lex, lang, dtobj)
        if self.mode == MODE_NT:
            if lang is not None:
                try:
                    return _lex_nt(lex) + _lang_nt(<str>lang)
                except ValueError as exc:
                    self._fail(start, str(exc))
            if dtobj is not None:
                return _lex_nt(lex) + <str>dtobj      # dtobj is "^^<iri>"
            return _lex_nt(lex)
        return self.f_literal(lex, lang, dtobj)

    cdef object _slot_term(self, Slot* s, int kind, int mtype, int depth):
        """Decode the winning member of a oneof; merges repeated message occurrences."""
        cdef const unsigned char* p = s.p
        cdef const unsigned char* end = s.end
        cdef bytes merged
        cdef object term
        cdef Py_ssize_t saved
        if s.count > 1:
            if kind == K_BNODE:
                self._validate_run(s, mtype, s.p)   # earlier strings must be valid UTF-8
            else:
                merged = self._merged(s, mtype)
                saved = self._scratch_begin(s)
                try:
                    p = <const unsigned char*>PyBytes_AS_STRING(merged)
                    term = self._term(kind, p, p + PyBytes_GET_SIZE(merged), depth)
                finally:
                    self._scratch_end(saved)
                return term
        return self._term(kind, p, end, depth)

    cdef bytes _concat_run(self, Slot* s):
        cdef const unsigned char* p = s.run
        cdef const unsigned char* q
        cdef uint64_t tag, v
        parts = []
        while p < s.end:
            q = read_varint(p, s.end, &tag)
            if (tag >> 3) == <uint64_t>s.field and (tag & 7) == WT_LEN:
                p = read_varint(q, s.end, &v)
                parts.append(PyBytes_FromStringAndSize(<const char*>p, v))
                p = p + v
            else:
                p = skip_field(q, s.end, tag, 0)
        return b"".join(parts)

    cdef object _term(self, int kind, const unsigned char* p, const unsigned char* end, int depth):
        cdef str label
        if kind == K_IRI:
            return self._iri(p, end)
        if kind == K_BNODE:
            label = self._string(p, end)
            if self.mode == MODE_NATIVE:
                return make_bnode(label)
            if self.mode == MODE_NT:
                return _bnode_nt(label)
            return self.f_bnode(label)
        if kind == K_LITERAL:
            return self._literal(p, end)
        if kind == K_TRIPLE:
            return self._quoted(p, end, depth + 1)
        # K_DEFAULT: an empty message, but protobuf would still parse its content.
        self._validate(M_EMPTY, p, end, depth)
        return self.default_graph

    cdef object _quoted(self, const unsigned char* p, const unsigned char* end, int depth):
        cdef Slot slots[3]
        cdef object s, pr, o
        if depth > self.max_depth:
            self._fail(p, f"RDF-star quoted triples nested deeper than {self.max_depth}",
                       JellyLimitError)
        if self.strict and not self.rdf_star:
            self._fail(p, "quoted triple in a stream whose options do not enable rdf_star")
        self._scan(M_TRIPLE, p, end, slots, 3, 1)
        if slots[0].field == 0 or slots[1].field == 0 or slots[2].field == 0:
            self._fail(p, "a quoted triple must not use repeated terms (a term is missing)")
        s = self._slot_term(&slots[0], SPO_KINDS[(slots[0].field - 1) & 3], M_TRIPLE, depth)
        pr = self._slot_term(&slots[1], SPO_KINDS[(slots[1].field - 1) & 3], M_TRIPLE, depth)
        o = self._slot_term(&slots[2], SPO_KINDS[(slots[2].field - 1) & 3], M_TRIPLE, depth)
        if self.strict:
            self._check_generalized(p, slots, 3)
        if self.mode == MODE_NATIVE:
            return make_triple(s, pr, o)
        if self.mode == MODE_NT:
            return f"<< {<str>s} {<str>pr} {<str>o} >>"
        return self.f_triple(s, pr, o)

    cdef int _check_generalized(self, const unsigned char* at, Slot* slots, int n) except -1:
        # In strict mode, terms outside RDF 1.1 / RDF-star positions need generalized_statements.
        cdef int ks = SPO_KINDS[(slots[0].field - 1) & 3] if slots[0].field else K_IRI
        cdef int kp = SPO_KINDS[(slots[1].field - 1) & 3] if slots[1].field else K_IRI
        cdef int kg = GRAPH_KINDS[(slots[3].field - 1) & 3] if n == 4 and slots[3].field else K_IRI
        if self.generalized:
            return 0
        if ks == K_LITERAL or (kp != K_IRI) or kg == K_LITERAL:
            self._fail(at, "generalized statement in a stream whose options do not enable "
                           "generalized_statements")
        return 0

    # ------------------------------------------------------------------ rows

    cdef inline object _position(self, Slot* slot, int k, const unsigned char* at):
        """The term at position k (subject, predicate, object, graph) of a statement: decoded,
        or repeated from the previous statement when the oneof is empty."""
        cdef object t
        if slot.field:
            if k == 3:
                t = self._slot_term(slot, GRAPH_KINDS[(slot.field - 1) & 3], M_QUAD, 0)
            else:
                t = self._slot_term(slot, SPO_KINDS[(slot.field - 1) & 3], M_TRIPLE, 0)
            self.last[k] = t
            return t
        t = <object>PyList_GET_ITEM(self.last, k)
        if t is _UNSET:
            self._fail(at, f"repeated {_POSITION_NAMES[k]} in the first statement of the stream")
        return t

    cdef int _statement(self, const unsigned char* p, const unsigned char* end, bint quad) except -1:
        cdef Slot slots[4]
        cdef int n = 4 if quad else 3
        cdef object s, pr, o, g
        cdef tuple st
        self._scan(M_QUAD if quad else M_TRIPLE, p, end, slots, n, 1)
        s = self._position(&slots[0], 0, p)
        pr = self._position(&slots[1], 1, p)
        o = self._position(&slots[2], 2, p)
        if self.strict:
            self._check_generalized(p, slots, n)
        if quad:
            g = self._position(&slots[3], 3, p)
        elif self.physical_type == PT_GRAPHS:
            g = self.graph
            quad = True
        if quad and g is not self.default_graph:
            self.named += 1
        if self.output == OUT_TUPLES:
            st = (s, pr, o, g) if quad else (s, pr, o)
            if self.mode != MODE_FACTORY:
                # Native terms and strings are never in cycles: keep the collector away from
                # the statement tuples.
                PyObject_GC_UnTrack(st)
            self.out.append(st)
        elif self.output == OUT_COLUMNS:
            self.col_s.append(s)
            self.col_p.append(pr)
            self.col_o.append(o)
            if quad:
                self.col_g.append(g)
        elif quad and g is not None:
            self.out.append(f"{<str>s} {<str>pr} {<str>o} {<str>g} .\n")
        else:
            self.out.append(f"{<str>s} {<str>pr} {<str>o} .\n")
        return 0

    cdef int _graph_start(self, const unsigned char* p, const unsigned char* end) except -1:
        cdef Slot slots[1]
        if self.in_graph:
            self._fail(p, "graph_start inside a graph (graph_end missing)")
        self._scan(M_GRAPH_START, p, end, slots, 1, 1)
        if slots[0].field == 0:
            self._fail(p, "graph_start without a graph term")
        self.graph = self._slot_term(&slots[0], GRAPH_KINDS[(slots[0].field - 1) & 3],
                                     M_GRAPH_START, 0)
        if self.strict and not self.generalized and GRAPH_KINDS[(slots[0].field - 1) & 3] == K_LITERAL:
            self._fail(p, "literal graph name in a stream whose options do not enable "
                          "generalized_statements")
        self.in_graph = True
        return 0

    cdef int _entry(self, int which, const unsigned char* p, const unsigned char* end) except -1:
        cdef uint64_t tag, v, ident = 0
        cdef const unsigned char* start = p
        cdef const unsigned char* q
        cdef const unsigned char* vp = NULL
        cdef const unsigned char* ve = NULL
        cdef str value
        cdef uint32_t id32, size, last
        while p < end:
            q = self._tag(p, end, &tag)
            if tag == 0x08:
                p = read_varint(q, end, &ident)
            elif tag == 0x12:
                p = self._length(q, end, &v)
                if vp != NULL:
                    self._string(vp, ve)  # an overridden string must still be valid UTF-8
                vp = p
                ve = p + v
                p = p + v
            else:
                p = self._skip(q, end, tag)
            if p == NULL:   # a varint value above was truncated
                self._malformed(q, "truncated field or varint longer than 10 bytes")
        value = self._string(vp, ve) if vp != NULL else ""
        id32 = <uint32_t>ident
        if which == ROW_NAME:
            size, last, kind = self.n_names, self.last_name_entry, "name"
        elif which == ROW_PREFIX:
            size, last, kind = self.n_prefixes, self.last_prefix_entry, "prefix"
        else:
            size, last, kind = self.n_datatypes, self.last_datatype_entry, "datatype"
        if id32 == 0:
            id32 = last + 1
        if id32 == 0 or id32 > size:
            if size == 0:
                self._fail(start, f"{kind} entry in a stream whose {kind} table is disabled (size 0)")
            self._fail(start, f"{kind} entry id {id32} is outside the {kind} table (size {size})")
        if which == ROW_NAME:
            self.names[id32] = value
            self.cache_pid[id32] = -1
            self.last_name_entry = id32
        elif which == ROW_PREFIX:
            self.prefixes[id32] = value
            self.prefix_gen[id32] += 1
            self.last_prefix_entry = id32
        else:
            if value == XSD_STRING:
                self.datatypes[id32] = False
            elif self.mode == MODE_NATIVE:
                self.datatypes[id32] = make_iri(value)
            elif self.mode == MODE_NT:
                self.datatypes[id32] = "^^" + _iri_nt(value)
            else:
                self.datatypes[id32] = self.f_datatype(value)
            self.last_datatype_entry = id32
        return 0

    cdef int _namespace(self, const unsigned char* p, const unsigned char* end) except -1:
        cdef uint64_t tag, v
        cdef const unsigned char* start = p
        cdef const unsigned char* q
        cdef const unsigned char* tagpos
        cdef str name = ""
        cdef Slot slot
        slot.field = 0
        while p < end:
            tagpos = p
            q = self._tag(p, end, &tag)
            if tag == 0x0A or tag == 0x12:
                p = self._length(q, end, &v)
                if tag == 0x0A:
                    name = self._string(p, p + v)
                else:
                    self._record(&slot, 2, M_NAMESPACE, tagpos, p, v)
                p = p + v
            else:
                p = self._skip(q, end, tag)
        if slot.field == 0:
            self._fail(start, "namespace declaration without an IRI value")
        iri = self._slot_term(&slot, K_IRI, M_NAMESPACE, 0)
        self.out_namespaces.append((name, iri))
        return 0

    cdef tuple _options(self, const unsigned char* p, const unsigned char* end):
        cdef uint64_t tag, v
        cdef const unsigned char* q
        cdef str name = ""
        cdef int32_t physical = 0, logical = 0
        cdef bint gen = False, star = False
        cdef uint32_t names = 0, prefixes = 0, datatypes = 0, version = 0
        while p < end:
            q = self._tag(p, end, &tag)
            if tag == 0x0A:
                p = self._length(q, end, &v)
                name = self._string(p, p + v)
                p = p + v
            elif (tag & 7) == WT_VARINT and (tag >> 3) in (2, 3, 4, 9, 10, 11, 14, 15):
                p = read_varint(q, end, &v)
                if p == NULL:
                    self._malformed(q, "truncated varint")
                f = tag >> 3
                if f == 2:
                    physical = <int32_t>v
                elif f == 3:
                    gen = v != 0
                elif f == 4:
                    star = v != 0
                elif f == 9:
                    names = <uint32_t>v
                elif f == 10:
                    prefixes = <uint32_t>v
                elif f == 11:
                    datatypes = <uint32_t>v
                elif f == 14:
                    logical = <int32_t>v
                else:
                    version = <uint32_t>v
            else:
                p = self._skip(q, end, tag)
        return (name, physical, gen, star, names, prefixes, datatypes, logical, version)

    cdef int _apply_options(self, tuple key, const unsigned char* at) except -1:
        name, physical, gen, star, names, prefixes, datatypes, logical, version = key
        if self.options_key is not None:
            if key != self.options_key:
                self._fail(at, "stream options differ from the options at the start of the stream")
            return 0
        if version == 0:
            self._fail(at, "stream options have version 0 (the version field is required)")
        if version > PROTOCOL_VERSION:
            self._fail(at, f"stream uses protocol version {version}; this reader supports up to "
                           f"{PROTOCOL_VERSION}")
        if physical not in (1, 2, 3):
            self._fail(at, "physical stream type is unspecified" if physical == 0
                       else f"unknown physical stream type {physical}")
        if names < MIN_NAME_TABLE_SIZE:
            self._fail(at, f"max_name_table_size {names} is below the minimum of {MIN_NAME_TABLE_SIZE}")
        for size, cap, what in ((names, self.cap_names, "name"),
                                (prefixes, self.cap_prefixes, "prefix"),
                                (datatypes, self.cap_datatypes, "datatype")):
            if size > cap:
                self._fail(at, f"max_{what}_table_size {size} exceeds this reader's limit of {cap} "
                               f"(raise it with ReaderLimits)", JellyLimitError)
        self.options_key = key
        self.options = StreamOptions(
            physical_type=physical, logical_type=logical, generalized_statements=gen,
            rdf_star=star, max_name_table_size=names, max_prefix_table_size=prefixes,
            max_datatype_table_size=datatypes, stream_name=name, version=version)
        self.physical_type = physical
        self.rdf_star = star
        self.generalized = gen
        self.n_names = names
        self.n_prefixes = prefixes
        self.n_datatypes = datatypes
        self.names = [None] * (names + 1)
        self.iri_cache = [None] * (names + 1)
        self.prefixes = [None] * (prefixes + 1)
        self.prefixes[0] = ""
        self.datatypes = [None] * (datatypes + 1)
        self.cache_pid = <long long*>calloc(names + 1, sizeof(long long))
        self.cache_gen = <unsigned long long*>calloc(names + 1, sizeof(unsigned long long))
        self.prefix_gen = <unsigned long long*>calloc(prefixes + 1, sizeof(unsigned long long))
        if self.cache_pid == NULL or self.cache_gen == NULL or self.prefix_gen == NULL:
            raise MemoryError()
        for i in range(names + 1):
            self.cache_pid[i] = -1
        return 0

    cdef int _row(self, const unsigned char* p, const unsigned char* end) except -1:
        cdef Slot row
        cdef uint64_t tag, v
        cdef const unsigned char* start = p
        cdef const unsigned char* tagpos
        cdef const unsigned char* q
        cdef int f, sub = 0
        cdef Py_ssize_t saved
        cdef bytes merged
        row.field = 0
        # Fast path: the row is one length-delimited member of the oneof filling the row.
        if p < end and (p[0] & 7) == WT_LEN and p[0] < 0x80:
            f = p[0] >> 3
            if 1 <= f <= 6 or 9 <= f <= 11:
                q = read_varint(p + 1, end, &v)
                if q != NULL and v == <uint64_t>(end - q):
                    self.counts[ROW_KIND_INDEX[f]] += 1
                    self._row_content(f, q, end)
                    return 0
        # The row is one oneof of message members: find the winner.
        while p < end:
            tagpos = p
            q = self._tag(p, end, &tag)
            f = <int>(tag >> 3) if (tag >> 3) < 64 else 0
            if (tag & 7) == WT_LEN and (1 <= f <= 6 or 9 <= f <= 11):
                p = self._length(q, end, &v)
                self._record(&row, f, M_ROW, tagpos, p, v)
                p = p + v
            else:
                p = self._skip(q, end, tag)
        if row.field == 0:
            self._fail(start, "stream row without content")
        self.counts[ROW_KIND_INDEX[row.field]] += 1
        if row.count > 1:
            merged = self._merged(&row, M_ROW)
            saved = self._scratch_begin(&row)
            try:
                p = <const unsigned char*>PyBytes_AS_STRING(merged)
                self._row_content(row.field, p, p + PyBytes_GET_SIZE(merged))
            finally:
                self._scratch_end(saved)
        else:
            self._row_content(row.field, row.p, row.end)
        return 0

    cdef int _row_content(self, int f, const unsigned char* p, const unsigned char* end) except -1:
        cdef int pt
        if f == ROW_OPTIONS:
            self._apply_options(self._options(p, end), p)
            return 0
        if self.options_key is None:
            self._fail(p, "the stream does not start with a stream options row")
        pt = self.physical_type
        if f == ROW_TRIPLE:
            if pt == PT_QUADS:
                self._fail(p, "triple row in a QUADS stream")
            if pt == PT_GRAPHS and not self.in_graph:
                self._fail(p, "triple row outside a graph in a GRAPHS stream")
            self._statement(p, end, False)
        elif f == ROW_QUAD:
            if pt != PT_QUADS:
                self._fail(p, f"quad row in a {PhysicalStreamType(pt).name} stream")
            self._statement(p, end, True)
        elif f == ROW_NAME or f == ROW_PREFIX or f == ROW_DATATYPE:
            self._entry(f, p, end)
        elif f == ROW_GRAPH_START:
            if pt != PT_GRAPHS:
                self._fail(p, f"graph_start row in a {PhysicalStreamType(pt).name} stream")
            self._graph_start(p, end)
        elif f == ROW_GRAPH_END:
            if pt != PT_GRAPHS:
                self._fail(p, f"graph_end row in a {PhysicalStreamType(pt).name} stream")
            self._validate(M_EMPTY, p, end, 0)
            if not self.in_graph:
                self._fail(p, "graph_end outside a graph")
            self.in_graph = False
            self.graph = None
        elif f == ROW_NAMESPACE:
            self._namespace(p, end)
        return 0

    # ------------------------------------------------------------------ frames

    cdef int _metadata_entry(self, const unsigned char* p, const unsigned char* end,
                             dict metadata) except -1:
        cdef uint64_t tag, v
        cdef const unsigned char* q
        cdef str key = ""
        cdef bytes value = b""
        while p < end:
            q = self._tag(p, end, &tag)
            if tag == 0x0A or tag == 0x12:
                p = self._length(q, end, &v)
                if tag == 0x0A:
                    key = self._string(p, p + v)
                else:
                    value = PyBytes_FromStringAndSize(<const char*>p, v)
                p = p + v
            else:
                p = self._skip(q, end, tag)
        metadata[key] = value
        return 0

    def decode_frame(self, bytes data, Py_ssize_t offset=0):
        """Decode one frame (the bytes of an ``RdfStreamFrame``, without a length prefix).

        ``offset`` is the position of ``data`` in the whole stream, used in error messages.
        Returns a :class:`Frame`.
        """
        cdef const unsigned char* p
        cdef const unsigned char* end
        cdef const unsigned char* q
        cdef uint64_t tag, v
        cdef dict metadata = {}
        cdef int gc_was_enabled
        if self.failed is not None:
            raise self.failed
        p = <const unsigned char*>PyBytes_AS_STRING(data)
        end = p + PyBytes_GET_SIZE(data)
        self.base = p
        self.base_offset = offset
        self.row_index = 0
        for i in range(9):
            self.counts[i] = 0
        self.named = 0
        self.in_scratch = False
        self.out = []
        if self.output == OUT_COLUMNS:
            self.col_s, self.col_p, self.col_o, self.col_g = [], [], [], []
        self.out_namespaces = []
        # A frame creates many objects and no cycles: without this, every 700 statement tuples
        # would start a collection.  The collector is back on when the frame is done.
        gc_was_enabled = PyGC_Disable()
        try:
            while p < end:
                q = self._tag(p, end, &tag)
                if tag == 0x0A or tag == 0x7A:
                    p = self._length(q, end, &v)
                    if tag == 0x0A:
                        self._row(p, p + v)
                        self.row_index += 1
                    else:
                        self._metadata_entry(p, p + v, metadata)
                    p = p + v
                else:
                    p = self._skip(q, end, tag)
        except Exception as exc:
            if isinstance(exc, JellyError):
                if exc.offset is None and exc.frame is None:
                    # e.g. from a term factory: keep its type and message, add the location
                    exc.offset, exc.frame, exc.row = offset, self.frame_index, self.row_index
                    exc.args = (exc._describe(),)
            else:
                exc = JellyDecodeError(f"cannot decode frame: {exc!r}", offset=offset,
                                       frame=self.frame_index, row=self.row_index)
            self.failed = exc
            raise exc
        finally:
            if gc_was_enabled:
                PyGC_Enable()
        if self.output == OUT_COLUMNS:
            if self.physical_type == PT_TRIPLES:
                statements = (self.col_s, self.col_p, self.col_o)
            else:
                statements = (self.col_s, self.col_p, self.col_o, self.col_g)
            self.col_s = self.col_p = self.col_o = self.col_g = None
        else:
            statements = self.out
        frame = Frame(self.frame_index, statements, metadata, self.out_namespaces,
                      tuple([self.counts[i] for i in range(9)]), self.named)
        self.frame_index += 1
        self.out = None
        return frame

    @property
    def in_graph_now(self):
        """True while a GRAPHS stream is inside a graph (between graph_start and graph_end)."""
        return self.in_graph
