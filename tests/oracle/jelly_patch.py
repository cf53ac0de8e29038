"""An independent, deliberately simple reference decoder for Jelly-Patch (test oracle).

Written from the specification (``shared/spec/patch.md``, which builds on ``serialization.md``)
and ``proto/patch.proto`` only, on the official ``protobuf`` runtime (upb): the schema is
compiled at test time into a private descriptor pool and every frame is parsed with
``ParseFromString``.  The term encoding (lookups, IRI deltas, repeated terms, literals, quoted
triples) is the Jelly-RDF oracle's (``oracle.jelly_rdf``), since the spec says it is the same.
Nothing here imports ``jelly``.

Operations are neutral tuples (terms as in :mod:`oracle.terms`)::

    ("A", s, p, o, g)      add a statement (g None in a TRIPLES stream)
    ("D", s, p, o, g)      delete a statement
    ("PA", name, iri, g)   add a namespace (g None in a TRIPLES stream)
    ("PD", name, iri, g)   delete a namespace (iri may be None)
    ("H", key, value)      header
    ("TX",) ("TC",) ("TA",)
    ("END",)               end of a patch

A patch ends after every frame of a FRAME stream, at every punctuation row of a PUNCTUATED one,
and at the end of a FLAT stream that holds any operation.

Strict and lenient modes as in ``oracle.jelly_rdf``: where the spec lets the consumer choose
(MAY / SHOULD, or a producer's MUST a consumer cannot be expected to police) the lenient mode
records a warning and goes on with the reading given in the warning; where no reading exists
the error is raised with ``optional=True``.
"""

from __future__ import annotations

import dataclasses
import functools
import types

from . import jelly_rdf as rd
from .proto import load_proto
from .terms import DEFAULT_GRAPH
from .wire import RefDecodeError, parse_frame, split_frames

MAX_PATCH_VERSION = 1
TRIPLES, QUADS = 1, 2
FRAME, FLAT, PUNCTUATED = 1, 2, 3
_RDF_PACKAGE = "eu.ostrzyciel.jelly.core.proto.v1."


@functools.lru_cache(maxsize=None)
def load_pb2() -> types.SimpleNamespace:
    """The message classes of ``proto/patch.proto`` and of the ``rdf.proto`` it imports, from
    one descriptor pool (messages of two pools cannot be nested), and the enum constants."""
    from google.protobuf import message_factory

    mod = load_proto("patch.proto")
    ns = types.SimpleNamespace(**{k: v for k, v in vars(mod).items() if not k.startswith("__")})
    for name in ("RdfIri", "RdfLiteral", "RdfTriple", "RdfQuad", "RdfDefaultGraph",
                 "RdfNameEntry", "RdfPrefixEntry", "RdfDatatypeEntry"):
        setattr(ns, name, message_factory.GetMessageClass(
            mod.POOL.FindMessageTypeByName(_RDF_PACKAGE + name)))
    return ns


@dataclasses.dataclass
class RefPatchOptions:
    statement_type: int
    stream_type: int
    generalized_statements: bool
    rdf_star: bool
    max_name_table_size: int
    max_prefix_table_size: int
    max_datatype_table_size: int
    version: int


@dataclasses.dataclass
class Result:
    options: RefPatchOptions | None
    frames: list              # operations per frame (a FLAT stream's END is in `tail`)
    tail: list                # operations that the end of the stream gives
    warnings: list

    @property
    def operations(self):
        return [op for frame in self.frames for op in frame] + self.tail


class _Decoder(rd._Decoder):
    """The Jelly-RDF oracle's term decoding with the patch rows."""

    def __init__(self, strict: bool):
        super().__init__(strict)
        self.open = 0          # operations since the last end of a patch
        self.in_tx = False

    def on_patch_options(self, o):
        opts = RefPatchOptions(
            statement_type=int(o.statement_type), stream_type=int(o.stream_type),
            generalized_statements=bool(o.generalized_statements), rdf_star=bool(o.rdf_star),
            max_name_table_size=o.max_name_table_size,
            max_prefix_table_size=o.max_prefix_table_size,
            max_datatype_table_size=o.max_datatype_table_size, version=o.version)
        if self.options is not None:
            if opts == self.options:
                return
            raise RefDecodeError("patch options differ from the earlier options row")
        if self.seen_row:
            raise RefDecodeError("patch options are not the first row", optional=True)
        if opts.version == 0:
            raise RefDecodeError("patch stream version 0")
        if opts.version > MAX_PATCH_VERSION:
            raise RefDecodeError(f"unsupported patch stream version {opts.version}")
        if opts.statement_type not in (TRIPLES, QUADS):
            raise RefDecodeError(f"bad statement type {opts.statement_type}")
        if opts.stream_type not in (FRAME, FLAT, PUNCTUATED):
            raise RefDecodeError(f"bad patch stream type {opts.stream_type}")
        if opts.max_name_table_size > rd.MAX_NAME_TABLE:
            raise RefDecodeError("name table too large")
        if opts.max_prefix_table_size > rd.MAX_PREFIX_TABLE:
            raise RefDecodeError("prefix table too large")
        if opts.max_datatype_table_size > rd.MAX_DATATYPE_TABLE:
            raise RefDecodeError("datatype table too large")
        if opts.max_name_table_size < rd.MIN_NAME_TABLE:
            self.soft(f"max_name_table_size {opts.max_name_table_size} < 8")
        self.options = opts

    def header_value(self, h):
        which = h.WhichOneof("value")
        if which is None:
            raise RefDecodeError("header without a value")
        if which == "h_iri":
            return self.iri(h.h_iri)
        if which == "h_bnode":
            return ("B", h.h_bnode)
        if which == "h_literal":
            return self.literal(h.h_literal)
        return self.quoted(h.h_triple_term, 0)

    def graph_of(self, m):
        """The graph of a statement or namespace (QUADS: repeated when unset)."""
        g = self.graph_term(m)
        if self.options.statement_type == TRIPLES:
            if g is not None:
                # "the consumer SHOULD ignore the graph term and MAY throw an error"
                self.soft("graph term in a TRIPLES stream")
            return None
        if g is None:
            if "g" not in self.prev:
                raise RefDecodeError("repeated graph term with no earlier graph")
            return self.prev["g"]
        self.prev["g"] = g
        return g

    def end(self):
        if self.in_tx:
            self.soft("a patch ends inside a transaction")
        self.in_tx = False
        self.open = 0
        return ("END",)

    def row(self, r, out: list):
        kind = r.WhichOneof("row")
        if kind is None:
            self.soft("patch row with no field set")
            return
        if kind == "options":
            self.on_patch_options(r.options)
            self.seen_row = True
            return
        if self.options is None:
            raise RefDecodeError("patch options are not the first row", optional=True)
        self.seen_row = True
        if kind in ("name", "prefix", "datatype"):
            self.on_entry(kind, getattr(r, kind))
            return
        if kind == "punctuation":
            if self.options.stream_type != PUNCTUATED:
                raise RefDecodeError("punctuation row outside a PUNCTUATED stream")
            out.append(self.end())
            return
        self.open += 1
        if kind in ("statement_add", "statement_delete"):
            m = getattr(r, kind)
            s, p, o = self.statement_terms(m, ("s", "p", "o"))
            out.append(("A" if kind == "statement_add" else "D", s, p, o, self.graph_of(m)))
        elif kind in ("namespace_add", "namespace_delete"):
            ns = getattr(r, kind)
            iri = self.iri(ns.value) if ns.HasField("value") else None
            if iri is None and kind == "namespace_add":
                raise RefDecodeError("namespace_add without a value")
            if self.options.statement_type == QUADS and ns.WhichOneof("graph") is None \
                    and "g" not in self.prev:
                # A repeated graph with nothing to repeat: read as the default graph (what
                # jelly-jvm writes for a namespace without a graph), the graph to repeat next.
                self.soft("namespace without a graph and no earlier graph")
                g = self.prev["g"] = DEFAULT_GRAPH
            else:
                g = self.graph_of(ns)
            out.append(("PA" if kind == "namespace_add" else "PD", ns.name, iri, g))
        elif kind == "header":
            out.append(("H", r.header.key, self.header_value(r.header)))
        elif kind == "transaction_start":
            if self.in_tx:
                self.soft("transaction start inside a transaction")
            self.in_tx = True
            out.append(("TX",))
        else:
            if not self.in_tx:
                self.soft("transaction commit / abort outside a transaction")
            self.in_tx = False
            out.append(("TC",) if kind == "transaction_commit" else ("TA",))

    def frame(self, payload: bytes, index: int) -> list:
        msg, _ = parse_frame(load_pb2().RdfPatchFrame, payload, self.soft)
        out: list = []
        for r in msg.rows:
            self.row(r, out)
        if self.options is not None and self.options.stream_type == FRAME:
            out.append(self.end())
        return out


def decode_full(data: bytes, strict: bool = True) -> Result:
    """Decode a whole Jelly-Patch input; raises RefDecodeError on invalid input."""
    data = bytes(data)
    dec = _Decoder(strict)
    frames = [dec.frame(p, i) for i, p in enumerate(split_frames(data))]
    tail = []
    if dec.options is None:
        dec.soft("stream without options row")
    elif dec.open:
        if dec.options.stream_type == FLAT:
            tail.append(dec.end())
        elif dec.options.stream_type == PUNCTUATED:
            # "The punctuation mark MUST occur at the end of an RDF Patch."
            dec.soft("the stream ends with operations after the last punctuation row")
    return Result(options=dec.options, frames=frames, tail=tail, warnings=dec.warnings)


def decode(data: bytes) -> list:
    """Strict decode -> the operations."""
    return decode_full(data, strict=True).operations
