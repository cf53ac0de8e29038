"""RDF Patch with rdflib (``jelly.rdflib.patch``): applying patches to Graphs and Datasets
(transactions: an aborted one leaves the graph as it was), the patch between two graphs, and
recording the changes made to a graph, replayed on a replica.

Expected graphs are built by hand with rdflib's own API; replicas are compared with rdflib's
set of statements (blank nodes keep their ids, so equality is exact) and ``isomorphic``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import BNode, Dataset, Graph, Literal, Namespace, URIRef
from rdflib.compare import isomorphic
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

import jelly
from jelly import patch as jpatch
from jelly import rdfpatch
from jelly.rdflib.patch import ChangeRecorder, apply_patch, diff, read_operations, record
from jelly.rdfpatch import TX_ABORT, TX_COMMIT, TX_START, Add, Delete, PrefixAdd, PrefixDelete

from helpers import REPO_ROOT

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:rdflib")

EX = Namespace("http://ex/")
EXAMPLES = REPO_ROOT.parent / "shared" / "patch-examples"


def J(iri):
    """The jelly IRI of an rdflib URIRef."""
    return jelly.IRI(str(iri))


def quads(ds):
    return {(s, p, o, None if g == DATASET_DEFAULT_GRAPH_ID else g)
            for s, p, o, g in ds.quads((None, None, None, None))}


def text(t: str) -> bytes:
    return t.encode()


# -- apply ---------------------------------------------------------------------------------

def test_apply_to_a_graph_with_transactions():
    g = Graph()
    g.add((EX.s, EX.p, Literal("keep")))
    g.add((EX.s, EX.p, Literal("old")))
    result = apply_patch(g, text(
        'TX .\nD <http://ex/s> <http://ex/p> "old" .\nA _:b1 <http://ex/p> "new"@en .\nTC .\n'
        'TX .\nD <http://ex/s> <http://ex/p> "keep" .\nA <http://ex/x> <http://ex/y> _:b2 .\n'
        "TA .\n"
        'A <http://ex/s> <http://ex/q> "12"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'))
    assert set(g) == {(EX.s, EX.p, Literal("keep")), (BNode("b1"), EX.p, Literal("new", "en")),
                      (EX.s, EX.q, Literal("12", datatype=URIRef(
                          "http://www.w3.org/2001/XMLSchema#integer")))}
    assert (result.added, result.deleted, result.committed, result.aborted) == (2, 1, 1, 1)


def test_an_aborted_transaction_leaves_the_graph_as_it_was():
    g = Graph()
    g.add((EX.s, EX.p, EX.o))
    g.bind("ex", EX)
    before, namespaces = set(g), dict(g.namespaces())
    apply_patch(g, [TX_START, Delete(J(EX.s), J(EX.p), J(EX.o)),
                    Add(J(EX.a), J(EX.b), jelly.Literal("c")),
                    PrefixAdd("new", jelly.IRI("http://new/")), PrefixDelete("ex"), TX_ABORT])
    assert set(g) == before and dict(g.namespaces()) == namespaces


def test_a_failing_transaction_changes_nothing():
    g = Graph()
    g.add((EX.s, EX.p, EX.o))
    quoted = jelly.Triple(J(EX.a), J(EX.b), J(EX.c))
    with pytest.raises(jelly.JellyError, match="quoted triple"):
        apply_patch(g, [TX_START, Delete(J(EX.s), J(EX.p), J(EX.o)),
                        Add(quoted, J(EX.p), J(EX.o)), TX_COMMIT])
    assert set(g) == {(EX.s, EX.p, EX.o)}
    # a transaction left open by the end of the input is not applied either
    with pytest.raises(jelly.JellyError, match="inside a transaction"):
        apply_patch(g, text("TX .\nD <http://ex/s> <http://ex/p> <http://ex/o> .\n"))
    assert set(g) == {(EX.s, EX.p, EX.o)}
    # what was committed before an error stays
    with pytest.raises(jelly.JellyError, match="without a transaction"):
        apply_patch(g, text("TX .\nD <http://ex/s> <http://ex/p> <http://ex/o> .\nTC .\nTC .\n"))
    assert len(g) == 0


def test_apply_prefixes():
    g = Graph(bind_namespaces="none")
    apply_patch(g, text('PA "ex" <http://ex/> .\nPA "other" "http://other/" .\n'))
    assert dict(g.namespaces()) == {"ex": URIRef("http://ex/"), "other": URIRef("http://other/")}
    apply_patch(g, text('PA "ex" <http://ex2/> .\nPD "other" .\n'))
    assert dict(g.namespaces()) == {"ex": URIRef("http://ex2/")}
    assert g.namespace_manager.compute_qname("http://ex2/a")[0] == "ex"
    with pytest.raises(jelly.JellyError, match="space"):
        apply_patch(g, [PrefixAdd("a b", jelly.IRI("http://x/"))])


def test_apply_to_a_dataset():
    ds = Dataset()
    ds.add((EX.s, EX.p, EX.o))
    ds.add((EX.s, EX.p, EX.o, EX.g))
    apply_patch(ds, text("D <http://ex/s> <http://ex/p> <http://ex/o> .\n"       # default graph
                         "A <http://ex/a> <http://ex/p> <http://ex/o> _:g .\n"
                         "A <http://ex/b> <http://ex/p> <http://ex/o> <http://ex/g> .\n"))
    assert quads(ds) == {(EX.s, EX.p, EX.o, EX.g), (EX.a, EX.p, EX.o, BNode("g")),
                         (EX.b, EX.p, EX.o, EX.g)}
    # DEFAULT_GRAPH, as a QUADS Jelly-Patch stream gives it
    apply_patch(ds, [Add(J(EX.c), J(EX.p), J(EX.o), jelly.DEFAULT_GRAPH)])
    assert (EX.c, EX.p, EX.o, None) in quads(ds)


def test_a_graph_refuses_named_graphs_and_rdflib_what_it_cannot_hold():
    g = Graph(identifier=EX.mine)
    apply_patch(g, text("A <http://ex/s> <http://ex/p> <http://ex/o> <http://ex/mine> .\n"))
    assert len(g) == 1
    with pytest.raises(jelly.JellyError, match="Dataset"):
        apply_patch(g, text("A <http://ex/s> <http://ex/p> <http://ex/o> <http://ex/g> .\n"))
    with pytest.raises(jelly.rdflib.NotRepresentableError, match="graph name"):
        apply_patch(Dataset(), [Add(J(EX.s), J(EX.p), J(EX.o),
                                    jelly.Literal("g"))])
    with pytest.raises(jelly.rdflib.NotRepresentableError, match="quoted triple"):
        apply_patch(Graph(), EXAMPLES / "rdf-star.rdfp")


def test_apply_patch_files_of_both_formats(tmp_path):
    example = EXAMPLES / "triples-all-features-rdf11.rdfp"
    g1 = Graph()
    apply_patch(g1, example)
    jpatch.serialize(rdfpatch.parse(example), tmp_path / "p.jellyp")
    g2 = Graph()
    apply_patch(g2, str(tmp_path / "p.jellyp"))
    g3 = Graph()
    apply_patch(g3, (tmp_path / "p.jellyp").read_bytes())       # told by its first bytes
    # the example adds 7 statements and removes 6 of them again (the last TX is aborted)
    assert set(g1) == set(g2) == set(g3) and len(g1) == 7
    assert list(read_operations(example.read_bytes(), format="rdfp")) == \
        list(rdfpatch.parse(example))


def test_the_quads_example_on_a_dataset():
    ds = Dataset()
    apply_patch(ds, EXAMPLES / "quads-all-features-rdf11.rdfp")
    # the first transaction commits; its prefixes are added, then deleted
    assert (EX.s, EX.p1, EX.o1, URIRef("http://example/g1")) not in quads(ds)
    ex = Namespace("http://example/")
    assert quads(ds) == {
        (ex.s, ex.p1, ex.o1, ex.g1), (ex.s, ex.p1, ex.o2, None), (ex.s, ex.p2, ex.o2, ex.g1),
        (ex.s, ex.p3, Literal("language literal", "en"), ex.g2),
        (ex.s, ex.p3, Literal("simple literal"), ex.g1),
        (ex.s, ex.p3, Literal("12", datatype=URIRef("http://www.w3.org/2001/XMLSchema#integer")),
         ex.g1),
        (BNode("b1"), ex.p3, BNode("b2"), ex.g1)}
    # PA "rdf", PA "", then PD of both (their graphs ignored): neither prefix is bound after
    namespaces = dict(ds.namespaces())
    assert "rdf" not in namespaces and "" not in namespaces
    # (rdflib binds a namespace to one prefix: PA "rdf" <rdfs#> took it from "rdfs")
    assert namespaces["owl"] == URIRef("http://www.w3.org/2002/07/owl#")


# -- diff --------------------------------------------------------------------------------------

def test_diff_of_graphs():
    a, b = Graph(bind_namespaces="none"), Graph(bind_namespaces="none")
    a.add((EX.s, EX.p, Literal("1")))
    a.add((EX.s, EX.p, BNode("x")))
    b.add((EX.s, EX.p, Literal("1")))
    b.add((EX.s, EX.p, Literal("2")))
    a.bind("a", "http://a/")
    b.bind("b", "http://b/")
    ops = diff(a, b)
    assert rdfpatch.serialize(ops) == text(
        'TX .\nPD "a" .\nPA "b" <http://b/> .\nD <http://ex/s> <http://ex/p> _:x .\n'
        'A <http://ex/s> <http://ex/p> "2" .\nTC .\n')
    assert diff(a, a) == [] and diff(a, b, transaction=False, namespaces=False)[0] == \
        Delete(J(EX.s), J(EX.p), jelly.BlankNode("x"))
    apply_patch(a, ops)
    assert set(a) == set(b) and dict(a.namespaces()) == dict(b.namespaces())


def test_diff_of_datasets():
    a, b = Dataset(), Dataset()
    a.add((EX.s, EX.p, EX.o))
    a.add((EX.s, EX.p, EX.o, EX.g))
    b.add((EX.s, EX.p, EX.o, EX.g))
    b.add((EX.s, EX.p, EX.o, EX.h))
    ops = diff(a, b)
    assert ops == [TX_START,
                   Delete(J(EX.s), J(EX.p), J(EX.o), jelly.DEFAULT_GRAPH),
                   Add(J(EX.s), J(EX.p), J(EX.o), J(EX.h)),
                   TX_COMMIT]
    apply_patch(a, ops)
    assert quads(a) == quads(b)


IRIS = st.sampled_from([EX.a, EX.b, EX.c, URIRef("urn:x:1")])
NODES = st.one_of(IRIS, st.sampled_from([BNode("b1"), BNode("b2")]))
OBJECTS = st.one_of(NODES, st.builds(Literal, st.text(max_size=3)),
                    st.builds(lambda v: Literal(v, lang="en"), st.text(max_size=3)))
GRAPHS = st.sampled_from([None, EX.g1, EX.g2, BNode("g")])
QUADS = st.lists(st.tuples(NODES, IRIS, OBJECTS, GRAPHS), max_size=10)


def _dataset(rows):
    ds = Dataset()
    for s, p, o, g in rows:
        ds.add((s, p, o) if g is None else (s, p, o, g))
    return ds


@settings(max_examples=40)
@given(a=QUADS, b=QUADS)
def test_apply_of_diff_turns_a_into_b(a, b):
    da, db = _dataset(a), _dataset(b)
    apply_patch(da, diff(da, db))
    assert quads(da) == quads(db)
    ga, gb = Graph(), Graph()
    for s, p, o, _ in a:
        ga.add((s, p, o))
    for s, p, o, _ in b:
        gb.add((s, p, o))
    ops = diff(ga, gb)
    apply_patch(ga, rdfpatch.parse(rdfpatch.serialize(ops)))      # through text as well
    assert set(ga) == set(gb) and isomorphic(ga, gb)


# -- record ----------------------------------------------------------------------------------

def test_record_every_way_of_changing_a_graph():
    g = Graph()
    g.add((EX.s, EX.p, Literal(1)))
    replica = Graph()
    apply_patch(replica, diff(replica, g))
    with record(g) as changes:
        g.add((EX.s, EX.p, Literal(2)))
        g.add((EX.s, EX.p, Literal(2)))                   # there already: nothing recorded
        g.remove((EX.s, None, Literal(1)))
        g.remove((EX.nothing, None, None))                # nothing to remove: nothing recorded
        g.bind("ex", EX)
        g += [(BNode("x"), EX.q, EX.o)]
        g.set((EX.s, EX.r, Literal("v")))
        g.set((EX.s, EX.r, Literal("w")))
        g.update("INSERT DATA { <http://ex/a> <http://ex/b> 'c' }")
        g.parse(data="<http://ex/t> <http://ex/u> <http://ex/v> .", format="nt")
    ops = changes.operations
    assert ops[0] == TX_START and ops[-1] == TX_COMMIT and ops.count(TX_START) == 1
    kinds = [type(op).__name__ for op in ops[1:-1]]
    assert kinds == ["Add", "Delete", "PrefixAdd", "Add", "Add", "Delete", "Add", "Add", "Add"]
    assert ops[3] == PrefixAdd("ex", jelly.IRI("http://ex/"))
    apply_patch(replica, ops)
    assert set(replica) == set(g) and dict(replica.namespaces())["ex"] == URIRef(EX)
    assert not {"add", "addN", "remove", "bind"} & set(vars(g.store))   # unwrapped again


def test_record_rolls_back_a_failing_block():
    g = Graph()
    g.add((EX.s, EX.p, EX.o))
    g.bind("ex", EX)
    before, namespaces = set(g), dict(g.namespaces())
    stream = rdfpatch.TextWriter()
    with pytest.raises(RuntimeError):
        with record(g, sink=stream):
            g.add((EX.a, EX.b, EX.c))
            g.remove((EX.s, None, None))
            g.bind("ex", "http://other/", replace=True)
            g.bind("new", "http://new/")
            raise RuntimeError("boom")
    assert set(g) == before and dict(g.namespaces()) == namespaces
    stream.close()
    rows = stream.getvalue().decode().splitlines()
    assert rows[0] == "TX ." and rows[-1] == "TA ." and len(rows) == 7
    # a replica applying the stream stays as it was, too
    replica = Graph()
    replica.add((EX.s, EX.p, EX.o))
    apply_patch(replica, stream.getvalue())
    assert set(replica) == before


def test_record_a_dataset_into_a_jelly_patch_stream(tmp_path):
    ds = Dataset()
    ds.add((EX.s, EX.p, EX.o))
    ds.add((EX.s, EX.p, EX.o, EX.g))
    replica = Dataset()
    apply_patch(replica, diff(replica, ds, namespaces=False))
    path = tmp_path / "log.jellyp"
    with jpatch.PatchWriter(path, statement_type="quads") as writer:
        with record(ds, sink=writer) as rec:
            ds.remove((EX.s, EX.p, EX.o))                 # from every graph
            ds.add((EX.a, EX.p, EX.o, EX.g2))
            rec.end_patch()
            ds.graph(EX.g3).add((BNode("n"), EX.p, Literal("x", lang="de")))
            ds.remove_graph(ds.graph(EX.g2))
    patches = list(jpatch.parse_patches(path))
    assert len(patches) == 2
    assert patches[0][1:3] == [
        Delete(J(EX.s), J(EX.p), J(EX.o), jelly.DEFAULT_GRAPH),
        Delete(J(EX.s), J(EX.p), J(EX.o), J(EX.g))] or \
        patches[0][1:3] == [
        Delete(J(EX.s), J(EX.p), J(EX.o), J(EX.g)),
        Delete(J(EX.s), J(EX.p), J(EX.o), jelly.DEFAULT_GRAPH)]
    apply_patch(replica, path)
    assert quads(replica) == quads(ds) == {(BNode("n"), EX.p, Literal("x", lang="de"), EX.g3)}


def test_a_graph_records_only_its_own_statements():
    ds = Dataset()
    named = ds.graph(EX.g)
    other = ds.graph(EX.h)
    with record(named) as rec:
        named.add((EX.s, EX.p, EX.o))
        other.add((EX.s, EX.p, EX.o))                     # same store, another graph
        named.remove((None, None, None))
    assert rec.operations == [TX_START, Add(J(EX.s), J(EX.p), J(EX.o)),
                              Delete(J(EX.s), J(EX.p), J(EX.o)),
                              TX_COMMIT]


class _FailingSink:
    """A sink whose ``fail_at``-th write raises (a full disk, a lost connection)."""

    def __init__(self, fail_at):
        self.fail_at, self.written, self.calls = fail_at, [], 0

    def write(self, op):
        self.calls += 1
        if self.calls == self.fail_at:
            raise OSError("the connection is gone")
        self.written.append(op)


@pytest.mark.parametrize("fail_at", [1, 2, 3, 4])
@pytest.mark.parametrize("change", ["remove", "add"])
def test_a_sink_that_fails_leaves_the_graph_as_before(fail_at, change):
    """The rollback of the block undoes every change of it, the ones the sink never got too:
    undos were kept only for the operations written, so a failing sink left the graph without
    the removed statements (and a replica never heard of it)."""
    g = Graph()
    for i in range(3):
        g.add((EX.s, EX.p, EX[f"o{i}"]))
    before = set(g)
    sink = _FailingSink(fail_at)
    with pytest.raises(OSError):
        with record(g, sink=sink):
            if change == "remove":
                g.remove((EX.s, EX.p, None))
            else:
                for i in range(3):
                    g.add((EX.t, EX.p, EX[f"o{i}"]))
    assert set(g) == before
    # what the sink got applies to a replica as nothing: an open transaction, or aborted
    replica = Graph()
    for t in before:
        replica.add(t)
    ops = sink.written + ([TX_ABORT] if sink.written and sink.written[-1] != TX_ABORT else [])
    apply_patch(replica, ops)
    assert set(replica) == before


def test_recorders_stop_in_the_reverse_order_they_started():
    g = Graph()
    a, b = [], []
    outer = ChangeRecorder(g, a.append, transaction=False).start()
    inner = ChangeRecorder(g, b.append, transaction=False).start()
    with pytest.raises(jelly.JellyError, match="stop it first"):
        outer.stop()
    g.add((EX.s, EX.p, EX.o))                           # both still record
    inner.stop()
    outer.stop()
    g.add((EX.t, EX.p, EX.o))                           # neither records
    assert a == b == [Add(J(EX.s), J(EX.p), J(EX.o))]
    assert "add" not in vars(g.store)


def test_recorder_without_with_nesting_and_sinks():
    g = Graph()
    calls = []
    outer = ChangeRecorder(g, calls.append, transaction=False).start()
    with record(g) as inner:
        g.add((EX.s, EX.p, EX.o))
    g.add((EX.a, EX.p, EX.o))
    outer.stop()
    g.add((EX.b, EX.p, EX.o))                             # not recording any more
    assert calls == [Add(J(EX.s), J(EX.p), J(EX.o)),
                     Add(J(EX.a), J(EX.p), J(EX.o))]
    assert inner.operations[1:2] == calls[:1]
    rec = ChangeRecorder(g).start()
    g.add((EX.c, EX.p, EX.o))
    rec.commit()
    rec.commit()                                          # nothing open: nothing written
    g.remove((EX.c, EX.p, EX.o))
    rec.rollback()
    assert (EX.c, EX.p, EX.o) in g
    rec.stop()
    assert [type(op).__name__ for op in rec.operations] == \
        ["TxStart", "Add", "TxCommit", "TxStart", "Delete", "TxAbort"]
    with pytest.raises(jelly.JellyError, match="already"):
        with record(g) as r:
            r.start()
    with pytest.raises(TypeError):
        ChangeRecorder(g, sink=42)
    with pytest.raises(jelly.JellyError, match="transaction=True"):
        ChangeRecorder(g, transaction=False).rollback()
