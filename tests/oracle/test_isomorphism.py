"""Self-tests of blank-node isomorphism on small graphs."""

from __future__ import annotations

from oracle import isomorphism as iso


def _b(x):
    return ("B", x)


def _i(x):
    return ("I", "http://ex/" + x)


def test_iso_ordered_basic():
    a = [(_b("x"), _i("p"), _b("y")), (_b("y"), _i("p"), _b("x"))]
    b = [(_b("1"), _i("p"), _b("2")), (_b("2"), _i("p"), _b("1"))]
    assert iso.ordered_isomorphic(a, b)
    assert iso.ordered_isomorphic([], [])
    # consistent bijection across statements
    c = [(_b("1"), _i("p"), _b("2")), (_b("1"), _i("p"), _b("2"))]
    assert not iso.ordered_isomorphic(a, c)
    # not a bijection: two labels onto one
    d = [(_b("x"), _i("p"), _b("y"))]
    e = [(_b("z"), _i("p"), _b("z"))]
    assert not iso.ordered_isomorphic(d, e)
    assert not iso.ordered_isomorphic(e, d)
    # order matters
    f = [(_i("a"), _i("p"), _i("b")), (_i("c"), _i("p"), _i("d"))]
    assert not iso.ordered_isomorphic(f, f[::-1])
    assert iso.unordered_isomorphic(f, f[::-1])
    # length differs
    assert not iso.ordered_isomorphic(f, f[:1])
    assert not iso.ordered_isomorphic(f[:1], f)
    # bnode vs IRI, literal details
    assert not iso.ordered_isomorphic([(_b("x"), _i("p"), _i("o"))],
                                      [(_i("x"), _i("p"), _i("o"))])
    assert not iso.ordered_isomorphic([(_i("s"), _i("p"), ("L", "v", "en", None))],
                                      [(_i("s"), _i("p"), ("L", "v", "de", None))])
    assert not iso.ordered_isomorphic([(_i("s"), _i("p"), ("L", "v", None, None))],
                                      [(_i("s"), _i("p"), ("L", "v", None, "http://dt"))])


def test_iso_quoted_and_graph():
    a = [(("T", _b("x"), _i("p"), _b("y")), _i("q"), _b("x"), _b("g")),
         (_b("g"), _i("p"), _b("y"), ("D",))]
    b = [(("T", _b("1"), _i("p"), _b("2")), _i("q"), _b("1"), _b("3")),
         (_b("3"), _i("p"), _b("2"), ("D",))]
    assert iso.ordered_isomorphic(a, b)
    c = [(("T", _b("1"), _i("p"), _b("2")), _i("q"), _b("2"), _b("3")),
         (_b("3"), _i("p"), _b("2"), ("D",))]
    assert not iso.ordered_isomorphic(a, c)
    d = [(("T", _b("1"), _i("p"), _b("2")), _i("q"), _b("1"), _b("3")),
         (_b("3"), _i("p"), _b("2"), _i("g"))]
    assert not iso.ordered_isomorphic(a, d)
    # a failed statement match must not leave half a binding behind
    assert iso.ordered_mismatch(a, c) is not None
    # triple vs quad
    assert not iso.ordered_isomorphic([(_i("s"), _i("p"), _i("o"))],
                                      [(_i("s"), _i("p"), _i("o"), ("D",))])


def test_iso_unordered():
    a = [(_b("a"), _i("p"), _b("b")), (_b("b"), _i("p"), _b("c")), (_b("c"), _i("p"), _b("a"))]
    b = [(_b("3"), _i("p"), _b("1")), (_b("1"), _i("p"), _b("2")), (_b("2"), _i("p"), _b("3"))]
    assert iso.unordered_isomorphic(a, b)
    # a 3-cycle is not two nodes with a 2-cycle plus a self loop
    c = [(_b("1"), _i("p"), _b("2")), (_b("2"), _i("p"), _b("1")), (_b("3"), _i("p"), _b("3"))]
    assert not iso.unordered_isomorphic(a, c)
    # needs backtracking: first choice for the first statement is wrong
    d = [(_b("x"), _i("p"), _b("y")), (_b("x"), _i("q"), _i("o"))]
    e = [(_b("2"), _i("p"), _b("3")), (_b("1"), _i("p"), _b("4")), ]
    assert not iso.unordered_isomorphic(d, e)
    f = [(_b("1"), _i("p"), _b("4")), (_b("9"), _i("p"), _b("3")), (_b("1"), _i("q"), _i("o"))]
    g = [(_b("x"), _i("p"), _b("y")), (_b("z"), _i("p"), _b("w")), (_b("z"), _i("q"), _i("o"))]
    assert iso.unordered_isomorphic(f, g)
    assert not iso.unordered_isomorphic(f, g[:2] + [(_b("z"), _i("q"), _i("x"))])
    # the first candidate for the first statement is a dead end
    h = [(_b("a"), _i("p"), _b("b")), (_b("b"), _i("p"), _b("c"))]
    k = [(_b("2"), _i("p"), _b("3")), (_b("1"), _i("p"), _b("2"))]
    assert iso.unordered_isomorphic(h, k)
    assert not iso.ordered_isomorphic(h, k)
    # multiset: duplicates count
    assert not iso.unordered_isomorphic([(_i("s"), _i("p"), _i("o"))] * 2,
                                        [(_i("s"), _i("p"), _i("o"))])


def test_iso_blank_nodes_inside_quoted_triples_share_the_bijection():
    a = [(("T", _b("x"), _i("p"), _i("o")), _i("q"), _b("x"))]
    b = [(("T", _b("1"), _i("p"), _i("o")), _i("q"), _b("1"))]
    c = [(("T", _b("1"), _i("p"), _i("o")), _i("q"), _b("2"))]
    for same in (iso.ordered_isomorphic, iso.unordered_isomorphic):
        assert same(a, b)
        assert not same(a, c)
    assert iso.ordered_mismatch(a, b) is None
    assert "statement 0 differs" in iso.ordered_mismatch(a, c)
    assert "lengths differ" in iso.ordered_mismatch(a, a + b)


def test_iso_two_isomorphic_graphs_with_relabelled_blank_nodes():
    # the same small graph: a chain b0 -> b1 -> b2 with a label on the middle node, shuffled
    g1 = [(_b("b0"), _i("next"), _b("b1")), (_b("b1"), _i("next"), _b("b2")),
          (_b("b1"), _i("label"), ("L", "mid", None, None)), (_i("root"), _i("first"), _b("b0"))]
    g2 = [(_b("m"), _i("label"), ("L", "mid", None, None)), (_i("root"), _i("first"), _b("s")),
          (_b("m"), _i("next"), _b("e")), (_b("s"), _i("next"), _b("m"))]
    assert iso.unordered_isomorphic(g1, g2)
    # moving the label to the end of the chain breaks it
    g3 = [t if t[1] != _i("label") else (_b("e"), t[1], t[2]) for t in g2]
    assert not iso.unordered_isomorphic(g1, g3)
