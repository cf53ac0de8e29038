"""An independent, deliberately simple reference decoder for Jelly-RDF (test oracle).

Written from the specification (``shared/spec/serialization.md``) and ``proto/rdf.proto``
only, on top of the official ``protobuf`` runtime (upb): the schema is compiled with
``grpc_tools.protoc`` at test time into a *private* descriptor pool (so it never clashes
with another copy of ``rdf.proto`` that e.g. pyjelly registers in the default pool), and
every frame is parsed with ``ParseFromString``.  Nothing here imports ``jelly``, except the
small converter :func:`from_jelly` that turns jelly's term objects into this module's
canonical form for comparison.

Canonical terms (plain, hashable tuples)::

    ("I", iri)                      IRI
    ("B", label)                    blank node
    ("L", lex, lang, datatype)      literal; lang / datatype are str or None;
                                    xsd:string is normalised to datatype None
    ("T", s, p, o)                  RDF-star quoted triple
    ("D",)                          the default graph

Statements are tuples ``(s, p, o)`` for TRIPLES streams and ``(s, p, o, g)`` for QUADS and
GRAPHS streams.

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
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PROTO_DIR = os.path.join(REPO, "proto")

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
DEFAULT_GRAPH = ("D",)

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


class RefDecodeError(Exception):
    """The input is not a valid Jelly-RDF stream (according to the reference decoder).

    ``optional`` is True when the spec leaves rejecting this input to the implementation
    and no single lenient reading exists (e.g. a stream without options header).
    """

    def __init__(self, message: str, optional: bool = False):
        super().__init__(message)
        self.optional = optional


# --------------------------------------------------------------------------------------
# The protobuf oracle
# --------------------------------------------------------------------------------------

def load_pb2():
    """The ``rdf_pb2``-like module compiled from ``proto/rdf.proto`` (cached)."""
    from oracle.proto import load_proto
    return load_proto("rdf.proto")


# --------------------------------------------------------------------------------------
# Framing
# --------------------------------------------------------------------------------------

def read_varint(data: bytes, pos: int):
    """Protobuf base-128 varint (at most 10 bytes; like protobuf's own readers, bits above
    64 are dropped) -> (value, new_pos)."""
    result = 0
    shift = 0
    for i in range(10):
        if pos >= len(data):
            raise RefDecodeError("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result & ((1 << 64) - 1), pos
        shift += 7
    raise RefDecodeError("varint longer than 10 bytes")


def is_delimited(data: bytes) -> bool:
    """The agreed detection rule: non-delimited iff the input starts with 0x0A and
    (the second byte is not 0x0A or the third byte is 0x0A)."""
    if len(data) >= 1 and data[0] == 0x0A:
        second = data[1] if len(data) > 1 else None
        third = data[2] if len(data) > 2 else None
        if second != 0x0A or third == 0x0A:
            return False
    return True


def split_frames(data: bytes):
    """Raw frame payloads of an input (delimited or a single non-delimited frame)."""
    if not is_delimited(data):
        return [data]
    frames = []
    pos = 0
    while pos < len(data):
        n, pos = read_varint(data, pos)
        if pos + n > len(data):
            raise RefDecodeError(f"truncated frame: need {n} bytes, have {len(data) - pos}")
        frames.append(data[pos:pos + n])
        pos += n
    return frames


# --------------------------------------------------------------------------------------
# Decoder
# --------------------------------------------------------------------------------------

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
        pb2 = load_pb2()
        msg = pb2.RdfStreamFrame()
        try:
            msg.ParseFromString(payload)
        except Exception as e:  # google.protobuf.message.DecodeError
            text = str(e).lower()
            optional = "recursion" in text or "depth" in text
            # upb takes tags and lengths of at most 5 varint bytes; protobuf-java and C++
            # read up to 10 (non-minimal) bytes.  If that is all that is wrong, read the
            # minimal re-encoding and let the implementation choose.
            norm = normalize_varints(payload, pb2.RdfStreamFrame.DESCRIPTOR)
            ok = False
            if norm is not None and norm != payload:
                try:
                    msg = pb2.RdfStreamFrame.FromString(norm)
                    ok = True
                except Exception:
                    pass
            if not ok:
                raise RefDecodeError(f"protobuf: {e}", optional=optional) from None
            self.soft("tag or length varint longer than 5 bytes")
            payload = norm
        if _has_field_zero(payload, pb2.RdfStreamFrame.DESCRIPTOR):
            # upb lets a field number 0 pass inside messages that have no fields
            # (RdfDefaultGraph, RdfGraphEnd); protobuf's wire format has no field 0.
            raise RefDecodeError("protobuf: field number 0")
        # metadata is read by hand: upb drops a map entry that holds an unknown field (it
        # moves the whole entry to the frame's unknown fields), while protobuf's own
        # definition of a map entry -- a message with key = 1, value = 2 -- keeps it.
        frame = RefFrame(index=index, statements=[], namespaces=[],
                         metadata=parse_metadata(payload))
        for i, r in enumerate(msg.rows):
            self.first_row_of_frame = i == 0
            self.row(r, frame)
        return frame


def _skip_field(data: bytes, pos: int, wt: int, number: int) -> int:
    if wt == 0:
        return read_varint(data, pos)[1]
    if wt == 1:
        return pos + 8
    if wt == 5:
        return pos + 4
    if wt == 2:
        n, pos = read_varint(data, pos)
        return pos + n
    if wt == 3:
        while True:
            tag, pos = read_varint(data, pos)
            if tag & 7 == 4:
                if tag >> 3 != number:
                    raise RefDecodeError("mismatched end group")
                return pos
            pos = _skip_field(data, pos, tag & 7, tag >> 3)
    raise RefDecodeError(f"bad wire type {wt}")


def _fields(data: bytes):
    """(number, wire type, value) of a well-formed message; value = bytes for LEN fields."""
    pos = 0
    while pos < len(data):
        tag, pos = read_varint(data, pos)
        number, wt = tag >> 3, tag & 7
        if wt == 2:
            n, pos = read_varint(data, pos)
            yield number, wt, data[pos:pos + n]
            pos += n
        else:
            pos = _skip_field(data, pos, wt, number)
            yield number, wt, None


def normalize_varints(data: bytes, desc):
    """Re-encode over-long (> 5 byte) tags and lengths of a message minimally, following the
    schema into known message fields (and into groups).  None if the input is too broken
    to walk (then it is left to upb to judge)."""
    try:
        return _normalize(data, desc)
    except (RefDecodeError, IndexError):
        return None


def enc_varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _normalize(data: bytes, desc) -> bytes:
    out = bytearray()
    pos = 0
    while pos < len(data):
        start = pos
        tag, pos = read_varint(data, pos)
        number, wt = tag >> 3, tag & 7
        raw_tag = data[start:pos]
        out += enc_varint(tag) if pos - start > 5 and tag < 1 << 32 else raw_tag
        if wt == 0:
            s2 = pos
            _, pos = read_varint(data, pos)
            out += data[s2:pos]
        elif wt in (1, 5):
            n = 8 if wt == 1 else 4
            if pos + n > len(data):
                raise RefDecodeError("truncated")
            out += data[pos:pos + n]
            pos += n
        elif wt == 2:
            s2 = pos
            n, pos = read_varint(data, pos)
            if pos + n > len(data):
                raise RefDecodeError("truncated")
            body = data[pos:pos + n]
            fd = desc.fields_by_number.get(number) if desc is not None else None
            if fd is not None and fd.message_type is not None:
                body = _normalize(body, fd.message_type)
                out += enc_varint(len(body))
            else:
                out += enc_varint(n) if pos - s2 > 5 else data[s2:pos]
            out += body
            pos += n
        elif wt == 3:
            inner, pos = _normalize_group(data, pos, number)
            out += inner
        else:
            raise RefDecodeError("bad wire type")
    return bytes(out)


def _normalize_group(data: bytes, pos: int, number: int):
    """Content of a group up to and including its end tag -> (normalised bytes, new pos)."""
    out = bytearray()
    while True:
        start = pos
        tag, pos = read_varint(data, pos)
        if tag & 7 == 4:
            if tag >> 3 != number:
                raise RefDecodeError("mismatched end group")
            out += enc_varint(tag) if pos - start > 5 and tag < 1 << 32 else data[start:pos]
            return bytes(out), pos
        # one field: reuse _normalize on exactly that field's bytes
        end = _skip_field(data, pos, tag & 7, tag >> 3)
        out += _normalize(data[start:end], None)
        pos = end


def _has_field_zero(data: bytes, desc) -> bool:
    try:
        pos = 0
        while pos < len(data):
            tag, pos = read_varint(data, pos)
            number, wt = tag >> 3, tag & 7
            if number == 0:
                return True
            if wt == 2:
                n, pos = read_varint(data, pos)
                fd = desc.fields_by_number.get(number) if desc is not None else None
                if fd is not None and fd.message_type is not None and \
                        _has_field_zero(data[pos:pos + n], fd.message_type):
                    return True
                pos += n
            elif wt == 3:
                end = _skip_field(data, pos, wt, number)
                inner = data[pos:end]
                # the group's own end tag is the last tag inside `inner`
                if _group_has_field_zero(inner):
                    return True
                pos = end
            else:
                pos = _skip_field(data, pos, wt, number)
    except (RefDecodeError, IndexError):
        return False
    return False


def _group_has_field_zero(inner: bytes) -> bool:
    pos = 0
    while pos < len(inner):
        tag, pos = read_varint(inner, pos)
        if tag >> 3 == 0:
            return True
        if tag & 7 == 4:
            return False
        pos = _skip_field(inner, pos, tag & 7, tag >> 3)
    return False


def parse_metadata(frame_payload: bytes) -> dict:
    """The ``metadata`` map of an RdfStreamFrame, read from the wire (last key wins)."""
    out = {}
    for number, wt, value in _fields(frame_payload):
        if number != 15 or wt != 2:
            continue
        key, val = b"", b""
        for n2, wt2, v2 in _fields(value):
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


# --------------------------------------------------------------------------------------
# N-Triples / N-Quads reader (independent of jelly._ntriples; RDF-star and generalized)
# --------------------------------------------------------------------------------------

MESSAGE = object()   # yielded at "# @message" lines


class NTSyntaxError(ValueError):
    pass


_LANGTAG = re.compile(r"[a-zA-Z]+(?:-[a-zA-Z0-9]+)*")
_PN_BASE_RANGES = ((0x41, 0x5A), (0x61, 0x7A), (0xC0, 0xD6), (0xD8, 0xF6), (0xF8, 0x2FF),
                   (0x370, 0x37D), (0x37F, 0x1FFF), (0x200C, 0x200D), (0x2070, 0x218F),
                   (0x2C00, 0x2FEF), (0x3001, 0xD7FF), (0xF900, 0xFDCF), (0xFDF0, 0xFFFD),
                   (0x10000, 0xEFFFF))


def _pn_chars_u(c: str) -> bool:
    """N-Triples PN_CHARS_U (PN_CHARS_BASE, '_' and ':')."""
    if c in "_:":
        return True
    o = ord(c)
    return any(a <= o <= b for a, b in _PN_BASE_RANGES)


def _pn_chars(c: str) -> bool:
    o = ord(c)
    return _pn_chars_u(c) or c == "-" or "0" <= c <= "9" or o == 0xB7 or \
        0x300 <= o <= 0x36F or 0x203F <= o <= 0x2040


def nt_representable(term) -> bool:
    """Can N-Triples / N-Quads write this term as it is (label and language tag)?"""
    k = term[0]
    if k == "B":
        label = term[1]
        return bool(label) and (_pn_chars_u(label[0]) or label[0].isdigit()) and \
            not label.endswith(".") and all(_pn_chars(c) or c == "." for c in label)
    if k == "L" and term[2] is not None:
        return _LANGTAG.fullmatch(term[2]) is not None
    if k == "T":
        return all(nt_representable(t) for t in term[1:])
    return True


_ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'",
          "\\": "\\"}
_WS = " \t"


class _NTLine:
    def __init__(self, text: str, lineno: int):
        self.s = text
        self.i = 0
        self.lineno = lineno

    def err(self, msg):
        raise NTSyntaxError(f"line {self.lineno}: {msg}: {self.s!r}")

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in _WS:
            self.i += 1

    def peek(self, k=1):
        return self.s[self.i:self.i + k]

    def uchar(self):
        c = self.s[self.i + 1] if self.i + 1 < len(self.s) else ""
        n = {"u": 4, "U": 8}.get(c)
        if n is None:
            self.err("bad escape")
        h = self.s[self.i + 2:self.i + 2 + n]
        if len(h) != n or any(ch not in "0123456789abcdefABCDEF" for ch in h):
            self.err("bad \\u escape")
        self.i += 2 + n
        return chr(int(h, 16))

    def iri(self):
        assert self.s[self.i] == "<"
        self.i += 1
        out = []
        while True:
            if self.i >= len(self.s):
                self.err("unterminated IRI")
            c = self.s[self.i]
            if c == ">":
                self.i += 1
                return ("I", "".join(out))
            if c == "\\":
                out.append(self.uchar())
                continue
            if c in ' <"{}|^`' or ord(c) <= 0x20:
                self.err(f"bad character {c!r} in IRI")
            out.append(c)
            self.i += 1

    def bnode(self):
        self.i += 2
        j = self.i
        while j < len(self.s) and (_pn_chars(self.s[j]) or self.s[j] == "."):
            j += 1
        label = self.s[self.i:j]
        while label.endswith("."):
            label = label[:-1]
        if not label or not (_pn_chars_u(label[0]) or label[0].isdigit()):
            self.err("bad blank node label")
        self.i += len(label)
        return ("B", label)

    def literal(self):
        self.i += 1
        out = []
        while True:
            if self.i >= len(self.s):
                self.err("unterminated literal")
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                break
            if c == "\\":
                n = self.s[self.i + 1] if self.i + 1 < len(self.s) else ""
                if n in _ECHAR:
                    out.append(_ECHAR[n])
                    self.i += 2
                else:
                    out.append(self.uchar())
                continue
            if c in "\n\r":
                self.err("newline in literal")
            out.append(c)
            self.i += 1
        lex = "".join(out)
        if self.peek() == "@":
            m = _LANGTAG.match(self.s, self.i + 1)
            if not m:
                self.err("bad language tag")
            self.i = m.end()
            return ("L", lex, m.group(0), None)
        if self.peek(2) == "^^":
            self.i += 2
            if self.peek() != "<":
                self.err("datatype must be an IRI")
            dt = self.iri()[1]
            return ("L", lex, None, None if dt == XSD_STRING else dt)
        return ("L", lex, None, None)

    def term(self):
        self.ws()
        c = self.peek()
        if self.peek(2) == "<<":
            self.i += 2
            s = self.term()
            p = self.term()
            o = self.term()
            self.ws()
            if self.peek(2) != ">>":
                self.err("expected >>")
            self.i += 2
            return ("T", s, p, o)
        if c == "<":
            return self.iri()
        if self.peek(2) == "_:":
            return self.bnode()
        if c == '"':
            return self.literal()
        self.err("expected a term")

    def statement(self):
        terms = []
        while True:
            self.ws()
            if self.peek() == ".":
                self.i += 1
                break
            if self.i >= len(self.s):
                self.err("missing final '.'")
            if len(terms) == 4:
                self.err("too many terms")
            terms.append(self.term())
        self.ws()
        if self.i < len(self.s) and self.s[self.i] != "#":
            self.err("junk after '.'")
        if len(terms) < 3:
            self.err("too few terms")
        return tuple(terms)


def parse_nquads(text, messages: bool = False):
    """Parse N-Triples / N-Quads text (str or bytes) into canonical statement tuples.

    Lines without a graph term give 3-tuples, lines with one give 4-tuples.  With
    ``messages=True``, :data:`MESSAGE` is yielded at every ``# @message`` line.
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    out = []
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        stripped = line.strip(_WS)
        if not stripped:
            continue
        if stripped.startswith("#"):
            if messages and stripped.rstrip() == "# @message":
                out.append(MESSAGE)
            continue
        out.append(_NTLine(line, lineno).statement())
    return out


def split_messages(items):
    """Split the output of ``parse_nquads(..., messages=True)`` into frames.

    Statements before the first marker form no frame; they are an error (returned as a
    leading frame flagged by raising)."""
    frames = []
    for it in items:
        if it is MESSAGE:
            frames.append([])
        else:
            if not frames:
                raise NTSyntaxError("statement before the first '# @message' line")
            frames[-1].append(it)
    return frames


def parse_nquads_file(path):
    with open(path, "rb") as fh:
        return parse_nquads(fh.read())


# --------------------------------------------------------------------------------------
# Canonical form helpers
# --------------------------------------------------------------------------------------

def nq_shape(stmt):
    """N-Quads view of a statement: a default-graph quad becomes a 3-tuple."""
    if len(stmt) == 4 and stmt[3] == DEFAULT_GRAPH:
        return stmt[:3]
    return stmt


def from_jelly(term):
    """Convert a jelly term (or statement tuple) to the canonical tuple form.

    Strict: anything that is not one of jelly's term types raises TypeError, and a literal
    is *not* normalised here (so jelly returning datatype xsd:string shows up as a
    difference)."""
    import jelly

    if isinstance(term, tuple):
        return tuple(from_jelly(t) for t in term)
    if isinstance(term, jelly.IRI):
        return ("I", term.value)
    if isinstance(term, jelly.BlankNode):
        label = getattr(term, "value", None)
        if label is None:
            label = term.label
        return ("B", label)
    if isinstance(term, jelly.Literal):
        dt = term.datatype
        if dt is not None:
            if not isinstance(dt, jelly.IRI):
                raise TypeError(f"literal datatype is not an IRI: {dt!r}")
            dt = dt.value
        if term.language is not None and dt is not None:
            raise TypeError(f"literal with both language and datatype: {term!r}")
        return ("L", term.lex, term.language, dt)
    if isinstance(term, jelly.Triple):
        return ("T", from_jelly(term.s), from_jelly(term.p), from_jelly(term.o))
    if term is jelly.DEFAULT_GRAPH or term == jelly.DEFAULT_GRAPH:
        return DEFAULT_GRAPH
    raise TypeError(f"not a jelly term: {term!r} ({type(term).__name__})")


def term_to_nt(t) -> str:
    """Canonical term -> N-Triples text (for readable failure messages and test inputs)."""
    k = t[0]
    if k == "I":
        return "<" + t[1] + ">"
    if k == "B":
        return "_:" + t[1]
    if k == "L":
        lex = (t[1].replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
               .replace("\r", "\\r"))
        s = f'"{lex}"'
        if t[2] is not None:
            s += "@" + t[2]
        elif t[3] is not None:
            s += "^^<" + t[3] + ">"
        return s
    if k == "T":
        return "<< " + " ".join(term_to_nt(x) for x in t[1:]) + " >>"
    if k == "D":
        return ""
    raise TypeError(t)


def stmt_to_nt(st) -> str:
    st = nq_shape(st)
    return " ".join(term_to_nt(t) for t in st) + " ."
