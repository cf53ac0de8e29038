"""``output="text"``: the decoder writes each frame's N-Triples / N-Quads lines straight into
one ``bytes`` (``jelly._ntformat.TextSink``), and what takes that text on:
``NQuadsWriter.write_text`` and the workers of ``jelly convert --jobs``
(``parallel._Output``, ``parallel._write_at``).

Oracles: the independent N-Quads reader of ``tests/oracle`` reading the text back to the
statements a random scenario wrote; the other N-Triples output of the decoder
(``output="lines"``, a str per line), which must give the same bytes and the same errors."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jelly
import strategies
from helpers import from_jelly
from jelly import parallel
from jelly._ntformat import NQuadsWriter, NTriplesTerms, TextSink
from oracle import ntriples as ntr
from oracle.isomorphism import ordered_isomorphic
from oracle.terms import nq_shape


def frames_or_error(data: bytes, output: str, syntax: str | None):
    try:
        return [f.statements for f in jelly.parse_frames(
            data, terms=NTriplesTerms(syntax=syntax), output=output)]
    except jelly.JellyError as exc:      # a term N-Triples cannot spell
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(strategies.scenario(max_statements=60), st.sampled_from([None, "rdf12"]))
def test_text_reads_back_to_the_statements_written(sc, syntax):
    data = strategies.delimited_stream(sc)
    text, lines = frames_or_error(data, "text", syntax), frames_or_error(data, "lines", syntax)
    if isinstance(lines, str):
        assert text == lines
        return
    assert [type(t) for t in text] == [bytes] * len(lines)
    assert text == ["".join(frame).encode("utf-8") for frame in lines]
    got = [nq_shape(s) for s in ntr.parse_nquads(b"".join(text))]
    want = [nq_shape(s) for s in strategies.expected_statements(sc["statements"],
                                                                 sc["physical"])]
    assert ordered_isomorphic(got, want)


def test_large_and_small_frames_in_turn():
    # One frame of 30,000 statements grows the text from 64 KiB many times over; the frames
    # after it are smaller (one empty), then larger again.
    sizes = [30000, 3, 0, 5000]
    frames = [[(jelly.IRI(f"http://example.org/s{k}/{i}"), jelly.IRI("http://example.org/p"),
                jelly.Literal(f"v\u00e9\U0001F600{i}", language="fr"))
               for i in range(n)] for k, n in enumerate(sizes)]
    data = jelly.serialize_frames(frames)
    got = [f.statements for f in jelly.parse_frames(data, terms="nt", output="text")]
    assert got == [nt_text(frame).encode("utf-8") for frame in frames]


def nt_text(statements) -> str:
    """N-Triples lines of jelly statements, by the oracle's writer."""
    return "".join(ntr.stmt_to_nt(tuple(from_jelly(t) for t in s)) + "\n" for s in statements)


def test_text_needs_nt_terms_and_frames():
    with pytest.raises(ValueError, match="output='text' needs terms='nt'"):
        jelly.Decoder(output="text")
    with pytest.raises(ValueError, match="needs terms='nt'"):
        TextSink("nt")
    data = jelly.serialize([(jelly.IRI("http://a"), jelly.IRI("http://b"), jelly.IRI("http://c"))])
    with jelly.Reader(data, terms="nt", output="text") as reader:
        with pytest.raises(ValueError, match="read frame by frame"):
            iter(reader)
    assert [f.statements for f in jelly.parse_frames(data, terms="nt", output="text")] == \
        [b"<http://a> <http://b> <http://c> .\n"]


class Chunks:
    """A binary stream that keeps each write as it was given."""

    def __init__(self):
        self.writes = []

    def write(self, data):
        self.writes.append(data)
        return len(data)


def test_write_text_keeps_the_order_of_everything_written():
    s, p, o = jelly.IRI("http://example/s"), jelly.IRI("http://example/p"), jelly.Literal("\u00e9")
    line = "<http://example/s> <http://example/p> \"\u00e9\" .\n".encode("utf-8")
    big = b"<http://example/a> <http://example/b> <http://example/c> .\n" * 4
    out = Chunks()
    w = NQuadsWriter(out, buffer_size=100)
    w.write((s, p, o))
    w.write_text(b"")
    w.write_text(b"<x:a> <x:b> <x:c> .\n")
    w.write_message()
    w.write_text(bytearray(big))          # at least the buffer: after what is buffered
    w.write_lines(["<x:d> <x:e> <x:f> .\n"])
    w.write_text(memoryview(big))
    w.close()
    want = (line + b"<x:a> <x:b> <x:c> .\n# @message\n" + big + b"<x:d> <x:e> <x:f> .\n" + big)
    assert b"".join(bytes(c) for c in out.writes) == want
    # the large texts went out as they were given, not copied into the buffer
    assert any(type(c) is bytearray for c in out.writes)
    assert all(len(c) <= 100 + len(big) for c in out.writes)


@pytest.mark.parametrize("sizes", [
    [0, 5, 0, 3],                                   # empty chunks are skipped
    [parallel.PIECE_BYTES * 2 + 7, 1],              # a chunk cut into pieces
    [300] * (parallel._IOV_MAX + 10),               # more chunks than one call takes
    [parallel.PIECE_BYTES - 1, 2, parallel.PIECE_BYTES + 1],
])
def test_write_at_places_every_chunk_in_order(tmp_path, sizes):
    chunks = [os.urandom(n) for n in sizes]
    path = tmp_path / "out"
    path.write_bytes(b"head")
    fd = os.open(path, os.O_WRONLY)
    try:
        parallel._write_at(fd, 4, chunks)
    finally:
        os.close(fd)
    assert path.read_bytes() == b"head" + b"".join(chunks)


def test_write_at_goes_on_after_short_writes(tmp_path, monkeypatch):
    # A regular file is not written short unless the disk fills or a signal comes; the system
    # call is made to write at most 1000 bytes at a time to see that the rest follows.
    real = os.pwritev

    def short(fd, views, offset):
        budget, cut = 1000, []
        for v in views:
            cut.append(v[:budget])
            budget -= len(cut[-1])
            if not budget:
                break
        return real(fd, cut, offset)

    monkeypatch.setattr(os, "pwritev", short)
    chunks = [os.urandom(n) for n in (999, 2, 5000, 1)]
    path = tmp_path / "out"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        parallel._write_at(fd, 0, chunks)
    finally:
        os.close(fd)
    assert path.read_bytes() == b"".join(chunks)


def test_worker_output_keeps_bytes_and_copies_views():
    out = parallel._Output()
    data = b"abc"
    buf = bytearray(b"xyz")
    assert out.write(data) == 3 and out.write(memoryview(buf)) == 3
    buf[:] = b"000"                     # a writer may reuse its buffer after write returns
    assert out.chunks[0] is data and out.chunks[1] == b"xyz" and out.used == 6


def test_convert_to_nt_in_one_process_writes_every_frame(tmp_path):
    frames = [[(jelly.IRI(f"http://example.org/{k}/{i}"), jelly.IRI("http://example.org/p"),
                jelly.Literal(f"{i}\u00e9"))] for k in range(3) for i in range(2)]
    src = tmp_path / "in.jelly"
    src.write_bytes(jelly.serialize_frames(frames))
    from jelly.convert import convert
    convert(str(src), str(tmp_path / "out.nt"), jobs=1)
    assert (tmp_path / "out.nt").read_text("utf-8") == "".join(nt_text(f) for f in frames)
