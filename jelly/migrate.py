"""RDF-star ↔ RDF 1.2: rewrite quoted triples as RDF 1.2 reifiers, and back where that loses
nothing.

RDF-star (the community-group syntax Jelly's ``rdf_star`` streams were made for) lets a quoted
triple stand anywhere a term can.  RDF 1.2 keeps triple terms only as objects and talks *about*
a triple through a reifier: ``_:r rdf:reifies <<( s p o )>> . _:r :source :x .``

* :func:`to_rdf12` replaces every quoted triple in the subject position (which is also how
  RDF-star annotations ``{| ... |}`` come out in N-Triples) by a blank-node reifier and adds its
  ``rdf:reifies`` statement; quoted triples in the object position stay (they are RDF 1.2 triple
  terms).  One quoted triple gets one reifier, everywhere in the stream: the reifier's label is
  derived from the triple (``r`` + 32 hex digits of a BLAKE2b digest of its N-Triples form;
  an input blank node labelled so, or so with more ``r`` in front, gets one more ``r``, so
  that it cannot be taken for a reifier); its ``rdf:reifies`` statement goes into each graph,
  and each message, that uses it.
* :func:`to_rdf_star` is the reverse: a blank node that ``rdf:reifies`` one triple term is
  replaced by that quoted triple and the ``rdf:reifies`` statement is dropped (kept as it is,
  ``_:r rdf:reifies << s p o >>``, for a reifier no other statement uses).  It refuses input
  where that would lose information (one reifier of two triples, two reifiers of one triple
  in one message, a reifier used before its ``rdf:reifies`` statement or in a graph without
  one, an ``rdf:reifies`` statement in a graph where its reifier is not used but that is used
  elsewhere, a reifier that names a graph and is used elsewhere: RDF-star has no quoted triple
  as graph name); memory grows with the number of reifiers and of blank nodes (of a message:
  each message of a log, or frame of a grouped stream, starts afresh).

Both are generators over statements (3- or 4-tuples of :mod:`jelly` terms), so they stream.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from typing import Any, Iterable, Iterator

from ._ntformat import check_rdf_star, term_to_nt
from ._terms import BlankNode, DefaultGraph, IRI, Triple
from .errors import JellyError

__all__ = ["RDF_REIFIES", "ToRdf12", "ToRdfStar", "reifier_of", "to_rdf12", "to_rdf_star"]

RDF_REIFIES = IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies")
#: ``rdf:reifies`` statements remembered as written (per graph), so that each is written once;
#: beyond this many a repeated one may be written again (the same statement: harmless).
_EMITTED_CACHE = 1 << 16
#: Labels of the reifiers' form (``r`` + 32 hex digits), or of that form with more ``r`` in
#: front: an input blank node labelled so gets one more ``r`` (:func:`_own`).
_REIFIER_LIKE = re.compile(r"r+[0-9a-f]{32}")


def reifier_of(triple: Triple) -> BlankNode:
    """The blank node :func:`to_rdf12` gives a quoted triple."""
    digest = hashlib.blake2b(term_to_nt(triple).encode("utf-8"), digest_size=16).hexdigest()
    return BlankNode("r" + digest)


def to_rdf12(statements: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
    """RDF-star statements as RDF 1.2: quoted triples in the subject position become reifiers
    (see the module docstring)."""
    return ToRdf12()(statements)


class ToRdf12:
    """:func:`to_rdf12` that keeps its state from one call to the next (frames of a stream);
    each message of a message log needs a new one (its blank nodes are its own)."""

    def __init__(self) -> None:
        self._emitted: OrderedDict[tuple[BlankNode, Any], None] = OrderedDict()

    def __call__(self, statements: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
        emitted = self._emitted
        clash = _REIFIER_LIKE.fullmatch
        for st in statements:
            n = len(st)
            s, p, o = st[0], st[1], st[2]
            g = st[3] if n == 4 else None
            if type(p) is Triple:
                _no_predicate()
            if type(s) is not Triple and type(o) is not Triple:
                # Input labels of the reifiers' form move (_own); the first letter rules out
                # most labels cheaply, and blank graph names and predicates are rare.
                if (type(s) is BlankNode and s.value[:1] == "r" and clash(s.value)
                        or type(o) is BlankNode and o.value[:1] == "r" and clash(o.value)
                        or type(g) is BlankNode or type(p) is BlankNode):
                    st = tuple([_own(t) for t in st])
                yield st if type(st) is tuple else tuple(st)
                continue
            s, p, o, g = _own(s), _own(p), _own(o), _own(g)
            extra: list[tuple[Any, ...]] = []
            if type(s) is Triple:
                s = _reify(s, g, n, extra, emitted)
            if type(o) is Triple:
                o = _triple_term(o, g, n, extra, emitted)
            yield from extra
            yield (s, p, o, g) if n == 4 else (s, p, o)


def _own(term: Any) -> Any:
    """``term`` with one more ``r`` before each blank node label of :data:`_REIFIER_LIKE`, in
    quoted triples too: no input node can then be taken for a reifier (whose labels have
    exactly one ``r``), and distinct input labels stay distinct."""
    tp = type(term)
    if tp is BlankNode:
        label = term.value
        return BlankNode("r" + label) if _REIFIER_LIKE.fullmatch(label) else term
    if tp is Triple:
        s, p, o = _own(term.s), _own(term.p), _own(term.o)
        return term if s is term.s and p is term.p and o is term.o else Triple(s, p, o)
    return term


def _no_predicate() -> None:
    raise JellyError("a quoted triple as predicate (generalized RDF-star) has no RDF 1.2 form")


def _reify(t: Triple, g: Any, n: int, extra: list[tuple[Any, ...]],
           emitted: OrderedDict[tuple[BlankNode, Any], None]) -> BlankNode:
    r = reifier_of(t)
    key = (r, g)
    if key in emitted:
        emitted.move_to_end(key)
        return r
    tt = _triple_term(t, g, n, extra, emitted)
    extra.append((r, RDF_REIFIES, tt, g) if n == 4 else (r, RDF_REIFIES, tt))
    emitted[key] = None
    if len(emitted) > _EMITTED_CACHE:
        emitted.popitem(last=False)
    return r


def _triple_term(t: Triple, g: Any, n: int, extra: list[tuple[Any, ...]],
                 emitted: OrderedDict[tuple[BlankNode, Any], None]) -> Triple:
    """The triple as an RDF 1.2 triple term: a quoted subject inside it becomes a reifier."""
    s, p, o = t.s, t.p, t.o
    if type(p) is Triple:
        _no_predicate()
    if type(s) is not Triple and type(o) is not Triple:
        return t
    if type(s) is Triple:
        s = _reify(s, g, n, extra, emitted)
    if type(o) is Triple:
        o = _triple_term(o, g, n, extra, emitted)
    return Triple(s, p, o)


def to_rdf_star(statements: Iterable[Any], *, strict: bool = True) -> Iterator[tuple[Any, ...]]:
    """RDF 1.2 statements as RDF-star: blank-node reifiers become the quoted triples they
    reify (see the module docstring).  ``strict=False`` lets several reifiers stand for one
    triple (what an RDF 1.2 parser makes of RDF-star ``<< >>`` syntax).  The ``rdf:reifies``
    statements of reifiers nothing uses come last, as they were."""
    star = ToRdfStar(strict=strict)
    yield from star(statements)
    yield from star.unused()


class ToRdfStar:
    """:func:`to_rdf_star` that keeps its state from one call to the next (frames of a
    stream).  ``strict=False`` (reading RDF-star Turtle through an RDF 1.2 parser) needs
    :meth:`feed` and :meth:`flush`: such a parser gives a reifier in the object position just
    before its ``rdf:reifies`` statement, so the last statements wait for the next call."""

    #: Statements held back by :meth:`feed` (the reifier comes one statement after its use).
    WINDOW = 64

    def __init__(self, *, strict: bool = True) -> None:
        self._strict = strict
        self._reified: dict[BlankNode, Triple] = {}   # reifier -> the quoted triple
        self._reifier: dict[Triple, BlankNode] = {}   # and back (strict only)
        self._seen: set[BlankNode] = set()            # blank nodes used so far (strict only)
        self._held: list[Any] = []
        # The rdf:reifies statements of this message (reifier and graph), and the blank nodes
        # that other statements (or triple terms) use, per graph (_key): a reifier never used
        # is written back as it was (a quoted triple as object is RDF-star), or the conversion
        # would drop it.
        self._graph: dict[Any, tuple[BlankNode, tuple[Any, ...]]] = {}
        self._used: set[Any] = set()
        # Where reifiers have rdf:reifies statements (_key), and those replaced by their
        # triple: RDF-star has no graph for a quoted triple, so a reifier is replaced only
        # where its rdf:reifies statement is, and each of those must see a use.
        self._where: set[Any] = set()
        self._replaced: set[BlankNode] = set()
        # Blank graph names: a reifier that names a graph cannot also be replaced elsewhere
        # (RDF-star has no quoted triple as graph name; the graph would lose its triple).
        self._named: set[BlankNode] = set()

    def _register(self, st: Any) -> None:
        s, o = st[0], st[2]
        reified = self._reified
        t = _collapse(o, reified)
        before = reified.get(s)
        if before is not None and before != t:
            raise JellyError(f"_:{s.value} reifies two triples ({term_to_nt(before)} "
                             f"and {term_to_nt(t)}); RDF-star cannot say that")
        if self._strict:
            if s in self._seen and before is None:
                raise JellyError(f"_:{s.value} is used before its rdf:reifies statement; the "
                                 f"conversion to RDF-star needs the rdf:reifies statement first")
            other = self._reifier.get(t)
            if other is not None and other != s:
                raise JellyError(f"{term_to_nt(t)} has two reifiers (_:{other.value} and "
                                 f"_:{s.value}); RDF-star would merge them")
            self._reifier[t] = s
        g = _graph_of(st)
        if type(g) is BlankNode:
            self._name(g)
        key = _key(s, g)
        self._graph.setdefault(key, (s, tuple(st[3:])))
        self._where.add(key)
        self._use(o, g)
        reified[s] = t

    def _rewrite(self, st: Any) -> tuple[Any, ...]:
        s, o = st[0], st[2]
        reified = self._reified
        g = _graph_of(st)
        if type(g) is BlankNode:
            self._name(g)
        self._use(s, g)
        self._use(o, g)
        check_rdf_star(o)
        s2 = _collapse(s, reified) if type(s) in (BlankNode, Triple) else s
        o2 = _collapse(o, reified) if type(o) in (BlankNode, Triple) else o
        if s2 is s and o2 is o:
            return st if type(st) is tuple else tuple(st)
        return (s2, st[1], o2, st[3]) if len(st) == 4 else (s2, st[1], o2)

    def __call__(self, statements: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
        seen, strict = self._seen, self._strict
        for st in statements:
            s, p, o = st[0], st[1], st[2]
            if p == RDF_REIFIES and type(s) is BlankNode and type(o) is Triple:
                self._register(st)
                continue
            if strict:
                if type(s) is BlankNode:
                    seen.add(s)
                if type(o) is BlankNode:
                    seen.add(o)
            yield self._rewrite(st)

    def feed(self, statements: Iterable[Any]) -> list[tuple[Any, ...]]:
        """The rewritten statements that are certain now; the last ones wait (see above)."""
        pending = self._held + list(statements)
        for st in pending:
            if st[1] == RDF_REIFIES and type(st[0]) is BlankNode and type(st[2]) is Triple:
                self._register(st)
        cut = max(0, len(pending) - self.WINDOW)
        self._held = pending[cut:]
        return [self._rewrite(st) for st in pending[:cut] if not _is_reifies(st)]

    def flush(self) -> list[tuple[Any, ...]]:
        """The statements held back, and :meth:`unused` (the end of a document or message)."""
        held, self._held = self._held, []
        return [self._rewrite(st) for st in held if not _is_reifies(st)] + self.unused()

    def unused(self) -> list[tuple[Any, ...]]:
        """The ``rdf:reifies`` statements of the reifiers that no other statement used, as
        they were (``_:r rdf:reifies << s p o >>``): call it at the end of the statements
        (of a document, or of a message of a log)."""
        graphs, self._graph = self._graph, {}
        unused = []
        for key, (b, graph) in graphs.items():
            if key in self._used:
                continue
            if b in self._replaced:     # its rdf:reifies statement here would be lost
                where = _graph_name(graph[0] if graph else None)
                raise JellyError(f"_:{b.value} has an rdf:reifies statement in {where} but is "
                                 f"used only in other graphs; RDF-star cannot say that")
            unused.append((b, RDF_REIFIES, self._reified[b]) + graph)
        # A message's blank nodes are its own: the next one may use the same labels for other
        # nodes, give the triple another reifier, or state an rdf:reifies statement again.
        for state in (self._reified, self._reifier, self._seen, self._used, self._where,
                      self._replaced, self._named):
            state.clear()
        return unused

    def _use(self, term: Any, g: Any) -> None:
        """Note the blank nodes of ``term`` (quoted triples too) as used in graph ``g``."""
        tp = type(term)
        if tp is BlankNode:
            key = _key(term, g)
            self._used.add(key)
            if term in self._reified:
                if key not in self._where:
                    raise JellyError(f"_:{term.value} is used in {_graph_name(g)}, where it has "
                                     f"no rdf:reifies statement; RDF-star cannot say that")
                if term in self._named:
                    _named_reifier(term)
                self._replaced.add(term)
        elif tp is Triple:
            self._use(term.s, g)
            self._use(term.o, g)


    def _name(self, g: BlankNode) -> None:
        """Note ``g`` as a graph name."""
        self._named.add(g)
        if g in self._replaced:
            _named_reifier(g)


def _named_reifier(b: BlankNode) -> None:
    raise JellyError(f"_:{b.value} reifies a triple and names a graph; RDF-star has no quoted "
                     f"triple as graph name")


def _is_reifies(st: Any) -> bool:
    return st[1] == RDF_REIFIES and type(st[0]) is BlankNode and type(st[2]) is Triple


def _graph_of(st: Any) -> Any:
    """The graph of a statement: None for the default graph."""
    g = st[3] if len(st) == 4 else None
    return None if type(g) is DefaultGraph else g


def _key(b: BlankNode, g: Any) -> Any:
    """``b`` in graph ``g`` (the default graph: ``b`` alone, the most common case)."""
    return b if g is None else (b, g)


def _graph_name(g: Any) -> str:
    if g is None or type(g) is DefaultGraph:
        return "the default graph"
    return f"graph {term_to_nt(g)}"


def _collapse(term: Any, reified: dict[BlankNode, Triple]) -> Any:
    tp = type(term)
    if tp is BlankNode:
        return reified.get(term, term)
    if tp is Triple:
        s = _collapse(term.s, reified)
        o = _collapse(term.o, reified)
        if s is term.s and o is term.o:
            return term
        return Triple(s, term.p, o)
    return term
