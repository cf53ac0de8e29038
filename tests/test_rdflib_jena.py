"""The rdflib plugins for Jena's RDF Binary: graphs and datasets (``rdf-thrift`` /
``rdf-protobuf``) and SPARQL result sets (``srt`` / ``srp``), through rdflib's own API."""

from __future__ import annotations

import io

import pytest
from rdflib import BNode, Dataset, Graph, Literal, Namespace, URIRef, XSD
from rdflib.query import Result

import jelly
import jelly.jena as J
import jelly.rdflib
from oracle import jena as oj

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:rdflib")

EX = Namespace("http://example.org/")
FORMATS = ("rdf-thrift", "application/rdf+thrift", "rdf-protobuf", "application/rdf+protobuf")


def sample_graph() -> Graph:
    g = Graph()
    g.bind("ex", EX)
    b = BNode()
    g.add((EX.alice, EX.name, Literal("Alice", lang="en")))
    g.add((EX.alice, EX.age, Literal("42", datatype=XSD.integer)))
    g.add((EX.alice, EX.height, Literal("1.5E0", datatype=XSD.double, normalize=False)))
    g.add((EX.alice, EX.knows, b))
    g.add((b, EX.name, Literal("Bob")))
    return g


def sample_dataset() -> Dataset:
    ds = Dataset()
    ds.bind("ex", EX)
    ds.add((EX.a, EX.p, Literal("default")))
    ds.graph(EX.g1).add((EX.a, EX.p, BNode("x")))
    ds.graph(EX.g2).add((EX.b, EX.q, Literal("in g2", lang="de")))
    return ds


@pytest.mark.parametrize("fmt", FORMATS)
def test_graph_round_trip(fmt, tmp_path):
    g = sample_graph()
    data = g.serialize(format=fmt, encoding="utf-8")
    assert isinstance(data, bytes)
    back = Graph().parse(data=data, format=fmt)
    assert back.isomorphic(g)
    assert ("ex", URIRef(EX)) in set(back.namespaces())
    path = tmp_path / "g.bin"
    g.serialize(path, format=fmt)
    assert Graph().parse(path, format=fmt).isomorphic(g)
    g.serialize(tmp_path / "g.bin.gz", format=fmt)
    assert Graph().parse(tmp_path / "g.bin.gz", format=fmt).isomorphic(g)


@pytest.mark.parametrize("fmt", ("rdf-thrift", "rdf-protobuf"))
def test_dataset_round_trip(fmt):
    ds = sample_dataset()
    data = ds.serialize(format=fmt, encoding="utf-8")
    back = Dataset()
    back.parse(data=data, format=fmt)
    assert sorted(map(str, back.graphs())) == sorted(map(str, ds.graphs()))
    for name in (EX.g1, EX.g2):
        assert back.graph(name).isomorphic(ds.graph(name))
    # the default graph's statements are triple rows, named graphs quad rows
    rows = (oj.th_decode if fmt == "rdf-thrift" else oj.pb_decode)(data)
    assert sorted(r[0] for r in rows) == ["prefix", "quad", "quad", "triple"]


def test_by_suffix_and_options(tmp_path):
    g = sample_graph()
    g.serialize(tmp_path / "g.rt", format="rdf-thrift", values=True, prefix_names=True)
    rows = oj.th_decode((tmp_path / "g.rt").read_bytes())
    kinds = {t[0] for r in rows if r[0] == "triple" for t in r[1:]}
    assert {"VI", "VF", "N"} <= kinds
    assert Graph().parse(tmp_path / "g.rt").isomorphic(g)         # format from the suffix
    with pytest.raises(jelly.JellyError, match="unknown RDF Thrift serializer option"):
        g.serialize(format="rdf-thrift", encoding="utf-8", colour="blue")
    with pytest.raises(jelly.JellyError, match="binary format"):
        g.serialize(format="rdf-thrift")
    with pytest.raises(jelly.JellyError, match="binary"):
        Graph().parse(data="text", format="rdf-protobuf")


def test_reads_what_the_oracle_writes():
    rows = [("prefix", "e", "http://e/"), ("triple", ("N", "e", "s"), ("I", "http://p"), ("VD", 25, 1)),
            ("quad", ("R",), ("R",), ("VI", 7), ("N", "e", "g"))]
    for enc, fmt in ((oj.th_encode, "rdf-thrift"), (oj.pb_encode, "rdf-protobuf")):
        ds = Dataset()
        ds.parse(data=enc(rows), format=fmt)
        assert set(ds.quads()) == {
            (URIRef("http://e/s"), URIRef("http://p"), Literal("2.5", datatype=XSD.decimal),
             URIRef("urn:x-rdflib:default")),
            (URIRef("http://e/s"), URIRef("http://p"), Literal("7", datatype=XSD.integer),
             URIRef("http://e/g"))}


RESULT_FORMATS = ("srt", "application/sparql-results+thrift", "srp",
                  "application/sparql-results+protobuf")


@pytest.mark.parametrize("fmt", RESULT_FORMATS)
def test_query_results_round_trip(fmt):
    g = sample_graph()
    result = g.query("SELECT ?s ?o ?x WHERE { ?s ?p ?o OPTIONAL { ?o ?q ?x } } ORDER BY ?o")
    data = result.serialize(format=fmt)
    back = Result.parse(io.BytesIO(data), format=fmt)
    assert back.type == "SELECT" and [str(v) for v in back.vars] == ["s", "o", "x"]
    want = [tuple(r) for r in result]
    got = [tuple(r) for r in back]
    assert len(got) == len(want)
    # blank nodes get new identities; everything else is the same
    strip = lambda rows: sorted((tuple(None if isinstance(t, BNode) else t for t in r)
                                 for r in rows), key=repr)
    assert strip(got) == strip(want)
    assert any(None in r for r in got)           # unbound values survive


def test_result_files_and_values(tmp_path):
    result = sample_graph().query("SELECT ?o WHERE { ?s ?p ?o }")
    result.serialize(str(tmp_path / "r.srt"), format="srt", values=True)
    rows = oj.th_decode_results((tmp_path / "r.srt").read_bytes())[1]
    assert {t[0] for r in rows for t in r} >= {"VI", "VF"}
    with open(tmp_path / "r.srt", "rb") as fh:
        back = Result.parse(fh, format="srt")
    key = lambda rows: sorted(repr(None if isinstance(r[0], BNode) else r[0]) for r in rows)
    assert key(back) == key(result)
    ask = sample_graph().query("ASK { ?s ?p ?o }")
    with pytest.raises(jelly.JellyError, match="SELECT results only"):
        ask.serialize(format="srp")
    # what jelly.jena writes, rdflib reads
    data = J.write_results(None, ["a", "b"], [(jelly.IRI("http://x"), None)], format="protobuf")
    back = Result.parse(io.BytesIO(data), format="srp")
    assert [tuple(r) for r in back] == [(URIRef("http://x"), None)]


def test_entry_points_name_the_plugins():
    import importlib.metadata
    import tomllib
    from helpers import REPO_ROOT
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    eps = project["entry-points"]
    for group, cls in (("rdf.plugins.parser", "Parser"), ("rdf.plugins.serializer", "Serializer")):
        for name in FORMATS:
            codec = "Thrift" if "thrift" in name else "Protobuf"
            assert eps[group][name] == f"jelly.rdflib.jena:Rdf{codec}{cls}"
    for group, cls in (("rdf.plugins.resultparser", "ResultParser"),
                       ("rdf.plugins.resultserializer", "ResultSerializer")):
        for name in RESULT_FORMATS:
            codec = "Thrift" if "thrift" in name or name == "srt" else "Protobuf"
            assert eps[group][name] == f"jelly.rdflib.jena:{codec}{cls}"
    assert importlib.metadata  # the installed metadata is checked by test_rdflib_plugin
