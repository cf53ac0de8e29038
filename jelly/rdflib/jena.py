"""rdflib plugins for Jena's RDF Binary: RDF Thrift and RDF Protobuf graphs and datasets
(``Graph.parse`` / ``Graph.serialize`` with ``format="rdf-thrift"`` or ``"rdf-protobuf"``)
and SPARQL result sets (``Result.parse`` / ``result.serialize`` with ``format="srt"`` or
``"srp"``).  The wire formats are the core's (:mod:`jelly.jena`); rdflib terms come straight
out of the decoder through :class:`~jelly.rdflib._terms.TermFactory` and go into the encoder
through the term adapter.
"""

from __future__ import annotations

from typing import Any

from rdflib.graph import ConjunctiveGraph, Graph
from rdflib.parser import Parser
from rdflib.query import Result, ResultParser, ResultSerializer
from rdflib.serializer import Serializer
from rdflib.term import Variable

from .. import jena as _jena
from . import _JENA_NAMES, _JENA_RESULT_NAMES
from ..errors import JellyError
from ..options import PhysicalStreamType
from ._compat import NOT_GRAPH_SERIALIZE, serialize_call
from ._terms import TermFactory, make_term_adapter
from .parser import _byte_stream
from .serializer import write_destination
from .streams import _namespaces_of, _Sink, _statements, default_graph

__all__ = ["RdfThriftParser", "RdfProtobufParser", "RdfThriftSerializer",
           "RdfProtobufSerializer", "ThriftResultParser", "ProtobufResultParser",
           "ThriftResultSerializer", "ProtobufResultSerializer", "load", "serialize",
           "FORMAT_NAMES", "RESULT_FORMAT_NAMES"]

#: rdflib plugin names: graph formats and result formats, per encoding.
FORMAT_NAMES = _JENA_NAMES
RESULT_FORMAT_NAMES = _JENA_RESULT_NAMES

_SERIALIZER_OPTIONS = ("namespaces", "values", "prefix_names")


def load(graph: Graph, source: Any, *, format: str, limits: Any = None) -> Graph:
    """Add the statements of an RDF Thrift / RDF Protobuf stream to ``graph`` (a Graph or a
    Dataset: statements in named graphs go to graphs of its store, as rdflib's N-Quads parser
    does); prefix declarations are bound."""
    factory = TermFactory()
    target = default_graph(graph) if isinstance(graph, ConjunctiveGraph) else graph
    sink = _Sink(target)
    with _jena.Reader(source, format=format, limits=limits, terms=factory) as reader:
        for frame in reader.frames():
            if frame.namespaces:
                sink.bind([(p, str(iri)) for p, iri in frame.namespaces])
            statements = frame.statements
            if frame.named_graph_statements == 0:
                sink.triples(statements)
            else:
                sink.triples([st for st in statements if len(st) == 3])
                sink.quads([st for st in statements if len(st) == 4])
    return graph


def serialize(graph: Graph, destination: Any = None, *, format: str, namespaces: Any = None,
              values: bool = False, prefix_names: bool = False) -> bytes | None:
    """Write an rdflib Graph or Dataset as RDF Thrift / RDF Protobuf (the bytes when
    ``destination`` is None).  ``namespaces`` as in :func:`jelly.rdflib.serialize`; ``values``
    and ``prefix_names`` as in :class:`jelly.jena.Writer`."""
    adapt = make_term_adapter()
    physical = PhysicalStreamType.QUADS if isinstance(graph, ConjunctiveGraph) \
        else PhysicalStreamType.TRIPLES
    with _jena.Writer(destination, format=format, namespaces=_namespaces_of(graph, namespaces),
                      values=values, prefix_names=prefix_names, term_adapter=adapt) as writer:
        writer.write_all(_statements(graph, physical, adapt))
    return writer.getvalue() if destination is None else None


def _options(kwargs: dict, allowed: tuple[str, ...], what: str) -> dict:
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown:
        raise JellyError(f"unknown {what} option{'s' if len(unknown) > 1 else ''} "
                         f"{', '.join(map(repr, unknown))}; the options are "
                         f"{', '.join(allowed) or 'none'}")
    return kwargs


class _GraphParser(Parser):
    _format = "thrift"

    def parse(self, source: Any, sink: Graph, **kwargs: Any) -> None:
        options = _options(kwargs, ("limits",), f"{_jena.LABELS[self._format]} parser")
        load(sink, _byte_stream(source), format=self._format, **options)


class RdfThriftParser(_GraphParser):
    """``Graph().parse(source, format="rdf-thrift")``: RDF Thrift into a Graph or Dataset."""
    _format = "thrift"


class RdfProtobufParser(_GraphParser):
    """``Graph().parse(source, format="rdf-protobuf")``: RDF Protobuf into a Graph or
    Dataset."""
    _format = "protobuf"


class _GraphSerializer(Serializer):
    _format = "thrift"

    def serialize(self, stream: Any, base: Any = None, encoding: Any = None,
                  **args: Any) -> None:
        options = _options(args, _SERIALIZER_OPTIONS, f"{_jena.LABELS[self._format]} serializer")
        call = serialize_call()
        destination = None
        if call is not NOT_GRAPH_SERIALIZE:
            destination = call["destination"]
            if destination is None and call["encoding"] is None:
                raise JellyError(f"{_jena.LABELS[self._format]} is a binary format, but "
                                 f"graph.serialize() without a destination and an encoding "
                                 f"returns str; pass encoding='utf-8' to get bytes, or a path "
                                 f"or binary stream as destination")
        write_destination(stream, destination, lambda out: serialize(
            self.store, out, format=self._format, **options))


class RdfThriftSerializer(_GraphSerializer):
    """``graph.serialize(destination, format="rdf-thrift")`` (options: ``namespaces``,
    ``values``, ``prefix_names``)."""
    _format = "thrift"


class RdfProtobufSerializer(_GraphSerializer):
    """``graph.serialize(destination, format="rdf-protobuf")`` (options: ``namespaces``,
    ``values``, ``prefix_names``)."""
    _format = "protobuf"


class _ResultParser(ResultParser):
    _format = "thrift"

    def parse(self, source: Any, **kwargs: Any) -> Result:
        kwargs.pop("content_type", None)
        options = _options(kwargs, ("limits",), "result parser")
        if hasattr(source, "getByteStream"):
            source = _byte_stream(source)
        factory = TermFactory()
        with _jena.read_results(source, format=self._format, terms=factory,
                                **options) as reader:
            variables = [Variable(v) for v in reader.variables]
            bindings = [{v: t for v, t in zip(variables, row) if t is not None}
                        for row in reader]
        result = Result("SELECT")
        result.vars = variables
        result.bindings = bindings
        return result


class ThriftResultParser(_ResultParser):
    """``Result.parse(source, format="srt")``: a SPARQL result set in RDF Thrift."""
    _format = "thrift"


class ProtobufResultParser(_ResultParser):
    """``Result.parse(source, format="srp")``: a SPARQL result set in RDF Protobuf."""
    _format = "protobuf"


class _ResultSerializer(ResultSerializer):
    _format = "thrift"

    def serialize(self, stream: Any, encoding: str = "utf-8", **kwargs: Any) -> None:
        options = _options(kwargs, ("values",), "result serializer")
        result = self.result
        if result.type != "SELECT":
            raise JellyError(f"{_jena.LABELS[self._format]} holds SELECT results only, not "
                             f"{result.type}")
        variables = list(result.vars or ())
        adapt = make_term_adapter()
        rows = (tuple(row.get(v) for v in variables) for row in result)  # type: ignore[union-attr]
        _jena.write_results(stream, [str(v) for v in variables], rows, format=self._format,
                            term_adapter=adapt, **options)


class ThriftResultSerializer(_ResultSerializer):
    """``result.serialize(format="srt")``: SELECT results as RDF Thrift."""
    _format = "thrift"


class ProtobufResultSerializer(_ResultSerializer):
    """``result.serialize(format="srp")``: SELECT results as RDF Protobuf."""
    _format = "protobuf"
