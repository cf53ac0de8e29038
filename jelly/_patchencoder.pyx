# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Jelly-Patch encoder: patch operations as rows of ``RdfPatchFrame`` messages in one write
buffer.

The term encoding (lookups, IRI deltas, repeated terms, the plan of each row) is
``_termencoder.TermEncoder``, as for Jelly-RDF; this module adds the patch options row, the
operation rows and punctuation.  Framing (when a frame ends) is the caller's: ``take_frame``
returns the bytes of the frame written so far.  The options row is put in front of the first
frame when it leaves, so ``rdf_star`` can be settled from the data of that frame.
"""

cimport cython
from libc.string cimport memcpy
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize

from ._wire cimport K_NONE, K_TRIPLE, write_varint, varint_size
from ._buffer cimport (WriteBuffer, wb_init, wb_free, wb_ensure, wb_byte, wb_varint, wb_open,
                       wb_close, wb_string_field, wb_take, utf8_of)
from ._termencoder cimport TermEncoder, PLAN_GRAPH, PLAN_TERM, PLAN_TERM_GRAPH
from ._terms cimport IRI, Triple, DefaultGraph
from ._patchops cimport (PatchOp, Add, Delete, PrefixAdd, PrefixDelete, Header, OP_ADD,
                         OP_DELETE, OP_PREFIX_ADD, OP_PREFIX_DELETE, OP_TX_START, OP_TX_COMMIT,
                         OP_TX_ABORT, OP_HEADER, OP_END_OF_PATCH)

from ._terms import DEFAULT_GRAPH as _DEFAULT_GRAPH, IRI as _make_iri
from .errors import JellyEncodeError
from .options import PATCH_STATEMENT_TYPES, PATCH_STREAM_TYPES

# Row tags of RdfPatchRow members.
cdef enum:
    TAG_OPTIONS = 0x0A
    TAG_ADD = 0x12
    TAG_DELETE = 0x1A
    TAG_NS_ADD = 0x22
    TAG_NS_DELETE = 0x2A
    TAG_TX_START = 0x32
    TAG_TX_COMMIT = 0x3A
    TAG_TX_ABORT = 0x42
    TAG_NAME = 0x5A
    TAG_HEADER = 0x72
    TAG_PUNCTUATION = 0x7A

cdef enum:
    ST_QUADS = 2
    PS_PUNCTUATED = 3


cdef int write_options_row(WriteBuffer* b, object o, bint rdf_star) except -1:
    """The options row of ``o`` (PatchOptions), with ``rdf_star`` as given."""
    cdef Py_ssize_t row, msg
    wb_ensure(b, 64)
    wb_byte(b, 0x0A)
    row = wb_open(b)
    wb_byte(b, TAG_OPTIONS)
    msg = wb_open(b)
    wb_byte(b, 0x08)
    wb_varint(b, PATCH_STATEMENT_TYPES[o.statement_type])
    wb_byte(b, 0x10)
    wb_varint(b, PATCH_STREAM_TYPES[o.stream_type])
    if o.generalized_statements:
        wb_byte(b, 0x18)
        wb_byte(b, 1)
    if rdf_star:
        wb_byte(b, 0x20)
        wb_byte(b, 1)
    wb_byte(b, 0x48)
    wb_varint(b, o.max_name_table_size)
    if o.max_prefix_table_size:
        wb_byte(b, 0x50)
        wb_varint(b, o.max_prefix_table_size)
    if o.max_datatype_table_size:
        wb_byte(b, 0x58)
        wb_varint(b, o.max_datatype_table_size)
    wb_byte(b, 0x78)
    wb_varint(b, o.version)
    wb_close(b, msg)
    wb_close(b, row)
    return 0


@cython.final
cdef class PatchEncoder(TermEncoder):
    """Encoding state of one Jelly-Patch stream.

    Operations go in with :meth:`add` / :meth:`add_operations`, punctuation with
    :meth:`punctuation`; the bytes of a finished ``RdfPatchFrame`` come out of
    :meth:`take_frame`.  ``options`` is a :class:`jelly.PatchOptions` (its statement type
    decides how statements and namespaces are written).  With ``rdf_star_auto`` the options say
    ``rdf_star`` exactly when the first frame holds a quoted triple; one after the first frame
    is then an error.
    """

    cdef object base_options
    cdef bint quads
    cdef bint punctuated
    cdef bint options_written
    cdef bint star_auto, star_used
    cdef readonly Py_ssize_t operations

    def __init__(self, options, *, term_adapter=None, int max_quoted_depth=64,
                 bint rdf_star_auto=False):
        options.validate_for_writing()
        self.base_options = options
        self.quads = PATCH_STATEMENT_TYPES[options.statement_type] == ST_QUADS
        self.punctuated = PATCH_STREAM_TYPES[options.stream_type] == PS_PUNCTUATED
        self.init_terms(options, term_adapter, max_quoted_depth, TAG_NAME)
        self.star_auto = rdf_star_auto
        if rdf_star_auto:
            self.rdf_star = True        # until the first frame leaves

    @property
    def options(self):
        """The options of the stream (``rdf_star`` settled once the first frame has left)."""
        if self.star_auto:
            return self.base_options.replace(rdf_star=self.rdf_star and self.options_written)
        return self.base_options

    # ------------------------------------------------------------------ rows

    cdef inline int open_row(self, unsigned char tag, Py_ssize_t* row) except -1:
        # Starts a row holding the message member ``tag``; returns where the message's
        # length goes (wb_close it, then the row).
        self.begin_row()
        wb_ensure(&self.buf, 8)
        wb_byte(&self.buf, 0x0A)
        row[0] = wb_open(&self.buf)
        wb_byte(&self.buf, tag)
        return wb_open(&self.buf)

    cdef int close_row(self, Py_ssize_t row, Py_ssize_t msg) except -1:
        wb_close(&self.buf, msg)
        wb_close(&self.buf, row)
        self.operations += 1
        return 0

    cdef int note_star(self) except -1:
        # rdf_star automatic: does the planned row hold a quoted triple?
        cdef int i
        for i in range(self.plan_len):
            if self.plan[i].kind == K_TRIPLE:
                self.star_used = True
        return 0

    cdef int late_star(self, object a, object b, object c) except -1:
        # rdf_star automatic, settled False with the first frame: say so before the term
        # encoder refuses the quoted triple in general words.
        if type(a) is Triple or type(b) is Triple or type(c) is Triple:
            raise JellyEncodeError("quoted triple after the first frame of a stream whose "
                                   "rdf_star was settled automatically from that frame (no "
                                   "quoted triple in it): write with rdf_star=True "
                                   "(jelly patch convert --rdf-star)")
        return 0

    cdef bint in_graph(self, object g) except -1:
        # True for a graph other than the default graph (None is no graph).
        if g is None or type(g) is DefaultGraph:
            return False
        if self.term_adapter is not None and type(self.term_adapter(g)) is DefaultGraph:
            return False
        return True

    cdef int statement(self, unsigned char tag, object s, object p, object o,
                       object g) except -1:
        cdef Py_ssize_t row, msg
        cdef int n = 3
        if self.star_auto and self.options_written and not self.rdf_star:
            self.late_star(s, p, o)
        if self.quads:
            # A triple of a QUADS stream is a statement of the default graph.
            if g is None:
                g = _DEFAULT_GRAPH
            self.plan_row(s, p, o, g, 4)
            self.last_g = g
            n = 4
        else:
            if self.in_graph(g):
                raise JellyEncodeError("a statement in a named graph cannot be written to a "
                                       "patch stream of statement type TRIPLES (use "
                                       "statement_type='quads')")
            self.plan_row(s, p, o, None, 3)
        self.last_s = s
        self.last_p = p
        self.last_o = o
        if self.star_auto and not self.options_written:
            self.note_star()
        msg = self.open_row(tag, &row)
        self.write_terms(n)
        return self.close_row(row, msg)

    cdef int namespace(self, unsigned char tag, str name, object iri, object graph) except -1:
        cdef Py_ssize_t row, msg, n
        cdef const char* s
        cdef int i = 0
        if iri is not None:
            if type(iri) is str:
                iri = _make_iri(iri)
            elif type(iri) is not IRI and self.term_adapter is not None:
                iri = self.term_adapter(iri)
            if type(iri) is not IRI:
                raise JellyEncodeError(f"a namespace must be an IRI, not {iri!r}")
        elif tag == TAG_NS_ADD:
            raise JellyEncodeError("a namespace added needs its IRI")
        utf8_of(name, &s, &n)
        if self.quads:
            # No graph: the default graph (jelly-jvm's reading of a namespace of no graph).
            if graph is None:
                graph = _DEFAULT_GRAPH
            if iri is not None:
                self.plan_row(iri, None, None, graph, PLAN_TERM_GRAPH)
            else:
                self.plan_row(None, None, None, graph, PLAN_GRAPH)
            self.last_g = graph        # shared with the statements' repeated graph
        else:
            if self.in_graph(graph):
                raise JellyEncodeError("a namespace in a named graph cannot be written to a "
                                       "patch stream of statement type TRIPLES (use "
                                       "statement_type='quads')")
            if iri is not None:
                self.plan_row(iri, None, None, None, PLAN_TERM)
            else:
                self.plan_len = 0
        msg = self.open_row(tag, &row)
        if n:
            wb_string_field(&self.buf, 0x0A, s, n)
        if iri is not None:
            self.write_term(&i, 2, False)
        if i < self.plan_len and self.plan[i].kind != K_NONE:
            self.write_term(&i, 3, True)
        return self.close_row(row, msg)

    cdef int header(self, str key, object value) except -1:
        cdef Py_ssize_t row, msg, n
        cdef const char* s
        cdef int i = 0
        utf8_of(key, &s, &n)
        if self.star_auto and self.options_written and not self.rdf_star:
            self.late_star(value, None, None)
        self.plan_row(value, None, None, None, PLAN_TERM)
        if self.star_auto and not self.options_written:
            self.note_star()
        msg = self.open_row(TAG_HEADER, &row)
        if n:
            wb_string_field(&self.buf, 0x0A, s, n)
        self.write_term(&i, 2, False)
        return self.close_row(row, msg)

    cdef int empty_row(self, unsigned char tag) except -1:
        self.begin_row()
        wb_ensure(&self.buf, 4)
        wb_byte(&self.buf, 0x0A)
        wb_byte(&self.buf, 2)
        wb_byte(&self.buf, tag)
        wb_byte(&self.buf, 0)
        return 0

    cdef int operation(self, PatchOp op) except -1:
        """Encode one operation (END_OF_PATCH is the caller's: it decides framing)."""
        cdef int k = op.kind
        cdef Add a
        cdef Delete d
        if k == OP_ADD:
            a = <Add>op
            return self.statement(TAG_ADD, a.s, a.p, a.o, a.g)
        if k == OP_DELETE:
            d = <Delete>op
            return self.statement(TAG_DELETE, d.s, d.p, d.o, d.g)
        if k == OP_PREFIX_ADD:
            return self.namespace(TAG_NS_ADD, (<PrefixAdd>op).prefix, (<PrefixAdd>op).iri,
                                  (<PrefixAdd>op).graph)
        if k == OP_PREFIX_DELETE:
            return self.namespace(TAG_NS_DELETE, (<PrefixDelete>op).prefix,
                                  (<PrefixDelete>op).iri, (<PrefixDelete>op).graph)
        if k == OP_HEADER:
            return self.header((<Header>op).key, (<Header>op).value)
        if k == OP_TX_START or k == OP_TX_COMMIT or k == OP_TX_ABORT:
            self.empty_row(TAG_TX_START if k == OP_TX_START
                           else TAG_TX_COMMIT if k == OP_TX_COMMIT else TAG_TX_ABORT)
            self.operations += 1
            return 0
        raise JellyEncodeError("END_OF_PATCH is a frame or punctuation decision of the writer")

    # ------------------------------------------------------------------ public API

    def add(self, op):
        """Encode one operation (not ``END_OF_PATCH``: see :meth:`punctuation`)."""
        if not isinstance(op, PatchOp):
            raise JellyEncodeError(f"not a patch operation: {op!r}")
        self.operation(<PatchOp>op)

    def add_operations(self, iterator, Py_ssize_t max_rows=-1):
        """Encode operations from ``iterator`` until it is exhausted (returns True), the frame
        holds at least ``max_rows`` rows (returns False), or it yields ``END_OF_PATCH``
        (returns that object; the iterator is left after it)."""
        cdef object op
        it = iter(iterator)
        while max_rows < 0 or self.rows < max_rows:
            try:
                op = next(it)
            except StopIteration:
                return True
            if not isinstance(op, PatchOp):
                raise JellyEncodeError(f"not a patch operation: {op!r}")
            if (<PatchOp>op).kind == OP_END_OF_PATCH:
                return op
            self.operation(<PatchOp>op)
        return False

    def punctuation(self):
        """Write a punctuation row (the end of a patch in a PUNCTUATED stream)."""
        if not self.punctuated:
            raise JellyEncodeError(f"punctuation rows exist only in PUNCTUATED streams, not "
                                   f"{self.base_options.stream_type.upper()}")
        self.empty_row(TAG_PUNCTUATION)

    def take_frame(self, bint delimited=False):
        """Return the bytes of the current ``RdfPatchFrame`` (after its length as a varint when
        ``delimited``) and start a new one.  The first frame starts with the options row."""
        cdef WriteBuffer head
        cdef Py_ssize_t n, total
        cdef bytes out
        cdef unsigned char* p
        self.rows = 0
        if self.options_written:
            return wb_take(&self.buf, delimited)
        self.options_written = True
        if self.star_auto:
            self.rdf_star = self.star_used      # from here on a quoted triple is an error
        wb_init(&head, 64)
        try:
            write_options_row(&head, self.base_options, self.rdf_star)
            total = head.len + self.buf.len
            n = varint_size(total) if delimited else 0
            out = PyBytes_FromStringAndSize(NULL, n + total)
            p = <unsigned char*>PyBytes_AS_STRING(out)
            if delimited:
                write_varint(p, total)
            memcpy(p + n, head.data, head.len)
            memcpy(p + n + head.len, self.buf.data, self.buf.len)
            self.buf.len = 0
        finally:
            wb_free(&head)
        return out

    @property
    def pending(self):
        """True when the current frame holds rows that :meth:`take_frame` has not returned."""
        return self.buf.len > 0

    @property
    def started(self):
        """True once the first frame (with the options row) has been taken."""
        return self.options_written
