"""Differential tests: jelly's reader against the independent reference decoder (upb based).

(a) Valid inputs: every positive conformance file, random streams generated with the
    protobuf classes compiled from proto/, and byte-level variants of those written by a tiny
    protobuf wire writer below (fields in another order, unknown fields of every wire type,
    a singular message field split in two occurrences, an earlier member of a oneof that the
    last one must override, duplicated scalars, non-minimal varints, 64-bit values in uint32
    fields, bools that are not 0/1).  jelly.parse_frames must give the statements,
    namespaces and metadata the reference decoder gives -- or both reject.
(b) Mutated inputs (seeded byte flips / inserts / deletes): both agree, or jelly raises
    JellyError where the reference decoder's verdict allows it.

The verdict of the reference decoder (lenient mode, see ``oracle.jelly_rdf``):
* hard error            -> jelly must raise JellyError
* optional error        -> jelly may do anything but crash (JellyError or a result)
* accepted with warnings-> jelly raises JellyError or gives the reference's result
* accepted              -> jelly gives the reference's result
"""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings, strategies as st

import helpers
from oracle import isomorphism as iso, jelly_rdf as rd, ntriples as ntr, terms as neutral, wire

PB = rd.load_pb2()
FD = PB.RdfIri.DESCRIPTOR.fields[0].__class__  # FieldDescriptor class (for type constants)

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


# ======================================================================================
# A tiny protobuf wire writer
# ======================================================================================

WT_VARINT, WT_I64, WT_LEN, WT_SGROUP, WT_EGROUP, WT_I32 = 0, 1, 2, 3, 4, 5


class F:
    """One field occurrence on the wire."""
    __slots__ = ("number", "wt", "value", "fd")

    def __init__(self, number, wt, value, fd=None):
        self.number, self.wt, self.value, self.fd = number, wt, value, fd


class Msg:
    __slots__ = ("desc", "fields", "plain")

    def __init__(self, desc, fields, plain=False):
        # plain: written as is, without liberties (decoys, so they stay finite)
        self.desc, self.fields, self.plain = desc, fields, plain


def _scalar_f(fd, v):
    t = fd.type
    if t in (FD.TYPE_UINT32, FD.TYPE_UINT64, FD.TYPE_INT32, FD.TYPE_INT64, FD.TYPE_ENUM):
        return F(fd.number, WT_VARINT, int(v) & ((1 << 64) - 1), fd)
    if t == FD.TYPE_BOOL:
        return F(fd.number, WT_VARINT, int(bool(v)), fd)
    if t == FD.TYPE_STRING:
        return F(fd.number, WT_LEN, v.encode("utf-8"), fd)
    if t == FD.TYPE_BYTES:
        return F(fd.number, WT_LEN, bytes(v), fd)
    raise NotImplementedError(fd.full_name)


def pb_to_model(msg) -> Msg:
    """A protobuf message object -> wire model (fields in field-number order)."""
    out = []
    for fd, value in msg.ListFields():
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            entry = fd.message_type
            kf, vf = entry.fields_by_name["key"], entry.fields_by_name["value"]
            for k in value:
                out.append(F(fd.number, WT_LEN,
                             Msg(entry, [_scalar_f(kf, k), _scalar_f(vf, value[k])]), fd))
        elif fd.is_repeated:
            for v in value:
                out.append(F(fd.number, WT_LEN, pb_to_model(v), fd) if fd.message_type
                           else _scalar_f(fd, v))
        elif fd.message_type is not None:
            out.append(F(fd.number, WT_LEN, pb_to_model(value), fd))
        else:
            out.append(_scalar_f(fd, value))
    return Msg(msg.DESCRIPTOR, out)


def varint(v: int, length: int = 0) -> bytes:
    """Varint of v, padded with redundant continuation bytes to `length` bytes if longer."""
    assert 0 <= v < 1 << 64
    out = bytearray(wire.enc_varint(v))
    if length > len(out):
        out[-1] |= 0x80
        out.extend(b"\x80" * (length - len(out) - 1))
        out.append(0)
    return bytes(out)


class Variant:
    """Which byte-level liberties the emitter takes (each applied at random places)."""

    def __init__(self, rng, reorder=False, unknown=False, groups=False, split=False,
                 oneof_decoy=False, scalar_decoy=False, pad=False, wide=False, bools=False,
                 longpad=False, p=0.5):
        self.rng = rng
        self.reorder, self.unknown, self.groups, self.split = reorder, unknown, groups, split
        self.oneof_decoy, self.scalar_decoy = oneof_decoy, scalar_decoy
        self.pad, self.wide, self.bools, self.p = pad, wide, bools, p
        # longpad: tags and lengths padded to up to 10 bytes (upb refuses more than 5,
        # protobuf-java / C++ accept them; the oracle reads them with a warning)
        self.longpad = longpad
        self.short = 10 if longpad else 5

    def __repr__(self):
        on = [k for k in ("reorder", "unknown", "groups", "split", "oneof_decoy",
                          "scalar_decoy", "pad", "wide", "bools", "longpad")
              if getattr(self, k)]
        return f"Variant({', '.join(on)})"

    def chance(self):
        return self.rng.random() < self.p

    # -- varints ---------------------------------------------------------------------
    def v(self, value, max_len=10):
        if (self.pad or self.longpad) and self.chance():
            minimal = len(varint(value))
            return varint(value, self.rng.randint(minimal, max_len))
        return varint(value)

    def tag(self, number, wt):
        return self.v((number << 3) | wt, self.short)

    # -- random content ----------------------------------------------------------------
    def random_text(self):
        alphabet = "abcXYZ019 :/#._-é€\U0001F600\u0000\uFFFD"
        return "".join(self.rng.choice(alphabet) for _ in range(self.rng.randint(0, 6)))

    def random_scalar(self, fd):
        r = self.rng
        t = fd.type
        if t == FD.TYPE_STRING:
            return _scalar_f(fd, self.random_text())
        if t == FD.TYPE_BYTES:
            return _scalar_f(fd, bytes(r.randrange(256) for _ in range(r.randint(0, 5))))
        if t == FD.TYPE_BOOL:
            return _scalar_f(fd, r.random() < 0.5)
        return _scalar_f(fd, r.choice([0, 1, 2, 3, 7, 300, 4097, (1 << 32) - 1]))

    def random_msg(self, desc, depth=0) -> Msg:
        """Any well-formed message of type desc (semantic validity not intended)."""
        fields = []
        seen_oneofs = set()
        for fd in desc.fields:
            if fd.is_repeated or self.rng.random() < 0.5:
                continue
            oo = fd.containing_oneof
            if oo is not None:
                if oo.name in seen_oneofs:
                    continue
                seen_oneofs.add(oo.name)
            if fd.message_type is not None:
                if depth >= 2:
                    continue
                fields.append(F(fd.number, WT_LEN, self.random_msg(fd.message_type, depth + 1),
                                fd))
            else:
                fields.append(self.random_scalar(fd))
        return Msg(desc, fields, plain=True)

    def random_unknown(self, desc, depth=0) -> F:
        known = {f.number for f in desc.fields} if desc is not None else set()
        candidates = [n for n in range(1, 20) if n not in known] + \
            [100, 1000, 19000, 536870911]
        number = self.rng.choice(candidates)
        wts = [WT_VARINT, WT_I64, WT_LEN, WT_I32] + ([WT_SGROUP] if self.groups else [])
        wt = self.rng.choice(wts)
        r = self.rng
        if wt == WT_VARINT:
            return F(number, wt, r.choice([0, 1, 150, (1 << 64) - 1]))
        if wt == WT_I64:
            return F(number, wt, r.getrandbits(64))
        if wt == WT_I32:
            return F(number, wt, r.getrandbits(32))
        if wt == WT_LEN:
            return F(number, wt, bytes(r.randrange(256) for _ in range(r.randint(0, 6))))
        inner = [self.random_unknown(None, depth + 1) for _ in range(r.randint(0, 2))] \
            if depth < 2 else []
        return F(number, WT_SGROUP, inner)

    # -- emission ----------------------------------------------------------------------
    def field_list(self, m: Msg):
        if m.plain:
            return m.fields
        fields = []
        for f in m.fields:
            fd = f.fd
            if fd is not None and self.oneof_decoy and fd.containing_oneof is not None \
                    and self.chance():
                others = [o for o in fd.containing_oneof.fields if o.number != fd.number]
                o = self.rng.choice(others)
                decoy = (F(o.number, WT_LEN, self.random_msg(o.message_type), o)
                         if o.message_type is not None else self.random_scalar(o))
                fields.append(decoy)
            if fd is not None and self.scalar_decoy and fd.message_type is None \
                    and not fd.is_repeated and fd.containing_oneof is None and self.chance():
                fields.append(self.random_scalar(fd))
            if fd is not None and self.split and fd.message_type is not None \
                    and not fd.is_repeated and self.chance():
                k = self.rng.randint(0, len(f.value.fields))
                fields.append(F(f.number, WT_LEN, Msg(f.value.desc, f.value.fields[:k]), fd))
                fields.append(F(f.number, WT_LEN, Msg(f.value.desc, f.value.fields[k:]), fd))
                continue
            fields.append(f)
        if self.reorder:
            # Reverse the order of the field groups; entries of one repeated field, or of
            # one oneof, keep their relative order (it carries meaning).
            groups, order = {}, []
            for f in fields:
                key = ("oneof", f.fd.containing_oneof.name) \
                    if f.fd is not None and f.fd.containing_oneof is not None else f.number
                if key not in groups:
                    groups[key] = []
                    order.append(key)
                groups[key].append(f)
            order.reverse()
            fields = [f for k in order for f in groups[k]]
        if self.unknown and not m.desc.GetOptions().map_entry:
            # (upb moves a map entry holding an unknown field, whole, into the parent's
            # unknown fields, i.e. drops the key: not something to hold jelly to.)
            out = []
            for f in fields:
                if self.chance():
                    out.append(self.random_unknown(m.desc))
                out.append(f)
            if self.chance():
                out.append(self.random_unknown(m.desc))
            fields = out
        return fields

    def emit_field(self, f: F) -> bytes:
        if f.wt == WT_VARINT:
            value = f.value
            if f.fd is not None and self.wide and f.fd.type == FD.TYPE_UINT32 and self.chance():
                value |= self.rng.randint(1, (1 << 32) - 1) << 32
            if f.fd is not None and self.bools and f.fd.type == FD.TYPE_BOOL and value \
                    and self.chance():
                value = self.rng.choice([2, 255, 1 << 40, (1 << 64) - 1])
            return self.tag(f.number, WT_VARINT) + self.v(value)
        if f.wt == WT_I64:
            return self.tag(f.number, WT_I64) + f.value.to_bytes(8, "little")
        if f.wt == WT_I32:
            return self.tag(f.number, WT_I32) + f.value.to_bytes(4, "little")
        if f.wt == WT_SGROUP:
            body = b"".join(self.emit_field(x) for x in f.value)
            return self.tag(f.number, WT_SGROUP) + body + self.tag(f.number, WT_EGROUP)
        payload = self.msg(f.value) if isinstance(f.value, Msg) else f.value
        # lengths are int32 for protobuf parsers: at most 5 varint bytes
        return self.tag(f.number, WT_LEN) + self.v(len(payload), self.short) + payload

    def msg(self, m: Msg) -> bytes:
        return b"".join(self.emit_field(f) for f in self.field_list(m))


def plain_emitter():
    return Variant(random.Random(0))


def delimit(payloads, em: Variant | None = None, max_len=5) -> bytes:
    """Delimited variant: each frame preceded by its length as a varint.  Padded length
    prefixes are kept to 5 bytes (a uint32, as protobuf's own delimited readers take)."""
    em = em or plain_emitter()
    return b"".join(em.v(len(p), max_len) + p for p in payloads)


def frames_to_bytes(frames, em: Variant | None = None, single=False) -> bytes:
    em = em or plain_emitter()
    payloads = [em.msg(pb_to_model(f)) for f in frames]
    if single:
        assert len(payloads) == 1
        return payloads[0]
    return delimit(payloads, em)


def test_wire_writer_matches_protobuf():
    """The writer, without liberties, writes what upb writes; with them, upb reads the same."""
    rng = random.Random(7)
    for seed in range(40):
        frames = StreamGen(random.Random(seed)).frames()
        for f in frames:
            plain = plain_emitter().msg(pb_to_model(f))
            assert PB.RdfStreamFrame.FromString(plain) == f
            if not f.metadata:  # map order is not deterministic
                assert plain == f.SerializeToString(deterministic=True)
            em = Variant(rng, reorder=True, unknown=True, groups=True, split=True,
                         oneof_decoy=True, scalar_decoy=True, pad=True, wide=True, bools=True)
            parsed = PB.RdfStreamFrame.FromString(em.msg(pb_to_model(f)))
            parsed.DiscardUnknownFields()
            assert parsed == f
    assert varint(1, 3) == b"\x81\x80\x00"
    assert varint(300) == b"\xac\x02"
    assert varint((1 << 64) - 1) == b"\xff" * 9 + b"\x01"


# ======================================================================================
# Random stream generator (mostly valid; the oracle decides)
# ======================================================================================

IRI_PARTS = ["http://example.org/", "https://ex.com/ns#", "urn:x:", "", "http://ü.example/é/",
             "http://a/b?c=d&e#", "tag:\U0001F600/"]
NAME_PARTS = ["", "a", "b", "name1", "Person", "knows", "x y", "é", "\U0001F600", "0", "#"]
LEX = ["", "plain", "with \"quotes\"", "line\nbreak", "tab\there", "ü", "\U0001F600 emoji",
       "\u0000nul", "\\", "42", "3.14", "true"]
LANGS = ["en", "en-GB", "de", "x-private", "EN-us"]
DATATYPES = [XSD + "integer", XSD + "string", XSD + "boolean", XSD + "date",
             "http://example.org/dt", RDF_LANGSTRING, ""]
BNODES = ["b0", "b1", "b2", "node-x", "ü", "B0123456789abcdef",
          ":", "é́",
          # valid in Jelly, but not N-Triples blank node labels as they stand:
          "a b", "x.", "-x", "a\n_:c",
          # ... and labels that an escaping scheme might produce for those
          "x612062", "a_b", "x2d78"]


class StreamGen:
    """Generates a random Jelly stream as a list of RdfStreamFrame objects.

    Mirrors the decoding state (tables, IRI deltas, repeated terms, open graph) so that it
    can use 0-ids and repeated terms correctly most of the time.  With ``chaos`` > 0 it
    makes deliberate mistakes with that probability per decision.  ``pb`` and ``row_type`` are
    the classes its entries and terms are built with (Jelly-Patch's generator reuses them).
    """

    pb = PB
    row_type = "RdfStreamRow"

    def __init__(self, rng: random.Random, chaos: float = 0.0):
        self.r = rng
        self.chaos = chaos
        r = rng
        self.pt = r.choice([1, 2, 3])
        self.generalized = r.random() < 0.4
        self.star = r.random() < 0.5
        self.name_size = r.choice([8, 8, 9, 16, 64, 4096])
        self.prefix_size = r.choice([0, 0, 1, 2, 8, 1024])
        self.dt_size = r.choice([0, 1, 2, 8, 256])
        self.version = r.choice([1, 2])
        self.logical = r.choice({1: [0, 1, 3, 13], 2: [0, 2, 4, 14, 114],
                                 3: [0, 2, 4, 14]}[self.pt])
        self.names, self.prefixes, self.dts = {}, {}, {}
        self.last_entry = {"name": 0, "prefix": 0, "datatype": 0}
        self.last_prefix_id = 0
        self.last_name_id = 0
        self.prev = set()
        self.in_graph = False
        self.options_msg = None

    def oops(self):
        return self.chaos and self.r.random() < self.chaos

    # -- rows -----------------------------------------------------------------------------
    def options(self):
        o = PB.RdfStreamOptions(
            stream_name=self.r.choice(["", "", "stream-é"]), physical_type=self.pt,
            generalized_statements=self.generalized, rdf_star=self.star,
            max_name_table_size=self.name_size, max_prefix_table_size=self.prefix_size,
            max_datatype_table_size=self.dt_size, logical_type=self.logical,
            version=self.version)
        if self.oops():
            field = self.r.choice(["version", "physical_type", "max_name_table_size",
                                   "max_prefix_table_size", "max_datatype_table_size",
                                   "logical_type", "rdf_star"])
            val = {"version": [0, 3, 10000], "physical_type": [0, 1, 2, 3, 4],
                   "max_name_table_size": [0, 7, 4097, 1 << 20],
                   "max_prefix_table_size": [0, 1025], "max_datatype_table_size": [0, 257],
                   "logical_type": [5, 7, 24, 1, 2, 3, 4], "rdf_star": [True, False]}[field]
            setattr(o, field, self.r.choice(val))
        return PB.RdfStreamRow(options=o)

    def entry(self, kind):
        size = {"name": self.name_size, "prefix": self.prefix_size,
                "datatype": self.dt_size}[kind]
        table = {"name": self.names, "prefix": self.prefixes, "datatype": self.dts}[kind]
        values = {"name": NAME_PARTS, "prefix": IRI_PARTS, "datatype": DATATYPES}[kind]
        nxt = self.last_entry[kind] + 1
        if self.oops():
            eid = self.r.choice([0, size + 1, nxt, 1 << 31])
        elif nxt <= size and self.r.random() < 0.7:
            eid = nxt
        else:
            eid = self.r.randint(1, max(1, min(size, 12)))
        explicit = eid != nxt or self.r.random() < 0.3
        value = self.r.choice(values)
        # mirror the decoder
        resolved = eid if explicit else nxt
        if 1 <= resolved <= size:
            table[resolved] = value
            self.last_entry[kind] = resolved
        cls = {"name": self.pb.RdfNameEntry, "prefix": self.pb.RdfPrefixEntry,
               "datatype": self.pb.RdfDatatypeEntry}[kind]
        return getattr(self.pb, self.row_type)(**{kind: cls(id=eid if explicit else 0,
                                                            value=value)})

    def iri(self):
        """An RdfIri message referring to defined entries; updates the delta state."""
        r = self.r
        m = self.pb.RdfIri()
        if self.prefixes and r.random() < 0.8:
            pid = r.choice(sorted(self.prefixes))
            if pid != self.last_prefix_id or r.random() < 0.3:
                m.prefix_id = pid
            self.last_prefix_id = pid
        elif self.last_prefix_id and r.random() < 0.5:
            pass  # keep using the previous prefix
        if self.oops():
            m.prefix_id = r.choice([1, 2, 5, self.prefix_size + 1])
            self.last_prefix_id = m.prefix_id
        names = sorted(self.names)
        if not names or self.oops():
            nid = r.choice([1, 2, 3, self.name_size + 1])
            m.name_id = nid
        else:
            nxt = self.last_name_id + 1
            if nxt in self.names and r.random() < 0.5:
                nid = nxt
                if r.random() < 0.3:
                    m.name_id = nid
            else:
                nid = r.choice(names)
                if nid != nxt or r.random() < 0.5:
                    m.name_id = nid
        self.last_name_id = nid
        return m

    def literal(self):
        r = self.r
        m = self.pb.RdfLiteral(lex=r.choice(LEX))
        c = r.random()
        if c < 0.3:
            m.langtag = r.choice(LANGS)
        elif c < 0.6 and (self.dts or self.oops()):
            m.datatype = r.choice(sorted(self.dts)) if self.dts and not self.oops() \
                else r.choice([0, 1, 3, self.dt_size + 1])
        return m

    def set_term(self, msg, pos, depth):
        """Set the oneof for position pos ('s','p','o','g') of msg (a triple/quad/graph_start
        message); graph positions use the g_ fields.  Any other pos is an object-like term in
        the fields named after it (Jelly-Patch's header value: 'h')."""
        r = self.r
        gen = self.generalized or self.oops()
        star = (self.star or self.oops()) and depth < 4
        if pos == "g":
            kinds = ["iri", "bnode", "default"] + (["literal"] if gen else [])
        elif pos == "s":
            kinds = ["iri", "bnode"] + (["literal"] if gen else []) + (["triple"] if star else [])
        elif pos == "p":
            kinds = ["iri", "iri", "iri"] + (["bnode", "literal"] if gen else []) + \
                    (["triple"] if star and gen else [])
        else:
            kinds = ["iri", "bnode", "literal", "literal"] + (["triple"] if star else [])
        kind = r.choice(kinds)
        prefix = "g" if msg.DESCRIPTOR.name == "RdfGraphStart" else pos
        if pos == "g" and kind == "default":
            getattr(msg, "g_default_graph").SetInParent()
        elif kind == "iri":
            getattr(msg, f"{prefix}_iri").CopyFrom(self.iri())
        elif kind == "bnode":
            setattr(msg, f"{prefix}_bnode", r.choice(BNODES))
        elif kind == "literal":
            getattr(msg, f"{prefix}_literal").CopyFrom(self.literal())
        else:
            t = self.pb.RdfTriple()
            for p in "spo":
                if self.oops():
                    continue  # a repeated term inside a quoted triple: invalid
                self.set_term(t, p, depth + 1)
            getattr(msg, f"{prefix}_triple_term").CopyFrom(t)

    def statement(self, cls, positions):
        m = cls()
        for pos in positions:
            if pos in self.prev and self.r.random() < 0.35:
                continue  # repeated term
            if pos not in self.prev and self.oops():
                continue  # repeated term with nothing to repeat
            self.set_term(m, pos, 0)
            self.prev.add(pos)
        return m

    def rows(self, first):
        r = self.r
        rows = []
        if first:
            rows.append(self.options())
            self.options_msg = rows[0]
            for _ in range(r.randint(1, 4)):
                rows.append(self.entry("name"))
            if self.prefix_size:
                for _ in range(r.randint(0, 3)):
                    rows.append(self.entry("prefix"))
            if self.dt_size:
                for _ in range(r.randint(0, 2)):
                    rows.append(self.entry("datatype"))
        for _ in range(r.randint(0, 10)):
            c = r.random()
            if c < 0.12:
                rows.append(self.entry("name"))
            elif c < 0.17 and (self.prefix_size or self.oops()):
                rows.append(self.entry("prefix"))
            elif c < 0.21 and (self.dt_size or self.oops()):
                rows.append(self.entry("datatype"))
            elif c < 0.25:
                ns = PB.RdfNamespaceDeclaration(name=r.choice(["", "ex", "é", "a1"]))
                ns.value.CopyFrom(self.iri())
                rows.append(PB.RdfStreamRow(namespace=ns))
            elif c < 0.27:
                rows.append(PB.RdfStreamRow(options=self.options_msg.options))
            else:
                rows.extend(self.statement_rows())
        if self.oops():
            r.shuffle(rows)
        return rows

    def statement_rows(self):
        r = self.r
        pt = self.pt
        if self.oops():
            pt = r.choice([1, 2, 3])
        if pt == 1:
            return [PB.RdfStreamRow(triple=self.statement(PB.RdfTriple, "spo"))]
        if pt == 2:
            return [PB.RdfStreamRow(quad=self.statement(PB.RdfQuad, "spog"))]
        out = []
        if not self.in_graph or r.random() < 0.2:
            if self.in_graph and r.random() < 0.8:
                out.append(PB.RdfStreamRow(graph_end=PB.RdfGraphEnd()))
            gs = PB.RdfGraphStart()
            if not self.oops():
                self.set_term(gs, "g", 0)
            out.append(PB.RdfStreamRow(graph_start=gs))
            self.in_graph = True
        out.append(PB.RdfStreamRow(triple=self.statement(PB.RdfTriple, "spo")))
        if r.random() < 0.15:
            out.append(PB.RdfStreamRow(graph_end=PB.RdfGraphEnd()))
            self.in_graph = False
        return out

    def frames(self):
        r = self.r
        frames = []
        n = r.choice([1, 1, 2, 3, 5])
        first = True
        for _ in range(n):
            f = PB.RdfStreamFrame()
            if first and r.random() < 0.1:
                frames.append(f)  # empty frames before the options are fine
                continue
            rows = self.rows(first)
            first = False
            f.rows.extend(rows)
            if r.random() < 0.2:
                for _ in range(r.randint(1, 3)):
                    f.metadata[r.choice(["k", "ts", "é", ""])] = bytes(
                        r.randrange(256) for _ in range(r.randint(0, 4)))
            frames.append(f)
        return frames


# ======================================================================================
# The comparison
# ======================================================================================

class Disagreement(AssertionError):
    pass


def jelly_decode(jelly, data):
    """-> (frames, error); any exception other than JellyError fails the test."""
    try:
        frames = list(jelly.parse_frames(data))
    except jelly.JellyError as e:
        return None, e
    except Exception as e:  # noqa: BLE001
        raise Disagreement(f"jelly raised {type(e).__name__} (not JellyError): {e!r}\n"
                           f"input: {data.hex()}") from e
    return frames, None


def ref_verdict(data, new_streams=False):
    try:
        return rd.decode_full(data, strict=False, new_streams=new_streams), None
    except rd.RefDecodeError as e:
        return None, e


def check_agreement(jelly, data: bytes, what: str = "") -> str:
    """Compare jelly and the oracle on data; returns an outcome tag, raises Disagreement."""
    ref, ref_err = ref_verdict(data)
    frames, jerr = jelly_decode(jelly, data)
    where = f"{what}\ninput ({len(data)} bytes): {data.hex()}"
    if ref_err is not None:
        if ref_err.optional:
            return "optional-reject"
        if jerr is None:
            raise Disagreement(f"jelly accepted input the oracle rejects ({ref_err}); "
                               f"jelly gave {sum(len(f.statements) for f in frames)} "
                               f"statements{where}")
        return "both-reject"
    if jerr is not None:
        if ref.warnings:
            return "jelly-rejects-optional"
        raise Disagreement(f"jelly rejected valid input: {jerr}{where}")
    compare_result(jelly, ref, frames, data, where)
    return "both-accept"


def compare_result(jelly, ref, frames, data, where):
    if len(frames) != len(ref.frames):
        raise Disagreement(f"{len(frames)} frames, oracle {len(ref.frames)}{where}")
    for jf, rf in zip(frames, ref.frames):
        if jf.index != rf.index:
            raise Disagreement(f"frame index {jf.index} != {rf.index}{where}")
        try:
            got = [helpers.from_jelly(s) for s in jf.statements]
        except TypeError as e:
            raise Disagreement(f"bad term from jelly: {e}{where}") from e
        why = iso.ordered_mismatch(got, rf.statements)
        if why:
            raise Disagreement(f"frame {rf.index}: {why}{where}")
        ns = [(n, helpers.from_jelly(v)) for n, v in jf.namespaces]
        if ns != rf.namespaces:
            raise Disagreement(f"frame {rf.index}: namespaces {ns} != {rf.namespaces}{where}")
        if dict(jf.metadata) != rf.metadata:
            raise Disagreement(f"frame {rf.index}: metadata {dict(jf.metadata)} != "
                               f"{rf.metadata}{where}")
    if ref.options is not None:
        try:
            o = jelly.read_options(data)
        except jelly.JellyError as e:
            raise Disagreement(f"read_options failed on a valid stream: {e}{where}") from e
        got = (int(o.physical_type), int(o.logical_type), bool(o.generalized_statements),
               bool(o.rdf_star), o.max_name_table_size, o.max_prefix_table_size,
               o.max_datatype_table_size, o.stream_name, o.version)
        want = ref.options.key() + (ref.options.stream_name, ref.options.version)
        if got != want:
            raise Disagreement(f"options {got} != {want}{where}")


# ======================================================================================
# (a) valid inputs
# ======================================================================================

def test_conformance_files_agree(valid_jelly, jelly):
    cid, path = valid_jelly
    data = path.read_bytes()
    assert check_agreement(jelly, data, cid) == "both-accept"


ALL_LIBERTIES = dict(reorder=True, unknown=True, split=True, oneof_decoy=True,
                     scalar_decoy=True, pad=True, wide=True, bools=True)


@pytest.mark.parametrize("liberty", ["reorder", "unknown", "split", "oneof_decoy",
                                     "scalar_decoy", "pad", "wide", "bools", "longpad",
                                     "all"])
def test_conformance_files_wire_variants(liberty, jelly):
    """Every valid suite file rewritten with one liberty (or all) reads the same."""
    files = helpers.valid_jelly_files()
    rng = random.Random(liberty)
    outcomes = []
    for cid, path in files:
        data = path.read_bytes()
        ref = rd.decode_full(data)
        frames = [PB.RdfStreamFrame.FromString(p) for p in wire.split_frames(data)]
        for rep in range(3):
            flags = ALL_LIBERTIES if liberty == "all" else {liberty: True}
            em = Variant(rng, **flags)
            variant = frames_to_bytes(frames, em)
            # the variant means the same to upb as the original
            assert rd.decode_full(variant, strict=False).statement_frames == \
                ref.statement_frames
            outcomes.append(check_agreement(jelly, variant, f"{cid} {em!r}"))
    assert set(outcomes) == {"both-accept"}


def test_unknown_groups(jelly):
    """Unknown fields of the (deprecated) group wire types 3/4 must be skipped too."""
    files = helpers.valid_jelly_files()
    rng = random.Random(34)
    for cid, path in files[::4]:
        data = path.read_bytes()
        frames = [PB.RdfStreamFrame.FromString(p) for p in wire.split_frames(data)]
        em = Variant(rng, unknown=True, groups=True)
        check_agreement(jelly, frames_to_bytes(frames, em), f"{cid} groups")


@settings(max_examples=400)
@given(seed=st.integers(0, 2**64 - 1))
def test_random_streams(seed, jelly):
    gen = StreamGen(random.Random(seed))
    frames = gen.frames()
    single = len(frames) == 1 and random.Random(seed).random() < 0.3
    data = frames_to_bytes(frames, single=single)
    check_agreement(jelly, data, f"seed={seed}")


@settings(max_examples=300)
@given(seed=st.integers(0, 2**64 - 1))
def test_random_streams_wire_variants(seed, jelly):
    rng = random.Random(seed)
    frames = StreamGen(rng).frames()
    flags = {k: rng.random() < 0.5 for k in ALL_LIBERTIES}
    em = Variant(rng, p=rng.choice([0.2, 0.5, 1.0]), **flags)
    data = frames_to_bytes(frames, em)
    check_agreement(jelly, data, f"seed={seed} {em!r}")


@settings(max_examples=500)
@given(seed=st.integers(0, 2**64 - 1), chaos=st.sampled_from([0.02, 0.05, 0.15]))
def test_random_streams_with_mistakes(seed, chaos, jelly):
    frames = StreamGen(random.Random(seed), chaos=chaos).frames()
    check_agreement(jelly, frames_to_bytes(frames), f"seed={seed} chaos={chaos}")


def test_random_streams_cover_both_verdicts(jelly):
    """The generators really produce valid and invalid streams (so the tests above test)."""
    seen = {}
    for seed in range(300):
        for chaos in (0.0, 0.1):
            frames = StreamGen(random.Random(seed), chaos=chaos).frames()
            outcome = check_agreement(jelly, frames_to_bytes(frames), f"seed={seed}")
            seen[outcome] = seen.get(outcome, 0) + 1
    assert seen.get("both-accept", 0) > 150, seen
    assert seen.get("both-reject", 0) > 30, seen


# ======================================================================================
# (b) mutations
# ======================================================================================

def mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        op = rng.random()
        if not b:
            b.append(rng.randrange(256))
            continue
        i = rng.randrange(len(b))
        if op < 0.4:
            b[i] ^= 1 << rng.randrange(8)
        elif op < 0.6:
            b[i] = rng.choice([0x00, 0x01, 0x0A, 0x7F, 0x80, 0xFF, rng.randrange(256)])
        elif op < 0.8:
            b.insert(i, rng.randrange(256))
        else:
            del b[i:i + rng.randint(1, 3)]
    return bytes(b)


def _mutation_corpus():
    corpus = [path.read_bytes() for _, path in helpers.valid_jelly_files()]
    for seed in range(60):
        corpus.append(frames_to_bytes(StreamGen(random.Random(10_000 + seed)).frames()))
    return corpus


def test_mutations_agree(jelly):
    rng = random.Random(20240601)
    corpus = _mutation_corpus()
    outcomes = {}
    failures = []
    deadline = time.monotonic() + 25
    n = 0
    while n < 4000 and time.monotonic() < deadline:
        data = mutate(rng, rng.choice(corpus))
        n += 1
        try:
            o = check_agreement(jelly, data, f"mutation #{n}")
        except Disagreement as e:
            failures.append(str(e))
            continue
        outcomes[o] = outcomes.get(o, 0) + 1
    assert n >= 1000, f"only {n} mutations ran in time"
    assert not failures, f"{len(failures)} disagreements out of {n}; first ones:\n" + \
        "\n\n".join(failures[:5])
    assert outcomes.get("both-reject", 0) > 100 and outcomes.get("both-accept", 0) > 100, \
        outcomes


# ======================================================================================
# Targeted cases (small inputs written by hand)
# ======================================================================================

def _frame(*rows, metadata=None):
    f = PB.RdfStreamFrame()
    f.rows.extend(rows)
    for k, v in (metadata or {}).items():
        f.metadata[k] = v
    return f


def _opts(**kw):
    base = dict(physical_type=1, max_name_table_size=8, max_prefix_table_size=0,
                max_datatype_table_size=0, version=1)
    base.update(kw)
    return PB.RdfStreamRow(options=PB.RdfStreamOptions(**base))


def _name(v, id=0):
    return PB.RdfStreamRow(name=PB.RdfNameEntry(id=id, value=v))


def _prefix(v, id=0):
    return PB.RdfStreamRow(prefix=PB.RdfPrefixEntry(id=id, value=v))


def _dt(v, id=0):
    return PB.RdfStreamRow(datatype=PB.RdfDatatypeEntry(id=id, value=v))


def _iri(p=0, n=0):
    return PB.RdfIri(prefix_id=p, name_id=n)


def _triple(**kw):
    return PB.RdfStreamRow(triple=PB.RdfTriple(**kw))


def _spo():
    return _triple(s_iri=_iri(), p_iri=_iri(), o_iri=_iri())


HAND_CASES = {
    # --- must be accepted -----------------------------------------------------------
    "basic": [_frame(_opts(), _name("http://a/s"), _name("http://a/p"), _name("http://a/o"),
                     _spo())],
    "name-0-chain": [_frame(_opts(), _name("x"), _name("y"), _name("z"),
                            _triple(s_iri=_iri(n=1), p_iri=_iri(), o_iri=_iri()))],
    "prefix-0-means-previous": [_frame(
        _opts(max_prefix_table_size=4), _prefix("http://a/"), _prefix("http://b/"),
        _name("s"), _name("p"), _name("o"),
        _triple(s_iri=_iri(2, 1), p_iri=_iri(0, 0), o_iri=_iri(1, 0)))],
    "namespace-feeds-delta": [_frame(
        _opts(version=2), _name("http://ns/"), _name("http://a/p"), _name("http://a/o"),
        PB.RdfStreamRow(namespace=PB.RdfNamespaceDeclaration(name="ex", value=_iri(0, 1))),
        _triple(s_bnode="b", p_iri=_iri(), o_iri=_iri()))],
    "repeat-across-frames": [_frame(_opts(), _name("s"), _name("p"), _name("o"), _spo()),
                             _frame(_triple()), _frame(), _frame(_triple(o_bnode="x"))],
    "xsd-string-normalised": [_frame(
        _opts(max_datatype_table_size=2), _name("s"), _name("p"),
        _dt(XSD + "string"),
        _triple(s_iri=_iri(), p_iri=_iri(), o_literal=PB.RdfLiteral(lex="v", datatype=1)))],
    "options-repeated": [_frame(_opts(), _name("s"), _opts(), _triple(
        s_iri=_iri(), p_iri=_iri(n=1), o_iri=_iri(n=1))), _frame(_opts())],
    "empty-frames-before-options": [_frame(), _frame(), _frame(_opts())],
    "explicit-empty-bnode": [_frame(_opts(), _name("p"),
                                    _triple(s_bnode="", p_iri=_iri(), o_bnode=""))],
    "entry-overwrite": [_frame(_opts(), _name("a"), _name("b", id=1),
                               _triple(s_iri=_iri(n=1), p_iri=_iri(n=1), o_iri=_iri(n=1)))],
    "sparse-entry": [_frame(_opts(), _name("a", id=8),
                            _triple(s_iri=_iri(n=8), p_iri=_iri(n=8), o_iri=_iri(n=8)))],
    "graphs-stream": [_frame(
        _opts(physical_type=3), _name("g"), _name("s"),
        PB.RdfStreamRow(graph_start=PB.RdfGraphStart(g_iri=_iri(n=1))),
        _triple(s_iri=_iri(n=2), p_iri=_iri(n=2), o_iri=_iri(n=2)),
        PB.RdfStreamRow(graph_end=PB.RdfGraphEnd()),
        PB.RdfStreamRow(graph_start=PB.RdfGraphStart(g_default_graph=PB.RdfDefaultGraph())),
        _triple(), PB.RdfStreamRow(graph_end=PB.RdfGraphEnd()))],
    "graph-spans-frames": [
        _frame(_opts(physical_type=3), _name("s"),
               PB.RdfStreamRow(graph_start=PB.RdfGraphStart(g_bnode="g")),
               _triple(s_iri=_iri(n=1), p_iri=_iri(n=1), o_iri=_iri(n=1))),
        _frame(_triple(o_bnode="z"), PB.RdfStreamRow(graph_end=PB.RdfGraphEnd()))],
    "metadata": [_frame(_opts(), metadata={"k": b"\xff\x00", "é": b""})],
    "version-2": [_frame(_opts(version=2))],
    "max-tables": [_frame(_opts(max_name_table_size=4096, max_prefix_table_size=1024,
                                max_datatype_table_size=256))],
    "max-ids": [_frame(_opts(max_name_table_size=4096, max_prefix_table_size=1024,
                             max_datatype_table_size=256),
                       _name("n", id=4096), _prefix("http://p/", id=1024),
                       _dt("http://d", id=256),
                       _triple(s_iri=_iri(1024, 4096), p_iri=_iri(0, 4096),
                               o_literal=PB.RdfLiteral(lex="", datatype=256)))],
    # --- must be rejected -------------------------------------------------------------
    "no-options-statement": [_frame(_name("s"), _spo())],
    "version-0": [_frame(_opts(version=0))],
    "version-3": [_frame(_opts(version=3))],
    "physical-0": [_frame(_opts(physical_type=0))],
    "physical-4": [_frame(_opts(physical_type=4))],
    "name-table-4097": [_frame(_opts(max_name_table_size=4097))],
    "options-differ": [_frame(_opts(), _opts(rdf_star=True))],
    "options-differ-later-frame": [_frame(_opts()), _frame(_opts(stream_name="x"))],
    "datatype-entry-table-disabled": [_frame(_opts(), _dt("http://d"))],
    "datatype-0": [_frame(_opts(max_datatype_table_size=2), _name("s"), _dt("http://d"),
                          _triple(s_iri=_iri(), p_iri=_iri(n=1),
                                  o_literal=PB.RdfLiteral(lex="v", datatype=0)))],
    "datatype-undefined": [_frame(_opts(max_datatype_table_size=2), _name("s"),
                                  _triple(s_iri=_iri(), p_iri=_iri(n=1),
                                          o_literal=PB.RdfLiteral(lex="v", datatype=2)))],
    "name-undefined": [_frame(_opts(), _name("s"), _triple(s_iri=_iri(), p_iri=_iri(),
                                                           o_iri=_iri(n=1)))],
    "name-id-above-table": [_frame(_opts(), _name("s", id=9))],
    "prefix-undefined": [_frame(_opts(max_prefix_table_size=2), _name("s"),
                                _triple(s_iri=_iri(1, 1), p_iri=_iri(0, 1), o_iri=_iri(0, 1)))],
    "repeat-in-first": [_frame(_opts(), _name("s"), _triple(p_iri=_iri(n=1), o_iri=_iri(n=1)))],
    "repeat-in-quoted": [_frame(_opts(rdf_star=True), _name("s"), _triple(
        s_triple_term=PB.RdfTriple(s_iri=_iri(n=1), p_iri=_iri(n=1)), p_iri=_iri(n=1),
        o_iri=_iri(n=1)))],
    "quad-in-triples": [_frame(_opts(), _name("s"), PB.RdfStreamRow(quad=PB.RdfQuad(
        s_iri=_iri(n=1), p_iri=_iri(n=1), o_iri=_iri(n=1),
        g_default_graph=PB.RdfDefaultGraph())))],
    "triple-in-quads": [_frame(_opts(physical_type=2), _name("s"), _spo())],
    "triple-outside-graph": [_frame(_opts(physical_type=3), _name("s"), _spo())],
    "graph-start-in-graph": [_frame(
        _opts(physical_type=3), _name("g"),
        PB.RdfStreamRow(graph_start=PB.RdfGraphStart(g_iri=_iri(n=1))),
        PB.RdfStreamRow(graph_start=PB.RdfGraphStart(g_iri=_iri(n=1))))],
    "graph-start-empty": [_frame(_opts(physical_type=3),
                                 PB.RdfStreamRow(graph_start=PB.RdfGraphStart()))],
    "graph-end-in-quads": [_frame(_opts(physical_type=2),
                                  PB.RdfStreamRow(graph_end=PB.RdfGraphEnd()))],
    "invalid-utf8-name": "invalid-utf8",
    # malformed protobuf tags (upb: "Wire format was corrupt"): field numbers are 1..2^29-1
    # and a tag is a uint32 varint
    "tag-above-32-bits": "tag:f8ffffff1f01",
    "tag-6-bytes": "tag:f8ffffff8f0001",
    "field-number-2^29": "tag:808080801001",
    "field-number-0": "tag:0001",
    "wire-type-6": "tag:0e00",
    "stray-end-group": "tag:2c",
    "field-number-2^29-1-ok": "tag:f8ffffff0f01",
    "unknown-group-ok": "tag:2b08012c",
    # field number 0 inside the empty RdfDefaultGraph (upb lets this one pass)
    "field-number-0-in-default-graph": "field0",
    "truncated-frame": "truncated",
}


def _bytes_of(case):
    value = HAND_CASES[case]
    if value == "invalid-utf8":
        f = _frame(_opts(), _name("x"))
        raw = plain_emitter().msg(pb_to_model(f))
        i = raw.rindex(b"x")
        return delimit([raw[:i] + b"\xc3" + raw[i + 1:]])
    if isinstance(value, str) and value.startswith("tag:"):
        good = _frame(_opts(), _name("s"), _triple(s_iri=_iri(n=1), p_iri=_iri(n=1),
                                                   o_iri=_iri(n=1)))
        return delimit([bytes.fromhex(value[4:]) + plain_emitter().msg(pb_to_model(good))])
    if value == "field0":
        quad = PB.RdfStreamRow(quad=PB.RdfQuad(s_iri=_iri(n=1), p_iri=_iri(n=1),
                                                o_iri=_iri(n=1),
                                                g_default_graph=PB.RdfDefaultGraph()))
        model = pb_to_model(_frame(_opts(physical_type=2), _name("s"), quad))
        default_graph = model.fields[-1].value.fields[0].value.fields[-1].value
        assert default_graph.desc.name == "RdfDefaultGraph"
        default_graph.fields.append(F(0, WT_VARINT, 1))
        return delimit([plain_emitter().msg(model)])
    if value == "truncated":
        return frames_to_bytes([_frame(_opts(), _name("s"), _spo())])[:-3]
    return frames_to_bytes(value)


@pytest.mark.parametrize("case", sorted(HAND_CASES))
def test_hand_written(case, jelly):
    data = _bytes_of(case)
    outcome = check_agreement(jelly, data, case)
    ref, err = ref_verdict(data)
    if err is None and not ref.warnings:
        assert outcome == "both-accept"
    elif err is not None and not err.optional:
        assert outcome == "both-reject"


# Cases the spec leaves to the implementation: record what jelly does (any non-crash is OK,
# and if it accepts, the statements must be the lenient reading).
OPTIONAL_CASES = {
    "graph-end-outside-graph": [_frame(_opts(physical_type=3),
                                       PB.RdfStreamRow(graph_end=PB.RdfGraphEnd()))],
    "quoted-without-rdf-star-flag": [_frame(_opts(), _name("s"), _triple(
        s_triple_term=PB.RdfTriple(s_iri=_iri(n=1), p_iri=_iri(n=1), o_iri=_iri(n=1)),
        p_iri=_iri(n=1), o_iri=_iri(n=1)))],
    "literal-subject-not-generalized": [_frame(_opts(), _name("s"), _triple(
        s_literal=PB.RdfLiteral(lex="x"), p_iri=_iri(n=1), o_iri=_iri(n=1)))],
    "name-table-7": [_frame(_opts(max_name_table_size=7))],
    "logical-inconsistent": [_frame(_opts(logical_type=2))],
    "logical-unknown": [_frame(_opts(logical_type=5))],
    "empty-row": [_frame(_opts(), PB.RdfStreamRow())],
    "empty-langtag": [_frame(_opts(), _name("s"), _triple(
        s_iri=_iri(n=1), p_iri=_iri(n=1), o_literal=PB.RdfLiteral(lex="x", langtag="")))],
    "empty-input": [],
    "options-not-first": [_frame(_name("s"), _opts())],
}


@pytest.mark.parametrize("case", sorted(OPTIONAL_CASES))
def test_implementation_defined(case, jelly):
    frames = OPTIONAL_CASES[case]
    data = frames_to_bytes(frames) if frames else b""
    check_agreement(jelly, data, case)


# ======================================================================================
# (c) Jelly <-> N-Quads through the command line, checked by the oracle
# ======================================================================================

def _cli(argv):
    import contextlib
    import io

    import jelly.cli as cli
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return code, err.getvalue()


def _jelly_to_nq_frames(tmp_path, data: bytes):
    src = tmp_path / "in.jelly"
    src.write_bytes(data)
    out = tmp_path / "out.nq"
    code, err = _cli(["convert", src, out, "--messages"])
    return code, err, out


@settings(max_examples=150)
@given(seed=st.integers(0, 2**64 - 1))
def test_cli_jelly_to_nquads_random(seed, jelly, tmp_path_factory):
    """jelly convert x.jelly out.nq --messages == the oracle's reading, frame by frame,
    as judged by the tests' own strict N-Quads reader."""
    tmp = tmp_path_factory.mktemp("j2n")
    data = frames_to_bytes(StreamGen(random.Random(seed)).frames())
    ref, ref_err = ref_verdict(data)
    code, err, out = _jelly_to_nq_frames(tmp, data)
    if ref_err is not None or ref.warnings:
        if ref_err is not None and not ref_err.optional:
            assert code != 0, f"accepted invalid input; {data.hex()}"
        if code != 0:
            assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        return
    representable = all(ntr.nt_representable(term) for f in ref.frames
                        for s in f.statements for term in s)
    if code != 0 and not representable:
        # A blank node label or language tag N-Triples cannot carry as it is: relabelling
        # (bnodes) is best, a clean refusal is acceptable, invalid output is not.
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        return
    assert code == 0, f"exit {code}: {err}\ninput {data.hex()}"
    text = out.read_bytes()
    try:
        frames = ntr.split_messages(ntr.parse_nquads(text, messages=True))
    except ntr.NTSyntaxError as e:
        raise Disagreement(f"jelly wrote invalid N-Quads: {e}\ninput {data.hex()}") from e
    want = [[neutral.nq_shape(s) for s in f] for f in ref.statement_frames]
    assert len(frames) == len(want), f"{len(frames)} messages, {len(want)} frames; {data.hex()}"
    for i, (g, w) in enumerate(zip(frames, want)):
        why = iso.ordered_mismatch(g, w)
        assert why is None, f"frame {i}: {why}\ninput {data.hex()}"


# -- random statements -> N-Quads message log -> jelly convert -> oracle -----------------

NT_IRIS = ["http://example.org/" + x for x in ("a", "b", "c/d", "e#f", "ü", "\U0001F600", "")] + \
    ["https://ex.com/ns#" + x for x in ("p", "q", "type")] + \
    ["urn:x:1", "urn:x:2", "http://a.b/c?d=e&f=g", "tag:x", "http://x/%20y"] + \
    [f"http://r{i % 5}.org/res/{i}" for i in range(40)]  # more than small tables hold
NT_BNODES = ["b0", "b1", "b2", "x_y", "ü", "n0", "B9", "a.b", "_u"]
NT_DTS = [XSD + "integer", XSD + "string", XSD + "boolean", "http://example.org/dt",
          XSD + "dateTime", "http://other.org/t#x"]


class StatementGen:
    """Random RDF statements (canonical terms) that N-Quads can carry."""

    def __init__(self, rng, pt, generalized, star):
        self.r, self.pt, self.gen, self.star = rng, pt, generalized, star
        self.recent = []

    def term(self, pos, depth=0):
        r = self.r
        if self.recent and r.random() < 0.25:
            cand = [s[{"s": 0, "p": 1, "o": 2, "g": 3}[pos]] for s in self.recent
                    if len(s) > {"s": 0, "p": 1, "o": 2, "g": 3}[pos]]
            if cand:
                t = r.choice(cand)
                if t != neutral.DEFAULT_GRAPH or pos == "g":
                    return t
        kinds = {"s": ["I", "B"] + (["L"] if self.gen else []),
                 "p": ["I", "I"] + (["B", "L"] if self.gen else []),
                 "o": ["I", "B", "L", "L"],
                 "g": ["I", "B", "D", "D"] + (["L"] if self.gen else [])}[pos]
        if self.star and depth < 3 and pos in ("s", "o") or (self.star and self.gen and
                                                            pos == "p" and depth < 2):
            kinds = kinds + ["T"]
        k = r.choice(kinds)
        if k == "I":
            return ("I", r.choice(NT_IRIS))
        if k == "B":
            return ("B", r.choice(NT_BNODES))
        if k == "D":
            return neutral.DEFAULT_GRAPH
        if k == "L":
            c = r.random()
            lex = r.choice(LEX)
            if c < 0.3:
                return ("L", lex, r.choice(LANGS), None)
            if c < 0.6:
                dt = r.choice(NT_DTS)
                return ("L", lex, None, None if dt == XSD + "string" else dt)
            return ("L", lex, None, None)
        return ("T", self.term("s", depth + 1), self.term("p", depth + 1),
                self.term("o", depth + 1))

    def statement(self):
        if self.recent and self.r.random() < 0.1:
            return self.r.choice(self.recent)  # a duplicate statement
        st = tuple(self.term(p) for p in ("spo" if self.pt == 1 else "spog"))
        self.recent = (self.recent + [st])[-6:]
        return st


def _options_file(path, **kw):
    path.write_bytes(frames_to_bytes([_frame(PB.RdfStreamRow(
        options=PB.RdfStreamOptions(**kw)))]))


@settings(max_examples=150)
@given(seed=st.integers(0, 2**64 - 1))
def test_cli_nquads_to_jelly_random(seed, jelly, tmp_path_factory):
    """Random statements, written as an N-Quads message log, converted by jelly with the
    options of a stream_options file (small tables force evictions), read back by the
    oracle: same options, same frames."""
    tmp = tmp_path_factory.mktemp("n2j")
    r = random.Random(seed)
    pt = r.choice([1, 2, 3])
    gen_flag, star_flag = r.random() < 0.4, r.random() < 0.5
    g = StatementGen(r, pt, gen_flag, star_flag)
    frames = [[g.statement() for _ in range(r.choice([0, 1, 3, 8, 20, 60]))]
              for _ in range(r.choice([1, 1, 2, 4]))]
    uses_dt = any(t[0] == "L" and t[3] is not None
                  for f in frames for s in f for t in _all_terms(s))
    opts = dict(physical_type=pt, generalized_statements=gen_flag, rdf_star=star_flag,
                max_name_table_size=r.choice([8, 9, 16, 64]),
                max_prefix_table_size=r.choice([0, 1, 2, 8]),
                max_datatype_table_size=r.choice([1, 2, 8]) if uses_dt else r.choice([0, 2]),
                logical_type=r.choice({1: [1, 3], 2: [2, 4], 3: [2, 4]}[pt]), version=1)
    _options_file(tmp / "stream_options.jelly", **opts)
    log = tmp / ("log.nt" if pt == 1 else "log.nq")
    with open(log, "w", encoding="utf-8") as fh:
        for f in frames:
            fh.write("# @message\n")
            for s in f:
                fh.write(ntr.stmt_to_nt(s) + "\n")
    out = tmp / "out.jelly"
    code, err = _cli(["convert", log, out, "--options-from", tmp / "stream_options.jelly"])
    # One statement row needs all its lookup entries at once: a statement with more
    # distinct IRIs / datatypes than the tables hold (nested quoted triples) may be
    # refused, cleanly.
    too_big = any(
        len({t[1] for t in _all_terms(s) if t[0] == "I"}) > opts["max_name_table_size"] or
        len({t[3] for t in _all_terms(s) if t[0] == "L" and t[3]}) >
        opts["max_datatype_table_size"] for f in frames for s in f)
    if code != 0 and too_big:
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        return
    assert code == 0, f"exit {code}: {err}\noptions {opts}\nlog:\n{log.read_text()}"
    data = out.read_bytes()
    try:
        options, got = rd.decode(data)
    except rd.RefDecodeError as e:
        raise Disagreement(f"jelly wrote a stream the oracle rejects: {e}\noptions {opts}\n"
                           f"log:\n{log.read_text()}\noutput {data.hex()}") from e
    want_key = (pt, opts["logical_type"], gen_flag, star_flag, opts["max_name_table_size"],
                opts["max_prefix_table_size"], opts["max_datatype_table_size"])
    assert options.key() == want_key
    assert len(got) == len(frames), f"{len(got)} frames written for {len(frames)} messages"
    for i, (gf, wf) in enumerate(zip(got, frames)):
        why = iso.ordered_mismatch([neutral.nq_shape(s) for s in gf], [neutral.nq_shape(s) for s in wf])
        assert why is None, f"frame {i}: {why}\noptions {opts}\nlog:\n{log.read_text()}"


def _all_terms(stmt):
    for t in stmt:
        yield t
        if t[0] == "T":
            yield from _all_terms(t[1:])


def test_cli_rejects_bad_input_cleanly(jelly, tmp_path):
    """Invalid Jelly input (hand cases and mutations): non-zero exit, one line, no traceback."""
    rng = random.Random(1)
    inputs = [_bytes_of(c) for c in HAND_CASES if ref_verdict(_bytes_of(c))[1] is not None]
    corpus = [p.read_bytes() for _, p in helpers.valid_jelly_files()]
    inputs += [mutate(rng, rng.choice(corpus)) for _ in range(200)]
    rejected = 0
    for data in inputs:
        # jelly convert reads concatenated streams (see docs/cli.md)
        ref, ref_err = ref_verdict(data, new_streams=True)
        code, err, out = _jelly_to_nq_frames(tmp_path, data)
        if code != 0:
            rejected += 1
            assert "Traceback" not in err, err
            assert len(err.strip().splitlines()) == 1, f"stderr not one line: {err!r}"
        if ref_err is not None and not ref_err.optional:
            assert code != 0, f"accepted invalid input {data.hex()}"
    assert rejected > 50


ODD_TERMS = {
    "bnode-injection": dict(s_bnode="a <http://x/p> <http://x/o> .\n_:b"),
    "bnode-space": dict(s_bnode="a b"),
    "bnode-empty": dict(s_bnode=""),
    "bnode-trailing-dot": dict(s_bnode="x."),
    "bnode-leading-dash": dict(s_bnode="-x"),
    "langtag-injection": dict(o_literal=PB.RdfLiteral(
        lex="v", langtag="en .\n<http://x/s> <http://x/p> <http://x/o>")),
    "langtag-space": dict(o_literal=PB.RdfLiteral(lex="v", langtag="en US")),
    "langtag-empty": dict(o_literal=PB.RdfLiteral(lex="v", langtag="")),
}


@pytest.mark.parametrize("case", sorted(ODD_TERMS))
def test_cli_never_writes_invalid_nquads(case, jelly, tmp_path):
    """Blank node labels and language tags are arbitrary strings in Jelly.  Converting to
    N-Quads must give valid N-Quads with the same statements (labels may be rewritten), or
    fail cleanly -- never malformed lines or extra statements."""
    terms = dict(s_iri=_iri(n=1), p_iri=_iri(n=1), o_iri=_iri(n=1))
    terms.pop("s_iri" if any(k.startswith("s_") for k in ODD_TERMS[case]) else "o_iri")
    terms.update(ODD_TERMS[case])
    data = frames_to_bytes([_frame(_opts(), _name("http://x/n"), _triple(**terms))])
    ref, ref_err = ref_verdict(data)
    assert ref_err is None
    code, err, out = _jelly_to_nq_frames(tmp_path, data)
    if code != 0:
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        return
    text = out.read_bytes()
    try:
        frames = ntr.split_messages(ntr.parse_nquads(text, messages=True))
    except ntr.NTSyntaxError as e:
        pytest.fail(f"invalid N-Quads written for valid input {data.hex()}: {e}\n{text!r}")
    assert [len(f) for f in frames] == [1], f"statements changed: {text!r}"
    if case.startswith("bnode"):
        got = frames[0][0]
        want = neutral.nq_shape(ref.frames[0].statements[0])
        assert got[0][0] == "B" and got[1:] == want[1:], (got, want)


@pytest.mark.parametrize("labels", [("a b", "x612062"), ("a b", "a_b"), ("-x", "x2d78"),
                                    ("", "x"), ("x.", "x"), ("a\nb", "a_b")])
def test_cli_keeps_distinct_blank_nodes_distinct(labels, jelly, tmp_path):
    """However labels are rewritten for N-Quads, two different blank nodes must stay two
    (a rewritten label must not collide with a label that is kept as it is)."""
    a, b = labels
    data = frames_to_bytes([_frame(_opts(), _name("http://x/p"), _triple(
        s_bnode=a, p_iri=_iri(n=1), o_bnode=b), _triple(s_bnode=b, o_bnode=a))])
    ref, ref_err = ref_verdict(data)
    assert ref_err is None
    code, err, out = _jelly_to_nq_frames(tmp_path, data)
    if code != 0:
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        return
    text = out.read_bytes()
    try:
        frames = ntr.split_messages(ntr.parse_nquads(text, messages=True))
    except ntr.NTSyntaxError as e:
        pytest.fail(f"invalid N-Quads for {data.hex()}: {e}\n{text!r}")
    why = iso.ordered_mismatch(frames[0], ref.frames[0].statements) if len(frames) == 1 \
        else f"{len(frames)} frames"
    assert why is None, f"{why}\ninput {data.hex()}\noutput {text!r}"
