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
  stands in, until stable; ground terms are numbered once, a round looks again only at the
  blank nodes next to a changed colour, and a colour counted differently on the two sides
  ends it); the statements fall apart into components that share no blank node, matched by
  their canonical form where colours within them are distinct and otherwise by a search in
  the pair: every tied class untied at once (twins), else the candidates of the smallest tied
  class tried with backtracking (each choice refined from where it changed, and undone).

Each returns ``None`` when the inputs are equal, else one line saying how they differ.
:class:`OrderedComparison` and :class:`DatasetComparison` are the same comparisons fed as the
statements come, which is how ``validate`` uses them: in order neither input is held, as
datasets only the expected statements without blank nodes and those with blank nodes.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
from typing import AbstractSet, Any, Iterable, Iterator, Sequence

from ._terms import DEFAULT_GRAPH, BlankNode, DefaultGraph, IRI, Literal, Triple
from .errors import amount

__all__ = ["DatasetComparison", "OrderedComparison", "collector_paused", "dataset_difference",
           "normalized", "ordered_difference"]


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


def folded(st: Sequence[Any]) -> Sequence[Any]:
    """``st`` with the language tags in it lower-cased (``st`` itself if it has none that is
    not), for telling statements apart as RDF 1.2 does."""
    s, o = st[0], st[2]
    if type(o) is Literal or type(o) is Triple or type(s) is Triple:
        fs, fo = _folded(s), _folded(o)
        if fs is not s or fo is not o:
            return (fs, st[1], fo, *st[3:])
    return st


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


#: Term types without blank nodes in them.
_PLAIN = frozenset((IRI, Literal, DefaultGraph))


def _has_bnode(t: Any) -> bool:
    tp = type(t)
    if tp is BlankNode:
        return True
    if tp is Triple:
        return _has_bnode(t.s) or _has_bnode(t.p) or _has_bnode(t.o)
    return False


# ------------------------------------------------------------------------------- ordered

def ordered_difference(expected: Iterable[Sequence[Any]],
                       actual: Iterable[Sequence[Any]]) -> str | None:
    """How ``actual`` differs from ``expected`` statement by statement (blank nodes mapped one
    to one as they appear), or None."""
    comparison = OrderedComparison(expected)
    comparison.add(actual)
    return comparison.difference()


class OrderedComparison:
    """:func:`ordered_difference` fed as the statements come (:meth:`add`, any number of
    times), so that neither side is held: ``expected`` is read only as far as the statements
    compared so far, and not at all after the first difference.  What is kept is the mapping
    of blank nodes."""

    def __init__(self, expected: Iterable[Sequence[Any]]) -> None:
        self._source = expected
        self._expected = normalized(expected)
        self._forward: dict[BlankNode, BlankNode] = {}
        self._backward: dict[BlankNode, BlankNode] = {}
        self._found: str | None = None
        self._more = False          # expected has ended
        self._expected_count = 0
        self.compared = 0           #: statements of ``actual`` so far

    def add(self, actual: Iterable[Sequence[Any]]) -> None:
        same, plain, expected = self._same, _PLAIN, self._expected
        for a in normalized(actual):
            if self._found is None and not self._more:
                e = next(expected, None)
                if e is None:
                    self._more = True
                else:
                    self._expected_count += 1
                    s, p, o, g = e
                    # equal and without blank nodes: the common case, decided at once (the
                    # first test of _ground, inline: calling it cost 12% of validate --ordered)
                    if e != a or not (type(s) in plain and type(p) in plain
                                      and type(o) in plain and type(g) in plain):
                        if not all(same(x, y) for x, y in zip(e, a)):
                            self._found = (f"statement {self.compared} differs: expected "
                                           f"{_show(e)} but found {_show(a)}")
            self.compared += 1

    def difference(self) -> str | None:
        """The first difference, or None: call it when ``actual`` has ended."""
        if self._found is not None:
            return self._found
        if not self._more:              # count what is left of expected
            self._expected_count += sum(1 for _ in self._expected)
            self._more = True           # ... once
        if self._expected_count != self.compared:
            return f"expected {self._expected_count} statements in order, found {self.compared}"
        return None

    def close(self) -> None:
        """Close ``expected`` where it can be (a generator reading a file)."""
        close = getattr(self._source, "close", None)
        if close is not None:
            close()

    def _same(self, a: Any, b: Any) -> bool:
        if type(a) is BlankNode and type(b) is BlankNode:
            return self._forward.setdefault(a, b) == b and self._backward.setdefault(b, a) == a
        if type(a) is Triple and type(b) is Triple:
            return self._same(a.s, b.s) and self._same(a.p, b.p) and self._same(a.o, b.o)
        return bool(a == b)


# ------------------------------------------------------------------------------- datasets

def dataset_difference(expected: Iterable[Sequence[Any]],
                       actual: Iterable[Sequence[Any]]) -> str | None:
    """How the dataset ``actual`` differs from ``expected`` (sets of statements, blank nodes
    matched by an isomorphism), or None.  The garbage collector is paused meanwhile."""
    with collector_paused():
        return _dataset_difference(expected, actual)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the garbage collector: a comparison makes millions of tuples, sets and dicts
    and no cycle, so collections would only walk them again and again (20-45% more time in
    ``benchmarks/compare_bench.py``)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


class DatasetComparison:
    """:func:`dataset_difference` fed as the statements come: all of ``expected`` first
    (:meth:`expect`, any number of times), then ``actual`` (:meth:`add`).  The statements of
    ``expected`` without blank nodes are held, each with whether ``actual`` has it; those of
    ``actual`` are only looked up (what ``expected`` lacks is kept apart); the statements with
    blank nodes are held from both sides, in the order first read (dicts as ordered sets), for
    the matching.  Run it with the collector paused (:func:`collector_paused`)."""

    def __init__(self) -> None:
        self._ground: dict[tuple[Any, ...], bool] = {}      # expected -> found in actual
        self._extra: set[tuple[Any, ...]] = set()
        self._blank: tuple[dict[tuple[Any, ...], None], ...] = ({}, {})
        self.compared = 0           #: statements of ``actual`` so far

    def expect(self, statements: Iterable[Sequence[Any]]) -> None:
        ground, blank = self._ground, self._blank[0]
        for st in normalized(statements):
            if _ground(st):
                ground.setdefault(st, False)
            else:
                blank.setdefault(st)

    def add(self, statements: Iterable[Sequence[Any]]) -> None:
        ground, extra, blank = self._ground, self._extra, self._blank[1]
        n = 0
        for st in normalized(statements):
            n += 1
            if _ground(st):
                if st in ground:
                    ground[st] = True
                else:
                    extra.add(st)
            else:
                blank.setdefault(st)
        self.compared += n

    def difference(self) -> str | None:
        """How ``actual`` differs, or None: call it when both sides have ended.  Each kind of
        difference found is counted, with an example: statements without blank nodes missing
        and not expected, then those with blank nodes."""
        parts = []
        missing = [st for st, found in self._ground.items() if not found]
        if missing:
            parts.append(f"{amount(len(missing), 'expected statement')} without blank nodes "
                         f"{'is' if len(missing) == 1 else 'are'} missing, e.g. "
                         f"{_show(min(missing, key=_show))}")
        if self._extra:
            parts.append(f"{amount(len(self._extra), 'statement')} without blank nodes "
                         f"{'was' if len(self._extra) == 1 else 'were'} not expected, e.g. "
                         f"{_show(min(self._extra, key=_show))}")
        exp_b, act_b = self._blank[0].keys(), self._blank[1].keys()
        if len(exp_b) != len(act_b):
            parts.append(f"expected {amount(len(exp_b), 'statement')} with blank nodes, "
                         f"found {len(act_b)}")
        elif not parts and exp_b != act_b and not _renames(exp_b, act_b, _in_order(exp_b, act_b)) \
                and _isomorphism(list(exp_b), list(act_b)) is None:
            parts.append(f"the {len(exp_b)} statements with blank nodes cannot be matched by "
                         f"renaming blank nodes")
        return "; ".join(parts) or None


def _ground(st: tuple[Any, ...]) -> bool:
    """Whether the statement has no blank node (in quoted triples neither)."""
    s, p, o, g = st
    plain = _PLAIN
    if type(s) in plain and type(p) in plain and type(o) in plain and type(g) in plain:
        return True
    return not (_has_bnode(s) or _has_bnode(p) or _has_bnode(o) or _has_bnode(g))


def _dataset_difference(expected: Iterable[Sequence[Any]], actual: Iterable[Sequence[Any]]
                        ) -> str | None:
    comparison = DatasetComparison()
    comparison.expect(expected)
    comparison.add(actual)
    return comparison.difference()


def _in_order(exp: Iterable[tuple[Any, ...]], act: Iterable[tuple[Any, ...]]
              ) -> dict[BlankNode, BlankNode] | None:
    """The renaming that maps the blank nodes of ``exp`` to those of ``act`` in the order they
    first appear (statements as first read), or None if they are not as many: the renaming of
    a file converted to another format (labels changed or not, statements in the same order),
    found without the search, which a large component of blank nodes makes slow."""
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


def _renames(exp: Iterable[tuple[Any, ...]], act: AbstractSet[tuple[Any, ...]],
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


class _Colouring:
    """The colours of the blank nodes of both sides, how many of each colour each side has,
    and a log of changes to take them back (the search tries a choice, then undoes it: a copy
    per choice would cost the whole component each time).  New colours are never reused, so
    a colour that changed is one that no unchanged blank node's statements mention."""

    def __init__(self, colours: tuple[dict[BlankNode, int], dict[BlankNode, int]],
                 fresh: Iterator[int] | None = None) -> None:
        self.colour = colours
        self.size: dict[int, list[int]] = {}
        for i in (0, 1):
            for c in colours[i].values():
                self.size.setdefault(c, [0, 0])[i] += 1
        top = max([-1, *self.size])
        self.fresh = fresh if fresh is not None else itertools.count(top + 1)
        self.log: list[tuple[int, BlankNode, int]] = []

    def recolour(self, side: int, b: BlankNode, c: int) -> None:
        colour = self.colour[side]
        old = colour[b]
        self.log.append((side, b, old))
        colour[b] = c
        self.size[old][side] -= 1
        self.size.setdefault(c, [0, 0])[side] += 1

    def undo(self, mark: int) -> None:
        """Take back the changes after the first ``mark`` of the log."""
        log, size = self.log, self.size
        while len(log) > mark:
            side, b, old = log.pop()
            colour = self.colour[side]
            size[colour[b]][side] -= 1
            size[old][side] += 1
            colour[b] = old

    def individualize(self, pairs: Iterable[tuple[BlankNode, BlankNode]]
                      ) -> tuple[set[BlankNode], set[BlankNode]]:
        """Give each pair (one blank node of each side) a colour of its own; the changed."""
        dirty: tuple[set[BlankNode], set[BlankNode]] = (set(), set())
        for a, b in pairs:
            c = next(self.fresh)
            self.recolour(0, a, c)
            self.recolour(1, b, c)
            dirty[0].add(a)
            dirty[1].add(b)
        return dirty


def _refine(sides: tuple[_Side, _Side], state: _Colouring,
            dirty: tuple[Iterable[BlankNode], Iterable[BlankNode]] | None = None) -> bool:
    """Refine ``state`` until stable: a blank node's colour is split by the statements it
    stands in, coloured, with its places in each.  ``state`` must be stable but for the
    blank nodes ``dirty`` (those whose colour changed; None: all of them): only they and the
    blank nodes that share a statement with them are looked at again in a round, so a change
    that travels along a long chain costs a few blank nodes a round, not the whole graph.
    Within a colour the blank nodes not looked at keep it (they still agree with each other),
    else the largest group does; the others get new colours, in the order of their statements
    on both sides at once, so that a renaming keeps colours.  False as soon as a colour counts
    differently on the two sides (no renaming can match them); ``state`` is then part way."""
    colour, size = state.colour, state.size
    while True:
        # colour -> the statements seen from a blank node -> its blank nodes on each side
        groups: dict[int, dict[tuple[Any, ...], tuple[list[BlankNode], list[BlankNode]]]] = {}
        for s in (0, 1):
            col, patterns, where, nodes = colour[s], sides[s].patterns, sides[s].where, \
                sides[s].nodes
            touched: Iterable[tuple[BlankNode, list[tuple[int, tuple[Any, ...]]]]]
            if dirty is None:           # all of them
                touched = where.items()
            else:
                near = set()
                for b in dirty[s]:
                    near.add(b)
                    for i, _ in where[b]:
                        near.update(nodes[i])
                touched = [(b, where[b]) for b in near]
            shapes: dict[int, tuple[Any, ...]] = {}     # each statement coloured once a round
            for b, places in touched:
                seen = []
                for i, at in places:
                    shape = shapes.get(i)
                    if shape is None:
                        shape = shapes[i] = _shape(patterns[i], col)
                    seen.append((shape, at))
                seen.sort()
                key = tuple(seen)
                c = col[b]
                by_key = groups.get(c)
                if by_key is None:
                    by_key = groups[c] = {}
                group = by_key.get(key)
                if group is None:
                    group = by_key[key] = ([], [])
                group[s].append(b)
        changed: tuple[list[BlankNode], list[BlankNode]] = ([], [])
        for c, by_key in groups.items():
            if any(len(a) != len(b) for a, b in by_key.values()):
                return False
            looked = sum(len(a) for a, _ in by_key.values())
            if size[c][0] - looked != size[c][1] - sum(len(b) for _, b in by_key.values()):
                return False
            if len(by_key) == 1 and looked == size[c][0]:
                continue                # looked at again, but not split
            keys = sorted(by_key)
            if looked == size[c][0]:    # all looked at: the largest group keeps the colour
                keys.remove(max(keys, key=lambda k: len(by_key[k][0])))
            for key in keys:
                new = next(state.fresh)
                for s in (0, 1):
                    for b in by_key[key][s]:
                        state.recolour(s, b, new)
                        changed[s].append(b)
        if not changed[0] and not changed[1]:
            return True
        dirty = changed


def _shape(pattern: tuple[Any, ...], colour: dict[BlankNode, int]) -> tuple[Any, ...]:
    """A statement's pattern with each blank node as ``(2, its colour)``."""
    return tuple([(2, colour[e]) if type(e) is BlankNode else e if e[0] == 0 else
                  _coloured(e, colour) for e in pattern])


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
    shape = tuple(sorted(_shape(side.patterns[i], colour) for i in component))
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
    whole = _Colouring(({b: 0 for b in sides[0].where}, {b: 0 for b in sides[1].where}))
    if not _refine(sides, whole):
        return None
    colours = whole.colour
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
            found = _search((sides[0].part(component), sides[1].part(other)), whole)
            if found is not None:
                mapping.update(found)
                del pool[i]
                break
        else:
            return None
    return mapping if _renames(exp, set(act), mapping) else None


def _search(sides: tuple[_Side, _Side], whole: _Colouring) -> dict[BlankNode, BlankNode] | None:
    """A renaming of the blank nodes of one side that turns it into the other (one component
    each), by a search over the choices for tied colours, from the colours the whole refined
    to (a renaming keeps colours, and the whole's are stable within a component too)."""
    if len(sides[0].where) != len(sides[1].where):
        return None
    target = set(sides[1].statements)
    state = _Colouring(({b: whole.colour[0][b] for b in sides[0].where},
                        {b: whole.colour[1][b] for b in sides[1].where}), whole.fresh)
    # Depth-first, on an explicit stack (a component of many interchangeable blank nodes
    # needs one level per node): each level is a blank node of the smallest tied class, the
    # candidates for it left to try, and the log's length before them.  At each step every
    # tied class is first untied at once (:func:`_untie`); only if that fails does the
    # search branch on one class.
    stack: list[tuple[BlankNode, Iterator[BlankNode], int]] = []
    while True:
        classes = _classes(state.colour)
        untied = _untie(sides, state, classes, target)
        if untied is not None:
            return untied
        tied = [(len(a), c) for c, (a, b) in classes.items() if len(a) > 1]
        if tied:                    # else a renaming, but not one that fits
            _, c = min(tied)
            stack.append((classes[c][0][0], iter(sorted(classes[c][1], key=str)),
                          len(state.log)))
        while stack:                # the next choice that refines without a contradiction
            x, candidates, mark = stack[-1]
            state.undo(mark)
            y = next(candidates, None)
            if y is None:
                stack.pop()
            elif _refine(sides, state, state.individualize([(x, y)])):
                break
        else:
            return None


def _untie(sides: tuple[_Side, _Side], state: _Colouring,
           classes: dict[int, tuple[list[BlankNode], list[BlankNode]]],
           target: set[tuple[Any, ...]]) -> dict[BlankNode, BlankNode] | None:
    """Pair one blank node of every tied class with one of its counterparts at once and
    refine, until no colour is tied: right when the ties are symmetries (twin blank nodes,
    the usual case), with one refinement for all of them where a search pays one per tie.
    The renaming the colours then give if it turns one side into ``target`` (the other),
    else None; ``state`` is as it was either way."""
    mark = len(state.log)
    try:
        while True:
            tied = [pair for pair in classes.values() if len(pair[0]) > 1]
            if not tied:
                mapping = {a[0]: b[0] for a, b in classes.values()}
                return mapping if _renames(sides[0].statements, target, mapping) else None
            if not _refine(sides, state, state.individualize((a[0], b[0]) for a, b in tied)):
                return None
            classes = _classes(state.colour)
    finally:
        state.undo(mark)


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
