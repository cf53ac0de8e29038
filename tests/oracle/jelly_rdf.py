"""An independent, deliberately simple reference decoder for Jelly-RDF (test oracle).

Written from the specification (``shared/spec/serialization.md``) and ``proto/rdf.proto``
only, on top of the official ``protobuf`` runtime (upb): the schema is compiled with
``grpc_tools.protoc`` at test time into a *private* descriptor pool (so it never clashes
with another copy of ``rdf.proto`` that e.g. pyjelly registers in the default pool), and
every frame is parsed with ``ParseFromString``.  Nothing here imports ``jelly``.

Terms are the neutral tuples of :mod:`oracle.terms`.  Statements are tuples ``(s, p, o)`` for
TRIPLES streams and ``(s, p, o, g)`` for QUADS and GRAPHS streams.

Besides a strict mode (any violation raises :class:`RefDecodeError`), the decoder has a
*lenient* mode used by the differential tests: rules where the spec lets the consumer choose
(MAY / SHOULD throw, or a producer-side MUST that the consumer cannot always be expected to
police) do not raise but are recorded in ``Result.warnings``; where there is no sensible
lenient reading the error is raised with ``optional=True``.  A conforming jelly must then

* reject every input on which the lenient decoder raises a non-optional error,
* decode to the same statements every input the lenient decoder accepts without warnings,
* either reject, or decode to the same statements, inputs with warnings.

Where upb is not a faithful protobuf reader the decoder corrects for it:
* a map entry (frame metadata) holding an unknown field is dropped by upb; metadata is read
  from the wire here instead;
* upb accepts field number 0 inside field-less messages (RdfDefaultGraph, RdfGraphEnd);
  that is rejected here;
* upb refuses tags and lengths encoded in more than 5 varint bytes (protobuf-java and C++
  accept up to 10): such input is read from its minimal re-encoding, with a warning.
"""

from __future__ import annotations

import dataclasses

from .proto import load_proto
from .terms import DEFAULT_GRAPH, XSD_STRING
from .wire import RefDecodeError, fields, parse_frame, split_frames

# Reader caps of the reference decoder (the values Jelly-JVM uses and the spec's security
# section refers to).
MAX_NAME_TABLE = 4096
MAX_PREFIX_TABLE = 1024
MAX_DATATYPE_TABLE = 256
MIN_NAME_TABLE = 8
MAX_VERSION = 2
# Quoted triples nested deeper than this may be refused by an implementation ("SHOULD throw
# if the depth exceeds the capabilities of the implementation").
SOFT_MAX_DEPTH = 60

PHYSICAL_TRIPLES, PHYSICAL_QUADS, PHYSICAL_GRAPHS = 1, 2, 3


def load_pb2():
    """The ``rdf_pb2``-like module compiled from ``proto/rdf.proto`` (cached)."""
    return load_proto("rdf.proto")


@dataclasses.dataclass
class RefOptions:
    stream_name: str
    physical_type: int
    generalized_statements: bool
    rdf_star: bool
    max_name_table_size: int
    max_prefix_table_size: int
    max_datatype_table_size: int
    logical_type: int
    version: int

    def key(self):
        """The fields the to_jelly conformance tests compare."""
        return (self.physical_type, self.logical_type, self.generalized_statements,
                self.rdf_star, self.max_name_table_size, self.max_prefix_table_size,
                self.max_datatype_table_size)


@dataclasses.dataclass
class RefFrame:
    index: int
    statements: list
    namespaces: list          # [(name, ("I", iri))]
    metadata: dict            # str -> bytes


@dataclasses.dataclass
class Result:
    options: RefOptions | None
    frames: list              # [RefFrame]
    warnings: list            # [str] (lenient mode only)

    @property
    def statement_frames(self):
        return [f.statements for f in self.frames]


_SPO = ("s", "p", "o")


class _Decoder:
    def __init__(self, strict: bool, new_streams: bool = False):
        self.strict = strict
        self.new_streams = new_streams
        self.first_row_of_frame = False
        self.warnings: list[str] = []
        self._reset()

    def _reset(self):
        """Stream state (everything but the settings and the warnings)."""
        self.options: RefOptions | None = None
        self.seen_row = False
        self.names: dict[int, str] = {}
        self.prefixes: dict[int, str] = {}
        self.datatypes: dict[int, str] = {}
        self.last_entry_id = {"name": 0, "prefix": 0, "datatype": 0}
        self.last_prefix_id = 0     # last explicitly given (non-zero) prefix id
        self.last_name_id = 0       # resolved name id of the previous IRI
        self.prev = {}              # position -> last term (repeated terms)
        self.in_graph = False
        self.graph = None
        self.max_depth = 0

    # -- helpers ------------------------------------------------------------------------
    def soft(self, message: str):
        """A rule the consumer MAY (or SHOULD) enforce: raise in strict mode, else record."""
        if self.strict:
            raise RefDecodeError(message)
        self.warnings.append(message)

    # -- options ------------------------------------------------------------------------
    def on_options(self, o):
        opts = RefOptions(
            stream_name=o.stream_name, physical_type=int(o.physical_type),
            generalized_statements=bool(o.generalized_statements), rdf_star=bool(o.rdf_star),
            max_name_table_size=o.max_name_table_size,
            max_prefix_table_size=o.max_prefix_table_size,
            max_datatype_table_size=o.max_datatype_table_size,
            logical_type=int(o.logical_type), version=o.version)
        if self.options is not None:
            if opts == self.options:
                return
            if not (self.new_streams and self.first_row_of_frame):
                raise RefDecodeError("stream options differ from the earlier options row")
            # Concatenated streams: a frame that starts with other options starts a new one.
            self._reset()
        if self.seen_row:
            # "Implementations MAY throw an error if the stream options header is not present
            # at the start of the stream. Alternatively, they MAY use their own defaults."
            raise RefDecodeError("stream options are not the first row", optional=True)
        if opts.version == 0:
            raise RefDecodeError("stream version 0")
        if opts.version > MAX_VERSION:
            raise RefDecodeError(f"unsupported stream version {opts.version}")
        if opts.physical_type not in (PHYSICAL_TRIPLES, PHYSICAL_QUADS, PHYSICAL_GRAPHS):
            raise RefDecodeError(f"bad physical stream type {opts.physical_type}")
        if opts.max_name_table_size > MAX_NAME_TABLE:
            raise RefDecodeError("name table too large")
        if opts.max_prefix_table_size > MAX_PREFIX_TABLE:
            raise RefDecodeError("prefix table too large")
        if opts.max_datatype_table_size > MAX_DATATYPE_TABLE:
            raise RefDecodeError("datatype table too large")
        if opts.max_name_table_size < MIN_NAME_TABLE:
            self.soft(f"max_name_table_size {opts.max_name_table_size} < 8")
        lt = opts.logical_type
        if lt != 0:
            base = lt % 10
            known = {1, 2, 3, 4, 13, 14, 114}
            if lt not in known:
                self.soft(f"unknown logical stream type {lt}")
            ok = {PHYSICAL_TRIPLES: {1, 3}, PHYSICAL_QUADS: {2, 4},
                  PHYSICAL_GRAPHS: {2, 4}}[opts.physical_type]
            if base not in ok:
                self.soft(f"logical type {lt} inconsistent with physical type "
                          f"{opts.physical_type}")
        self.options = opts

    # -- lookup entries -----------------------------------------------------------------
    def on_entry(self, kind: str, entry):
        o = self.options
        size = {"name": o.max_name_table_size, "prefix": o.max_prefix_table_size,
                "datatype": o.max_datatype_table_size}[kind]
        if size == 0:
            raise RefDecodeError(f"{kind} entry while the {kind} table is disabled")
        eid = entry.id if entry.id != 0 else self.last_entry_id[kind] + 1
        if eid < 1 or eid > size:
            raise RefDecodeError(f"{kind} entry id {eid} outside 1..{size}")
        self.last_entry_id[kind] = eid
        {"name": self.names, "prefix": self.prefixes, "datatype": self.datatypes}[kind][eid] = \
            entry.value

    # -- terms --------------------------------------------------------------------------
    def iri(self, m):
        if m.prefix_id != 0:
            self.last_prefix_id = m.prefix_id
        pid = self.last_prefix_id
        if pid == 0:
            prefix = ""
        else:
            if pid not in self.prefixes:
                raise RefDecodeError(f"prefix id {pid} not defined")
            prefix = self.prefixes[pid]
        nid = m.name_id if m.name_id != 0 else self.last_name_id + 1
        if nid not in self.names:
            raise RefDecodeError(f"name id {nid} not defined")
        self.last_name_id = nid
        return ("I", prefix + self.names[nid])

    def literal(self, m):
        kind = m.WhichOneof("literalKind")
        if kind is None:
            return ("L", m.lex, None, None)
        if kind == "langtag":
            if m.langtag == "":
                # BCP 47 has no empty tag; like pyjelly, jelly reads it as a simple literal.
                self.soft("empty language tag")
                return ("L", m.lex, None, None)
            return ("L", m.lex, m.langtag, None)
        if m.datatype == 0:
            raise RefDecodeError("literal datatype 0")
        if m.datatype not in self.datatypes:
            raise RefDecodeError(f"datatype id {m.datatype} not defined")
        dt = self.datatypes[m.datatype]
        return ("L", m.lex, None, None if dt == XSD_STRING else dt)

    def quoted(self, m, depth):
        depth += 1
        if depth > self.max_depth:
            self.max_depth = depth
            if depth == SOFT_MAX_DEPTH + 1:
                self.soft(f"quoted triples nested deeper than {SOFT_MAX_DEPTH}")
        if not self.options.rdf_star:
            self.soft("quoted triple in a stream with rdf_star = false")
        terms = []
        for pos in _SPO:
            t = self.term(m, pos, depth)
            if t is None:
                raise RefDecodeError("repeated term inside a quoted triple")
            terms.append(t)
        return ("T", *terms)

    def term(self, m, pos, depth):
        """Decode the term in oneof ``subject``/``predicate``/``object`` of m (None if unset)."""
        which = m.WhichOneof({"s": "subject", "p": "predicate", "o": "object"}[pos])
        if which is None:
            return None
        field = getattr(m, which)
        kind = which[2:]
        if kind == "iri":
            return self.iri(field)
        if kind == "bnode":
            if pos == "p":
                self.generalized("blank node predicate")
            return ("B", field)
        if kind == "literal":
            if pos != "o":
                self.generalized(f"literal in position {pos}")
            return self.literal(field)
        assert kind == "triple_term", kind
        if pos == "p":
            self.generalized("quoted triple as predicate")
        return self.quoted(field, depth)

    def graph_term(self, m):
        which = m.WhichOneof("graph")
        if which is None:
            return None
        field = getattr(m, which)
        if which == "g_iri":
            return self.iri(field)
        if which == "g_bnode":
            return ("B", field)
        if which == "g_default_graph":
            return DEFAULT_GRAPH
        assert which == "g_literal", which
        self.generalized("literal graph node")
        return self.literal(field)

    def generalized(self, what):
        if not self.options.generalized_statements:
            self.soft(f"{what} in a stream with generalized_statements = false")

    def statement_terms(self, m, positions):
        out = []
        for pos in positions:
            t = self.graph_term(m) if pos == "g" else self.term(m, pos, 0)
            if t is None:
                if pos not in self.prev:
                    raise RefDecodeError(f"repeated term in position {pos} with no earlier term")
                t = self.prev[pos]
            else:
                self.prev[pos] = t
            out.append(t)
        return out

    # -- rows ---------------------------------------------------------------------------
    def row(self, r, frame: RefFrame):
        kind = r.WhichOneof("row")
        if kind is None:
            # "It MUST have exactly one of the following fields set" (e.g. only unknown fields).
            self.soft("stream row with no field set")
            return
        if kind == "options":
            self.on_options(r.options)
            self.seen_row = True
            return
        if self.options is None:
            raise RefDecodeError("stream options are not the first row", optional=True)
        self.seen_row = True
        pt = self.options.physical_type
        if kind in ("name", "prefix", "datatype"):
            self.on_entry(kind, getattr(r, kind))
        elif kind == "namespace":
            ns = r.namespace
            if not ns.HasField("value"):
                raise RefDecodeError("namespace declaration without value", optional=True)
            frame.namespaces.append((ns.name, self.iri(ns.value)))
        elif kind == "triple":
            if pt == PHYSICAL_QUADS:
                raise RefDecodeError("triple row in a QUADS stream")
            if pt == PHYSICAL_GRAPHS and not self.in_graph:
                raise RefDecodeError("triple outside a graph in a GRAPHS stream")
            s, p, o = self.statement_terms(r.triple, _SPO)
            frame.statements.append((s, p, o) if pt == PHYSICAL_TRIPLES else (s, p, o, self.graph))
        elif kind == "quad":
            if pt != PHYSICAL_QUADS:
                raise RefDecodeError("quad row in a non-QUADS stream")
            frame.statements.append(tuple(self.statement_terms(r.quad, ("s", "p", "o", "g"))))
        elif kind == "graph_start":
            if pt != PHYSICAL_GRAPHS:
                raise RefDecodeError("graph_start in a non-GRAPHS stream")
            if self.in_graph:
                raise RefDecodeError("graph_start inside a graph")
            g = self.graph_term(r.graph_start)
            if g is None:
                raise RefDecodeError("graph_start with no graph term")
            self.in_graph, self.graph = True, g
        elif kind == "graph_end":
            if pt != PHYSICAL_GRAPHS:
                raise RefDecodeError("graph_end in a non-GRAPHS stream")
            if not self.in_graph:
                self.soft("graph_end outside a graph")
            self.in_graph, self.graph = False, None
        else:  # pragma: no cover - schema has no other members
            raise RefDecodeError(f"unknown row kind {kind}")

    def frame(self, payload: bytes, index: int) -> RefFrame:
        msg, payload = parse_frame(load_pb2().RdfStreamFrame, payload, self.soft)
        # metadata is read by hand: upb drops a map entry that holds an unknown field (it
        # moves the whole entry to the frame's unknown fields), while protobuf's own
        # definition of a map entry -- a message with key = 1, value = 2 -- keeps it.
        frame = RefFrame(index=index, statements=[], namespaces=[],
                         metadata=parse_metadata(payload))
        for i, r in enumerate(msg.rows):
            self.first_row_of_frame = i == 0
            self.row(r, frame)
        return frame


def parse_metadata(frame_payload: bytes) -> dict:
    """The ``metadata`` map of an RdfStreamFrame, read from the wire (last key wins)."""
    out = {}
    for number, wt, value in fields(frame_payload):
        if number != 15 or wt != 2:
            continue
        key, val = b"", b""
        for n2, wt2, v2 in fields(value):
            if n2 == 1 and wt2 == 2:
                key = v2
            elif n2 == 2 and wt2 == 2:
                val = v2
        try:
            out[key.decode("utf-8")] = val
        except UnicodeDecodeError:
            raise RefDecodeError("metadata key is not valid UTF-8") from None
    return out


def decode_full(data: bytes, strict: bool = True, new_streams: bool = False) -> Result:
    """Decode a whole Jelly input; raises RefDecodeError on invalid input.  ``new_streams``
    reads concatenated streams: a frame whose first row is an options row that differs from
    the stream's starts a new stream."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("decode_full takes bytes")
    data = bytes(data)
    dec = _Decoder(strict, new_streams)
    frames = [dec.frame(p, i) for i, p in enumerate(split_frames(data))]
    if dec.options is None:
        # No options row in the whole stream (so no statements either).
        dec.soft("stream without options row")
    return Result(options=dec.options, frames=frames, warnings=dec.warnings)


def decode(data: bytes):
    """Strict decode -> (options, frames) with frames a list of lists of statements."""
    r = decode_full(data, strict=True)
    return r.options, r.statement_frames


def decode_file(path):
    with open(path, "rb") as fh:
        return decode(fh.read())


def read_options(data: bytes) -> RefOptions:
    """The first options row of a Jelly input (without validating the rest)."""
    pb2 = load_pb2()
    for payload in split_frames(bytes(data)):
        msg = pb2.RdfStreamFrame()
        msg.ParseFromString(payload)
        for r in msg.rows:
            if r.WhichOneof("row") == "options":
                o = r.options
                return RefOptions(o.stream_name, int(o.physical_type),
                                  bool(o.generalized_statements), bool(o.rdf_star),
                                  o.max_name_table_size, o.max_prefix_table_size,
                                  o.max_datatype_table_size, int(o.logical_type), o.version)
            raise RefDecodeError("first row is not options")
    raise RefDecodeError("no options row")

