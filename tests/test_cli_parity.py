"""The options the official jelly-cli has, in ``jelly``'s style: ``convert --take-frames``,
``--combine``, ``--merge-graphs``, the stdin / stdout defaults, Jelly-Text both ways;
``validate --compare-to / --ordered / --frames / --options-file / --delimited``; ``inspect
--per-frame / --detail / --size / --format``.  Each option on good and bad input, checking
the output against the oracles (or the one-line error) and the exit status.
"""

from __future__ import annotations

import gzip
import json
import os
import pty
import subprocess
import sys

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import zstandard as zstd

import helpers
import jelly
import strategies
from oracle import jelly_rdf as rd, ntriples as ntr, terms as neutral
from oracle.isomorphism import ordered_isomorphic, unordered_isomorphic
from oracle.proto import load_proto
from oracle import wire
from test_cli import QUADS, fails, ok, run

DATA = helpers.REPO_ROOT / "examples" / "data"
SENSORS = DATA / "sensors.nt"
MESSAGES = DATA / "sensor-messages.nt"
#: The 60 messages of sensor-messages.nt, as the oracle reads them.


def _in_message(term, i):
    """A blank node label names a node of its own message (RDF Messages, section 2)."""
    if term[0] == "B":
        return ("B", f"msg{i}x{term[1]}")
    if term[0] == "T":
        return ("T",) + tuple(_in_message(t, i) for t in term[1:])
    return term


ORACLE_MESSAGES = [[tuple(_in_message(t, i) for t in st) for st in m] for i, m in enumerate(
    ntr.split_messages(ntr.parse_nquads(MESSAGES.read_bytes(), messages=True)))]


def nq(data: bytes) -> list:
    return [neutral.nq_shape(st) for st in ntr.parse_nquads(data)]


def jelly_statements(data: bytes) -> list:
    return [neutral.nq_shape(st) for frame in rd.decode(data)[1] for st in frame]


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "m.jelly"
    ok("convert", MESSAGES, path)
    return path


# ------------------------------------------------------------------------------ convert

@pytest.mark.parametrize("spec,frames", [("2..=3", range(2, 4)), ("..2", range(0, 2)),
                                         ("58..", range(58, 60)), ("5", range(5, 6)),
                                         ("1..3", range(1, 3)), ("7..7", range(0)),
                                         ("59..100", range(59, 60))])
def test_take_frames(log, spec, frames):
    out = ok("convert", log, "-", "--to", "nt", "--take-frames", spec)
    want = [st for i in frames for st in ORACLE_MESSAGES[i]]
    assert ordered_isomorphic(nq(out), want)


def test_take_frames_to_jelly_is_a_valid_stream(log, tmp_path):
    # Frames after the first use lookup entries of earlier ones: the output is re-encoded.
    ok("convert", log, tmp_path / "part.jelly", "--take-frames", "10..12")
    assert ordered_isomorphic(jelly_statements((tmp_path / "part.jelly").read_bytes()),
                              ORACLE_MESSAGES[10] + ORACLE_MESSAGES[11])
    ok("validate", tmp_path / "part.jelly")


def test_take_frames_of_a_message_log_and_namespaces(tmp_path):
    log = b"@prefix ex: <http://example.org/> .\n# @message\nex:a ex:p 1 .\n# @message\nex:b ex:p 2 .\n"
    (tmp_path / "log.ttl").write_bytes(log)
    text = ok("convert", tmp_path / "log.ttl", "-", "--to", "ttl", "--take-frames", "1")
    assert b"@prefix ex: <http://example.org/>" in text and b"ex:b ex:p 2" in text
    assert b"ex:a" not in text
    nt = ok("convert", MESSAGES, "-", "--to", "nt", "--take-frames", "3")
    assert ordered_isomorphic(nq(nt), ORACLE_MESSAGES[3])


@pytest.mark.parametrize("spec", ["x", "3..=", "-1", "1..2..3", ""])
def test_take_frames_bad_range(log, spec):
    fails("convert", log, "-", "--take-frames", spec, match="--take-frames")


def test_take_frames_needs_frames(tmp_path):
    (tmp_path / "q.nq").write_bytes(QUADS)
    fails("convert", tmp_path / "q.nq", "-", "--take-frames", "1", match="message log")


def test_merge_graphs(tmp_path):
    (tmp_path / "q.nq").write_bytes(QUADS)
    fails("convert", tmp_path / "q.nq", tmp_path / "q.nt", match="named graph")
    assert not (tmp_path / "q.nt").exists()
    ok("convert", tmp_path / "q.nq", tmp_path / "q.nt", "--merge-graphs")
    want = [st[:3] for st in ntr.parse_nquads(QUADS)]
    assert sorted(nq((tmp_path / "q.nt").read_bytes())) == sorted(want)
    # from a GRAPHS stream, and to Jelly: a TRIPLES stream
    ok("convert", tmp_path / "q.nq", tmp_path / "g.jelly", "--physical-type", "graphs")
    ok("convert", tmp_path / "g.jelly", tmp_path / "t.jelly", "--merge-graphs")
    data = (tmp_path / "t.jelly").read_bytes()
    assert rd.read_options(data).physical_type == 1
    assert sorted(jelly_statements(data)) == sorted(want)
    ttl = ok("convert", tmp_path / "g.jelly", "-", "--to", "ttl", "--merge-graphs")
    assert b'"in g1"@en' in ttl


def test_combine(tmp_path):
    # Two messages repeating a statement: combined once, one document, a flat stream.  _:b of
    # one message is not _:b of the other (RDF Messages: labels are scoped per message).
    (tmp_path / "dup.nt").write_bytes(
        b"# @message\n<http://a> <http://p> <http://o> .\n_:b <http://q> \"1\" .\n"
        b"# @message\n<http://a> <http://p> <http://o> .\n_:b <http://q> \"1\" .\n"
        b"<http://c> <http://p> \"2\" .\n")
    ok("convert", tmp_path / "dup.nt", tmp_path / "dup.jelly")
    out = ok("convert", tmp_path / "dup.jelly", "-", "--to", "nt", "--combine")
    B = lambda label: ("B", label)                              # noqa: E731
    a_p_o = (("I", "http://a"), ("I", "http://p"), ("I", "http://o"))
    b_q_1 = lambda b: (b, ("I", "http://q"), ("L", "1", None, None))   # noqa: E731
    assert unordered_isomorphic(nq(out), [a_p_o, b_q_1(B("x")), b_q_1(B("y")), (
        ("I", "http://c"), ("I", "http://p"), ("L", "2", None, None))])
    ok("convert", tmp_path / "dup.jelly", tmp_path / "one.jelly", "--combine")
    data = (tmp_path / "one.jelly").read_bytes()
    options, frames = rd.decode(data)
    assert options.logical_type == 1 and len(frames) == 1 and len(frames[0]) == 4
    # language tags that differ only by case are one tag (RDF 1.2): kept as first seen
    (tmp_path / "tags.nq").write_bytes(
        b'<http://s> <http://p> "x"@en-GB .\n<http://s> <http://p> "x"@EN-gb <http://g> .\n'
        b'<http://s> <http://p> "x"@EN-gb .\n<< <http://s> <http://p> "y"@De >> <http://p> "z" .\n'
        b'<< <http://s> <http://p> "y"@de >> <http://p> "z" .\n<http://s> <http://p> "x"@en .\n')
    assert ok("convert", tmp_path / "tags.nq", "-", "--to", "nq", "--combine").decode() == (
        '<http://s> <http://p> "x"@en-GB .\n<http://s> <http://p> "x"@EN-gb <http://g> .\n'
        '<< <http://s> <http://p> "y"@De >> <http://p> "z" .\n<http://s> <http://p> "x"@en .\n')
    # with --take-frames: the frames taken, then combined
    out = ok("convert", tmp_path / "dup.jelly", "-", "--to", "nt", "--combine",
             "--take-frames", "1")
    assert len(nq(out)) == 3
    fails("convert", tmp_path / "dup.jelly", "-", "--combine", "--messages", match="combine")


def test_stdout_and_stdin_defaults(log, tmp_path):
    # Jelly in, nothing named: N-Quads on stdout
    out = ok("convert", log)
    assert ordered_isomorphic(nq(out), [st for m in ORACLE_MESSAGES for st in m])
    assert ok("convert", "-", stdin=log.read_bytes()) == out
    assert ok("convert", stdin=log.read_bytes()) == out
    # text in: Jelly on stdout
    data = ok("convert", "-", stdin=SENSORS.read_bytes())
    assert sorted(jelly_statements(data)) == sorted(nq(SENSORS.read_bytes()))
    # compressed stdin of either kind
    assert ok("convert", "-", stdin=gzip.compress(log.read_bytes())) == out
    assert ok("convert", "-", stdin=zstd.ZstdCompressor().compress(log.read_bytes())) == out
    data = ok("convert", "-", stdin=gzip.compress(QUADS))
    assert rd.read_options(data).physical_type == 2          # sniffed as N-Quads


def test_sniffing_names_without_extension(tmp_path):
    (tmp_path / "data").write_bytes(QUADS)
    ok("convert", tmp_path / "data", tmp_path / "d.jelly")
    assert rd.read_options((tmp_path / "d.jelly").read_bytes()).physical_type == 2
    (tmp_path / "stream").write_bytes((tmp_path / "d.jelly").read_bytes())
    assert sorted(nq(ok("convert", tmp_path / "stream"))) == sorted(nq(QUADS))
    (tmp_path / "doc").write_bytes(b"@prefix ex: <http://e/> .\nex:a ex:b ex:c .\n")
    fails("convert", tmp_path / "doc", "-", match="it looks like Turtle")
    fails("convert", "-", "-", stdin=b'{"@id": "http://a"}', match="--from")
    fails("convert", SENSORS, tmp_path / "out", match="cannot tell the format of")


def test_no_binary_to_a_terminal(log):
    """On a terminal, binary output is refused (and text is written)."""
    leader, follower = pty.openpty()
    try:
        env = helpers.jelly_subprocess_env()
        proc = subprocess.run([sys.executable, "-m", "jelly", "convert", SENSORS], stdout=follower,
                              stderr=subprocess.PIPE, env=env, timeout=120)
        assert proc.returncode == 1
        assert proc.stderr.decode().strip().startswith("jelly: error: not writing Jelly")
        proc = subprocess.run([sys.executable, "-m", "jelly", "convert", log, "--take-frames", "0"],
                              stdout=follower, stderr=subprocess.PIPE, env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert b"observation/0>" in os.read(leader, 1 << 16)
    finally:
        os.close(leader)
        os.close(follower)


# ---------------------------------------------------------------------------- Jelly-Text

def test_jelly_text_both_ways_is_exact(log, tmp_path):
    ok("convert", log, tmp_path / "m.jelly.txt")
    text = (tmp_path / "m.jelly.txt").read_text()
    assert text.count("# Frame ") == 60 and text.startswith("# Frame 0\nrows {\n  options {\n")
    ok("convert", tmp_path / "m.jelly.txt", tmp_path / "back.jelly")
    assert (tmp_path / "back.jelly").read_bytes() == log.read_bytes()
    # each frame parses with protobuf's own text format parser into the same frame
    from google.protobuf import text_format
    pb = load_proto("rdf.proto")
    chunks = text.split("# Frame ")[1:]
    for chunk, frame in zip(chunks, wire.split_frames(log.read_bytes())):
        msg = text_format.Parse(chunk.split("\n", 1)[1], pb.RdfStreamFrame())
        assert msg.SerializeToString() == frame
    # statements read through Jelly-Text are the stream's
    assert ok("convert", tmp_path / "m.jelly.txt", "-", "--to", "nq") == ok("convert", log)
    ok("validate", tmp_path / "m.jelly.txt")


#: The peak memory (KiB) of a jelly command: of the one child of this program.
PEAK = """
import resource, subprocess, sys
code = subprocess.run([sys.executable, "-m", "jelly", *sys.argv[1:]],
                      stdout=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(code)
"""


def test_inspect_and_validate_read_jelly_text_a_frame_at_a_time(tmp_path):
    """inspect and validate held the Jelly that a Jelly-Text file spells, whole, before
    reading it (57 MB at 83 MB of text): their memory now does not grow with the file."""
    text = ok("convert", SENSORS, "-", "--to", "jelly-text", "--rows-per-frame", "64")
    small, big = tmp_path / "small.jelly.txt", tmp_path / "big.jelly.txt"
    small.write_bytes(text)
    with open(big, "wb") as f:
        for _ in range((80 << 20) // len(text) + 1):      # concatenated streams: valid
            f.write(text)

    def peak_kb(*argv):
        proc = subprocess.run([sys.executable, "-c", PEAK, *map(str, argv)],
                              capture_output=True, text=True, timeout=300,
                              env=helpers.jelly_subprocess_env())
        assert proc.returncode == 0, proc.stderr
        return int(proc.stdout.splitlines()[-1])

    for command in ("inspect", "validate"):
        grown = peak_kb(command, big) - peak_kb(command, small)
        assert grown < 12 << 10, (command, grown)


def test_jelly_text_in_code(log):
    from jelly.jellytext import dumps, loads
    data = log.read_bytes()
    text = dumps(data)
    assert text == ok("convert", log, "-", "--to", "jelly-text").decode()
    assert loads(text) == data
    single = ok("convert", SENSORS, "-", "--to", "jelly", "--single-frame")
    assert loads(dumps(single), delimited=False) == single
    with pytest.raises(jelly.RdfSyntaxError, match="single frame"):
        loads(text, delimited=False)


def test_jelly_text_of_frames_keeps_input_numbers(log):
    text = ok("convert", log, "-", "--to", "jelly-text", "--take-frames", "5..7").decode()
    assert [ln for ln in text.splitlines() if ln.startswith("# Frame")] == \
        ["# Frame 5", "# Frame 6"]


def test_jelly_text_from_text_and_with_options(tmp_path):
    text = ok("convert", SENSORS, "-", "--to", "jelly-text", "--preset", "small",
              "--rows-per-frame", "100").decode()
    assert "max_name_table_size: 128" in text and text.count("# Frame ") > 4
    data = ok("convert", "-", "-", "--from", "jelly-text", "--to", "jelly", stdin=text.encode())
    assert sorted(jelly_statements(data)) == sorted(nq(SENSORS.read_bytes()))
    # writer options re-encode a Jelly-Text input
    (tmp_path / "s.jelly.txt").write_text(text)
    ok("convert", tmp_path / "s.jelly.txt", tmp_path / "big.jelly", "--preset", "big")
    assert rd.read_options((tmp_path / "big.jelly").read_bytes()).max_name_table_size == 4000


def test_jelly_text_crafts_invalid_streams(tmp_path):
    crafted = ('rows { options { physical_type: PHYSICAL_STREAM_TYPE_TRIPLES version: 1 '
               'max_name_table_size: 8 } }\n'
               'rows { triple { s_iri { name_id: 9 } p_iri { } o_bnode: "b" 99: 7 } }\n')
    (tmp_path / "bad.jelly.txt").write_text(crafted)
    ok("convert", tmp_path / "bad.jelly.txt", tmp_path / "bad.jelly")     # copied as is
    fails("validate", tmp_path / "bad.jelly", match="name id 9")
    assert "99: 7" in ok("convert", tmp_path / "bad.jelly", "-", "--to", "jelly-text").decode()
    ok("convert", tmp_path / "bad.jelly.txt", tmp_path / "one.jelly", "--single-frame")
    assert (tmp_path / "one.jelly").read_bytes()[0] == 0x0A


@pytest.mark.parametrize("text,match", [
    ("rows { bogus: 1 }", "line 1"),
    ("rows {\n  triple { s_iri { prefix_id: \"x\" } }\n}", "line 2"),
    ("rows { options { physical_type: NOPE } }", "NOPE"),
    ("rows { triple {", "end of the frame"),
    ('rows { name { value: "\\q" } }', "escape"),
])
def test_jelly_text_errors(tmp_path, text, match):
    (tmp_path / "x.jelly.txt").write_text(text)
    fails("convert", tmp_path / "x.jelly.txt", tmp_path / "x.jelly", match=match)
    assert not (tmp_path / "x.jelly").exists()


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(strategies.scenario(max_statements=30), st.booleans(), st.booleans(), st.booleans(),
       st.binary(min_size=1, max_size=12), st.text(min_size=1, max_size=8))
def test_jelly_text_parses_what_protobuf_prints(sc, pointy, utf8, one_line, value, key):
    """protobuf's own text printer, in its forms (``<>`` or ``{}``, strings as UTF-8 or
    octal escapes, one line), over random frames with metadata of any bytes: the compiled
    parser writes the bytes protobuf serializes.  (A map entry with an empty key or value is
    printed without it, and serialized with it, so both are given something.)"""
    from google.protobuf import text_format
    from jelly.jellytext import text_to_frame
    pb = load_proto("rdf.proto")
    for frame in wire.split_frames(strategies.delimited_stream(sc)):
        msg = pb.RdfStreamFrame()
        msg.ParseFromString(frame)
        msg.metadata[key] = value
        text = text_format.MessageToString(msg, as_utf8=utf8, as_one_line=one_line,
                                           pointy_brackets=pointy)
        assert text_to_frame(text) == msg.SerializeToString(), text


def _frames_by_lines(text: bytes) -> list[tuple[int, bytes]]:
    """The frames of a Jelly-Text document as the docs define them, line by line: a frame
    starts after each line that matches ``#\\s*Frame\\b``; what comes before the first such
    line is a frame only if it holds more than blank lines and comments."""
    import re
    frames, chunk, start, marked = [], [], 1, False
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        if line.endswith(b"\r") and not line.endswith(b"\r\n"):  # bytes.splitlines ends a
            raise AssertionError("the model is for \\n and \\r\\n line ends")   # line at \r
        decoded = line.decode("utf-8", "replace")
        if re.match(r"#\s*Frame\b", decoded):
            if marked or any(c.decode("utf-8", "replace").strip()[:1] not in ("", "#")
                             for c in chunk):
                frames.append((start, b"".join(chunk)))
            chunk, start, marked = [], number + 1, True
        else:
            chunk.append(line)
    if marked or any(c.decode("utf-8", "replace").strip()[:1] not in ("", "#") for c in chunk):
        frames.append((start, b"".join(chunk)))
    return frames


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from([
    "# Frame 1\n", "#Frame\n", "# Framed\n", "  # Frame\n", "#\tFrame x\n", "# Frame\u00e9\n",
    "#\u2003Frame 3\r\n", "rows {\n", "}\n", "\n", "# comment\n", "   \n", "# Frame", "#",
    "x", "\u00e9", "\u2028", "\x0c\n", "\r\n", "rows { options { version: 1 } }\n"]),
    max_size=14), st.sampled_from([1, 2, 3, 7, 64, 1 << 20]))
def test_jelly_text_frames_are_found_across_reads_of_any_size(pieces, block):
    """The splitter reads blocks and looks for marks with ``bytes.find``; a mark, a line or a
    character cut between two reads must make no difference."""
    import io
    from jelly._jellytext import split_frames
    text = "".join(pieces).encode()
    assert list(split_frames(io.BytesIO(text).read, block)) == _frames_by_lines(text)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_strict_n_triples_has_no_graph_label(tmp_path, jobs):
    """--syntax rdf12 / rdf-star follow the grammars: N-Triples has no fourth term (by default
    N-Triples text may still hold a quad line)."""
    # 2.6 MB: with --jobs 2, two chunks of at least 1 MiB, the quad in the second
    lines = [b'<http://e/s%d> <http://e/p> "%d" .\n' % (i, i) for i in range(70000)]
    lines[59999] = b'<http://e/s> <http://e/p> "q" <http://e/g> .\n'
    (tmp_path / "in.nt").write_bytes(b"".join(lines))
    for syntax in ("rdf12", "rdf-star"):
        line = fails("convert", tmp_path / "in.nt", tmp_path / "out.jelly", "--syntax", syntax,
                     "--jobs", jobs, "--segment-size", "500")
        assert "N-Triples has no graph label" in line and "line 60000" in line, line
        assert not (tmp_path / "out.jelly").exists()
    (tmp_path / "in.nq").write_bytes(b"".join(lines))
    ok("convert", tmp_path / "in.nq", tmp_path / "out.jelly", "--syntax", "rdf12", "--jobs",
       jobs, "--segment-size", "500")


def test_jelly_text_not_utf8_names_the_line(tmp_path):
    (tmp_path / "x.jelly.txt").write_bytes(
        b'# Frame 0\nrows {\n  name {\n    value: "caf\xe9"\n  }\n}\n')
    fails("convert", tmp_path / "x.jelly.txt", tmp_path / "x.nt", match="must be UTF-8: invalid continuation byte (at line 4)")
    assert not (tmp_path / "x.nt").exists()


def test_jelly_text_single_frame_refuses_many(log, tmp_path):
    ok("convert", log, tmp_path / "m.jelly.txt")
    fails("convert", tmp_path / "m.jelly.txt", tmp_path / "one.jelly", "--single-frame",
          match="single-frame")


# ----------------------------------------------------------------------------- validate

def test_compare_to(tmp_path):
    ok("convert", SENSORS, tmp_path / "s.jelly")
    assert ok("validate", tmp_path / "s.jelly", "--compare-to", SENSORS).decode().startswith(
        "valid: 1 frame, 420 statements, same as ")
    # blank nodes renamed, and lines in another order: the same dataset
    lines = SENSORS.read_text().replace("_:r", "_:other").splitlines(keepends=True)
    (tmp_path / "shuffled.nt").write_text("".join(reversed(lines)))
    ok("validate", tmp_path / "s.jelly", "--compare-to", tmp_path / "shuffled.nt")
    fails("validate", tmp_path / "s.jelly", "--compare-to", tmp_path / "shuffled.nt",
          "--ordered", match="statement 0 differs")
    ok("validate", tmp_path / "s.jelly", "--compare-to", SENSORS, "--ordered")
    # one statement missing, one extra
    (tmp_path / "less.nt").write_text("".join(lines[1:]))
    fails("validate", tmp_path / "s.jelly", "--compare-to", tmp_path / "less.nt",
          match="not expected")
    (tmp_path / "more.nt").write_text("".join(lines) + "<http://x> <http://y> <http://z> .\n")
    fails("validate", tmp_path / "s.jelly", "--compare-to", tmp_path / "more.nt",
          match="missing")
    # any format: Turtle, Jelly-Text; --compare-format for a name that does not tell
    ok("convert", SENSORS, tmp_path / "s.ttl")
    ok("validate", tmp_path / "s.jelly", "--compare-to", tmp_path / "s.ttl")
    ok("convert", tmp_path / "s.jelly", tmp_path / "s.jelly.txt")
    ok("validate", tmp_path / "s.jelly", "--compare-to", tmp_path / "s.jelly.txt", "--ordered")
    (tmp_path / "ref.txt").write_bytes(SENSORS.read_bytes())
    ok("validate", tmp_path / "s.jelly", "--compare-to", tmp_path / "ref.txt",
       "--compare-format", "nt")
    # stdin cannot be read twice: refused, not split between the two readings
    fails("validate", "-", "--compare-to", "-", stdin=(tmp_path / "s.jelly").read_bytes(),
          match="the stream and the reference cannot share stdin")
    fails("validate", tmp_path / "s.jelly", "--ordered", match="error: ordered says how")
    fails("validate", tmp_path / "s.jelly", "--compare-to", tmp_path / "nope.nt",
          match="cannot open")


def test_compare_frames(log, tmp_path):
    first = "".join(ntr.stmt_to_nt(st) + "\n" for m in ORACLE_MESSAGES[:2] for st in m)
    (tmp_path / "two.nt").write_text(first)
    ok("validate", log, "--frames", "..2", "--compare-to", tmp_path / "two.nt", "--ordered")
    fails("validate", log, "--frames", "..3", "--compare-to", tmp_path / "two.nt",
          match="not expected")
    fails("validate", log, "--frames", "a..b", "--compare-to", tmp_path / "two.nt",
          match="--frames")
    fails("validate", log, "--frames", "..2", match="--compare-to")
    fails("validate", log, "--ordered", match="--compare-to")


def test_options_file(log, tmp_path):
    ok("validate", log, "--options-file", log)
    # a broken options file is named: the error is not the input's
    (tmp_path / "garbage.bin").write_bytes(b"\x7f" + bytes(range(60)))
    assert fails("validate", log, "--options-file", tmp_path / "garbage.bin").startswith(
        f"jelly: error: in the options file '{tmp_path / 'garbage.bin'}': ")
    ok("convert", SENSORS, tmp_path / "flat.jelly")
    fails("validate", log, "--options-file", tmp_path / "flat.jelly",
          match="logical_type is 'GRAPHS', not 'FLAT_TRIPLES'")
    ok("convert", log, tmp_path / "m.jelly.txt", "--take-frames", "0")
    ok("validate", log, "--options-file", tmp_path / "m.jelly.txt")
    # every stream of a concatenation must have them
    ok("convert", MESSAGES, tmp_path / "small.jelly", "--preset", "small")
    (tmp_path / "cat.jelly").write_bytes(log.read_bytes() + (tmp_path / "small.jelly").read_bytes())
    fails("validate", tmp_path / "cat.jelly", "--options-file", log,
          match="stream options of stream 1 differ")
    (tmp_path / "empty.jelly").write_bytes(b"")
    fails("validate", tmp_path / "empty.jelly", "--options-file", log, match="empty")


def test_delimited(log, tmp_path):
    ok("convert", SENSORS, tmp_path / "one.jelly", "--single-frame")
    ok("validate", log, "--delimited", "yes")
    ok("validate", tmp_path / "one.jelly", "--delimited", "no")
    ok("validate", tmp_path / "one.jelly", "--delimited", "auto")
    fails("validate", log, "--delimited", "no", match="expected a single frame")
    fails("validate", tmp_path / "one.jelly", "--delimited", "yes", match="expected a delimited")
    fails("validate", log, "--delimited", "maybe", match="invalid choice")


def test_validate_concatenated_and_empty(log, tmp_path):
    ok("convert", SENSORS, tmp_path / "s.jelly", "--preset", "small")
    (tmp_path / "cat.jelly").write_bytes(log.read_bytes() + (tmp_path / "s.jelly").read_bytes())
    assert ok("validate", tmp_path / "cat.jelly").decode().strip() == \
        "valid: 2 concatenated streams, 61 frames, 840 statements"
    # a stream that ends inside a graph, then another
    ok("convert", "-", tmp_path / "g.jelly", "--from", "nq", "--physical-type", "graphs",
       "--single-frame", stdin=QUADS)
    frame = (tmp_path / "g.jelly").read_bytes()
    pb = load_proto("rdf.proto")
    msg = pb.RdfStreamFrame.FromString(frame)
    del msg.rows[-1]                                   # the last graph_end
    cut = msg.SerializeToString()
    (tmp_path / "open.jelly").write_bytes(wire.enc_varint(len(cut)) + cut + log.read_bytes())
    fails("validate", tmp_path / "open.jelly", match="stream 0 ends inside a graph")
    (tmp_path / "empty.jelly").write_bytes(b"")
    assert ok("validate", tmp_path / "empty.jelly").decode().strip() == \
        "valid: empty input, 0 frames, 0 statements"


# ------------------------------------------------------------------------------ inspect

def oracle_rows(data: bytes) -> list:
    """Per frame: {row kind: (count, bytes)} by protobuf, and term kinds by position."""
    pb = load_proto("rdf.proto")
    out = []
    for frame_bytes in wire.split_frames(data):
        frame = pb.RdfStreamFrame.FromString(frame_bytes)
        rows, terms = {}, {}
        for row in frame.rows:
            kind = row.WhichOneof("row")
            size = len(row.SerializeToString())
            n, b = rows.get(kind, (0, 0))
            rows[kind] = (n + 1, b + 1 + len(wire.enc_varint(size)) + size)
            msg = getattr(row, kind)
            for pos in ("subject", "predicate", "object", "graph"):
                if kind in ("triple", "quad") and (pos != "graph" or kind == "quad"):
                    member = msg.WhichOneof(pos)
                elif kind == "graph_start" and pos == "graph":
                    member = msg.WhichOneof("graph")
                else:
                    member = None
                if member:
                    k = member.split("_", 1)[1].replace("triple_term", "triple")
                    terms[(pos, k)] = terms.get((pos, k), 0) + 1
        out.append((rows, terms, len(frame_bytes)))
    return out


def test_inspect_summary_per_frame_and_size(log):
    oracle = oracle_rows(log.read_bytes())
    table = ok("inspect", log).decode().splitlines()
    header = table.index(next(ln for ln in table if ln.split()[:2] == ["frame", "bytes"]))
    assert len(table) == header + 2                      # the header row, then totals
    cols, total = table[header].split(), table[header + 1].split()
    want_triples = sum(r.get("triple", (0, 0))[0] for r, _, _ in oracle)
    assert total[0] == "total" and int(total[cols.index("triple")]) == want_triples == 420
    per_frame = json.loads(ok("inspect", log, "--per-frame", "--format", "json"))
    assert [f["triple"] for f in per_frame["frame_rows"]] == \
        [r.get("triple", (0, 0))[0] for r, _, _ in oracle]
    sized = json.loads(ok("inspect", log, "--per-frame", "--size", "--json"))
    assert sized["unit"] == "bytes"
    for row, (rows, _, frame_size) in zip(sized["frame_rows"], oracle):
        assert {k: v for k, v in row.items() if k in rows} == {k: b for k, (_, b) in rows.items()}
        assert row["bytes"] == frame_size == sum(b for _, b in rows.values())
    text = ok("inspect", log, "--per-frame").decode()
    assert len([ln for ln in text.splitlines() if ln.split()[:1] and ln.split()[0].isdigit()]) == 60


@pytest.mark.parametrize("detail", ["node", "term", "all"])
def test_inspect_detail(tmp_path, detail):
    star = b'<http://a> <http://p> <<( <http://a> <http://p> "x" )>> <http://g> .\n'
    (tmp_path / "in.nq").write_bytes(QUADS + star)
    ok("convert", tmp_path / "in.nq", tmp_path / "q.jelly", "--rdf-star")
    _, terms, _ = oracle_rows((tmp_path / "q.jelly").read_bytes())[0]
    report = json.loads(ok("inspect", tmp_path / "q.jelly", "--detail", detail, "--json"))
    got = report["terms"]
    if detail == "all":
        assert {(p, k): n for p, kinds in got.items() for k, n in kinds.items() if n} == terms
    elif detail == "node":
        want = {}
        for (_, k), n in terms.items():
            want[k] = want.get(k, 0) + n
        assert {k: n for k, n in got.items() if n} == want
    else:
        want = {}
        for (p, _), n in terms.items():
            want[p] = want.get(p, 0) + n
        assert {k: n for k, n in got.items() if n} == want
    table = ok("inspect", tmp_path / "q.jelly", "--detail", detail).decode()
    assert ("object.triple" if detail == "all" else "subject" if detail == "term" else
            "default_graph") in table


def test_inspect_formats(log):
    as_json = json.loads(ok("inspect", log, "--per-frame", "--detail", "all", "--format", "json"))
    as_yaml = yaml.safe_load(ok("inspect", log, "--per-frame", "--detail", "all", "--format",
                                "yaml"))
    assert as_yaml == as_json
    assert json.loads(ok("inspect", log, "--json")) == json.loads(ok("inspect", log, "--format",
                                                                     "json"))


def test_inspect_bad_options(log):
    fails("inspect", log, "--detail", "bogus", match="invalid choice")
    fails("inspect", log, "--format", "xml", match="invalid choice")
    fails("inspect", log, "--per-frame", "--summary", match="not allowed with")
    fails("inspect", SENSORS, match="not a Jelly file (it looks like N-Triples)")


def test_inspect_concatenated(log, tmp_path):
    ok("convert", SENSORS, tmp_path / "s.jelly", "--preset", "small")
    (tmp_path / "cat.jelly").write_bytes(log.read_bytes() + (tmp_path / "s.jelly").read_bytes())
    report = json.loads(ok("inspect", tmp_path / "cat.jelly", "--json", "--per-frame"))
    assert report["streams"] == 2 and report["frames"] == 61
    assert [o["max_name_table_size"] for o in report["stream_options"]] == [4000, 128]
    assert report["frame_rows"][-1]["stream"] == 1
    text = ok("inspect", tmp_path / "cat.jelly").decode()
    assert "2 concatenated streams" in text and "options of stream 1:" in text


def test_every_new_option_is_in_the_help():
    for command, flags in (("convert", ("--take-frames", "--combine", "--merge-graphs")),
                           ("validate", ("--compare-to", "--ordered", "--frames",
                                         "--options-file", "--delimited")),
                           ("inspect", ("--per-frame", "--detail", "--size", "--format"))):
        code, out, _ = run(command, "--help")
        assert code == 0
        for flag in flags:
            assert flag in out.decode(), (command, flag)


def test_unordered_oracle_agrees_on_reference_compare(log):
    """What validate calls the same dataset, the oracle does too (and the log is ordered)."""
    got = jelly_statements(log.read_bytes())
    want = [st for m in ORACLE_MESSAGES for st in m]
    assert unordered_isomorphic(got, want) and ordered_isomorphic(got, want)
