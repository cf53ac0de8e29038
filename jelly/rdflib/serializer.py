"""The rdflib Serializer plugin: ``graph.serialize(destination, format="jelly", ...)``."""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any, BinaryIO, Callable

from rdflib.serializer import Serializer

from ..errors import JellyError
from ..io import compression_of_name, open_output
from ._compat import NOT_GRAPH_SERIALIZE, serialize_call
from .streams import serialize

__all__ = ["JellySerializer", "write_destination"]

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
    format and are ignored.  A destination path ending in ``.gz`` is gzip-compressed; a path is
    written only once the whole output is there (see :func:`write_destination`).

    ``graph.serialize(format="jelly")`` without a destination or an encoding is refused:
    rdflib would decode the output to ``str``.  Use ``encoding="utf-8"`` to get bytes.
    """

    def serialize(self, stream, base=None, encoding=None, **args) -> None:
        call = serialize_call()
        destination = None
        if call is not NOT_GRAPH_SERIALIZE:
            destination = call["destination"]
            if destination is None and call["encoding"] is None:
                raise JellyError("Jelly is a binary format, but graph.serialize() without a "
                                 "destination and without an encoding returns str; " + BYTES_HINT)
        write_destination(stream, destination, lambda out: serialize(self.store, out, **args))


def write_destination(stream: BinaryIO, destination: Any,
                      write: Callable[[BinaryIO], None]) -> None:
    """``write(out)`` into ``stream``, which ``Graph.serialize`` opened for ``destination``.

    For a path, rdflib has opened and emptied the file before the serializer runs: the output
    is held (in memory, on disk past 64 MiB) and copied in only when whole, so a failure
    leaves the file empty instead of a shorter stream that reads as complete; a ``.gz`` or
    ``.zst`` path is compressed, as everywhere else in jelly.  Prefer
    :func:`jelly.rdflib.serialize` with a path, which keeps the old file on failure."""
    if not isinstance(destination, (str, os.PathLike)):
        write(stream)
        return
    with tempfile.SpooledTemporaryFile(max_size=64 << 20) as held:
        with open_output(held, compress=compression_of_name(os.fspath(destination))) as out:
            write(out)                                          # type: ignore[arg-type]
        held.seek(0)
        shutil.copyfileobj(held, stream, 1 << 20)
