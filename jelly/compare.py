"""Comparing RDF statements, as ``jelly validate --compare-to`` does: in order, statement by
statement, or as datasets (sets of statements, equal up to a renaming of blank nodes).

Statements are tuples of jelly terms; a triple ``(s, p, o)`` is the quad ``(s, p, o,
DEFAULT_GRAPH)``, so a TRIPLES stream and a QUADS stream of the default graph compare equal.
Blank nodes may stand anywhere, quoted triples included.

* :func:`ordered_difference` - both sequences statement by statement, blank nodes mapped one to
  one in the order they appear;
* :func:`dataset_difference` - set comparison; statements without blank nodes must match
  exactly, and the blank nodes of the rest are matched: first as they appear in the two
  inputs (a file and its conversion list them in the same order; checked in linear time),
  else by colour refinement (each blank node's colour is refined from the statements it
  stands in, until stable; ground terms are numbered once, and a colour counted differently
  on the two sides ends it); the statements fall apart into components that share no blank
  node, matched by their canonical form where colours within them are distinct and otherwise
  by a search in the pair: every tied class untied at once (twins), else the candidates of
  the smallest tied class tried with backtracking.

Each returns ``None`` when the inputs are equal, else one line saying how they differ.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Iterator, Sequence

from ._terms import DEFAULT_GRAPH, BlankNode, DefaultGraph, Literal, Triple

__all__ = ["dataset_difference", "ordered_difference", "normalized"]


def normalized(statements: Iterable[Sequence[Any]]) -> Iterator[tuple[Any, ...]]:
    """Statements as quads, the default graph as :data:`DEFAULT_GRAPH`, language tags in lower
    case (RDF 1.2: tags that differ only by case are the same tag; pyoxigraph writes them
    lower-cased, jelly keeps them as read)."""
    for st in statements:
        s, p, o = st[0], st[1], st[2]
        if type(o) is Literal or type(o) is Triple or type(s) is Triple:
            s, o = _folded(s), _folded(o)
        if len(st) == 3:
            yield (s, p, o, DEFAULT_GRAPH)
        else:
            g = st[3]
            yield (s, p, o, DEFAULT_GRAPH if g is None or type(g) is DefaultGraph else g)


def _folded(t: Any) -> Any:
    """``t`` with the language tags in it lower-cased."""
    tp = type(t)
    if tp is Literal:
        lang = t.language
        return t if lang is None or lang.islower() else Literal(t.lex, lang.lower())
    if tp is Triple:
        s, p, o = _folded(t.s), t.p, _folded(t.o)
        return t if s is t.s and o is t.o else Triple(s, p, o)
    return t


def _show(st: tuple[Any, ...]) -> str:
    g = "" if type(st[3]) is DefaultGraph else f" {st[3]}"
    return f"{st[0]} {st[1]} {st[2]}{g} ."


def _has_bnode(t: Any) -> bool:
    tp = type(t)
    if tp is BlankNode:
        return True
    if tp is Triple:
        return _has_bnode(t.s) or _has_bnode(t.p) or _has_bnode(t.o)
    return False


# ------------------------------------------------------------------------------- ordered

def ordered_difference(expected: Sequence[Sequence[Any]],
                       actual: Sequence[Sequence[Any]]) -> str | None:
    """How ``actual`` differs from ``expected`` statement by statement (blank nodes mapped one
    to one as they appear), or None."""
    exp, act = list(normalized(expected)), list(normalized(actual))
    forward: dict[BlankNode, BlankNode] = {}
    backward: dict[BlankNode, BlankNode] = {}

    def same(a: Any, b: Any) -> bool:
        if type(a) is BlankNode and type(b) is BlankNode:
            if forward.setdefault(a, b) != b or backward.setdefault(b, a) != a:
                return False
            return True
        if type(a) is Triple and type(b) is Triple:
            return same(a.s, b.s) and same(a.p, b.p) and same(a.o, b.o)
        return bool(a == b)

    for i, (e, a) in enumerate(zip(exp, act)):
        if not all(same(x, y) for x, y in zip(e, a)):
            return f"statement {i} differs: expected {_show(e)} but found {_show(a)}"
    if len(exp) != len(act):
        return f"expected {len(exp)} statements in order, found {len(act)}"
    return None


# ------------------------------------------------------------------------------- datasets

def dataset_difference(expected: Iterable[Sequence[Any]],
                       actual: Iterable[Sequence[Any]]) -> str | None:
    """How the dataset ``actual`` differs from ``expected`` (sets of statements, blank nodes
    matched by an isomorphism), or None."""
    exp_list, act_list = list(normalized(expected)), list(normalized(actual))
    exp, act = set(exp_list), set(act_list)
    exp_ground = {st for st in exp if not any(map(_has_bnode, st))}
    act_ground = {st for st in act if not any(map(_has_bnode, st))}
    missing = exp_ground - act_ground
    if missing:
        return (f"{len(missing)} expected statements are missing, e.g. "
                f"{_show(min(missing, key=_show))}")
    extra = act_ground - exp_ground
    if extra:
        return f"{len(extra)} statements were not expected, e.g. {_show(min(extra, key=_show))}"
    exp_b, act_b = exp - exp_ground, act - act_ground
    if len(exp_b) != len(act_b):
        return (f"expected {len(exp_b)} statements with blank nodes, found {len(act_b)}")
    if exp_b != act_b and not _renames(exp_b, act_b, _in_order(exp_list, act_list)) \
            and _isomorphism(list(exp_b), list(act_b)) is None:
        return (f"the {len(exp_b)} statements with blank nodes cannot be matched by renaming "
                f"blank nodes")
    return None


def _in_order(exp: list[tuple[Any, ...]], act: list[tuple[Any, ...]]
              ) -> dict[BlankNode, BlankNode] | None:
    """The renaming that maps the blank nodes of ``exp`` to those of ``act`` in the order they
    first appear, or None if they are not as many: the renaming of a file converted to
    another format (labels changed or not, statements in the same order), found without
    the search, which a large component of blank nodes makes slow."""
    orders: list[dict[BlankNode, None]] = []
    for statements in (exp, act):
        seen: dict[BlankNode, None] = {}
        for st in statements:
            for t in st:
                _bnodes(t, seen)
        orders.append(seen)
    if len(orders[0]) != len(orders[1]):
        return None
    return dict(zip(orders[0], orders[1]))


def _renames(exp: Iterable[tuple[Any, ...]], act: set[tuple[Any, ...]],
             mapping: dict[BlankNode, BlankNode] | None) -> bool:
    """Whether ``mapping`` (one to one) turns the statements ``exp`` into the set ``act``."""
    return mapping is not None and len(set(mapping.values())) == len(mapping) \
        and {_renamed(st, mapping) for st in exp} == act


def _bnodes(t: Any, out: dict[BlankNode, None]) -> None:
    """Add the blank nodes of ``t`` to ``out`` (a dict as an ordered set) in the order they
    stand, quoted triples too."""
    if type(t) is BlankNode:
        out.setdefault(t)
    elif type(t) is Triple:
        _bnodes(t.s, out)
        _bnodes(t.p, out)
        _bnodes(t.o, out)


class _Side:
    """One graph: its statements, each as a pattern (see :func:`_pattern`), and for each blank
    node where it stands: ``(statement number, its places there)``.  A component (:meth:`part`)
    shares the patterns of the whole and numbers its statements as the whole does."""

    def __init__(self, statements: list[tuple[Any, ...]], names: dict[Any, tuple[int, int]]
                 ) -> None:
        self.statements = statements
        self.numbers: list[int] | range = range(len(statements))
        self.patterns = [tuple([_pattern(t, names) for t in st]) for st in statements]
        self.nodes: list[list[BlankNode]] = []      # of each statement
        self.where: dict[BlankNode, list[tuple[int, tuple[Any, ...]]]] = {}
        for i, pattern in enumerate(self.patterns):
            found: dict[BlankNode, list[Any]] = {}
            _positions(pattern, (), found)
            for b, at in found.items():
                self.where.setdefault(b, []).append((i, tuple(at)))
            self.nodes.append(list(found))

    def part(self, numbers: list[int]) -> _Side:
        """The side of the statements ``numbers`` only (a component)."""
        part = object.__new__(_Side)
        part.statements = [self.statements[i] for i in numbers]
        part.numbers = numbers
        part.patterns, part.nodes = self.patterns, self.nodes
        part.where = {b: self.where[b] for i in numbers for b in self.nodes[i]}
        return part


def _pattern(t: Any, names: dict[Any, tuple[int, int]]) -> Any:
    """A term as the refinement reads it: a blank node as itself, a ground term as ``(0, n)``
    (numbered once per comparison, shared by both sides: comparing numbers in every round
    costs far less than spelling out terms), a quoted triple with blank nodes as
    ``(3, s, p, o)``."""
    tp = type(t)
    if tp is BlankNode:
        return t
    if tp is Triple and _has_bnode(t):
        return (3, _pattern(t.s, names), _pattern(t.p, names), _pattern(t.o, names))
    found = names.get(t)
    if found is None:
        found = names[t] = (0, len(names))
    return found


_AT = ((0,), (1,), (2,), (3,))


def _positions(items: tuple[Any, ...], path: tuple[int, ...], out: dict[BlankNode, list[Any]]
               ) -> None:
    """Add to ``out`` the places (index paths) of the blank nodes among ``items``."""
    for k, e in enumerate(items):
        if type(e) is BlankNode:
            out.setdefault(e, []).append(_AT[k] if not path else path + (k,))
        elif e[0] == 3:
            _positions(e[1:], path + (k,), out)


def _coloured(e: Any, colour: dict[BlankNode, int]) -> Any:
    """A pattern item with each blank node as ``(2, its colour)``."""
    if type(e) is BlankNode:
        return (2, colour[e])
    if e[0] == 0:
        return e
    return (3, _coloured(e[1], colour), _coloured(e[2], colour), _coloured(e[3], colour))


def _refine(sides: tuple[_Side, _Side], colours: tuple[dict[BlankNode, int], dict[BlankNode, int]]
            ) -> tuple[dict[BlankNode, int], dict[BlankNode, int]] | None:
    """Refine the colours of both sides together until the number of colours is stable: a
    blank node's next colour is its colour and the statements it stands in, coloured, with
    its places in each.  None as soon as a colour counts differently on the two sides (no
    renaming can match them: a difference is found in a round or two, where refining to the
    end takes as many rounds as the graph is wide)."""
    while True:
        table: dict[Any, int] = {}
        new: list[dict[BlankNode, int]] = []
        for side, colour in zip(sides, colours):
            col = {b: (2, c) for b, c in colour.items()}     # made once, not per occurrence
            patterns = side.patterns
            shapes = {i: tuple([col[e] if type(e) is BlankNode else
                                e if e[0] == 0 else _coloured(e, colour) for e in patterns[i]])
                      for i in side.numbers}
            nxt = {}
            for b, places in side.where.items():
                key = (colour[b], tuple(sorted([(shapes[i], at) for i, at in places])))
                nxt[b] = table.setdefault(key, len(table))
            new.append(nxt)
        if Counter(new[0].values()) != Counter(new[1].values()):
            return None
        before = len(set(colours[0].values()) | set(colours[1].values()))
        if len(table) == before:
            return new[0], new[1]
        colours = (new[0], new[1])


def _components(side: _Side) -> list[list[int]]:
    """The statements of ``side`` (their numbers) in groups that share no blank node."""
    parent: dict[BlankNode, BlankNode] = {b: b for b in side.where}

    def root(b: BlankNode) -> BlankNode:
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    for first, *rest in side.nodes:
        for other in rest:
            parent[root(other)] = root(first)
    groups: dict[BlankNode, list[int]] = {}
    for i, nodes in enumerate(side.nodes):
        groups.setdefault(root(nodes[0]), []).append(i)
    return list(groups.values())


def _key(component: list[int], side: _Side, colour: dict[BlankNode, int]) -> tuple[Any, ...]:
    """What two components must share to match: their statements with each blank node
    replaced by its colour (a canonical form when the colours within it are distinct)."""
    nodes = {b: None for i in component for b in side.nodes[i]}
    discrete = len({colour[b] for b in nodes}) == len(nodes)
    shape = tuple(sorted(tuple([_coloured(e, colour) for e in side.patterns[i]])
                         for i in component))
    return (discrete, shape)


def _by_colour(sides: tuple[_Side, _Side], components: tuple[list[int], list[int]],
               colours: tuple[dict[BlankNode, int], dict[BlankNode, int]]
               ) -> dict[BlankNode, BlankNode]:
    """The renaming of two components with the same canonical form: a blank node to the one
    of the same colour."""
    of_colour = {colours[1][b]: b for i in components[1] for b in sides[1].nodes[i]}
    return {b: of_colour[colours[0][b]] for i in components[0] for b in sides[0].nodes[i]}


def _isomorphism(exp: list[tuple[Any, ...]], act: list[tuple[Any, ...]]
                 ) -> dict[BlankNode, BlankNode] | None:
    """A renaming of the blank nodes of ``exp`` that turns it into ``act``, or None.  The
    statements fall apart into components that share no blank node; after colour refinement
    of the whole, components whose colours are distinct match by their canonical form, the
    others by a search within the pair."""
    names: dict[Any, tuple[int, int]] = {}
    sides = (_Side(exp, names), _Side(act, names))
    if len(sides[0].where) != len(sides[1].where):
        return None
    colours = _refine(sides, ({b: 0 for b in sides[0].where}, {b: 0 for b in sides[1].where}))
    if colours is None:
        return None
    candidates: dict[tuple[Any, ...], list[list[int]]] = {}
    for component in _components(sides[1]):
        candidates.setdefault(_key(component, sides[1], colours[1]), []).append(component)
    mapping: dict[BlankNode, BlankNode] = {}
    for component in _components(sides[0]):
        key = _key(component, sides[0], colours[0])
        pool = candidates.get(key)
        if not pool:
            return None
        if key[0]:      # a canonical form: the colours name the renaming, any pair fits
            mapping.update(_by_colour(sides, (component, pool.pop()), colours))
            continue
        for i, other in enumerate(pool):
            found = _search((sides[0].part(component), sides[1].part(other)), colours)
            if found is not None:
                mapping.update(found)
                del pool[i]
                break
        else:
            return None
    return mapping if _renames(exp, set(act), mapping) else None


def _search(sides: tuple[_Side, _Side], whole: tuple[dict[BlankNode, int], dict[BlankNode, int]]
            ) -> dict[BlankNode, BlankNode] | None:
    """A renaming of the blank nodes of one side that turns it into the other (one component
    each), by colour refinement and a search over the choices for tied colours, from the
    colours the whole refined to (a renaming keeps colours: starting there saves refining
    the component from nothing again)."""
    if len(sides[0].where) != len(sides[1].where):
        return None
    target = set(sides[1].statements)
    start = ({b: whole[0][b] for b in sides[0].where}, {b: whole[1][b] for b in sides[1].where})
    # Depth-first, on an explicit stack (a component of many interchangeable blank nodes
    # needs one level per node).  At each step every tied class is first untied at once
    # (:func:`_untie`); only if that fails does the search branch on one class.
    stack: list[Iterator[tuple[dict[BlankNode, int], dict[BlankNode, int]]]] = [iter([start])]
    while stack:
        try:
            colours = next(stack[-1])
        except StopIteration:
            stack.pop()
            continue
        refined = _refine(sides, colours)
        if refined is None:
            continue                    # this choice cannot work
        classes = _classes(refined)
        untied = _untie(sides, refined, classes, target)
        if untied is not None:
            return untied
        tied = [(len(a), c) for c, (a, b) in classes.items() if len(a) > 1]
        if not tied:                    # a renaming, but not one that fits
            continue
        _, c = min(tied)
        x, candidates = classes[c][0][0], sorted(classes[c][1], key=str)
        fresh = max(max(refined[0].values()), max(refined[1].values())) + 1
        stack.append(({**refined[0], x: fresh}, {**refined[1], y: fresh})
                     for y in candidates)
    return None


def _untie(sides: tuple[_Side, _Side], refined: tuple[dict[BlankNode, int], dict[BlankNode, int]],
           classes: dict[int, tuple[list[BlankNode], list[BlankNode]]],
           target: set[tuple[Any, ...]]) -> dict[BlankNode, BlankNode] | None:
    """Pair one blank node of every tied class with one of its counterparts at once and
    refine, until no colour is tied: right when the ties are symmetries (twin blank nodes,
    the usual case), with one refinement for all of them where a search pays one per tie.
    The renaming the colours then give if it turns one side into ``target`` (the other),
    else None."""
    while True:
        tied = [pair for pair in classes.values() if len(pair[0]) > 1]
        if not tied:
            mapping = {a[0]: b[0] for a, b in classes.values()}
            return mapping if _renames(sides[0].statements, target, mapping) else None
        fresh = max(max(refined[0].values()), max(refined[1].values())) + 1
        colours = (dict(refined[0]), dict(refined[1]))
        for k, (a, b) in enumerate(tied):
            colours[0][a[0]] = colours[1][b[0]] = fresh + k
        again = _refine(sides, colours)
        if again is None:
            return None
        refined, classes = again, _classes(again)


def _classes(colours: tuple[dict[BlankNode, int], dict[BlankNode, int]]
             ) -> dict[int, tuple[list[BlankNode], list[BlankNode]]]:
    """The blank nodes of each colour, on each side (as many on both: :func:`_refine`)."""
    classes: dict[int, tuple[list[BlankNode], list[BlankNode]]] = {}
    for i in (0, 1):
        for b, c in colours[i].items():
            classes.setdefault(c, ([], []))[i].append(b)
    return classes


def _renamed(st: tuple[Any, ...], mapping: dict[BlankNode, BlankNode]) -> tuple[Any, ...]:
    def term(t: Any) -> Any:
        if type(t) is BlankNode:
            return mapping[t]
        if type(t) is Triple:
            return Triple(term(t.s), term(t.p), term(t.o))
        return t
    return tuple(term(t) for t in st)
