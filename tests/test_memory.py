"""Reading the same input many times does not grow memory.

Every reader is run over the same input a number of times to warm up (caches, free lists,
interned strings reach their size), then many times more; the memory in use must not grow by
more than a tolerance that a leak of one object per statement, or of one reader's tables per
parse, would exceed many times over.  Memory is measured twice: ``tracemalloc`` (Python
objects and PyMem allocations) and glibc's ``mallinfo2`` (every ``malloc`` of the process,
where the compiled readers keep their tables), both after a garbage collection.
"""

from __future__ import annotations

import ctypes
import gc
import io
import tracemalloc

import pytest

import jelly
import jelly.jena
import jelly.patch
import jelly.rdfpatch
from jelly import BlankNode, IRI, Literal, Triple
from jelly._ntriples import parse_nquads

EX = "http://example.org/"
STATEMENTS = [(IRI(f"{EX}s{i % 50}"), IRI(f"{EX}p{i % 7}"),
               Literal(str(i), datatype=EX + "dt") if i % 3 else BlankNode(f"b{i}"))
              for i in range(2000)]
STAR = STATEMENTS[:500] + [(Triple(IRI(EX + "a"), IRI(EX + "b"), Literal("c")), IRI(EX + "p"),
                            IRI(EX + "o"))] * 100
JELLY = jelly.serialize(STAR, rdf_star=True, preset="small", rows_per_frame=100)
THRIFT = jelly.jena.serialize(STAR, format="thrift")
PROTOBUF = jelly.jena.serialize(STAR, format="protobuf")
NQUADS = "".join(f"{s} {p} {o} .\n" for s, p, o in STAR).encode()
PLAIN = jelly.serialize(STATEMENTS[:300], rows_per_frame=100)   # rdflib is slow


def _rdflib(data: bytes) -> int:
    import rdflib
    return len(rdflib.Graph().parse(data=data, format="jelly"))


def _transcode(data: bytes) -> int:
    from jelly.transcode import transcode
    out = io.BytesIO()
    return transcode(data, out, preset="small").statements


# RDF Patch text: a transaction adding and deleting statements (RDF Patch 1.0 syntax).
PATCH_TEXT = ("H id <urn:uuid:0b6c5a86-0d9b-4c4e-9c1e-2b2d7f7a1c01> .\nTX .\n"
              "PA \"ex\" <http://example.org/> .\n"
              + "".join(f"A <{EX}s{i}> <{EX}p> \"{i}\" .\nD <{EX}s{i}> <{EX}p> <{EX}o> .\n"
                        for i in range(300))
              + "TC .\n").encode()


# Jelly-Patch: the same operations written by jelly.patch's writer.
PATCH_JELLY = jelly.patch.serialize(list(jelly.rdfpatch.parse(PATCH_TEXT)), preset="small",
                                    rows_per_frame=100)


READERS = {
    "jelly bytes": lambda: sum(1 for _ in jelly.parse(JELLY)),
    "jelly stream": lambda: sum(1 for _ in jelly.parse(io.BytesIO(JELLY))),
    "jelly frames": lambda: sum(len(f) for f in jelly.parse_frames(JELLY)),
    "jelly nt terms": lambda: sum(1 for _ in jelly.parse(JELLY, terms="nt")),
    "rdf thrift": lambda: sum(1 for _ in jelly.jena.parse(THRIFT, format="thrift")),
    "rdf protobuf": lambda: sum(1 for _ in jelly.jena.parse(PROTOBUF, format="protobuf")),
    "n-quads": lambda: sum(1 for _ in parse_nquads(NQUADS)),
    "transcoder": lambda: _transcode(JELLY),
    "rdflib": lambda: _rdflib(PLAIN),
    "jelly-patch": lambda: sum(1 for _ in jelly.patch.parse(PATCH_JELLY)),
    "rdf-patch": lambda: sum(1 for _ in jelly.rdfpatch.parse(PATCH_TEXT)),
}


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def _malloc_in_use() -> int:
    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = _Mallinfo2
    info = libc.mallinfo2()
    return info.uordblks + info.hblkhd


def _measure() -> tuple[int, int]:
    gc.collect()
    return tracemalloc.get_traced_memory()[0], _malloc_in_use()


# A leak of one small object per statement over the measured runs is at least half a
# megabyte; the jitter of a steady state (free lists and caches settling) was under 20 KB.
WARM_UP, RUNS, TOLERANCE = 10, 100, 128 * 1024


@pytest.mark.parametrize("name", list(READERS))
def test_reading_again_does_not_grow_memory(name):
    run = READERS[name]
    count = run()
    assert count >= 300
    runs = RUNS if count >= 500 else RUNS // 3      # rdflib: 9,000 statements read again
    tracemalloc.start()
    try:
        for _ in range(WARM_UP):
            assert run() == count
        before = _measure()
        for _ in range(runs):
            assert run() == count
        after = _measure()
    finally:
        tracemalloc.stop()
    grown = (after[0] - before[0], after[1] - before[1])
    assert grown[0] < TOLERANCE and grown[1] < TOLERANCE, \
        f"{name}: {runs} more reads grew Python memory by {grown[0]} and malloc by {grown[1]} bytes"


def test_the_measurement_sees_leaks():
    """The same measurement catches a leak of one object per statement, and one malloc'd
    block of 16 KiB per read (the size of one reader's small tables)."""
    kept: list[object] = []
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    blocks = []

    def leaky_python() -> None:
        kept.extend(object() for _ in range(1100))

    def leaky_malloc() -> None:
        blocks.append(libc.malloc(16 * 1024))

    tracemalloc.start()
    try:
        for leak, which in ((leaky_python, 0), (leaky_malloc, 1)):
            for _ in range(WARM_UP):
                leak()
            before = _measure()
            for _ in range(RUNS):
                leak()
            after = _measure()
            assert after[which] - before[which] > TOLERANCE, which
    finally:
        tracemalloc.stop()
        for b in blocks:
            libc.free(ctypes.c_void_p(b))
