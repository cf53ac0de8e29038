"""Regression tests of the hardening issue (15): each one failed before its fix.

* Non-blocking streams: "no data yet" (``read()`` giving None, or ``read1()`` of a buffered
  stream over a non-blocking one giving b"") is never the end of the input: Jelly, RDF Thrift,
  N-Triples, deterministic streams and a real non-blocking pipe.
* RDF-star nesting: ``max_quoted_depth`` is capped at ``MAX_QUOTED_DEPTH``, and every codec
  works at that depth in a thread with a small stack; terms nested far deeper hash, compare,
  sort, print and are freed without a crash (checked in child processes, so that a crash is a
  failure and not the end of the test run).
* Memory follows the bytes present: lookup ids far beyond the entries defined (sparse tables)
  and the transcoder's output tables taken from an input's declared sizes.
* ``serialize`` refuses a None statement wherever it is; an empty frame is not decoded.

Inputs are built by hand from the wire format (``oracle.wire``), not by jelly's writer.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc

import pytest

import jelly
import jelly.jena
from jelly import IRI, Literal, Triple
from jelly._ntriples import parse_nquads
from jelly.options import MAX_QUOTED_DEPTH
from oracle.wire import enc_varint

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


def ld(field: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return enc_varint(field << 3 | 2) + enc_varint(len(payload)) + payload


def options_row(names=8, prefixes=0, datatypes=0, rdf_star=False) -> bytes:
    opts = (b"\x10\x01" + (b"\x20\x01" if rdf_star else b"") + b"\x48" + enc_varint(names)
            + b"\x50" + enc_varint(prefixes) + b"\x58" + enc_varint(datatypes) + b"\x78\x01")
    return ld(1, ld(1, opts))


def delimited(*rows: bytes) -> bytes:
    frame = b"".join(rows)
    return enc_varint(len(frame)) + frame


def iri(prefix_id=0, name_id=0) -> bytes:
    return ((b"\x08" + enc_varint(prefix_id)) if prefix_id else b"") + \
        ((b"\x10" + enc_varint(name_id)) if name_id else b"")


def entry_row(field: int, ident: int, value: str) -> bytes:
    """A name (9), prefix (10) or datatype (11) entry row."""
    return ld(1, ld(field, b"\x08" + enc_varint(ident) + ld(2, value.encode())))


# ---------------------------------------------------------------------------------------------
# non-blocking streams
# ---------------------------------------------------------------------------------------------

class NoDataYet(io.RawIOBase):
    """A raw stream that has no data every third read (readinto gives None, as a non-blocking
    file does) and otherwise a few hundred bytes."""

    def __init__(self, data: bytes):
        self._data = data
        self._pos = 0
        self._calls = 0

    def readable(self):
        return True

    def readinto(self, b):
        self._calls += 1
        if self._calls % 3 == 0 and self._pos < len(self._data):
            return None
        n = min(len(b), 700, len(self._data) - self._pos)
        b[:n] = self._data[self._pos:self._pos + n]
        self._pos += n
        return n


def _statements(n):
    return [(IRI(f"http://example.org/s{i}"), IRI("http://example.org/p"), Literal(str(i)))
            for i in range(n)]


STATEMENTS = _statements(3000)


@pytest.mark.parametrize("buffered", [False, True], ids=["raw", "buffered"])
def test_no_data_yet_is_not_the_end(buffered):
    def stream(data):
        raw = NoDataYet(data)
        return io.BufferedReader(raw, 256) if buffered else raw

    data = jelly.serialize(STATEMENTS, rows_per_frame=50)
    assert list(jelly.parse(stream(data))) == STATEMENTS
    assert sum(len(f) for f in jelly.parse_frames(stream(data))) == len(STATEMENTS)
    thrift = jelly.jena.serialize(STATEMENTS, format="thrift")
    assert list(jelly.jena.parse(stream(thrift), format="thrift")) == STATEMENTS
    nt = "".join(f"{s} {p} {o} .\n" for s, p, o in STATEMENTS).encode()
    assert list(parse_nquads(stream(nt))) == STATEMENTS


def test_real_non_blocking_pipe():
    """A pipe in non-blocking mode, opened buffered (what open(fd, "rb") gives), written in
    pieces with pauses: every statement arrives."""
    data = jelly.serialize(STATEMENTS, rows_per_frame=50)
    nt = "".join(f"{s} {p} {o} .\n" for s, p, o in STATEMENTS).encode()
    for payload, parse in ((data, jelly.parse), (nt, parse_nquads)):
        r, w = os.pipe()
        os.set_blocking(r, False)

        def writer(w=w, payload=payload):
            with open(w, "wb", buffering=0) as fh:
                for i in range(0, len(payload), 4096):
                    fh.write(payload[i:i + 4096])
                    time.sleep(0.002)

        t = threading.Thread(target=writer)
        t.start()
        try:
            with open(r, "rb") as fh:
                assert list(parse(fh)) == STATEMENTS
        finally:
            t.join(30)


# ---------------------------------------------------------------------------------------------
# RDF-star nesting
# ---------------------------------------------------------------------------------------------

def test_quoted_depth_limit_is_capped():
    assert jelly.ReaderLimits(max_quoted_depth=MAX_QUOTED_DEPTH).max_quoted_depth == \
        MAX_QUOTED_DEPTH
    for bad in (MAX_QUOTED_DEPTH + 1, 10**6, -1, 1.5, True):
        with pytest.raises(jelly.JellyOptionsError, match="max_quoted_depth"):
            jelly.ReaderLimits(max_quoted_depth=bad)
    with pytest.raises(jelly.JellyOptionsError):
        jelly.Encoder(jelly.make_options(rdf_star=True), max_quoted_depth=MAX_QUOTED_DEPTH + 1)
    from jelly._jena_proto import ProtoEncoder
    from jelly._jena_thrift import ThriftEncoder
    for enc in (ThriftEncoder, ProtoEncoder):
        with pytest.raises(jelly.JellyOptionsError):
            enc(max_quoted_depth=MAX_QUOTED_DEPTH + 1)


@pytest.mark.parametrize("field,value", [
    ("max_frame_size", 2**64), ("max_frame_size", -1), ("max_name_table_size", 2**32),
    ("max_prefix_table_size", "big"), ("max_datatype_table_size", None)])
def test_limits_out_of_range_are_refused(field, value):
    # before: accepted, and an OverflowError escaped from the reader later
    with pytest.raises(jelly.JellyOptionsError, match=field):
        jelly.ReaderLimits(**{field: value})


def run_child(code: str, timeout: float = 300) -> str:
    """Run ``code`` in a child interpreter; a crash (signal) fails the test with its output."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [TESTS_DIR] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    proc = subprocess.run([sys.executable, "-X", "faulthandler", "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=timeout, env=env)
    assert proc.returncode == 0, f"child exited with {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc.stdout


# A thread stack of 256 KiB: every codec needs less than half of it at MAX_QUOTED_DEPTH
# (AddressSanitizer's red zones make stack frames several times larger: 1 MiB there).
SMALL_STACK = (1024 if "asan" in os.environ.get("LD_PRELOAD", "") else 256) * 1024


def run_in_small_stack(code: str) -> None:
    """Run ``code`` in a child: it defines ``run()`` and ``done``, a list that ``run`` appends
    to when it got through; ``run`` is called in a thread with a stack of SMALL_STACK."""
    out = run_child(textwrap.dedent(code) + textwrap.dedent(f"""
        import threading
        threading.stack_size({SMALL_STACK})
        th = threading.Thread(target=run)
        th.start()
        th.join()
        print("ok" if done else "failed")
    """))
    assert out.strip() == "ok"


def test_codecs_at_max_depth_in_a_small_stack():
    """Decoding and encoding a triple nested MAX_QUOTED_DEPTH deep, in every codec, in a
    thread with a small stack (before the cap, raised limits crashed from 500 levels)."""
    run_in_small_stack(f"""
        import io, jelly, jelly.jena
        from jelly import IRI, Triple
        from jelly._jena_thrift import ThriftEncoder
        from jelly._jena_proto import ProtoEncoder
        from jelly.transcode import transcode
        D = {MAX_QUOTED_DEPTH}
        limits = jelly.ReaderLimits(max_quoted_depth=D)
        t = IRI("http://example.org/s")
        for _ in range(D - 1):
            t = Triple(t, IRI("http://example.org/p"), IRI("http://example.org/o"))
        st = (t, IRI("http://example.org/p"), IRI("http://example.org/o"))
        done = []
        def run():
            enc = jelly.Encoder(jelly.make_options(rdf_star=True), max_quoted_depth=D)
            enc.add(st)
            data = enc.take_frame(None, True, True)
            assert list(jelly.parse(data, limits=limits)) == [st]
            assert len(list(jelly.parse(data, limits=limits, terms="nt"))) == 1
            out = io.BytesIO()
            transcode(data, out, limits=limits)
            assert list(jelly.parse(out.getvalue(), limits=limits)) == [st]
            for fmt, Enc in (("thrift", ThriftEncoder), ("protobuf", ProtoEncoder)):
                e = Enc(max_quoted_depth=D)
                e.add(st)
                raw = e.take()
                assert list(jelly.jena.parse(raw, format=fmt, limits=limits)) == [st]
            assert str(t).count("<<") == D - 1
            from jelly._ntriples import parse_nquads
            line = " ".join(map(str, st)).encode() + b" .\\n"
            try:                                  # N-Triples nesting is capped lower (64)
                list(parse_nquads(line))
                raise AssertionError("N-Triples nested deeper than 64 was accepted")
            except jelly.RdfSyntaxError as exc:
                assert "nested deeper" in str(exc)
            shallow = t
            while shallow.s.__class__ is Triple and str(shallow).count("<<") > 64:
                shallow = shallow.s
            assert list(parse_nquads(str(shallow).encode() + b" <http://p> <http://o> .")) \
                == [(shallow, IRI("http://p"), IRI("http://o"))]
            done.append(True)
    """)


def test_deep_user_triples_do_not_crash():
    """Terms nested far deeper than any reader accepts: hash, ==, !=, order, str, repr and
    freeing work (before: hash of 100,000 levels and freeing 1,000,000 crashed)."""
    run_in_small_stack(f"""
        import tracemalloc
        from jelly import IRI, Triple
        def nest(d, leaf="o"):
            t = IRI("http://example.org/" + leaf)
            for _ in range(d):
                t = Triple(IRI("http://example.org/s"), IRI("http://example.org/p"), t)
            return t
        done = []
        def run():
            a, b, c = nest(100_000), nest(100_000), nest(100_000, "x")
            assert hash(a) == hash(b) and hash(a) != hash(c)
            assert a == b and a != c and not (a == c)
            assert {{a: 1}}[b] == 1
            assert sorted([c, a]) == [a, c] and a < c
            assert str(a).count("<<") == 100_000 and repr(a).count("Triple(") == 100_000
            del a, b, c
            deep = nest(1_000_000)
            del deep                               # freed without recursing
            tracemalloc.start()
            deep = nest(100_000)
            del deep                               # and entirely
            assert tracemalloc.get_traced_memory()[0] < 100_000
            shared = nest(1000)                    # held elsewhere: left alone
            outer = Triple(shared, IRI("http://example.org/p"), nest(1000))
            del outer
            assert shared == nest(1000) and str(shared).count("<<") == 1000
            tracemalloc.stop()
            done.append(True)
    """)


def test_triple_order_and_text_unchanged_by_iteration():
    """The iterative order and printing agree with the nested definitions on small terms."""
    s, p, o = IRI("http://example.org/s"), IRI("http://example.org/p"), IRI("http://example.org/o")
    a = Triple(s, p, Triple(s, p, o))
    b = Triple(s, p, Triple(s, p, Literal("x")))
    c = Triple(Triple(s, p, o), p, o)
    assert sorted([c, b, a, o]) == [o, a, b, c]        # IRI < triple; by s, then p, then o
    assert not (a < a) and (a < b) != (b < a)
    assert str(c) == "<< << <http://example.org/s> <http://example.org/p> " \
                     "<http://example.org/o> >> <http://example.org/p> <http://example.org/o> >>"
    assert repr(a) == ("Triple(IRI('http://example.org/s'), IRI('http://example.org/p'), "
                       "Triple(IRI('http://example.org/s'), IRI('http://example.org/p'), "
                       "IRI('http://example.org/o')))")
    assert Triple(s, p, o) != Triple(s, p, Literal("http://example.org/o"))
    assert Triple(s, p, o) != (s, p, o)


# ---------------------------------------------------------------------------------------------
# memory follows the bytes present
# ---------------------------------------------------------------------------------------------

HUGE = 2**32 - 1
RAISED = jelly.ReaderLimits(max_name_table_size=HUGE, max_prefix_table_size=HUGE,
                            max_datatype_table_size=HUGE)


def peak_of(fn):
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_sparse_lookup_ids_take_no_memory():
    """Entries at the largest ids of tables declared at 2**32 - 1 (before: the tables were
    allocated up to the id, 2.5 GB for a 26-byte input declaring 2**26 names)."""
    top = HUGE
    data = delimited(
        options_row(names=top, prefixes=top, datatypes=top),
        entry_row(10, top, "http://example.org/"),
        entry_row(9, top, "s"),
        entry_row(9, top - 1, "p"),
        entry_row(11, top, "http://example.org/dt"),
        ld(1, ld(2, ld(1, iri(top, top)) + ld(5, iri(0, top - 1))        # prefix id 0: previous
                 + ld(11, ld(1, b"v") + b"\x18" + enc_varint(top)))))
    got, peak = peak_of(lambda: list(jelly.parse(data, limits=RAISED)))
    assert got == [(IRI("http://example.org/s"), IRI("http://example.org/p"),
                    Literal("v", datatype="http://example.org/dt"))]
    assert peak < 1_000_000, peak
    # an id never defined is still an error, a defined sparse one still resolves in later rows
    bad = delimited(options_row(names=top), entry_row(9, top, "s"),
                    ld(1, ld(2, ld(1, iri(0, top - 1)) + ld(5, iri(0, top)) + ld(9, iri(0, top)))))
    with pytest.raises(jelly.JellyDecodeError, match="used before it is defined"):
        list(jelly.parse(bad, limits=RAISED))


def test_sparse_entries_move_into_the_dense_table():
    """A slot defined while sparse stays defined when enough entries make the table dense
    there; a prefix rewritten afterwards is seen by IRIs built from it."""
    n = 1000
    rows = [options_row(names=4 * n, prefixes=4 * n), entry_row(10, 1, "http://a/"),
            entry_row(9, 3 * n, "far"), entry_row(10, 3 * n, "http://far/")]
    rows += [entry_row(9, i, f"n{i}") for i in range(1, n + 1)]      # grows the dense part
    rows += [entry_row(10, i, f"http://p{i}/") for i in range(2, n + 1)]
    st = ld(1, ld(2, ld(1, iri(3 * n, 3 * n)) + ld(5, iri(1, 1)) + ld(9, iri(n, n))))
    rows += [st, entry_row(10, 3 * n, "http://new/"), st]
    got = list(jelly.parse(delimited(*rows), limits=RAISED))
    want = (IRI("http://far/far"), IRI("http://a/n1"), IRI(f"http://p{n}/n{n}"))
    assert got == [want, (IRI("http://new/far"),) + want[1:]]


def test_transcoder_tables_follow_use_not_declared_size():
    """The transcoder's output options default to the input's: an input declaring 2**26
    names per table took 6 GB and 44 s before, in 24 bytes."""
    from jelly.transcode import transcode
    n = 2**26
    data = delimited(options_row(names=n, prefixes=n, datatypes=n))
    out = io.BytesIO()
    _, peak = peak_of(lambda: transcode(data, out, limits=RAISED))
    assert jelly.read_options(out.getvalue(), limits=RAISED).max_name_table_size == n
    assert peak < 2_000_000, peak


def test_raised_frame_limit_reads_what_is_there(tmp_path):
    """A frame declaring 2**40 bytes with max_frame_size raised: a truncation error, no
    allocation of the declared length (before: a raw MemoryError from read()); also from a
    file, whose large frames are read straight into their buffer (bounded by what is read,
    a megabyte of it here)."""
    limits = jelly.ReaderLimits(max_frame_size=2**62)
    data = bytes.fromhex("8080808080200a020a00")
    path = tmp_path / "declared.jelly"
    path.write_bytes(data + b"\x00" * (1 << 20))
    for source in (data, io.BytesIO(data), NoDataYet(data), str(path)):
        with pytest.raises(jelly.JellyTruncatedError):
            list(jelly.parse(source, limits=limits))


# ---------------------------------------------------------------------------------------------
# broken compressed input (found by the fuzzer: rdf-protobuf, crash-2144631d...)
# ---------------------------------------------------------------------------------------------

BROKEN_GZIP = [
    bytes.fromhex("1f8b0a0600000001"),                  # unknown compression method
    __import__("gzip").compress(b"<http://e/a> <http://e/b> <http://e/c> .\n" * 20000)[:300],
]


@pytest.mark.parametrize("data", BROKEN_GZIP, ids=["bad-method", "truncated"])
def test_broken_gzip_is_a_decode_error_in_every_reader(data, tmp_path):
    """Before: BadGzipFile / EOFError escaped from the Jena readers and, through
    jelly.convert, from the N-Triples and pyoxigraph readers."""
    from jelly.convert import convert
    readers = {
        "jelly": lambda: list(jelly.parse(data)),
        "thrift": lambda: list(jelly.jena.parse(data, format="thrift")),
        "protobuf": lambda: list(jelly.jena.parse(data, format="protobuf")),
        "results": lambda: list(jelly.jena.read_results(data, format="protobuf")),
    }
    for ext in ("nt", "ttl"):
        path = tmp_path / f"in.{ext}.gz"
        path.write_bytes(data)
        readers[ext] = lambda path=path: convert(path, io.BytesIO(), to_format="jelly")
    for name, read in readers.items():
        with pytest.raises(jelly.JellyDecodeError):   # the truncated one may fail earlier
            read()


# ---------------------------------------------------------------------------------------------
# smaller
# ---------------------------------------------------------------------------------------------

def test_serialize_refuses_none_anywhere():
    t = (IRI("http://example.org/s"), IRI("http://example.org/p"), IRI("http://example.org/o"))
    for statements in ([None, t], [t, None], [None]):
        with pytest.raises(jelly.JellyEncodeError, match="NoneType"):
            jelly.serialize(statements)
        with pytest.raises(jelly.JellyEncodeError, match="NoneType"):
            jelly.serialize(iter(statements))


def test_empty_frames_are_counted_not_decoded():
    """A stream of empty frames: statements stream past them, frame numbers in errors stay
    right (the empty frames are skipped without decoding)."""
    s = IRI("http://example.org/s")
    first = delimited(options_row(), entry_row(9, 1, "http://example.org/s"),
                      ld(1, ld(2, ld(1, iri(0, 1)) + ld(5, iri(0, 1)) + ld(9, iri(0, 1)))))
    data = first + b"\x00" * 10_000 + delimited(ld(1, ld(2, b"")))
    assert list(jelly.parse(data)) == [(s, s, s)] * 2
    with jelly.Reader(data) as reader:
        assert len(list(reader)) == 2 and reader.frame_count == 10_002
    bad = first + b"\x00" * 500 + delimited(ld(1, ld(2, ld(1, iri(0, 7)))))
    with pytest.raises(jelly.JellyDecodeError) as exc:
        list(jelly.parse(bad))
    assert exc.value.frame == 501
