"""Robustness of jelly's reader: truncated, mutated, streamed and compressed input.

* Every valid conformance file cut at every byte: ``parse_frames`` gives exactly the frames
  complete before the cut (a cut on a frame boundary must succeed, a cut inside a frame must
  raise JellyError), and frames yielded before an error are the right ones.
* Random mutations: statements or JellyError, never another exception (also through
  ``parse``, ``read_options`` and ``Reader``-less streaming).
* The same input read from a non-seekable stream that returns a few bytes per read(), from a
  real OS pipe, and gzip-compressed, gives the same frames (and the same errors).

Expected frames come from parsing the whole file (checked against the reference decoder
here too) and from the byte offsets of the delimited frames, computed independently by
wire.split_frames.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import random
import threading

import pytest

import helpers
from oracle import isomorphism as iso, jelly_rdf as rd, wire


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------

def frame_key(frame):
    """A comparable summary of a jelly frame (statements, namespaces, metadata)."""
    return (frame.index,
            tuple(helpers.from_jelly(s) for s in frame.statements),
            tuple((n, helpers.from_jelly(v)) for n, v in frame.namespaces),
            tuple(sorted(dict(frame.metadata).items())))


def collect(jelly, source):
    """Iterate parse_frames(source); -> (frame keys yielded, JellyError or None).
    Any other exception propagates (and fails the test)."""
    got = []
    try:
        for f in jelly.parse_frames(source):
            got.append(frame_key(f))
    except jelly.JellyError as e:
        return got, e
    return got, None


def frame_ends(data: bytes):
    """End offsets of the delimited frames (independent of jelly)."""
    ends, pos = [], 0
    while pos < len(data):
        n, pos = wire.read_varint(data, pos)
        pos += n
        ends.append(pos)
    assert pos == len(data)
    return ends


def unique_valid_files():
    seen, out = set(), []
    for cid, path in helpers.valid_jelly_files():
        data = path.read_bytes()
        h = hashlib.sha256(data).hexdigest()
        if h not in seen:
            seen.add(h)
            out.append((cid, data))
    return out


class Trickle(io.RawIOBase):
    """A non-seekable binary stream returning at most a few bytes per read()."""

    def __init__(self, data: bytes, seed: int = 0, max_chunk: int = 7):
        self._data = data
        self._pos = 0
        self._rng = random.Random(seed)
        self._max = max_chunk

    def readable(self):
        return True

    def seekable(self):
        return False

    def seek(self, *a, **k):
        raise io.UnsupportedOperation("not seekable")

    def tell(self):
        raise io.UnsupportedOperation("not seekable")

    def readinto(self, b):
        n = min(len(b), self._rng.randint(1, self._max), len(self._data) - self._pos)
        if n <= 0:
            return 0
        b[:n] = self._data[self._pos:self._pos + n]
        self._pos += n
        return n


class ReadOnly:
    """Not an io.IOBase at all: only read(n) (returns small pieces), nothing else."""

    def __init__(self, data: bytes, seed: int = 0):
        self._data = data
        self._pos = 0
        self._rng = random.Random(seed)

    def read(self, n=-1):
        if n is None or n < 0:
            n = len(self._data) - self._pos
        k = min(n, self._rng.randint(1, 5))
        out = self._data[self._pos:self._pos + k]
        self._pos += len(out)
        return out


def via_pipe(jelly, data: bytes):
    """Feed data through a real OS pipe from a writer thread; collect frames."""
    r, w = os.pipe()

    def writer():
        with open(w, "wb", buffering=0) as fh:
            for i in range(0, len(data), 3):
                try:
                    fh.write(data[i:i + 3])
                except BrokenPipeError:
                    return

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    try:
        with open(r, "rb", buffering=0) as fh:
            result = collect(jelly, fh)
            fh.read()  # drain so the writer finishes
    finally:
        t.join(10)
    assert not t.is_alive()
    return result


# --------------------------------------------------------------------------------------
# whole files: the baseline used below is right
# --------------------------------------------------------------------------------------

def test_whole_files_match_oracle(valid_jelly, jelly):
    cid, path = valid_jelly
    data = path.read_bytes()
    got, err = collect(jelly, data)
    assert err is None, f"{cid}: {err}"
    ref = rd.decode_full(data)
    assert len(got) == len(ref.frames)
    for g, r in zip(got, ref.frames):
        assert iso.ordered_isomorphic(list(g[1]), r.statements), cid
        assert list(g[2]) == r.namespaces and dict(g[3]) == r.metadata


# --------------------------------------------------------------------------------------
# truncation at every byte
# --------------------------------------------------------------------------------------

def test_truncation_every_byte(jelly):
    files = unique_valid_files()
    assert len(files) > 50
    checked = 0
    for cid, data in files:
        full, err = collect(jelly, data)
        assert err is None, f"{cid}: {err}"
        if not wire.is_delimited(data):
            # A single non-delimited frame: a prefix may happen to be a valid (shorter)
            # frame; then its statements are a prefix of the whole frame's statements, and
            # anything accepted must be what the oracle reads from the same bytes.
            for k in range(len(data)):
                got, e = collect(jelly, data[:k])
                if e is None:
                    assert len(got) <= 1, (cid, k)
                    if got:
                        assert got[0][1] == full[0][1][:len(got[0][1])], (cid, k)
                        ref = rd.decode_full(data[:k], strict=False)
                        assert [list(g[1]) for g in got] == ref.statement_frames, (cid, k)
                checked += 1
            continue
        ends = set(frame_ends(data))
        for k in range(len(data)):
            got, e = collect(jelly, data[:k])
            complete = sum(1 for end in ends if end <= k)
            if k == 0 or k in ends:
                assert e is None, f"{cid}: cut at frame boundary {k} rejected: {e}"
                assert got == full[:complete], f"{cid}: cut at {k}"
            else:
                assert e is not None, \
                    f"{cid}: cut inside a frame at byte {k}/{len(data)} was not reported"
                assert got == full[:len(got)] and len(got) <= complete, \
                    f"{cid}: wrong frames before the error at cut {k}"
            checked += 1
    assert checked > 50_000


def test_truncation_through_trickle_stream(jelly):
    """Cuts read through a non-seekable stream behave the same as cuts of bytes."""
    rng = random.Random(5)
    for cid, data in unique_valid_files()[::3]:
        for k in sorted(rng.sample(range(len(data) + 1), min(25, len(data) + 1))):
            want = collect(jelly, data[:k])
            got = collect(jelly, Trickle(data[:k], seed=k))
            assert got[0] == want[0], (cid, k)
            assert (got[1] is None) == (want[1] is None), (cid, k, got[1], want[1])


# --------------------------------------------------------------------------------------
# mutations: never anything but JellyError
# --------------------------------------------------------------------------------------

def _mutate(rng, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.choice([1, 1, 2, 4, 8])):
        if not b:
            b.append(rng.randrange(256))
            continue
        i = rng.randrange(len(b))
        op = rng.random()
        if op < 0.35:
            b[i] ^= 1 << rng.randrange(8)
        elif op < 0.55:
            b[i] = rng.choice([0x00, 0x0A, 0x12, 0x7F, 0x80, 0xFF, rng.randrange(256)])
        elif op < 0.7:
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        elif op < 0.85:
            del b[i:i + rng.randint(1, 4)]
        else:  # duplicate a slice (repeats rows / fields)
            j = min(len(b), i + rng.randint(1, 16))
            b[j:j] = b[i:j]
    return bytes(b)


def test_mutations_only_jelly_errors(jelly):
    rng = random.Random(99)
    files = [d for _, d in unique_valid_files()]
    outcomes = {"ok": 0, "error": 0}
    for n in range(3000):
        data = _mutate(rng, rng.choice(files))
        _, err = collect(jelly, data)
        outcomes["error" if err else "ok"] += 1
        # the flat API and read_options: same rule
        try:
            list(jelly.parse(data))
        except jelly.JellyError:
            pass
        try:
            jelly.read_options(data)
        except jelly.JellyError:
            pass
        if n % 10 == 0:  # and the same through a stream
            s_got, s_err = collect(jelly, Trickle(data, seed=n))
            b_got, b_err = collect(jelly, data)
            assert s_got == b_got and (s_err is None) == (b_err is None), data.hex()
    assert outcomes["ok"] > 100 and outcomes["error"] > 1000, outcomes


def test_jelly_text_mutations_only_jelly_errors(jelly):
    """The compiled Jelly-Text parser on the text of valid files with pieces of its syntax
    inserted and bytes dropped: a frame, which prints to text that reads back to it, or
    JellyError, never another exception (the test runs under AddressSanitizer in CI, where
    a read past the text would stop it)."""
    from jelly.jellytext import dumps, frame_to_text, text_to_frame
    rng = random.Random(5)
    texts = [dumps(d) for _, d in unique_valid_files()[:40]]
    pieces = ['{', '}', '<', '>', ':', '"', "'", '\\', '"\\', '"\\x', '"\\u12', '"\\U0010ffff"',
              '"\\U00110000"', '"\\777"', '0x', '0x1F', '-', '-7', '09', '18446744073709551616',
              '# c', '\n', 'é', 'rows', 'name_id', '99:', '4: 0x0000002a', 'true', 'NOPE']
    outcomes = {"ok": 0, "error": 0}
    for _ in range(3000):
        text = rng.choice(texts)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text) + 1)
            if rng.random() < 0.7:
                text = text[:at] + rng.choice(pieces) + text[at:]
            else:
                text = text[:at] + text[at + rng.randint(1, 8):]
        try:
            frame = text_to_frame(text, 1)
            outcomes["ok"] += 1
        except jelly.JellyError:
            outcomes["error"] += 1
            continue
        assert text_to_frame(frame_to_text(frame)) == frame     # printed and read back
        assert text_to_frame(text, 1, True) == wire.enc_varint(len(frame)) + frame
    assert outcomes["ok"] > 100 and outcomes["error"] > 1000, outcomes


def test_error_is_sticky(jelly):
    """After an error the iterator is finished (or keeps failing): no garbage afterwards."""
    rng = random.Random(3)
    files = [d for _, d in unique_valid_files()]
    for _ in range(300):
        data = _mutate(rng, rng.choice(files))
        it = iter(jelly.parse_frames(data))
        try:
            for _f in it:
                pass
        except jelly.JellyError:
            try:
                nxt = next(it)
            except StopIteration:
                continue
            except jelly.JellyError:
                continue
            pytest.fail(f"iterator yielded {nxt!r} after an error; input {data.hex()}")


# --------------------------------------------------------------------------------------
# streams and compression
# --------------------------------------------------------------------------------------

def test_non_seekable_streams(valid_jelly, jelly, tmp_path):
    cid, path = valid_jelly
    data = path.read_bytes()
    want, err = collect(jelly, data)
    assert err is None
    assert collect(jelly, Trickle(data, seed=1)) == (want, None), cid
    assert collect(jelly, Trickle(data, seed=2, max_chunk=1)) == (want, None), cid
    assert collect(jelly, ReadOnly(data, seed=3)) == (want, None), cid
    assert collect(jelly, io.BytesIO(data)) == (want, None), cid
    assert collect(jelly, str(path)) == (want, None), cid
    assert collect(jelly, path) == (want, None), cid
    with open(path, "rb") as fh:
        assert collect(jelly, fh) == (want, None), cid
    assert via_pipe(jelly, data) == (want, None), cid


def test_gzip_input(valid_jelly, jelly, tmp_path):
    cid, path = valid_jelly
    data = path.read_bytes()
    want, err = collect(jelly, data)
    assert err is None
    gz = gzip.compress(data)
    assert collect(jelly, gz) == (want, None), cid
    assert collect(jelly, Trickle(gz, seed=4)) == (want, None), cid
    gzpath = tmp_path / "in.jelly.gz"
    gzpath.write_bytes(gz)
    assert collect(jelly, str(gzpath)) == (want, None), cid
    assert via_pipe(jelly, gz) == (want, None), cid
    # options through gzip
    o1, o2 = jelly.read_options(data), jelly.read_options(gz)
    assert o1 == o2


def test_gzip_truncated_and_corrupt(jelly):
    rng = random.Random(11)
    for cid, data in unique_valid_files()[::5]:
        gz = gzip.compress(data)
        full, _ = collect(jelly, data)
        for k in sorted(rng.sample(range(len(gz)), min(20, len(gz)))):
            got, err = collect(jelly, gz[:k])
            # a truncated gzip member is an error; frames before it must be right
            assert err is not None, (cid, k)
            assert got == full[:len(got)], (cid, k)
        for _ in range(10):
            b = bytearray(gz)
            i = rng.randrange(10, len(b))  # keep the magic so it is read as gzip
            b[i] ^= 1 << rng.randrange(8)
            collect(jelly, bytes(b))  # anything but JellyError propagates


def test_empty_and_tiny_inputs(jelly):
    for data in [b"", b"\x00", b"\x0a", b"\x0a\x0a", b"\x0a\x0a\x0a", b"\x1f\x8b",
                 b"\x1f\x8b\x08", b"\xff" * 11, b"\x80" * 10 + b"\x00", b"\x05abc"]:
        collect(jelly, data)
        collect(jelly, Trickle(data))
