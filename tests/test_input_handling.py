"""Input as users hand it over: what is not Jelly says what it looks like, compressed input
(gzip and zstd) wherever a file is read or written, one policy for empty input in every
command and the API, concatenated streams, and content sniffing.
"""

from __future__ import annotations

import gzip
import io
import sys

import pytest
import zstandard

import helpers
import jelly
import jelly.formats as formats
import jelly.oxigraph
import jelly.rdflib  # noqa: F401
import jelly.patch
import jelly.transcode
from rdflib import Dataset, Graph
from jelly.io import open_input, open_output
from oracle import jelly_rdf as rd, ntriples as ntr, terms as neutral
from test_cli import QUADS, fails, ok

SENSORS = helpers.REPO_ROOT / "examples" / "data" / "sensors.nt"
TURTLE = b"@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\n"
NOT_JELLY = [
    (SENSORS.read_bytes(), "N-Triples"),
    (QUADS, "N-Quads"),
    (TURTLE, "Turtle"),
    (b"# a comment\nPREFIX ex: <http://example.org/>\nex:a ex:b ex:c .\n", "Turtle"),
    (b'{"@context": {}, "@id": "http://a"}', "JSON-LD"),
    (b'<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="x"/>', "RDF/XML"),
    (b"# Frame 0\nrows {\n}\n", "Jelly-Text"),
    (b"hello, this is a plain text file\n", "text"),
    (b"hello\n", "text"),                   # short, and not how a Jelly stream starts
    (b"@prefix : <b> .", "Turtle"),
    (jelly.patch.serialize([jelly.patch.Add(jelly.IRI("http://s"), jelly.IRI("http://p"),
                                            jelly.Literal("o"))]),
     "Jelly-Patch: read it with jelly patch"),
]


def zst(data: bytes) -> bytes:
    return zstandard.ZstdCompressor().compress(data)


def nq(data: bytes) -> list:
    return sorted(neutral.nq_shape(st) for st in ntr.parse_nquads(data))


def decoded(data: bytes) -> list:
    return sorted(neutral.nq_shape(st) for frame in rd.decode(data)[1] for st in frame)


# ------------------------------------------------------------------------ not a Jelly file

@pytest.mark.parametrize("content,what", NOT_JELLY)
def test_not_a_jelly_file_says_what_it_looks_like(tmp_path, content, what):
    path = tmp_path / "in.jelly"
    path.write_bytes(content)
    message = f"not a Jelly file (it looks like {what})"
    for command in (("convert", path, tmp_path / "o.nt"), ("validate", path), ("inspect", path)):
        line = fails(*command, match=message)
        assert line == f"jelly: error: {message}"
    (tmp_path / "in.jelly.gz").write_bytes(gzip.compress(content))
    fails("validate", tmp_path / "in.jelly.gz", match=message)
    with pytest.raises(jelly.JellyDecodeError, match=r"not a Jelly file \(it looks like"):
        list(jelly.parse(content))
    with pytest.raises(jelly.JellyDecodeError, match=r"not a Jelly file \(it looks like"):
        list(jelly.parse(io.BytesIO(content)))


def test_binary_garbage_keeps_the_decoder_error(tmp_path):
    (tmp_path / "junk.jelly").write_bytes(b"\x07\x00\x01\x02\x03\x04\x05\x06\x07")
    line = fails("validate", tmp_path / "junk.jelly")
    assert "not a Jelly file" not in line and "frame 0" in line


def test_a_jelly_file_cut_to_a_few_bytes_keeps_the_framing_error(tmp_path):
    ok("convert", SENSORS, tmp_path / "s.jelly")
    data = (tmp_path / "s.jelly").read_bytes()
    for n in range(1, 16):
        (tmp_path / "cut.jelly").write_bytes(data[:n])
        line = fails("validate", tmp_path / "cut.jelly")
        assert "not a Jelly file" not in line and "input ends inside a frame" in line, n


def test_a_later_frame_is_not_blamed_on_the_format(tmp_path):
    ok("convert", SENSORS, tmp_path / "s.jelly", "--rows-per-frame", "50")
    data = (tmp_path / "s.jelly").read_bytes()
    (tmp_path / "cut.jelly").write_bytes(data + b"<http://a> <http://b> <http://c> .\n")
    line = fails("validate", tmp_path / "cut.jelly")
    assert "not a Jelly file" not in line


# ---------------------------------------------------------------------------- compression

@pytest.mark.parametrize("kind", ["gzip", "zstd"])
def test_cut_short_and_corrupt_compressed_input(tmp_path, kind):
    ok("convert", SENSORS, tmp_path / "s.jelly")
    data = (tmp_path / "s.jelly").read_bytes()
    packed = gzip.compress(data) if kind == "gzip" else zst(data)
    (tmp_path / "cut.jelly").write_bytes(packed[:len(packed) // 2])
    for command in (("convert", tmp_path / "cut.jelly", tmp_path / "o.nt"),
                    ("validate", tmp_path / "cut.jelly"), ("inspect", tmp_path / "cut.jelly")):
        fails(*command, match=f"the {kind}-compressed input is cut short")
    assert not (tmp_path / "o.nt").exists()
    (tmp_path / "cut.nt").write_bytes((gzip.compress if kind == "gzip" else zst)(
        SENSORS.read_bytes())[:300])
    fails("convert", tmp_path / "cut.nt", tmp_path / "o.jelly",
          match=f"the {kind}-compressed input is cut short")
    bad = packed[:12] + bytes(b ^ 0x55 for b in packed[12:40]) + packed[40:]
    (tmp_path / "bad.jelly").write_bytes(bad)
    line = fails("validate", tmp_path / "bad.jelly")
    assert f"the {kind}-compressed input is" in line


def test_zstd_everywhere(tmp_path):
    want = nq(SENSORS.read_bytes())
    # convert: .zst in and out, by name and by magic bytes
    (tmp_path / "s.nt.zst").write_bytes(zst(SENSORS.read_bytes()))
    ok("convert", tmp_path / "s.nt.zst", tmp_path / "s.jelly.zst")
    packed = (tmp_path / "s.jelly.zst").read_bytes()
    assert packed[:4] == b"\x28\xb5\x2f\xfd"
    plain = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(packed)).read()
    assert decoded(plain) == want
    ok("convert", tmp_path / "s.jelly.zst", tmp_path / "back.nq.zst")
    assert nq(zstandard.ZstdDecompressor().stream_reader(
        open(tmp_path / "back.nq.zst", "rb")).read()) == want
    (tmp_path / "noext").write_bytes(packed)
    assert nq(ok("convert", tmp_path / "noext")) == want
    # the API: parse (bytes, path, stream), serialize to .zst, read_options
    assert sorted(neutral.nq_shape(helpers.from_jelly(st)) for st in jelly.parse(packed)) == want
    assert len(list(jelly.parse(tmp_path / "s.jelly.zst"))) == 420
    assert len(list(jelly.parse(io.BytesIO(packed)))) == 420
    jelly.serialize(jelly.parse(packed), tmp_path / "api.jelly.zst")
    assert (tmp_path / "api.jelly.zst").read_bytes()[:4] == b"\x28\xb5\x2f\xfd"
    assert jelly.read_options(tmp_path / "api.jelly.zst").max_name_table_size == 4000
    # inspect, validate, transcode, Jena's formats, rdflib
    assert "420" in ok("inspect", tmp_path / "s.jelly.zst").decode()
    ok("validate", tmp_path / "s.jelly.zst", "--compare-to", tmp_path / "s.nt.zst")
    jelly.transcode.transcode(tmp_path / "s.jelly.zst", tmp_path / "t.jelly.zst", preset="small")
    assert jelly.read_options(tmp_path / "t.jelly.zst").max_name_table_size == 128
    ok("convert", tmp_path / "s.jelly.zst", tmp_path / "s.rt.zst")
    assert nq(ok("convert", tmp_path / "s.rt.zst", "-", "--to", "nq")) == want
    assert len(Graph().parse(tmp_path / "s.jelly.zst", format="jelly")) == 420


def test_zstd_without_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)
    with pytest.raises(jelly.JellyError, match=r"pip install 'jelly\[zstd\]'"):
        with open_input(zst(b"x")) as stream:
            stream.read()
    with pytest.raises(jelly.JellyError, match="zstandard"):
        with open_output(io.BytesIO(), compress="zstd"):
            pass


def test_suffixes():
    assert formats.for_path("a.nt.zst") is formats.NTRIPLES
    assert formats.for_path("a.jelly.gz") is formats.JELLY
    assert formats.for_path("a.jelly.txt.zst") is formats.JELLY_TEXT


# ---------------------------------------------------------------------------- empty input

@pytest.mark.parametrize("wrap", [lambda b: b, gzip.compress, zst], ids=["plain", "gz", "zst"])
def test_empty_input_is_an_empty_stream_everywhere(tmp_path, wrap):
    """The policy (docs/user-guide.md, "Empty input"): no bytes is a stream with no frames,
    no options and no statements, accepted by every command and the API alike."""
    path = tmp_path / "e.jelly"
    path.write_bytes(wrap(b""))
    assert ok("convert", path, "-", "--to", "nq") == b""
    ok("convert", path, tmp_path / "e.jelly2", "--to", "jelly")
    options, frames = rd.decode((tmp_path / "e.jelly2").read_bytes())
    assert sum(len(f) for f in frames) == 0 and options is not None
    assert ok("convert", "-", "-", stdin=wrap(b"")) == b""
    assert ok("validate", path).decode().strip() == "valid: empty input, 0 frames, 0 statements"
    assert "(delimited, 0 frames)" in ok("inspect", path).decode()
    jelly.transcode.transcode(path, tmp_path / "t.jelly")
    assert (tmp_path / "t.jelly").read_bytes() == b""
    assert list(jelly.parse(path)) == [] and list(jelly.parse_frames(path)) == []
    with jelly.Reader(path) as reader:
        assert reader.options is None and list(reader) == []
    with pytest.raises(jelly.JellyError, match="no stream options"):
        jelly.read_options(path)
    assert len(Graph().parse(path, format="jelly")) == 0
    assert len(Dataset().parse(path, format="jelly")) == 0
    assert len(jelly.oxigraph.load(path)) == 0


def test_frames_without_rows_are_empty_too(tmp_path):
    (tmp_path / "e.jelly").write_bytes(b"\x00\x00\x00")
    assert ok("validate", tmp_path / "e.jelly").decode().startswith("valid: 3 frames")
    assert ok("convert", tmp_path / "e.jelly", "-", "--to", "nt") == b""


# ----------------------------------------------------------------------- concatenation

def test_concatenated_streams_in_the_api_and_convert(tmp_path):
    a = jelly.serialize([(jelly.IRI("http://a"), jelly.IRI("http://p"), jelly.BlankNode("x"))])
    b = jelly.serialize([(jelly.IRI("http://b"), jelly.IRI("http://p"), jelly.IRI("http://o"),
                          jelly.IRI("http://g"))], preset="small")
    both = a + b
    assert [len(st) for st in jelly.parse(both, new_streams=True)] == [3, 4]
    assert [f.stream_index for f in jelly.parse_frames(both, new_streams=True)] == [0, 1]
    with pytest.raises(jelly.JellyDecodeError, match="stream options differ"):
        list(jelly.parse(both))
    (tmp_path / "ab.jelly").write_bytes(both)
    assert nq(ok("convert", tmp_path / "ab.jelly", "-", "--to", "nq")) == \
        sorted(decoded(a) + decoded(b))


# ---------------------------------------------------------------------------- sniffing

@pytest.mark.parametrize("content,name", [
    (SENSORS.read_bytes(), "nt"), (QUADS, "nq"), (b"# Frame 0\nrows {\n}\n", "jelly-text"),
    (b"rows { options { version: 1 } }", "jelly-text"),
    (jelly.serialize([(jelly.IRI("http://a"), jelly.IRI("http://p"), jelly.IRI("http://o"))]),
     "jelly"),
    (jelly.serialize([(jelly.IRI("http://a"), jelly.IRI("http://p"), jelly.IRI("http://o"))],
                     delimited=False), "jelly"),
])
def test_sniff_content(content, name):
    assert formats.sniff_content(content[:4096]) is formats.get(name)


def test_sniff_content_refuses_other_text():
    for content in (TURTLE, b'{"@id": 1}', b"plain words", b"\x00\x01\x02garbage", b""):
        assert formats.sniff_content(content) is None


def test_long_first_line_is_still_n_triples():
    line = b"<http://a> <http://p> \"" + b"x" * 10000 + b"\" .\n"
    assert formats.sniff_content(line[:4096]) is formats.NTRIPLES


def test_column_output_counts_statements_not_columns():
    data = jelly.serialize([(jelly.IRI(f"http://s{i}"), jelly.IRI("http://p"),
                             jelly.Literal(str(i))) for i in range(10)], rows_per_frame=4)
    frames = list(jelly.parse_frames(data, terms="nt", output="columns"))
    assert [len(f) for f in frames] == [f.statement_count for f in frames]
    assert sum(len(f) for f in frames) == 10
    assert all(len(f.statements) == 3 for f in frames)           # three columns
    assert f"{len(frames[0])} statements" in repr(frames[0])


def test_zstd_output_is_bounded_per_read():
    """A few bytes of zstd can stand for megabytes: reading decompresses a little at a time."""
    import tracemalloc
    bomb = zst(b"\0" * (64 << 20))
    assert len(bomb) < 4096
    tracemalloc.start()
    try:
        total = 0
        with open_input(bomb) as stream:
            while True:
                data = stream.read(1 << 16)
                if not data:
                    break
                total += len(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert total == 64 << 20 and peak < 24 << 20
