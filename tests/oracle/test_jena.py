"""Self-tests of the RDF Binary oracle (oracle/jena.py) against bytes Apache Jena 4.5 wrote
(``riot --out=RDF-THRIFT`` / ``RDF-PROTO`` of ``@prefix ex: <http://ex.org/> .
ex:a ex:b "x"@en, 1, 2.5, "s" .``) and against the specification's canonical forms."""

from __future__ import annotations

import math

from oracle import jena as oj

# Jena's RDF Thrift writer abbreviates with the declared prefix; its RDF Protobuf writer does not.
JENA_THRIFT = bytes.fromhex(
    "1c18026578180e687474703a2f2f65782e6f72672f00002c1c4c1802657818016100001c4c180265781801620000"
    "1c3c1801781802656e000000002c1c4c1802657818016100001c4c1802657818016200001c3c1801312828687474"
    "703a2f2f7777772e77332e6f72672f323030312f584d4c536368656d6123696e7465676572000000002c1c4c1802"
    "657818016100001c4c1802657818016200001c3c1803322e352828687474703a2f2f7777772e77332e6f72672f32"
    "3030312f584d4c536368656d6123646563696d616c000000002c1c4c1802657818016100001c4c18026578180162"
    "00001c3c18017300000000")
JENA_PROTO = bytes.fromhex(
    "160a140a026578120e687474703a2f2f65782e6f72672f3712350a130a110a0f687474703a2f2f65782e6f72672f"
    "6112130a110a0f687474703a2f2f65782e6f72672f621a091a070a01781202656e5d125b0a130a110a0f68747470"
    "3a2f2f65782e6f72672f6112130a110a0f687474703a2f2f65782e6f72672f621a2f1a2d0a01311a28687474703a"
    "2f2f7777772e77332e6f72672f323030312f584d4c536368656d6123696e74656765725f125d0a130a110a0f6874"
    "74703a2f2f65782e6f72672f6112130a110a0f687474703a2f2f65782e6f72672f621a311a2f0a03322e351a2868"
    "7474703a2f2f7777772e77332e6f72672f323030312f584d4c536368656d6123646563696d616c3512330a130a11"
    "0a0f687474703a2f2f65782e6f72672f6112130a110a0f687474703a2f2f65782e6f72672f621a071a050a017348"
    "01")
XSD = "http://www.w3.org/2001/XMLSchema#"
OBJECTS = [("L", "x", "en", None), ("L", "1", None, XSD + "integer"),
           ("L", "2.5", None, XSD + "decimal"), ("L", "s", None, None)]


def test_reads_and_writes_jenas_thrift():
    rows = oj.th_decode(JENA_THRIFT)
    assert rows[0] == ("prefix", "ex", "http://ex.org/")
    assert all(r[1:3] == (("N", "ex", "a"), ("N", "ex", "b")) for r in rows[1:])
    assert [r[3] for r in rows[1:]] == OBJECTS
    assert oj.th_encode(rows) == JENA_THRIFT
    statements, namespaces = oj.resolve(rows)
    assert namespaces == [("ex", "http://ex.org/")]
    assert statements == [(("I", "http://ex.org/a"), ("I", "http://ex.org/b"), o) for o in OBJECTS]


def test_reads_and_writes_jenas_protobuf():
    rows = oj.pb_decode(JENA_PROTO)
    assert rows[0] == ("prefix", "ex", "http://ex.org/")
    assert [r[1:3] for r in rows[1:]] == [(("I", "http://ex.org/a"), ("I", "http://ex.org/b"))] * 4
    assert [r[3] for r in rows[1:]] == OBJECTS
    assert oj.pb_encode(rows) == JENA_PROTO        # simple literals carry simple = true


def test_canonical_forms():
    assert [oj.canonical_decimal(v, s) for v, s in ((25, 1), (100, 2), (5, -2), (0, 3), (-5, 3))] \
        == ["2.5", "1", "500", "0", "-0.005"]
    assert [oj.canonical_double(v) for v in (100.0, 0.001, -0.0, math.inf, math.nan, 1.5)] == \
        ["1.0E2", "1.0E-3", "-0.0E0", "INF", "NaN", "1.5E0"]


def test_results_round_trip():
    rows = [[("I", "http://a"), None], [("R",), ("VI", 3)]]
    for enc, dec in ((oj.th_encode_results, oj.th_decode_results),
                     (oj.pb_encode_results, oj.pb_decode_results)):
        variables, back = dec(enc(["x", "y"], rows))
        assert variables == ["x", "y"]
        assert oj.resolve_results(back) == [(("I", "http://a"), None),
                                            (("I", "http://a"), ("L", "3", None, XSD + "integer"))]
