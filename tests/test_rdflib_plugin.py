"""The rdflib plugin: registration, parsing, serializing, namespaces, streams of graphs.

Conformance through rdflib is in test_rdflib_conformance.py, round trips (property tests and
pyjelly interop) in test_rdflib_roundtrip.py.
"""

from __future__ import annotations

import gzip
import importlib.metadata
import io
import os
import subprocess
import sys
import threading

import pytest

import helpers
import jelly
import jelly.rdflib
from jelly._ntriples import parse_nquads
from jelly import BlankNode, IRI, Literal as JLiteral, Triple
from jelly.rdflib import (JellyParser, JellySerializer, NotRepresentableError, parse_graph,
                          parse_grouped, parse_statements, serialize, serialize_grouped)
from jelly.rdflib import streams as rstreams
from rdflib import BNode, Dataset, Graph, Literal, Namespace, URIRef, XSD
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.parser import Parser
from rdflib.serializer import Serializer

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:rdflib")

EX = Namespace("http://example.org/")
DATA = helpers.REPO_ROOT / "examples" / "data"


def sample_graph() -> Graph:
    g = Graph()
    g.bind("ex", EX)
    b = BNode()
    g.add((EX.alice, EX.name, Literal("Alice", lang="en")))
    g.add((EX.alice, EX.age, Literal("42", datatype=XSD.integer)))
    g.add((EX.alice, EX.knows, b))
    g.add((b, EX.name, Literal("Bob")))
    return g


def sample_dataset() -> Dataset:
    ds = Dataset()
    b = BNode()
    ds.add((EX.a, EX.p, Literal("default")))
    ds.add((EX.a, EX.p, b, EX.g1))
    ds.add((b, EX.q, Literal("in g1"), EX.g1))
    ds.add((EX.a, EX.p, Literal("in g2"), EX.g2))
    ds.add((EX.a, EX.p, Literal("in a blank graph"), BNode()))
    return ds


def canon(t):
    if isinstance(t, URIRef):
        return ("I", str(t))
    if isinstance(t, BNode):
        return ("B", str(t))
    dt = None if t.datatype is None else str(t.datatype)
    return ("L", str(t), t.language, dt)


def quads_of(ds) -> list:
    default = rstreams.default_graph(ds).identifier
    out = []
    for s, p, o, c in ds.quads((None, None, None, None)):
        ident = c.identifier if isinstance(c, Graph) else c
        g = ("D",) if ident in (default, DATASET_DEFAULT_GRAPH_ID) else canon(ident)
        out.append((canon(s), canon(p), canon(o), g))
    return out


def same_graph(a, b) -> bool:
    from oracle import isomorphism as iso
    if isinstance(a, Dataset) or isinstance(b, Dataset):
        return iso.unordered_isomorphic(quads_of(a), quads_of(b))
    return iso.unordered_isomorphic([tuple(map(canon, t)) for t in a],
                                    [tuple(map(canon, t)) for t in b])


def run_python(code: str, cwd) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=cwd, env=helpers.jelly_subprocess_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


# ------------------------------------------------------------------------------------------------
# registration
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("group,target", [
    ("rdf.plugins.parser", "jelly.rdflib.parser:JellyParser"),
    ("rdf.plugins.serializer", "jelly.rdflib.serializer:JellySerializer"),
])
def test_entry_points(group, target):
    ours = [ep for ep in importlib.metadata.entry_points(group=group) if ep.value == target]
    assert sorted(ep.name for ep in ours) == ["application/x-jelly-rdf", "jelly"]
    cls = ours[0].load()
    assert cls in (JellyParser, JellySerializer)


def test_rdflib_keeps_the_last_entry_point_of_a_name(tmp_path):
    """Without any import of jelly, rdflib has one plugin per name: the last entry point of
    that name in importlib.metadata's order (directory order, so not defined when pyjelly is
    installed too).  This is why importing jelly.rdflib re-registers ours."""
    out = run_python(
        "import importlib.metadata as m, rdflib.plugin as pl\n"
        "from rdflib.parser import Parser\n"
        "eps = [e for e in m.entry_points(group='rdf.plugins.parser') if e.name == 'jelly']\n"
        "print(len(eps) >= 1, pl._plugins[('jelly', Parser)].ep.value == eps[-1].value)\n"
        "import sys; print('jelly' in sys.modules)", tmp_path)
    assert out.splitlines() == ["True True", "False"]


@pytest.mark.parametrize("order", ["rdflib first", "jelly first"])
def test_import_of_jelly_rdflib_makes_format_jelly_ours(tmp_path, order):
    imports = ["import rdflib", "import jelly.rdflib"]
    if order == "jelly first":
        imports.reverse()
    out = run_python(
        "\n".join(imports) + "\n"
        "import sys, rdflib.util\n"
        "from rdflib.parser import Parser\n"
        "from rdflib.serializer import Serializer\n"
        "p = rdflib.plugin.get\n"
        "print(p('jelly', Parser).__module__, p('application/x-jelly-rdf', Parser).__module__,\n"
        "      p('jelly', Serializer).__module__,\n"
        "      p('application/x-jelly-rdf', Serializer).__module__)\n"
        "print(rdflib.util.guess_format('data/x.jelly'), rdflib.util.guess_format('X.JELLY'))",
        tmp_path)
    assert out.splitlines() == [
        "jelly.rdflib.parser jelly.rdflib.parser jelly.rdflib.serializer jelly.rdflib.serializer",
        "jelly jelly"]


def test_import_jelly_does_not_import_rdflib(tmp_path):
    # The core never touches rdflib; the adapter is opted into with `import jelly.rdflib`.
    out = run_python("import jelly, sys; jelly.parse(b''); print('rdflib' in sys.modules)",
                     tmp_path)
    assert out == "False"


def test_import_jelly_installs_no_import_hook(tmp_path):
    out = run_python("import sys; before = list(sys.meta_path); import jelly, jelly.rdflib\n"
                     "print(sys.meta_path == before)", tmp_path)
    assert out == "True"


def test_register_is_idempotent():
    jelly.rdflib.register()
    jelly.rdflib.register()
    import rdflib.plugin
    assert rdflib.plugin.get("jelly", Parser) is JellyParser
    assert rdflib.plugin.get("jelly", Serializer) is JellySerializer


def test_parse_by_suffix_without_format(tmp_path):
    path = tmp_path / "g.jelly"
    sample_graph().serialize(path, format="jelly")
    assert same_graph(Graph().parse(str(path)), sample_graph())


# ------------------------------------------------------------------------------------------------
# parsing: sources
# ------------------------------------------------------------------------------------------------

@pytest.fixture
def graph_bytes():
    return sample_graph().serialize(format="jelly", encoding="utf-8")


def test_parse_path_and_pathlib(tmp_path, graph_bytes):
    path = tmp_path / "g.jelly"
    path.write_bytes(graph_bytes)
    assert same_graph(Graph().parse(str(path), format="jelly"), sample_graph())
    assert same_graph(Graph().parse(path, format="jelly"), sample_graph())
    assert same_graph(Graph().parse(path.as_uri(), format="jelly"), sample_graph())


def test_parse_file_objects(tmp_path, graph_bytes):
    assert same_graph(Graph().parse(io.BytesIO(graph_bytes), format="jelly"), sample_graph())
    path = tmp_path / "g.jelly"
    path.write_bytes(graph_bytes)
    with open(path, "rb") as f:
        assert same_graph(Graph().parse(f, format="jelly"), sample_graph())
    with open(path, "rb") as f:
        assert same_graph(Graph().parse(file=f, format="jelly"), sample_graph())


def test_parse_bytes(graph_bytes):
    assert same_graph(Graph().parse(data=graph_bytes, format="jelly"), sample_graph())
    assert same_graph(Graph().parse(graph_bytes, format="jelly"), sample_graph())


def test_parse_gzip(tmp_path, graph_bytes):
    path = tmp_path / "g.jelly.gz"
    path.write_bytes(gzip.compress(graph_bytes))
    assert same_graph(Graph().parse(str(path), format="jelly"), sample_graph())


@pytest.mark.parametrize("name, fmt", [("g.jelly", "jelly"), ("g.jelly.gz", "jelly"),
                                       ("g.rt", "rdf-thrift"), ("g.rpb.gz", "rdf-protobuf")])
def test_a_failed_graph_serialize_to_a_path_leaves_no_partial_stream(tmp_path, name, fmt):
    """rdflib opens (and empties) the path before the serializer runs; a failure late in the
    graph left the frames written so far: a shorter stream that reads as whole."""
    g = Graph()
    for i in range(3000):
        g.add((URIRef(f"http://x/{i}"), URIRef("http://x/p"), Literal("v")))
    g.add((URIRef("http://x/zzz"), URIRef("http://x/p"), Literal("\ud800")))  # not UTF-8
    path = tmp_path / name
    with pytest.raises(Exception):
        g.serialize(str(path), format=fmt)
    assert path.read_bytes() == b""
    g.remove((URIRef("http://x/zzz"), None, None))
    g.serialize(str(path), format=fmt)
    back = Graph().parse(str(path), format=fmt)
    assert len(back) == 3000 and back.isomorphic(g)


def test_parse_non_seekable_pipe(graph_bytes):
    r, w = os.pipe()

    def feed():
        with os.fdopen(w, "wb") as out:
            for i in range(0, len(graph_bytes), 7):
                out.write(graph_bytes[i:i + 7])
                out.flush()

    t = threading.Thread(target=feed)
    t.start()
    with os.fdopen(r, "rb", buffering=0) as pipe:
        g = Graph().parse(pipe, format="jelly")
    t.join()
    assert same_graph(g, sample_graph())


def test_parse_text_is_refused(graph_bytes):
    with pytest.raises(jelly.JellyError, match="binary"):
        Graph().parse(data=graph_bytes.decode("latin-1"), format="jelly")


def test_parse_media_type_name(graph_bytes):
    g = Graph().parse(data=graph_bytes, format="application/x-jelly-rdf")
    assert same_graph(g, sample_graph())


def test_parse_kwargs(graph_bytes):
    with pytest.raises(jelly.JellyLimitError):
        Graph().parse(data=jelly.serialize(
            [(IRI("http://a"), IRI("http://b"), IRI("http://c"))], max_name_table_size=64),
            format="jelly", limits=jelly.ReaderLimits(max_name_table_size=16))
    with pytest.raises(jelly.JellyError, match="unknown Jelly parser option 'bogus'"):
        Graph().parse(data=graph_bytes, format="jelly", bogus=1)


def test_parse_bad_input_raises_jelly_error():
    with pytest.raises(jelly.JellyError):
        Graph().parse(data=b"\x05\x0a\x03\x08\x01", format="jelly")


# ------------------------------------------------------------------------------------------------
# parsing: graphs, datasets and the mismatched cases
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("physical", ["quads", "graphs"])
def test_dataset_round_trip(physical):
    ds = sample_dataset()
    data = ds.serialize(format="jelly", encoding="utf-8", physical_type=physical)
    assert jelly.read_options(data).physical_type.name == physical.upper()
    back = Dataset().parse(data=data, format="jelly")
    assert same_graph(back, ds)
    names = {str(g.identifier) for g in back.graphs() if len(g)}
    assert {"http://example.org/g1", "http://example.org/g2",
            str(DATASET_DEFAULT_GRAPH_ID)} <= names
    assert len(back.default_graph) == 1


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_conjunctive_graph():
    from rdflib import ConjunctiveGraph
    cg = ConjunctiveGraph()
    cg.add((EX.a, EX.p, EX.b))                       # its default context (a blank node name)
    cg.get_context(EX.g1).add((EX.a, EX.p, EX.c))
    data = cg.serialize(format="jelly", encoding="utf-8")
    assert {st[3] for st in jelly.parse(data)} == {jelly.DEFAULT_GRAPH, IRI(str(EX.g1))}
    back = ConjunctiveGraph().parse(data=data, format="jelly")
    assert len(back) == 2 and len(back.get_context(EX.g1)) == 1
    assert len(back.default_context) == 1


def test_quads_into_a_plain_graph_behave_like_nquads():
    """rdflib's N-Quads parser is the model: default graph into the graph, named graphs into
    other graphs of its store."""
    ds = sample_dataset()
    nq = ds.serialize(format="nquads", encoding="utf-8")
    data = ds.serialize(format="jelly", encoding="utf-8")
    ours, theirs = Graph(), Graph()
    ours.parse(data=data, format="jelly")
    theirs.parse(data=nq, format="nquads")
    assert len(ours) == len(theirs) == 1
    assert same_graph(ours, theirs)

    def named(g):
        return sorted((str(c.identifier), len(c)) for c in g.store.contexts()
                      if isinstance(c.identifier, URIRef))
    assert named(ours) == named(theirs) == [("http://example.org/g1", 2),
                                            ("http://example.org/g2", 1)]


def test_triples_into_a_dataset_go_to_the_default_graph():
    data = sample_graph().serialize(format="jelly", encoding="utf-8")
    ds = Dataset().parse(data=data, format="jelly")
    assert len(ds.default_graph) == 4
    assert [g for g in ds.graphs() if len(g) and g.identifier != DATASET_DEFAULT_GRAPH_ID] == []


def test_named_graph_into_a_store_without_contexts():
    data = sample_dataset().serialize(format="jelly", encoding="utf-8")
    with pytest.raises(jelly.JellyError, match="not context-aware.*Dataset"):
        Graph(store="SimpleMemory").parse(data=data, format="jelly")
    # a QUADS stream with only the default graph is fine
    only_default = Dataset()
    only_default.add((EX.a, EX.p, EX.b))
    g = Graph(store="SimpleMemory").parse(
        data=only_default.serialize(format="jelly", encoding="utf-8"), format="jelly")
    assert list(g) == [(EX.a, EX.p, EX.b)]


def test_graph_subclass_add_is_used():
    class Counting(Graph):
        added = 0

        def add(self, triple):
            type(self).added += 1
            return super().add(triple)

    g = Counting().parse(data=sample_graph().serialize(format="jelly", encoding="utf-8"),
                         format="jelly")
    assert Counting.added == 4 and len(g) == 4


def test_other_stores_get_addn():
    calls = []

    class Store(type(Graph().store)):
        def addN(self, quads):    # noqa: N802 - rdflib's name
            quads = list(quads)
            calls.append(len(quads))
            super().addN(quads)

    g = Graph(store=Store())
    g.parse(data=sample_graph().serialize(format="jelly", encoding="utf-8"), format="jelly")
    assert calls == [4] and same_graph(g, sample_graph())


def test_literals_keep_their_lexical_form_and_language_case():
    statements = [
        (IRI("http://a"), IRI("http://p"), JLiteral("01", datatype=str(XSD.integer))),
        (IRI("http://a"), IRI("http://p"), JLiteral(" 1.50 ", datatype=str(XSD.decimal))),
        (IRI("http://a"), IRI("http://p"), JLiteral("x", language="en-US")),
        (IRI("http://a"), IRI("http://p"), JLiteral("typed", datatype=str(XSD.string))),
        (IRI("http://a"), IRI("http://p"), JLiteral("c\x00\x01\n\t\x7f")),
    ]
    g = Graph().parse(data=jelly.serialize(statements), format="jelly")
    got = {(str(o), o.language, o.datatype) for o in g.objects()}
    assert got == {("01", None, XSD.integer), (" 1.50 ", None, XSD.decimal),
                   ("x", "en-US", None), ("typed", None, None),
                   ("c\x00\x01\n\t\x7f", None, None)}


def test_literal_rdflib_refuses():
    data = jelly.serialize([(IRI("http://a"), IRI("http://p"), JLiteral("x", language="en_US"))])
    with pytest.raises(NotRepresentableError, match=r"en_US.*jelly\.parse") as info:
        Graph().parse(data=data, format="jelly")
    assert info.value.frame == 0


def test_rdf_star_fails_clearly():
    data = jelly.serialize([(IRI("http://a"), IRI("http://says"),
                             Triple(IRI("http://s"), IRI("http://p"), IRI("http://o")))],
                           rdf_star=True)
    with pytest.raises(NotRepresentableError) as info:
        Graph().parse(data=data, format="jelly")
    message = str(info.value)
    assert "RDF-star" in message and "jelly.parse(source)" in message
    assert info.value.frame == 0 and info.value.row is not None
    with pytest.raises(NotRepresentableError):
        list(parse_statements(data))
    with pytest.raises(NotRepresentableError):
        list(parse_grouped(data))
    # the alternative works
    assert len(list(jelly.parse(data))) == 1


def test_generalized_statements_round_trip():
    g = Graph()
    g.add((Literal("subject"), EX.p, EX.o))
    g.add((EX.s, BNode(), Literal("bnode predicate")))
    g.add((EX.s, Literal("literal predicate"), EX.o))
    with pytest.raises(jelly.JellyEncodeError, match="generalized"):
        g.serialize(format="jelly", encoding="utf-8")
    data = g.serialize(format="jelly", encoding="utf-8", generalized_statements=True)
    assert jelly.read_options(data).generalized_statements
    assert same_graph(Graph().parse(data=data, format="jelly"), g)


def test_literal_graph_name_is_not_representable():
    data = jelly.serialize([(IRI("http://s"), IRI("http://p"), IRI("http://o"),
                             JLiteral("graph"))], generalized_statements=True)
    with pytest.raises(NotRepresentableError, match="literal"):
        Dataset().parse(data=data, format="jelly")


# ------------------------------------------------------------------------------------------------
# serializing
# ------------------------------------------------------------------------------------------------

def test_serialize_without_destination_or_encoding_fails_clearly():
    with pytest.raises(jelly.JellyError, match=r"encoding='utf-8'"):
        sample_graph().serialize(format="jelly")
    with pytest.raises(jelly.JellyError, match=r"returns str"):
        sample_dataset().serialize(format="jelly")


def test_serialize_bytes_and_destinations(tmp_path):
    g = sample_graph()
    data = g.serialize(format="jelly", encoding="utf-8")
    assert isinstance(data, bytes) and data == serialize(g)
    assert g.serialize(format="jelly", encoding="latin-1") == data   # encoding is ignored
    path = tmp_path / "g.jelly"
    assert g.serialize(path, format="jelly") is g
    assert path.read_bytes() == data
    g.serialize(str(tmp_path / "g2.jelly"), format="jelly")
    assert (tmp_path / "g2.jelly").read_bytes() == data
    buf = io.BytesIO()
    g.serialize(buf, format="jelly")
    assert buf.getvalue() == data
    serialize(g, str(tmp_path / "g.jelly.gz"))
    assert gzip.decompress((tmp_path / "g.jelly.gz").read_bytes()) == data
    g.serialize(tmp_path / "g2.jelly.gz", format="jelly")
    assert gzip.decompress((tmp_path / "g2.jelly.gz").read_bytes()) == data
    assert same_graph(Graph().parse(tmp_path / "g2.jelly.gz", format="jelly"), g)
    with pytest.raises(jelly.JellyError, match="binary"):
        g.serialize(io.StringIO(), format="jelly")


def test_physical_types():
    assert jelly.read_options(serialize(sample_graph())).physical_type.name == "TRIPLES"
    assert jelly.read_options(serialize(sample_dataset())).physical_type.name == "QUADS"
    graphs = serialize(sample_dataset(), physical_type="graphs")
    assert jelly.read_options(graphs).physical_type.name == "GRAPHS"
    as_quads = serialize(sample_graph(), physical_type="quads")
    assert {st[3] for st in jelly.parse(as_quads)} == {jelly.DEFAULT_GRAPH}
    with pytest.raises(jelly.JellyEncodeError, match="named graph"):
        serialize(sample_dataset(), physical_type="triples")
    only_default = Dataset()
    only_default.add((EX.a, EX.p, EX.b))
    assert list(jelly.parse(serialize(only_default, physical_type="triples"))) == [
        (IRI(str(EX.a)), IRI(str(EX.p)), IRI(str(EX.b)))]


def test_what_is_no_rdf_term_is_named_in_the_error():
    """An N3 variable was reported as a missing term (None); an N3 formula says so."""
    from rdflib import Variable
    g = Graph()
    g.add((EX.x, EX.y, Variable("v")))
    with pytest.raises(jelly.JellyEncodeError, match=r"not an RDF term: .*Variable\('v'\)"):
        g.serialize(format="jelly", encoding="utf-8")
    g = Graph().parse(data="@prefix : <http://e/> . { :a :b :c } :d :e .", format="n3")
    with pytest.raises(jelly.JellyError, match="N3 formula"):
        g.serialize(format="jelly", encoding="utf-8", generalized_statements=True)


def test_writer_options_as_keywords():
    g = Graph()
    for i in range(50):
        g.add((EX[f"s{i}"], EX.p, Literal(i)))
    data = g.serialize(format="jelly", encoding="utf-8", preset="small")
    o = jelly.read_options(data)
    assert (o.max_name_table_size, o.max_prefix_table_size, o.max_datatype_table_size) == \
        (128, 16, 16)
    data = g.serialize(format="jelly", encoding="utf-8", max_name_table_size=8,
                       max_prefix_table_size=0, max_datatype_table_size=2, rows_per_frame=10,
                       logical_type="graphs", stream_name="s1")
    o = jelly.read_options(data)
    assert (o.max_name_table_size, o.max_prefix_table_size, o.max_datatype_table_size,
            o.logical_type.name, o.stream_name) == (8, 0, 2, "GRAPHS", "s1")
    assert len(list(jelly.parse_frames(data))) == 1      # a GRAPHS stream's one element
    assert same_graph(Graph().parse(data=data, format="jelly"), g)
    data = g.serialize(format="jelly", encoding="utf-8", rows_per_frame=10)
    assert len(list(jelly.parse_frames(data))) > 5
    single = g.serialize(format="jelly", encoding="utf-8", delimited=False)
    with jelly.Reader(single) as reader:
        list(reader)
        assert reader.delimited is False
    base = jelly.preset("small", physical_type=jelly.PhysicalStreamType.TRIPLES)
    data = g.serialize(format="jelly", encoding="utf-8", options=base)
    assert jelly.read_options(data).max_name_table_size == 128
    with pytest.raises(jelly.JellyOptionsError, match="unknown Jelly serializer option 'colour'"):
        g.serialize(format="jelly", encoding="utf-8", colour="red")
    with pytest.raises(jelly.JellyOptionsError):
        g.serialize(format="jelly", encoding="utf-8", max_name_table_size=4)
    with pytest.raises(jelly.JellyOptionsError):
        g.serialize(format="jelly", encoding="utf-8", options="big")


def test_serializer_groups_by_subject_and_relabels_blank_nodes():
    g = Graph().parse(DATA / "sensors.nt", format="nt")
    ours = serialize(g)
    source_order = jelly.serialize(jelly.parse(jelly.serialize(
        parse_nquads((DATA / "sensors.nt").read_bytes()))))
    hash_order = jelly.serialize(list(g), term_adapter=jelly.rdflib.make_term_adapter())
    assert len(ours) <= len(source_order) * 1.02 < len(hash_order)
    labels = {t.value for st in jelly.parse(ours) for t in st if isinstance(t, BlankNode)}
    assert labels and all(len(label) <= 2 for label in labels)
    subjects = [st[0] for st in jelly.parse(ours)]
    runs = sum(1 for a, b in zip(subjects, subjects[1:]) if a != b) + 1
    assert runs == len(set(subjects))      # each subject's triples together


@pytest.mark.parametrize("how", ["whole store", "shared store", "other store", "after removal"])
def test_statement_order_paths_give_every_triple(how):
    g = Graph().parse(DATA / "sensors.nt", format="nt")
    if how == "shared store":
        ds = Dataset()
        ds.graph(EX.other).add((EX.x, EX.y, EX.z))
        target = ds.graph(EX.main)
        for t in g:
            target.add(t)
        g = target
    elif how == "other store":
        other = Graph(store="SimpleMemory")
        for t in g:
            other.add(t)
        g = other
    elif how == "after removal":
        for t in list(g)[:50]:
            g.remove(t)
    adapt = jelly.rdflib.make_term_adapter()
    got = list(rstreams._triples(g, adapt))
    assert len(got) == len(g)
    back = Graph().parse(data=serialize(g), format="jelly")
    assert same_graph(back, g)


def test_dataset_quads_paths_agree():
    ds = Dataset()
    for i in range(3):
        for j in range(5):
            ds.add((EX[f"s{j}"], EX.p, Literal(j), EX[f"g{i}"]))   # one triple in many graphs
    ds.add((EX.s0, EX.p, Literal(0)))
    fast = list(rstreams._quads(ds, jelly.rdflib.make_term_adapter()))
    assert len(fast) == 16
    # the quads of one triple come together
    triples = [st[:3] for st in fast]
    runs = sum(1 for a, b in zip(triples, triples[1:]) if a != b) + 1
    assert runs == 5
    back = Dataset().parse(data=serialize(ds), format="jelly")
    assert same_graph(back, ds)


# ------------------------------------------------------------------------------------------------
# namespaces
# ------------------------------------------------------------------------------------------------

def test_namespace_bindings_round_trip():
    g = sample_graph()
    g.bind("schema", "http://schema.org/", replace=True)   # rdflib binds https://
    g.bind("", "http://example.org/default#")
    data = g.serialize(format="jelly", encoding="utf-8")
    assert jelly.read_options(data).version == 2
    declared = {name: iri.value for f in jelly.parse_frames(data) for name, iri in f.namespaces}
    assert declared == {"ex": str(EX), "schema": "http://schema.org/",
                        "": "http://example.org/default#"}
    back = Graph().parse(data=data, format="jelly")
    bound = dict(back.namespaces())
    assert bound["ex"] == URIRef(str(EX)) and bound["schema"] == URIRef("http://schema.org/")
    assert bound[""] == URIRef("http://example.org/default#")


def test_namespace_options():
    g = sample_graph()
    none = g.serialize(format="jelly", encoding="utf-8", namespaces=False)
    assert jelly.read_options(none).version == 1
    assert not any(f.namespaces for f in jelly.parse_frames(none))
    everything = g.serialize(format="jelly", encoding="utf-8", namespaces=True)
    declared = {n for f in jelly.parse_frames(everything) for n, _ in f.namespaces}
    assert {"ex", "rdf", "xsd", "owl"} <= declared
    chosen = g.serialize(format="jelly", encoding="utf-8", namespaces={"e": str(EX)})
    assert [(n, i.value) for f in jelly.parse_frames(chosen) for n, i in f.namespaces] == \
        [("e", str(EX))]
    with pytest.raises(jelly.JellyOptionsError):
        g.serialize(format="jelly", encoding="utf-8", namespaces=["ex"])


def test_namespace_from_another_writer_is_bound():
    data = jelly.serialize([(IRI("http://x.org/a"), IRI("http://x.org/b"), IRI("http://x.org/c"))],
                           namespaces={"x": "http://x.org/"})
    assert dict(Graph().parse(data=data, format="jelly").namespaces())["x"] == \
        URIRef("http://x.org/")


# ------------------------------------------------------------------------------------------------
# streams of graphs and datasets, and flat statements
# ------------------------------------------------------------------------------------------------

def messages(n):
    for i in range(n):
        g = Graph()
        b = BNode()
        g.add((EX[f"obs{i}"], EX.result, b))
        g.add((b, EX.value, Literal(i)))
        yield g


def test_grouped_round_trip_with_metadata():
    data = serialize_grouped((g, {"seq": str(i).encode()}) for i, g in enumerate(messages(4)))
    o = jelly.read_options(data)
    assert o.logical_type.name == "GRAPHS" and o.physical_type.name == "TRIPLES"
    got = list(parse_grouped(data, metadata=True))
    assert [m for _, m in got] == [{"seq": str(i).encode()} for i in range(4)]
    for (g, _), want in zip(got, messages(4)):
        assert same_graph(g, want)
    # blank nodes are per frame: four different nodes
    nodes = {o for g, _ in got for o in g.objects(None, EX.result)}
    assert len(nodes) == 4


def test_grouped_datasets():
    def datasets():
        for i in range(3):
            ds = Dataset()
            ds.add((EX.s, EX.p, Literal(i)))
            ds.add((EX.s, EX.p, Literal(i), EX[f"g{i}"]))
            yield ds
    for physical in ("quads", "graphs"):
        data = serialize_grouped(datasets(), physical_type=physical)
        o = jelly.read_options(data)
        assert (o.physical_type.name, o.logical_type.name) == (physical.upper(), "DATASETS")
        got = list(parse_grouped(data))
        assert len(got) == 3 and all(isinstance(d, Dataset) for d in got)
        for d, want in zip(got, datasets()):
            assert same_graph(d, want)


def test_grouped_empty_messages_and_namespaces():
    first = Graph()
    first.bind("ex", EX)
    first.add((EX.a, EX.b, EX.c))
    data = serialize_grouped([first, Graph(), Graph()])
    frames = list(jelly.parse_frames(data))
    assert [len(f.statements) for f in frames] == [1, 0, 0]       # no extra frame
    assert frames[0].namespaces and frames[0].namespaces[0][0] == "ex"
    got = list(parse_grouped(data))
    assert [len(g) for g in got] == [1, 0, 0]
    assert all(dict(g.namespaces())["ex"] == URIRef(str(EX)) for g in got)
    assert serialize_grouped([]) == jelly.serialize_frames([])


def test_grouped_write_holds_one_frame():
    out = io.BytesIO()
    sizes = []

    def gen():
        for g in messages(5):
            sizes.append(len(out.getvalue()))
            yield g
    serialize_grouped(gen(), out)
    # each graph is written before the next one is asked for
    assert sizes == sorted(sizes) and len(set(sizes[1:])) == 4


def test_grouped_read_is_incremental():
    data = serialize_grouped(messages(200))
    stream = helpers.Pieces(data)
    it = parse_grouped(stream)
    first = next(it)
    assert len(first) == 2 and stream.pos < len(data) // 2
    assert sum(1 for _ in it) == 199


def test_flat_statements_incremental():
    g = Graph()
    for i in range(3000):
        g.add((EX[f"s{i}"], EX.p, Literal(i)))
    data = serialize(g, rows_per_frame=100)
    stream = helpers.Pieces(data, piece=64)
    it = parse_statements(stream)
    s, p, o = next(it)
    assert isinstance(s, URIRef) and isinstance(o, Literal)
    assert stream.pos < len(data) // 2
    assert 1 + sum(1 for _ in it) == 3000


def test_flat_statements_quads():
    got = list(parse_statements(serialize(sample_dataset())))
    assert len(got) == 5 and all(len(st) == 4 for st in got)
    graphs = {st[3] for st in got}
    assert DATASET_DEFAULT_GRAPH_ID in graphs and EX.g1 in graphs


def test_flat_stream_shares_blank_nodes_across_frames():
    b = BlankNode("b")
    data = jelly.serialize([(b, IRI("http://p"), JLiteral(str(i))) for i in range(5)],
                           rows_per_frame=1)
    assert len(list(jelly.parse_frames(data))) == 5
    g = Graph().parse(data=data, format="jelly")
    assert len(set(g.subjects())) == 1
    assert len({st[0] for st in parse_statements(data)}) == 1


def test_one_statement_frames_fill_a_graph_up_to_a_broken_frame():
    """A flat stream of RDF messages is read in runs of frames: every namespace declared
    along the way is bound, the frame count is the stream's, and a broken frame leaves the
    graph holding exactly the statements of the frames before it."""
    sts = [(IRI(f"http://ex/s{i % 7}"), IRI("http://ex/p"), JLiteral(f"v{i}")) for i in range(900)]
    out = io.BytesIO()
    with jelly.Writer(out, rows_per_frame=1) as w:
        for i, st in enumerate(sts):
            if i % 100 == 0:
                w.declare_namespace(f"n{i}", f"http://ns/{i}/")
            w.write(st)
    data = out.getvalue()
    frames = list(jelly.parse_frames(data))
    assert len(frames) == len(sts)
    g, count = rstreams._parse_graph(data)
    assert count == len(frames) and len(g) == len(sts)
    bound = dict(g.namespaces())
    assert all(bound[f"n{i}"] == URIRef(f"http://ns/{i}/") for i in range(0, 900, 100))
    want = {(URIRef(s.value), URIRef(p.value), Literal(o.lex)) for s, p, o in sts[:612]}
    at = data.index(b"v612")
    g = Graph()
    with pytest.raises(jelly.JellyError):
        jelly.rdflib.load(g, data[:at] + b"\xff" + data[at + 1:])
    assert set(g) == want


def test_a_graph_written_with_a_grouped_logical_type_reads_back_the_same():
    """One Graph is one element of a GRAPHS stream: one frame, not one per 1,024 rows, which
    the parser, scoping blank nodes per frame, read back with three nodes in place of one.
    SUBJECT_GRAPHS: a frame per subject."""
    from rdflib.compare import isomorphic
    g = Graph()
    b = BNode()
    for i in range(2000):
        g.add((b, EX.p, Literal(i)))
        g.add((EX[f"s{i % 3}"], EX.q, b))
    data = g.serialize(format="jelly", encoding="utf-8", logical_type="graphs")
    assert len(list(jelly.parse_frames(data))) == 1
    back = Graph().parse(data=data, format="jelly")
    assert len(set(back.subjects(EX.p))) == 1 and isomorphic(back, g)
    data = g.serialize(format="jelly", encoding="utf-8", logical_type="subject_graphs")
    subjects = [{st[0] for st in f.statements} for f in jelly.parse_frames(data)]
    assert len(subjects) == 4 and all(len(s) == 1 for s in subjects)


def test_a_dataset_written_as_named_graphs_has_a_frame_per_graph():
    ds = Dataset()
    for k in range(3):
        graph = ds.graph(EX[f"g{k}"])
        for i in range(900):
            graph.add((EX[f"s{i % 5}"], EX.p, Literal(i)))
    data = ds.serialize(format="jelly", encoding="utf-8", logical_type="named_graphs")
    frames = [list(f.statements) for f in jelly.parse_frames(data)]
    assert [len(f) for f in frames] == [900] * 3
    assert [{st[3] for st in f} for f in frames] == \
        [{IRI(EX + f"g{k}")} for k in range(3)]


def test_grouped_stream_blank_nodes_and_repeated_terms_across_frames():
    """A repeated term may refer to the previous frame: in a grouped stream it stands for the
    node of that label in *this* frame."""
    b, p = BlankNode("b"), IRI("http://p")
    with jelly.Writer(None, logical_type="graphs") as w:
        w.write_frame([(b, p, JLiteral("1"))])
        # frame 1 starts with subject and predicate repeated from frame 0 ...
        w.write_frame([(b, p, JLiteral("2")), (IRI("http://x"), p, b)])
        w.write_frame([(b, IRI("http://q"), JLiteral("3"))])
        data = w.getvalue()
    rows = [f.rows for f in jelly.parse_frames(data)]
    assert rows[1]["triple"] == 2
    graphs = list(parse_grouped(data))
    rp = URIRef("http://p")
    n0 = next(graphs[0].subjects(rp))
    n1 = next(graphs[1].subjects(rp, Literal("2")))
    assert n0 != n1                                           # scoped per frame
    assert (URIRef("http://x"), URIRef("http://p"), n1) in graphs[1]   # one node in frame 1
    n2 = next(graphs[2].subjects())
    assert n2 not in (n0, n1)
    # the same through Graph.parse of the grouped stream and parse_statements
    merged = Graph().parse(data=data, format="jelly")
    assert len(set(merged.subjects(None, None)) - {URIRef("http://x")}) == 3
    flat = list(parse_statements(data))
    assert flat[1][0] == flat[2][2] != flat[0][0]


def test_parse_graph_picks_graph_or_dataset(tmp_path):
    assert type(parse_graph(serialize(sample_graph()))) is Graph
    ds = parse_graph(serialize(sample_dataset(), physical_type="graphs"))
    assert isinstance(ds, Dataset) and same_graph(ds, sample_dataset())
    target = Dataset()
    jelly.rdflib.load(target, serialize(sample_dataset()))
    assert same_graph(target, sample_dataset())


def test_public_api_surface():
    expected = {"FORMAT_NAMES", "MEDIA_TYPE", "register", "JellyParser", "JellySerializer",
                "parse_graph", "parse_grouped", "parse_statements", "load", "serialize",
                "serialize_grouped", "NotRepresentableError", "TermFactory",
                "make_term_adapter"}
    assert set(jelly.rdflib.__all__) == expected
    for name in expected:
        assert getattr(jelly.rdflib, name) is not None
    with pytest.raises(AttributeError):
        jelly.rdflib.nothing_here  # noqa: B018
