"""Round trips through the rdflib plugin.

* Property tests: random rdflib graphs and datasets (blank nodes, language tags, datatypes,
  unusual IRIs, literals with control characters) serialized and parsed back are isomorphic,
  for every physical type, for tiny lookup tables and tiny frames, and as streams of graphs.
* Interop with pyjelly, the official Python implementation, on real data (the example sensor
  stream and its message log as a dataset), both ways and for every physical type: jelly
  parses what pyjelly's rdflib serializer writes, pyjelly parses what jelly's writes.
"""

from __future__ import annotations

import io
import logging

import pytest
from hypothesis import given, settings, strategies as st

import helpers
from oracle import isomorphism as iso
import jelly
import jelly.rdflib
from jelly.rdflib import parse_grouped, serialize, serialize_grouped
from jelly.rdflib import streams as rstreams
from rdflib import BNode, Dataset, Graph, Literal, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:rdflib")


@pytest.fixture(autouse=True, scope="module")
def quiet_rdflib():
    """rdflib logs a warning for every IRI it finds suspicious; these tests make them on
    purpose."""
    logger = logging.getLogger("rdflib")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)

XSD = "http://www.w3.org/2001/XMLSchema#"
DATA = helpers.REPO_ROOT / "examples" / "data"


# ------------------------------------------------------------------------------------------------
# comparison
# ------------------------------------------------------------------------------------------------

def canon(t):
    if isinstance(t, URIRef):
        return ("I", str(t))
    if isinstance(t, BNode):
        return ("B", str(t))
    dt = None if t.datatype is None or str(t.datatype) == XSD + "string" else str(t.datatype)
    return ("L", str(t), t.language, dt)


def statements(g) -> list:
    if isinstance(g, Dataset):
        default = rstreams.default_graph(g).identifier
        out = []
        for s, p, o, c in g.quads((None, None, None, None)):
            ident = c.identifier if isinstance(c, Graph) else c
            gt = ("D",) if ident in (default, DATASET_DEFAULT_GRAPH_ID) else canon(ident)
            out.append((canon(s), canon(p), canon(o), gt))
        return out
    return [tuple(map(canon, t)) for t in g]


def assert_isomorphic(got, want):
    a, b = statements(got), statements(want)
    assert len(a) == len(b), f"{len(a)} statements, expected {len(b)}"
    assert iso.unordered_isomorphic(a, b), "not isomorphic:\n" + "\n".join(map(str, sorted(a)))


# ------------------------------------------------------------------------------------------------
# strategies
# ------------------------------------------------------------------------------------------------

_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_control = st.text(st.sampled_from("\x00\x01\x07\t\n\r\x1b\x7f\x85\u2028\"\\<>"),
                   min_size=1, max_size=6)
_iri_tail = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                    max_size=10)

iris = st.one_of(
    st.sampled_from(["http://example.org/a", "http://example.org/b", "http://example.org/p#q",
                     "urn:x:1", "tag:a@b,2020:x", "http://example.org/", "http://xn--fa-hia.de/",
                     "http://example.org/ä/ö?x=1&y=%20#frag"]),
    st.builds(lambda ns, tail: ns + tail,
              st.sampled_from(["http://example.org/", "https://a.example/x/y#", "urn:uuid:",
                               "http://example.org/with space/", "http://e.org/"]),
              _iri_tail),
).map(URIRef)

_lang = st.sampled_from(["en", "en-US", "EN-gb", "de", "x-private", "zh-Hant-TW", "fr-CA"])
_datatype = st.sampled_from([XSD + "integer", XSD + "date", "http://example.org/dt",
                             "http://example.org/other#dt", XSD + "string"])
literals = st.one_of(
    st.builds(lambda s: Literal(s), st.one_of(_text, _control)),
    st.builds(lambda s, lang: Literal(s, lang=lang), _text, _lang),
    st.builds(lambda s, dt: Literal(s, datatype=URIRef(dt), normalize=False),
              st.one_of(st.integers(-10**20, 10**20).map(str), _control), _datatype)
    .filter(lambda lit: str(lit.datatype) not in (XSD + "integer", XSD + "date")
            or str(lit).lstrip("-").isdigit()),
)


@st.composite
def statement_lists(draw, quads: bool, max_size: int = 16):
    bnodes = [BNode() for _ in range(draw(st.integers(0, 4)))]
    node = st.one_of(iris, st.sampled_from(bnodes)) if bnodes else iris
    term = st.one_of(node, literals)
    graph = st.one_of(st.none(), iris, st.sampled_from(bnodes)) if bnodes else \
        st.one_of(st.none(), iris)
    out = []
    for _ in range(draw(st.integers(0, max_size))):
        s, p, o = draw(node), draw(iris), draw(term)
        out.append((s, p, o, draw(graph)) if quads else (s, p, o))
    return out


def make_graph(triples) -> Graph:
    g = Graph(bind_namespaces="none")
    for t in triples:
        g.add(t)
    return g


def make_dataset(quads) -> Dataset:
    ds = Dataset()
    for s, p, o, g in quads:
        ds.add((s, p, o) if g is None else (s, p, o, g))
    return ds


tables = st.sampled_from([
    {},
    {"preset": "small"},
    {"max_name_table_size": 8, "max_prefix_table_size": 0, "max_datatype_table_size": 1},
    {"max_name_table_size": 8, "max_prefix_table_size": 1, "max_datatype_table_size": 2},
    {"max_name_table_size": 9, "max_prefix_table_size": 2, "max_datatype_table_size": 1},
])
frames = st.sampled_from([{}, {"rows_per_frame": 1}, {"rows_per_frame": 3},
                          {"delimited": False}])


# ------------------------------------------------------------------------------------------------
# property tests
# ------------------------------------------------------------------------------------------------

@settings(max_examples=120)
@given(statement_lists(quads=False), tables, frames, st.sampled_from(["triples", "quads"]))
def test_graph_round_trip(triples, table, framing, physical):
    g = make_graph(triples)
    data = g.serialize(format="jelly", encoding="utf-8", physical_type=physical, **table,
                       **framing)
    assert_isomorphic(Graph().parse(data=data, format="jelly"), g)


@settings(max_examples=120)
@given(statement_lists(quads=True), tables, frames, st.sampled_from(["quads", "graphs"]))
def test_dataset_round_trip(quads, table, framing, physical):
    ds = make_dataset(quads)
    data = ds.serialize(format="jelly", encoding="utf-8", physical_type=physical, **table,
                        **framing)
    assert_isomorphic(Dataset().parse(data=data, format="jelly"), ds)


@settings(max_examples=60)
@given(st.lists(statement_lists(quads=False, max_size=6), min_size=1, max_size=5), tables)
def test_grouped_graphs_round_trip(messages, table):
    graphs = [make_graph(m) for m in messages]
    data = serialize_grouped(iter(graphs), **table)
    back = list(parse_grouped(data))
    assert len(back) == len(graphs)
    for got, want in zip(back, graphs):
        assert_isomorphic(got, want)


@settings(max_examples=60)
@given(st.lists(statement_lists(quads=True, max_size=6), min_size=1, max_size=4), tables,
       st.sampled_from(["quads", "graphs"]))
def test_grouped_datasets_round_trip(messages, table, physical):
    datasets = [make_dataset(m) for m in messages]
    data = serialize_grouped(datasets, physical_type=physical, **table)
    back = list(parse_grouped(data))
    assert len(back) == len(datasets)
    for got, want in zip(back, datasets):
        assert_isomorphic(got, want)


@settings(max_examples=40)
@given(statement_lists(quads=False), tables)
def test_generalized_round_trip(triples, table):
    g = make_graph(triples)
    g.add((Literal("literal subject"), URIRef("http://example.org/p"), BNode()))
    g.add((URIRef("http://example.org/s"), BNode(), Literal("bnode predicate", lang="en")))
    data = serialize(g, generalized_statements=True, **table)
    assert_isomorphic(Graph().parse(data=data, format="jelly"), g)


# ------------------------------------------------------------------------------------------------
# interop with pyjelly
# ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pyjelly_plugins():
    """pyjelly's rdflib plugins under the name "pyjelly" (importing jelly makes "jelly" ours)."""
    from rdflib.parser import Parser
    from rdflib.plugin import register
    from rdflib.serializer import Serializer
    register("pyjelly", Parser, "pyjelly.integrations.rdflib.parse", "RDFLibJellyParser")
    register("pyjelly", Serializer, "pyjelly.integrations.rdflib.serialize",
             "RDFLibJellySerializer")


@pytest.fixture(scope="module")
def sensors() -> Graph:
    g = Graph().parse(DATA / "sensors.nt", format="nt")
    g.bind("obs", "http://example.org/aarhus/observation/")
    return g


@pytest.fixture(scope="module")
def sensor_dataset() -> Dataset:
    """The message log as a dataset: every third message in the default graph, the others in
    named graphs (IRIs and blank nodes)."""
    ds = Dataset()
    text = (DATA / "sensor-messages.nt").read_text()
    for i, message in enumerate(m for m in text.split("# @message\n") if m.strip()):
        if i % 3 == 0:
            target = ds.default_graph
        elif i % 3 == 1:
            target = ds.graph(URIRef(f"http://example.org/message/{i}"))
        else:
            target = ds.graph(BNode())
        target.parse(data=message, format="nt")
    return ds


PYJELLY_STREAMS = {"triples": "TripleStream", "quads": "QuadStream", "graphs": "GraphStream"}


@pytest.mark.parametrize("physical", ["triples", "quads", "graphs"])
def test_jelly_reads_pyjelly(physical, pyjelly_plugins, sensors, sensor_dataset):
    from pyjelly.serialize import streams
    source = sensors if physical == "triples" else sensor_dataset
    buf = io.BytesIO()
    stream = getattr(streams, PYJELLY_STREAMS[physical]).for_rdflib()
    source.serialize(destination=buf, format="pyjelly", stream=stream)
    data = buf.getvalue()
    assert jelly.read_options(data).physical_type.name == physical.upper()
    back = (Graph() if physical == "triples" else Dataset()).parse(data=data, format="jelly")
    assert_isomorphic(back, source)


def test_jelly_reads_pyjelly_namespaces(pyjelly_plugins, sensors):
    from pyjelly.options import StreamParameters
    from pyjelly.serialize.streams import SerializerOptions, TripleStream
    options = SerializerOptions(params=StreamParameters(namespace_declarations=True))
    buf = io.BytesIO()
    sensors.serialize(destination=buf, format="pyjelly",
                      stream=TripleStream.for_rdflib(options=options))
    back = Graph().parse(data=buf.getvalue(), format="jelly")
    assert dict(back.namespaces())["obs"] == URIRef("http://example.org/aarhus/observation/")
    assert_isomorphic(back, sensors)


@pytest.mark.parametrize("physical", ["triples", "quads", "graphs"])
def test_pyjelly_reads_jelly(physical, pyjelly_plugins, sensors, sensor_dataset):
    source = sensors if physical == "triples" else sensor_dataset
    data = source.serialize(format="jelly", encoding="utf-8", physical_type=physical)
    back = (Graph() if physical == "triples" else Dataset()).parse(data=data, format="pyjelly")
    assert_isomorphic(back, source)
    if physical == "triples":   # our namespace declarations, read by pyjelly
        assert dict(back.namespaces())["obs"] == \
            URIRef("http://example.org/aarhus/observation/")


@pytest.mark.parametrize("physical", ["triples", "quads", "graphs"])
def test_grouped_interop(physical, pyjelly_plugins, sensor_dataset):
    """Streams of graphs / datasets (one per frame) both ways."""
    from pyjelly.integrations.rdflib.parse import parse_jelly_grouped
    from pyjelly.integrations.rdflib.serialize import grouped_stream_to_file
    text = (DATA / "sensor-messages.nt").read_text()
    graphs = [Graph().parse(data=m, format="nt") for m in text.split("# @message\n")
              if m.strip()][:12]
    if physical == "triples":
        items = graphs
    else:
        items = []
        for i, g in enumerate(graphs):
            ds = Dataset()
            target = ds.graph(URIRef(f"http://example.org/m/{i}")) if i % 2 else ds.default_graph
            for t in g:
                target.add(t)
            items.append(ds)
    ours = serialize_grouped(items, physical_type=physical)
    theirs_read = list(parse_jelly_grouped(io.BytesIO(ours)))
    assert len(theirs_read) == len(items)
    for got, want in zip(theirs_read, items):
        assert_isomorphic(got, want)
    if physical != "graphs":     # pyjelly writes grouped streams as TRIPLES or QUADS
        buf = io.BytesIO()
        grouped_stream_to_file(iter(items), buf)
        back = list(parse_grouped(buf.getvalue()))
        assert len(back) == len(items)
        for got, want in zip(back, items):
            assert_isomorphic(got, want)
