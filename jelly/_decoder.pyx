# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Jelly-RDF frame decoder: the rules of ``RdfStreamFrame`` and ``RdfStreamRow``.

The wire reading (``_buffer.WireReader``) and the term encoding (``_termdecoder.TermDecoder``)
are shared with the other formats; this module adds the stream options, the physical stream
types and their rows (triples, quads, graph start/end), namespace declarations and frame
metadata.  Every message that protobuf would parse is validated, even when a later field
overrides it, so the decoder accepts exactly what a protobuf library accepts.

One ``Decoder`` holds the state of one stream, so frames must be fed in order.  A frame can be
decoded whole (``decode_frame``) or a few statements at a time (``begin_frame``,
``decode_statements``, ``end_frame``), so memory need not follow the size of a frame.  After an
error the decoder stays failed.
"""

cimport cython
from libc.stdint cimport uint64_t, uint32_t, int32_t
from cpython.bytes cimport PyBytes_FromStringAndSize

from ._wire cimport WT_VARINT, K_IRI, K_LITERAL, rdf_protobuf_row
from ._buffer cimport Slot, F_UNKNOWN, F_VARINT, F_STRING, F_MSG
from ._termdecoder cimport (TermDecoder, M_IRI, M_TRIPLE, M_QUAD, M_EMPTY, M_ENTRY,
                            M_FIRST_OWN, ENTRY_NAME, ENTRY_PREFIX, ENTRY_DATATYPE, graph_kind)
from ._sink cimport TermFactory, StatementSink, term_factory, statement_sink

from .errors import JellyDecodeError, JellyError, JellyLimitError
from .options import DEFAULT_LIMITS, PhysicalStreamType, PROTOCOL_VERSION, StreamOptions

# Message types of this format, for validating messages whose content is not decoded.
cdef enum:
    M_GRAPH_START = M_FIRST_OWN
    M_NAMESPACE = M_FIRST_OWN + 1
    M_OPTIONS = M_FIRST_OWN + 2
    M_ROW = M_FIRST_OWN + 3

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

#: Row kinds by field number of the RdfStreamRow oneof, in the order of Frame.row_counts.
ROW_KINDS = ("options", "triple", "quad", "graph_start", "graph_end", "namespace", "name",
             "prefix", "datatype")
cdef tuple _ROW_FIELDS = (1, 2, 3, 4, 5, 6, 9, 10, 11)


cdef class Frame:
    """One decoded frame: its statements, metadata and namespace declarations."""

    cdef readonly Py_ssize_t index
    cdef readonly object statements
    cdef readonly dict metadata
    cdef readonly list namespaces
    cdef readonly tuple row_counts
    cdef readonly Py_ssize_t named_graph_statements
    cdef readonly Py_ssize_t statement_count
    cdef readonly Py_ssize_t stream_index
    cdef readonly Py_ssize_t frames

    def __init__(self, index, statements, metadata=None, namespaces=None, row_counts=None,
                 named_graph_statements=0, statement_count=None, stream_index=0, frames=1):
        self.index = index
        self.statements = statements
        self.metadata = metadata if metadata is not None else {}
        self.namespaces = namespaces if namespaces is not None else []
        self.row_counts = row_counts if row_counts is not None else (0,) * len(ROW_KINDS)
        #: How many statements are in a named graph (not the default graph).
        self.named_graph_statements = named_graph_statements
        if statement_count is None:
            if type(statements) is tuple:    # columns
                statement_count = len(statements[0]) if statements else 0
            else:
                statement_count = len(statements)
        #: Statements decoded from the frame (also those taken with decode_statements).
        self.statement_count = statement_count
        #: Index of the stream the frame belongs to, in input that concatenates streams.
        self.stream_index = stream_index
        #: Frames of the stream this holds: 1, or those from ``index`` on that a reader
        #: decoded together (``Decoder.decode_run``).
        self.frames = frames

    @property
    def rows(self):
        """Rows of the frame by kind: ``{"options": 1, "triple": 10, ...}``."""
        return dict(zip(ROW_KINDS, self.row_counts))

    def __len__(self):
        """Number of statements (also for column output)."""
        return self.statement_count

    def __iter__(self):
        return iter(self.statements)

    def __repr__(self):
        return (f"<Frame {self.index}: {self.statement_count} statements, "
                f"{len(self.metadata)} metadata, {len(self.namespaces)} namespaces>")


@cython.final
cdef class Decoder(TermDecoder):
    """Decoding state of one Jelly stream; feed it frames in order with :meth:`decode_frame`.

    ``terms`` names what each term becomes (``"native"``: jelly's terms; ``"nt"``: N-Triples
    strings, the default graph ``None``) or is a term factory: an object with callables
    ``iri(str)``, ``bnode(str)``, ``literal(lex, language, datatype)``, ``triple(s, p, o)``,
    ``datatype(str)`` (the object passed to ``literal``) and a ``default_graph`` value.
    ``output`` shapes each frame's ``statements``: ``"tuples"``, ``"columns"`` (a tuple of
    lists, one per position), ``"arrow"`` (per position the buffers of Arrow arrays: with
    ``terms="nt"`` a ``jelly._ntformat.StringColumn`` of strings, with ``terms="native"`` a
    ``jelly._ntformat.TermColumns``, the four string columns of a term struct), ``"lines"``
    (N-Triples / N-Quads lines; needs ``terms="nt"``) or ``"text"`` (the lines as one ``bytes``
    of UTF-8; needs ``terms="nt"``).
    ``new_streams=True`` reads a frame that starts with different stream options as the start of
    a new stream (what concatenating two files gives) instead of rejecting it.
    ``segment=True``: the input starts at a segment start inside a stream (a frame that begins
    with the options row), whose earlier rows are not known.  Whatever would depend on them (an
    id 0 counting on from earlier ids, a repeated term or a lookup slot the input has not
    defined yet, a triple outside a graph) raises :class:`JellyDecodeError`; what decodes is
    exactly what a reader of the whole stream reads there (see :mod:`jelly.parallel`).
    """

    def __init__(self, *, limits=None, terms="native", output="tuples", bint strict=False,
                 factory=None, bint new_streams=False, bint segment=False):
        cdef TermFactory tf
        if factory is not None:          # the older spelling of terms=<factory>
            if terms != "native":
                raise ValueError("give either a factory or terms, not both")
            terms = factory
        tf = term_factory(terms)
        TermDecoder.__init__(self, limits=limits if limits is not None else DEFAULT_LIMITS,
                             terms=tf, strict=strict)
        self.sink = statement_sink(output, tf)
        self.row_members = 0x0E7E          # fields 1-6 and 9-11
        self.row_type = M_ROW
        self.new_streams = new_streams
        self.segment = segment
        self.max_frame = (limits if limits is not None else DEFAULT_LIMITS).max_frame_size
        self.options = None
        self.options_key = None
        self.failed = None
        self.frame_index = 0
        self.in_graph = False

    cdef int field_kind(self, int mtype, uint64_t field, int* sub) noexcept:
        if mtype == M_GRAPH_START:     # its graph oneof is that of RdfQuad (fields 13-16)
            if field < 1 or field > 4:
                return F_UNKNOWN
            return TermDecoder.field_kind(self, M_QUAD, field + 12, sub)
        if mtype == M_NAMESPACE:
            if field == 1:
                return F_STRING
            if field == 2:
                sub[0] = M_IRI
                return F_MSG
            return F_UNKNOWN
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
        return TermDecoder.field_kind(self, mtype, field, sub)

    # ------------------------------------------------------------------ options

    cdef tuple read_options(self, const unsigned char* p, const unsigned char* end):
        cdef uint64_t tag, v
        cdef const unsigned char* q
        cdef str name = ""
        cdef int32_t physical = 0, logical = 0
        cdef bint gen = False, star = False
        cdef uint32_t names = 0, prefixes = 0, datatypes = 0, version = 0
        cdef uint64_t f
        while p < end:
            q = self.tag(p, end, &tag)
            f = tag >> 3
            if tag == 0x0A:
                p = self.length(q, end, &v)
                name = self.string(p, p + v)
                p = p + v
            elif (tag & 7) == WT_VARINT and f in (2, 3, 4, 9, 10, 11, 14, 15):
                p = self.varint(q, end, &v)
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
                p = self.skip(q, end, tag)
        return (name, physical, gen, star, names, prefixes, datatypes, logical, version)

    cdef int apply_options(self, tuple key, const unsigned char* at) except -1:
        name, physical, gen, star, names, prefixes, datatypes, logical, version = key
        if self.options_key is not None:
            if key == self.options_key:
                return 0
            if not (self.new_streams and self.row_index == 0):
                self.fail(at, "stream options differ from the options at the start of the stream")
            # A new stream starts here: nothing of the previous one applies.
            self.reset_terms()
            self.options_key = None
            self.in_graph = False
            self.graph = None
            self.stream_index += 1
        if version == 0:
            self.fail(at, "stream options have version 0 (the version field is required)")
        if version > PROTOCOL_VERSION:
            self.fail(at, f"stream uses protocol version {version}; this reader supports up to "
                          f"{PROTOCOL_VERSION}")
        if physical not in (1, 2, 3):
            self.fail(at, "physical stream type is unspecified" if physical == 0
                      else f"unknown physical stream type {physical}")
        self.setup_tables(names, prefixes, datatypes, at)
        if self.segment:
            self.segment = False
            self.unknown_past()
        self.options_key = key
        self.options = StreamOptions(
            physical_type=physical, logical_type=logical, generalized_statements=gen,
            rdf_star=star, max_name_table_size=names, max_prefix_table_size=prefixes,
            max_datatype_table_size=datatypes, stream_name=name, version=version)
        self.physical_type = physical
        self.rdf_star = star
        self.generalized = gen
        return 0

    # ------------------------------------------------------------------ rows

    cdef int row_content(self, int f, const unsigned char* p, const unsigned char* end) except -1:
        cdef int pt
        if f == ROW_OPTIONS:
            return self.apply_options(self.read_options(p, end), p)
        if self.options_key is None:
            self.fail(p, "the stream does not start with a stream options row")
        pt = self.physical_type
        if f == ROW_TRIPLE:
            if pt == PT_QUADS:
                self.fail(p, "triple row in a QUADS stream")
            if pt == PT_GRAPHS and not self.in_graph:
                self.fail(p, "triple row outside a graph in a GRAPHS stream")
            self.rdf_statement(p, end, False)
        elif f == ROW_QUAD:
            if pt != PT_QUADS:
                self.fail(p, f"quad row in a {PhysicalStreamType(pt).name} stream")
            self.rdf_statement(p, end, True)
        elif f == ROW_NAME:
            self.entry(ENTRY_NAME, p, end)
        elif f == ROW_PREFIX:
            self.entry(ENTRY_PREFIX, p, end)
        elif f == ROW_DATATYPE:
            self.entry(ENTRY_DATATYPE, p, end)
        elif f == ROW_GRAPH_START:
            if pt != PT_GRAPHS:
                self.fail(p, f"graph_start row in a {PhysicalStreamType(pt).name} stream")
            self.graph_start(p, end)
        elif f == ROW_GRAPH_END:
            if pt != PT_GRAPHS:
                self.fail(p, f"graph_end row in a {PhysicalStreamType(pt).name} stream")
            if p != end:
                self.validate(M_EMPTY, p, end, 0)
            if not self.in_graph:
                self.fail(p, "graph_end outside a graph")
            self.in_graph = False
            self.graph = None
        elif f == ROW_NAMESPACE:
            self.namespace(p, end)
        return 0

    cdef int rdf_statement(self, const unsigned char* p, const unsigned char* end, bint quad) except -1:
        if quad:
            self.named += self.statement(M_QUAD, p, end, 4, False, None)
        else:
            self.named += self.statement(M_TRIPLE, p, end, 3, self.physical_type == PT_GRAPHS,
                                         self.graph)
        return 0

    cdef int graph_start(self, const unsigned char* p, const unsigned char* end) except -1:
        cdef Slot slots[1]
        if self.in_graph:
            self.fail(p, "graph_start inside a graph (graph_end missing)")
        self.scan(M_GRAPH_START, p, end, slots, 1, 1)
        if slots[0].field == 0:
            self.fail(p, "graph_start without a graph term")
        self.graph = self.slot_term(&slots[0], graph_kind(slots[0].field), M_GRAPH_START, 0)
        if self.strict and not self.generalized and graph_kind(slots[0].field) == K_LITERAL:
            self.fail(p, "literal graph name in a stream whose options do not enable "
                         "generalized_statements")
        self.in_graph = True
        return 0

    cdef int namespace(self, const unsigned char* p, const unsigned char* end) except -1:
        cdef uint64_t tag, v
        cdef const unsigned char* start = p
        cdef const unsigned char* q
        cdef const unsigned char* tagpos
        cdef str name = ""
        cdef Slot slot
        slot.field = 0
        while p < end:
            tagpos = p
            q = self.tag(p, end, &tag)
            if tag == 0x0A or tag == 0x12:
                p = self.length(q, end, &v)
                if tag == 0x0A:
                    name = self.string(p, p + v)
                else:
                    self.record(&slot, 2, M_NAMESPACE, tagpos, p, v)
                p = p + v
            else:
                p = self.skip(q, end, tag)
        if slot.field == 0:
            self.fail(start, "namespace declaration without an IRI value")
        self.out_namespaces.append((name, self.slot_term(&slot, K_IRI, M_NAMESPACE, 0)))
        return 0

    cdef int metadata_entry(self, const unsigned char* p, const unsigned char* end) except -1:
        cdef uint64_t tag, v
        cdef const unsigned char* q
        cdef str key = ""
        cdef bytes value = b""
        while p < end:
            q = self.tag(p, end, &tag)
            if tag == 0x0A or tag == 0x12:
                p = self.length(q, end, &v)
                if tag == 0x0A:
                    key = self.string(p, p + v)
                else:
                    value = PyBytes_FromStringAndSize(<const char*>p, v)
                p = p + v
            else:
                p = self.skip(q, end, tag)
        self.metadata[key] = value
        return 0

    # ------------------------------------------------------------------ frames

    cdef const unsigned char* frame_field(self, uint64_t tag, const unsigned char* q,
                                          const unsigned char* end) except NULL:
        cdef uint64_t v
        if tag == 0x7A:                 # metadata
            q = self.length(q, end, &v)
            self.metadata_entry(q, q + v)
            return q + v
        # before any options, a frame that is a row of Jena's RDF Protobuf is not Jelly
        if self.options is None and q - 1 == self.base and rdf_protobuf_row(self.base, end):
            self.fail(self.base, "not a Jelly file (it looks like RDF Protobuf)")
        return self.skip(q, end, tag)

    cdef int open_frame(self, object data, Py_ssize_t offset) except -1:
        self.begin_view(data, offset)
        if <unsigned long long>(self.stop - self.pos) > self.max_frame:
            # a frame given whole (a Kafka value, a gRPC message) meets the cap a stream's do
            self.release()
            raise JellyLimitError(f"frame of {self.stop - self.pos} bytes exceeds the limit of "
                                  f"{self.max_frame} bytes", offset=offset,
                                  frame=self.frame_index)
        self.named = 0
        self.out_namespaces = []
        self.metadata = {}
        return 0

    def begin_frame(self, data, Py_ssize_t offset=0):
        """Start decoding one frame (the bytes of an ``RdfStreamFrame``, without a length
        prefix, in any buffer); ``offset`` is its position in the whole stream, for errors."""
        self.open_frame(data, offset)
        self.sink.take(False)

    def decode_statements(self, Py_ssize_t max_statements=4096):
        """The next statements of the frame begun with :meth:`begin_frame` (about
        ``max_statements``, in the shape of ``output``), or ``None`` when it has no more."""
        if self.failed is not None:
            raise self.failed
        if not self.has_view:
            raise ValueError("no frame begun")
        self.run(max_statements)
        if self.sink.pending == 0 and self.pos >= self.stop:
            return None
        return self.sink.take(self.physical_type != PT_TRIPLES)

    def end_frame(self):
        """Decode what is left of the current frame and return it as a :class:`Frame` (its
        ``statements`` are those not taken with :meth:`decode_statements`)."""
        cdef Py_ssize_t taken
        if self.failed is not None:
            raise self.failed
        if not self.has_view:
            raise ValueError("no frame begun")
        self.run(-1)
        self.release()
        statements = self.sink.take(self.physical_type != PT_TRIPLES)
        frame = Frame(self.frame_index, statements, self.metadata, self.out_namespaces,
                      tuple([self.counts[f] for f in _ROW_FIELDS]), self.named,
                      self.counts[ROW_TRIPLE] + self.counts[ROW_QUAD], self.stream_index)
        self.frame_index += 1
        return frame

    def decode_frame(self, data, Py_ssize_t offset=0):
        """Decode one frame (the bytes of an ``RdfStreamFrame``, without a length prefix).

        ``offset`` is the position of ``data`` in the whole stream, used in error messages.
        Returns a :class:`Frame`.
        """
        self.begin_frame(data, offset)
        return self.end_frame()

    def decode_run(self, list frames, Py_ssize_t at, Py_ssize_t max_statements,
                   dict namespaces=None):
        """Decode ``frames[at:]`` (``(offset, bytes)`` pairs, as ``FrameReader.batches``
        gives them) in one call, until the output holds ``max_statements``.  Returns
        ``(result or None, at)``, ``at`` the first frame not begun.

        With ``namespaces`` (a dict that namespace declarations go into), the result is the
        statements (in the shape of ``output``), and a frame that does not fit is left open
        and goes on at the next call.  Without, frames are decoded whole and the result is
        one :class:`Frame` for all of them (the first one's ``index``; namespaces, row counts
        and statements of them all); a frame with metadata ends a run, so the metadata is the
        last frame's.

        This is how a stream of one-statement frames is read without a round of Python calls
        per frame.  An error comes after the output of the frames before it (returned first,
        the next call raises), as when reading frame by frame; where the sink cannot cut its
        output (``StatementSink.mark``), a call decodes one frame that has statements."""
        cdef Py_ssize_t n = len(frames), begun = at, at0 = at, first = self.frame_index
        cdef Py_ssize_t cut = -1            # the sink's mark after the frames done (-1: none)
        cdef Py_ssize_t named = 0
        cdef Py_ssize_t rows[16]
        cdef bint whole = namespaces is None
        cdef bint several = self.sink.mark() >= 0
        cdef list run_namespaces = [] if whole else None
        cdef tuple item
        cdef object data
        cdef int i
        if self.failed is not None:
            raise self.failed
        if not self.has_view:
            self.sink.take(False)           # left by a frame begun and not ended
        for i in range(16):
            rows[i] = 0
        try:
            while True:
                if not self.has_view:
                    if at >= n or (self.sink.pending and not several):
                        break
                    item = <tuple>frames[at]
                    data = item[1]
                    begun = at
                    at += 1
                    if len(data) == 0:      # an empty frame has no rows
                        self.frame_index += 1
                        continue
                    self.open_frame(data, item[0])
                self.run(-1 if whole else max_statements)
                if self.pos >= self.stop:   # the frame is done
                    self.release()
                    self.frame_index += 1
                    if whole:
                        run_namespaces += self.out_namespaces
                        named += self.named
                        for i in range(16):
                            rows[i] += self.counts[i]
                        if self.metadata:
                            break
                    else:
                        for name, iri in self.out_namespaces:
                            namespaces[name] = iri
                    cut = self.sink.mark()
                if self.sink.pending >= max_statements:
                    break
        except JellyError:
            if cut < 0 or (cut == 0 and not whole):    # nothing to give first (or cannot cut)
                raise
            # The output of the frames before the failing one; the next call raises the error.
            out = self.sink.take_to(cut, self.physical_type != PT_TRIPLES)
            return self.run_frame(first, begun - at0, out, run_namespaces, rows, named,
                                  {}), begun
        if not whole:
            return (self.sink.take(self.physical_type != PT_TRIPLES)
                    if self.sink.pending else None), at
        if self.frame_index == first:
            return None, at
        return self.run_frame(first, at - at0, self.sink.take(self.physical_type != PT_TRIPLES),
                              run_namespaces, rows, named, self.metadata), at

    cdef object run_frame(self, Py_ssize_t first, Py_ssize_t frames, object statements,
                          list run_namespaces, Py_ssize_t* rows, Py_ssize_t named,
                          dict metadata):
        """What decode_run returns: the statements, or a Frame of the frames from first."""
        if run_namespaces is None:
            return statements
        return Frame(first, statements, metadata, run_namespaces,
                     tuple([rows[f] for f in _ROW_FIELDS]), named,
                     rows[ROW_TRIPLE] + rows[ROW_QUAD], self.stream_index, frames)

    @property
    def mid_frame(self):
        """True between the start and the end of a frame being decoded in pieces."""
        return self.has_view

    @property
    def in_graph_now(self):
        """True while a GRAPHS stream is inside a graph (between graph_start and graph_end)."""
        return self.in_graph
