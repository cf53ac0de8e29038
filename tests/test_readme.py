"""The README and the performance recipe as written.

* The first Quick start command installs the package and nothing else (its dependencies are
  those of ``[project] dependencies``: no extra), then converts the shipped example: the
  ``jelly ...`` parts of the block run here as written, in a scratch directory holding the
  example (reinstalling the package in a test would take minutes and the network; the
  ``pip install .`` part is checked to be exactly that, and the package metadata to need no
  extra for ``jelly convert`` of N-Triples).
* The second command is the one ``.ci/run`` runs; the README says that the Spark tests need
  Java 17 and that ``.ci/run`` installs it.
* ``docs/performance.md``: its install line names an extra that exists, without
  ``--no-build-isolation`` (which needs Cython already installed); every ``bench.py`` line
  parses with bench.py's own arguments; bench.py without matplotlib still finishes.

That Spark finds the ``jelly`` data source without ``jelly.spark.register`` in this (editable)
install is checked in ``test_spark_install.py``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from helpers import REPO_ROOT
from oracle import jelly_rdf as rd

README = (REPO_ROOT / "README.md").read_text()
PERFORMANCE = (REPO_ROOT / "docs" / "performance.md").read_text()
CI = (REPO_ROOT / ".ci" / "run").read_text()


def sh_blocks(text: str, section: str) -> list[str]:
    """The ``sh`` code blocks of a section (from its heading to the next one)."""
    start = text.index(section)
    end = text.find("\n## ", start + len(section))
    body = text[start:end if end >= 0 else None]
    return [m.group(1) for m in re.finditer(r"```sh\n(.*?)```", body, re.S)]


def commands(block: str) -> list[list[str]]:
    """The commands of a block: lines joined at a trailing backslash, split at ``&&``,
    comments dropped."""
    joined = block.replace("\\\n", " ")
    out = []
    for line in joined.splitlines():
        for part in line.split("&&"):
            words = shlex.split(part, comments=True)
            if words:
                out.append(words)
    return out


def pyproject() -> dict:
    import tomllib
    with open(REPO_ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def test_quick_start_has_two_commands():
    assert len(sh_blocks(README, "## Quick start")) == 2


def test_first_command_installs_jelly_only_and_converts_the_example(tmp_path):
    first = commands(sh_blocks(README, "## Quick start")[0])
    assert first[0] == ["pip", "install", "."]
    assert pyproject()["project"]["dependencies"] == ["tqdm>=4.60"]
    runs = first[1:]
    assert runs and all(c[0] == "jelly" for c in runs)
    example = tmp_path / "examples" / "data"
    example.mkdir(parents=True)
    shutil.copy(REPO_ROOT / "examples" / "data" / "sensors.nt", example)
    jelly_bin = os.path.join(os.path.dirname(sys.executable), "jelly")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    outputs = []
    for argv in runs:
        proc = subprocess.run([jelly_bin, *argv[1:]], cwd=tmp_path, capture_output=True,
                              text=True, env=env, timeout=120)
        assert proc.returncode == 0, (argv, proc.stderr)
        assert proc.stderr == ""
        outputs.append(proc.stdout)
    _, frames = rd.decode((tmp_path / "sensors.jelly").read_bytes())
    assert sum(len(f) for f in frames) == 420
    assert re.search(r"total\s+\d+\s+1\s+420\s", outputs[-1])


def test_second_command_is_what_ci_runs():
    second = sh_blocks(README, "## Quick start")[1].strip()
    assert commands(second) == [["python", "-m", "pip", "install", "-e", ".[test]"],
                                ["python", "-m", "pytest", "-q"]]
    ci_commands = [ln.strip() for ln in CI.splitlines() if ln and not ln.startswith((" ", "#"))]
    # CI runs more after it (the AddressSanitizer step), so it stops there on failure.
    assert f"{second} || exit 1" in ci_commands
    assert "openjdk-17" in CI
    quick = README[README.index("## Quick start"):README.index("## Python API")]
    assert "Java 17" in quick and "`.ci/run` installs OpenJDK 17" in quick


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_under_test",
                                                  REPO_ROOT / "benchmarks" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_performance_recipe():
    block = sh_blocks(PERFORMANCE, "## Running it")[0]
    cmds = commands(block)
    pip = [c for c in cmds if c[:2] == ["pip", "install"]]
    assert len(pip) == 1 and "--no-build-isolation" not in pip[0]
    extra = re.fullmatch(r"\.\[(\w+)\]", pip[0][-1]).group(1)
    extras = pyproject()["project"]["optional-dependencies"]
    assert extra in extras
    wanted = {re.split(r"[<>=\[]", d)[0].lower() for d in extras[extra]}
    assert {"pyjelly", "rdflib", "pyoxigraph", "zstandard"} <= wanted
    bench = load_bench()
    runs = [c for c in cmds if c[:2] == ["python", "benchmarks/bench.py"]]
    assert len(runs) >= 4
    for argv in runs:
        bench.parse_args(argv[2:])                      # exits on an unknown option


def test_bench_without_matplotlib(tmp_path, monkeypatch, capsys):
    bench = load_bench()
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    report = {"datasets": [{"name": "d", "statements": 1}], "date": "today",
              "results": [{"key": "jelly/parse", "dataset": "d", "rate": 1.0}]}
    assert bench.chart(report, str(tmp_path / "chart.png")) is False
    assert "matplotlib is not installed" in capsys.readouterr().err
    assert not (tmp_path / "chart.png").exists()
