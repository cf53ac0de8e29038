"""Jelly-Patch on the wire, against the protobuf classes compiled from ``proto/patch.proto``
(upb) and the reference decoder ``oracle.jelly_patch``.

* Our frames, parsed by upb, are well-formed messages that upb serializes back to the same
  bytes (field order, no default values, exactly one row member set).
* Streams that upb writes (random, mostly valid, mirroring the decoder state), and byte-level
  variants of them (fields reordered, unknown fields, split messages, oneof decoys, padded
  varints, ...), read the same in jelly as in the oracle.
* Streams with deliberate mistakes, random mutations and every truncation: jelly agrees with
  the oracle's verdict and raises nothing but ``JellyError``.

The verdict rules are those of ``test_wire_differential.py``: a hard error of the oracle must
be a ``JellyError``; an optional one may be anything but a crash; a reading with warnings may
be rejected or must match; a clean reading must match.
"""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings, strategies as st

import jelly
from jelly import patch
from oracle import jelly_patch as rp, wire
from patch_neutral import op_from_jelly
from test_wire_differential import (StreamGen, Variant, delimit, mutate, pb_to_model,
                                    plain_emitter)

PP = rp.load_pb2()
ALL_LIBERTIES = dict(reorder=True, unknown=True, split=True, oneof_decoy=True,
                     scalar_decoy=True, pad=True, wide=True, bools=True)


class PatchStreamGen(StreamGen):
    """A random Jelly-Patch stream as a list of ``RdfPatchFrame`` objects (upb's classes).

    The Jelly-RDF generator's lookup entries, IRIs, literals and terms (it mirrors the decoding
    state, so it uses 0-ids and repeated terms correctly most of the time), with the patch rows,
    transactions and punctuation; with ``chaos`` > 0 it makes deliberate mistakes with that
    probability per decision."""

    pb = PP
    row_type = "RdfPatchRow"

    def __init__(self, rng: random.Random, chaos: float = 0.0):
        super().__init__(rng, chaos)
        self.statement_type = rng.choice([1, 2])
        self.stream_type = rng.choice([1, 2, 3])
        self.in_tx = False
        self.options_row = None

    def options(self):
        o = PP.RdfPatchOptions(
            statement_type=self.statement_type, stream_type=self.stream_type,
            generalized_statements=self.generalized, rdf_star=self.star,
            max_name_table_size=self.name_size, max_prefix_table_size=self.prefix_size,
            max_datatype_table_size=self.dt_size, version=1)
        if self.oops():
            field, values = self.r.choice([
                ("version", [0, 2, 10000]), ("statement_type", [0, 1, 2, 3]),
                ("stream_type", [0, 1, 2, 3, 4]), ("max_name_table_size", [0, 7, 4097]),
                ("max_prefix_table_size", [1025]), ("max_datatype_table_size", [257]),
                ("rdf_star", [True, False])])
            setattr(o, field, self.r.choice(values))
        return PP.RdfPatchRow(options=o)

    def patch_statement(self):
        m = self.statement(PP.RdfQuad,
                           "spog" if self.statement_type == 2 or self.oops() else "spo")
        return PP.RdfPatchRow(**{self.r.choice(["statement_add", "statement_delete"]): m})

    def namespace(self):
        r = self.r
        add = r.random() < 0.6
        ns = PP.RdfPatchNamespace(name=r.choice(["", "ex", "é", "a1"]))
        if (add and not self.oops()) or (not add and r.random() < 0.5):
            ns.value.CopyFrom(self.iri())
        quads = self.statement_type == 2
        if (quads and ("g" not in self.prev or r.random() < 0.6)) or self.oops():
            self.set_term(ns, "g", 0)
            self.prev.add("g")
        return PP.RdfPatchRow(**{"namespace_add" if add else "namespace_delete": ns})

    def header(self):
        h = PP.RdfPatchHeader(key=self.r.choice(["id", "", "prev", "ключ"]))
        if not self.oops():
            self.set_term(h, "h", 0)
        return PP.RdfPatchRow(header=h)

    def transaction(self):
        start = not self.in_tx
        if self.oops():
            start = not start
        if start:
            self.in_tx = True
            return PP.RdfPatchRow(transaction_start=PP.RdfPatchTransactionStart())
        self.in_tx = False
        if self.r.random() < 0.5:
            return PP.RdfPatchRow(transaction_commit=PP.RdfPatchTransactionCommit())
        return PP.RdfPatchRow(transaction_abort=PP.RdfPatchTransactionAbort())

    def rows(self, first, last):
        r = self.r
        rows = []
        if first:
            rows.append(self.options())
            self.options_row = rows[0]
            rows.extend(self.entry("name") for _ in range(r.randint(1, 4)))
            if self.prefix_size:
                rows.extend(self.entry("prefix") for _ in range(r.randint(0, 3)))
            if self.dt_size:
                rows.extend(self.entry("datatype") for _ in range(r.randint(0, 2)))
        for _ in range(r.randint(0, 10)):
            c = r.random()
            if c < 0.12:
                rows.append(self.entry("name"))
            elif c < 0.16 and (self.prefix_size or self.oops()):
                rows.append(self.entry("prefix"))
            elif c < 0.20 and (self.dt_size or self.oops()):
                rows.append(self.entry("datatype"))
            elif c < 0.28:
                rows.append(self.namespace())
            elif c < 0.33:
                rows.append(self.header())
            elif c < 0.42:
                rows.append(self.transaction())
            elif c < 0.47 and (self.stream_type == 3 or self.oops()):
                if self.in_tx and not self.oops():
                    rows.append(self.transaction())
                rows.append(PP.RdfPatchRow(punctuation=PP.RdfPatchPunctuation()))
            elif c < 0.49:
                rows.append(PP.RdfPatchRow(options=self.options_row.options))
            else:
                rows.append(self.patch_statement())
        if (self.stream_type == 1 or last) and self.in_tx and not self.oops():
            rows.append(self.transaction())
        if last and self.stream_type == 3 and not self.oops():
            rows.append(PP.RdfPatchRow(punctuation=PP.RdfPatchPunctuation()))
        if self.oops():
            r.shuffle(rows)
        return rows

    def frames(self):
        n = self.r.choice([1, 1, 2, 3, 5])
        frames = []
        for i in range(n):
            f = PP.RdfPatchFrame()
            if i == 0 and self.r.random() < 0.1:
                frames.append(f)                # empty frames before the options are fine
                continue
            f.rows.extend(self.rows(not any(fr.rows for fr in frames), i == n - 1))
            frames.append(f)
        return frames


def to_bytes(frames, em=None, single=False):
    em = em or plain_emitter()
    payloads = [em.msg(pb_to_model(f)) for f in frames]
    if single:
        assert len(payloads) == 1
        return payloads[0]
    return delimit(payloads, em)


class Disagreement(AssertionError):
    pass


def check_agreement(data: bytes, what: str = "") -> str:
    """Compare jelly and the oracle on data; returns an outcome tag, raises Disagreement."""
    where = f"{what}\ninput ({len(data)} bytes): {data.hex()}"
    try:
        ref, ref_err = rp.decode_full(data, strict=False), None
    except rp.RefDecodeError as e:
        ref, ref_err = None, e
    try:
        got, jerr = [op_from_jelly(op) for op in patch.parse(data)], None
    except jelly.JellyError as e:
        got, jerr = None, e
    except Exception as e:  # noqa: BLE001
        raise Disagreement(f"jelly raised {type(e).__name__} (not JellyError): {e!r}"
                           f"{where}") from e
    if ref_err is not None:
        if ref_err.optional:
            return "optional-reject"
        if jerr is None:
            raise Disagreement(f"jelly accepted input the oracle rejects ({ref_err}); "
                               f"jelly gave {got}{where}")
        return "both-reject"
    if jerr is not None:
        if ref.warnings:
            return "jelly-rejects-optional"
        raise Disagreement(f"jelly rejected valid input: {jerr}{where}")
    if got != ref.operations:
        raise Disagreement(f"operations differ:\n jelly  {got}\n oracle {ref.operations}"
                           f"{where}")
    if ref.options is not None:
        o = patch.read_options(data)
        want = (ref.options.statement_type, ref.options.stream_type,
                ref.options.generalized_statements, ref.options.rdf_star,
                ref.options.max_name_table_size, ref.options.max_prefix_table_size,
                ref.options.max_datatype_table_size, ref.options.version)
        have = (jelly.options.PATCH_STATEMENT_TYPES[o.statement_type],
                jelly.options.PATCH_STREAM_TYPES[o.stream_type], o.generalized_statements,
                o.rdf_star, o.max_name_table_size, o.max_prefix_table_size,
                o.max_datatype_table_size, o.version)
        if have != want:
            raise Disagreement(f"options {have} != {want}{where}")
    return "both-accept"


# ------------------------------------------------------------------------- our frames in upb

def _valid_streams(n, first_seed=0):
    """(seed, bytes, operations) of the first ``n`` generated streams that hold options."""
    seed = first_seed
    while n:
        data = to_bytes(PatchStreamGen(random.Random(seed)).frames())
        try:
            ops = list(patch.parse(data))
            patch.read_options(data)
        except jelly.JellyError:
            ops = None
        if ops is not None:
            yield seed, data, ops
            n -= 1
        seed += 1


@pytest.mark.parametrize("seed, data, ops", list(_valid_streams(12)))
def test_our_frames_are_what_upb_writes(seed, data, ops):
    """What jelly writes parses in upb to messages that upb writes back byte for byte, each
    row with exactly one member set and the options first."""
    st = jelly.options.PATCH_STATEMENT_TYPES
    for stream_type in ("frame", "flat", "punctuated"):
        kw = dict(stream_type=stream_type, rdf_star=True, generalized=True,
                  statement_type=patch.read_options(data).statement_type, rows_per_frame=9)
        if stream_type == "flat":
            ops_in = [op for op in ops if op is not patch.END_OF_PATCH]
        else:
            ops_in = ops
        ours = patch.serialize(ops_in, **kw)
        payloads = wire.split_frames(ours)
        for i, payload in enumerate(payloads):
            msg = PP.RdfPatchFrame.FromString(payload)
            assert msg.SerializeToString(deterministic=True) == payload
            kinds = [r.WhichOneof("row") for r in msg.rows]
            assert None not in kinds
            assert (kinds[:1] == ["options"]) is (i == 0)
            assert msg.rows[0].options.statement_type == st[kw["statement_type"]] if i == 0 \
                else "options" not in kinds
        assert [op_from_jelly(op) for op in patch.parse(ours)] == rp.decode(ours)


# ------------------------------------------------------------------------- upb's frames in ours

@settings(max_examples=300)
@given(seed=st.integers(0, 2**64 - 1))
def test_streams_written_by_upb(seed):
    gen = PatchStreamGen(random.Random(seed))
    frames = gen.frames()
    single = len(frames) == 1 and random.Random(seed).random() < 0.3
    data = to_bytes(frames, single=single) if single else \
        b"".join(wire.enc_varint(len(p)) + p
                 for p in (f.SerializeToString() for f in frames))
    check_agreement(data, f"seed={seed}")


@settings(max_examples=200)
@given(seed=st.integers(0, 2**64 - 1))
def test_wire_variants_of_upb_streams(seed):
    rng = random.Random(seed)
    frames = PatchStreamGen(rng).frames()
    flags = {k: rng.random() < 0.5 for k in ALL_LIBERTIES}
    em = Variant(rng, p=rng.choice([0.2, 0.5, 1.0]), **flags)
    check_agreement(to_bytes(frames, em), f"seed={seed} {em!r}")


@pytest.mark.parametrize("liberty", sorted(ALL_LIBERTIES) + ["longpad", "groups"])
def test_each_wire_liberty_reads_the_same(liberty):
    rng = random.Random(liberty)
    outcomes = []
    for seed in range(25):
        frames = PatchStreamGen(random.Random(seed)).frames()
        plain = rp.decode_full(to_bytes(frames), strict=False)
        flags = {"unknown": True, "groups": True} if liberty == "groups" else {liberty: True}
        variant = to_bytes(frames, Variant(rng, **flags))
        if liberty not in ("longpad", "groups"):      # (the oracle warns about those)
            assert rp.decode_full(variant, strict=False).operations == plain.operations
        outcomes.append(check_agreement(variant, f"seed={seed} {liberty}"))
    assert outcomes.count("both-accept") >= 15, outcomes


@settings(max_examples=300)
@given(seed=st.integers(0, 2**64 - 1), chaos=st.sampled_from([0.02, 0.05, 0.15]))
def test_streams_with_mistakes(seed, chaos):
    frames = PatchStreamGen(random.Random(seed), chaos=chaos).frames()
    check_agreement(to_bytes(frames), f"seed={seed} chaos={chaos}")


def test_generators_cover_both_verdicts():
    """The generator really produces valid and invalid streams (so the tests above test)."""
    seen = {}
    for seed in range(200):
        for chaos in (0.0, 0.1):
            frames = PatchStreamGen(random.Random(seed), chaos=chaos).frames()
            outcome = check_agreement(to_bytes(frames), f"seed={seed}")
            seen[outcome] = seen.get(outcome, 0) + 1
    assert seen.get("both-accept", 0) > 120, seen
    assert seen.get("both-reject", 0) > 30, seen


# ------------------------------------------------------------------------- broken input

def _corpus():
    out = []
    for seed in range(40):
        out.append(to_bytes(PatchStreamGen(random.Random(50_000 + seed)).frames()))
    from patch_neutral import END  # noqa: F401  (the same operations as test_patch)
    from test_patch import QUAD_OPS, TRIPLE_OPS
    for ops, st_type in ((TRIPLE_OPS, "punctuated"), (QUAD_OPS, "frame")):
        out.append(patch.serialize(ops, stream_type=st_type, rdf_star=True, preset="small"))
    return out


def test_mutations_agree():
    rng = random.Random(20250101)
    corpus = _corpus()
    outcomes, failures = {}, []
    deadline = time.monotonic() + 20
    n = 0
    while n < 3000 and time.monotonic() < deadline:
        data = mutate(rng, rng.choice(corpus))
        n += 1
        try:
            o = check_agreement(data, f"mutation #{n}")
        except Disagreement as e:
            failures.append(str(e))
            continue
        outcomes[o] = outcomes.get(o, 0) + 1
    assert n >= 800, f"only {n} mutations ran in time"
    assert not failures, f"{len(failures)} disagreements out of {n}; first ones:\n" + \
        "\n\n".join(failures[:5])
    assert outcomes.get("both-reject", 0) > 100 and outcomes.get("both-accept", 0) > 50, outcomes


def test_every_truncation_gives_only_jelly_errors():
    """Every prefix of a few streams (ours, both statement types, single frame too): a
    JellyError or, at a frame boundary, what the oracle reads."""
    from test_patch import QUAD_OPS, TRIPLE_OPS
    streams = [patch.serialize(TRIPLE_OPS, rdf_star=True, rows_per_frame=6),
               patch.serialize(QUAD_OPS, stream_type="frame"),
               patch.serialize([op for op in QUAD_OPS if op is not patch.END_OF_PATCH],
                               stream_type="flat", delimited=False)]
    outcomes = {}
    for data in streams:
        for cut in range(len(data)):
            o = check_agreement(data[:cut], f"cut at {cut}")
            outcomes[o] = outcomes.get(o, 0) + 1
    assert outcomes.get("both-reject", 0) > 200, outcomes


def test_reader_input_ops_and_writer_agree_on_random_upb_streams():
    """Streams upb wrote, read by jelly, written by jelly with the same options and read back:
    the same operations (FRAME and PUNCTUATED streams keep their patches)."""
    for seed, data, ops in _valid_streams(40, 1000):
        again = patch.serialize(ops, options=patch.read_options(data), rows_per_frame=4)
        assert list(patch.parse(again)) == ops, seed
