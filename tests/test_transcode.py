"""The frame transcoder (``jelly._transcode``, ``jelly.transcode``, ``jelly transcode``).

Two independent checks on every output: the upb-based oracle decodes it to the same statements,
frame by frame, as the input (physical types converted: a triple becomes a quad in the default
graph), and it is byte for byte what decoding the input to jelly terms and encoding them again
with the same options writes (the differential), including refusing the same statements.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import jelly
import jelly.inspect
from jelly._streaming import delimit
from jelly._transcode import FrameRewriter, Transcoder, WireDecoder, WireIri, check_output
from jelly.io import FrameReader
from jelly.transcode import output_options, transcode

from helpers import run_jelly, valid_jelly_files
from oracle.jelly_rdf import decode_full
from oracle.terms import DEFAULT_GRAPH, norm_term
from strategies import jstatements, scenario, write_kwargs

EX = "http://example.org/"


def frames_of(data):
    return [(offset, bytes(frame)) for offset, frame in FrameReader(data)]


def oracle_frames(frames):
    """Statements per frame of a stream given as frame bytes, by the oracle."""
    result = decode_full(b"".join(delimit(f) for f in frames), strict=True)
    return [[tuple(norm_term(t) for t in s) for s in f.statements] for f in result.frames]


def as_physical(frames, physical):
    """Statements of input frames as an output of ``physical`` type holds them."""
    if physical == 1:
        return frames
    return [[s if len(s) == 4 else s + (DEFAULT_GRAPH,) for s in f] for f in frames]


def reencoded(frames, options):
    """The differential: decode to jelly terms, encode again, frame by frame.  Returns the
    frames, or the exception the encoder raised and at which frame."""
    decoder = jelly.Decoder(strict=True)
    encoder = None
    out = []
    for i, data in enumerate(frames):
        frame = decoder.decode_frame(data)
        if decoder.options is None:
            out.append(b"")
            continue
        if encoder is None:
            o = options if options is not None else decoder.options
            if o.version is None:
                o = o.replace(version=decoder.options.version)
            check_output(o, decoder.options)
            encoder = jelly.Encoder(o)
        try:
            if encoder.options.version >= 2:
                for name, iri in frame.namespaces:
                    encoder.add_namespace(name, iri)
            encoder.add_statements(frame.statements)
        except jelly.JellyEncodeError as exc:
            return exc, i
        graphs = encoder.options.physical_type == jelly.PhysicalStreamType.GRAPHS
        close = graphs and (decoder.options.physical_type != jelly.PhysicalStreamType.GRAPHS
                            or not decoder.in_graph_now)
        out.append(encoder.take_frame(frame.metadata or None, close))
    return out


def transcoded(frames, options):
    t = Transcoder(options)
    out = []
    for i, data in enumerate(frames):
        try:
            out.append(t.transcode_frame(data))
        except jelly.JellyEncodeError as exc:
            assert exc.frame == i
            return exc, i
    return out


def variants(options):
    """Output options to try for an input with ``options``: the input's, smaller tables with
    the same flags, tiny tables, and a physical type conversion."""
    flags = dict(rdf_star=options.rdf_star, generalized_statements=options.generalized_statements,
                 physical_type=options.physical_type, logical_type=options.logical_type,
                 version=2)
    dt = 1 if options.max_datatype_table_size else 0
    other = {1: "quads", 2: "graphs", 3: "quads"}[int(options.physical_type)]
    return {
        "same": None,
        "small": jelly.make_options(preset="small", **flags),
        "tiny": jelly.make_options(max_name_table_size=8, max_prefix_table_size=0,
                                   max_datatype_table_size=dt, **flags),
        "tiny-prefixes": jelly.make_options(max_name_table_size=9, max_prefix_table_size=1,
                                            max_datatype_table_size=dt + 1, **flags),
        "physical": output_options(options, physical_type=other),
    }


VARIANTS = ("same", "small", "tiny", "tiny-prefixes", "physical")


@pytest.mark.parametrize("variant", VARIANTS)
def test_conformance_streams(valid_jelly, variant):
    cid, path = valid_jelly
    frames = [f for _, f in frames_of(path.read_bytes())]
    expected = oracle_frames(frames)
    options = jelly.read_options(path) if any(expected) or frames else None
    out_options = variants(options)[variant]
    ref = reencoded(frames, out_options)
    out = transcoded(frames, out_options)
    if isinstance(ref, tuple):
        # The output cannot hold a statement (more distinct names in one statement than the
        # table holds): refused at the same frame, with the same reason.
        assert isinstance(out, tuple), f"{cid}: the transcoder wrote what the encoder refused"
        assert out[1] == ref[1] and out[0].message == ref[0].message
        assert variant.startswith("tiny")
        return
    assert out == ref, f"{cid}: differs from decoding and encoding again"
    physical = int((out_options or options).physical_type)
    assert oracle_frames(out) == as_physical(expected, physical)


def test_only_statements_larger_than_tiny_tables_are_refused():
    """The conformance test above accepts a refusal when the encoder refuses too: that only
    happens for RDF-star and generalized statements with more distinct names than 8 slots."""
    refused = {"plain": 0, "star": 0}
    total = {"plain": 0, "star": 0}
    for cid, path in valid_jelly_files():
        frames = [f for _, f in frames_of(path.read_bytes())]
        if not frames:
            continue
        options = jelly.read_options(path)
        kind = "star" if options.rdf_star or options.generalized_statements else "plain"
        total[kind] += 1
        for variant in ("tiny", "tiny-prefixes"):
            refused[kind] += isinstance(transcoded(frames, variants(options)[variant]), tuple)
    assert total["plain"] > 30 and refused["plain"] == 0
    assert total["star"] > 30 and refused["star"] < total["star"]


def _pairs():
    files = [(cid, p) for cid, p in valid_jelly_files() if p.stat().st_size > 8]
    return list(zip(files, files[1:] + files[:1]))


@pytest.mark.parametrize("pair", _pairs(), ids=lambda pr: f"{pr[0][0]}+{pr[1][0]}")
def test_concatenations_merge_into_one_stream(pair):
    (_, a), (_, b) = pair
    streams = [[f for _, f in frames_of(p.read_bytes())] for p in (a, b)]
    opts = [jelly.read_options(p) for p in (a, b)]
    quads = any(o.physical_type != jelly.PhysicalStreamType.TRIPLES for o in opts)
    out_options = jelly.make_options(
        preset="small", physical_type="quads" if quads else "triples", rdf_star=True,
        generalized_statements=True, version=2)
    t = Transcoder(out_options)
    out = []
    for frames in streams:
        t.next_input()
        out += [t.transcode_frame(f) for f in frames]
    expected = [f for frames in streams for f in oracle_frames(frames)]
    assert oracle_frames(out) == as_physical(expected, int(out_options.physical_type))
    if opts[0] != opts[1]:
        # One input holding both (options differ, so the second start is recognised).
        t = Transcoder(out_options)
        assert [t.transcode_frame(f) for f in streams[0] + streams[1]] == out


def test_merging_shares_lookups_and_keeps_frames():
    a = [(jelly.IRI(EX + f"s{i}"), jelly.IRI(EX + "p"), jelly.Literal(str(i), datatype=EX + "t"))
         for i in range(50)]
    b = [(jelly.IRI(EX + f"s{i}"), jelly.IRI(EX + "q"), jelly.BlankNode(f"b{i}"), jelly.IRI(EX))
         for i in range(50)]
    data_a = jelly.serialize(a, rows_per_frame=7, preset="small")
    data_b = jelly.serialize(b, rows_per_frame=9, physical_type="quads")
    out = transcode([data_a, data_b], out_path := _sink(), physical_type="quads")
    frames = [list(f) for f in jelly.parse_frames(out_path.getvalue(), strict=True)]
    assert out.frames == len(frames_of(data_a)) + len(frames_of(data_b)) == len(frames)
    assert [s for f in frames for s in f] == [s + (jelly.DEFAULT_GRAPH,) for s in a] + b
    # The names s0..s49 of the second stream were in the output's table already.
    rows = jelly.inspect.inspect(out_path.getvalue())["totals"]
    assert rows["name"] < 50 + 50 + 4


class _Buffer:
    def __init__(self):
        self.data = bytearray()

    def write(self, b):
        self.data += b
        return len(b)

    def flush(self):
        pass

    def getvalue(self):
        return bytes(self.data)


def _sink():
    return _Buffer()


@settings(max_examples=60)
@given(sc=scenario(max_statements=30), out=st.data())
def test_random_streams(sc, out):
    try:
        data = jelly.serialize(jstatements(sc["statements"]),
                               rows_per_frame=sc["rows_per_frame"], **write_kwargs(sc))
    except jelly.JellyEncodeError:
        assume(False)       # the input itself does not fit its tables (a statement too large)
    frames = [f for _, f in frames_of(data)]
    options = jelly.read_options(data)
    out_options = out.draw(st.builds(
        lambda names, prefixes, datatypes, physical: jelly.make_options(
            max_name_table_size=names, max_prefix_table_size=prefixes,
            max_datatype_table_size=datatypes,
            physical_type=physical,
            rdf_star=options.rdf_star, generalized_statements=options.generalized_statements,
            version=2),
        st.integers(8, 40), st.integers(0, 6),
        st.integers(1 if options.max_datatype_table_size else 0, 6),
        st.sampled_from(["quads", "graphs"] if options.physical_type != 1
                        else ["triples", "quads", "graphs"])))
    ref = reencoded(frames, out_options)
    got = transcoded(frames, out_options)
    if isinstance(ref, tuple):
        assert isinstance(got, tuple) and got[1] == ref[1]
        return
    assert got == ref
    assert oracle_frames(got) == as_physical(oracle_frames(frames),
                                             int(out_options.physical_type))


def _stream(n=60, rows_per_frame=6, **kw):
    statements = []
    for i in range(n):
        s = jelly.IRI(EX + f"thing/{i // 4}")
        o = jelly.Literal(f"v{i}", datatype=EX + ("int" if i % 3 else "dec")) if i % 2 else \
            jelly.BlankNode(f"b{i % 5}")
        statements.append((s, jelly.IRI(EX + f"p{i % 3}"), o))
    return statements, jelly.serialize(statements, rows_per_frame=rows_per_frame,
                                       preset="small", **kw)


def test_restart_gives_a_stream_that_stands_alone_from_any_frame():
    """What a subscriber joining mid-stream gets: from the restart on, a valid stream of the
    rest of the statements, although the input repeats terms and lookups across the cut."""
    statements, data = _stream()
    frames = [f for _, f in frames_of(data)]
    per_frame = [len(f) for f in jelly.parse_frames(data)]
    for cut in range(len(frames)):
        t = Transcoder()
        out = []
        for i, f in enumerate(frames):
            if i == cut:
                t.restart()
                out = []
            out.append(t.transcode_frame(f))
        tail = statements[sum(per_frame[:cut]):]
        assert [s for fr in jelly.parse_frames(b"".join(delimit(f) for f in out), strict=True)
                for s in fr] == tail, cut


@pytest.mark.parametrize("graph_open", [False, True])
def test_continuing_a_stream_after_frames_passed_through(graph_open):
    """A passthrough subscriber whose topic gets a second stream: the rewriter continues the
    first stream (no second options row) and the whole is one valid stream."""
    quads = [(jelly.IRI(EX + f"s{i}"), jelly.IRI(EX + "p"), jelly.Literal(str(i)),
              jelly.IRI(EX + f"g{i // 5}")) for i in range(20)]
    a = jelly.Writer(None, physical_type="graphs", preset="small", rows_per_frame=4)
    with a:
        a.write_all(quads)
    frames_a = [f for _, f in frames_of(a.getvalue())]
    decoder = jelly.Decoder()
    passed = []
    for f in frames_a:
        decoder.decode_frame(f)
        passed.append(f)
        if decoder.in_graph_now == graph_open:
            break
    assert decoder.in_graph_now == graph_open
    seen = [s for f in jelly.parse_frames(b"".join(map(delimit, passed))) for s in f]
    b_statements = [(jelly.IRI(EX + "x"), jelly.IRI(EX + "p"), jelly.IRI(EX + f"o{i}"))
                    for i in range(10)]
    rewriter = FrameRewriter(decoder.options, continue_stream=True, graph_open=graph_open)
    wire = WireDecoder()
    data_b = jelly.serialize(b_statements, rows_per_frame=3)
    out = list(passed)
    for f in [f for _, f in frames_of(data_b)]:
        frame = wire.decode(f)
        out.append(rewriter.write(frame, wire.options, wire.in_graph))
    whole = b"".join(map(delimit, out))
    result = [s for f in jelly.parse_frames(whole, strict=True) for s in f]
    assert result == seen + [s + (jelly.DEFAULT_GRAPH,) for s in b_statements]
    assert decode_full(whole).options.physical_type == 3      # and the oracle agrees


@pytest.mark.parametrize("output, input, message", [
    (dict(physical_type="triples"), dict(physical_type="quads"), "TRIPLES stream cannot hold"),
    (dict(physical_type="triples"), dict(physical_type="graphs"), "TRIPLES stream cannot hold"),
    (dict(), dict(rdf_star=True), "RDF-star"),
    (dict(), dict(generalized_statements=True), "generalized"),
    (dict(max_datatype_table_size=0), dict(), "datatype table"),
])
def test_refused_output_options(output, input, message):
    out_options = jelly.make_options(**output)
    in_options = jelly.make_options(**input)
    with pytest.raises(jelly.JellyOptionsError, match=message):
        check_output(out_options, in_options)
    data = jelly.serialize([], options=in_options)
    with pytest.raises(jelly.JellyOptionsError, match=message) as info:
        Transcoder(out_options).transcode_frame(frames_of(data)[0][1])
    assert info.value.frame == 0


def test_what_the_output_can_hold_is_accepted():
    for physical in ("triples", "quads", "graphs"):
        for target in ("quads", "graphs"):
            check_output(jelly.make_options(physical_type=target),
                         jelly.make_options(physical_type=physical))
    check_output(jelly.make_options(rdf_star=True, generalized_statements=True),
                 jelly.make_options())


def test_a_later_input_that_does_not_fit_is_refused_where_it_starts():
    _, plain = _stream(n=5)
    star = jelly.serialize([(jelly.Triple(jelly.IRI(EX + "a"), jelly.IRI(EX + "b"),
                                          jelly.IRI(EX + "c")), jelly.IRI(EX + "p"),
                             jelly.IRI(EX + "o"))], rdf_star=True)
    with pytest.raises(jelly.JellyOptionsError, match="RDF-star") as info:
        transcode([plain, star], _sink())
    assert info.value.frame == 0
    # With the flag on, both fit.
    out = _sink()
    transcode([plain, star], out, rdf_star=True)
    assert len(list(jelly.parse(out.getvalue(), strict=True))) == 6


def test_namespaces_in_version_2_only():
    st_ = [(jelly.IRI(EX + "s"), jelly.IRI(EX + "p"), jelly.IRI(EX + "o"))]
    data = jelly.serialize(st_, namespaces={"ex": EX})
    for version, kept in ((2, [("ex", jelly.IRI(EX))]), (1, [])):
        out = _sink()
        transcode(data, out, version=version)
        (frame,) = jelly.parse_frames(out.getvalue(), strict=True)
        assert frame.namespaces == kept and list(frame) == st_
        assert jelly.read_options(out.getvalue()).version == version


def test_metadata_and_empty_frames_are_kept():
    enc = jelly.Encoder(jelly.make_options())
    frames = [enc.take_frame(metadata={"a": b"1"})]
    enc.add((jelly.IRI(EX + "s"), jelly.IRI(EX + "p"), jelly.IRI(EX + "o")))
    frames.append(enc.take_frame(metadata={"b": b"\x00\xff"}))
    frames.append(enc.take_frame())
    t = Transcoder(jelly.make_options(preset="small"))
    out = [t.transcode_frame(f) for f in frames]
    decoded = list(jelly.parse_frames(b"".join(map(delimit, out)), strict=True))
    assert [f.metadata for f in decoded] == [{"a": b"1"}, {"b": b"\x00\xff"}, {}]
    assert [len(f) for f in decoded] == [0, 1, 0]


def test_input_errors_say_where_and_stay():
    _, data = _stream(n=10, rows_per_frame=3)
    frames = [f for _, f in frames_of(data)]
    t = Transcoder()
    t.transcode_frame(frames[0])
    bad = frames[1][:-3]
    with pytest.raises(jelly.JellyDecodeError) as info:
        t.transcode_frame(bad, 100)
    assert info.value.frame == 1 and info.value.offset >= 100 and info.value.row is not None
    with pytest.raises(jelly.JellyDecodeError):
        t.transcode_frame(frames[2])


def test_input_limits_apply():
    data = jelly.serialize([], max_name_table_size=5000)
    with pytest.raises(jelly.JellyLimitError):
        Transcoder().transcode_frame(frames_of(data)[0][1])
    Transcoder(limits=jelly.ReaderLimits(max_name_table_size=5000)).transcode_frame(
        frames_of(data)[0][1])


def test_wire_values():
    data = jelly.serialize([(jelly.IRI(EX + "s"), jelly.IRI(EX + "p"),
                             jelly.Literal("x", datatype=EX + "t"))], preset="small")
    d = WireDecoder()
    (s, p, o), = d.decode(frames_of(data)[0][1]).statements
    assert type(s) is WireIri and s.parts == (EX, "s") and s.value == EX + "s"
    assert o.lex == "x" and o.language is None and o.datatype.value == EX + "t"
    # Validation only: counted, not collected.
    frame = WireDecoder().decode(frames_of(data)[0][1], collect=False)
    assert frame.statements == [] and frame.statement_count == 1


def test_options_function_and_output_options():
    data = jelly.serialize([], physical_type="triples", logical_type="graphs")
    seen = []

    def choose(first):
        seen.append(first)
        return output_options(first, physical_type="quads", preset="small")
    t = Transcoder(choose)
    t.transcode_frame(frames_of(data)[0][1])
    assert seen and t.options.physical_type == jelly.PhysicalStreamType.QUADS
    assert t.options.logical_type == jelly.LogicalStreamType.DATASETS   # graphs -> datasets
    assert t.options.max_name_table_size == 128 and t.options.version == 1


# -- the command line ----------------------------------------------------------------------------

def test_cli_transcode_merges_and_reoptions(tmp_path):
    a = tmp_path / "a.jelly"
    b = tmp_path / "b.jelly"
    statements, data = _stream(n=30)
    a.write_bytes(data)
    quads = [(jelly.IRI(EX + "s"), jelly.IRI(EX + "p"), jelly.IRI(EX + "o"), jelly.IRI(EX + "g"))]
    b.write_bytes(jelly.serialize(quads))
    out = tmp_path / "out.jelly.gz"
    proc = run_jelly("transcode", a, b, out, "--physical-type", "quads", "--preset", "small",
                     "-v")
    assert proc.returncode == 0, proc.stderr
    assert b"31 statements" in proc.stderr
    assert list(jelly.parse(out, strict=True)) == \
        [s + (jelly.DEFAULT_GRAPH,) for s in statements] + quads
    options = jelly.read_options(out)
    assert options.max_name_table_size == 128 and options.physical_type == 2
    # options may come between the files, as the usage line's [options] says (argparse filled
    # the list of files only up to the first option: "unrecognized arguments: OUT")
    mixed = tmp_path / "mixed.jelly.gz"
    proc = run_jelly("transcode", a, "--physical-type", "quads", b, "--preset", "small", mixed)
    assert proc.returncode == 0, proc.stderr
    assert list(jelly.parse(mixed)) == list(jelly.parse(out))
    proc = run_jelly("transcode", a, b, "--bogus", mixed)
    assert proc.returncode == 1 and b"unrecognized arguments: --bogus" in proc.stderr


def test_cli_transcode_writes_no_jelly_under_the_name_of_another_format(tmp_path):
    jelly.serialize(STATEMENTS_FOR_NAMES, tmp_path / "in.jelly")
    for name, label in (("out.ttl", "Turtle"), ("out.nt", "N-Triples"),
                        ("out.jelly.txt", "Jelly-Text")):
        proc = run_jelly("transcode", tmp_path / "in.jelly", tmp_path / name)
        assert proc.returncode == 1 and f"names {label}; write it with jelly convert" in \
            proc.stderr.decode() and not (tmp_path / name).exists()
    for name in ("out.jelly", "out.jelly.gz", "out.bin"):
        proc = run_jelly("transcode", tmp_path / "in.jelly", tmp_path / name)
        assert proc.returncode == 0, proc.stderr
        assert list(jelly.parse(tmp_path / name)) == STATEMENTS_FOR_NAMES


STATEMENTS_FOR_NAMES = [(jelly.IRI("http://s"), jelly.IRI("http://p"), jelly.Literal("o"))]


def test_cli_transcode_options_from_a_file(tmp_path):
    """--options-from failed on every file ("give either options or option fields"): the flags
    not given reached the library as fields set to None."""
    statements, data = _stream(n=20)
    (tmp_path / "in.jelly").write_bytes(data)
    model = tmp_path / "model.jelly"
    model.write_bytes(jelly.serialize(statements[:1], preset="small", stream_name="model"))
    out = tmp_path / "out.jelly"
    proc = run_jelly("transcode", tmp_path / "in.jelly", out, "--options-from", model)
    assert proc.returncode == 0, proc.stderr
    got = jelly.read_options(out)
    assert (got.max_name_table_size, got.stream_name) == (128, "model")
    assert list(jelly.parse(out, strict=True)) == statements
    proc = run_jelly("transcode", tmp_path / "in.jelly", out, "--options-from", model,
                     "--preset", "big")
    assert proc.returncode == 1 and b"cannot be combined" in proc.stderr


def test_cli_transcode_stdin_stdout_and_refusal(tmp_path):
    statements, data = _stream(n=12)
    proc = run_jelly("transcode", "-", "-", "--max-prefix-table-size", "0", stdin=data)
    assert proc.returncode == 0, proc.stderr
    assert list(jelly.parse(proc.stdout)) == statements
    assert jelly.read_options(proc.stdout).max_prefix_table_size == 0
    quads = tmp_path / "q.jelly"
    quads.write_bytes(jelly.serialize([], physical_type="quads"))
    out = tmp_path / "out.jelly"
    out.write_bytes(b"old")
    proc = run_jelly("transcode", quads, out, "--physical-type", "triples")
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert err.startswith("jelly: error:") and "TRIPLES stream cannot hold" in err
    assert err.count("\n") == 1
    assert out.read_bytes() == b"old"           # not touched
    proc = run_jelly("transcode", quads)
    assert proc.returncode == 1 and b"at least one input and the output" in proc.stderr


def test_option_flags_no_input_can_make_right_are_refused_before_reading(tmp_path):
    """A table too small, or a logical type that does not fit the physical type given, is the
    caller's error: said without an input position, also for an empty input (which wrote
    an empty output and exited 0); a logical type alone waits for the input's physical type."""
    empty = tmp_path / "empty.jelly"
    empty.write_bytes(b"")
    _, data = _stream(n=3)
    full = tmp_path / "in.jelly"
    full.write_bytes(data)
    out = tmp_path / "out.jelly"
    for flags, words in ((["--max-name-table-size", "4"], "--max-name-table-size must be at least 8"),
                         (["--physical-type", "triples", "--logical-type", "datasets"],
                          "DATASETS does not fit physical type TRIPLES")):
        for source in (empty, full):
            proc = run_jelly("transcode", source, out, *flags)
            err = proc.stderr.decode()
            assert proc.returncode == 1 and words in err and "at byte" not in err, err
            assert not out.exists()
    with pytest.raises(jelly.JellyOptionsError, match="max_name_table_size must be at least 8"):
        transcode(b"", tmp_path / "api.jelly", max_name_table_size=4)
    quads = jelly.serialize([(jelly.IRI(EX + "s"), jelly.IRI(EX + "p"), jelly.IRI(EX + "o"),
                              jelly.IRI(EX + "g"))], physical_type="quads")
    transcode(quads, out, logical_type="datasets")
    assert jelly.read_options(out.read_bytes()).logical_type == jelly.LogicalStreamType.DATASETS


def test_a_frame_refused_halfway_gives_nothing(tmp_path):
    """A frame the output cannot hold, refused after some of its statements were encoded
    (a later one needs more names than the output's table holds), leaves no row in the
    output: the next frame has none of it, and after restart() the stream starts with its
    options row (rows of the refused frame came first and made it unreadable)."""
    I, T = jelly.IRI, jelly.Triple
    p = I(EX + "p")
    deep = I(EX + "z0")
    for i in range(1, 12):                          # 23 names in one statement
        deep = T(deep, I(EX + f"q{i}"), I(EX + f"z{i}"))
    enc = jelly.Encoder(jelly.make_options(rdf_star=True))
    frames = []
    for sts in ([(I(EX + "a"), p, I(EX + "b"))],
                [(I(EX + "refused"), p, I(EX + "c")), (I(EX + "s"), p, deep)],
                [(I(EX + "a"), p, I(EX + "d"))]):
        enc.add_statements(iter(sts))
        frames.append(enc.take_frame())
    small = jelly.make_options(rdf_star=True, max_name_table_size=8, max_prefix_table_size=0,
                               max_datatype_table_size=1)
    for restart in (False, True):
        tc = Transcoder(small)
        out = [tc.transcode_frame(frames[0], 0, True)]
        with pytest.raises(jelly.JellyEncodeError, match="more distinct IRI names"):
            tc.transcode_frame(frames[1], 100, True)
        if restart:
            tc.restart()
        out.append(tc.transcode_frame(frames[2], 200, True))
        want = [(I(EX + "a"), p, I(EX + "d"))]
        assert list(jelly.parse(out[1] if restart else b"".join(out))) == \
            ([] if restart else [(I(EX + "a"), p, I(EX + "b"))]) + want
        assert oracle_frames([f for _, f in frames_of(out[1] if restart else b"".join(out))]
                             )[-1] == [(("I", EX + "a"), ("I", EX + "p"), ("I", EX + "d"))]


@pytest.mark.parametrize("physical", ["triples", "graphs"])
def test_the_output_is_segmented_as_convert_writes_it(tmp_path, physical):
    """``transcode`` writes segments as ``jelly convert`` does: one at the start and one at the
    first frame boundary outside a graph after every N statements, so the output can be read
    in parts (each part verifies on its own) and concatenated; None writes none."""
    from test_split import in_parts, sequential, starts, verified
    quads = [(jelly.IRI(EX + f"s{i // 3}"), jelly.IRI(EX + f"p{i % 4}"),
              jelly.Literal(f"v{i % 17}"), jelly.IRI(EX + f"g{i // 25}")) for i in range(400)]
    statements = quads if physical == "graphs" else [q[:3] for q in quads]
    # graphs of 25 statements across frames of 6 rows: most segments start inside a graph
    data = jelly.serialize(statements, physical_type=physical, rows_per_frame=6)
    out = tmp_path / "out.jelly"
    transcode(data, out, segment_size=40, preset="small")
    written = out.read_bytes()
    expected = sequential(data)
    assert sequential(written) == expected
    assert [s for f in oracle_frames([f for _, f in frames_of(written)]) for s in f] == \
        [tuple(norm_term(t) for t in st) for st in expected]
    assert 8 <= len(starts(written)) <= 10
    assert verified(written) and in_parts(written) == expected
    assert sequential(written + written) == expected * 2        # cat: one valid stream
    transcode(data, out, segment_size=None, preset="small")
    assert len(starts(out.read_bytes())) == 1
    proc = run_jelly("transcode", tmp_path / "out.jelly", tmp_path / "cli.jelly",
                     "--segment-size", "100")
    assert proc.returncode == 0, proc.stderr
    assert len(starts((tmp_path / "cli.jelly").read_bytes())) == 4
    proc = run_jelly("transcode", tmp_path / "out.jelly", tmp_path / "cli.jelly",
                     "--segment-size", "0")
    assert proc.returncode == 0 and len(starts((tmp_path / "cli.jelly").read_bytes())) == 1


def test_frames_are_one_to_one():
    _, data = _stream(n=40, rows_per_frame=4)
    n = len(frames_of(data))
    for options in (None, jelly.make_options(preset="small", physical_type="graphs")):
        t = Transcoder(options)
        out = [t.transcode_frame(f, o) for o, f in frames_of(data)]
        assert len(out) == n == t.frames
        assert t.statements == 40
        assert sum(1 for _ in itertools.chain.from_iterable(
            jelly.parse_frames(b"".join(map(delimit, out))))) == 40


def test_an_error_in_one_of_several_inputs_names_it(tmp_path):
    """Merging files, the error of a broken one starts with its path and keeps its class and
    byte offset; with one input, the message is the reader's own."""
    good = tmp_path / "good.jelly"
    jelly.serialize([(jelly.IRI("http://s"), jelly.IRI("http://p"), jelly.Literal("o"))], good)
    bad = tmp_path / "bad.jelly"
    bad.write_bytes(good.read_bytes()[:-3])
    with pytest.raises(jelly.JellyTruncatedError) as caught:
        transcode([good, bad], tmp_path / "out.jelly")
    assert str(caught.value).startswith(f"{bad}: ") and caught.value.offset is not None
    with pytest.raises(jelly.JellyTruncatedError) as alone:
        transcode(bad, tmp_path / "out.jelly")
    assert str(caught.value) == f"{bad}: {alone.value}"
