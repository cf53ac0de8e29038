"""The W3C RDF test suites (N-Triples, N-Quads, Turtle, TriG; RDF 1.1 and RDF 1.2) through
``jelly convert``, from their manifests (where the suites come from: tests/w3c_suites.py).

* positive syntax: the input converts to N-Quads (isomorphic to what the independent oracle
  reads, for N-Triples / N-Quads), and to Jelly and back, isomorphic;
* negative syntax: ``jelly convert`` exits 1 with a one-line message;
* eval (Turtle, TriG): through Jelly and back, isomorphic to the expected result;
* C14N (RDF 1.2 N-Triples / N-Quads): our N-Quads output is the canonical form;
* a literal with a base direction (RDF 1.2) cannot be written in Jelly 1.1: converting it to
  Jelly fails with that message (the N-Quads conversion keeps it).

Every suite runs with ``--syntax rdf12`` (the W3C grammars); the RDF 1.1 positive tests also
without it (the default syntax accepts what RDF 1.1 and 1.2 do).  ``jelly convert`` runs in
this process (``jelly.cli.main``); test_cli.py runs the command itself.
"""

from __future__ import annotations

import re

import pytest

from jelly.cli import main
from oracle.isomorphism import unordered_isomorphic
from oracle.ntriples import parse_nquads as oracle_parse
from oracle.terms import nq_shape, walk

TEXT_FROM = {"nt": "nq", "nq": "nq", "ttl": "ttl", "trig": "trig"}


def _run(capsys, *argv) -> tuple[int, str]:
    capsys.readouterr()
    rc = main([str(a) for a in argv])
    return rc, capsys.readouterr().err


def _read(path) -> list:
    """The statements of an N-Triples / N-Quads file as a set (RDF graphs are sets)."""
    return list(dict.fromkeys(nq_shape(st) for st in oracle_parse(path.read_bytes())))


def _lower(t):
    if t[0] == "L" and t[2] is not None:
        return ("L", t[1], t[2].lower(), t[3])
    if t[0] == "T":
        return ("T",) + tuple(_lower(x) for x in t[1:])
    return t


def _lower_langs(statements) -> list:
    """Language tags compare case-insensitively in RDF; pyoxigraph (Turtle, TriG) writes them
    lowercase, the N-Triples parser keeps them as written."""
    return list(dict.fromkeys(tuple(_lower(t) for t in st) for st in statements))


def _directional(statements) -> bool:
    return any(t[0] == "L" and t[2] is not None and "--" in t[2]
               for st in statements for t in walk(st))


def _base_args(case) -> list:
    return ["--base", case.base] if case.base and case.kind in ("ttl", "trig") else []


def _one_line_error(rc: int, err: str, case) -> None:
    assert rc == 1, f"{case.id}: accepted, but the test is negative"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jelly: error: "), err


def _to_nquads(capsys, case, tmp_path, *extra) -> list:
    out = tmp_path / "direct.nq"
    rc, err = _run(capsys, "convert", case.action, out, "--from", TEXT_FROM[case.kind],
                   *_base_args(case), *extra)
    assert rc == 0, f"{case.id}: {err}"
    return _read(out)


def _through_jelly(capsys, case, tmp_path, expected: list) -> None:
    jelly = tmp_path / "data.jelly"
    rc, err = _run(capsys, "convert", case.action, jelly, "--from", TEXT_FROM[case.kind],
                   "--syntax", "rdf12", "--rdf-star", *_base_args(case))
    if _directional(expected):
        # Jelly 1.1 has no field for a base direction: refused, and said so (docs/rdf12.md)
        _one_line_error(rc, err, case)
        assert "base direction" in err and "Jelly 1.1" in err, err
        return
    assert rc == 0, f"{case.id}: {err}"
    back = tmp_path / "back.nq"
    rc, err = _run(capsys, "convert", jelly, back, "--syntax", "rdf12")
    assert rc == 0, f"{case.id}: {err}"
    got = _read(back)
    assert unordered_isomorphic(got, expected), f"{case.id}: {got} != {expected}"


_LANG = re.compile(r'(?<=")@([A-Za-z0-9-]+)')


def test_w3c(w3c_case, tmp_path, capsys):
    case = w3c_case
    if case.test == "negative":
        rc, err = _run(capsys, "convert", case.action, tmp_path / "out.jelly", "--from",
                       TEXT_FROM[case.kind], "--syntax", "rdf12", "--rdf-star",
                       *_base_args(case))
        _one_line_error(rc, err, case)
        if case.kind in ("nt", "nq"):
            assert "(at line " in err, err      # the N-Triples parser names line and column
        assert not (tmp_path / "out.jelly").exists()
        return
    direct = _to_nquads(capsys, case, tmp_path, "--syntax", "rdf12")
    if case.kind in ("nt", "nq"):
        expected = _read(case.action)
        assert unordered_isomorphic(direct, expected), f"{case.id}: {direct} != {expected}"
        if case.suite == "rdf11":
            default = _to_nquads(capsys, case, tmp_path)
            assert unordered_isomorphic(default, expected), case.id
    else:
        expected = direct = _lower_langs(direct)
    if case.test == "eval":
        result = _lower_langs(_read(case.result))
        assert unordered_isomorphic(direct, result), f"{case.id}: {direct} != {result}"
    if case.test == "c14n":
        ours = (tmp_path / "direct.nq").read_text(encoding="utf-8")
        canonical = case.result.read_text(encoding="utf-8")
        # we keep language tags as written (Jelly carries them so); canonical N-Triples
        # lowercases them
        assert _LANG.sub(lambda m: "@" + m.group(1).lower(), ours) == canonical, case.id
    _through_jelly(capsys, case, tmp_path, expected)


def test_rdf12_suites_are_there():
    """The RDF 1.2 suites run (in test_w3c above) from the vendored copy, or from the checkout
    JELLY_RDF_TESTS names: each of the four suites brings its cases of every kind."""
    import w3c_suites
    cases = [c for c in w3c_suites.load_cases() if c.suite == "rdf12"]
    for kind in ("nt", "nq", "ttl", "trig"):
        tests = {c.test for c in cases if c.kind == kind and "/rdf12/" in c.id}
        assert {"positive", "negative"} <= tests, (kind, tests)
    assert {c.test for c in cases if c.kind in ("ttl", "trig")} >= {"eval"}
    assert {c.test for c in cases if c.kind in ("nt", "nq")} >= {"c14n"}
    assert len([c for c in cases if "/rdf12/" in c.id]) >= 300, len(cases)
