"""Every program in examples/ runs and prints what it should.

Examples are found by listing the directory, so a new example without a check here fails
``test_every_example_is_checked``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import helpers

EXAMPLES = helpers.REPO_ROOT / "examples"
PROGRAMS = sorted(p.name for p in EXAMPLES.iterdir() if p.suffix in (".py", ".sh"))


def run_example(name: str) -> str:
    env = helpers.jelly_subprocess_env()
    # the `jelly` command of this interpreter first (shell examples call it by name)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    command = ["bash", str(EXAMPLES / name)] if name.endswith(".sh") else \
        [sys.executable, str(EXAMPLES / name)]
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300,
                          cwd=EXAMPLES.parent)
    assert proc.returncode == 0, f"{name} failed:\n{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout + proc.stderr


def check_parse_and_serialize(out: str) -> None:
    assert re.search(r"^5 statements -> \d+ bytes of Jelly$", out, re.M)
    nt = [line for line in out.splitlines() if line.startswith("<") or line.startswith("_:")]
    assert len(nt) == 5 and all(line.endswith(" .") for line in nt)
    assert '"Alice"@en' in out and "_:addr1" in out
    assert "options: StreamOptions(" in out


def check_message_stream(out: str) -> None:
    for i in range(5):
        assert f"message {i} (seq={i}): 2 statements" in out
    assert len([ln for ln in out.splitlines() if ln.startswith("    <http")]) == 10


def check_cli_roundtrip(out: str) -> None:
    assert "420 statements, 1 frame" in out
    assert "round trip: identical" in out
    assert "(delimited, 60 frames)" in out
    assert "valid: 60 frames, 420 statements" in out
    lines = out.splitlines()
    i = lines.index("# @message")
    assert all(ln.startswith("<http") for ln in lines[i + 1:i + 4])


def check_rdflib_parse(out: str) -> None:
    assert re.search(r"^graph: 420 triples \(420 from a file object\), \d+ bytes of Jelly$",
                     out, re.M)
    assert "namespace declaration bound: obs -> http://example.org/aarhus/observation/" in out
    assert "    rdf:type sosa:Observation" in out
    assert '    sosa:resultTime "2014-08-01T00:05:00"^^xsd:dateTime' in out
    counts = re.findall(r"^graph <(.*)>: (\d+) triples$", out, re.M)
    assert sorted(int(n) for _, n in counts) == [70, 70, 70, 210]
    assert ("urn:x-rdflib:default", "210") in counts


def check_rdflib_serialize(out: str) -> None:
    m = re.search(r"^420 triples: (\d+) bytes of Jelly, (\d+) bytes of N-Triples, (\d+) bytes "
                  r"of Turtle$", out, re.M)
    assert m and int(m[1]) < int(m[3]) < int(m[2])
    assert "without an encoding: Jelly is a binary format" in out
    m = re.search(r"^small preset: tables 128/16/16, (\d+) frames, \d+ bytes$", out, re.M)
    assert m and int(m[1]) >= 5          # 420 triples, 100 rows per frame
    assert "read back isomorphic: True" in out
    assert re.search(r"^QUADS: \d+ bytes, graphs of \[105, 105, 105, 105\] triples$", out, re.M)
    assert re.search(r"^GRAPHS: \d+ bytes, graphs of \[105, 105, 105, 105\] triples$", out,
                     re.M)


def check_rdflib_grouped_streams(out: str) -> None:
    assert re.search(r"^5 messages -> \d+ bytes$", out, re.M)
    for i in range(5):
        assert f"message seq={i}: 3 triples, result {20 + i / 2}" in out
    assert "message log: 60 messages of 7..7 triples" in out
    assert "60 hasResult statements" in out


def check_text_formats_cli(out: str) -> None:
    sizes = dict(re.findall(r"^(\S+): (\d+) bytes$", out, re.M))
    assert set(sizes) == {"sensors.jelly", "sensors.ttl", "from-turtle.jelly"}
    assert int(sizes["from-turtle.jelly"]) < int(sizes["sensors.ttl"])
    assert "valid: 1 frame, 420 statements" in out
    assert "    @prefix sosa: <http://www.w3.org/ns/sosa/> .\n" in out
    assert "    <http://example.org/observation/1> a sosa:Observation ;\n" in out
    assert 'sosa:hasSimpleResult 1E0 , 2.50 , "line 1\\rline 2" .\n' in out
    assert "Turtle log: 60 messages" in out
    assert "JSON-LD log: 60 lines" in out
    assert re.search(r"^file: .*back\.jelly \(delimited, 60 frames\)$", out, re.M)


def check_spark_pipeline(out: str) -> None:
    assert "read 420 statements from sensors.nt" in out
    assert re.search(r"^wrote 2 Jelly files \(\d+ bytes\) to a temp dir$", out, re.M)
    assert len(re.findall(r"^graph <http://example\.org/aarhus/sensor/\d>: 84 statements$",
                          out, re.M)) == 5
    assert "read back: 420 statements, identical to the input: True" in out
    assert "the core reads 420 statements from the files" in out
    assert re.search(r"^messages: 5 frames of \d+\.\.\d+ bytes; decoded back: 420 statements$",
                     out, re.M)


def check_grpc_pubsub(out: str) -> None:
    assert re.search(r"^published 420 statements in \d+ frames$", out, re.M)
    assert "subscriber 1: 420 statements, identical: True" in out
    assert "subscriber 2: 420 quads, all in the default graph: True" in out
    assert "transcoded to a 16-name table: 420 statements, 16 names" in out


def check_rdflib_patch_replication(out: str) -> None:
    assert "rolled back: sensor registry unavailable; the primary still has 11 triples" in out
    m = re.search(r"^log: (\d+) bytes of Jelly-Patch, (\d+) bytes as RDF Patch text$", out, re.M)
    assert m and int(m[1]) < int(m[2])
    rows = [ln.strip() for ln in out.splitlines() if ln.startswith("    ")]
    assert [r for r in rows if r[:2] in ("TX", "TC", "TA")] == \
        ["TX .", "TC .", "TX .", "TA .", "TX .", "TC ."]
    assert rows[1] == 'PA "obs" <http://example.org/observation/> .'
    assert sum(r.startswith("A ") for r in rows) == 11 and sum(r.startswith("D ") for r in rows) == 4
    assert "applied: 11 added, 1 deleted, 2 committed, 1 aborted, 1 patch" in out
    assert "replica identical: True (11 triples); prefix obs: http://example.org/observation/" \
        in out
    assert "diff of the two states: 10 changes in one transaction" in out


CHECKS = {
    "parse_and_serialize.py": check_parse_and_serialize,
    "message_stream.py": check_message_stream,
    "cli_roundtrip.sh": check_cli_roundtrip,
    "rdflib_parse.py": check_rdflib_parse,
    "rdflib_serialize.py": check_rdflib_serialize,
    "rdflib_grouped_streams.py": check_rdflib_grouped_streams,
    "text_formats_cli.py": check_text_formats_cli,
    "spark_pipeline.py": check_spark_pipeline,
    "grpc_pubsub.py": check_grpc_pubsub,
    "rdflib_patch_replication.py": check_rdflib_patch_replication,
}


def test_every_example_is_checked():
    assert PROGRAMS, "no examples found"
    assert sorted(CHECKS) == PROGRAMS


@pytest.mark.parametrize("name", PROGRAMS)
def test_example(name):
    out = run_example(name)
    check = CHECKS.get(name)
    assert check is not None, f"no check for examples/{name}"
    check(out)
