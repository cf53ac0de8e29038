"""The plain random-mutation engine (used where atheris is not installed, and by the short
run in the test suite): inputs are seeds mutated a few times over (bit flips, interesting
bytes and varints, insertions, deletions, duplicated and spliced slices, truncation).  A run is
reproducible from its seed."""

from __future__ import annotations

import dataclasses
import faulthandler
import os
import random
import time
import traceback
from pathlib import Path
from typing import Callable

from targets import Escape, Target

CORPUS = Path(__file__).resolve().parent / "corpus"

# Values that sit on boundaries of varints, ids, table sizes and lengths.
INTERESTING = [0, 1, 2, 7, 8, 63, 64, 127, 128, 255, 256, 4095, 4096, 16383, 16384,
               2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1]


def varint(v: int) -> bytes:
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def load_corpus(target: Target) -> list[bytes]:
    d = CORPUS / target.corpus
    seeds = [p.read_bytes() for p in sorted(d.iterdir())] if d.is_dir() else []
    return seeds or [b""]


def mutate(rng: random.Random, data: bytes, corpus: list[bytes]) -> bytes:
    b = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4, 8))):
        i = rng.randrange(len(b) + 1)
        op = rng.randrange(10)
        if op == 0 and b:                               # flip a bit
            i = min(i, len(b) - 1)
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1 and b:                             # an interesting byte
            i = min(i, len(b) - 1)
            b[i] = rng.choice((0x00, 0x01, 0x0A, 0x12, 0x7F, 0x80, 0xFF, rng.randrange(256)))
        elif op == 2:                                   # an interesting varint, replacing 0-3
            b[i:i + rng.randrange(4)] = varint(rng.choice(INTERESTING))
        elif op == 3:                                   # random bytes
            b[i:i] = os.urandom(rng.randint(1, 8)) if rng.random() < 0.1 else \
                bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 4:                                   # delete a slice
            del b[i:i + rng.randint(1, 16)]
        elif op == 5 and b:                             # duplicate a slice (rows, fields)
            j = min(len(b), i + rng.randint(1, 64))
            b[j:j] = b[i:j]
        elif op == 6:                                   # splice another input in
            other = rng.choice(corpus)
            if other:
                a = rng.randrange(len(other))
                b[i:i] = other[a:a + rng.randint(1, 256)]
        elif op == 7 and b:                             # truncate
            del b[rng.randrange(len(b)):]
        elif op == 8 and b:                             # a byte +-1 (lengths, ids)
            i = min(i, len(b) - 1)
            b[i] = (b[i] + rng.choice((-1, 1))) & 0xFF
        elif op == 9 and len(b) > 1:                    # swap two bytes
            j = rng.randrange(len(b))
            i = min(i, len(b) - 1)
            b[i], b[j] = b[j], b[i]
    return bytes(b)


@dataclasses.dataclass
class Stats:
    target: str
    executions: int = 0
    seconds: float = 0.0
    outcomes: dict[str, int] = dataclasses.field(default_factory=dict)
    escapes: list[tuple[bytes, str]] = dataclasses.field(default_factory=list)

    def line(self) -> str:
        outcomes = ", ".join(f"{k}: {v}" for k, v in sorted(self.outcomes.items()))
        return (f"{self.target}: {self.executions} executions in {self.seconds:.0f} s "
                f"({self.executions / max(self.seconds, 1e-9):.0f}/s), {len(self.escapes)} "
                f"escapes; {outcomes}")


def run(target: Target, *, runs: int | None = None, seconds: float | None = None,
        seed: int = 0, corpus: list[bytes] | None = None, current: Path | None = None,
        on_escape: Callable[[bytes, str], None] | None = None,
        max_escapes: int = 10, timeout: float | None = None) -> Stats:
    """Check the seeds, then mutated inputs, until ``runs`` executions or ``seconds`` have
    passed.  ``current``: a file that always holds the input being checked (what a crash
    leaves behind); ``timeout``: seconds after which one input counts as a hang (the
    process prints its stack and exits).  Escapes are collected (and passed to
    ``on_escape``)."""
    rng = random.Random(seed)
    seeds = corpus if corpus is not None else load_corpus(target)
    stats = Stats(target.name)
    fd = os.open(current, os.O_WRONLY | os.O_CREAT, 0o644) if current else -1
    start = time.monotonic()
    deadline = start + seconds if seconds is not None else None
    try:
        n = 0
        while (runs is None or n < runs) and len(stats.escapes) < max_escapes:
            if deadline is not None and n % 16 == 0 and time.monotonic() >= deadline:
                break
            data = seeds[n] if n < len(seeds) else mutate(rng, rng.choice(seeds), seeds)
            if fd >= 0:
                os.pwrite(fd, data, 0)
                os.ftruncate(fd, len(data))
            if timeout:
                faulthandler.dump_traceback_later(timeout, exit=True)
            try:
                outcome = target.check(data)
            except Escape:
                outcome = "escape"
                stats.escapes.append((data, traceback.format_exc()))
                if on_escape is not None:
                    on_escape(data, traceback.format_exc())
            stats.outcomes[outcome] = stats.outcomes.get(outcome, 0) + 1
            n += 1
        stats.executions = n
    finally:
        stats.seconds = time.monotonic() - start
        if timeout:
            faulthandler.cancel_dump_traceback_later()
        if fd >= 0:
            os.close(fd)
    return stats
