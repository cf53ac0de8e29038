"""Interop with Apache Jena itself (Debian's libapache-jena-java 4.5, through ``peers/jena.py``):
files Jena writes from real data are read by jelly to the same statements, and files jelly
writes are read by Jena to the same statements; the same for SPARQL result sets.

Data: every N-Triples / N-Quads file of the conformance suite's RDF 1.1 and RDF-star cases
(generalized ones left out: Jena's parsers refuse them) and generated data
(``benchmarks/datagen.py``: a knowledge graph with labels in many scripts, an event log in
named graphs, sensor readings with numbers).  Jena streams (its parser into its writer), so statements keep their order and
are compared in order, blank nodes up to renaming.  With value forms, numeric literals are
compared by value (Jena writes xsd:int etc. as valInteger and reads it back as xsd:integer).

If Jena (or a JDK) is missing these tests fail; ``.ci/run`` installs them.
"""

from __future__ import annotations

import importlib.util
import json
import re
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pytest

import jelly
import jelly.convert
import jelly.jena as J
from helpers import REPO_ROOT, conformance_dir, from_jelly, to_jelly
from oracle.isomorphism import ordered_mismatch
from oracle import jena as oj
from oracle.ntriples import parse_nquads_file, stmt_to_nt
from peers import jena as peer_module

XSD = "http://www.w3.org/2001/XMLSchema#"
INTEGER_TYPES = {XSD + t for t in ("integer", "long", "int", "short", "byte")}
_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)", re.ASCII)
_DOUBLE = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN",
                     re.ASCII)
JENA_FORMATS = {"thrift": ("RDF-THRIFT", "RDF-THRIFT-VALUES"),
                "protobuf": ("RDF-PROTO", "RDF-PROTO-VALUES")}


@pytest.fixture(scope="module")
def jena():
    return peer_module.peer()


def _data_files():
    root = conformance_dir() / "rdf"
    files = sorted(p for p in root.glob("*/*/*/*.n[tq]") if "generalized" not in p.parts[-3])
    assert len(files) > 100, f"conformance data not found under {root}"
    return files


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    spec = importlib.util.spec_from_file_location("datagen", REPO_ROOT / "benchmarks" /
                                                  "datagen.py")
    datagen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(datagen)
    out = tmp_path_factory.mktemp("generated")
    paths = []
    for name, ext in (("knowledge-graph", "nt"), ("events-quads", "nq"), ("sensors", "nt")):
        path = out / f"{name}.{ext}"
        datagen.write(name, 3000, 7, str(path))
        paths.append(path)
    return paths


def _lang(path: Path) -> str:
    return {".nq": "N-QUADS", ".ttl": "TTL"}.get(path.suffix, "N-TRIPLES")


def _source(path: Path):
    # A .ttl file here is N-Triples lines after @prefix lines (see test_jena_writes_turtle).
    if path.suffix == ".ttl":
        text = "".join(line for line in path.read_text().splitlines(True)
                       if not line.startswith("@prefix"))
        from oracle.ntriples import parse_nquads
        return parse_nquads(text)
    return parse_nquads_file(path)


def _shape(st):
    return st[:3] if len(st) == 4 and st[3] == ("D",) else st


def _by_value(t):
    """A numeric literal as its value (what value forms keep); other terms unchanged."""
    if t[0] == "T":
        return ("T",) + tuple(_by_value(x) for x in t[1:])
    if t[0] != "L" or t[3] is None:
        return t
    lex = t[1].strip(" \t\n\r")
    if t[3] in INTEGER_TYPES and _DECIMAL.fullmatch(lex) and "." not in lex:
        return ("N", "integer", int(lex))
    if t[3] == XSD + "decimal" and _DECIMAL.fullmatch(lex):
        try:
            return ("N", "decimal", Decimal(lex).normalize())
        except InvalidOperation:
            return t
    if t[3] == XSD + "double" and _DOUBLE.fullmatch(lex):
        v = float(lex.replace("INF", "inf"))
        return ("N", "double", "NaN" if v != v else v)
    return t


def _compare(got, want, values, what):
    got = [_shape(s) for s in got]
    want = [_shape(s) for s in want]
    if values:
        got = [tuple(_by_value(t) for t in s) for s in got]
        want = [tuple(_by_value(t) for t in s) for s in want]
    problem = ordered_mismatch(got, want)
    assert problem is None, f"{what}: {problem}"


def _namespaces(statements, n=6):
    """The most used namespaces of the data (for writing prefixed names)."""
    counts: dict = {}
    for st in statements:
        for t in st:
            if t[0] == "I":
                m = re.match(r"(.*[#/])[^#/]*$", t[1])
                if m:
                    counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    top = sorted(counts, key=counts.get, reverse=True)[:n]
    return {f"p{i}": ns for i, ns in enumerate(top)}


# ------------------------------------------------------------------ Jena writes, jelly reads

def _jena_writes(jena, files, tmp_path):
    """Returns how many terms of each wire kind Jena wrote (per the oracle)."""
    kinds: dict = {}
    for path in files:
        want = _source(path)
        for fmt, names in JENA_FORMATS.items():
            for values, name in enumerate(names):
                out = tmp_path / f"out.{fmt}"
                jena.rdf(_lang(path), path, name, out)
                decode = oj.th_decode if fmt == "thrift" else oj.pb_decode
                for row in decode(out.read_bytes()):
                    for t in row[1:]:
                        if isinstance(t, tuple):
                            kinds[(fmt, t[0])] = kinds.get((fmt, t[0]), 0) + 1
                got = [from_jelly(s) for s in J.parse(out, format=fmt)]
                _compare(got, want, values, f"{path} written by Jena as {name}")
                # straight to N-Quads lines, the conversion path of jelly convert
                nq = tmp_path / "out.nq"
                jelly.convert.convert(out, nq, from_format="rdf-" + fmt)
                _compare(parse_nquads_file(nq), want, values, f"{path} via {name} to N-Quads")
    return kinds


def test_jena_writes_conformance_data(jena, tmp_path):
    kinds = _jena_writes(jena, _data_files(), tmp_path)
    assert kinds[("thrift", "T")] and kinds[("protobuf", "T")]      # RDF-star was there


def test_jena_writes_generated_data(jena, generated, tmp_path):
    kinds = _jena_writes(jena, generated, tmp_path)
    for fmt in ("thrift", "protobuf"):       # value forms were written
        assert kinds[(fmt, "VI")] and kinds[(fmt, "VD")] and kinds[(fmt, "VF")], kinds


def test_jena_writes_turtle_with_prefixes(jena, generated, tmp_path):
    """From Turtle with prefixes Jena's RDF Thrift writer uses prefixed names."""
    statements = parse_nquads_file(generated[0])[:600]
    namespaces = _namespaces(statements)
    path = tmp_path / "kg.ttl"
    path.write_text("".join(f"@prefix {p}: <{ns}> .\n" for p, ns in namespaces.items()) +
                    "".join(stmt_to_nt(s) + "\n" for s in statements))
    kinds = _jena_writes(jena, [path], tmp_path)
    assert kinds[("thrift", "N")] > 100


# ------------------------------------------------------------------ jelly writes, Jena reads

def _jelly_writes(jena, files, tmp_path):
    for path in files:
        want = parse_nquads_file(path)
        statements = [tuple(to_jelly(t) for t in s) for s in want]
        namespaces = _namespaces(want)
        for fmt in ("thrift", "protobuf"):
            lang = "RDF-THRIFT" if fmt == "thrift" else "RDF-PROTO"
            for options in ({}, {"values": True}, {"prefix_names": True}):
                out = tmp_path / f"ours.{fmt}"
                J.serialize(statements, out, format=fmt, namespaces=namespaces, **options)
                nq = tmp_path / "jena.nq"
                jena.rdf(lang, out, "NQUADS", nq)
                _compare(parse_nquads_file(nq), want, options.get("values", False),
                         f"{path} written by jelly as {fmt} {options}, read by Jena")
            # jelly convert from N-Triples / N-Quads, the way a user would
            out = tmp_path / ("conv.rt" if fmt == "thrift" else "conv.rpb")
            jelly.convert.convert(path, out)
            jena.rdf(lang, out, "NQUADS", tmp_path / "jena.nq")
            _compare(parse_nquads_file(tmp_path / "jena.nq"), want, False,
                     f"{path} converted by jelly convert to {fmt}, read by Jena")


def test_jena_reads_conformance_data(jena, tmp_path):
    _jelly_writes(jena, _data_files(), tmp_path)


def test_jena_reads_generated_data(jena, generated, tmp_path):
    _jelly_writes(jena, generated, tmp_path)


def test_jena_reads_jelly_via_convert(jena, generated, tmp_path):
    """Jelly -> RDF Thrift / RDF Protobuf with jelly convert (no text, no rdflib), read by
    Jena."""
    for path in generated:
        want = parse_nquads_file(path)
        jelly_file = tmp_path / "data.jelly"
        jelly.convert.convert(path, jelly_file)
        for out, lang in ((tmp_path / "x.rt", "RDF-THRIFT"), (tmp_path / "x.rpb", "RDF-PROTO")):
            jelly.convert.convert(jelly_file, out)
            jena.rdf(lang, out, "NQUADS", tmp_path / "jena.nq")
            _compare(parse_nquads_file(tmp_path / "jena.nq"), want, False, f"{path} via {out}")


# ------------------------------------------------------------------ result sets

def _srj_term(t):
    if t[0] == "I":
        return {"type": "uri", "value": t[1]}
    if t[0] == "B":
        return {"type": "bnode", "value": t[1]}
    if t[0] == "T":
        return {"type": "triple", "value": {k: _srj_term(x) for k, x in
                                            zip(("subject", "predicate", "object"), t[1:])}}
    out = {"type": "literal", "value": t[1]}
    if t[2] is not None:
        out["xml:lang"] = t[2]
    elif t[3] is not None:
        out["datatype"] = t[3]
    return out


def _from_srj(j):
    kind = j["type"]
    if kind == "uri":
        return ("I", j["value"])
    if kind == "bnode":
        return ("B", j["value"])
    if kind == "triple":
        v = j["value"]
        return ("T", _from_srj(v["subject"]), _from_srj(v["predicate"]), _from_srj(v["object"]))
    dt = j.get("datatype")
    return ("L", j["value"], j.get("xml:lang"), None if dt == XSD + "string" else dt)


def _result_rows(generated):
    """Variables and rows from generated data: each statement a row, some values unbound,
    some objects quoted triples."""
    statements = parse_nquads_file(generated[1])[:400]
    rows = []
    for i, st in enumerate(statements):
        s, p, o = st[:3]
        g = st[3] if len(st) == 4 else None
        if i % 7 == 0:
            o = ("T", s, p, o)
        rows.append((s, None if i % 5 == 0 else p, o, g))
    return ["s", "p", "o", "g"], rows


def _rows_key(rows):
    return [tuple(("U",) if t is None else t for t in r) for r in rows]


def test_result_sets_both_ways(jena, generated, tmp_path):
    variables, rows = _result_rows(generated)
    srj = tmp_path / "in.srj"
    srj.write_text(json.dumps({"head": {"vars": variables}, "results": {"bindings": [
        {v: _srj_term(t) for v, t in zip(variables, r) if t is not None} for r in rows]}}))
    # Jena writes, jelly reads
    for name, fmt, values in (("SRT", "thrift", False), ("SRT-VALUES", "thrift", True),
                              ("SRP", "protobuf", False)):
        out = tmp_path / "out.bin"
        jena.results("SRJ", srj, name, out)
        with J.read_results(out, format=fmt) as reader:
            assert reader.variables == variables
            got = [tuple(None if t is None else from_jelly(t) for t in r) for r in reader]
        _compare(_rows_key(got), _rows_key(rows), values, f"results written by Jena as {name}")
    # jelly writes, Jena reads
    for fmt, lang in (("thrift", "SRT"), ("protobuf", "SRP")):
        for options in ({}, {"values": True}):
            ours = tmp_path / "ours.bin"
            J.write_results(ours, variables, [tuple(None if t is None else to_jelly(t)
                                                    for t in r) for r in rows],
                            format=fmt, **options)
            back = tmp_path / "back.srj"
            jena.results(lang, ours, "SRJ", back)
            doc = json.loads(back.read_text())
            assert doc["head"]["vars"] == variables
            got = [tuple(_from_srj(b[v]) if v in b else None for v in variables)
                   for b in doc["results"]["bindings"]]
            _compare(_rows_key(got), _rows_key(rows), bool(options),
                     f"results written by jelly as {fmt} {options}, read by Jena")


def test_jena_refuses_what_it_should(jena, tmp_path):
    """What Jena 4.5 cannot read is documented (docs/jena.md): REPEAT in both encodings."""
    statements = [(jelly.IRI("http://s"), jelly.IRI("http://p"), jelly.IRI("http://o")),
                  (jelly.IRI("http://s"), jelly.IRI("http://p"), jelly.IRI("http://o2"))]
    for fmt, lang in (("thrift", "RDF-THRIFT"), ("protobuf", "RDF-PROTO")):
        out = tmp_path / "r.bin"
        J.serialize(statements, out, format=fmt, repeat=True)
        with pytest.raises(peer_module.JenaError):
            jena.rdf(lang, out, "NQUADS", tmp_path / "r.nq")
