"""The rdflib internals that jelly/rdflib/_compat.py reads are still there (see docs/rdflib.md):
these tests fail when rdflib changes, so the workarounds are revisited instead of silently
falling back to the slow paths."""

import inspect

import pytest
import rdflib
from rdflib import Dataset, Graph, Literal, URIRef

from jelly.rdflib import _compat


def test_installed_rdflib_is_a_checked_version():
    assert _compat.SUPPORTED, (
        f"rdflib {rdflib.__version__} is outside the versions whose internals were checked "
        f"({_compat.TESTED}); check jelly/rdflib/_compat.py against it and extend TESTED")


def test_graph_serialize_still_decodes_without_an_encoding():
    # The reason for serialize_call: rdflib turns the bytes into str when neither a
    # destination nor an encoding is given.
    source = inspect.getsource(Graph.serialize)
    assert 'stream.getvalue().decode("utf-8")' in source
    params = inspect.signature(Graph.serialize).parameters
    assert "destination" in params and "encoding" in params


@pytest.mark.parametrize("call,expected", [
    (lambda g: g.serialize(format="jelly"), None),
    (lambda g: g.serialize(format="jelly", encoding="utf-8"), bytes),
])
def test_serialize_call_sees_the_arguments(call, expected):
    import jelly
    import jelly.rdflib  # noqa: F401 - our plugin under format="jelly"
    g = Graph()
    g.add((URIRef("http://e/s"), URIRef("http://e/p"), Literal("o")))
    if expected is None:
        with pytest.raises(jelly.JellyError, match="encoding='utf-8'"):
            call(g)
    else:
        assert isinstance(call(g), expected)


def test_serialize_call_outside_graph_serialize():
    assert _compat.serialize_call() is _compat.NOT_GRAPH_SERIALIZE


def test_memory_indexes_are_found_and_consistent():
    g = Graph()
    s, p = URIRef("http://e/s"), URIRef("http://e/p")
    g.add((s, p, Literal("1")))
    g.add((s, p, Literal("2")))
    ix = _compat.memory_indexes(g.store)
    assert ix is not None, "the Memory store's private indexes are gone"
    assert set(ix.spo[s][p]) == {Literal("1"), Literal("2")}
    assert len(ix.context_triples[ix.context_key(g)]) == 2
    ds = Dataset()
    ds.graph(URIRef("http://e/g")).add((s, p, Literal("3")))
    ix = _compat.memory_indexes(ds.store)
    # Per triple, its contexts (the triples in the same contexts as the first one share the
    # default record), by context key; the key leads to the context object.
    keys = ix.triple_contexts.get((s, p, Literal("3")), ix.default_contexts)
    named = [k for k, quoted in keys.items() if k is not None and not quoted]
    assert [str(ix.context_objects[k].identifier) for k in named] == ["http://e/g"]


def test_other_stores_use_the_public_api():
    from rdflib.plugins.stores.memory import SimpleMemory
    assert _compat.memory_indexes(SimpleMemory()) is None


@pytest.mark.parametrize("store", ["Memory", "SimpleMemory"])
def test_unbind_removes_a_binding_from_memory_stores(store):
    g = Graph(store=store, bind_namespaces="none")
    g.bind("ex", "http://e/")
    g.bind("other", "http://o/")
    assert g.namespace_manager.compute_qname("http://e/x")[0] == "ex"   # cached now
    assert _compat.unbind(g, "ex") is True
    assert dict(g.namespaces()) == {"other": URIRef("http://o/")}
    assert g.store.prefix(URIRef("http://e/")) is None
    # the namespace manager's caches forgot it: a new prefix is made up, "ex" is not reused
    assert g.namespace_manager.compute_qname("http://e/x")[0] != "ex"
    assert _compat.unbind(g, "missing") is True


def test_unbind_leaves_other_stores_alone():
    class OtherStore(rdflib.store.Store):
        pass

    assert _compat.unbind(Graph(store=OtherStore()), "x") is False
