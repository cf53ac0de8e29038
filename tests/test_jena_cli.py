"""RDF Thrift and RDF Protobuf in ``jelly convert`` and ``jelly inspect``: every direction
with Jelly and N-Triples / N-Quads, names and extensions, stdin / stdout, value forms and
prefixed names on request, no rdflib on the way, one-line errors, atomic outputs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import helpers
import jelly.jena as J
from oracle import isomorphism as iso, jena as oj, ntriples as ntr, terms as neutral

DATA = helpers.REPO_ROOT / "examples" / "data"
SENSORS = DATA / "sensors.nt"
QUADS = b"""<http://ex/a> <http://ex/p> "default" .
<http://ex/a> <http://ex/p> _:b <http://ex/g1> .
_:b <http://ex/q> "in g1"@en <http://ex/g1> .
<http://ex/a> <http://ex/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> <http://ex/g2> .
"""


def jelly_cmd(*argv, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return helpers.run_jelly(*argv, stdin=stdin)


def ok(*argv, stdin: bytes = b"") -> bytes:
    proc = jelly_cmd(*argv, stdin=stdin)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout


def same(a: bytes, b: bytes) -> bool:
    return iso.unordered_isomorphic([neutral.nq_shape(s) for s in ntr.parse_nquads(a)],
                                    [neutral.nq_shape(s) for s in ntr.parse_nquads(b)])


@pytest.mark.parametrize("ext,fmt", [(".rt", "thrift"), (".trdf", "thrift"),
                                     (".rpb", "protobuf"), (".pbrdf", "protobuf")])
def test_convert_every_direction(tmp_path, ext, fmt):
    nq = tmp_path / "in.nq"
    nq.write_bytes(QUADS)
    binary = tmp_path / f"data{ext}"
    ok("convert", nq, binary)
    assert oj.resolve((oj.th_decode if fmt == "thrift" else oj.pb_decode)(binary.read_bytes()))
    assert same(ok("convert", binary, "-", "--to", "nq"), QUADS)
    # to and from Jelly
    ok("convert", binary, tmp_path / "d.jelly")
    ok("convert", tmp_path / "d.jelly", tmp_path / f"back{ext}")
    assert same(ok("convert", tmp_path / f"back{ext}", "-", "--to", "nq"), QUADS)
    # N-Triples text from a graph
    ok("convert", SENSORS, tmp_path / f"s{ext}")
    assert same(ok("convert", tmp_path / f"s{ext}", "-", "--to", "nt"), SENSORS.read_bytes())
    # stdin and stdout by name
    data = ok("convert", "-", "-", "--from", "nq", "--to", "rdf-" + fmt, stdin=QUADS)
    assert same(ok("convert", "-", "-", "--from", fmt, "--to", "nq", stdin=data), QUADS)


def test_triples_of_a_graph_stay_triples(tmp_path):
    """A graph that ends within the first frames is written as a TRIPLES Jelly stream; a
    dataset as QUADS."""
    ok("convert", SENSORS, tmp_path / "s.rt")
    ok("convert", tmp_path / "s.rt", tmp_path / "s.jelly")
    assert jelly.read_options(tmp_path / "s.jelly").physical_type == jelly.PhysicalStreamType.TRIPLES
    (tmp_path / "q.nq").write_bytes(QUADS)
    ok("convert", tmp_path / "q.nq", tmp_path / "q.rpb")
    ok("convert", tmp_path / "q.rpb", tmp_path / "q.jelly")
    assert jelly.read_options(tmp_path / "q.jelly").physical_type == jelly.PhysicalStreamType.QUADS


def test_values_and_prefix_names_on_request(tmp_path):
    ttl = tmp_path / "in.jelly"
    ex = "http://example.org/"
    xsd = "http://www.w3.org/2001/XMLSchema#"
    jelly.serialize([(jelly.IRI(ex + "a"), jelly.IRI(ex + "n"), jelly.Literal(lex, datatype=dt))
                     for lex, dt in (("42", xsd + "integer"), ("2.5", xsd + "decimal"),
                                     ("1.0E2", xsd + "double"), ("x", None))],
                    ttl, namespaces={"ex": ex})
    ok("convert", ttl, tmp_path / "plain.rt")
    ok("convert", ttl, tmp_path / "v.rt", "--values", "--prefix-names")
    plain = oj.th_decode((tmp_path / "plain.rt").read_bytes())
    fancy = oj.th_decode((tmp_path / "v.rt").read_bytes())
    kinds = lambda rows: sorted({t[0] for r in rows if r[0] == "triple" for t in r[1:]})
    assert kinds(plain) == ["I", "L"]
    assert kinds(fancy) == ["L", "N", "VD", "VF", "VI"]
    assert oj.resolve(plain)[0] == oj.resolve(fancy)[0]
    assert ok("convert", tmp_path / "plain.rt", "-", "--to", "nt") == \
        ok("convert", tmp_path / "v.rt", "-", "--to", "nt")


def test_inspect(tmp_path):
    (tmp_path / "q.nq").write_bytes(QUADS)
    ok("convert", tmp_path / "q.nq", tmp_path / "q.rt")
    report = json.loads(ok("inspect", tmp_path / "q.rt", "--json"))
    assert report["format"] == "rdf-thrift"
    assert {k: report["totals"][k] for k in ("prefix", "triple", "quad")} == \
        {"prefix": 0, "triple": 1, "quad": 3}
    assert report["totals"]["bytes"] == (tmp_path / "q.rt").stat().st_size
    text = ok("inspect", tmp_path / "q.rt").decode()
    assert "RDF Thrift" in text and "quad: 3" in text
    (tmp_path / "q.bin").write_bytes((tmp_path / "q.rt").read_bytes())
    report = json.loads(ok("inspect", tmp_path / "q.bin", "--json", "--from", "rdf-thrift"))
    assert report["totals"]["quad"] == 3
    # byte sizes and term details are Jelly's: refused, not silently counts
    for flags in (["--size"], ["--detail", "node"]):
        proc = jelly_cmd("inspect", tmp_path / "q.rt", *flags)
        assert proc.returncode == 1 and b"for Jelly input" in proc.stderr
        assert proc.stderr.count(b"\n") == 1 and proc.stdout == b""
    J.write_results(tmp_path / "r.srp", ["a"], [(jelly.IRI("http://x"),)])


def test_fast_paths_do_not_import_rdflib(tmp_path):
    code = (
        "import sys, jelly.cli as c\n"
        f"c.main(['convert', {str(SENSORS)!r}, {str(tmp_path / 'a.rt')!r}, '-q'])\n"
        f"c.main(['convert', {str(tmp_path / 'a.rt')!r}, {str(tmp_path / 'a.jelly')!r}, '-q'])\n"
        f"c.main(['convert', {str(tmp_path / 'a.jelly')!r}, {str(tmp_path / 'a.rpb')!r}, '-q'])\n"
        f"c.main(['convert', {str(tmp_path / 'a.rpb')!r}, {str(tmp_path / 'a.nq')!r}, '-q'])\n"
        f"c.main(['inspect', {str(tmp_path / 'a.rpb')!r}])\n"
        "print('rdflib' in sys.modules, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=helpers.jelly_subprocess_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "False"
    assert same((tmp_path / "a.nq").read_bytes(), SENSORS.read_bytes())


def test_errors_are_one_line_and_outputs_atomic(tmp_path):
    (tmp_path / "bad.rt").write_bytes(b"\x2c\x1c\x1c\x18\x01a\x00")
    (tmp_path / "out.nt").write_bytes(b"keep")
    proc = jelly_cmd("convert", tmp_path / "bad.rt", tmp_path / "out.nt")
    err = proc.stderr.decode().strip()
    assert proc.returncode == 1 and len(err.splitlines()) == 1
    assert err.startswith("jelly: error: ") and "truncated" in err and "byte" in err
    assert (tmp_path / "out.nt").read_bytes() == b"keep"
    proc = jelly_cmd("convert", SENSORS, tmp_path / "x.rt", "--messages")
    assert proc.returncode == 1 and b"message log" in proc.stderr
    proc = jelly_cmd("inspect", tmp_path / "bad.rt")
    assert proc.returncode == 1 and b"truncated" in proc.stderr


import jelly  # noqa: E402  (after the helpers, as the other CLI tests)
