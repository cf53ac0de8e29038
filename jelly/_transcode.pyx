# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Frame transcoder: frames of Jelly streams re-encoded as the frames of one output stream with
other options, without building RDF terms (jelly-jvm calls it ``ProtoTranscoder``).

Decode half (``WireDecoder``): the core ``Decoder`` with a factory of *wire values*, terms as
the stream wrote them: an IRI is its prefix and name strings from the decode tables
(``WireIri``, one per lookup slot thanks to the decoder's IRI cache), a literal its strings and
datatype (``WireLiteral``), a blank node its label, a quoted triple a tuple.  Every frame is
validated exactly as the reader validates it, and a repeated term comes out as the object it
repeats, so the output can start at any frame (a subscriber joining mid-stream).

Encode half (``FrameRewriter``): the core ``Encoder`` planning wire values through its own LRU
tables.  Lookup entries are written when the output first needs them and ids, IRI deltas and
repeated terms follow the output's state, so any table sizes work (entries are evicted and
written again as needed), several input streams merge into one output (their entries are
shared by value), and an output can restart with a fresh state at any frame.  Output options
that cannot hold an input stream are refused when that stream starts: RDF-star or generalized
statements the output does not enable, named graphs in a TRIPLES output, typed literals with
no datatype table.
"""

cimport cython
from libc.stdint cimport uint32_t

from ._wire cimport K_BNODE, K_LITERAL, K_TRIPLE
from ._buffer cimport utf8_of
from ._lookup cimport IriSplit, et_touch
from ._sink cimport TermFactory, StatementSink
from ._decoder cimport Decoder
from ._termencoder cimport TermEncoder, Planned, POS_S, POS_P, POS_O, POS_G, POS_GRAPH_START
from ._encoder cimport Encoder
from ._terms cimport make_iri

from ._sink import TupleSink
from ._terms import DEFAULT_GRAPH
from .errors import JellyEncodeError, JellyError, JellyOptionsError
from .options import (DEFAULT_LIMITS, MAX_QUOTED_DEPTH, PROTOCOL_VERSION, PROTOCOL_VERSION_1_0,
                      PhysicalStreamType, StreamOptions)

cdef enum:
    PT_TRIPLES = 1
    PT_QUADS = 2
    PT_GRAPHS = 3

cdef tuple _POS_NAMES = ("subject", "predicate", "object", "graph", "graph")
cdef object _UNKNOWN_GRAPH = object()


# ------------------------------------------------------------------------------ wire values

@cython.final
@cython.no_gc
cdef class WireIri(IriSplit):
    """An IRI as a stream wrote it: a prefix and a name.  The output slots cached on it (by
    ``IriSplit``) belong to the encoder ``enc_id``; ``alt`` is the split that encoder writes
    when it is not this one (whole IRIs for an output without prefixes, a re-split name for an
    input without them)."""

    cdef unsigned long long enc_id
    cdef IriSplit alt

    @property
    def value(self):
        """The IRI."""
        return self.prefix + self.name

    @property
    def parts(self):
        """``(prefix, name)`` as the stream wrote them."""
        return (self.prefix, self.name)

    def __repr__(self):
        return f"WireIri({self.prefix!r}, {self.name!r})"


cdef inline WireIri _wire_iri(str prefix, str name):
    cdef WireIri w = WireIri.__new__(WireIri)
    w.prefix = prefix
    w.name = name
    return w


@cython.final
@cython.no_gc
cdef class WireLiteral:
    """A literal as a stream wrote it: lexical form, language tag or datatype (``WireIri``)."""

    cdef readonly str lex
    cdef readonly object language
    cdef readonly WireIri datatype

    def __repr__(self):
        return f"WireLiteral({self.lex!r}, {self.language!r}, {self.datatype!r})"


@cython.final
cdef class WireTerms(TermFactory):
    """Terms as wire values: ``WireIri``, ``WireLiteral``, blank node labels (``str``), quoted
    triples as ``(s, p, o)`` tuples, and jelly's ``DEFAULT_GRAPH``."""

    def __init__(self):
        self.default_graph = DEFAULT_GRAPH
        self.acyclic = True

    cdef object iri(self, str value):
        return _wire_iri("", value)

    cdef object iri_parts(self, str prefix, str name):
        return _wire_iri(prefix, name)

    cdef object bnode(self, str label):
        return label

    cdef object datatype(self, str iri):
        return _wire_iri("", iri)

    cdef object literal(self, str lex, object language, object datatype):
        cdef WireLiteral lit = WireLiteral.__new__(WireLiteral)
        lit.lex = lex
        lit.language = language
        lit.datatype = <WireIri>datatype
        return lit

    cdef object triple(self, object s, object p, object o):
        return (s, p, o)


@cython.final
cdef class _CountSink(StatementSink):
    # Statements are only counted: a validating decode with nobody to re-encode them.

    cdef int triple(self, object s, object p, object o) except -1:
        self.pending += 1
        return 0

    cdef int quad(self, object s, object p, object o, object g) except -1:
        self.pending += 1
        return 0

    cdef object take(self, bint quads):
        self.pending = 0
        return []


# ------------------------------------------------------------------------------ decode half

@cython.final
cdef class WireDecoder:
    """Decodes the frames of one input stream (in order) into wire values, validating them as
    the reader does (``strict``: RDF-star and generalized terms must be announced)."""

    cdef Decoder decoder
    cdef StatementSink tuples, counts

    def __init__(self, *, limits=None, bint new_streams=True):
        self.decoder = Decoder(limits=limits if limits is not None else DEFAULT_LIMITS,
                               terms=WireTerms(), output="tuples", strict=True,
                               new_streams=new_streams)
        self.tuples = self.decoder.sink
        self.counts = _CountSink()

    def decode(self, data, Py_ssize_t offset=0, bint collect=True):
        """Decode one frame (the bytes of an ``RdfStreamFrame``): a :class:`jelly.Frame` whose
        statements are wire-value tuples (none unless ``collect``; ``statement_count`` counts
        them either way)."""
        self.decoder.sink = self.tuples if collect else self.counts
        return self.decoder.decode_frame(data, offset)

    @property
    def options(self):
        """The input stream's options (None before its options row)."""
        return self.decoder.options

    @property
    def in_graph(self):
        """True when the frames so far end inside a graph of a GRAPHS stream."""
        return self.decoder.in_graph_now

    @property
    def frames(self):
        """Frames decoded so far."""
        return self.decoder.frame_index


# ------------------------------------------------------------------------------ encode half

cdef IriSplit _split(str prefix, str name):
    cdef IriSplit sp = IriSplit.__new__(IriSplit)
    sp.prefix = prefix
    sp.name = name
    return sp


@cython.final
cdef class _WireEncoder(Encoder):
    # The core encoder, planning wire values as well as jelly terms.

    cdef int resolve(self, object term, int pos, int depth) except -1:
        cdef type t = type(term)
        cdef Planned* pl
        cdef WireLiteral lit
        cdef uint32_t dt
        if t is WireIri:
            pl = self.push()
            return self.wire_iri(<WireIri>term, pl)
        if t is str:
            if pos == POS_P and not self.generalized:
                raise JellyEncodeError("a blank node predicate is a generalized statement; "
                                       "enable generalized_statements")
            pl = self.push()
            pl.kind = K_BNODE
            utf8_of(<str>term, &pl.s1, &pl.n1)
            return 0
        if t is WireLiteral:
            lit = <WireLiteral>term
            if pos != POS_O and not self.generalized:
                raise JellyEncodeError(
                    f"a literal in the {_POS_NAMES[pos]} position is a generalized statement; "
                    f"enable generalized_statements")
            dt = 0 if lit.datatype is None else self.datatype_slot(lit.datatype)
            pl = self.push()     # after datatype_slot: nothing else moves the plan now
            pl.kind = K_LITERAL
            pl.datatype = dt
            utf8_of(lit.lex, &pl.s1, &pl.n1)
            if lit.language is not None:
                utf8_of(<str>lit.language, &pl.s2, &pl.n2)
            else:
                pl.s2 = NULL
            return 0
        if t is tuple:
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
            pl = self.push()
            pl.kind = K_TRIPLE    # set before the nested terms move the plan
            self.resolve((<tuple>term)[0], POS_S, depth + 1)
            self.resolve((<tuple>term)[1], POS_P, depth + 1)
            self.resolve((<tuple>term)[2], POS_O, depth + 1)
            return 0
        return TermEncoder.resolve(self, term, pos, depth)

    cdef inline int own(self, WireIri w) except -1:
        # Slots cached by another encoder (the objects are shared by every output of an input
        # stream) say nothing about this one's tables.
        if w.enc_id != self.encoder_id:
            w.prefix_slot = 0
            w.name_slot = 0
            w.dt_slot = 0
            w.alt = None
            w.enc_id = self.encoder_id
        return 0

    cdef int wire_iri(self, WireIri w, Planned* pl) except -1:
        cdef IriSplit sp
        cdef Py_ssize_t cut
        self.own(w)
        if self.retry_whole and not self.whole_iris:
            sp = _split("", w.prefix + w.name)
        elif self.n_prefixes == 0 or self.whole_iris:
            if not w.prefix:
                sp = w
            else:
                if w.alt is None:
                    w.alt = _split("", w.prefix + w.name)
                sp = w.alt
        elif not w.prefix:
            # Written whole by the input: split as jelly-jvm does (after the last '/' or '#').
            if w.alt is None:
                cut = max(w.name.rfind("/"), w.name.rfind("#")) + 1
                w.alt = _split(w.name[:cut], w.name[cut:]) if cut else w
            sp = w.alt
        else:
            sp = w
        return self.resolve_split(sp, pl)

    cdef uint32_t datatype_slot(self, WireIri w) except 0:
        cdef uint32_t dt
        if self.n_datatypes == 0:
            raise JellyEncodeError(f"typed literal (datatype {w.value}) needs the datatype "
                                   f"table, whose size is 0")
        self.own(w)
        if w.dt_slot and self.datatypes.gen[w.dt_slot] == w.dt_gen:
            et_touch(self.datatypes, w.dt_slot, self.epoch)
            return w.dt_slot
        dt = self.datatypes.find(w.name, self.epoch)
        if dt == 0:
            dt = self.datatypes.assign(w.name, self.epoch)
            self.entry_row(self.datatype_tag, self.datatypes, dt, w.name)
        w.dt_slot = dt
        w.dt_gen = self.datatypes.gen[dt]
        return dt


def check_output(output, input):
    """Raise :class:`JellyOptionsError` if a stream with options ``output`` cannot hold the
    statements of a stream with options ``input`` (what the input declares, not what it uses:
    a later frame may use it)."""
    pin = int(input.physical_type)
    pout = int(output.physical_type)
    if pout == PT_TRIPLES and pin != PT_TRIPLES:
        raise JellyOptionsError(
            f"a TRIPLES stream cannot hold the statements of a {PhysicalStreamType(pin).name} "
            f"stream (they may be in named graphs)")
    if input.rdf_star and not output.rdf_star:
        raise JellyOptionsError("the input stream enables RDF-star (rdf_star), the output "
                                "options do not")
    if input.generalized_statements and not output.generalized_statements:
        raise JellyOptionsError("the input stream enables generalized statements, the output "
                                "options do not")
    if input.max_datatype_table_size and not output.max_datatype_table_size:
        raise JellyOptionsError("the input stream has typed literals (a datatype table), the "
                                "output options have no datatype table")


@cython.final
cdef class FrameRewriter:
    """One output stream written from the decoded frames (:meth:`WireDecoder.decode`) of any
    number of input streams, each frame re-encoded with the output's own lookups, ids and
    repeated terms.

    ``options`` are the output's: :class:`StreamOptions`, ``None`` (those of the first input
    stream) or a function of the first input stream's options returning them; with version
    ``None`` the first input stream's version is kept (1 or 2).  Namespace declarations are written only in version 2 streams (they are
    cosmetic and version 1 has none).  ``continue_stream=True`` continues an output whose
    options row was already sent (e.g. a subscriber that so far received another stream's
    frames unchanged): nothing written from here on depends on what came before;
    ``graph_open``: that stream is inside a graph (GRAPHS), which the next statement closes.
    ``segment_size=N`` writes a segmented stream, as :class:`jelly.Writer` does: a
    self-contained segment starts at the stream's start and with the next frame once N
    statements were written since the last one (a graph open at that frame's end is ended and
    started again).
    """

    cdef object requested
    cdef _WireEncoder enc
    cdef bint continuing, graph_open
    cdef object checked         # input options last checked (one check per input stream)
    cdef readonly Py_ssize_t frames_written
    cdef Py_ssize_t segment_size, segment_start     # 0: no segments

    def __init__(self, options=None, *, bint continue_stream=False, bint graph_open=False,
                 segment_size=None):
        if segment_size is not None and segment_size < 1:
            raise JellyOptionsError("segment_size must be at least 1 (None: no segments)")
        self.segment_size = segment_size or 0
        if isinstance(options, StreamOptions):
            options.validate_for_writing()
        elif options is not None and not callable(options):
            raise TypeError(f"options must be StreamOptions, None or a function, not "
                            f"{type(options).__name__}")
        elif continue_stream:
            raise JellyOptionsError("continuing a stream needs its options")
        self.requested = options
        self.continuing = continue_stream
        self.graph_open = graph_open and continue_stream

    @property
    def options(self):
        """The output options (None until the first frame settles an automatic version)."""
        return self.enc.options if self.enc is not None else None

    @property
    def statements(self):
        """Statements written so far."""
        return self.enc.statements if self.enc is not None else 0

    cdef object settle(self, input_options):
        # The output options, once the first input stream's are known.
        if self.requested is None:
            return input_options
        if not isinstance(self.requested, StreamOptions):
            self.requested = self.requested(input_options)
            if not isinstance(self.requested, StreamOptions):
                raise TypeError("the options function must return StreamOptions")
            self.requested.validate_for_writing()
        return self.requested

    cdef int start(self, input_options) except -1:
        o = self.settle(input_options)
        if o.version is None:
            version = min(max(int(input_options.version or 1), PROTOCOL_VERSION_1_0),
                          PROTOCOL_VERSION)
            o = o.replace(version=version)
        # any depth its input decoders accepted (their limits are at most MAX_QUOTED_DEPTH)
        self.enc = _WireEncoder(o, max_quoted_depth=MAX_QUOTED_DEPTH)
        if self.segment_size:
            self.enc.start_segment()    # the first segment is self-contained too (as Writer's)
        if self.continuing:
            self.enc.options_written = True
            self.enc.reset_state()
            if self.graph_open and self.enc.physical_type == PT_GRAPHS:
                self.enc.graph_is_open = True
                self.enc.open_graph = _UNKNOWN_GRAPH   # equal to no graph: ended by the next
        return 0

    def check(self, input_options):
        """Raise :class:`JellyOptionsError` if this output cannot hold a stream with
        ``input_options``."""
        check_output(self.enc.options if self.enc is not None else self.settle(input_options),
                     input_options)

    def restart(self):
        """Start the output stream afresh: the next frame begins with the options row."""
        if self.enc is not None:
            self.enc.reset_state()
            self.enc.options_written = False
            self.enc.graph_is_open = False
            self.enc.open_graph = None
            self.segment_start = self.enc.statements
        self.continuing = False

    def write(self, frame, input_options, bint in_graph=False, bint delimited=False):
        """The bytes of the output frame (after its length as a varint when ``delimited``) for
        one decoded input frame of a stream with ``input_options``; ``in_graph``: the input
        frame ends inside a graph (GRAPHS).  Every input frame gives one output frame (possibly
        without rows)."""
        cdef _WireEncoder enc
        if input_options is not self.checked:
            self.check(input_options)
            self.checked = input_options
        if self.enc is None:
            self.start(input_options)
        enc = self.enc
        # A frame refused halfway gives nothing: its rows so far are dropped and the tables
        # start afresh (they hold entries of those rows), so the frames after it, also after
        # restart(), do not depend on it.
        cdef bint options_written = enc.options_written, graph_is_open = enc.graph_is_open
        cdef object open_graph = enc.open_graph
        cdef Py_ssize_t statements = enc.statements, rows = enc.rows, length = enc.buf.len
        try:
            if frame.namespaces and enc.final_version >= PROTOCOL_VERSION:
                for name, iri in frame.namespaces:
                    enc.add_namespace(name,
                                      make_iri((<WireIri>iri).prefix + (<WireIri>iri).name))
            enc.add_statements(frame.statements)
        except BaseException:
            enc.buf.len = length
            enc.options_written, enc.graph_is_open = options_written, graph_is_open
            enc.open_graph, enc.statements, enc.rows = open_graph, statements, rows
            enc.reset_state()
            raise
        # A segment ends with a frame, outside a graph (as Writer's: a graph that goes on is
        # started again in the next segment).
        segment = self.segment_size and enc.statements - self.segment_start >= self.segment_size
        close = segment or enc.physical_type == PT_GRAPHS and (
            int(input_options.physical_type) != PT_GRAPHS or not in_graph)
        out = enc.take_frame(frame.metadata or None, close, delimited)
        if segment:
            enc.start_segment()
            self.segment_start = enc.statements
        self.frames_written += 1
        return out


# ------------------------------------------------------------------------------ both

@cython.final
cdef class Transcoder:
    """Frames of Jelly streams in, frames of one stream with ``options`` out (see the module
    docstring); one output frame for each input frame.

    Frames of one input stream are fed in order with :meth:`transcode_frame`;
    :meth:`next_input` says a new input stream starts (a concatenated stream whose options
    differ is also recognised on its own).  ``options`` and ``segment_size``: as for
    :class:`FrameRewriter` (None keeps the first input stream's options; writes no segments).
    ``limits`` caps what input streams may declare, as for a reader.
    """

    cdef object limits
    cdef WireDecoder input
    cdef FrameRewriter output
    cdef readonly Py_ssize_t inputs

    def __init__(self, options=None, *, limits=None, segment_size=None):
        self.limits = limits
        self.output = FrameRewriter(options, segment_size=segment_size)
        self.input = WireDecoder(limits=limits)
        self.inputs = 1

    def next_input(self):
        """The next frame starts a new input stream."""
        if self.input.frames:
            self.input = WireDecoder(limits=self.limits)
            self.inputs += 1

    def restart(self):
        """Start the output afresh at the next frame: options row, empty tables."""
        self.output.restart()

    def transcode_frame(self, data, Py_ssize_t offset=0, bint delimited=False):
        """The output frame (bytes; after its length as a varint when ``delimited``) for one
        input frame (the bytes of an ``RdfStreamFrame`` in any buffer; ``offset`` is its position
        in its input, for errors)."""
        frame = self.input.decode(data, offset)
        options = self.input.options
        if options is None:      # an empty frame before any options row
            return b"\x00" if delimited else b""
        try:
            return self.output.write(frame, options, self.input.in_graph, delimited)
        except JellyError as exc:
            if exc.frame is None:
                exc.offset, exc.frame = offset, frame.index
                exc.args = (exc._describe(),)
            raise

    @property
    def options(self):
        """The output stream options (None before the first frame)."""
        return self.output.options

    @property
    def input_options(self):
        """The options of the current input stream."""
        return self.input.options

    @property
    def frames(self):
        """Output frames written so far."""
        return self.output.frames_written

    @property
    def statements(self):
        """Statements written so far."""
        return self.output.statements
