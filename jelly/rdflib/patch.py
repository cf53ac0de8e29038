"""RDF Patch for rdflib graphs and datasets: apply a patch, compute the patch between two, and
record the changes made to one as a patch stream.

::

    from jelly.rdflib.patch import apply_patch, diff, record

    apply_patch(graph, "changes.jellyp")          # or .rdfp, or an iterable of operations
    ops = diff(old_graph, new_graph)              # the operations turning old into new
    with record(graph, sink=jelly.patch.PatchWriter("log.jellyp")):
        graph.add((s, p, o))                      # existing code, unchanged

Operations are those of :mod:`jelly.patch` with jelly's terms (``jelly.IRI``, ...); rdflib
terms are converted on the way in and out.

* **Targets.**  A ``Graph`` takes triples (and statements in the default graph or in a graph
  named like itself); a ``Dataset`` / ``ConjunctiveGraph`` takes triples into its default graph
  and quads into their graphs.  ``PA`` binds a prefix (replacing what it was bound to), ``PD``
  removes the binding (in Memory / SimpleMemory stores; rdflib has no public way); the graph of
  a namespace operation is ignored.
* **Transactions.**  Outside a transaction an operation is applied at once; inside one, the
  operations are checked and converted as they come and applied together at ``TC``, or not at
  all at ``TA``: an aborted transaction leaves the graph as it was.  A patch that breaks the
  structure (``TX`` inside a transaction, ``TC`` outside one, a patch ending inside one) raises
  :class:`jelly.JellyError`, leaving what was committed before applied.
* **Blank nodes** are rdflib ``BNode``\\ s with the patch's label (``_:b1`` is ``BNode("b1")``),
  and :func:`diff` and :func:`record` write a ``BNode``'s id as the label: a patch refers to the
  very nodes of the graph, so replicas stay identical.  Two isomorphic graphs whose blank nodes
  have different ids differ for :func:`diff` (its patch still turns one into the other).
* **Quoted triples** (RDF-star) cannot be held by rdflib: :class:`NotRepresentableError`.
"""

from __future__ import annotations

import contextlib
import os
from types import TracebackType
from typing import Any, Callable, Iterable, Iterator, Union

from rdflib.graph import DATASET_DEFAULT_GRAPH_ID, ConjunctiveGraph, Graph
from rdflib.term import BNode, Literal as RdfLiteral, Node, URIRef

from .. import formats
from .._patchops import (END_OF_PATCH, TX_ABORT, TX_COMMIT, TX_START, Add, Delete, PatchOp,
                         PrefixAdd, PrefixDelete)
from .._terms import DEFAULT_GRAPH, BlankNode, DefaultGraph, IRI, Literal, Triple
from ..errors import JellyError
from ..patchdata import ApplyResult, apply_operations
from . import _compat
from ._terms import NotRepresentableError, to_jelly
from .streams import default_graph, graphs

__all__ = ["apply_patch", "diff", "record", "ChangeRecorder", "read_operations"]

#: What :func:`apply_patch` reads: operations, or a patch file (path, bytes, binary stream).
PatchSource = Union[Iterable[PatchOp], str, bytes, Any]


# ------------------------------------------------------------------------------- terms

def _rdflib_term(t: Any, where: str) -> Node:
    tp = type(t)
    if tp is IRI:
        return URIRef(t.value)
    if tp is BlankNode:
        return BNode(t.value)
    if tp is Literal:
        dt = t.datatype
        try:
            return RdfLiteral(t.lex, t.language, None if dt is None else URIRef(dt.value),
                              normalize=False)
        except ValueError as exc:
            raise NotRepresentableError(f"rdflib cannot represent the literal {t!r} ({exc})") \
                from None
    if tp is Triple:
        raise NotRepresentableError(f"the patch has an RDF-star quoted triple as {where}, which "
                                    f"rdflib cannot represent")
    if isinstance(t, Node):
        return t            # already an rdflib term
    raise JellyError(f"not an RDF term as {where}: {t!r}")


def _graph_id(g: Any) -> Any:
    """None for no graph or the default graph, else the rdflib graph name."""
    if g is None or type(g) is DefaultGraph or g == DATASET_DEFAULT_GRAPH_ID:
        return None
    if type(g) is Literal:
        raise NotRepresentableError(f"rdflib cannot have a literal as a graph name: {g!r}")
    return _rdflib_term(g, "a graph name")


def _jelly_term(t: Any) -> Any:
    native = to_jelly(t)
    if native is None:
        raise JellyError(f"not an RDF term: {t!r}")
    return native


# ------------------------------------------------------------------------------- apply

class _Target:
    """A graph or dataset as a :class:`jelly.patchdata.PatchTarget` of rdflib terms."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.dataset = isinstance(graph, ConjunctiveGraph)
        self.default = default_graph(graph) if self.dataset else graph   # type: ignore[arg-type]

    def context(self, g: Any) -> Graph:
        if g is None:
            return self.default
        if self.dataset:
            ctx: Graph = self.graph.get_context(g)          # type: ignore[attr-defined]
            return ctx
        if g == self.graph.identifier:
            return self.graph
        raise JellyError(f"the patch has a statement in the graph {g.n3()}, which a Graph "
                         f"cannot hold: apply it to a Dataset")

    def prepare(self, op: PatchOp) -> PatchOp:
        """The operation with rdflib terms (checked now, so that a commit cannot fail)."""
        if isinstance(op, (Add, Delete)):
            g = _graph_id(op.g)
            self.context(g)
            return type(op)(_rdflib_term(op.s, "a subject"), _rdflib_term(op.p, "a predicate"),
                            _rdflib_term(op.o, "an object"), g)
        if isinstance(op, PrefixAdd):
            iri = op.iri.value if type(op.iri) is IRI else str(op.iri)
            if " " in op.prefix:
                raise JellyError(f"rdflib cannot bind the prefix {op.prefix!r} (a space)")
            return PrefixAdd(op.prefix, URIRef(iri))
        if isinstance(op, PrefixDelete) and not self.can_unbind():
            raise JellyError(f"rdflib cannot remove a namespace binding from a "
                             f"{type(self.graph.store).__name__} store (PD {op.prefix!r})")
        return op

    def can_unbind(self) -> bool:
        from rdflib.plugins.stores.memory import Memory, SimpleMemory
        return _compat.SUPPORTED and type(self.graph.store) in (Memory, SimpleMemory)

    def add(self, s: Any, p: Any, o: Any, g: Any) -> bool:
        graph = self.context(g)
        if (s, p, o) in graph:
            return False
        graph.add((s, p, o))
        return True

    def remove(self, s: Any, p: Any, o: Any, g: Any) -> bool:
        graph = self.context(g)
        if (s, p, o) not in graph:
            return False
        graph.remove((s, p, o))
        return True

    def bind(self, prefix: str, iri: Any, graph: Any) -> None:
        self.graph.namespace_manager.bind(prefix, iri, override=True, replace=True)

    def unbind(self, prefix: str, iri: Any, graph: Any) -> None:
        _compat.unbind(self.graph, prefix)


def read_operations(source: Any, *, format: str | None = None) -> Iterator[PatchOp]:
    """The operations of a patch file: a path (its extension tells RDF Patch text from
    Jelly-Patch), bytes or a binary stream (told by the first bytes); ``format`` (``"rdfp"``
    or ``"jelly-patch"``) says it."""
    from .. import patch, rdfpatch
    from ..io import open_input, peek
    fmt = formats.get(format, formats.PATCH) if format else None
    if fmt is None and isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-":
        fmt = formats.for_path(source, formats.PATCH)
    with open_input(source) as stream:
        if fmt is None:
            head, stream = peek(stream, 64)
            fmt = formats.JELLY_PATCH if formats.sniff(head) is formats.JELLY_PATCH \
                else formats.RDF_PATCH
        if fmt is formats.JELLY_PATCH:
            yield from patch.parse(stream)
        else:
            yield from rdfpatch.parse(stream)


def apply_patch(graph: Graph, patch: PatchSource, *, format: str | None = None) -> ApplyResult:
    """Apply a patch to an rdflib ``Graph`` or ``Dataset`` (see the module docstring):
    ``patch`` is an iterable of operations or a patch file (see :func:`read_operations`).
    Returns what was done (:class:`jelly.patchdata.ApplyResult`)."""
    if isinstance(patch, (str, bytes, bytearray, memoryview)) or hasattr(patch, "read") or \
            hasattr(patch, "__fspath__"):
        ops: Iterable[PatchOp] = read_operations(patch, format=format)
    else:
        ops = patch
    target = _Target(graph)
    return apply_operations(ops, target, prepare=target.prepare)


# -------------------------------------------------------------------------------- diff

def _statements(graph: Graph) -> dict[tuple[Any, ...], None]:
    """(s, p, o, graph name or None) of every statement, the default graph's with None."""
    if isinstance(graph, ConjunctiveGraph):
        default_ids = {default_graph(graph).identifier, DATASET_DEFAULT_GRAPH_ID}
        out: dict[tuple[Any, ...], None] = {}
        for ctx in graphs(graph):
            gid = None if ctx.identifier in default_ids else ctx.identifier
            for s, p, o in ctx:
                out[(s, p, o, gid)] = None
        return out
    return {(s, p, o, None): None for s, p, o in graph}


def _sort_key(st: tuple[Any, ...]) -> tuple[str, ...]:
    return tuple("" if t is None else t.n3() for t in st)


def diff(a: Graph, b: Graph, *, transaction: bool = True,
         namespaces: bool = True) -> list[PatchOp]:
    """The operations that turn ``a`` into ``b`` (Graphs, or Datasets): namespace bindings
    removed and added (``namespaces=False`` leaves them out), statements deleted and added,
    each group sorted, in one transaction unless ``transaction=False``; an empty list if there
    is no difference.  Statements are triples for Graphs, quads if either is a Dataset (the
    default graph's in ``DEFAULT_GRAPH``).  Blank nodes are compared by their ids (see the
    module docstring)."""
    quads = isinstance(a, ConjunctiveGraph) or isinstance(b, ConjunctiveGraph)
    ops: list[PatchOp] = []
    if namespaces:
        na, nb = dict(a.namespaces()), dict(b.namespaces())
        for prefix in sorted(na):
            if nb.get(prefix) != na[prefix]:
                ops.append(PrefixDelete(prefix, IRI(str(na[prefix]))))
        for prefix in sorted(nb):
            if na.get(prefix) != nb[prefix]:
                ops.append(PrefixAdd(prefix, IRI(str(nb[prefix]))))
    sa, sb = _statements(a), _statements(b)

    def op(kind: type, st: tuple[Any, ...]) -> PatchOp:
        s, p, o = (_jelly_term(t) for t in st[:3])
        g = (DEFAULT_GRAPH if st[3] is None else _jelly_term(st[3])) if quads else None
        made: PatchOp = kind(s, p, o, g)
        return made

    ops += [op(Delete, st) for st in sorted((st for st in sa if st not in sb), key=_sort_key)]
    ops += [op(Add, st) for st in sorted((st for st in sb if st not in sa), key=_sort_key)]
    if ops and transaction:
        ops = [TX_START, *ops, TX_COMMIT]
    return ops


# ------------------------------------------------------------------------------ record

_WRAPPED = ("add", "addN", "remove", "bind")


class ChangeRecorder:
    """Records the changes made to an rdflib ``Graph`` or ``Dataset`` as patch operations,
    whatever code makes them (``add``, ``remove``, ``+=``, ``set``, ``parse``, SPARQL Update,
    ``namespace_manager.bind``, through any Graph object over the same store).

    Operations go to ``sink`` (an object with ``write(op)``, such as a
    :class:`jelly.patch.PatchWriter` or :class:`jelly.rdfpatch.TextWriter`, or a callable) or,
    without one, to the list :attr:`operations`.  Only real changes are recorded: adding a
    statement that is there, or removing one that is not, records nothing.  A Graph's changes
    are triples, a Dataset's quads.

    With ``transaction=True`` (the default) the changes are grouped: the first change after
    :meth:`start` or :meth:`commit` writes ``TX``, :meth:`commit` writes ``TC``, and
    :meth:`rollback` undoes the changes since (in the graph) and writes ``TA`` - so the graph
    and a replica that applies the stream stay the same.  As a context manager: ``start`` on
    entry, ``commit`` on a normal exit, ``rollback`` when the block raises; then ``stop``.

    It works by wrapping the store's ``add``, ``addN``, ``remove`` and ``bind`` methods (on the
    store object, not its class) while recording; recorders on one store nest.
    """

    def __init__(self, graph: Graph, sink: Any = None, *, transaction: bool = True) -> None:
        self.graph = graph
        self.transaction = transaction
        self.operations: list[PatchOp] = []
        if sink is None:
            self._emit: Callable[[PatchOp], Any] = self.operations.append
        elif callable(getattr(sink, "write", None)):
            self._emit = sink.write
        elif callable(sink):
            self._emit = sink
        else:
            raise TypeError("sink must have a write(op) method or be callable")
        self.dataset = isinstance(graph, ConjunctiveGraph)
        self._store = graph.store
        self._saved: dict[str, Any] = {}         # instance attributes the wrappers replace
        self._originals: dict[str, Any] = {}     # the methods the wrappers call
        self._recording = False
        self._paused = False
        self._open = False                  # a TX was written and not yet ended
        self._undo: list[Callable[[], None]] = []
        if self.dataset:
            self._default_ids = {default_graph(graph).identifier,   # type: ignore[arg-type]
                                 DATASET_DEFAULT_GRAPH_ID}

    # -- the context manager and the transaction marks ------------------------------------

    def __enter__(self) -> ChangeRecorder:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            if exc_type is None:
                self.commit()
            elif self.transaction:
                self.rollback()
        finally:
            self.stop()

    def start(self) -> ChangeRecorder:
        """Start recording."""
        if self._recording:
            raise JellyError("this recorder is already recording")
        store = self._store
        self.graph.namespace_manager    # rdflib binds its default prefixes on first use: now
        self._originals = {name: getattr(store, name) for name in _WRAPPED}
        try:
            for name in _WRAPPED:
                if name in vars(store):
                    self._saved[name] = vars(store)[name]
                setattr(store, name, getattr(self, "_" + name.lower()))
        except (AttributeError, TypeError):
            self._restore()
            raise JellyError(f"cannot record the changes of a {type(store).__name__} store "
                             f"(its methods cannot be wrapped)") from None
        self._recording = True
        return self

    def commit(self) -> None:
        """End the changes so far as a committed transaction (``TC``)."""
        if self._open:
            self._emit(TX_COMMIT)
            self._open = False
        self._undo.clear()

    def rollback(self) -> None:
        """Undo the changes since the last commit in the graph and write ``TA``."""
        if not self.transaction:
            raise JellyError("rollback needs transaction=True")
        self._paused = True
        try:
            while self._undo:
                self._undo.pop()()
        finally:
            self._paused = False
        if self._open:
            self._emit(TX_ABORT)
            self._open = False

    def end_patch(self) -> None:
        """Commit, then write ``END_OF_PATCH``: what follows is another patch."""
        self.commit()
        self._emit(END_OF_PATCH)

    def stop(self) -> None:
        """Stop recording (a transaction still open is committed).  Recorders of one graph
        nest: the one started last stops first."""
        if not self._recording:
            return
        store = vars(self._store)
        if any(store.get(name) != getattr(self, "_" + name.lower()) for name in _WRAPPED):
            # Another recorder wraps this one: restoring now would take its wrappers away
            # (it would miss changes) and later put this one's back (recording for ever).
            raise JellyError("another recorder of this graph started after this one and is "
                             "still recording: stop it first (recorders nest)")
        self.commit()
        self._restore()
        self._recording = False

    def _restore(self) -> None:
        store = self._store
        for name in _WRAPPED:
            if name in self._saved:
                setattr(store, name, self._saved.pop(name))
            else:
                vars(store).pop(name, None)

    # -- recording -----------------------------------------------------------------------

    def _record(self, op: PatchOp, undo: Callable[[], None]) -> None:
        self._record_all([(op, undo)])

    def _record_all(self, changes: list[tuple[PatchOp, Callable[[], None]]]) -> None:
        """Write the operations of changes already made to the graph.  Their undos are kept
        first: if the sink fails (a full disk, a lost connection), the rollback of the block
        undoes every change, the ones not written too, and the graph stays what a replica
        applying the stream gets."""
        if self.transaction:
            self._undo.extend(undo for _, undo in changes)
            if not self._open:
                self._emit(TX_START)
                self._open = True           # only once written: else TA would have no TX
        for op, _ in changes:
            self._emit(op)

    def _graph_of(self, context: Any) -> Any:
        """The jelly graph of a store context; None: not this graph's (a plain Graph's
        store may hold other graphs)."""
        ident = getattr(context, "identifier", context)
        if self.dataset:
            if ident is None or ident in self._default_ids:
                return DEFAULT_GRAPH
            return _jelly_term(ident)
        return DEFAULT_GRAPH if ident is None or ident == self.graph.identifier else None

    def _statement(self, kind: type, triple: tuple[Any, ...], g: Any) -> PatchOp:
        s, p, o = (_jelly_term(t) for t in triple)
        made: PatchOp = kind(s, p, o, g if self.dataset else None)
        return made

    def _exists(self, triple: tuple[Any, ...], context: Any) -> bool:
        for _ in self._store.triples(triple, context):
            return True
        return False

    def _add(self, triple: tuple[Any, ...], context: Any, quoted: bool = False) -> None:
        add = self._originals["add"]
        if self._paused or quoted:
            add(triple, context, quoted)
            return
        g = self._graph_of(context)
        if g is None or self._exists(triple, context):
            add(triple, context, quoted)
            return
        op = self._statement(Add, triple, g)     # converted first: a bad term changes nothing
        add(triple, context, quoted)
        remove = self._originals["remove"]
        self._record(op, lambda: remove(triple, context))

    def _addn(self, quads: Iterable[tuple[Any, ...]]) -> None:
        for s, p, o, c in quads:
            self._add((s, p, o), c)

    def _remove(self, pattern: tuple[Any, ...], context: Any = None) -> None:
        remove = self._originals["remove"]
        if self._paused:
            remove(pattern, context)
            return
        gone = []
        for triple, contexts in self._store.triples(pattern, context):
            for ctx in ([context] if context is not None else list(contexts)):
                g = self._graph_of(ctx)
                if g is not None:
                    gone.append((triple, ctx, self._statement(Delete, triple, g)))
        remove(pattern, context)
        add = self._originals["add"]
        self._record_all([(op, lambda t=triple, c=ctx: add(t, c, False))
                          for triple, ctx, op in gone])

    def _bind(self, prefix: str, namespace: Any, override: bool = True) -> None:
        bind = self._originals["bind"]
        if self._paused:
            bind(prefix, namespace, override=override)
            return
        before = dict(self._store.namespaces())
        bind(prefix, namespace, override=override)
        after = dict(self._store.namespaces())
        for p, iri in before.items():
            if after.get(p) != iri:
                self._record(PrefixDelete(p, IRI(str(iri))),
                             lambda p=p, iri=iri: self._rebind(p, iri))
        for p, iri in after.items():
            if before.get(p) != iri:
                old = before.get(p)
                self._record(PrefixAdd(p, IRI(str(iri))),
                             lambda p=p, old=old: self._rebind(p, old))

    def _rebind(self, prefix: str, iri: Any) -> None:
        if iri is None:
            _compat.unbind(self.graph, prefix)
        else:
            self._originals["bind"](prefix, iri, override=True)
            self.graph.namespace_manager.reset()


@contextlib.contextmanager
def record(graph: Graph, sink: Any = None, *,
           transaction: bool = True) -> Iterator[ChangeRecorder]:
    """Record the changes made to ``graph`` inside the ``with`` block (see
    :class:`ChangeRecorder`): ``with record(g) as changes: ...`` then ``changes.operations``,
    or ``with record(g, sink=writer): ...``.  If the block raises, its changes are undone in
    the graph and the stream gets ``TA``."""
    with ChangeRecorder(graph, sink, transaction=transaction) as recorder:
        yield recorder
