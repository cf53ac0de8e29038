"""The code of README.md and docs/ runs as a reader would run it.

* Every ``jelly`` command of their ``sh`` blocks exits 0 in a directory holding the files it
  names (made from the shipped example).  The broker's commands (``serve``, ``publish``,
  ``subscribe``) run until stopped, so here they are only parsed; test_grpc.py runs them.
* The ``python`` blocks of each document run in order in one namespace, as pasted one after
  the other, with the values the prose names (``statements``, ``graph``, ...; see
  docsnippets.py).  The blocks listed in ``ELSEWHERE`` are compiled here and run elsewhere or
  not at all, for the reason given.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys

import pytest

import docsnippets
import helpers
from docsnippets import DOCS, ELSEWHERE, blocks, elsewhere, label

BROKER_COMMANDS = ("serve", "publish", "subscribe")


def jelly_commands(doc) -> list[tuple[int, str]]:
    """``(line, command)`` of each ``jelly`` command of the doc's sh blocks: lines joined at a
    trailing backslash, comments dropped; a command stays in its pipeline, so that what feeds
    it (``cat a.jelly b.jelly |``, ``< data.rt``) feeds it here too."""
    out = []
    for line, block in blocks(doc, "sh"):
        for i, text in enumerate(block.replace("\\\n", " ").splitlines()):
            command = " ".join(shlex.split(text, comments=True))
            if re.search(r"(^|[|&;]\s*)jelly\s", command):
                out.append((line + i, text.split("  #")[0].strip().rstrip("&").strip()))
    return out


def _env() -> dict:
    """The ``jelly`` command of this interpreter first on the PATH, importing the jelly these
    tests import (as test_examples.py runs the shell examples)."""
    env = helpers.jelly_subprocess_env()
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return docsnippets.workdir(tmp_path_factory.mktemp("docs"))


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_the_jelly_commands_of_the_docs_run(doc, files):
    env = _env()
    ran = 0
    for line, command in jelly_commands(doc):
        if "pip install" in command:
            continue            # test_readme.py checks the Quick start's install
        words = shlex.split(command)
        argv = words[words.index("jelly") + 1:]
        if argv[0] in BROKER_COMMANDS:
            from jelly.cli import build_parser
            with contextlib.redirect_stderr(io.StringIO()) as err:
                try:
                    build_parser(argv[0]).parse_args(argv)
                except SystemExit:
                    pytest.fail(f"{label(doc, line)}: {command}: {err.getvalue()}")
            continue
        proc = subprocess.run(["bash", "-o", "pipefail", "-c", command + " > /dev/null"],
                              cwd=files, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, f"{label(doc, line)}: {command}: {proc.stderr}"
        assert "Traceback" not in proc.stderr
        ran += 1
    if doc.name in ("README.md", "jena.md", "patch.md"):
        assert ran >= 5, "the commands of this document were not found"


@pytest.mark.parametrize("doc", [d for d in DOCS if blocks(d, "python")], ids=lambda d: d.name)
def test_the_python_blocks_of_the_docs_run(doc, files, monkeypatch, request):
    monkeypatch.chdir(files)
    namespace = docsnippets.names(files)
    namespace["sock"] = sock = docsnippets.sending(files / "data.jelly")
    request.addfinalizer(sock.close)
    for line, code in blocks(doc, "python"):
        compiled = compile(code, label(doc, line), "exec")
        if elsewhere(code):
            continue
        try:
            exec(compiled, namespace)
        except Exception as exc:
            pytest.fail(f"{label(doc, line)}: {type(exc).__name__}: {exc}")


def transcripts(doc) -> list[tuple[int, str, str]]:
    """``(line, command, shown)`` of each ``$ command`` of the doc's plain blocks, with the
    lines shown after it (up to the next command or the end of the block)."""
    out = []
    for line, block in blocks(doc, ""):
        lines = block.splitlines()
        starts = [i for i, text in enumerate(lines) if text.startswith("$ ")]
        for k, i in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(lines)
            out.append((line + i, lines[i][2:], "\n".join(lines[i + 1:end]).strip()))
    return out


@pytest.mark.parametrize("doc", [d for d in DOCS if transcripts(d)], ids=lambda d: d.name)
def test_the_transcripts_of_the_docs_show_what_the_commands_print(doc, tmp_path):
    """``$ cat FILE`` makes the file the doc shows; any other command prints what the doc shows
    (stdout then stderr; spaces and line breaks aside: the doc wraps long lines)."""
    env = _env()
    for line, command, shown in transcripts(doc):
        words = shlex.split(command)
        if words[0] == "cat" and len(words) == 2:
            (tmp_path / words[1]).write_text(shown + "\n")
            continue
        proc = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert (proc.stdout + proc.stderr).split() == shown.split(), \
            f"{label(doc, line)}: {command}"


def test_every_block_listed_as_run_elsewhere_is_still_there():
    """A phrase of ELSEWHERE that no block has any more would keep a block out silently."""
    codes = [code for doc in DOCS for _, code in blocks(doc, "python")]
    for phrase in ELSEWHERE:
        assert sum(phrase in code for code in codes) >= 1, phrase
    not_run = [code for code in codes if elsewhere(code)]
    assert len(not_run) == 8
