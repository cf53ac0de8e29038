"""Blank-node isomorphism of statement lists, on the neutral term tuples of :mod:`oracle.terms`.

Terms: ("I", iri), ("B", label), ("L", lex, lang, dt), ("T", s, p, o), ("D",).
Statements: tuples of terms (3 or 4 long).

* :func:`ordered_isomorphic` - same length, statement i matches statement i, under ONE
  blank-node bijection over the whole list (inside quoted triples and graph terms too).
* :func:`unordered_isomorphic` - the same for multisets of statements (backtracking; meant
  for test-sized inputs).
"""

from __future__ import annotations

from collections import Counter


class _Bijection:
    __slots__ = ("fwd", "bwd")

    def __init__(self, fwd=None, bwd=None):
        self.fwd = dict(fwd or {})
        self.bwd = dict(bwd or {})

    def copy(self):
        return _Bijection(self.fwd, self.bwd)

    def bind(self, a, b) -> bool:
        fa = self.fwd.get(a)
        if fa is not None:
            return fa == b
        if b in self.bwd:
            return False
        self.fwd[a] = b
        self.bwd[b] = a
        return True


def _match_term(a, b, bij: _Bijection, undo: list) -> bool:
    if not isinstance(a, tuple) or not isinstance(b, tuple) or not a or not b:
        return a == b
    if a[0] != b[0] or len(a) != len(b):
        return False
    kind = a[0]
    if kind == "B":
        if a[1] in bij.fwd:
            return bij.fwd[a[1]] == b[1]
        if b[1] in bij.bwd:
            return False
        bij.fwd[a[1]] = b[1]
        bij.bwd[b[1]] = a[1]
        undo.append(a[1])
        return True
    if kind == "T":
        return all(_match_term(x, y, bij, undo) for x, y in zip(a[1:], b[1:]))
    return a == b


def _match_stmt(a, b, bij: _Bijection):
    """Try to unify statement a with b, extending bij in place.  On failure bij is restored."""
    if len(a) != len(b):
        return False
    undo: list = []
    for x, y in zip(a, b):
        if not _match_term(x, y, bij, undo):
            for k in undo:
                del bij.bwd[bij.fwd.pop(k)]
            return False
    return True


def ordered_isomorphic(left, right) -> bool:
    left, right = list(left), list(right)
    if len(left) != len(right):
        return False
    bij = _Bijection()
    return all(_match_stmt(a, b, bij) for a, b in zip(left, right))


def ordered_mismatch(left, right):
    """A human-readable reason why two lists are not ordered-isomorphic (None if they are)."""
    left, right = list(left), list(right)
    bij = _Bijection()
    for i, (a, b) in enumerate(zip(left, right)):
        if not _match_stmt(a, b, bij):
            return f"statement {i} differs:\n  {a!r}\n  {b!r}"
    if len(left) != len(right):
        return f"lengths differ: {len(left)} != {len(right)}"
    return None


def _has_bnode(t) -> bool:
    if t[0] == "B":
        return True
    if t[0] == "T":
        return any(_has_bnode(x) for x in t[1:])
    return False


def _shape(t):
    """The term with every blank node label erased (an isomorphism invariant)."""
    if t[0] == "B":
        return ("B",)
    if t[0] == "T":
        return ("T",) + tuple(_shape(x) for x in t[1:])
    return t


def unordered_isomorphic(left, right) -> bool:
    left, right = list(left), list(right)
    if len(left) != len(right):
        return False
    if Counter(tuple(_shape(t) for t in s) for s in left) != \
            Counter(tuple(_shape(t) for t in s) for s in right):
        return False
    # Ground statements must match exactly (as multisets).
    lg = Counter(s for s in left if not any(_has_bnode(t) for t in s))
    rg = Counter(s for s in right if not any(_has_bnode(t) for t in s))
    if lg != rg:
        return False
    lb = [s for s in left if any(_has_bnode(t) for t in s)]
    rb = [s for s in right if any(_has_bnode(t) for t in s)]
    # Most constrained first: statements with rare shapes.
    shape_count = Counter(tuple(_shape(t) for t in s) for s in lb)
    lb.sort(key=lambda s: shape_count[tuple(_shape(t) for t in s)])
    used = [False] * len(rb)

    def search(i, bij: _Bijection) -> bool:
        if i == len(lb):
            return True
        a = lb[i]
        for j, b in enumerate(rb):
            if used[j]:
                continue
            trial = bij.copy()
            if _match_stmt(a, b, trial):
                used[j] = True
                if search(i + 1, trial):
                    return True
                used[j] = False
        return False

    return search(0, _Bijection())
