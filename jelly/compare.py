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
  else by colour refinement (each blank node's
  colour is refined from the statements it stands in, until stable); the statements fall apart
  into components that share no blank node, matched by their canonical form where colours
  within them are distinct and otherwise by trying the candidates of the smallest tied class
  with backtracking, component by component.

Each returns ``None`` when the inputs are equal, else one line saying how they differ.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Sequence

from ._terms import DEFAULT_GRAPH, BlankNode, DefaultGraph, Triple

__all__ = ["dataset_difference", "ordered_difference", "normalized"]


def normalized(statements: Iterable[Sequence[Any]]) -> Iterator[tuple[Any, ...]]:
    """Statements as quads, the default graph as :data:`DEFAULT_GRAPH`."""
    for st in statements:
        if len(st) == 3:
            yield (st[0], st[1], st[2], DEFAULT_GRAPH)
        else:
            g = st[3]
            yield (st[0], st[1], st[2], DEFAULT_GRAPH if g is None or type(g) is DefaultGraph
                   else g)


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
    """One graph: its statements, and for each blank node the statements it stands in."""

    def __init__(self, statements: list[tuple[Any, ...]]) -> None:
        self.statements = statements
        self.where: dict[BlankNode, list[tuple[Any, ...]]] = {}
        for st in statements:
            found: dict[BlankNode, None] = {}
            for t in st:
                _bnodes(t, found)
            for b in found:
                self.where.setdefault(b, []).append(st)


def _shape(t: Any, me: BlankNode | None, colour: dict[BlankNode, int]) -> Any:
    tp = type(t)
    if tp is BlankNode:
        return ("S",) if t == me else ("B", colour[t])
    if tp is Triple:
        return ("Q", _shape(t.s, me, colour), _shape(t.p, me, colour), _shape(t.o, me, colour))
    return ("T", str(t))


def _refine(sides: tuple[_Side, _Side], colours: tuple[dict[BlankNode, int], dict[BlankNode, int]]
            ) -> tuple[dict[BlankNode, int], dict[BlankNode, int]]:
    """Refine the colours of both sides together until the number of colours is stable."""
    while True:
        table: dict[Any, int] = {}
        new: list[dict[BlankNode, int]] = []
        for side, colour in zip(sides, colours):
            nxt = {}
            for b, statements in side.where.items():
                key = (colour[b], tuple(sorted(tuple(_shape(t, b, colour) for t in st)
                                               for st in statements)))
                nxt[b] = table.setdefault(key, len(table))
            new.append(nxt)
        before = len(set(colours[0].values()) | set(colours[1].values()))
        if len(table) == before:
            return new[0], new[1]
        colours = (new[0], new[1])


def _components(side: _Side) -> list[list[tuple[Any, ...]]]:
    """The statements of ``side`` in groups that share no blank node."""
    parent: dict[BlankNode, BlankNode] = {b: b for b in side.where}

    def root(b: BlankNode) -> BlankNode:
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    for statements in side.where.values():
        for st in statements:
            found: dict[BlankNode, None] = {}
            for t in st:
                _bnodes(t, found)
            first, *rest = found
            for other in rest:
                parent[root(other)] = root(first)
    groups: dict[BlankNode, list[tuple[Any, ...]]] = {}
    for st in side.statements:
        found = {}
        for t in st:
            _bnodes(t, found)
        groups.setdefault(root(next(iter(found))), []).append(st)
    return list(groups.values())


def _key(component: list[tuple[Any, ...]], colour: dict[BlankNode, int]) -> tuple[Any, ...]:
    """What two components must share to match: their statements with each blank node
    replaced by its colour (a canonical form when the colours within it are distinct)."""
    nodes: dict[BlankNode, None] = {}
    for st in component:
        for t in st:
            _bnodes(t, nodes)
    discrete = len({colour[b] for b in nodes}) == len(nodes)
    shape = tuple(sorted(tuple(_shape(t, None, colour) for t in st) for st in component))
    return (discrete, shape)


def _isomorphism(exp: list[tuple[Any, ...]], act: list[tuple[Any, ...]]
                 ) -> dict[BlankNode, BlankNode] | None:
    """A renaming of the blank nodes of ``exp`` that turns it into ``act``, or None.  The
    statements fall apart into components that share no blank node; after colour refinement
    of the whole, components whose colours are distinct match by their canonical form, the
    others by a search within the pair."""
    sides = (_Side(exp), _Side(act))
    if len(sides[0].where) != len(sides[1].where):
        return None
    colours = _refine(sides, ({b: 0 for b in sides[0].where}, {b: 0 for b in sides[1].where}))
    candidates: dict[tuple[Any, ...], list[list[tuple[Any, ...]]]] = {}
    for component in _components(sides[1]):
        candidates.setdefault(_key(component, colours[1]), []).append(component)
    mapping: dict[BlankNode, BlankNode] = {}
    for component in _components(sides[0]):
        key = _key(component, colours[0])
        pool = candidates.get(key)
        if not pool:
            return None
        for i, other in enumerate(pool):
            found = _search(component, other)
            if found is not None:
                mapping.update(found)
                del pool[i]
                break
            if key[0]:         # a canonical form: if this one does not fit, none does
                return None
        else:
            return None
    return mapping if _renames(exp, set(act), mapping) else None


def _search(exp: list[tuple[Any, ...]], act: list[tuple[Any, ...]]
            ) -> dict[BlankNode, BlankNode] | None:
    """A renaming of the blank nodes of ``exp`` that turns it into ``act`` (one component
    each), by colour refinement and a search over the choices for tied colours."""
    sides = (_Side(exp), _Side(act))
    if len(sides[0].where) != len(sides[1].where):
        return None
    target = set(act)
    start = ({b: 0 for b in sides[0].where}, {b: 0 for b in sides[1].where})
    # Depth-first, on an explicit stack (a component of many interchangeable blank nodes
    # needs one level per node).
    stack: list[Iterator[tuple[dict[BlankNode, int], dict[BlankNode, int]]]] = [iter([start])]
    while stack:
        try:
            colours = next(stack[-1])
        except StopIteration:
            stack.pop()
            continue
        colours = _refine(sides, colours)
        classes: dict[int, tuple[list[BlankNode], list[BlankNode]]] = {}
        for i in (0, 1):
            for b, c in colours[i].items():
                classes.setdefault(c, ([], []))[i].append(b)
        if any(len(a) != len(b) for a, b in classes.values()):
            continue                    # this choice cannot work
        tied = [(len(a), c) for c, (a, b) in classes.items() if len(a) > 1]
        if not tied:
            mapping = {a[0]: b[0] for a, b in classes.values()}
            if _renames(exp, target, mapping):
                return mapping
            continue
        _, c = min(tied)
        x, candidates = classes[c][0][0], sorted(classes[c][1], key=str)
        fresh = max(max(colours[0].values()), max(colours[1].values())) + 1
        stack.append(({**colours[0], x: fresh}, {**colours[1], y: fresh})
                     for y in candidates)
    return None


def _renamed(st: tuple[Any, ...], mapping: dict[BlankNode, BlankNode]) -> tuple[Any, ...]:
    def term(t: Any) -> Any:
        if type(t) is BlankNode:
            return mapping[t]
        if type(t) is Triple:
            return Triple(term(t.s), term(t.p), term(t.o))
        return t
    return tuple(term(t) for t in st)
