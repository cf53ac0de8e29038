"""The fuzz harness (``fuzz/``) in the test suite: the short run.

For every target of ``fuzz/targets.py``: its checked-in seed corpus replayed (every seed:
nothing but a JellyError escapes, what is accepted reads back the same), a few seconds of
random mutation from a fixed seed (``JELLY_FUZZ_SECONDS`` per target, default 5), and a
short coverage-guided atheris run in a child process.  The long runs are in
``fuzz/README.md``; their numbers in ``docs/robustness.md``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FUZZ = REPO / "fuzz"
sys.path.insert(0, str(FUZZ))

import engine  # noqa: E402
import targets  # noqa: E402

SECONDS = float(os.environ.get("JELLY_FUZZ_SECONDS", "5"))


@pytest.fixture(params=targets.TARGETS, ids=lambda t: t.name)
def target(request):
    return request.param


def _report(stats) -> str:
    return "\n\n".join(f"input {data!r:.400}\n{trace}" for data, trace in stats.escapes[:3])


def test_seed_corpus(target):
    seeds = engine.load_corpus(target)
    assert len(seeds) >= 3, f"no seed corpus for {target.name}"
    stats = engine.run(target, runs=len(seeds), corpus=seeds)
    assert not stats.escapes, _report(stats)
    # the seeds are inputs the reader accepts
    assert stats.outcomes.get(targets.ACCEPTED, 0) >= len(seeds) // 2, stats.line()


def test_short_random_run(target):
    stats = engine.run(target, seconds=SECONDS, seed=zlib.crc32(target.name.encode()),
                       timeout=60)
    assert not stats.escapes, _report(stats)
    # the mutations reach both sides: inputs read back and inputs refused
    assert stats.outcomes.get(targets.ACCEPTED, 0) > 0, stats.line()
    assert stats.outcomes.get(targets.REJECTED, 0) > 0, stats.line()


def test_atheris_run(target, tmp_path):
    """libFuzzer through atheris drives the target (its Python coverage; native coverage
    needs the JELLY_SANITIZE=coverage build, see fuzz/README.md)."""
    import atheris  # noqa: F401 - part of the test extra: missing is a failure, not a skip
    proc = subprocess.run(
        [sys.executable, str(FUZZ / "run.py"), target.name, "--engine", "atheris", "--runs",
         "400", "--workdir", str(tmp_path)],
        capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Done 400 runs" in proc.stderr, proc.stderr[-4000:]
