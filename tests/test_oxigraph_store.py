"""The pyoxigraph bridge: ``jelly.oxigraph.load`` (Jelly into a ``pyoxigraph.Store``) and
``jelly.oxigraph.serialize`` (a Store or any iterable of pyoxigraph quads as Jelly), checked
against the oracle decoder and pyoxigraph's own N-Quads reader."""

from __future__ import annotations

import gzip

import pyoxigraph as ox
import pytest

import helpers
import jelly
import jelly.oxigraph as jo
from oracle import jelly_rdf as rd, ntriples as ntr, terms as neutral
from oracle.isomorphism import unordered_isomorphic
from test_cli import QUADS

SENSORS = helpers.REPO_ROOT / "examples" / "data" / "sensors.nt"


def neutral_of_ox(t):
    if isinstance(t, ox.NamedNode):
        return ("I", t.value)
    if isinstance(t, ox.BlankNode):
        return ("B", t.value)
    if isinstance(t, ox.Literal):
        dt = t.datatype.value
        return ("L", t.value, t.language,
                None if t.language or dt == neutral.XSD_STRING else dt)
    if isinstance(t, ox.DefaultGraph):
        return ("D",)
    return ("T", neutral_of_ox(t.subject), neutral_of_ox(t.predicate), neutral_of_ox(t.object))


def store_statements(store):
    return [neutral.nq_shape(tuple(neutral_of_ox(x) for x in
                                   (q.subject, q.predicate, q.object, q.graph_name)))
            for q in store]


def decoded(data):
    return [neutral.nq_shape(st) for frame in rd.decode(data)[1] for st in frame]


def test_load_into_a_new_and_an_existing_store(tmp_path):
    data = jelly.serialize([tuple(helpers.to_jelly(t) for t in st)
                            for st in ntr.parse_nquads(QUADS)], physical_type="quads")
    store = jo.load(data)
    assert unordered_isomorphic(store_statements(store), decoded(data))
    (tmp_path / "s.jelly.gz").write_bytes(gzip.compress(jelly.serialize(
        [tuple(helpers.to_jelly(t) for t in st) for st in ntr.parse_nquads(SENSORS.read_bytes())])))
    assert jo.load(tmp_path / "s.jelly.gz", store) is store
    assert len(store) == 4 + 420
    assert len(list(store.named_graphs())) == 2


def test_load_rdf12_triple_terms_and_refuse_quoted_subjects():
    quoted = jelly.Triple(jelly.IRI("http://a"), jelly.IRI("http://p"), jelly.Literal("x"))
    ok = jelly.serialize([(jelly.IRI("http://s"), jelly.IRI("http://p"), quoted)], rdf_star=True)
    (q,) = jo.load(ok)
    assert isinstance(q.object, ox.Triple) and q.object.object == ox.Literal("x")
    bad = jelly.serialize([(quoted, jelly.IRI("http://p"), jelly.IRI("http://o"))], rdf_star=True)
    with pytest.raises(jelly.JellyError, match="quoted triple as subject"):
        jo.load(bad)
    with pytest.raises(jelly.JellyDecodeError, match="not a Jelly file"):
        jo.load(SENSORS)


def test_serialize_a_store():
    store = ox.Store()
    store.bulk_load(input=SENSORS.read_bytes(), format=ox.RdfFormat.N_TRIPLES)
    data = jo.serialize(store, preset="small", rows_per_frame=100)
    options, frames = rd.decode(data)
    assert options.physical_type == 1 and options.max_name_table_size == 128   # no graphs
    assert len(frames) > 4
    assert unordered_isomorphic(decoded(data), store_statements(store))
    store.add(ox.Quad(ox.NamedNode("http://a"), ox.NamedNode("http://p"), ox.Literal("1"),
                      ox.NamedNode("http://g")))
    data = jo.serialize(store)
    assert rd.read_options(data).physical_type == 2
    assert unordered_isomorphic(decoded(data), store_statements(store))


def test_serialize_an_iterable(tmp_path):
    quads = list(ox.parse(QUADS, format=ox.RdfFormat.N_QUADS))
    jo.serialize(quads, tmp_path / "q.jelly", physical_type="graphs")
    data = (tmp_path / "q.jelly").read_bytes()
    assert rd.read_options(data).physical_type == 3
    assert unordered_isomorphic(decoded(data), [neutral.nq_shape(st)
                                                for st in ntr.parse_nquads(QUADS)])
    triples = [ox.Triple(ox.BlankNode("b"), ox.NamedNode("http://p"),
                         ox.Literal("x", language="en"))]
    assert rd.decode(jo.serialize(triples))[1] == [[(("B", "b"), ("I", "http://p"),
                                                      ("L", "x", "en", None))]]
    star = [ox.Triple(ox.NamedNode("http://s"), ox.NamedNode("http://p"), triples[0])]
    with pytest.raises(jelly.JellyEncodeError, match="rdf_star"):
        jo.serialize(star)
    assert rd.decode(jo.serialize(star, rdf_star=True))[0].rdf_star
    # quads whose first is in the default graph are still a QUADS stream, the default graph
    # kept apart from the named one
    mixed = [ox.Quad(ox.NamedNode("http://s"), ox.NamedNode("http://p"), ox.Literal("1"),
                     ox.DefaultGraph()),
             ox.Quad(ox.NamedNode("http://s"), ox.NamedNode("http://p"), ox.Literal("2"),
                     ox.NamedNode("http://g"))]
    options, frames = rd.decode(jo.serialize(mixed))
    assert options.physical_type == 2
    assert [st[3] for f in frames for st in f] == [("D",), ("I", "http://g")]


def test_load_holds_what_loading_the_n_triples_holds():
    """Loading Jelly gives the store what pyoxigraph's own loader makes of the same statements
    as N-Triples (a Store keeps values: "25.0"^^xsd:double comes back as "25" either way)."""
    data = jelly.serialize([tuple(helpers.to_jelly(t) for t in st)
                            for st in ntr.parse_nquads(SENSORS.read_bytes())])
    reference = ox.Store()
    reference.bulk_load(input=SENSORS.read_bytes(), format=ox.RdfFormat.N_TRIPLES)
    assert unordered_isomorphic(store_statements(jo.load(data)), store_statements(reference))
    again = jo.serialize(jo.load(data))
    assert unordered_isomorphic(decoded(again), store_statements(reference))
