"""rdflib integration: ``Graph.parse(format="jelly")``, ``Graph.serialize(format="jelly")`` and
streams of graphs and datasets (RDF messages).

The plugins are registered with rdflib through entry points (``rdf.plugins.parser`` and
``rdf.plugins.serializer``, names ``jelly`` and ``application/x-jelly-rdf``), so rdflib finds
them without any import.  Importing :mod:`jelly` (which imports this package) also

* makes ``format="jelly"`` resolve to *this* implementation even when another package (pyjelly)
  registers the same name: rdflib keeps one plugin per name and entry points come in an order
  that depends on the file system, see ``docs/rdflib.md``;
* teaches :func:`rdflib.util.guess_format` the ``.jelly`` suffix.

Both happen when rdflib is imported (at once if it already is): importing this package never
imports rdflib by itself, so ``import jelly`` stays cheap for users who do not use rdflib.

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
    register()                 # (re-)register the plugins explicitly (imports rdflib)

See ``docs/rdflib.md``.
"""

from __future__ import annotations

import importlib
import sys

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

    for name in FORMAT_NAMES:
        plugin.register(name, Parser, "jelly.rdflib.parser", "JellyParser")
        plugin.register(name, Serializer, "jelly.rdflib.serializer", "JellySerializer")
    rdflib.util.SUFFIX_FORMAT_MAP[SUFFIX] = "jelly"


def _register_quietly() -> None:
    # Never let a problem here break the import of rdflib or jelly.
    try:
        register()
    except Exception:  # pragma: no cover - a broken or very old rdflib
        pass


class _RdflibImportHook:
    """A one-shot meta path finder: when rdflib is first imported, registers the plugins right
    after rdflib's own ``__init__`` has run (rdflib reads entry points while it imports, so a
    registration made afterwards wins).  It imports nothing until then."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "rdflib":
            return None
        _remove_hook()
        import importlib.util
        spec = importlib.util.find_spec(fullname)   # the other finders, without this one
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        original = loader.exec_module

        def exec_module(module):
            original(module)
            _register_quietly()

        try:
            loader.exec_module = exec_module
        except (AttributeError, TypeError):  # a loader that does not take attributes
            return spec
        return spec


_hook = None


def _remove_hook() -> None:
    global _hook
    if _hook is not None:
        try:
            sys.meta_path.remove(_hook)
        except ValueError:
            pass
        _hook = None


def _install() -> None:
    """Register now if rdflib is already imported, otherwise when it is imported."""
    global _hook
    if "rdflib" in sys.modules:
        rdflib = sys.modules["rdflib"]
        if getattr(rdflib, "plugin", None) is not None:
            _register_quietly()
            return
    if _hook is None:
        _hook = _RdflibImportHook()
        sys.meta_path.insert(0, _hook)


_install()
