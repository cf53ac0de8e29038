"""The rdflib internals this package relies on, each in one place behind one version check.

* ``Graph.serialize(format="jelly")`` without a destination and an encoding decodes the
  serializer's bytes as UTF-8 into a ``str``, which corrupts binary output; the serializer
  cannot tell that call apart from ``encoding="utf-8"`` (rdflib passes "utf-8" either way), so
  :func:`serialize_call` reads the arguments of the ``Graph.serialize`` frame that called it,
  to refuse early with a clear message and to gzip a ``.gz`` destination path.
* The Memory store keeps its indexes in private attributes; :func:`memory_indexes` reads them
  to walk a graph in insertion order by subject (what makes repeated terms compress), and the
  public API is used when they are not there.
* rdflib cannot remove a namespace binding: :func:`unbind` deletes it from the Memory and
  SimpleMemory stores' private maps (for RDF Patch's ``PD``, :mod:`jelly.rdflib.patch`).

All are used only on the rdflib versions listed in :data:`TESTED`; on others the public,
slower paths are taken (and the str-vs-bytes problem is left to rdflib).
``tests/test_rdflib_compat.py`` fails when the installed rdflib is outside that range or no
longer has what is read here, so a change in rdflib is noticed, not silently worked around.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

import rdflib
from rdflib.graph import Graph

#: rdflib versions (major, minor) whose internals were checked: from, to (inclusive).
TESTED = ((7, 0), (7, 6))


def _version() -> tuple[int, int]:
    parts = rdflib.__version__.split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return (0, 0)


#: Whether the internals below may be used with the installed rdflib.
SUPPORTED = TESTED[0] <= _version() <= TESTED[1]

_GRAPH_SERIALIZE = getattr(Graph.serialize, "__code__", None)
#: Returned by serialize_call when the caller is not Graph.serialize.
NOT_GRAPH_SERIALIZE = object()


def serialize_call(depth: int = 1) -> dict[str, Any] | object:
    """The ``destination`` and ``encoding`` arguments of the ``Graph.serialize`` call that runs
    the serializer (``depth`` frames up from the caller), or :data:`NOT_GRAPH_SERIALIZE`."""
    if not SUPPORTED or _GRAPH_SERIALIZE is None:
        return NOT_GRAPH_SERIALIZE
    try:
        frame = sys._getframe(depth + 1)
    except (AttributeError, ValueError):  # pragma: no cover - no frame introspection
        return NOT_GRAPH_SERIALIZE
    if frame.f_code is not _GRAPH_SERIALIZE:
        return NOT_GRAPH_SERIALIZE
    local = frame.f_locals
    return {"destination": local.get("destination"), "encoding": local.get("encoding")}


class MemoryIndexes(NamedTuple):
    """The Memory store's indexes: triples per context key, subject -> predicate -> objects,
    the contexts of each triple (and the shared record of the first triple's contexts), the
    context objects by key, and the function from a context to its key."""
    context_triples: dict
    spo: dict
    triple_contexts: dict
    default_contexts: dict
    context_objects: dict
    context_key: Any


def memory_indexes(store) -> MemoryIndexes | None:
    """The indexes of an rdflib Memory store, or None (another store, version or layout)."""
    from rdflib.plugins.stores.memory import Memory
    if not SUPPORTED or type(store) is not Memory:
        return None
    try:
        return MemoryIndexes(store._Memory__contextTriples, store._Memory__spo,
                             store._Memory__tripleContexts,
                             store._Memory__defaultContexts or {},
                             store._Memory__context_obj_map, store._Memory__ctx_to_str)
    except AttributeError:
        return None


def unbind(graph: Graph, prefix: str) -> bool:
    """Remove the namespace binding of ``prefix`` from ``graph``'s store: rdflib has no public
    way (``NamespaceManager.bind`` only adds or replaces), so the Memory and SimpleMemory
    stores' private maps are changed and the namespace manager's caches reset.  False if the
    store is another one (or the rdflib version untested): nothing was changed."""
    from rdflib.plugins.stores.memory import Memory, SimpleMemory
    store = graph.store
    if not SUPPORTED or type(store) not in (Memory, SimpleMemory):
        return False
    owner = type(store).__name__
    try:
        namespaces = getattr(store, f"_{owner}__namespace")
        prefixes = getattr(store, f"_{owner}__prefix")
    except AttributeError:
        return False
    namespace = namespaces.pop(prefix, None)
    if namespace is not None and prefixes.get(namespace) == prefix:
        del prefixes[namespace]
    graph.namespace_manager.reset()
    return True
