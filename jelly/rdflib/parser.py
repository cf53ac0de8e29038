"""The rdflib Parser plugin: ``Graph().parse(source, format="jelly")``."""

from __future__ import annotations

from rdflib.parser import BytesIOWrapper, InputSource, Parser

from ..errors import JellyError
from .streams import load

__all__ = ["JellyParser"]


class JellyParser(Parser):
    """Parses Jelly-RDF into an rdflib Graph, Dataset or ConjunctiveGraph.

    ``Graph().parse(source, format="jelly")`` with a path, URL, binary file object (pipes and
    sockets included), or ``data=b"..."``; gzip-compressed input is recognised.  TRIPLES streams
    fill the graph; QUADS and GRAPHS streams fill a Dataset's default and named graphs (parsed
    into a plain Graph, the default graph goes into the graph and named graphs into other
    graphs of its store, as rdflib's N-Quads parser does).  Namespace declarations are bound.

    Keyword arguments of ``parse``: ``limits`` (a :class:`jelly.ReaderLimits`) and ``strict``.
    """

    def parse(self, source: InputSource, sink, **kwargs) -> None:
        limits = kwargs.pop("limits", None)
        strict = kwargs.pop("strict", False)
        if kwargs:
            raise JellyError(f"unknown Jelly parser option{'s' if len(kwargs) > 1 else ''} "
                             f"{', '.join(map(repr, sorted(kwargs)))}; the options are "
                             f"'limits' and 'strict'")
        load(sink, _byte_stream(source), limits=limits, strict=strict)


def _byte_stream(source: InputSource):
    stream = source.getByteStream()
    if stream is None or isinstance(stream, BytesIOWrapper):
        # rdflib wraps text (data="...", a StringIO) in a BytesIOWrapper that re-encodes it.
        raise JellyError("Jelly is a binary format: pass bytes (data=b'...'), a path or a "
                         "binary file object, not text")
    return stream
