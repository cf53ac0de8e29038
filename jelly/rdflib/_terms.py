"""Terms between jelly's core and rdflib: a term factory for the decoder (rdflib terms straight
out of the C decoder) and a term adapter for the encoder (rdflib terms straight into it)."""

from __future__ import annotations

import itertools
import uuid
from functools import partial

from rdflib.graph import DATASET_DEFAULT_GRAPH_ID, Graph
from rdflib.term import BNode, Literal as RdfLiteral, URIRef

from .._terms import DEFAULT_GRAPH, BlankNode, IRI, Literal
from ..errors import JellyError

__all__ = ["NotRepresentableError", "TermFactory", "make_term_adapter",
           "to_jelly"]

#: Literals kept by a factory (most data repeats a small set of literals; rdflib's Literal
#: constructor is expensive).  The cache is emptied when full.
LITERAL_CACHE_SIZE = 1 << 15
#: rdflib terms whose jelly term an adapter keeps (emptied when full).
ADAPTER_CACHE_SIZE = 1 << 16

LIBRARY_FREE_API = "the library-free API: jelly.parse(source) or jelly.parse_frames(source)"


class NotRepresentableError(JellyError):
    """The stream holds something rdflib cannot represent: an RDF-star quoted triple, a
    literal rdflib refuses (such as a malformed language tag) or a literal graph name."""


def _plain_str_subclass(cls) -> bool:
    """True if ``str.__new__(cls, value)`` builds a complete ``cls`` (no per-instance state)."""
    for c in cls.__mro__:
        if c in (str, object):
            continue
        if "__slots__" not in c.__dict__ or tuple(c.__dict__["__slots__"]) != ():
            return False
    return True


# URIRef(value) only checks the IRI (to log a warning for suspicious ones) and then calls
# str.__new__; a decoder-built IRI skips the check, which is a third of the cost of a term.
# BNode(value) likewise.  Used only while those classes hold no state of their own.
if _plain_str_subclass(URIRef) and _plain_str_subclass(BNode):
    _new_iri = partial(str.__new__, URIRef)
    _new_bnode = partial(str.__new__, BNode)
else:  # pragma: no cover - a future rdflib with stateful terms
    _new_iri = URIRef
    _new_bnode = BNode


def _quoted_triple(s, p, o):
    raise NotRepresentableError(
        "the stream holds an RDF-star quoted triple, which rdflib cannot represent; read it "
        f"with {LIBRARY_FREE_API}, which yields quoted triples as jelly.Triple terms")


class TermFactory:
    """Builds rdflib terms for :class:`jelly.Reader` (``factory=``).

    The decoder caches the IRIs and datatypes it gets from here per lookup slot, so an IRI is
    built once per slot, not once per statement.  Literals are cached by (lexical form,
    language, datatype).  Blank nodes: one fresh :class:`rdflib.BNode` per label within a
    scope; :meth:`new_scope` starts a new scope (one per frame for grouped streams).  Lexical
    forms are kept exactly as in the stream (no rdflib normalisation).
    """

    __slots__ = ("iri", "bnode", "literal", "triple", "datatype", "default_graph", "labels",
                 "_literals", "_prefix", "_counter")

    def __init__(self) -> None:
        self.iri = _new_iri
        self.datatype = _new_iri
        self.triple = _quoted_triple
        self.default_graph = DATASET_DEFAULT_GRAPH_ID
        self.labels: dict = {}
        self._literals: dict = {}
        # Blank node ids: a random prefix per factory and a counter, much cheaper than BNode()
        # (which draws a UUID per node) and just as unique.
        self._prefix = "jb" + uuid.uuid4().hex[:16] + "n"
        self._counter = itertools.count()
        self.bnode = self._bnode
        self.literal = self._literal

    def new_scope(self) -> dict:
        """Start a new blank node scope; returns the label map of the scope that ended."""
        old = self.labels
        self.labels = {}
        return old

    def _bnode(self, label: str) -> BNode:
        node = self.labels.get(label)
        if node is None:
            node = self.labels[label] = _new_bnode(self._prefix + str(next(self._counter)))
        return node

    def _literal(self, lex: str, language, datatype) -> RdfLiteral:
        key = (lex, language, datatype)
        cache = self._literals
        lit = cache.get(key)
        if lit is not None:
            return lit
        try:
            lit = RdfLiteral(lex, language, datatype, normalize=False)
        except ValueError as exc:
            raise NotRepresentableError(
                f"rdflib cannot represent the literal {lex!r}"
                + (f"@{language}" if language is not None else "")
                + (f"^^<{datatype}>" if datatype is not None else "")
                + f" ({exc}); read the stream with {LIBRARY_FREE_API}") from None
        if len(cache) >= LITERAL_CACHE_SIZE:
            cache.clear()
        cache[key] = lit
        return lit


def make_term_adapter():
    """A ``term_adapter`` for :class:`jelly.Writer` that converts rdflib terms.

    The C encoder calls it for every term that is not a jelly term.  Conversions are cached by
    object identity (rdflib's ``Literal.__hash__`` and ``__eq__`` are Python code, identity is
    not); the cache holds the rdflib term too, so an id is never reused while cached.

    Blank nodes get short labels (base 36 of a counter: rdflib's own ids are 20 to 33
    characters, written at every occurrence).  ``adapt.new_scope()`` forgets the blank nodes
    seen so far (one scope per frame of a grouped stream keeps memory bounded); labels are never
    reused within a stream, so a reader may scope them per frame or per stream.
    """
    cache: dict = {}
    labels: dict = {}
    counter = itertools.count()

    def bnode_label(term) -> BlankNode:
        native = labels.get(term)
        if native is None:
            native = labels[term] = BlankNode(_base36(next(counter)))
        return native

    def adapt(term, _id=id, _get=cache.get, _cache=cache, _bnode=BNode):
        entry = _get(_id(term))
        if entry is not None and entry[0] is term:
            return entry[1]
        # (type(term) is BNode, not isinstance: rdflib terms are ABCs, slow to isinstance.)
        if type(term) is _bnode or (type(term) is not URIRef and type(term) is not RdfLiteral
                                    and isinstance(term, _bnode)):
            native = bnode_label(term)
        else:
            # Not an RDF term (an N3 Variable, say): handed back as it is, for the encoder
            # to name it ("not an RDF term: ..."), not as None ("missing term").
            native = to_jelly(term)
            if native is None:
                return term
        if len(_cache) >= ADAPTER_CACHE_SIZE:
            _cache.clear()
        _cache[_id(term)] = (term, native)
        return native

    def new_scope() -> None:
        cache.clear()
        labels.clear()

    adapt.new_scope = new_scope
    adapt.lookup = cache.get      # id(term) -> (term, jelly term), for inlined lookups
    return adapt


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _base36(n: int) -> str:
    if n < 36:
        return _DIGITS[n]
    out = []
    while n:
        n, r = divmod(n, 36)
        out.append(_DIGITS[r])
    return "".join(reversed(out))


def to_jelly(term):
    """The jelly term of an rdflib term (``None`` for objects that are not RDF terms)."""
    t = type(term)
    if t is URIRef:
        return IRI(str(term))
    if t is BNode:
        return BlankNode(str(term))
    if t is RdfLiteral:
        dt = term.datatype
        return Literal(str(term), term.language, None if dt is None else str(dt))
    if isinstance(term, URIRef):
        return IRI(str(term))
    if isinstance(term, BNode):
        return BlankNode(str(term))
    if isinstance(term, RdfLiteral):
        dt = term.datatype
        return Literal(str(term), term.language, None if dt is None else str(dt))
    if isinstance(term, Graph):
        if term.identifier == DATASET_DEFAULT_GRAPH_ID:
            return DEFAULT_GRAPH
        if type(term).__name__ in ("QuotedGraph",):
            raise JellyError("an N3 formula (QuotedGraph) cannot be written as Jelly")
        return to_jelly(term.identifier)
    return None
