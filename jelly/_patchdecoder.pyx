# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Jelly-Patch frame decoder: the rules of ``RdfPatchFrame`` and ``RdfPatchRow``.

The wire reading (``_buffer.WireReader``) and the term encoding (``_termdecoder.TermDecoder``:
lookups, IRI deltas, repeated terms, quoted triples) are those of Jelly-RDF; this module adds
the patch options, the operation rows (statements, namespaces, transactions, headers), the
punctuation and the patch stream types.  Statement rows take the Jelly-RDF hot path: one
``TermDecoder.statement`` call per row, into a sink that builds ``Add`` / ``Delete``.

Where the spec is silent the decoder follows jelly-jvm (``docs/patch.md``, "Choices where the spec is silent"):
repeated graph terms are shared by statement and namespace rows, header values never repeat,
a namespace row of a QUADS stream without a graph and without an earlier graph is in the
default graph, which later rows without a graph repeat.  One ``PatchDecoder`` holds the state
of one stream; after an error it stays failed.
"""

cimport cython
from libc.stdint cimport uint64_t, uint32_t, int32_t

from ._wire cimport WT_VARINT, WT_LEN, K_IRI, K_LITERAL
from ._buffer cimport Slot, F_UNKNOWN, F_VARINT, F_STRING, F_MSG
from ._termdecoder cimport (TermDecoder, M_IRI, M_TRIPLE, M_QUAD, M_EMPTY, M_ENTRY,
                            M_FIRST_OWN, ENTRY_NAME, ENTRY_PREFIX, ENTRY_DATATYPE, spo_kind,
                            graph_kind)
from ._sink cimport StatementSink, term_factory
from ._patchops cimport (OP_ADD, make_add, make_delete, make_prefix_add, make_prefix_delete,
                         make_header, tx_start, tx_commit, tx_abort, end_of_patch)

from .errors import JellyDecodeError
from .options import DEFAULT_LIMITS, PATCH_PROTOCOL_VERSION, PatchOptions

# Message types of this format, for validating messages whose content is not decoded.
cdef enum:
    M_OPTIONS = M_FIRST_OWN
    M_NAMESPACE = M_FIRST_OWN + 1
    M_HEADER = M_FIRST_OWN + 2
    M_ROW = M_FIRST_OWN + 3

# RdfPatchRow oneof field numbers.
cdef enum:
    ROW_OPTIONS = 1
    ROW_ADD = 2
    ROW_DELETE = 3
    ROW_NS_ADD = 4
    ROW_NS_DELETE = 5
    ROW_TX_START = 6
    ROW_TX_COMMIT = 7
    ROW_TX_ABORT = 8
    ROW_NAME = 11
    ROW_PREFIX = 12
    ROW_DATATYPE = 13
    ROW_HEADER = 14
    ROW_PUNCTUATION = 15

# Statement and patch stream types (wire numbers).
cdef enum:
    ST_TRIPLES = 1
    ST_QUADS = 2
    PS_FRAME = 1
    PS_FLAT = 2
    PS_PUNCTUATED = 3

#: Row kinds in the order of PatchFrame.row_counts (the RdfPatchRow oneof in field order).
ROW_KINDS = ("options", "statement_add", "statement_delete", "namespace_add",
             "namespace_delete", "transaction_start", "transaction_commit", "transaction_abort",
             "name", "prefix", "datatype", "header", "punctuation")
cdef tuple _ROW_FIELDS = (1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15)
cdef tuple _STREAM_NAMES = ("", "FRAME", "FLAT", "PUNCTUATED")


@cython.final
cdef class PatchSink(StatementSink):
    """The operations of a patch stream, in order: the statement rows arrive through the
    StatementSink interface (``op`` says add or delete), the other rows through ``put``."""

    cdef list out
    cdef int op
    cdef Py_ssize_t total       # operations of the current frame, taken ones included

    def __init__(self):
        self.out = []

    cdef int triple(self, object s, object p, object o) except -1:
        self.out.append(make_add(s, p, o, None) if self.op == OP_ADD
                        else make_delete(s, p, o, None))
        self.pending += 1
        return 0

    cdef int quad(self, object s, object p, object o, object g) except -1:
        self.out.append(make_add(s, p, o, g) if self.op == OP_ADD else make_delete(s, p, o, g))
        self.pending += 1
        return 0

    cdef int put(self, object op) except -1:
        self.out.append(op)
        self.pending += 1
        return 0

    cdef object take(self, bint quads):
        cdef list out = self.out
        self.out = []
        self.total += self.pending
        self.pending = 0
        return out


cdef class PatchFrame:
    """One decoded frame of a Jelly-Patch stream: its operations and its rows by kind."""

    cdef readonly Py_ssize_t index
    cdef readonly list operations
    cdef readonly tuple row_counts
    cdef readonly Py_ssize_t operation_count

    def __init__(self, index, operations, row_counts=None, operation_count=None):
        self.index = index
        self.operations = operations
        self.row_counts = row_counts if row_counts is not None else (0,) * len(ROW_KINDS)
        self.operation_count = (len(operations) if operation_count is None
                                else operation_count)

    @property
    def rows(self):
        """Rows of the frame by kind: ``{"options": 1, "statement_add": 10, ...}``."""
        return dict(zip(ROW_KINDS, self.row_counts))

    def __len__(self):
        return self.operation_count

    def __iter__(self):
        return iter(self.operations)

    def __repr__(self):
        return f"<PatchFrame {self.index}: {self.operation_count} operations>"


@cython.final
cdef class PatchDecoder(TermDecoder):
    """Decoding state of one Jelly-Patch stream; feed it frames in order.

    ``terms`` names what each term becomes (``"native"``: jelly's terms) or is a term factory
    (see :class:`jelly.Decoder`).  ``strict=True`` also rejects quoted triples and generalized
    terms that the options do not announce, and transactions that do not pair up (``TX`` inside
    a transaction, ``TC`` / ``TA`` outside one, a patch that ends inside one), which the spec
    lets a consumer reject.
    """

    cdef public object options
    cdef tuple options_key
    cdef int statement_type
    cdef int stream_type
    cdef PatchSink ops
    cdef bint graph_seen              # QUADS: there is a graph term to repeat
    cdef bint in_tx
    cdef Py_ssize_t open_ops          # operations since the last end of a patch
    cdef Py_ssize_t stream_end        # offset of the end of the last frame fed
    cdef bint rdf_options             # the options row has fields of RdfStreamOptions

    def __init__(self, *, limits=None, terms="native", bint strict=False):
        tf = term_factory(terms)
        TermDecoder.__init__(self, limits=limits if limits is not None else DEFAULT_LIMITS,
                             terms=tf, strict=strict)
        self.ops = PatchSink()
        self.sink = self.ops
        self.row_members = 0xF9FE          # fields 1-8 and 11-15
        self.row_type = M_ROW
        self.options = None
        self.options_key = None
        self.failed = None
        self.frame_index = 0

    cdef int field_kind(self, int mtype, uint64_t field, int* sub) noexcept:
        if mtype == M_NAMESPACE:        # name, value, then the graph oneof of RdfQuad
            if field == 1:
                return F_STRING
            if field == 2:
                sub[0] = M_IRI
                return F_MSG
            if 3 <= field <= 6:
                return TermDecoder.field_kind(self, M_QUAD, field + 10, sub)
            return F_UNKNOWN
        if mtype == M_HEADER:           # key, then the object oneof of RdfTriple
            if field == 1:
                return F_STRING
            if 2 <= field <= 5:
                return TermDecoder.field_kind(self, M_TRIPLE, field + 7, sub)
            return F_UNKNOWN
        if mtype == M_OPTIONS:
            return F_VARINT if field in (1, 2, 3, 4, 9, 10, 11, 15) else F_UNKNOWN
        if mtype == M_ROW:
            if field == 1:
                sub[0] = M_OPTIONS
            elif field == 2 or field == 3:
                sub[0] = M_QUAD
            elif field == 4 or field == 5:
                sub[0] = M_NAMESPACE
            elif 11 <= field <= 13:
                sub[0] = M_ENTRY
            elif field == 14:
                sub[0] = M_HEADER
            elif 6 <= field <= 8 or field == 15:
                sub[0] = M_EMPTY
            else:
                return F_UNKNOWN
            return F_MSG
        return TermDecoder.field_kind(self, mtype, field, sub)

    # ------------------------------------------------------------------ options

    cdef tuple read_options(self, const unsigned char* p, const unsigned char* end):
        cdef uint64_t tag, v, f
        cdef const unsigned char* q
        cdef int32_t statement = 0, stream = 0
        cdef bint gen = False, star = False
        cdef uint32_t names = 0, prefixes = 0, datatypes = 0, version = 0
        while p < end:
            q = self.tag(p, end, &tag)
            f = tag >> 3
            if tag == 0x0A or tag == 0x70:      # stream_name, logical_type of Jelly-RDF
                self.rdf_options = True
            if (tag & 7) == WT_VARINT and f in (1, 2, 3, 4, 9, 10, 11, 15):
                p = self.varint(q, end, &v)
                if f == 1:
                    statement = <int32_t>v
                elif f == 2:
                    stream = <int32_t>v
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
                else:
                    version = <uint32_t>v
            else:
                p = self.skip(q, end, tag)
        return (statement, stream, gen, star, names, prefixes, datatypes, version)

    cdef int apply_options(self, tuple key, const unsigned char* at) except -1:
        statement, stream, gen, star, names, prefixes, datatypes, version = key
        if self.options_key is not None:
            if key == self.options_key:
                return 0
            self.fail(at, "patch stream options differ from the options at the start of the "
                          "stream")
        if version == 0:
            self.fail(at, "patch stream options have version 0 (the version field is required)")
        if version > PATCH_PROTOCOL_VERSION:
            self.fail(at, f"patch stream uses protocol version {version}; this reader supports "
                          f"up to {PATCH_PROTOCOL_VERSION}")
        if statement not in (ST_TRIPLES, ST_QUADS):
            self.fail(at, ("statement type is unspecified" if statement == 0
                           else f"unknown statement type {statement}") +
                      (" (the options look like Jelly-RDF's: is this a Jelly-RDF stream?)"
                       if self.rdf_options else ""))
        if stream not in (PS_FRAME, PS_FLAT, PS_PUNCTUATED):
            self.fail(at, "patch stream type is unspecified" if stream == 0
                      else f"unknown patch stream type {stream}")
        self.setup_tables(names, prefixes, datatypes, at)
        self.options_key = key
        self.options = PatchOptions(
            statement_type=statement, stream_type=stream, generalized_statements=gen,
            rdf_star=star, max_name_table_size=names, max_prefix_table_size=prefixes,
            max_datatype_table_size=datatypes, version=version)
        self.statement_type = statement
        self.stream_type = stream
        self.rdf_star = star
        self.generalized = gen
        return 0

    # ------------------------------------------------------------------ rows

    cdef int row_content(self, int f, const unsigned char* p, const unsigned char* end) except -1:
        if f == ROW_ADD or f == ROW_DELETE:
            if self.options_key is None:
                self.no_options(p)
            self.ops.op = OP_ADD if f == ROW_ADD else 0
            if self.statement_type == ST_QUADS:
                self.statement(M_QUAD, p, end, 4, False, None)
                self.graph_seen = True
            else:
                self.statement(M_QUAD, p, end, 3, False, None)
            self.open_ops += 1
            return 0
        if f == ROW_OPTIONS:
            return self.apply_options(self.read_options(p, end), p)
        if self.options_key is None:
            self.no_options(p)
        if f == ROW_NAME:
            return self.entry(ENTRY_NAME, p, end)
        if f == ROW_PREFIX:
            return self.entry(ENTRY_PREFIX, p, end)
        if f == ROW_DATATYPE:
            return self.entry(ENTRY_DATATYPE, p, end)
        if f == ROW_NS_ADD or f == ROW_NS_DELETE:
            self.namespace(f == ROW_NS_ADD, p, end)
        elif f == ROW_HEADER:
            self.header(p, end)
        else:
            # Transactions and punctuation: messages without fields (protobuf still parses
            # whatever they hold).
            if p != end:
                self.validate(M_EMPTY, p, end, 0)
            if f == ROW_PUNCTUATION:
                if self.stream_type != PS_PUNCTUATED:
                    self.fail(p, f"punctuation row in a {_STREAM_NAMES[self.stream_type]} "
                                 f"stream (only PUNCTUATED streams have punctuation)")
                return self.end_patch(p)
            self.transaction(f, p)
        self.open_ops += 1
        return 0

    cdef int no_options(self, const unsigned char* at) except -1:
        return self.fail(at, "the patch stream does not start with a patch options row")

    cdef int transaction(self, int f, const unsigned char* at) except -1:
        if self.strict:
            if f == ROW_TX_START and self.in_tx:
                self.fail(at, "transaction start inside a transaction")
            if f != ROW_TX_START and not self.in_tx:
                self.fail(at, f"transaction {'commit' if f == ROW_TX_COMMIT else 'abort'} "
                              f"outside a transaction")
        self.in_tx = f == ROW_TX_START
        self.ops.put(tx_start() if f == ROW_TX_START
                     else tx_commit() if f == ROW_TX_COMMIT else tx_abort())
        return 0

    cdef int end_patch(self, const unsigned char* at) except -1:
        if self.strict and self.in_tx:
            self.fail(at, "the patch ends inside a transaction (no commit or abort)")
        self.in_tx = False
        self.open_ops = 0
        return self.ops.put(end_of_patch())

    cdef int namespace(self, bint add, const unsigned char* p, const unsigned char* end) except -1:
        cdef uint64_t tag, v
        cdef const unsigned char* start = p
        cdef const unsigned char* q
        cdef const unsigned char* tagpos
        cdef int f, kind
        cdef str name = ""
        cdef Slot value, graph
        cdef object iri = None, g = None
        value.field = 0
        graph.field = 0
        while p < end:
            tagpos = p
            q = self.tag(p, end, &tag)
            f = <int>(tag >> 3) if (tag >> 3) < 64 else 0
            if (tag & 7) == WT_LEN and 1 <= f <= 6:
                p = self.length(q, end, &v)
                if f == 1:
                    name = self.string(p, p + v)
                elif f == 2:
                    self.record(&value, 2, M_NAMESPACE, tagpos, p, v)
                else:
                    self.record(&graph, f, M_NAMESPACE, tagpos, p, v)
                p = p + v
            else:
                p = self.skip(q, end, tag)
        if graph.field and self.statement_type == ST_TRIPLES:
            self.fail(start, "namespace row with a graph term in a stream of triples "
                             "(statement type TRIPLES)")
        # The value IRI is decoded before the graph (the order of the IRI deltas).
        if value.field:
            iri = self.slot_term(&value, K_IRI, M_NAMESPACE, 0)
        elif add:
            self.fail(start, "namespace_add row without an IRI value")
        if graph.field:
            kind = graph_kind(graph.field - 2)
            if self.strict and not self.generalized and kind == K_LITERAL:
                self.fail(start, "literal graph name in a stream whose options do not enable "
                                 "generalized_statements")
            g = self.slot_term(&graph, kind, M_NAMESPACE, 0)
            self.last[3] = g          # repeated graph terms are shared with statements
            self.graph_seen = True
        elif self.statement_type == ST_QUADS:
            # A repeated graph term; with nothing to repeat, the default graph (jelly-jvm
            # writes a namespace of no graph this way), which then is the graph to repeat: a
            # statement without a graph after it is in the default graph too.
            if not self.graph_seen:
                self.last[3] = self.default_graph
                self.graph_seen = True
            g = self.last[3]
        self.ops.put(make_prefix_add(name, iri, g) if add else make_prefix_delete(name, iri, g))
        return 0

    cdef int header(self, const unsigned char* p, const unsigned char* end) except -1:
        cdef uint64_t tag, v
        cdef const unsigned char* start = p
        cdef const unsigned char* q
        cdef const unsigned char* tagpos
        cdef int f
        cdef str key = ""
        cdef Slot value
        value.field = 0
        while p < end:
            tagpos = p
            q = self.tag(p, end, &tag)
            f = <int>(tag >> 3) if (tag >> 3) < 64 else 0
            if (tag & 7) == WT_LEN and 1 <= f <= 5:
                p = self.length(q, end, &v)
                if f == 1:
                    key = self.string(p, p + v)
                else:
                    self.record(&value, f, M_HEADER, tagpos, p, v)
                p = p + v
            else:
                p = self.skip(q, end, tag)
        if value.field == 0:
            self.fail(start, "header row without a value (header values are never repeated "
                             "terms)")
        self.ops.put(make_header(key, self.slot_term(&value, spo_kind(value.field - 1),
                                                     M_HEADER, 0)))
        return 0

    # ------------------------------------------------------------------ frames

    def begin_frame(self, data, Py_ssize_t offset=0):
        """Start decoding one frame (the bytes of an ``RdfPatchFrame``, without a length
        prefix, in any buffer); ``offset`` is its position in the whole stream, for errors."""
        self.begin_view(data, offset)
        self.stream_end = offset + self.view.len
        self.ops.take(False)
        self.ops.total = 0

    def decode_operations(self, Py_ssize_t max_operations=4096):
        """The next operations of the frame begun with :meth:`begin_frame` (about
        ``max_operations``, a list), or ``None`` when it has no more."""
        if self.failed is not None:
            raise self.failed
        if not self.has_view:
            raise ValueError("no frame begun")
        self.run(max_operations)
        if self.ops.pending == 0 and self.pos >= self.stop:
            return None
        return self.ops.take(False)

    def end_frame(self):
        """Decode what is left of the current frame and return it as a :class:`PatchFrame`
        (its ``operations`` are those not taken with :meth:`decode_operations`).  In a FRAME
        stream the frame ends a patch: its operations end with ``END_OF_PATCH``."""
        if self.failed is not None:
            raise self.failed
        if not self.has_view:
            raise ValueError("no frame begun")
        self.run(-1)
        self.release()
        if self.stream_type == PS_FRAME:
            try:
                self.end_patch(self.stop)
            except Exception as exc:
                raise self.locate(exc)
        operations = self.ops.take(False)
        frame = PatchFrame(self.frame_index, operations,
                           tuple([self.counts[f] for f in _ROW_FIELDS]), self.ops.total)
        self.frame_index += 1
        return frame

    def decode_frame(self, data, Py_ssize_t offset=0):
        """Decode one frame (the bytes of an ``RdfPatchFrame``, without a length prefix);
        ``offset`` is its position in the whole stream, for errors.  Returns a
        :class:`PatchFrame`."""
        self.begin_frame(data, offset)
        return self.end_frame()

    def finish(self):
        """The stream has ended: returns the operations that this ends (``[END_OF_PATCH]`` for
        a FLAT stream that holds operations, else ``[]``); raises if a PUNCTUATED stream has
        operations after its last punctuation row (a patch without its end), at the end of the
        last frame."""
        if self.failed is not None:
            raise self.failed
        if self.open_ops == 0 or self.stream_type == PS_FRAME:
            return []
        if self.stream_type == PS_PUNCTUATED:
            exc = JellyDecodeError(
                f"the stream ends inside a patch: {self.open_ops} operation(s) after the last "
                f"punctuation row (each patch of a PUNCTUATED stream ends with one)",
                offset=self.stream_end, frame=self.frame_index - 1)
            self.failed = exc
            raise exc
        if self.strict and self.in_tx:
            exc = JellyDecodeError("the patch ends inside a transaction (no commit or abort)",
                                   offset=self.stream_end, frame=self.frame_index - 1)
            self.failed = exc
            raise exc
        self.open_ops = 0
        return [end_of_patch()]

    @property
    def open_operations(self):
        """Operations read since the last end of a patch."""
        return self.open_ops
