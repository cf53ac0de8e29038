"""rdflib integration: ``Graph.parse(format="jelly")``, ``Graph.serialize(format="jelly")`` and
streams of graphs and datasets (RDF messages); Jena's RDF Thrift and RDF Protobuf for graphs
(``format="rdf-thrift"`` / ``"rdf-protobuf"``) and SPARQL results (``format="srt"`` / ``"srp"``),
see :mod:`jelly.rdflib.jena`.

The plugins are registered with rdflib through entry points (``rdf.plugins.parser`` and
``rdf.plugins.serializer``, names ``jelly`` and ``application/x-jelly-rdf``), so rdflib finds
them without any import.  Another package may register the same names (pyjelly does), and then
rdflib keeps whichever entry point it reads last, an order that depends on the file system.
Importing this package (``import jelly.rdflib``) makes the names this package's, explicitly:
it calls :func:`register`, which also maps the ``.jelly`` suffix in
``rdflib.util.guess_format``.  ``import jelly`` alone does not import rdflib.

Public API (the rdflib-dependent names are imported on first use)::

    JellyParser, JellySerializer                          # the rdflib plugins
    parse_graph(source, *, limits, strict) -> Graph | Dataset          # the whole stream
    load(graph, source, *, limits, strict) -> graph                    # into a given graph
    parse_grouped(source, *, graph_factory, dataset_factory, limits, strict, metadata)
        -> Iterator[Graph | Dataset]                                    # one per frame
    parse_statements(source, *, limits, strict) -> Iterator[tuple]     # rdflib terms, flat
    serialize(graph_or_dataset, destination=None, **options) -> bytes | None
    serialize_grouped(graphs_or_datasets, destination=None, **options) -> bytes | None
    NotRepresentableError      # RDF-star and other data rdflib cannot hold (a JellyError)
    TermFactory, make_term_adapter()    # rdflib terms for jelly.Reader / jelly.Writer
    register()                 # (re-)register the plugins under the jelly names

See ``docs/rdflib.md``.
"""

from __future__ import annotations

import importlib

#: Format names under which the parser and serializer are registered with rdflib.
FORMAT_NAMES = ("jelly", "application/x-jelly-rdf")
#: The media type of Jelly-RDF.
MEDIA_TYPE = "application/x-jelly-rdf"
#: File suffix (without the dot) mapped to the ``jelly`` format in ``rdflib.util.guess_format``.
SUFFIX = "jelly"

_LAZY = {
    "JellyParser": "parser",
    "JellySerializer": "serializer",
    "parse_graph": "streams",
    "parse_grouped": "streams",
    "load": "streams",
    "parse_statements": "streams",
    "serialize": "streams",
    "serialize_grouped": "streams",
    "NotRepresentableError": "_terms",
    "TermFactory": "_terms",
    "make_term_adapter": "_terms",
}

__all__ = ["FORMAT_NAMES", "MEDIA_TYPE", "register", *_LAZY]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def register() -> None:
    """Register the Jelly parser and serializer with rdflib under :data:`FORMAT_NAMES`
    (replacing any other plugin of those names, such as pyjelly's) and map the ``.jelly``
    suffix to the ``jelly`` format in ``rdflib.util.SUFFIX_FORMAT_MAP``.  Imports rdflib."""
    from rdflib import plugin
    from rdflib.parser import Parser
    from rdflib.serializer import Serializer
    import rdflib.util

    from rdflib.query import ResultParser, ResultSerializer

    for name in FORMAT_NAMES:
        plugin.register(name, Parser, "jelly.rdflib.parser", "JellyParser")
        plugin.register(name, Serializer, "jelly.rdflib.serializer", "JellySerializer")
    rdflib.util.SUFFIX_FORMAT_MAP[SUFFIX] = "jelly"
    # Jena's RDF Binary (the same names as the entry points in pyproject.toml).
    for codec, label in (("thrift", "Thrift"), ("protobuf", "Protobuf")):
        for name in _JENA_NAMES[codec]:
            plugin.register(name, Parser, "jelly.rdflib.jena", f"Rdf{label}Parser")
            plugin.register(name, Serializer, "jelly.rdflib.jena", f"Rdf{label}Serializer")
        for name in _JENA_RESULT_NAMES[codec]:
            plugin.register(name, ResultParser, "jelly.rdflib.jena", f"{label}ResultParser")
            plugin.register(name, ResultSerializer, "jelly.rdflib.jena",
                            f"{label}ResultSerializer")
    for suffix, name in (("rt", "rdf-thrift"), ("trdf", "rdf-thrift"), ("rpb", "rdf-protobuf"),
                         ("pbrdf", "rdf-protobuf")):
        rdflib.util.SUFFIX_FORMAT_MAP[suffix] = name


#: rdflib names of Jena's RDF Binary plugins (kept here so registering imports nothing).
_JENA_NAMES = {"thrift": ("rdf-thrift", "application/rdf+thrift"),
               "protobuf": ("rdf-protobuf", "application/rdf+protobuf")}
_JENA_RESULT_NAMES = {"thrift": ("srt", "application/sparql-results+thrift"),
                      "protobuf": ("srp", "application/sparql-results+protobuf")}


register()
