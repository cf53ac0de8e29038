"""Patches applied to datasets and computed between them, and the strict checks of a patch's
structure: what ``jelly patch apply``, ``diff`` and ``validate`` and the rdflib integration
(:mod:`jelly.rdflib.patch`) share.

* :class:`PatchChecker` takes operations one by one and raises :class:`jelly.JellyError` at
  the first that breaks RDF Patch's rules: a ``TX`` inside a transaction, a ``TC`` / ``TA``
  outside one, a patch (or the input) that ends inside one, and (``headers=True``) a header
  after another operation of its patch.
* :func:`apply_operations` applies operations to a :class:`PatchTarget` (anything with
  ``add`` / ``remove`` / ``bind`` / ``unbind``): outside a transaction each operation at once,
  inside one all of them at its ``TC``, none at its ``TA``.
* :class:`Dataset` is an in-memory dataset (statements in insertion order, namespaces) that is
  a target; :func:`read_dataset` / :func:`write_dataset` read and write it in any format of
  the registry, through :mod:`jelly.convert`.
* :func:`diff` gives the operations that turn one dataset into another.

Blank nodes are matched by label, as RDF Patch identifies them: a patch that deletes ``_:b``
deletes the statement whose blank node has the label ``b``; :func:`diff` compares labels, so
two isomorphic datasets with different labels differ (the patch still turns one into the
other exactly).  Namespaces are dataset-wide: the graph of a namespace operation is ignored
(as the Jelly-Patch spec suggests for systems without per-graph namespaces).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pathlib
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Protocol, Sequence

from ._patchops import (TX_COMMIT, TX_START, Add, Delete, EndOfPatch, Header,
                        PatchOp, PrefixAdd, PrefixDelete, TxAbort, TxCommit, TxStart)
from ._terms import DEFAULT_GRAPH, IRI, DefaultGraph, Literal, Triple
from .errors import JellyError

if TYPE_CHECKING:
    from .io import Input, Output
    from .options import StreamOptions

__all__ = ["PatchChecker", "PatchTarget", "ApplyResult", "apply_operations", "Dataset",
           "read_dataset", "write_dataset", "diff", "statement_features", "OPERATION_NAMES"]

#: The row code of each operation type (what errors and reports call them).
OPERATION_NAMES: dict[type, str] = {
    Add: "A", Delete: "D", PrefixAdd: "PA", PrefixDelete: "PD", Header: "H", TxStart: "TX",
    TxCommit: "TC", TxAbort: "TA", EndOfPatch: "SEG"}


class PatchChecker:
    """The strict rules of a patch's structure, checked operation by operation (see the
    module docstring); :meth:`finish` at the end of the input.  ``operations`` counts what was
    checked (``ends`` of them ``END_OF_PATCH``), ``patches`` the patches ended so far."""

    def __init__(self, *, headers: bool = True) -> None:
        self.headers = headers
        self.operations = 0
        self.ends = 0
        self.patches = 0
        self.in_transaction = False
        self._patch_started = False     # the current patch has had an operation (not H)
        self._patch_ops = 0

    def _fail(self, op: PatchOp, what: str) -> None:
        error = JellyError(f"operation {self.operations} ({OPERATION_NAMES[type(op)]}, patch "
                           f"{self.patches + 1}): {what}")
        error.operation = self.operations   # type: ignore[attr-defined]  # (for its line)
        raise error

    def check(self, op: PatchOp) -> None:
        self.operations += 1
        t = type(op)
        if t is EndOfPatch:
            if self.in_transaction:
                self._fail(op, "the patch ends inside a transaction (TX without TC or TA)")
            self.ends += 1
            self.patches += 1
            self._patch_started = False
            self._patch_ops = 0
            return
        self._patch_ops += 1
        if t is Header:
            if self.headers and self._patch_started:
                self._fail(op, "a header after the first operation of its patch (headers come "
                               "first)")
            return
        self._patch_started = True
        if t is TxStart:
            if self.in_transaction:
                self._fail(op, "TX inside a transaction (transactions do not nest)")
            self.in_transaction = True
        elif t is TxCommit or t is TxAbort:
            if not self.in_transaction:
                self._fail(op, f"{OPERATION_NAMES[t]} without a transaction (no TX before it)")
            self.in_transaction = False

    def finish(self) -> None:
        """The input ended: an open transaction is an error; an unfinished patch counts."""
        if self.in_transaction:
            raise JellyError(f"the input ends inside a transaction (patch {self.patches + 1}: "
                             f"TX without TC or TA)")
        if self._patch_ops:
            self.patches += 1
            self._patch_ops = 0


class PatchTarget(Protocol):
    """What :func:`apply_operations` changes.  ``g`` / ``graph`` is None for a triple (or a
    namespace without a graph), else the graph term (``DEFAULT_GRAPH`` included).  ``add`` and
    ``remove`` may say whether the statement was added (was not there) or removed (was there):
    True or False; None counts as a change."""

    def add(self, s: Any, p: Any, o: Any, g: Any) -> bool | None: ...
    def remove(self, s: Any, p: Any, o: Any, g: Any) -> bool | None: ...
    def bind(self, prefix: str, iri: Any, graph: Any) -> None: ...
    def unbind(self, prefix: str, iri: Any, graph: Any) -> None: ...


@dataclasses.dataclass
class ApplyResult:
    """What :func:`apply_operations` did."""
    operations: int = 0
    #: Statements added and removed: an A of a statement already there and a D of one that is
    #: not change nothing and are not counted (where the target says so: see PatchTarget).
    added: int = 0
    deleted: int = 0
    committed: int = 0              # transactions
    aborted: int = 0
    patches: int = 0
    headers: list[Header] = dataclasses.field(default_factory=list)


_CHANGES = (Add, Delete, PrefixAdd, PrefixDelete)


def _apply_one(op: PatchOp, target: PatchTarget, result: ApplyResult) -> None:
    if isinstance(op, Add):
        result.added += target.add(op.s, op.p, op.o, op.g) is not False
    elif isinstance(op, Delete):
        result.deleted += target.remove(op.s, op.p, op.o, op.g) is not False
    elif isinstance(op, PrefixAdd):
        target.bind(op.prefix, op.iri, op.graph)
    elif isinstance(op, PrefixDelete):
        target.unbind(op.prefix, op.iri, op.graph)


def apply_operations(ops: Iterable[PatchOp], target: PatchTarget, *,
                     prepare: Callable[[PatchOp], PatchOp] | None = None) -> ApplyResult:
    """Apply operations to ``target``; transactions as in the module docstring, with the
    structure checked as by :class:`PatchChecker` (headers anywhere).  ``prepare`` (optional)
    is called with each operation as it is read, before it is held back in a transaction: a
    target that converts terms fails there, so that a commit applies everything or nothing.
    On an error the changes of the open transaction are dropped; what was applied before
    stays."""
    checker = PatchChecker(headers=False)
    result = ApplyResult()
    pending: list[PatchOp] = []
    for op in ops:
        checker.check(op)
        result.operations += 1
        t = type(op)
        if prepare is not None and t in _CHANGES:
            op = prepare(op)
        if t is TxStart:
            pending = []
        elif t is TxCommit:
            for held in pending:
                _apply_one(held, target, result)
            pending = []
            result.committed += 1
        elif t is TxAbort:
            pending = []
            result.aborted += 1
        elif isinstance(op, Header):
            result.headers.append(op)
        elif t is not EndOfPatch:
            if checker.in_transaction:
                pending.append(op)
            else:
                _apply_one(op, target, result)
    checker.finish()
    result.patches = checker.patches
    return result


# ------------------------------------------------------------------------------- datasets

_ABSENT = object()


def _graph(g: Any) -> Any:
    return DEFAULT_GRAPH if g is None else g


def _iri(iri: Any) -> IRI:
    return IRI(iri) if isinstance(iri, str) else iri


class Dataset:
    """An in-memory RDF dataset: ``statements`` (``(s, p, o, g)`` with ``DEFAULT_GRAPH`` for the
    default graph, in insertion order, no duplicates) and ``namespaces`` (prefix -> IRI); a
    :class:`PatchTarget`."""

    def __init__(self, statements: Iterable[tuple[Any, ...]] = (),
                 namespaces: Iterable[tuple[str, Any]] = ()) -> None:
        self.statements: dict[tuple[Any, ...], None] = {}
        self.namespaces: dict[str, IRI] = {}
        for st in statements:
            self.add_statement(st)
        for prefix, iri in namespaces:
            self.namespaces[prefix] = _iri(iri)

    def add(self, s: Any, p: Any, o: Any, g: Any = None) -> bool:
        """Add a statement; whether it was not there."""
        key = (s, p, o, _graph(g))
        statements = self.statements
        n = len(statements)
        statements[key] = None
        return len(statements) > n

    def add_statement(self, st: Sequence[Any]) -> None:
        """Add ``(s, p, o)`` or ``(s, p, o, g)``."""
        self.statements[(st[0], st[1], st[2], _graph(st[3] if len(st) > 3 else None))] = None

    def remove(self, s: Any, p: Any, o: Any, g: Any = None) -> bool:
        """Remove a statement; whether it was there."""
        return self.statements.pop((s, p, o, _graph(g)), _ABSENT) is not _ABSENT

    def bind(self, prefix: str, iri: Any, graph: Any = None) -> None:
        self.namespaces[prefix] = _iri(iri)

    def unbind(self, prefix: str, iri: Any = None, graph: Any = None) -> None:
        self.namespaces.pop(prefix, None)

    @property
    def quads(self) -> bool:
        """Whether a statement is in a named graph."""
        return any(type(st[3]) is not DefaultGraph for st in self.statements)

    def __len__(self) -> int:
        return len(self.statements)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        """The statements: ``(s, p, o)`` in the default graph, ``(s, p, o, g)`` in others."""
        for st in self.statements:
            yield st[:3] if type(st[3]) is DefaultGraph else st


def _check_jelly_kind(head: bytes, source: object, patch: bool) -> None:
    """Refuse a Jelly-RDF stream where Jelly-Patch is expected (``patch``) and the reverse:
    both start with an options row, and the other's rows then fail with a message that does
    not say why."""
    from . import formats
    from .io import is_stdio
    told = formats.sniff(head, (formats.JELLY, formats.JELLY_PATCH))
    if told is None or (told is formats.JELLY_PATCH) == patch:
        return
    which = "stdin" if is_stdio(source) else repr(os.fspath(source)) \
        if isinstance(source, (str, os.PathLike)) else "the input"
    if patch:
        raise JellyError(f"{which} is a Jelly-RDF stream, not Jelly-Patch (read it with jelly "
                         f"convert)")
    raise JellyError(f"{which} is a Jelly-Patch stream, not Jelly-RDF (read it with jelly "
                     f"patch)")


def read_dataset(source: Input, *, format: str | None = None, syntax: str | None = None,
                 base: str | None = None) -> Dataset:
    """A dataset from ``source`` (path, ``"-"``, bytes, binary file) in any format of the
    registry (``format``: a name, else the file extension); ``syntax`` and ``base`` as for
    :func:`jelly.convert.convert`."""
    from . import formats
    from .convert import _format, open_source, sniff_input
    from .io import open_input, peek
    fmt = _format(format, source, "input", formats.RDF)
    if base is None and isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-":
        base = pathlib.Path(os.fspath(source)).resolve().as_uri()
    data = Dataset()
    with contextlib.ExitStack() as stack:
        stream = stack.enter_context(open_input(source))
        if fmt in (None, formats.JELLY):
            head, stream = peek(stream, 64)
            _check_jelly_kind(head, source, patch=False)
        if fmt is None:
            fmt, stream = sniff_input(stream, source)
        src = open_source(stream, fmt, syntax=syntax, base=base)
        stack.callback(src.close)
        for frame, _ in src.frames():
            for st in frame.statements:
                data.add_statement(st)
            for prefix, iri in frame.namespaces:
                data.bind(prefix, iri)
    return data


def _features(s: Any, p: Any, o: Any) -> tuple[bool, bool]:
    star = type(s) is Triple or type(p) is Triple or type(o) is Triple
    generalized = type(s) is Literal or type(p) is not IRI
    if star and not generalized:
        generalized = any(type(t) is Triple and _features(t.s, t.p, t.o)[1] for t in (s, p, o))
    return star, generalized


def statement_features(statements: Iterable[Sequence[Any]]) -> tuple[bool, bool]:
    """Whether ``statements`` hold a quoted triple, and whether one is generalized (a literal
    subject or graph, a predicate that is not an IRI; in quoted triples too): what a Jelly
    writer's ``rdf_star`` and generalized statements must be.  Statements held whole tell it
    before the options are written, which a stream cannot."""
    star = generalized = False
    for st in statements:
        one_star, one_generalized = _features(st[0], st[1], st[2])
        star = star or one_star
        generalized = generalized or one_generalized or (len(st) > 3 and type(st[3]) is Literal)
        if star and generalized:
            break
    return star, generalized


class _Held:
    """The source a sink is opened for: a dataset held in memory (one flat frame)."""

    text = False
    grouped = False

    def __init__(self, data: Dataset) -> None:
        self.quads = data.quads
        self._data = data

    @property
    def options(self) -> StreamOptions:
        """The options of Jelly output (only a Jelly sink asks): those the dataset needs, where
        ``jelly convert`` must be told (``--rdf-star``, ``--generalized``)."""
        from .options import make_options
        star, generalized = statement_features(self._data.statements)
        return make_options(quads=self.quads, rdf_star=star, generalized_statements=generalized)


def write_dataset(data: Dataset, destination: Output, *, format: str | None = None,
                  syntax: str | None = None) -> None:
    """Write a dataset in any format of the registry (``format``: a name, else the file
    extension; stdout: N-Quads); a path is replaced only when the whole write succeeded."""
    from . import formats
    from .convert import TextFrame, _check_output, _format, open_sink, write_frames
    from .io import is_stdio, open_output
    fmt = _format(format, destination, "output", formats.RDF)
    if fmt is None:                     # stdout, as `jelly patch` writes a patch: text
        fmt = formats.NQUADS
    _check_output(fmt, is_stdio(destination))
    frame = TextFrame(list(data), list(data.namespaces.items()))
    with open_output(destination) as out:
        sink = open_sink(out, fmt, _Held(data), syntax=syntax)  # type: ignore[arg-type]
        write_frames(sink, [(frame, False)])


def diff(a: Dataset, b: Dataset, *, transaction: bool = True) -> list[PatchOp]:
    """The operations that turn ``a`` into ``b``: namespaces deleted (``PD``, with the IRI they
    had) and added (``PA``), statements deleted (``D``, in ``a``'s order) and added (``A``, in
    ``b``'s order), in one transaction (``TX`` ... ``TC``) unless ``transaction=False``; no
    operation at all if the datasets are equal.  Statements are triples (``g`` None) if
    neither dataset has a named graph, else quads (``DEFAULT_GRAPH`` for the default graph).
    Blank nodes are compared by label (see the module docstring)."""
    quads = a.quads or b.quads
    ops: list[PatchOp] = []
    for prefix, iri in a.namespaces.items():
        if b.namespaces.get(prefix) != iri:
            ops.append(PrefixDelete(prefix, iri))
    for prefix, iri in b.namespaces.items():
        if a.namespaces.get(prefix) != iri:
            ops.append(PrefixAdd(prefix, iri))
    for st in a.statements:
        if st not in b.statements:
            ops.append(Delete(*st) if quads else Delete(*st[:3]))
    for st in b.statements:
        if st not in a.statements:
            ops.append(Add(*st) if quads else Add(*st[:3]))
    if ops and transaction:
        ops = [TX_START, *ops, TX_COMMIT]
    return ops

