# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Jelly-RDF statement encoder: rows of ``RdfStreamFrame`` messages in one write buffer.

The term encoding (lookups, IRI deltas, repeated terms, the plan of each row) is
``_termencoder.TermEncoder``; this module adds the stream options row, the statement rows of
each physical stream type, graph start/end, namespace declarations and frame metadata.
"""

cimport cython
from libc.stdint cimport uint64_t
from cpython.tuple cimport PyTuple_GET_SIZE, PyTuple_GET_ITEM

from ._buffer cimport (WriteBuffer, wb_ensure, wb_byte, wb_varint, wb_open, wb_close,
                       wb_string_field, wb_take, utf8_of)
from ._termencoder cimport TermEncoder, PLAN_GRAPH, PLAN_TERM
from ._terms cimport IRI, DefaultGraph

from ._terms import DEFAULT_GRAPH as _DEFAULT_GRAPH, IRI as _make_iri
from .errors import JellyEncodeError
from .options import PROTOCOL_VERSION, PROTOCOL_VERSION_1_0, StreamOptions, check_quoted_depth


cdef object _located(object exc, Py_ssize_t written):
    """``exc`` located at the statement after the ``written`` ones: the one that could not be
    written (a number it has already stays: one from an encoder feeding this one)."""
    return exc if exc.statement is not None else exc.at_statement(written + 1)


# Physical stream types.
cdef enum:
    PT_TRIPLES = 1
    PT_QUADS = 2
    PT_GRAPHS = 3

# Row tags of RdfStreamRow members.
cdef enum:
    TAG_OPTIONS = 0x0A
    TAG_TRIPLE = 0x12
    TAG_QUAD = 0x1A
    TAG_GRAPH_START = 0x22
    TAG_GRAPH_END = 0x2A
    TAG_NAMESPACE = 0x32
    TAG_NAME = 0x4A


cdef Py_ssize_t write_options_message(WriteBuffer* b, object o, uint64_t version) except -1:
    """The fields of an ``RdfStreamOptions`` message (``o``: StreamOptions or anything with its
    fields), version ``version``; returns where the version varint starts."""
    cdef const char* s
    cdef Py_ssize_t n, at
    if o.stream_name:
        utf8_of(o.stream_name, &s, &n)
        wb_string_field(b, 0x0A, s, n)
    wb_ensure(b, 64)
    if int(o.physical_type):
        wb_byte(b, 0x10)
        wb_varint(b, <uint64_t>(<long long>int(o.physical_type)))
    if o.generalized_statements:
        wb_byte(b, 0x18)
        wb_byte(b, 1)
    if o.rdf_star:
        wb_byte(b, 0x20)
        wb_byte(b, 1)
    if o.max_name_table_size:
        wb_byte(b, 0x48)
        wb_varint(b, o.max_name_table_size)
    if o.max_prefix_table_size:
        wb_byte(b, 0x50)
        wb_varint(b, o.max_prefix_table_size)
    if o.max_datatype_table_size:
        wb_byte(b, 0x58)
        wb_varint(b, o.max_datatype_table_size)
    if int(o.logical_type):
        wb_byte(b, 0x70)
        wb_varint(b, <uint64_t>(<long long>int(o.logical_type)))
    at = b.len
    if version:
        wb_byte(b, 0x78)
        at = b.len
        wb_varint(b, version)
    return at


cdef class Encoder(TermEncoder):
    """Encoding state of one Jelly stream.

    Statements go in with :meth:`add_statements` (or the single-statement methods); the bytes of
    a finished ``RdfStreamFrame`` come out of :meth:`take_frame`.  The options row starts the
    first frame.
    """

    def __init__(self, options, *, term_adapter=None, int max_quoted_depth=64):
        """``options`` is a :class:`jelly.StreamOptions`; ``term_adapter`` turns terms of other
        libraries into jelly terms (called only for objects that are not jelly terms)."""
        if not isinstance(options, StreamOptions):
            raise TypeError(f"options must be a jelly.StreamOptions (see jelly.make_options), "
                            f"not {type(options).__name__}")
        options.validate_for_writing()
        self.options = options
        self.physical_type = int(options.physical_type)
        self.init_terms(options, term_adapter, check_quoted_depth(max_quoted_depth), TAG_NAME)
        self.version_pos = -1
        # version None is automatic: 2 if namespaces are declared before the first frame
        # leaves, else 1.  A version the caller chose is written as is.
        self.final_version = 0 if options.version is None else options.version

    # ------------------------------------------------------------------ rows

    cdef int begin_row(self) except -1:
        if not self.options_written:
            self.write_options()
        self.rows += 1
        return 0

    cdef int write_options(self) except -1:
        cdef Py_ssize_t row, msg
        self.options_written = True
        wb_ensure(&self.buf, 4)
        wb_byte(&self.buf, 0x0A)
        row = wb_open(&self.buf)
        wb_byte(&self.buf, TAG_OPTIONS)
        msg = wb_open(&self.buf)
        # An automatic version is settled when the first frame leaves (take_frame).
        self.version_pos = write_options_message(&self.buf, self.options,
                                                 self.final_version or PROTOCOL_VERSION_1_0)
        wb_close(&self.buf, msg)
        wb_close(&self.buf, row)
        self.rows += 1
        return 0

    cdef int statement_row(self, unsigned char row_tag, int nterms) except -1:
        cdef Py_ssize_t row, msg
        self.begin_row()
        wb_ensure(&self.buf, 8)
        wb_byte(&self.buf, 0x0A)
        row = wb_open(&self.buf)
        wb_byte(&self.buf, row_tag)
        msg = wb_open(&self.buf)
        self.write_terms(nterms)
        wb_close(&self.buf, msg)
        wb_close(&self.buf, row)
        self.statements += 1
        return 0

    cdef int triple(self, object s, object p, object o) except -1:
        self.plan_row(s, p, o, None, 3)
        self.last_s = s
        self.last_p = p
        self.last_o = o
        return self.statement_row(TAG_TRIPLE, 3)

    cdef int quad(self, object s, object p, object o, object g) except -1:
        self.plan_row(s, p, o, g, 4)
        self.last_s = s
        self.last_p = p
        self.last_o = o
        self.last_g = g
        return self.statement_row(TAG_QUAD, 4)

    cdef int graph_start(self, object g) except -1:
        cdef Py_ssize_t row, msg
        cdef int i = 0
        self.plan_row(None, None, None, g, PLAN_GRAPH)
        self.begin_row()
        wb_ensure(&self.buf, 8)
        wb_byte(&self.buf, 0x0A)
        row = wb_open(&self.buf)
        wb_byte(&self.buf, TAG_GRAPH_START)
        msg = wb_open(&self.buf)
        self.write_term(&i, 1, True)
        wb_close(&self.buf, msg)
        wb_close(&self.buf, row)
        self.open_graph = g
        self.graph_is_open = True
        return 0

    cdef int graph_end(self) except -1:
        self.begin_row()
        wb_ensure(&self.buf, 4)
        wb_byte(&self.buf, 0x0A)
        wb_byte(&self.buf, 2)
        wb_byte(&self.buf, TAG_GRAPH_END)
        wb_byte(&self.buf, 0)
        self.graph_is_open = False
        self.open_graph = None
        return 0

    cdef int statement(self, object st) except -1:
        cdef Py_ssize_t n
        cdef object s, p, o, g
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
        if self.physical_type == PT_TRIPLES:
            if g is not None and type(g) is not DefaultGraph:
                if self.term_adapter is None or type(self.term_adapter(g)) is not DefaultGraph:
                    raise JellyEncodeError("a TRIPLES stream cannot hold a statement in a named "
                                           "graph; use physical type QUADS or GRAPHS")
            return self.triple(s, p, o)
        if g is None:
            g = _DEFAULT_GRAPH
        if self.physical_type == PT_QUADS:
            return self.quad(s, p, o, g)
        # GRAPHS: consecutive statements of a graph share one graph_start.
        if not self.graph_is_open or not (g is self.open_graph or g == self.open_graph):
            if self.graph_is_open:
                self.graph_end()
            self.graph_start(g)
        return self.triple(s, p, o)

    # ------------------------------------------------------------------ public API

    def add_statements(self, iterator, Py_ssize_t max_rows=-1, stop=None):
        """Encode statements from ``iterator`` until it is exhausted (returns True) or the frame
        holds at least ``max_rows`` rows (returns False; the iterator is left where it stopped).

        If the iterator yields the object ``stop`` (e.g. a message delimiter), encoding stops
        there and ``stop`` is returned.
        """
        cdef object st
        it = iter(iterator)
        try:
            while max_rows < 0 or self.rows < max_rows:
                try:
                    st = next(it)
                except StopIteration:
                    return True
                if st is stop and stop is not None:
                    return stop
                self.statement(st)
        except JellyEncodeError as exc:
            raise _located(exc, self.statements)
        return False

    def add(self, statement):
        """Encode one statement."""
        try:
            self.statement(statement)
        except JellyEncodeError as exc:
            raise _located(exc, self.statements)

    def start_graph(self, graph):
        """GRAPHS streams: open a graph explicitly (closes the open one)."""
        if self.physical_type != PT_GRAPHS:
            raise JellyEncodeError("graph_start rows exist only in GRAPHS streams")
        if self.graph_is_open:
            self.graph_end()
        self.graph_start(graph if graph is not None else _DEFAULT_GRAPH)

    def end_graph(self):
        """GRAPHS streams: close the open graph, if any."""
        if self.graph_is_open:
            self.graph_end()

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
            if self.options.version is not None:
                raise JellyEncodeError("namespace declarations need protocol version 2, but "
                                       "the options say version 1 (leave the version out: it "
                                       "is then the lowest the stream needs)")
            raise JellyEncodeError("namespace declarations need protocol version 2, but the "
                                   "stream options were already written with version 1; declare "
                                   "namespaces before the first frame is flushed")
        utf8_of(name, &s, &n)
        self.used_namespaces = True
        self.plan_row(iri, None, None, None, PLAN_TERM)
        self.begin_row()
        wb_ensure(&self.buf, 16 + n)
        wb_byte(&self.buf, 0x0A)
        row = wb_open(&self.buf)
        wb_byte(&self.buf, TAG_NAMESPACE)
        msg = wb_open(&self.buf)
        if n:
            wb_string_field(&self.buf, 0x0A, s, n)
        self.write_term(&i, 2, False)
        wb_close(&self.buf, msg)
        wb_close(&self.buf, row)

    def start_segment(self):
        """Start a self-contained segment with the next row: the options row is written again
        and the lookups, repeated terms and IRI deltas start afresh (the first entry and IRI
        with explicit ids), so the frames from here on decode without what came before.  Call
        it between frames and outside a graph."""
        if self.buf.len:
            raise JellyEncodeError("a segment starts with a frame: take the pending frame first")
        if self.graph_is_open:
            raise JellyEncodeError("a segment cannot start inside a graph: end the graph first")
        self.reset_state()
        self.options_written = False

    def take_frame(self, metadata=None, bint close_graph=False, bint delimited=False):
        """Return the bytes of the current ``RdfStreamFrame`` (after its length as a varint when
        ``delimited``) and start a new one.

        ``metadata`` (a mapping of str to bytes) is written as the frame's metadata;
        ``close_graph`` ends an open graph first (grouped GRAPHS streams keep graphs in a frame).
        """
        cdef Py_ssize_t at, n
        cdef const char* s
        if close_graph and self.graph_is_open:
            self.graph_end()
        if not self.options_written:
            self.write_options()
        if self.final_version == 0:
            # The version is settled when the first frame leaves: 2 only if namespaces were used.
            self.final_version = PROTOCOL_VERSION if self.used_namespaces else PROTOCOL_VERSION_1_0
            self.buf.data[self.version_pos] = self.final_version
        if metadata:
            for key, value in metadata.items():
                if not isinstance(key, str) or not isinstance(value, (bytes, bytearray)):
                    raise JellyEncodeError("frame metadata must map str keys to bytes values")
                utf8_of(key, &s, &n)
                bvalue = bytes(value)
                wb_ensure(&self.buf, 24 + n + len(bvalue))
                wb_byte(&self.buf, 0x7A)
                at = wb_open(&self.buf)
                wb_string_field(&self.buf, 0x0A, s, n)
                wb_string_field(&self.buf, 0x12, <const char*>bvalue, len(bvalue))
                wb_close(&self.buf, at)
        self.rows = 0
        return wb_take(&self.buf, delimited)

    @property
    def pending(self):
        """True when the current frame holds rows that :meth:`take_frame` has not returned."""
        return self.buf.len > 0
