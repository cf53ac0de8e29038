"""``jelly.compare`` (what ``validate --compare-to`` uses) against the oracle's blank-node
isomorphism: random datasets, renamed and shuffled, and changed by one term; graphs that colour
refinement alone cannot tell apart; many interchangeable blank nodes."""

from __future__ import annotations

import importlib.util
import random
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

import helpers
from jelly import DEFAULT_GRAPH, IRI, BlankNode, Literal, Triple
from jelly.compare import dataset_difference, ordered_difference
from oracle.isomorphism import ordered_isomorphic, unordered_isomorphic

P = [IRI(f"http://p/{i}") for i in range(3)]
G = [DEFAULT_GRAPH, IRI("http://g/1")]


@st.composite
def datasets(draw):
    n_b = draw(st.integers(0, 5))
    nodes = [BlankNode(f"b{i}") for i in range(n_b)] + [IRI("http://n/a"), Literal("1")]
    subjects = nodes[:n_b] + [IRI("http://n/a")]
    statements = set()
    for _ in range(draw(st.integers(0, 12))):
        s = draw(st.sampled_from(subjects))
        o = draw(st.sampled_from(nodes))
        if draw(st.booleans()) and n_b:
            o = Triple(draw(st.sampled_from(subjects)), P[0], draw(st.sampled_from(nodes)))
        statements.add((s, draw(st.sampled_from(P)), o, draw(st.sampled_from(G))))
    return sorted(statements, key=str)


def renamed(statements, seed, shuffle=True):
    rnd = random.Random(seed)
    labels = sorted({t.value for s in statements for t in _terms(s) if type(t) is BlankNode})
    new = dict(zip(labels, rnd.sample(range(10**6), len(labels))))

    def term(t):
        if type(t) is BlankNode:
            return BlankNode(f"x{new[t.value]}")
        if type(t) is Triple:
            return Triple(term(t.s), term(t.p), term(t.o))
        return t
    out = [tuple(term(t) for t in s) for s in statements]
    if shuffle:
        rnd.shuffle(out)
    return out


def _terms(statement):
    for t in statement:
        yield t
        if type(t) is Triple:
            yield from _terms((t.s, t.p, t.o))


def oracle(statements):
    return [helpers.from_jelly(s) for s in statements]


@settings(max_examples=150, deadline=None)
@given(datasets(), datasets(), st.integers(0, 10**6))
def test_agrees_with_the_oracle(a, b, seed):
    same = renamed(a, seed)
    assert dataset_difference(a, same) is None
    assert (dataset_difference(a, b) is None) == unordered_isomorphic(oracle(a), oracle(b))
    assert ordered_difference(a, renamed(a, seed, shuffle=False)) is None
    assert (ordered_difference(a, b) is None) == ordered_isomorphic(oracle(a), oracle(b))


def test_triples_are_quads_of_the_default_graph():
    a = [(IRI("http://s"), P[0], Literal("x"))]
    assert dataset_difference(a, [a[0] + (DEFAULT_GRAPH,)]) is None
    assert ordered_difference(a, [a[0] + (None,)]) is None
    assert dataset_difference(a, [a[0] + (G[1],)]) is not None


def cycle(n, offset=0):
    return [(BlankNode(f"c{offset + i}"), P[0], BlankNode(f"c{offset + (i + 1) % n}"))
            for i in range(n)]


def test_regular_graphs_that_refinement_cannot_split():
    # Two triangles and one hexagon: every blank node has one edge in and one out.
    two_triangles = cycle(3) + cycle(3, 10)
    assert dataset_difference(two_triangles, cycle(6)) is not None
    assert unordered_isomorphic(oracle(two_triangles), oracle(cycle(6))) is False
    assert dataset_difference(cycle(6), renamed(cycle(6), 1)) is None


def test_many_interchangeable_blank_nodes():
    a = [(BlankNode(f"b{i}"), P[0], Literal("same")) for i in range(3000)]
    assert dataset_difference(a, renamed(a, 2)) is None
    assert dataset_difference(a, renamed(a, 2)[1:]) is not None


def test_messages_say_what_differs():
    a = [(IRI("http://s"), P[0], Literal(str(i))) for i in range(3)]
    assert "statement 1 differs" in ordered_difference(a, [a[0], a[2], a[1]])
    assert "expected 3 statements in order, found 2" == ordered_difference(a, a[:2])
    assert "missing" in dataset_difference(a, a[:2])
    assert "not expected" in dataset_difference(a[:2], a)
    b = [(BlankNode("x"), P[0], BlankNode("x"))]
    assert "cannot be matched" in dataset_difference(b, [(BlankNode("x"), P[0], BlankNode("y"))])
    # every kind of difference is counted, statements with blank nodes too
    ground = [(IRI("http://s"), P[0], Literal("2")), (IRI("http://s"), P[0], Literal("3"))]
    with_blank = [(BlankNode("a"), P[0], Literal("1"))]
    assert dataset_difference(ground + with_blank, []) == (
        '2 expected statements without blank nodes are missing, e.g. <http://s> '
        f'<{P[0].value}> "2" .; expected 1 statement with blank nodes, found 0')
    assert dataset_difference(ground[:1] + with_blank,
                              [(IRI("http://s"), P[0], Literal("9"))]) == (
        f'1 expected statement without blank nodes is missing, e.g. <http://s> <{P[0].value}> '
        f'"2" .; 1 statement without blank nodes was not expected, e.g. <http://s> '
        f'<{P[0].value}> "9" .; expected 1 statement with blank nodes, found 0')
    # one blank node mapped to two in order
    assert ordered_difference([(BlankNode("x"), P[0], Literal("1")),
                               (BlankNode("x"), P[0], Literal("2"))],
                              [(BlankNode("y"), P[0], Literal("1")),
                               (BlankNode("z"), P[0], Literal("2"))]) is not None


def _bench():
    """benchmarks/compare_bench.py, whose generated graphs the tests share."""
    spec = importlib.util.spec_from_file_location(
        "compare_bench", helpers.REPO_ROOT / "benchmarks" / "compare_bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_web = _bench().web


def test_a_conversion_with_other_labels_is_matched_in_the_order_it_lists_blank_nodes(
        monkeypatch):
    """A file and its conversion list statements in the same order with other labels: the
    blank nodes are matched as they first appear, without the search (which took 21 s for
    100,000 such statements and more than 10 minutes for 500,000)."""
    import jelly.compare as compare
    a = _web(30_000, 3)
    b = renamed(a, 4, shuffle=False)
    assert {t for st in b for t in st} != {t for st in a for t in st}    # labels changed

    def no_search(*_):
        raise AssertionError("searched")
    monkeypatch.setattr(compare, "_isomorphism", no_search)
    assert dataset_difference(a, b) is None
    monkeypatch.undo()
    # in another order, or with a difference, the search decides, as before
    small = _web(400, 5)
    assert dataset_difference(small, renamed(small, 6, shuffle=True)) is None
    changed = renamed(small, 6, shuffle=False)
    k = next(i for i, st in enumerate(changed) if type(st[2]) is BlankNode)
    changed[k] = changed[k][:2] + (changed[(k + 1) % len(changed)][0],) + changed[k][3:]
    assert (dataset_difference(small, changed) is None) == \
        unordered_isomorphic(oracle(small), oracle(changed))


def test_language_tags_that_differ_only_by_case_are_the_same_tag(tmp_path):
    """RDF 1.2 Concepts: two tags that differ only by case are one tag.  pyoxigraph writes
    ``en-GB`` as ``en-gb``, so a Jelly file and its Turtle conversion used to be reported
    different."""
    s, p = IRI("http://s"), IRI("http://p")
    upper = [(s, p, Literal("colour", "en-GB")),
             (s, p, Triple(s, p, Literal("x", "DE-at--ltr")), IRI("http://g"))]
    lower = [(s, p, Literal("colour", "en-gb")),
             (s, p, Triple(s, p, Literal("x", "de-at--ltr")), IRI("http://g"))]
    assert dataset_difference(upper, lower) is None
    assert ordered_difference(upper, lower) is None
    other = [(s, p, Literal("colour", "en-us"))] + lower[1:]
    assert dataset_difference(upper, other) is not None
    assert ordered_difference(upper, other) is not None
    # the command, with pyoxigraph's Turtle of the file
    from jelly.convert import convert
    from jelly.inspect import validate
    nt = tmp_path / "a.nt"
    nt.write_text('<http://s> <http://p> "colour"@en-GB .\n<http://s> <http://p> "x"@EN .\n')
    convert(nt, tmp_path / "a.jelly")
    convert(tmp_path / "a.jelly", tmp_path / "a.ttl")
    assert "@en-gb" in (tmp_path / "a.ttl").read_text()    # what made them differ
    assert validate(tmp_path / "a.jelly", compare_to=tmp_path / "a.ttl").compared == 2


def test_twin_blank_nodes_are_untied_together(monkeypatch):
    """Blank nodes that only a renaming of each other can tell apart (twins: the same
    statements about them) are paired all at once, one refinement for all of them, where the
    search alone refined once per pair (a large shuffled component took 41 s at 100,000
    statements); an answer still agrees with the oracle."""
    import jelly.compare as compare
    web = _bench().ring(40)                 # 40 hubs, each with three twin leaves
    other = renamed(web, 8)
    calls = []
    refine = compare._refine
    monkeypatch.setattr(compare, "_refine", lambda *a: calls.append(1) or refine(*a))
    assert dataset_difference(web, other) is None
    assert len(calls) <= 8, len(calls)     # one search level per twin pair would be 80+
    # changed: a leaf moved to another hub; the counts of colours differ at once, no search
    moved = list(other)
    k = next(i for i, st in enumerate(moved) if st[1] == P[1])
    j = next(i for i, st in enumerate(moved) if st[1] == P[1] and st[0] != moved[k][0])
    moved[k] = (moved[j][0],) + moved[k][1:]
    monkeypatch.setattr(compare, "_search", lambda *a: pytest.fail("searched"))
    assert dataset_difference(web, moved) is not None
    # (not isomorphic: one hub has four leaves now; the oracle's search takes minutes here)
    leaves = [sorted(Counter(st[0] for st in x if st[1] == P[1]).values()) for x in (web, moved)]
    assert leaves[0] != leaves[1]


def cycles(lengths, tag):
    """Directed cycles of the given lengths (a 1-cycle is a blank node pointing at itself)."""
    out, k = [], 0
    for n in lengths:
        out += [(BlankNode(f"{tag}{k + i}"), P[0], BlankNode(f"{tag}{k + (i + 1) % n}"))
                for i in range(n)]
        k += n
    return out


def partitions(n, least=1):
    if n == 0:
        yield []
    for k in range(least, n + 1):
        for rest in partitions(n - k, k):
            yield [k] + rest


def test_unions_of_cycles_match_exactly_when_their_lengths_do():
    """Every blank node of a union of cycles has one edge in and one out, so refinement alone
    never tells them apart: the search decides each pair.  Two such graphs are isomorphic
    exactly when their lists of cycle lengths are equal (counted here, not by the module)."""
    pairs = 0
    for n in range(1, 9):
        shapes = list(partitions(n))
        for i, a in enumerate(shapes):
            for j, b in enumerate(shapes):
                other = renamed(cycles(b, "y"), i * 100 + j)
                assert (dataset_difference(cycles(a, "x"), other) is None) == (a == b), (a, b)
                pairs += 1
    assert pairs == 918
    # larger: 500 triangles against 498 triangles and a hexagon, and long rings
    triangles = cycles([3] * 500, "x")
    assert dataset_difference(triangles, renamed(cycles([3] * 500, "y"), 1)) is None
    assert dataset_difference(triangles, renamed(cycles([3] * 498 + [6], "y"), 1)) is not None
    assert dataset_difference(cycles([1000] * 3, "x"), renamed(cycles([999, 1000, 1001], "y"),
                                                              2)) is not None


def test_a_long_chain_is_refined_a_few_blank_nodes_a_round(monkeypatch):
    """An RDF collection of repeating values: only the distance from its ends tells its blank
    nodes apart, so refinement takes as many rounds as the list is long.  A round looks only
    at the blank nodes next to a colour that changed, so the statements coloured in all rounds
    together grow with the list, not with its square (2,000 items: 8 million before, when
    each round coloured every statement; 127 s for 5,000 items, now 0.4 s)."""
    import jelly.compare as compare
    collection = _bench().collection
    items = 2000
    a = collection(items)
    coloured = []
    shape = compare._shape
    monkeypatch.setattr(compare, "_shape", lambda *x: coloured.append(1) or shape(*x))
    assert dataset_difference(a, renamed(a, 3)) is None
    assert 0 < len(coloured) <= 20 * len(a), len(coloured)     # 9x here; 2,000x before
    # the values of two items in the middle swapped: the same values, in other places
    swapped = list(a)
    k, j = (next(i for i, st in enumerate(a) if st[0] == BlankNode(f"l{n}")
                 and "first" in st[1].value) for n in (1000, 1001))
    swapped[k], swapped[j] = swapped[k][:2] + a[j][2:], swapped[j][:2] + a[k][2:]
    assert sorted(map(str, swapped)) != sorted(map(str, a))
    assert dataset_difference(a, renamed(swapped, 3)) is not None


# ------------------------------------------------------------------------------- validate


def _write_pair(tmp_path, n: int):
    """A Jelly file of ``n`` statements, each with its own literal, and its N-Triples."""
    import jelly
    statements = [(IRI(f"http://s/{i % 100}"), P[i % 3], Literal(f"value {i}")) for i in range(n)]
    jelly.serialize(statements, tmp_path / "a.jelly", rows_per_frame=256)
    (tmp_path / "a.nt").write_text("".join(f"{s} {p} {o} .\n" for s, p, o in statements))
    return statements


def test_validate_in_order_holds_neither_side(tmp_path):
    """``--ordered`` reads the reference alongside the stream: its peak memory (a frame, a
    block of the text being read) is a small part of what holding the statements of one side
    takes (the set comparison holds both)."""
    import gc
    import tracemalloc

    import jelly
    from jelly.inspect import validate
    (tmp_path / "warm").mkdir()
    _write_pair(tmp_path / "warm", 10)     # imports and first-use caches, not measured
    validate(tmp_path / "warm" / "a.jelly", compare_to=tmp_path / "warm" / "a.nt", ordered=True)
    _write_pair(tmp_path, 200_000)
    gc.collect()
    tracemalloc.start()
    try:
        held = list(jelly.parse(tmp_path / "a.jelly"))
        one_side = tracemalloc.get_traced_memory()[0]
        del held
        gc.collect()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = validate(tmp_path / "a.jelly", compare_to=tmp_path / "a.nt", ordered=True)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert result.compared == 200_000
    assert peak < one_side / 10, (peak, one_side)


def test_validate_in_order_counts_the_whole_reference(tmp_path):
    """The reference is read only as far as the stream goes, then counted to its end."""
    import jelly
    from jelly.inspect import validate
    statements = _write_pair(tmp_path, 50)
    longer = tmp_path / "longer.nt"
    longer.write_text((tmp_path / "a.nt").read_text() * 2)
    with pytest.raises(jelly.JellyError, match="expected 100 statements in order, found 50"):
        validate(tmp_path / "a.jelly", compare_to=longer, ordered=True)
    shorter = tmp_path / "shorter.nt"
    shorter.write_text("".join(f"{s} {p} {o} .\n" for s, p, o in statements[:20]))
    with pytest.raises(jelly.JellyError, match="expected 20 statements in order, found 50"):
        validate(tmp_path / "a.jelly", compare_to=shorter, ordered=True)
    assert validate(tmp_path / "a.jelly", compare_to=tmp_path / "a.nt", ordered=True
                    ).compared == 50


@pytest.mark.parametrize("ordered", [False, True])
def test_an_error_in_the_reference_names_it(tmp_path, ordered):
    import jelly
    from jelly.inspect import validate
    _write_pair(tmp_path, 50)
    bad = tmp_path / "bad.nt"
    bad.write_text((tmp_path / "a.nt").read_text() + '<http://s/1> <http://p/0> "open .\n')
    with pytest.raises(jelly.RdfSyntaxError) as caught:
        validate(tmp_path / "a.jelly", compare_to=bad, ordered=ordered)
    assert str(caught.value).startswith("in the reference ")
    assert "'" + str(bad) + "'" in str(caught.value) and caught.value.line == 51
