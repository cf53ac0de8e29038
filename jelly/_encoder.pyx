# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Statement encoder: writes rows of ``RdfStreamFrame`` messages straight into one write buffer.

Each statement is encoded in two passes over its terms (quoted triples included, in the order the
spec fixes for IRI deltas): the first resolves every term to lookup slots, emitting the lookup
entry rows that must precede the statement, and records what to write; the second writes the
statement row.  Lookups are LRU tables.  A slot that the current statement already uses is never
evicted (tables too small for one statement are an error, not a corrupt stream).
"""

cimport cython
from libc.stdint cimport uint64_t, uint32_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memmove
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from cpython.tuple cimport PyTuple_GET_SIZE, PyTuple_GET_ITEM

from ._wire cimport (write_varint, varint_size, K_NONE, K_IRI, K_BNODE, K_LITERAL, K_TRIPLE,
                     K_DEFAULT)
from ._terms cimport IRI, BlankNode, Literal, Triple, DefaultGraph

from .errors import JellyEncodeError, JellyOptionsError
from .options import PhysicalStreamType, PROTOCOL_VERSION, PROTOCOL_VERSION_1_0

# Term positions.
cdef enum:
    POS_S = 0
    POS_P = 1
    POS_O = 2
    POS_G = 3
    POS_GRAPH_START = 4

cdef struct Planned:
    int kind
    uint32_t prefix_id          # values to write (0: field omitted)
    uint32_t name_id
    uint32_t datatype
    const char* s1              # bnode label or literal lexical form (UTF-8 inside the str)
    Py_ssize_t n1
    const char* s2              # language tag
    Py_ssize_t n2


cdef inline bint _same_term(object a, object b) except -1:
    # Equality for the repeated-term check, without a Python-level __eq__ call for the usual
    # cases (the same object, or two IRIs).
    if a is b:
        return True
    cdef type ta = type(a)
    if ta is not type(b):
        return False
    if ta is IRI:
        return (<IRI>a).value == (<IRI>b).value
    if ta is BlankNode:
        return (<BlankNode>a).value == (<BlankNode>b).value
    return a == b


cdef class _Lookup:
    """An LRU table of strings -> slots 1..size, with entry-id delta bookkeeping."""

    cdef uint32_t size, used, head, tail, last_id
    cdef dict slots
    cdef list keys
    cdef uint32_t* prev
    cdef uint32_t* next
    cdef uint64_t* gen
    cdef uint64_t* epoch

    def __cinit__(self, uint32_t size):
        self.size = size
        self.used = 0
        self.head = 0
        self.tail = 0
        self.last_id = 0
        self.slots = {}
        self.keys = [None] * (size + 1)
        self.prev = <uint32_t*>malloc((size + 1) * sizeof(uint32_t))
        self.next = <uint32_t*>malloc((size + 1) * sizeof(uint32_t))
        self.gen = <uint64_t*>malloc((size + 1) * sizeof(uint64_t))
        self.epoch = <uint64_t*>malloc((size + 1) * sizeof(uint64_t))
        if not (self.prev and self.next and self.gen and self.epoch):
            raise MemoryError()
        for i in range(size + 1):
            self.prev[i] = 0
            self.next[i] = 0
            self.gen[i] = 0
            self.epoch[i] = 0

    def __dealloc__(self):
        free(self.prev)
        free(self.next)
        free(self.gen)
        free(self.epoch)

    cdef inline void touch(self, uint32_t slot, uint64_t epoch) noexcept:
        # Move slot to the head (most recently used) of the list.
        self.epoch[slot] = epoch
        if self.head == slot:
            return
        cdef uint32_t p = self.prev[slot], n = self.next[slot]
        if p:
            self.next[p] = n
        if n:
            self.prev[n] = p
        if self.tail == slot:
            self.tail = p
        self.prev[slot] = 0
        self.next[slot] = self.head
        if self.head:
            self.prev[self.head] = slot
        self.head = slot
        if self.tail == 0:
            self.tail = slot

    cdef uint32_t find(self, str key, uint64_t epoch) except? 0:
        """The slot holding key (touched), or 0."""
        cdef object s = self.slots.get(key)
        if s is None:
            return 0
        cdef uint32_t slot = <uint32_t>s
        self.touch(slot, epoch)
        return slot

    cdef uint32_t assign(self, str key, uint64_t epoch) except 0:
        """A slot for a key not in the table: a free one, or the least recently used."""
        cdef uint32_t slot
        if self.used < self.size:
            self.used += 1
            slot = self.used
        else:
            slot = self.tail
            if self.epoch[slot] == epoch:
                raise _TableFull(self)
            del self.slots[self.keys[slot]]
        self.keys[slot] = key
        self.slots[key] = slot
        self.gen[slot] += 1
        self.touch(slot, epoch)
        return slot


class _TableFull(Exception):
    # Every slot of a table is used by the statement being encoded.
    def __init__(self, table):
        self.table = table


@cython.no_gc
cdef class _IriSplit:
    """An IRI split into prefix and name, with the slots it last resolved to (as a name and as
    a datatype)."""
    cdef str prefix
    cdef str name
    cdef uint32_t prefix_slot
    cdef uint64_t prefix_gen
    cdef uint32_t name_slot
    cdef uint64_t name_gen
    cdef uint32_t dt_slot
    cdef uint64_t dt_gen


# Each encoder gets an id, so that the split cached on an IRI object is known to be its own.
cdef unsigned long long _next_encoder_id = 0


cdef class Encoder:
    """Encoding state of one Jelly stream.

    Statements go in with :meth:`add_statements` (or the single-statement methods); the bytes of
    a finished ``RdfStreamFrame`` come out of :meth:`take_frame`.  The options row starts the
    first frame.
    """

    cdef readonly object options
    cdef int physical_type
    cdef bint rdf_star, generalized
    cdef uint32_t n_names, n_prefixes, n_datatypes
    cdef _Lookup names, prefixes, datatypes
    cdef unsigned long long encoder_id
    cdef str last_prefix
    cdef object term_adapter
    cdef uint32_t last_prefix_id, last_name_id
    cdef object last_s, last_p, last_o, last_g
    cdef uint64_t epoch
    cdef bint options_written
    cdef Py_ssize_t version_pos
    cdef public bint used_namespaces
    cdef int final_version
    cdef object open_graph
    cdef bint graph_is_open
    cdef readonly Py_ssize_t rows
    cdef readonly Py_ssize_t statements
    cdef public bint repeat_terms

    # The write buffer of the current frame.
    cdef unsigned char* buf
    cdef Py_ssize_t len
    cdef Py_ssize_t cap
    # The plan of the statement being encoded.
    cdef Planned* plan
    cdef int plan_len
    cdef int plan_cap
    cdef int max_depth
    cdef list _keep     # adapter-made terms whose UTF-8 strings the plan points into
    # Tiny prefix tables cannot hold the prefixes of every statement: such a statement is
    # planned again with whole IRIs as names (only the empty prefix), and after repeated
    # conflicts the whole stream is written that way.
    cdef bint whole_iris
    cdef bint retry_whole
    cdef int conflicts

    def __cinit__(self):
        self.buf = NULL
        self.plan = NULL

    def __init__(self, options, *, term_adapter=None, int max_quoted_depth=64):
        """``options`` is a :class:`jelly.StreamOptions`; ``term_adapter`` turns terms of other
        libraries into jelly terms (called only for objects that are not jelly terms)."""
        options.validate_for_writing()
        self.options = options
        self.physical_type = int(options.physical_type)
        self.rdf_star = options.rdf_star
        self.generalized = options.generalized_statements
        self.n_names = options.max_name_table_size
        self.n_prefixes = options.max_prefix_table_size
        self.n_datatypes = options.max_datatype_table_size
        self.names = _Lookup(self.n_names)
        self.prefixes = _Lookup(self.n_prefixes)
        self.datatypes = _Lookup(self.n_datatypes)
        global _next_encoder_id
        _next_encoder_id += 1
        self.encoder_id = _next_encoder_id
        self.last_prefix = None
        self.term_adapter = term_adapter
        self.max_depth = max_quoted_depth
        self.repeat_terms = True
        self.cap = 1 << 16
        self.buf = <unsigned char*>malloc(self.cap)
        self.plan_cap = 16
        self.plan = <Planned*>malloc(self.plan_cap * sizeof(Planned))
        if self.buf == NULL or self.plan == NULL:
            raise MemoryError()
        self.version_pos = -1
        self._keep = []
        # Version 1 means "automatic": it becomes 2 if namespaces are declared before the first
        # frame leaves.  Any other version was chosen by the caller and is written as is.
        self.final_version = 0 if options.version == PROTOCOL_VERSION_1_0 else options.version

    def __dealloc__(self):
        free(self.buf)
        free(self.plan)

    # ------------------------------------------------------------------ buffer

    cdef inline int _ensure(self, Py_ssize_t extra) except -1:
        cdef Py_ssize_t need = self.len + extra
        cdef unsigned char* nb
        if need <= self.cap:
            return 0
        while self.cap < need:
            self.cap *= 2
        nb = <unsigned char*>realloc(self.buf, self.cap)
        if nb == NULL:
            raise MemoryError()
        self.buf = nb
        return 0

    cdef inline void _byte(self, unsigned char b) noexcept:
        self.buf[self.len] = b
        self.len += 1

    cdef inline void _varint(self, uint64_t v) noexcept:
        self.len = write_varint(self.buf + self.len, v) - self.buf

    cdef inline Py_ssize_t _open(self) noexcept:
        # Reserve one byte for a length; _close fixes it up (moving the body if it is >= 128).
        cdef Py_ssize_t at = self.len
        self.len += 1
        return at

    cdef inline int _close(self, Py_ssize_t at) except -1:
        cdef Py_ssize_t body = self.len - at - 1
        cdef int n
        if body < 0x80:
            self.buf[at] = <unsigned char>body
            return 0
        n = varint_size(body)
        self._ensure(n - 1)
        memmove(self.buf + at + n, self.buf + at + 1, body)
        write_varint(self.buf + at, body)
        self.len += n - 1
        return 0

    cdef inline int _string_field(self, unsigned char tag, const char* s, Py_ssize_t n) except -1:
        self._ensure(11 + n)
        self._byte(tag)
        self._varint(n)
        memcpy(self.buf + self.len, s, n)
        self.len += n
        return 0

    # ------------------------------------------------------------------ rows

    cdef int _begin_row(self) except -1:
        if not self.options_written:
            self._write_options()
        self.rows += 1
        return 0

    cdef int _write_options(self) except -1:
        cdef Py_ssize_t row, msg
        cdef const char* s
        cdef Py_ssize_t n
        o = self.options
        self.options_written = True
        self._ensure(64)
        self._byte(0x0A)
        row = self._open()
        self._byte(0x0A)
        msg = self._open()
        if o.stream_name:
            self._utf8(o.stream_name, &s, &n)
            self._string_field(0x0A, s, n)
        self._ensure(64)
        self._byte(0x10)
        self._varint(int(o.physical_type))
        if o.generalized_statements:
            self._byte(0x18)
            self._byte(1)
        if o.rdf_star:
            self._byte(0x20)
            self._byte(1)
        self._byte(0x48)
        self._varint(o.max_name_table_size)
        if o.max_prefix_table_size:
            self._byte(0x50)
            self._varint(o.max_prefix_table_size)
        if o.max_datatype_table_size:
            self._byte(0x58)
            self._varint(o.max_datatype_table_size)
        if int(o.logical_type):
            self._byte(0x70)
            self._varint(<uint64_t>(<long long>int(o.logical_type)))
        self._byte(0x78)
        self.version_pos = self.len
        self._varint(o.version)
        self._close(msg)
        self._close(row)
        self.rows += 1
        return 0

    cdef int _entry_row(self, unsigned char row_tag, _Lookup table, uint32_t slot, str value) except -1:
        cdef Py_ssize_t n
        cdef const char* s
        cdef Py_ssize_t row, msg
        self._utf8(value, &s, &n)
        self._begin_row()
        self._ensure(24 + n)
        self._byte(0x0A)
        row = self._open()
        self._byte(row_tag)
        msg = self._open()
        if slot != table.last_id + 1:
            self._byte(0x08)
            self._varint(slot)
        table.last_id = slot
        if n:   # proto3 leaves out empty strings
            self._string_field(0x12, s, n)
        self._close(msg)
        self._close(row)
        return 0

    # ------------------------------------------------------------------ terms: resolve pass

    cdef inline Planned* _push(self) except NULL:
        cdef Planned* np
        if self.plan_len == self.plan_cap:
            self.plan_cap *= 2
            np = <Planned*>realloc(self.plan, self.plan_cap * sizeof(Planned))
            if np == NULL:
                raise MemoryError()
            self.plan = np
        self.plan_len += 1
        return &self.plan[self.plan_len - 1]

    cdef _IriSplit _split(self, IRI iri):
        cdef _IriSplit sp
        cdef str v, last
        cdef Py_ssize_t cut
        cdef const char* u
        # The same IRI object again (decoders and parsers share them): no lookup at all.  The
        # split lives on the IRI object, so memory follows the caller's objects; an equal but
        # distinct IRI object is split again and finds its slots through the tables.
        if iri._enc_id == self.encoder_id:
            return <_IriSplit>iri._enc
        v = iri.value
        # Checked before any slot is taken, so a bad IRI cannot leave a slot without its row.
        self._utf8(v, &u, &cut)
        sp = _IriSplit.__new__(_IriSplit)
        if self.n_prefixes == 0 or self.whole_iris:
            sp.prefix = ""
            sp.name = v
        else:
            # Split after the last '/' or '#', as jelly-jvm does.
            cut = max(v.rfind("/"), v.rfind("#")) + 1
            last = self.last_prefix
            # Runs of IRIs share a prefix: reuse its string (and cached hash) when it fits.
            if last is not None and len(last) == cut and v.startswith(last):
                sp.prefix = last
            else:
                sp.prefix = v[:cut]
                self.last_prefix = sp.prefix
            sp.name = v[cut:]
        iri._enc = sp
        iri._enc_id = self.encoder_id
        return sp

    cdef int _resolve_iri(self, IRI iri, Planned* pl) except -1:
        cdef _IriSplit sp
        cdef uint32_t pid = 0, nid
        if self.retry_whole and not self.whole_iris:
            sp = _IriSplit.__new__(_IriSplit)
            sp.prefix = ""
            sp.name = iri.value
        else:
            sp = self._split(iri)
        if self.n_prefixes:
            if sp.prefix_slot and self.prefixes.gen[sp.prefix_slot] == sp.prefix_gen:
                pid = sp.prefix_slot
                self.prefixes.touch(pid, self.epoch)
            else:
                pid = self.prefixes.find(sp.prefix, self.epoch)
                if pid == 0:
                    pid = self.prefixes.assign(sp.prefix, self.epoch)
                    self._entry_row(0x52, self.prefixes, pid, sp.prefix)
                sp.prefix_slot = pid
                sp.prefix_gen = self.prefixes.gen[pid]
        if sp.name_slot and self.names.gen[sp.name_slot] == sp.name_gen:
            nid = sp.name_slot
            self.names.touch(nid, self.epoch)
        else:
            nid = self.names.find(sp.name, self.epoch)
            if nid == 0:
                nid = self.names.assign(sp.name, self.epoch)
                self._entry_row(0x4A, self.names, nid, sp.name)
            sp.name_slot = nid
            sp.name_gen = self.names.gen[nid]
        pl.kind = K_IRI
        pl.prefix_id = 0 if pid == self.last_prefix_id else pid
        pl.name_id = 0 if nid == self.last_name_id + 1 else nid
        self.last_prefix_id = pid
        self.last_name_id = nid
        return 0

    cdef int _utf8(self, str s, const char** out, Py_ssize_t* n) except -1:
        try:
            out[0] = PyUnicode_AsUTF8AndSize(s, n)
        except UnicodeEncodeError:
            raise JellyEncodeError(f"string {s[:40]!r} cannot be written as UTF-8 "
                                   f"(it holds a lone surrogate)") from None
        return 0

    cdef int _resolve(self, object term, int pos, int depth) except -1:
        """Resolve one term (recursively for quoted triples) into the plan."""
        cdef Planned* pl
        cdef type t = type(term)
        cdef Literal lit
        cdef Triple tr
        cdef uint32_t dt
        cdef str dts
        cdef _IriSplit sp
        if t is IRI:
            pl = self._push()
            self._resolve_iri(<IRI>term, pl)
            return 0
        if t is BlankNode:
            if pos == POS_P and not self.generalized:
                raise JellyEncodeError("a blank node predicate is a generalized statement; "
                                       "enable generalized_statements")
            pl = self._push()
            pl.kind = K_BNODE
            self._utf8((<BlankNode>term).value, &pl.s1, &pl.n1)
            return 0
        if t is Literal:
            lit = <Literal>term
            if pos != POS_O and not self.generalized:
                raise JellyEncodeError(
                    f"a literal in the {_POS_NAMES[pos]} position is a generalized statement; "
                    f"enable generalized_statements")
            if lit.datatype is not None:
                if self.n_datatypes == 0:
                    raise JellyEncodeError(
                        f"typed literal {lit!r} needs the datatype table, whose size is 0")
                sp = self._split(<IRI>lit.datatype)
                if sp.dt_slot and self.datatypes.gen[sp.dt_slot] == sp.dt_gen:
                    dt = sp.dt_slot
                    self.datatypes.touch(dt, self.epoch)
                else:
                    dts = (<IRI>lit.datatype).value
                    dt = self.datatypes.find(dts, self.epoch)
                    if dt == 0:
                        dt = self.datatypes.assign(dts, self.epoch)
                        self._entry_row(0x5A, self.datatypes, dt, dts)
                    sp.dt_slot = dt
                    sp.dt_gen = self.datatypes.gen[dt]
            else:
                dt = 0
            pl = self._push()
            pl.kind = K_LITERAL
            pl.datatype = dt
            self._utf8(lit.lex, &pl.s1, &pl.n1)
            if lit.language is not None:
                self._utf8(<str>lit.language, &pl.s2, &pl.n2)
            else:
                pl.s2 = NULL
            return 0
        if t is Triple:
            if pos == POS_G or pos == POS_GRAPH_START:
                raise JellyEncodeError("a quoted triple cannot name a graph")
            if not self.rdf_star:
                raise JellyEncodeError("quoted triple (RDF-star) in a stream whose options do not "
                                       "enable rdf_star")
            if pos == POS_P and not self.generalized:
                raise JellyEncodeError("a quoted triple predicate is a generalized statement; "
                                       "enable generalized_statements")
            if depth >= self.max_depth:
                raise JellyEncodeError(f"quoted triples nested deeper than {self.max_depth}")
            tr = <Triple>term
            pl = self._push()
            pl.kind = K_TRIPLE
            self._resolve(tr.s, POS_S, depth + 1)
            self._resolve(tr.p, POS_P, depth + 1)
            self._resolve(tr.o, POS_O, depth + 1)
            return 0
        if t is DefaultGraph:
            if pos != POS_G and pos != POS_GRAPH_START:
                raise JellyEncodeError("the default graph is not an RDF term")
            pl = self._push()
            pl.kind = K_DEFAULT
            return 0
        if term is None:
            raise JellyEncodeError(f"missing term (None) in the {_POS_NAMES[pos]} position")
        if self.term_adapter is not None:
            native = self.term_adapter(term)
            self._keep.append(native)
            if type(native) in (IRI, BlankNode, Literal, Triple, DefaultGraph):
                return self._resolve(native, pos, depth)
        raise JellyEncodeError(f"not an RDF term: {term!r}")

    # ------------------------------------------------------------------ terms: write pass

    cdef int _write_term(self, int* i, int field_base, bint graph_oneof) except -1:
        """Write the plan entry at i[0] as a field of the enclosing message."""
        cdef Planned* pl = &self.plan[i[0]]
        cdef Py_ssize_t at
        cdef int j
        i[0] += 1
        self._ensure(32)
        if pl.kind == K_IRI:
            self._varint((field_base) << 3 | 2)
            at = self._open()
            if pl.prefix_id:
                self._byte(0x08)
                self._varint(pl.prefix_id)
            if pl.name_id:
                self._byte(0x10)
                self._varint(pl.name_id)
            self.buf[at] = <unsigned char>(self.len - at - 1)   # at most 12 bytes
        elif pl.kind == K_BNODE:
            self._ensure(2)
            self._varint((field_base + 1) << 3 | 2)
            self._ensure(10 + pl.n1)
            self._varint(pl.n1)
            memcpy(self.buf + self.len, pl.s1, pl.n1)
            self.len += pl.n1
        elif pl.kind == K_LITERAL:
            self._varint((field_base + (3 if graph_oneof else 2)) << 3 | 2)
            at = self._open()
            if pl.n1:
                self._string_field(0x0A, pl.s1, pl.n1)
            if pl.s2 != NULL:
                self._string_field(0x12, pl.s2, pl.n2)
            elif pl.datatype:
                self._ensure(6)
                self._byte(0x18)
                self._varint(pl.datatype)
            self._close(at)
        elif pl.kind == K_DEFAULT:
            self._varint((field_base + 2) << 3 | 2)
            self._byte(0)
        elif pl.kind == K_TRIPLE:
            self._varint((field_base + 3) << 3 | 2)
            at = self._open()
            for j in range(3):
                self._write_term(i, 1 + 4 * j, False)
            self._close(at)
        return 0

    cdef int _write_statement_row(self, unsigned char row_tag, int nterms) except -1:
        cdef Py_ssize_t row, msg
        cdef int i = 0, k
        self._begin_row()
        self._ensure(8)
        self._byte(0x0A)
        row = self._open()
        self._byte(row_tag)
        msg = self._open()
        for k in range(nterms):
            if self.plan[i].kind == K_NONE:
                i += 1
            else:
                self._write_term(&i, 1 + 4 * k, k == 3)
        self._close(msg)
        self._close(row)
        self.statements += 1
        return 0

    # ------------------------------------------------------------------ statements

    cdef inline int _position(self, object term, int pos, object last) except -1:
        cdef Planned* pl
        if self.repeat_terms and last is not None and _same_term(term, last):
            pl = self._push()
            pl.kind = K_NONE
            return 0
        self._resolve(term, pos, 0)
        return 0

    cdef int _plan_terms(self, object s, object p, object o, object g, int n) except -1:
        if n < 0:     # graph_start (g) or namespace declaration (s)
            self._resolve(g if n == -1 else s, POS_GRAPH_START if n == -1 else POS_O, 0)
            return 0
        self._position(s, POS_S, self.last_s)
        self._position(p, POS_P, self.last_p)
        self._position(o, POS_O, self.last_o)
        if n == 4:
            self._position(g, POS_G, self.last_g)
        return 0

    cdef int _plan(self, object s, object p, object o, object g, int n) except -1:
        # A refused statement leaves the stream as it was: lookup rows emitted while planning are
        # complete, valid table updates, and the IRI delta state is rolled back here.
        cdef uint32_t lp = self.last_prefix_id, ln = self.last_name_id
        self.epoch += 1
        self.plan_len = 0
        try:
            self._plan_terms(s, p, o, g, n)
            return 0
        except _TableFull as exc:
            self.last_prefix_id = lp
            self.last_name_id = ln
            if exc.table is not self.prefixes or self.whole_iris:
                raise JellyEncodeError(_table_full_message(exc.table is self.names)) from None
        except BaseException:
            self.last_prefix_id = lp
            self.last_name_id = ln
            raise
        # The lookup rows emitted so far are valid updates; only the plan and the IRI delta state
        # are rolled back before planning again with whole IRIs.
        self.conflicts += 1
        if self.conflicts > 8:
            self.whole_iris = True
            global _next_encoder_id   # a new id invalidates the splits cached on IRI objects
            _next_encoder_id += 1
            self.encoder_id = _next_encoder_id
        self.last_prefix_id = lp
        self.last_name_id = ln
        self.epoch += 1
        self.plan_len = 0
        self.retry_whole = True
        try:
            self._plan_terms(s, p, o, g, n)
        except _TableFull as exc:
            self.last_prefix_id = lp
            self.last_name_id = ln
            raise JellyEncodeError(_table_full_message(exc.table is self.names)) from None
        except BaseException:
            self.last_prefix_id = lp
            self.last_name_id = ln
            raise
        finally:
            self.retry_whole = False
        return 0

    cdef int _triple(self, object s, object p, object o) except -1:
        self._plan(s, p, o, None, 3)
        self.last_s = s
        self.last_p = p
        self.last_o = o
        self._write_statement_row(0x12, 3)
        return 0

    cdef int _quad(self, object s, object p, object o, object g) except -1:
        self._plan(s, p, o, g, 4)
        self.last_s = s
        self.last_p = p
        self.last_o = o
        self.last_g = g
        self._write_statement_row(0x1A, 4)
        return 0

    cdef int _graph_start(self, object g) except -1:
        cdef Py_ssize_t row, msg
        cdef int i = 0
        self._plan(None, None, None, g, -1)
        self._begin_row()
        self._ensure(8)
        self._byte(0x0A)
        row = self._open()
        self._byte(0x22)
        msg = self._open()
        self._write_term(&i, 1, True)
        self._close(msg)
        self._close(row)
        self.open_graph = g
        self.graph_is_open = True
        return 0

    cdef int _graph_end(self) except -1:
        self._begin_row()
        self._ensure(4)
        self._byte(0x0A)
        self._byte(2)
        self._byte(0x2A)
        self._byte(0)
        self.graph_is_open = False
        self.open_graph = None
        return 0

    cdef int _statement(self, object st) except -1:
        cdef Py_ssize_t n
        cdef object s, p, o, g
        if self._keep:
            self._keep.clear()
        if type(st) is tuple:
            n = PyTuple_GET_SIZE(st)
        else:
            try:
                st = tuple(st)
            except TypeError:
                raise JellyEncodeError(f"a statement must be a tuple (s, p, o) or (s, p, o, g), "
                                       f"not {type(st).__name__}") from None
            n = len(st)
        if n == 3:
            s = <object>PyTuple_GET_ITEM(st, 0)
            p = <object>PyTuple_GET_ITEM(st, 1)
            o = <object>PyTuple_GET_ITEM(st, 2)
            g = None
        elif n == 4:
            s = <object>PyTuple_GET_ITEM(st, 0)
            p = <object>PyTuple_GET_ITEM(st, 1)
            o = <object>PyTuple_GET_ITEM(st, 2)
            g = <object>PyTuple_GET_ITEM(st, 3)
        else:
            raise JellyEncodeError(f"a statement must have 3 or 4 terms, not {n}")
        if self.physical_type == 1:       # TRIPLES
            if g is not None and type(g) is not DefaultGraph:
                if self.term_adapter is None or type(self.term_adapter(g)) is not DefaultGraph:
                    raise JellyEncodeError("a TRIPLES stream cannot hold a statement in a named "
                                           "graph; use physical type QUADS or GRAPHS")
            self._triple(s, p, o)
        elif self.physical_type == 2:     # QUADS
            if g is None:
                g = _DEFAULT_GRAPH
            self._quad(s, p, o, g)
        else:                             # GRAPHS: consecutive statements of a graph share one
            if g is None:
                g = _DEFAULT_GRAPH
            if not self.graph_is_open or not (g is self.open_graph or g == self.open_graph):
                if self.graph_is_open:
                    self._graph_end()
                self._graph_start(g)
            self._triple(s, p, o)
        return 0

    def add_statements(self, iterator, Py_ssize_t max_rows=-1, stop=None):
        """Encode statements from ``iterator`` until it is exhausted (returns True) or the frame
        holds at least ``max_rows`` rows (returns False; the iterator is left where it stopped).

        If the iterator yields the object ``stop`` (e.g. a message delimiter), encoding stops
        there and ``stop`` is returned.
        """
        cdef object st
        it = iter(iterator)
        while max_rows < 0 or self.rows < max_rows:
            try:
                st = next(it)
            except StopIteration:
                return True
            if st is stop and stop is not None:
                return stop
            self._statement(st)
        return False

    def add(self, statement):
        """Encode one statement."""
        self._statement(statement)

    def start_graph(self, graph):
        """GRAPHS streams: open a graph explicitly (closes the open one)."""
        if self.physical_type != 3:
            raise JellyEncodeError("graph_start rows exist only in GRAPHS streams")
        if self.graph_is_open:
            self._graph_end()
        self._graph_start(graph if graph is not None else _DEFAULT_GRAPH)

    def end_graph(self):
        """GRAPHS streams: close the open graph, if any."""
        if self.graph_is_open:
            self._graph_end()

    def add_namespace(self, str name, iri):
        """Write a namespace declaration row (name without the colon, IRI of the namespace)."""
        cdef Py_ssize_t row, msg, n
        cdef const char* s
        cdef int i = 0
        if type(iri) is str:
            iri = _make_iri(iri)
        elif type(iri) is not IRI and self.term_adapter is not None:
            iri = self.term_adapter(iri)
        if type(iri) is not IRI:
            raise JellyEncodeError(f"a namespace must be an IRI, not {iri!r}")
        if self.final_version == PROTOCOL_VERSION_1_0:
            raise JellyEncodeError("namespace declarations need protocol version 2, but the "
                                   "stream options were already written with version 1; declare "
                                   "namespaces before the first frame is flushed")
        self._utf8(name, &s, &n)
        self.used_namespaces = True
        self._plan(iri, None, None, None, -2)
        self._begin_row()
        self._ensure(16 + n)
        self._byte(0x0A)
        row = self._open()
        self._byte(0x32)
        msg = self._open()
        if n:
            self._string_field(0x0A, s, n)
        self._write_term(&i, 2, False)
        self._close(msg)
        self._close(row)

    def take_frame(self, metadata=None, bint close_graph=False):
        """Return the bytes of the current ``RdfStreamFrame`` and start a new one.

        ``metadata`` (a mapping of str to bytes) is written as the frame's metadata;
        ``close_graph`` ends an open graph first (grouped GRAPHS streams keep graphs in a frame).
        """
        cdef Py_ssize_t at, n
        cdef const char* s
        if close_graph and self.graph_is_open:
            self._graph_end()
        if not self.options_written:
            self._write_options()
        if self.final_version == 0:
            # The version is settled when the first frame leaves: 2 only if namespaces were used.
            self.final_version = PROTOCOL_VERSION if self.used_namespaces else PROTOCOL_VERSION_1_0
            self.buf[self.version_pos] = self.final_version
        if metadata:
            for key, value in metadata.items():
                if not isinstance(key, str) or not isinstance(value, (bytes, bytearray)):
                    raise JellyEncodeError("frame metadata must map str keys to bytes values")
                self._utf8(key, &s, &n)
                bvalue = bytes(value)
                self._ensure(24 + n + len(bvalue))
                self._byte(0x7A)
                at = self._open()
                self._string_field(0x0A, s, n)
                self._string_field(0x12, <const char*>bvalue, len(bvalue))
                self._close(at)
        data = PyBytes_FromStringAndSize(<const char*>self.buf, self.len)
        self.len = 0
        self.rows = 0
        return data

    @property
    def pending(self):
        """True when the current frame holds rows that :meth:`take_frame` has not returned."""
        return self.len > 0


from ._terms import DEFAULT_GRAPH as _DEFAULT_GRAPH, IRI as _make_iri

_POS_NAMES = ("subject", "predicate", "object", "graph", "graph")


def _table_full_message(names):
    what = "IRI names" if names else "datatypes"
    return (f"one statement uses more distinct {what} than the lookup table holds "
            f"(deeply nested quoted triples?); use a larger table")
