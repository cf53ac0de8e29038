"""The rdflib Serializer plugin: ``graph.serialize(destination, format="jelly", ...)``."""

from __future__ import annotations

import gzip
import os
import sys

from rdflib.graph import Graph
from rdflib.serializer import Serializer

from ..errors import JellyError
from .streams import serialize

__all__ = ["JellySerializer"]

_GRAPH_SERIALIZE = getattr(Graph.serialize, "__code__", None)

#: What to call instead of ``graph.serialize(format="jelly")``, which rdflib turns into str.
BYTES_HINT = ("graph.serialize(format='jelly', encoding='utf-8') returns the bytes (the "
              "encoding only tells rdflib to return bytes), or pass a path or a binary stream "
              "as destination")


class JellySerializer(Serializer):
    """Writes an rdflib Graph as a TRIPLES stream and a Dataset (or ConjunctiveGraph) as a
    QUADS stream (``physical_type="graphs"`` for GRAPHS), statements grouped by graph and
    subject.  Keyword arguments of ``serialize`` are those of :func:`jelly.rdflib.serialize`:
    the core writer's options (``preset``, ``max_name_table_size``, ``max_prefix_table_size``,
    ``max_datatype_table_size``, ``physical_type``, ``logical_type``,
    ``generalized_statements``, ``stream_name``, ``options``), ``rows_per_frame``,
    ``delimited`` and ``namespaces``.  ``base`` and ``encoding`` do not apply to a binary
    format and are ignored.  A destination path ending in ``.gz`` is gzip-compressed.

    ``graph.serialize(format="jelly")`` without a destination or an encoding is refused:
    rdflib would decode the output to ``str``.  Use ``encoding="utf-8"`` to get bytes.
    """

    def serialize(self, stream, base=None, encoding=None, **args) -> None:
        destination = _caller_destination()
        if isinstance(destination, (str, os.PathLike)) and \
                os.fspath(destination).lower().endswith(".gz"):
            # rdflib opened the path; compress like everywhere else in jelly
            with gzip.GzipFile(fileobj=stream, mode="wb", mtime=0) as packed:
                serialize(self.store, packed, **args)
            return
        serialize(self.store, stream, **args)


_NO_CALLER = object()


def _caller_destination():
    """The ``destination`` given to ``Graph.serialize`` when it is our caller (else a marker).

    Fails early, and says what to do, when ``Graph.serialize`` was called without destination
    and encoding: rdflib would decode the binary output as UTF-8 into a str."""
    try:
        caller = sys._getframe(2)
    except (AttributeError, ValueError):  # pragma: no cover - no frame introspection
        return _NO_CALLER
    if caller.f_code is not _GRAPH_SERIALIZE:
        return _NO_CALLER
    local = caller.f_locals
    destination = local.get("destination")
    if destination is None and local.get("encoding") is None:
        raise JellyError("Jelly is a binary format, but graph.serialize() without a destination "
                         "and without an encoding returns str; " + BYTES_HINT)
    return destination
