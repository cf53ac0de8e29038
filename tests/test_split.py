"""Splittable Jelly (jelly.parallel): segmented writing, the segment scan, verified decoding
of parts, and ``jelly convert --jobs``.

Expected values come from reading whole files in order (and from the upb oracle and pyjelly
for what the writer writes); the crafted streams below are built with protobuf itself (the
oracle's compiled ``rdf.proto``), not with jelly.  Each crafted stream has a later frame that
begins with the options row, as a segment start does, but depends on the rows before it in one
way: the parallel paths must give exactly what a sequential reader gives.
"""

from __future__ import annotations

import errno
import io
import os
import platform
import random
import sys

import pytest
from hypothesis import assume, given, settings, strategies as st

import jelly
from jelly import IRI
from jelly import parallel
from jelly._decoder import Decoder
from jelly._framing import segment_starts
from jelly.convert import convert

import helpers
from helpers import from_jelly
from oracle.jelly_rdf import decode_full, load_pb2
from oracle.terms import norm_term
from strategies import expected_statements, jstatements, scenario, write_kwargs
from test_interop_pyjelly import gen_dataset, pyjelly_read

PB = load_pb2()
EX = "http://ex/"
XSD_INT = "http://www.w3.org/2001/XMLSchema#int"


# ------------------------------------------------------------------------------- helpers

def scan(data, block=8 << 20):
    return parallel.scan(lambda n, offset: bytes(data[offset:offset + n]), len(data),
                         block=block)


def sequential(data, **kw):
    """Statements (neutral form) of a whole stream read in order, or the error."""
    try:
        return [from_jelly(tuple(st)) for st in jelly.parse(data, **kw)]
    except jelly.JellyError as exc:
        return ("error", type(exc), exc.message)


def in_parts(data, *, new_streams=False, part_size=1):
    """The same through jelly.parallel: every part (one per segment start by default) decoded
    on its own, verified, falling back to reading in order."""
    found = scan(data)
    parts = parallel.plan(found, len(data), part_size)
    out = []
    try:
        for part in parts:
            for frame in parallel.part_frames(lambda a, b: memoryview(data)[a:b], part,
                                              new_streams=new_streams):
                out += [from_jelly(tuple(st)) for st in frame.statements]
    except jelly.JellyError as exc:
        return ("error", type(exc), exc.message)
    return out


def verified(data, new_streams=False):
    """Whether every part verifies on its own (no fallback to reading in order)."""
    parts = parallel.plan(scan(data), len(data), 1)
    try:
        for part in parts:
            for _ in parallel._verified(lambda a, b: memoryview(data)[a:b], part,
                                        jelly.ReaderLimits(), new_streams, {}):
                pass
    except parallel._Unverified:
        return False
    return True


def oracle(data):
    """Statements of a whole stream as the upb oracle reads it."""
    return [tuple(norm_term(t) for t in st) for f in decode_full(data).statement_frames
            for st in f]


def starts(data):
    return [(offset, frame) for offset, frame, _ in segment_starts(data)[0]]


# ------------------------------------------------------------------------ crafted streams

def _row(**kw):
    return PB.RdfStreamRow(**kw)


def opts(physical=1, names=8):
    return _row(options=PB.RdfStreamOptions(physical_type=physical, max_name_table_size=names,
                                            max_prefix_table_size=4, max_datatype_table_size=4,
                                            version=1))


def name(i, v):
    return _row(name=PB.RdfNameEntry(id=i, value=v))


def prefix(i, v):
    return _row(prefix=PB.RdfPrefixEntry(id=i, value=v))


def datatype(i, v):
    return _row(datatype=PB.RdfDatatypeEntry(id=i, value=v))


def iri(p, n):
    return PB.RdfIri(prefix_id=p, name_id=n)


def triple(s=None, p=None, o=None, lit=None):
    t = PB.RdfTriple()
    if s is not None:
        t.s_iri.CopyFrom(iri(*s))
    if p is not None:
        t.p_iri.CopyFrom(iri(*p))
    if o is not None:
        t.o_iri.CopyFrom(iri(*o))
    if lit is not None:
        t.o_literal.CopyFrom(PB.RdfLiteral(lex=lit[0], datatype=lit[1]))
    return _row(triple=t)


def graph_start(n):
    return _row(graph_start=PB.RdfGraphStart(g_iri=iri(1, n)))


def graph_end():
    return _row(graph_end=PB.RdfGraphEnd())


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    return bytes(out) + bytes([n])


def payload(rows):
    """The bytes of a frame of these rows (a row may be given as its raw bytes)."""
    out = b""
    for row in rows:
        raw = row if isinstance(row, bytes) else row.SerializeToString()
        out += b"\x0a" + varint(len(raw)) + raw
    return out


def stream(*frames):
    return b"".join(varint(len(payload(rows))) + payload(rows) for rows in frames)


# Frame 0 defines prefix 1, names 1-3 (a, b, c) and datatype 1; its last IRI has name id 1.
HEAD = [opts(), prefix(1, EX), name(1, "a"), name(0, "b"), name(0, "c"), datatype(1, XSD_INT),
        triple(s=(1, 3), p=(0, 2), o=(0, 1))]
GRAPHS_HEAD = [opts(3), prefix(1, EX), name(1, "a"), name(0, "b"), graph_start(2),
               triple(s=(1, 1), p=(0, 1), o=(0, 1))]

#: Later frames that start with the options row and depend on frame 0.  For the first three a
#: decoder that starts afresh without knowing that it is inside a stream decodes them
#: *without error* but wrongly: only the segment check catches them.
DEPENDENT = {
    # the first name entry of the frame has id 0: "previous entry + 1" is 4, not 1
    "entry id 0": [opts(), prefix(1, EX), name(0, "z"), name(2, "b"),
                   triple(s=(1, 1), p=(1, 2), o=(1, 2))],
    # the first IRI's name id is 0: the previous name + 1 is 2 (b), not 1
    "name id 0": [opts(), prefix(1, EX), name(1, "z"), name(2, "b"),
                  triple(s=(1, 0), p=(1, 2), o=(1, 2))],
    # the first IRI's prefix id is 0: the previous prefix is 1, not the empty one
    "prefix id 0": [opts(), prefix(2, "http://other/"), name(1, "a"),
                    triple(s=(0, 1), p=(2, 1), o=(2, 1))],
    "repeated subject": [opts(), prefix(1, EX), name(1, "a"), name(2, "b"),
                         triple(p=(1, 2), o=(1, 1))],
    "name used before defined": [opts(), triple(s=(1, 3), p=(1, 2), o=(1, 1))],
    "datatype used before defined": [opts(), prefix(1, EX), name(1, "a"),
                                     triple(s=(1, 1), p=(1, 1), lit=("5", 1))],
}
SILENTLY_WRONG = ("entry id 0", "name id 0", "prefix id 0")
SELF_CONTAINED = [opts(), prefix(1, EX), name(1, "x"), name(0, "y"),
                  triple(s=(1, 1), p=(0, 2), o=(0, 1))]


def crafted(case):
    return stream(HEAD, DEPENDENT[case], SELF_CONTAINED)


@pytest.mark.parametrize("case", list(DEPENDENT))
def test_a_dependent_frame_is_read_in_order(case):
    data = crafted(case)
    expected = sequential(data)
    assert expected[0] != "error" and len(expected) == 3
    assert oracle(data) == expected
    assert len(starts(data)) == 3
    # decoded on its own, the frame fails in segment mode ...
    with pytest.raises(jelly.JellyDecodeError):
        Decoder(segment=True).decode_frame(payload(DEPENDENT[case]))
    # ... so the parts give what reading in order gives
    assert not verified(data)
    assert in_parts(data) == expected
    assert in_parts(data, new_streams=True) == expected


@pytest.mark.parametrize("case", SILENTLY_WRONG)
def test_without_the_segment_check_the_result_would_be_wrong(case):
    """The crafted streams can fail the test above: a fresh decoder reads frame 1 without an
    error, but differently."""
    data = crafted(case)
    fresh = Decoder().decode_frame(payload(DEPENDENT[case])).statements
    assert [from_jelly(tuple(st)) for st in fresh] != sequential(data)[1:2]


def test_a_graph_going_on_across_a_segment_start():
    data = stream(GRAPHS_HEAD, [opts(3), prefix(1, EX), name(1, "a"),
                                triple(s=(1, 1), p=(1, 1), o=(1, 1))])
    expected = sequential(data)
    assert expected[0] != "error" and all(st[3] == ("I", EX + "b") for st in expected)
    with pytest.raises(jelly.JellyDecodeError, match="outside a graph"):
        Decoder(segment=True).decode_frame(payload(data_second := [
            opts(3), prefix(1, EX), name(1, "a"), triple(s=(1, 1), p=(1, 1), o=(1, 1))]))
    # GRAPHS streams: the segment before a part is decoded first (for the join), and the part
    # goes on from its state
    assert in_parts(data) == expected
    assert data_second


def test_a_graph_start_inside_a_graph_is_an_error_in_parts_too():
    """Decoded on its own the second segment is fine, but a reader of the whole file is still
    inside the graph of the first: the join check (the segment before is decoded first) finds
    it."""
    second = [opts(3), prefix(1, EX), name(1, "a"), graph_start(1),
              triple(s=(1, 1), p=(1, 1), o=(1, 1)), graph_end()]
    data = stream(GRAPHS_HEAD, second)
    Decoder(segment=True).decode_frame(payload(second))         # fine on its own
    expected = sequential(data)
    assert expected[0] == "error" and "graph_start inside a graph" in expected[2]
    assert in_parts(data) == expected
    closed = stream(GRAPHS_HEAD + [graph_end()], second)         # with the graph ended: fine
    assert verified(closed) and in_parts(closed) == sequential(closed)


def test_different_options_start_a_new_stream_or_fail():
    data = stream(HEAD, [opts(names=16), prefix(0, EX), name(0, "a"),
                         triple(s=(1, 1), p=(1, 1), o=(1, 1))])
    assert sequential(data)[0] == "error"
    assert in_parts(data) == sequential(data)
    both = sequential(data, new_streams=True)
    assert len(both) == 2
    assert in_parts(data, new_streams=True) == both


def test_a_self_contained_frame_verifies():
    data = stream(HEAD, SELF_CONTAINED, SELF_CONTAINED)
    assert verified(data)
    assert in_parts(data) == sequential(data)


# ------------------------------------------------------------------------ segmented writing

@pytest.mark.parametrize("physical", ["triples", "quads", "graphs"])
def test_segmented_files_read_the_same_everywhere(physical):
    """Our reader, pyjelly and the upb oracle read a segmented file to the same statements as
    the unsegmented one; every segment verifies on its own."""
    statements = gen_dataset(3, 600)
    if physical == "triples":
        statements = [st[:3] for st in statements]
    expected = expected_statements(statements, physical)
    plain = jelly.serialize(jstatements(statements), physical_type=physical, rows_per_frame=32,
                            preset="small")
    data = jelly.serialize(jstatements(statements), physical_type=physical, rows_per_frame=32,
                           preset="small", segment_size=100)
    assert len(starts(data)) >= 5 and len(starts(plain)) == 1
    assert sequential(data) == sequential(plain) == expected
    assert oracle(data) == expected
    assert pyjelly_read(data) == expected
    assert verified(data)
    assert in_parts(data) == expected
    # each segment starts with the same options row as the stream
    options = {o for _, _, o in segment_starts(data)[0]}
    assert len(options) == 1


@pytest.mark.parametrize("physical", ["triples", "quads", "graphs"])
def test_segmented_files_concatenated_are_one_stream(physical):
    """A segmented file starts with a segment too, so two of the same options concatenated
    (``cat``) are one valid stream for every reader: the second file's first entries do not
    continue the first file's tables.  Unsegmented files are not (the second file's first name
    entry, id 0, means the id after the first file's last one)."""
    first, second = gen_dataset(3, 400), gen_dataset(4, 300)
    if physical == "triples":
        first, second = [st[:3] for st in first], [st[:3] for st in second]
    expected = expected_statements(first + second, physical)

    def write(statements, **kw):
        return jelly.serialize(jstatements(statements), physical_type=physical,
                               rows_per_frame=32, preset="small", **kw)
    both = write(first, segment_size=10_000) + write(second, segment_size=10_000)
    assert sequential(both) == oracle(both) == pyjelly_read(both) == expected
    assert verified(both) and in_parts(both) == expected
    plain = write(first) + write(second)
    try:
        misread = oracle(plain)
    except Exception:                   # the oracle's RefDecodeError: an id out of range
        misread = None
    assert misread != expected


def test_segment_size_counts_statements_and_ends_frames():
    sts = [(jelly.IRI(f"{EX}s{i % 13}"), jelly.IRI(f"{EX}p"), jelly.Literal(str(i)))
           for i in range(1000)]
    data = jelly.serialize(sts, rows_per_frame=10, segment_size=95)
    frames = list(jelly.parse_frames(data))
    firsts = [f for _, f in starts(data)]
    counts = [sum(len(frames[i]) for i in range(a, b))
              for a, b in zip(firsts, firsts[1:] + [len(frames)])]
    assert all(95 <= c < 105 for c in counts[:-1]) and sum(counts) == 1000
    with pytest.raises(jelly.JellyOptionsError):
        jelly.Writer(None, segment_size=0)
    # a single-frame file has no segments
    single = jelly.serialize(sts, delimited=False, segment_size=10)
    assert [from_jelly(tuple(s)) for s in jelly.parse(single)] == \
        [from_jelly(s) for s in sts]


def test_start_segment_needs_a_frame_boundary_outside_a_graph():
    enc = jelly.Encoder(jelly.make_options(physical_type="graphs"))
    enc.add((jelly.IRI(EX + "s"), jelly.IRI(EX + "p"), jelly.IRI(EX + "o"), jelly.IRI(EX + "g")))
    with pytest.raises(jelly.JellyEncodeError, match="frame"):
        enc.start_segment()
    enc.take_frame()
    with pytest.raises(jelly.JellyEncodeError, match="graph"):
        enc.start_segment()
    enc.end_graph()
    enc.take_frame()
    enc.start_segment()


def test_the_scan_reads_blocks_and_flags_odd_first_rows():
    sts = [(jelly.IRI(f"{EX}s{i}"), jelly.IRI(f"{EX}p"), jelly.Literal("x" * (i % 50)))
           for i in range(3000)]
    data = jelly.serialize(sts, rows_per_frame=64, segment_size=300)
    whole, end, frames = segment_starts(data)
    assert end == len(data) and len(whole) >= 9
    # block by block, as the Spark planner reads a file
    got, pos, index = [], 0, 0
    while pos < len(data):
        block = data[pos:pos + 5000]
        found, stop, index = segment_starts(block, 0, index)
        got += [(pos + o, f, opt) for o, f, opt in found]
        assert stop > 0
        pos += stop
    assert got == whole and index == frames
    assert scan(data, block=5000) == scan(data) == (whole, frames)
    # a truncated file does not scan to its end
    assert scan(data[:-3]) is None
    # a first row whose winning member is options, after another member, is not a plain
    # segment start: the file is one part
    body = [triple(s=(1, 1), p=(1, 1), o=(1, 1))]
    first = [opts(), prefix(1, EX), name(1, "a")] + body
    odd = stream(first, [triple().SerializeToString() + opts().SerializeToString()] + body)
    found = scan(odd)
    assert [o is None for _, _, o in found[0]] == [False, True]
    assert len(parallel.plan(found, len(odd), 1)) == 1
    assert in_parts(odd) == sequential(odd) and len(sequential(odd)) == 2
    # options, then another member (which wins): not an options row at all
    other = stream(first, [opts().SerializeToString() + triple(s=(1, 1), p=(1, 1),
                                                               o=(1, 1)).SerializeToString()])
    assert [o is None for _, _, o in scan(other)[0]] == [False]
    two = stream([opts()], [opts(), opts()])           # two options rows in a frame: fine
    assert len(scan(two)[0]) == 2


def test_a_file_scans_the_same_mapped_or_read_in_blocks(tmp_path, monkeypatch):
    sts = [(jelly.IRI(f"{EX}s{i}"), jelly.IRI(f"{EX}p"), jelly.Literal("x" * (i % 50)))
           for i in range(2000)]
    data = jelly.serialize(sts, rows_per_frame=64, segment_size=300)
    (tmp_path / "in.jelly").write_bytes(data)
    with open(tmp_path / "in.jelly", "rb") as f:
        mapped = parallel.scan_file(f.fileno(), len(data))
        import mmap

        def refused(*args, **kwargs):
            raise OSError("no mapping here")
        monkeypatch.setattr(mmap, "mmap", refused)
        read = parallel.scan_file(f.fileno(), len(data))
    assert mapped == read == scan(data) and len(mapped[0]) > 5


# ---------------------------------------------------------------------- jelly convert --jobs

def _convert(tmp_path, src, out_name, jobs, **kw):
    out = tmp_path / f"{jobs}-{out_name}"
    try:
        result = convert(src, out, jobs=jobs, **kw)
    except jelly.JellyError as exc:
        return ("error", type(exc), str(exc))
    return out.read_bytes(), result


@pytest.mark.parametrize("case", list(DEPENDENT) + ["graphs", "options"])
def test_convert_jobs_on_dependent_streams(tmp_path, case):
    if case == "graphs":
        data = stream(GRAPHS_HEAD, [opts(3), prefix(1, EX), name(1, "a"),
                                    triple(s=(1, 1), p=(1, 1), o=(1, 1))])
    elif case == "options":
        data = stream(HEAD, [opts(names=16), prefix(0, EX), name(0, "a"),
                             triple(s=(1, 1), p=(1, 1), o=(1, 1))], SELF_CONTAINED)
    else:
        data = crafted(case)
    src = tmp_path / "in.jelly"
    src.write_bytes(data)
    one = _convert(tmp_path, src, "out.nq", 1)
    assert _convert(tmp_path, src, "out.nq", 2) == one
    assert one[0] != "error"


def test_convert_jobs_reports_errors_as_one_job_does(tmp_path):
    second = [opts(3), prefix(1, EX), name(1, "a"), graph_start(1),
              triple(s=(1, 1), p=(1, 1), o=(1, 1)), graph_end()]
    src = tmp_path / "in.jelly"
    src.write_bytes(stream(GRAPHS_HEAD, second))
    one = _convert(tmp_path, src, "out.nq", 1)
    assert one[0] == "error" and _convert(tmp_path, src, "out.nq", 2) == one
    assert not (tmp_path / "2-out.nq").exists()
    # N-Triples output of named graphs fails in the same frame
    src.write_bytes(stream(GRAPHS_HEAD + [graph_end()], SELF_CONTAINED))
    one = _convert(tmp_path, src, "out.nt", 1)
    assert one[0] == "error" and _convert(tmp_path, src, "out.nt", 2) == one
    # a syntax error in a later chunk of text names the line in the whole file
    bad = tmp_path / "bad.nt"
    bad.write_bytes(b"<http://a> <http://b> <http://c> .\r\n" * 3000 + b"<a> <b> oops .\n")
    one = _convert(tmp_path, bad, "out.jelly", 1)
    assert one[0] == "error" and "line 3001" in one[2]
    assert _convert(tmp_path, bad, "out.jelly", 2) == one


@pytest.mark.parametrize("case", ["name id 0", "graphs"])
def test_jobs_to_an_output_that_is_not_a_plain_file(tmp_path, case):
    """Workers write their text into a plain output file at its place; any other output (a
    pipe, a compressed file, a buffer) gets the text through the main process, the same."""
    if case == "graphs":            # a graph goes on across a segment start
        data = stream(GRAPHS_HEAD, [opts(3), prefix(1, EX), name(1, "a"),
                                    triple(s=(1, 1), p=(1, 1), o=(1, 1))])
    else:
        data = crafted(case) + stream(SELF_CONTAINED) * 3
    src = tmp_path / "in.jelly"
    src.write_bytes(data)
    one = _convert(tmp_path, src, "out.nq", 1)
    buf = io.BytesIO()
    done = parallel.convert_jelly_to_text(str(src), buf, jobs=2, format="nq")
    assert done == (one[1].statements, one[1].frames)
    assert buf.getvalue() == one[0]


@pytest.mark.parametrize("sizes", [dict(preset="small"), dict(max_name_table_size=8,
                                                               max_prefix_table_size=1,
                                                               max_datatype_table_size=4)])
def test_equal_iri_objects_encode_as_the_same_object_does(sizes):
    """An encoder finds the split of an IRI it has not met by the IRI's string: a program
    that builds its terms (a new object for every use) gets the bytes that shared objects
    give, through table evictions, segment starts and whole-IRI fallbacks alike."""
    rng = random.Random(5)
    iris = [f"http://ex{rng.randrange(40)}.org/{'x' * rng.randrange(3)}/n{i}" for i in range(400)]
    types = [f"http://types/t{i}" for i in range(40)]
    rows = [(rng.choice(iris), rng.choice(iris), rng.choice(iris), rng.choice(types), i)
            for i in range(5000)]

    def statements(fresh):
        shared = {v: IRI(v) for v in iris + types}
        make = IRI if fresh else shared.__getitem__
        for s, p, o, t, i in rows:
            yield (make(s), make(p), make(o) if i % 2 else jelly.Literal(str(i), datatype=make(t)))

    _fresh_and_shared_agree(statements, len(rows), segment_size=700, **sizes)


def _fresh_and_shared_agree(statements, n, **writer):
    fresh = jelly.serialize(statements(True), rows_per_frame=64, **writer)
    assert fresh == jelly.serialize(statements(False), rows_per_frame=64, **writer)
    assert list(jelly.parse(fresh)) == list(statements(True))
    assert len(oracle(fresh)) == n


def test_equal_iri_objects_after_the_encoder_gives_up_prefixes():
    """A prefix table too small for the statements makes the encoder write whole IRIs from
    then on: IRIs split before (found again by their string) are split again."""
    one = [f"http://one/n{i}" for i in range(20)]
    rows = [tuple(one[(i * k) % 20] for k in (1, 3, 7)) for i in range(200)]       # one prefix
    rows += [(f"http://a{i}/x", f"http://b{i}/y", f"http://c{i}/z") for i in range(20)]
    rows += rows[:200]                                  # the first IRIs again, new objects

    def statements(fresh):
        shared = {v: IRI(v) for row in rows for v in row}
        make = IRI if fresh else shared.__getitem__
        for row in rows:
            yield tuple(map(make, row))

    _fresh_and_shared_agree(statements, len(rows), max_prefix_table_size=1)


def _input_in_parts(tmp_path, monkeypatch, to, n):
    """An input of ``n`` statements that converts to ``to`` in many parts: N-Triples for
    Jelly output, else segmented Jelly."""
    monkeypatch.setattr(parallel, "MIN_CHUNK_BYTES", 64)
    lines = [f'<{EX}s{i % 7}> <{EX}p{i % 3}> "v{i}"@en .\n' for i in range(n)]
    src = tmp_path / "in.nt"
    src.write_text("".join(lines), encoding="utf-8")
    if to == "nt":
        convert(src, tmp_path / "in.jelly", segment_size=40, rows_per_frame=16)
        src = tmp_path / "in.jelly"
    return src


@pytest.mark.parametrize("to", ["nt", "jelly"])
@pytest.mark.parametrize("failing", ["every write", "the last write"])
def test_a_write_a_worker_cannot_make_fails_the_conversion(tmp_path, monkeypatch, to, failing):
    """A worker that cannot write its part into the output (a full disk) fails the
    conversion, also when that is the last write, which the main process hears of only
    after it placed every part; nothing is left where the output was to go."""
    src = _input_in_parts(tmp_path, monkeypatch, to, 400)
    convert(src, tmp_path / f"whole.{to}", jobs=2, segment_size=40)
    if to == "nt":
        assert len(starts(src.read_bytes())) > 4
    size = (tmp_path / f"whole.{to}").stat().st_size
    real = os.pwritev

    def full(fd, views, offset):           # the workers' writes, in the processes forked
        if failing == "every write" or offset + sum(map(len, views)) == size:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, views, offset)

    monkeypatch.setattr(os, "pwritev", full)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(OSError) as caught:
        convert(src, out / f"x.{to}", jobs=2, segment_size=40)
    assert caught.value.errno == errno.ENOSPC
    assert os.listdir(out) == []


@pytest.mark.parametrize("to", ["nt", "jelly"])
def test_a_failed_write_leaves_no_hole_in_a_plain_file(tmp_path, monkeypatch, to):
    """Workers write their parts at their places of a plain file (standard output redirected
    to one).  When a part in the middle cannot be written (a full disk) and later ones can,
    the file is cut where the failed write began: it holds the start of the whole output and
    no run of zero bytes where the failed part was to go."""
    src = _input_in_parts(tmp_path, monkeypatch, to, 2000)
    whole = tmp_path / f"whole.{to}"
    with open(whole, "wb") as f:
        convert(src, f, to_format=to, jobs=2, segment_size=40)
    middle = whole.stat().st_size // 2
    real = os.pwritev

    def full(fd, views, offset):           # the workers' writes, in the processes forked
        if offset <= middle < offset + sum(map(len, views)):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, views, offset)

    monkeypatch.setattr(os, "pwritev", full)
    out = tmp_path / "stdout"
    with open(out, "wb") as f, pytest.raises(OSError) as caught:
        convert(src, f, to_format=to, jobs=2, segment_size=40)
    assert caught.value.errno == errno.ENOSPC
    data, want = out.read_bytes(), whole.read_bytes()
    assert 0 < len(data) <= middle and data == want[:len(data)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_statement_the_writer_refuses_is_named_by_its_number(tmp_path, monkeypatch, jobs):
    """A statement the stream options cannot hold (a quoted triple without rdf_star) named no
    place in the input; the error now gives its number, counted over the whole input also
    when chunks are encoded in workers, each with a writer of its own."""
    monkeypatch.setattr(parallel, "MIN_CHUNK_BYTES", 64)
    lines = [f'<{EX}s{i}> <{EX}p> "v{i}" .\n' for i in range(1, 301)]
    lines[249] = f'<< <{EX}a> <{EX}b> <{EX}c> >> <{EX}p> "v250" .\n'
    src = tmp_path / "in.nt"
    src.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(jelly.JellyEncodeError) as caught:
        convert(src, tmp_path / "out.jelly", jobs=jobs, segment_size=40, rdf_star=False)
    assert caught.value.statement == 250
    assert str(caught.value).endswith("(at statement 250)")
    with pytest.raises(jelly.JellyEncodeError, match=r"\(at statement 3\)$"):
        jelly.serialize([(IRI(EX + "s"), IRI(EX + "p"), IRI(EX + "o"))] * 2
                        + [(jelly.Literal("x"), IRI(EX + "p"), IRI(EX + "o"))])


SCAN_PEAK = """
import os, sys
from jelly import parallel
def peak():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) << 10
fd = os.open(sys.argv[1], os.O_RDONLY)
before = peak()
found = parallel.scan_file(fd, os.fstat(fd).st_size)
print(len(found[0]), peak() - before)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc")
def test_a_scan_does_not_count_the_file_as_its_memory(tmp_path):
    """The scan of a mapped file let go of no page until its end, so the process's peak
    memory (what ``time -v`` and cgroups see) grew to the file's size."""
    import subprocess
    one = jelly.serialize([(IRI(EX + f"s{i}"), IRI(EX + "p"), jelly.Literal("v" * 60 + str(i)))
                           for i in range(4000)], segment_size=1000)
    src = tmp_path / "big.jelly"
    with open(src, "wb") as f:
        for _ in range((64 << 20) // len(one) + 1):     # a stream of self-contained parts
            f.write(one)
    proc = subprocess.run([sys.executable, "-c", SCAN_PEAK, str(src)], capture_output=True,
                          text=True, timeout=120, env=helpers.jelly_subprocess_env())
    assert proc.returncode == 0, proc.stderr
    segments, grown = map(int, proc.stdout.split())
    assert segments == 4 * ((64 << 20) // len(one) + 1)
    assert grown < 40 << 20, grown      # the file is 64 MiB; 16 MiB stay mapped


ORPHANS = """
import io, os, sys
from jelly import parallel

def run(task, output):
    output.write(b"x")
    return ()

placed = parallel._Placed(io.BytesIO(), 2, run, [str(k) for k in range(8)])
for k, _ in placed:
    if k == 3:
        break
print(" ".join(str(w.process.pid) for w in placed.workers), flush=True)
os._exit(0)             # as if killed: the workers are never let go
"""


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in "ZX"    # not a zombie
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_workers_end_when_the_main_process_is_killed(tmp_path):
    """Workers hold no copy of the main process's end of their pipe: when it dies without
    letting them go (SIGKILL), they see the pipe end and exit instead of waiting for ever."""
    import subprocess
    import sys
    import time
    from helpers import jelly_subprocess_env
    out, err = tmp_path / "out", tmp_path / "err"     # files: the workers may outlive pipes
    with open(out, "wb") as o, open(err, "wb") as e:
        proc = subprocess.run([sys.executable, "-c", ORPHANS], stdout=o, stderr=e, timeout=60,
                              env=jelly_subprocess_env())
    assert proc.returncode == 0, err.read_text()
    pids = [int(p) for p in out.read_text().split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 30
    while any(map(_running, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in pids if _running(p)]
    for p in left:
        os.kill(p, 9)
    assert not left
    assert err.read_text() == ""            # they end quietly: nobody is left to tell


HELD_OUTPUTS = """
import json, resource, sys
from jelly import parallel

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

def held(task, output):
    start = faults()
    first = [bytes([task[0] + k]) * (1 << 20) for k in range(16)]
    taken = faults()
    del first
    again = [bytes([task[0] + k]) * (1 << 20) for k in range(16)]
    retaken = faults()
    for chunk in again:
        output.write(chunk)
    return (taken - start, retaken - taken)

with open(sys.argv[1], "wb") as out:
    with parallel._Placed(out, 2, held, [(t,) for t in range(8)]) as placed:
        print(json.dumps([said for _, said in placed]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="hold_heap acts on Linux with glibc")
def test_workers_keep_the_memory_they_free_and_fault_it_in_once(tmp_path):
    """A worker keeps the memory it frees (a task's output, 16 MiB here, once placed): taken
    again, it costs no page faults (a page fault per 4 KiB of fresh memory took a tenth of a
    conversion's time; glibc gives a freed heap top back at once).  With huge pages, even
    fresh memory takes few.  In a fresh process, as `jelly convert` is: a worker forked from
    a process with a large heap reuses the free memory it inherits, and takes a copy-on-write
    fault per page.  Measured inside each task: which earlier outputs a task's memory can
    reuse depends on how soon the main process placed them, on a busy machine late."""
    import json
    import subprocess
    from helpers import jelly_subprocess_env
    proc = subprocess.run([sys.executable, "-c", HELD_OUTPUTS, str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120,
                          env=jelly_subprocess_env())
    assert proc.returncode == 0, proc.stderr
    faults = json.loads(proc.stdout)
    assert (tmp_path / "out").stat().st_size == 8 << 24
    with open(tmp_path / "out", "rb") as f:
        assert [f.read(1 << 24)[::1 << 20] for _ in range(8)] == \
            [bytes(range(t, t + 16)) for t in range(8)]
    pages = (16 << 20) // 4096
    # Without the held heap, 4,064 of 4,096 every time.
    assert max(again for _, again in faults) < pages // 64, faults
    with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
        huge = "[never]" not in f.read()
    if huge:                # but the heap's head, up to a huge page's boundary: 358 to 1,040
        assert max(first for first, _ in faults) < pages // 3, faults   # of 4,096


def _killed(task, output):
    """A worker's task that ends its process as the OOM killer would."""
    import signal
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_worker_killed_is_said_so(tmp_path):
    with open(tmp_path / "out", "wb") as out:
        with pytest.raises(jelly.JellyError,
                           match=r"^a worker process ended \(killed by SIGKILL\)$"):
            with parallel._Placed(out, 2, _killed, [("task",)] * 4) as placed:
                list(placed)



def test_a_channel_carries_messages_and_says_when_the_other_end_is_gone():
    """A worker's pipe (``parallel._Channel``) carries what the engine sends, also more than
    a pipe holds at once, and an exception (pickled, not marshalled); once the other end is
    closed, a read says so (EOFError), as a multiprocessing pipe does."""
    import threading
    read_fd, write_fd = os.pipe()
    channel = parallel._Channel(read_fd, write_fd)
    big = bytes(range(256)) * 20_000        # 5 MB, many times a pipe's buffer
    messages = [None, 7, -1, (3,), ("size", 10, 2, None), ("data", big), ("done",),
                ("error", jelly.JellyDecodeError("bad frame", offset=12, frame=3), 5)]
    sender = threading.Thread(target=lambda: [channel.send(m) for m in messages], daemon=True)
    sender.start()
    got = [channel.recv() for _ in messages]
    sender.join(10)
    assert got[:-1] == messages[:-1]
    error = got[-1][1]
    assert type(error) is jelly.JellyDecodeError and str(error) == str(messages[-1][1])
    assert (error.offset, error.frame) == (12, 3)
    assert not channel.poll()
    os.close(write_fd)
    assert channel.poll(1.0)                # the end is there to read
    with pytest.raises(EOFError):
        channel.recv()
    os.close(read_fd)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks")
def test_a_forked_worker_ends_with_its_status(capfd):
    """``parallel._Forked`` says how the process ended, as a multiprocessing process does:
    0, the code it exits with, 1 after an exception (whose traceback it prints), 0 for
    ``sys.exit()``, and minus the signal that ended it."""
    import signal
    import time

    def fails():
        raise ValueError("in the worker")

    ended = []
    for target in (lambda: None, lambda: sys.exit(3), fails, sys.exit):
        process = parallel._Forked(target, ())
        process.join(20)
        ended.append(process.exitcode)
    sleeper = parallel._Forked(lambda: time.sleep(30), ())
    assert sleeper.is_alive()
    sleeper.terminate()
    sleeper.join(20)
    assert ended + [sleeper.exitcode] == [0, 3, 1, 0, -signal.SIGTERM]
    assert "ValueError: in the worker" in capfd.readouterr().err


class _Serving:
    """A worker's loop (``parallel._serve``) in a thread of this process, with a real pipe and
    output file; the test is the main process.  Its second task writes ``second:``, waits
    until the test has placed the first output, writes ``more`` and records what the file
    holds at that moment."""

    def __init__(self, tmp_path, turn, flags=os.O_RDWR):
        import threading
        self.path = tmp_path / "out"
        self.path.touch()
        self.fd = os.open(self.path, flags)
        worker_reads, main_writes = os.pipe()
        main_reads, worker_writes = os.pipe()
        self.conn = parallel._Channel(main_reads, main_writes)
        child = parallel._Channel(worker_reads, worker_writes)
        self.placed = threading.Event()
        self.during: bytes | None = None
        self.result: list = []
        self.thread = threading.Thread(
            target=lambda: self.result.append(
                parallel._serve(child, self.fd, turn, self.run, ["first", "second"])),
            daemon=True)              # a failed test leaves it waiting for its pipe
        self.thread.start()

    def run(self, task, output):
        if task == "first":
            output.write(b"first;")
        else:
            output.write(b"second:")
            assert self.placed.wait(10)
            output.write(b"more")
            self.during = os.pread(self.fd, 100, 0)
        return ()

    def first_placed_during_the_second(self):
        self.conn.send((0,))                # tasks by their index
        assert self.conn.recv() == ("size", 6)
        self.conn.send((1,))
        self.conn.send(0)                   # the first output's place, while the second runs
        self.placed.set()

    def end(self):
        self.thread.join(10)
        os.close(self.fd)
        return self.result


def test_an_output_is_written_as_soon_as_its_place_comes(tmp_path):
    """A worker writes a placed output while it runs a later task, not after it: the first
    output is in the file before the second task ends."""
    serving = _Serving(tmp_path, parallel._Turn())
    serving.first_placed_during_the_second()
    assert serving.conn.recv() == ("size", 11)
    assert serving.during == b"first;"
    serving.conn.send(6)
    serving.conn.send(None)
    assert serving.end() == [None]
    assert serving.path.read_bytes() == b"first;second:more"


def test_a_worker_without_the_turn_writes_when_it_is_given(tmp_path, monkeypatch):
    """A worker does not write while another has the turn: it goes on with its task, writes
    once the turn is given back, and gives it back in its turn."""
    monkeypatch.setattr(parallel._Turn, "WAIT", 30.0)
    turn = parallel._Turn()
    assert turn.take(False)                 # another worker writes
    serving = _Serving(tmp_path, turn)
    serving.first_placed_during_the_second()
    assert serving.conn.recv() == ("size", 11)
    assert serving.during == b""
    serving.conn.send(6)
    assert not turn.take(False)
    turn.give()
    serving.conn.send(None)
    assert serving.end() == [None]
    assert serving.path.read_bytes() == b"first;second:more"
    assert turn.take(False)                 # given back
    turn.close()


def test_a_turn_never_given_back_stops_no_worker(tmp_path, monkeypatch):
    """A worker that ended holding the turn does not keep the others from writing: they
    write without it after ``_Turn.WAIT`` seconds."""
    monkeypatch.setattr(parallel._Turn, "WAIT", 0.2)
    turn = parallel._Turn()
    assert turn.take(False)
    serving = _Serving(tmp_path, turn)
    serving.first_placed_during_the_second()
    assert serving.conn.recv() == ("size", 11)
    serving.conn.send(6)
    serving.conn.send(None)
    assert serving.end() == [None]
    assert serving.path.read_bytes() == b"first;second:more"
    turn.close()


def test_a_write_that_fails_while_a_task_runs_ends_the_worker(tmp_path):
    """An output that cannot be written while a later task runs (a full disk) stops that
    task and is the worker's error: not the task's own error, which it would report."""
    serving = _Serving(tmp_path, parallel._Turn(), flags=os.O_RDONLY)
    serving.first_placed_during_the_second()
    result = serving.end()
    assert len(result) == 1 and isinstance(result[0], OSError)
    assert result[0].errno == errno.EBADF
    assert serving.during is None           # the task stopped at the failed write
    assert not serving.conn.poll(0.1)       # and reported nothing

@pytest.fixture
def small_chunks(monkeypatch):
    """Text cut into chunks of a few statements, so that small inputs run in parts."""
    monkeypatch.setattr(parallel, "MIN_CHUNK_BYTES", 64)


@settings(max_examples=20, deadline=None)
@given(sc=scenario(min_statements=1, max_statements=60), segment=st.integers(1, 20))
def test_convert_jobs_1_and_2_agree_on_random_data(tmp_path_factory, sc, segment):
    tmp = tmp_path_factory.mktemp("jobs")
    src = tmp / "in.jelly"
    try:
        jelly.serialize(jstatements(sc["statements"]), str(src), segment_size=segment,
                        rows_per_frame=sc["rows_per_frame"], **write_kwargs(sc))
    except jelly.JellyEncodeError:
        assume(False)       # tables too small for one statement: not a stream to split
    assert verified(src.read_bytes())
    one = _convert(tmp, src, "out.nq", 1)
    assert _convert(tmp, src, "out.nq", 2) == one
    if one[0] == "error":   # text cannot hold every term (e.g. a relative IRI)
        return
    # and back: the text to Jelly in parts gives the same statements
    text = tmp / "1-out.nq"
    back = dict(physical_type="quads", rdf_star=True, generalized_statements=True,
                segment_size=segment)
    seq = _convert(tmp, text, "back.jelly", 1, **back)
    saved, parallel.MIN_CHUNK_BYTES = parallel.MIN_CHUNK_BYTES, 64     # text of a few lines
    try:
        par = _convert(tmp, text, "back.jelly", 2, **back)
    finally:
        parallel.MIN_CHUNK_BYTES = saved
    if seq[0] == "error":
        assert par == seq
    else:
        assert sequential(par[0]) == sequential(seq[0])
        assert par[1].statements == seq[1].statements


def test_text_to_jelly_in_parts(tmp_path, small_chunks):
    lines = [f'<{EX}s{i % 7}> <{EX}p{i % 3}> "v{i}"@en <{EX}g{i % 2}> .\n' for i in range(500)]
    src = tmp_path / "in.nq"
    src.write_text("# a comment\n" + "".join(lines), encoding="utf-8")
    seq, r1 = _convert(tmp_path, src, "out.jelly", 1, segment_size=50, rows_per_frame=16)
    par, r2 = _convert(tmp_path, src, "out.jelly", 2, segment_size=50, rows_per_frame=16)
    assert r1.statements == r2.statements == 500
    assert sequential(par) == sequential(seq)
    assert len(starts(par)) > len(starts(seq)) > 1      # every chunk is a segment, and more
    assert verified(par)
    assert pyjelly_read(par) == sequential(par)
    # N-Triples whose first statement is a triple: a TRIPLES stream
    nt = tmp_path / "in.nt"
    nt.write_text("".join(line[:line.rindex("<")] + ".\n" for line in lines), encoding="utf-8")
    a = _convert(tmp_path, nt, "t.jelly", 1, segment_size=50)[0]
    b = _convert(tmp_path, nt, "t.jelly", 2, segment_size=50)[0]
    assert len(starts(b)) > len(starts(a))
    assert sequential(a) == sequential(b) and len(sequential(b)[0]) == 3
    # a message log stays in one process (its frames are messages)
    log = tmp_path / "log.nq"
    log.write_text("".join(lines[:3]) + "# @message\n" + "".join(lines[3:]), encoding="utf-8")
    assert parallel.convert_file(str(log), io.BytesIO(), "nq", "jelly", jobs=2, options=None,
                                 fields={}, rows_per_frame=1024, delimited=True,
                                 segment_size=100, syntax=None, limits=None) is None
    # ... also when the delimiter comes late, and the parts written so far are taken back
    late = tmp_path / "late.nq"
    late.write_text("".join(lines[:400]) + "# @message\n" + "".join(lines[400:]),
                    encoding="utf-8")
    one = _convert(tmp_path, late, "late.jelly", 1, segment_size=50, rows_per_frame=16)
    assert _convert(tmp_path, late, "late.jelly", 2, segment_size=50, rows_per_frame=16) == one


def test_a_late_message_delimiter_is_taken_back_where_workers_are_spawned(
        tmp_path, small_chunks, monkeypatch):
    """Where processes are spawned, not forked (macOS, Windows), the workers' output goes
    through this process even into a plain file; a late message delimiter takes it all back
    too, and the log is converted in one process into an output that holds nothing else."""
    monkeypatch.setattr(parallel, "_start_method", lambda: "spawn")
    lines = [f"<{EX}s{i % 7}> <{EX}p> \"{i}\" .\n" for i in range(300)]
    late = tmp_path / "late.nt"
    late.write_text("".join(lines[:250]) + "# @message\n" + "".join(lines[250:]),
                    encoding="utf-8")
    one = _convert(tmp_path, late, "late.jelly", 1, segment_size=20, rows_per_frame=16)
    assert one[0] != "error" and one[1].statements == 300
    assert _convert(tmp_path, late, "late.jelly", 2, segment_size=20, rows_per_frame=16) == one


def test_text_to_jelly_in_parts_reports_the_first_error(tmp_path):
    """Workers run ahead of the parts being written: an error in a later chunk that comes
    first is still reported after the earlier one."""
    good = b"<http://a> <http://b> <http://c> .\n"       # 35 bytes: chunks of 1 MiB
    bad = tmp_path / "bad.nt"
    # the first error near the end of the first chunk, the second at the start of the next
    # one, where its worker finds it at once
    bad.write_bytes(good * 29950 + b"<a> <b> first .\n" + good * 29 + b"<a> <b> second .\n"
                    + good * 100)
    chunks = parallel._chunks(os.open(bad, os.O_RDONLY), bad.stat().st_size, 20000, 2)
    first, second = (bad.read_bytes().index(word) for word in (b"first", b"second"))
    assert first < chunks[0][1] <= second < chunks[1][1]
    one = _convert(tmp_path, bad, "out.jelly", 1, segment_size=20000)
    assert one[0] == "error" and "line 29951" in one[2]
    for _ in range(3):
        assert _convert(tmp_path, bad, "out.jelly", 2, segment_size=20000) == one


def test_text_to_jelly_in_parts_to_any_output(tmp_path, small_chunks):
    """An output that is not a plain file gets the frames through the main process."""
    lines = [f"<{EX}s{i}> <{EX}p> \"{i}\" .\n" for i in range(300)]
    src = tmp_path / "in.nt"
    src.write_text("".join(lines), encoding="utf-8")
    seq = _convert(tmp_path, src, "out.jelly", 1, segment_size=20)
    opts = jelly.StreamOptions(physical_type=jelly.PhysicalStreamType.TRIPLES, version=1)
    buf = io.BytesIO()
    done = parallel.convert_text_to_jelly(str(src), buf, jobs=2, options=opts,
                                          rows_per_frame=16, segment_size=20)
    assert done is not None and done[0] == 300 and len(starts(buf.getvalue())) > 2
    assert sequential(buf.getvalue()) == sequential(seq[0])


@pytest.mark.parametrize("where", ["after the first chunk", "in the last chunk"])
def test_an_error_in_a_later_chunk_ends_a_conversion_to_a_pipe(tmp_path, where):
    """To stdout the workers hand their chunks back to the main process.  A worker that had
    failed on a later chunk stopped answering, and the main process waited for ever for the
    chunk before it (jelly convert big.nt > big.jelly hung without a word)."""
    n = 60000                               # about 3.5 MB: chunks of at least 1 MiB
    bad = n // 3 if where == "after the first chunk" else n - 10
    lines = [f'<{EX}s{i}> <{EX}p> "v{i}" .\n' if i != bad else f'<{EX}s> <{EX}p> "x .\n'
             for i in range(n)]
    src = tmp_path / "in.nt"
    src.write_text("".join(lines), encoding="utf-8")
    one = helpers.run_jelly("convert", src, "-", "--to", "jelly", "--jobs", "1", timeout=120)
    two = helpers.run_jelly("convert", src, "-", "--to", "jelly", "--jobs", "2", timeout=120)
    assert one.returncode == two.returncode == 1
    assert two.stderr == one.stderr and f"line {bad + 1}".encode() in two.stderr
    # what was written before the error is whole frames of the statements before it (frames
    # are cut at chunk starts with --jobs 2, so either may end a frame further): with the
    # error in the last chunk, the chunks before it and the frames of the last before it
    written, alone = sequential(two.stdout), sequential(one.stdout)
    short, long = sorted((written, alone), key=len)
    assert long[:len(short)] == short and len(long) <= bad
    if where == "in the last chunk":
        assert len(written) > n // 2


def test_jobs_need_a_plain_file(tmp_path):
    import gzip
    src = tmp_path / "in.jelly.gz"
    with gzip.open(src, "wb") as f:
        f.write(stream(HEAD, SELF_CONTAINED))
    assert parallel.splittable_path(str(src)) is None
    assert parallel.splittable_path("-") is None
    assert parallel.auto_jobs(None) == 1
    out = _convert(tmp_path, src, "out.nq", 2)
    assert out[0] == _convert(tmp_path, src, "out.nq", 1)[0]
    with pytest.raises(jelly.JellyError, match="jobs"):
        convert(str(src), str(tmp_path / "x.nq"), jobs=0)


@pytest.mark.parametrize("name, threshold", [("in.jelly", 8 << 20), ("in.nt", 16 << 20)])
def test_without_jobs_large_plain_files_use_every_core(tmp_path, name, threshold):
    # The sizes the user guide gives (8 MiB of Jelly, 16 MiB of text); sparse files.
    src = tmp_path / name
    fmt = "jelly" if name.endswith(".jelly") else "nt"
    with open(src, "wb") as f:
        f.truncate(threshold - 1)
    assert parallel.auto_jobs(str(src), fmt) == 1
    with open(src, "wb") as f:
        f.truncate(threshold)
    assert parallel.auto_jobs(str(src), fmt) == parallel.available_cores()
    assert parallel.auto_jobs(str(tmp_path / "missing.nt"), fmt) == 1


# ------------------------------------------------------------------------- damaged inputs

def _damaged(data: bytes, rng, alphabet: bytes | None = None) -> bytes:
    """``data`` with one to three random edits: a byte replaced, a run deleted, bytes
    inserted, or the end cut off."""
    d = bytearray(data)
    pick = (lambda: rng.choice(alphabet)) if alphabet else (lambda: rng.randrange(256))
    for _ in range(rng.randint(1, 3)):
        if not d:                   # all of it cut off
            break
        op, i = rng.random(), rng.randrange(len(d))
        if op < 0.5:
            d[i] = pick()
        elif op < 0.7:
            del d[i:i + rng.randint(1, 8)]
        elif op < 0.85:
            d[i:i] = bytes(pick() for _ in range(rng.randint(1, 4)))
        else:
            del d[i:]
    return bytes(d)


def _segmented_sample() -> bytes:
    statements = [(jelly.IRI(f"{EX}s{i % 17}"), jelly.IRI(f"{EX}p{i % 5}"),
                   jelly.Literal(f"v{i}", language="en") if i % 3 else jelly.IRI(f"{EX}o{i}"))
                  for i in range(300)]
    buf = io.BytesIO()
    jelly.serialize(statements, buf, segment_size=20, rows_per_frame=8)
    return buf.getvalue()


def test_damaged_segmented_files_read_in_parts_as_in_order():
    """Every part of a damaged file that still scans, decoded on its own (as a Spark
    partition is), gives what reading the whole file in order gives, error included."""
    rng = random.Random(14)
    good = _segmented_sample()
    scanned = 0
    for _ in range(600):
        data = _damaged(good, rng)
        if scan(data) is None:      # not split: read in order anyway
            continue
        scanned += 1
        assert in_parts(data) == sequential(data)
    assert scanned > 200


def test_a_conversion_gives_each_segment_about_a_piece_long_a_part_of_its_own():
    """Segments a little shorter than the pieces: read as Spark cuts text, the first piece
    holds two segment starts (a part twice the others' size); the conversion's plan cuts at
    the start nearest to each piece's start, one segment a part."""
    found = ([(k * 99, k * 10, b"options") for k in range(8)], 80)
    size = 8 * 99
    spark_like = parallel.plan(found, size, 100)
    assert [(p.start, p.end) for p in spark_like][:2] == [(0, 198), (198, 297)]
    nearest = parallel.plan(found, size, 100, nearest=True)
    assert [(p.start, p.end, p.frame, p.end_frame) for p in nearest] == \
        [(k * 99, (k + 1) * 99, k * 10, k * 10 + 10) for k in range(8)]
    assert [p.before for p in nearest[1:]] == [((k - 1) * 99, (k - 1) * 10, b"options")
                                                for k in range(1, 8)]


def test_damaged_segmented_files_convert_in_parts_as_in_order(tmp_path):
    """Whatever a damaged file holds, ``--jobs 2`` gives the text or the error (type, message,
    no output left) that ``--jobs 1`` gives: a part that does not verify is read in order."""
    rng = random.Random(14)
    good = _segmented_sample()
    assert len(parallel.plan(scan(good), len(good), len(good) // 20)) >= 10
    src = tmp_path / "in.jelly"
    differ = errors = 0
    for _ in range(150):
        src.write_bytes(_damaged(good, rng))
        for name in ("out.nq", "out.nt"):
            for jobs in (1, 2):
                (tmp_path / f"{jobs}-{name}").unlink(missing_ok=True)
            one = _convert(tmp_path, src, name, 1)
            two = _convert(tmp_path, src, name, 2)
            differ += one != two
            if one[0] == "error":
                errors += 1
                assert not (tmp_path / f"2-{name}").exists()
    assert differ == 0
    assert 0 < errors < 300         # both damaged files that fail and that still read


def test_damaged_text_converts_in_parts_as_in_order(tmp_path, small_chunks):
    """The same for N-Quads text to Jelly in chunks: the statements, or the same error (the
    line counted from the start of the file)."""
    rng = random.Random(14)
    lines = [f'<{EX}s{i % 17}> <{EX}p{i % 5}> '
             + (f'"v{i} \\u00e9"@en' if i % 3 else f'<{EX}o{i % 11}>')
             + (f' <{EX}g{i % 2}>' if i % 4 == 0 else '') + ' .\n' for i in range(200)]
    good = "".join(lines).encode()
    src = tmp_path / "in.nq"
    differ = errors = 0
    for _ in range(150):
        src.write_bytes(_damaged(good, rng, b'<>"@\\ .\n\r#_:^x\xc3\xff'))
        for jobs in (1, 2):
            (tmp_path / f"{jobs}-out.jelly").unlink(missing_ok=True)
        one = _convert(tmp_path, src, "out.jelly", 1)
        two = _convert(tmp_path, src, "out.jelly", 2)
        if one[0] == "error":
            errors += 1
            differ += two != one
            assert not (tmp_path / "2-out.jelly").exists()
        else:
            differ += (two[0] == "error" or sequential(two[0]) != sequential(one[0])
                       or two[1].statements != one[1].statements)
    assert differ == 0
    assert 0 < errors < 150


def test_an_error_keeps_the_text_before_it_on_standard_output(tmp_path):
    """Standard output gets the text before an error with ``--jobs 2`` as with ``--jobs 1``
    (a pipe, or a plain file it is redirected to), and a plain file no hole: outputs placed
    before the error are written before the workers end, and a failing part gives the frames
    it decoded.  (The workers used to be ended at once: NUL runs where their outputs were
    placed, and less text.)"""
    import subprocess
    from helpers import jelly_subprocess_env
    rng = random.Random(21)
    good = _segmented_sample()
    src = tmp_path / "in.jelly"
    failed = 0
    while failed < 12:
        data = _damaged(good, rng)
        src.write_bytes(data)
        argv = [sys.executable, "-m", "jelly", "convert", str(src), "-", "--to", "nq", "-q"]
        one = subprocess.run(argv + ["--jobs", "1"], capture_output=True, timeout=60,
                             env=jelly_subprocess_env())
        if one.returncode == 0:
            continue
        failed += 1
        two = subprocess.run(argv + ["--jobs", "2"], capture_output=True, timeout=60,
                             env=jelly_subprocess_env())
        assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout,
                                                             one.stderr)
        with open(tmp_path / "out.nq", "wb") as f:
            to_file = subprocess.run(argv + ["--jobs", "2"], stdout=f, stderr=subprocess.PIPE,
                                     timeout=60, env=jelly_subprocess_env())
        assert to_file.stderr == one.stderr
        assert (tmp_path / "out.nq").read_bytes() == one.stdout


def test_a_byte_order_mark_where_a_chunk_starts_is_an_error_as_in_one_process(tmp_path,
                                                                             small_chunks):
    """A byte order mark is passed over at the start of a file only: inside it (``cat a.nt
    b.nt``, ``b.nt`` with a mark) it is an error, also where a worker's chunk starts (each
    chunk's parser used to pass it over: ``--jobs 2`` wrote a file ``--jobs 1`` refuses)."""
    line = f'<{EX}s> <{EX}p> "o" .\n'.encode()
    src = tmp_path / "in.nt"
    placed = False
    for k in range(10, 200):
        data = line * k + b"\xef\xbb\xbf" + line * 200
        src.write_bytes(data)
        with open(src, "rb") as f:          # where convert cuts it (the default segment size)
            cuts = [a for a, _ in parallel._chunks(f.fileno(), len(data),
                                                   jelly.writer.DEFAULT_SEGMENT_SIZE, 2)]
        if len(line) * k in cuts:
            placed = True
            break
    assert placed
    one = _convert(tmp_path, src, "out.jelly", 1)
    assert one[0] == "error" and f"line {k + 1}" in one[2]
    assert _convert(tmp_path, src, "out.jelly", 2) == one
    src.write_bytes(b"\xef\xbb\xbf" + line * 300)        # at the start of the file: passed over
    assert _convert(tmp_path, src, "ok.jelly", 2)[1].statements == 300


def test_parts_of_concatenated_streams_know_their_stream():
    """Frames of a part of concatenated streams with other options (read with new_streams)
    carry the number of their stream as a reader of the whole file gives it (parts decoded on
    their own used to count from 0)."""
    sts = [(jelly.IRI(f"{EX}s{i}"), jelly.IRI(f"{EX}p"), jelly.Literal(str(i)))
           for i in range(120)]
    quads = [st + (jelly.IRI(f"{EX}g"),) for st in sts]
    pieces = []
    for statements, kw in ((sts, {}), (quads, {}), (sts, {}), (sts, dict(max_name_table_size=64))):
        buf = io.BytesIO()
        jelly.serialize(statements, buf, segment_size=10, rows_per_frame=5, **kw)
        pieces.append(buf.getvalue())
    data = b"".join(pieces)
    whole = [(f.index, f.stream_index, len(f)) for f in
             jelly.parse_frames(data, new_streams=True)]
    assert {s for _, s, _ in whole} == {0, 1, 2, 3}
    parts = parallel.plan(scan(data), len(data), len(data) // 12)
    assert len(parts) >= 8
    split = [(f.index, f.stream_index, len(f)) for part in parts
             for f in parallel.part_frames(lambda a, b: data[a:b], part, new_streams=True)]
    assert split == whole


def test_a_first_frame_that_looks_like_another_format_is_said_so_in_parts_too(tmp_path):
    """A file whose first frame fails and whose first bytes look like RDF Thrift gets the
    reader's "not a Jelly file (it looks like RDF Thrift)" with ``--jobs 2`` as with one
    process (the worker's decoder gave its own error)."""
    frame = bytes([0x18, 0x01, 0x0A, 0x05, 0x4A, 0x03, 0x12, 0x01, 0x61, 0x2A, 17]) + b"x" * 17
    src = tmp_path / "in.jelly"
    src.write_bytes(bytes([len(frame)]) + frame + _segmented_sample())
    one = _convert(tmp_path, src, "out.nt", 1)
    assert one[0] == "error" and "it looks like RDF Thrift" in one[2]
    assert _convert(tmp_path, src, "out.nt", 2) == one
    data = src.read_bytes()         # a part read on its own (a Spark partition) says so too
    first = parallel.plan(scan(data), len(data), len(data) // 4)[0]
    with pytest.raises(jelly.JellyError, match="it looks like RDF Thrift"):
        list(parallel.part_frames(lambda a, b: data[a:b], first))
