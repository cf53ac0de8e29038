"""Turtle, TriG, RDF/XML, JSON-LD (also one document per line) and N3 through rdflib, as a source
and a sink of the conversion library (:mod:`jelly.convert`).

Message logs: Turtle and TriG documents are split at lines ``# @message`` (prefixes declared
in one message carry over to the next), newline-delimited JSON-LD has one message per line.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from rdflib import BNode, Dataset, Graph, Literal as RdfLiteral, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID, ConjunctiveGraph

from .._terms import BlankNode, DefaultGraph, IRI, Literal, Triple
from ..convert import TextFrame
from ..errors import JellyError
from ..formats import get as get_format
from ..options import PhysicalStreamType
from .streams import _default_bindings, _statements, default_graph, graphs
from ._terms import make_term_adapter

#: rdflib's names of the formats.
RDFLIB_NAMES = {"ttl": "turtle", "trig": "trig", "xml": "xml", "jsonld": "json-ld",
                "ndjsonld": "json-ld", "n3": "n3"}
#: Formats read into an rdflib Dataset and written from one (they hold named graphs).
DATASET_FORMATS = ("trig", "jsonld", "ndjsonld")
#: A line that delimits RDF messages in Turtle / TriG: a comment whose text starts with
#: @message (the same test as the N-Triples reader's).
_DELIMITER = re.compile(rb"^\s*#\s*@message")


def _label(fmt: str) -> str:
    return get_format(fmt).label


def _rdflib_error(exc: BaseException, action: str, fmt: str) -> JellyError:
    return JellyError(f"cannot {action} {_label(fmt)}: {str(exc) or type(exc).__name__}")


def _parse(data: bytes, fmt: str, prefixes: bytes = b""):
    """One document (or message) as a Graph, or a Dataset for formats with named graphs."""
    target = Dataset() if fmt in DATASET_FORMATS else Graph()
    try:
        target.parse(data=prefixes + data if prefixes else data, format=RDFLIB_NAMES[fmt])
    except JellyError:
        raise
    except Exception as exc:
        raise _rdflib_error(exc, "parse the input as", fmt) from None
    return target


def _count(graph) -> int:
    if isinstance(graph, ConjunctiveGraph):
        return sum(len(c) for c in graphs(graph))
    return len(graph)


def _prefix_lines(graph) -> bytes:
    """Turtle / TriG prefix declarations of a parsed message, to carry into the next ones."""
    defaults = _default_bindings()
    return "".join(f"@prefix {p}: <{n}> .\n" for p, n in graph.namespaces()
                   if (p, str(n)) not in defaults).encode("utf-8")


def _split_messages(stream) -> tuple[bool, Iterator[tuple[bool, bytes]]]:
    """(is_log, (is_head, message bytes) ...) of Turtle / TriG text split at '# @message'
    lines, one message at a time; ``is_head`` marks the text before the first delimiter."""
    lines = iter(stream.readline, b"")
    head = []
    found = False
    for line in lines:
        if _DELIMITER.match(line):
            found = True
            break
        head.append(line)
    first = b"".join(head)
    if not found:
        return False, iter(((True, first),))

    def messages():
        if first.strip():
            yield True, first
        chunk: list = []
        for line in lines:
            if _DELIMITER.match(line):
                yield False, b"".join(chunk)
                chunk = []
            else:
                chunk.append(line)
        yield False, b"".join(chunk)
    return True, messages()


class RdflibSource:
    """Statements of a document in an rdflib format, one frame per RDF message for logs."""

    lines = False
    options = None

    def __init__(self, stream, *, format: str, messages: bool = False, **_: Any) -> None:
        if messages and format == "jsonld":
            format = "ndjsonld"
        self._fmt = format
        self.quads = format in DATASET_FORMATS
        self._adapt = make_term_adapter()
        self._declared: set = set()
        if format == "ndjsonld":
            self.grouped = True
            self._graphs = self._lines(stream)
        elif get_format(format).messages:
            is_log, chunks = _split_messages(stream)
            self.grouped = is_log or messages
            self._graphs = self._chunks(chunks, is_log)
        elif messages:
            raise JellyError(f"{_label(format)} has no RDF message log form; use Turtle, TriG, "
                             f"N-Triples, N-Quads or JSON-LD (one document per line)")
        else:
            self.grouped = False
            self._graphs = iter((_parse(stream.read(), format),))

    def _lines(self, stream):
        for number, line in enumerate(iter(stream.readline, b""), 1):
            if line.strip():
                try:
                    yield _parse(line, "ndjsonld")
                except JellyError as exc:
                    raise JellyError(f"line {number}: {exc}") from None

    def _chunks(self, chunks, is_log):
        prefixes = b""
        for is_head, chunk in chunks:
            graph = _parse(chunk, self._fmt, prefixes)
            prefixes = _prefix_lines(graph)
            if is_head and is_log and not _count(graph):
                continue    # only prefixes and comments before the first delimiter
            yield graph

    def frames(self) -> Iterator[tuple[TextFrame, bool]]:
        physical = PhysicalStreamType.QUADS if self.quads else PhysicalStreamType.TRIPLES
        defaults = _default_bindings()
        for graph in self._graphs:
            namespaces = []
            for prefix, ns in graph.namespaces():
                key = (prefix, str(ns))
                if key not in defaults and key not in self._declared:
                    self._declared.add(key)
                    namespaces.append((prefix, str(ns)))
            if self.grouped:
                self._adapt.new_scope()       # blank nodes are scoped per message
            yield TextFrame(_statements(graph, physical, self._adapt), namespaces), self.grouped

    def close(self) -> None:
        pass


class _ToRdflib:
    """jelly terms to rdflib terms (cached per object)."""

    def __init__(self) -> None:
        self._cache: dict = {}

    def __call__(self, t):
        c = self._cache.get(t)
        if c is not None:
            return c
        tp = type(t)
        if tp is IRI:
            c = URIRef(t.value)
        elif tp is BlankNode:
            c = BNode(t.value)
        elif tp is Literal:
            c = RdfLiteral(t.lex, lang=t.language,
                           datatype=None if t.datatype is None else URIRef(t.datatype.value),
                           normalize=False)
        elif tp is DefaultGraph:
            c = DATASET_DEFAULT_GRAPH_ID
        elif tp is Triple:
            raise JellyError("RDF-star quoted triples cannot be written through rdflib")
        else:
            raise JellyError(f"not an RDF term: {t!r}")
        if len(self._cache) > 1 << 16:
            self._cache.clear()
        self._cache[t] = c
        return c


class RdflibSink:
    """Writes through rdflib: the whole input as one document, or with ``messages`` one
    document per frame (after a ``# @message`` line; one line each for JSON-LD)."""

    lines = False

    def __init__(self, stream, source, *, format: str, messages: bool = False,
                 **_: Any) -> None:
        if messages and format == "jsonld":
            format = "ndjsonld"
        self._fmt = format
        self._stream = stream
        self._messages = messages or format == "ndjsonld"
        if self._messages and not get_format(format).messages:
            raise JellyError(f"{_label(format)} has no RDF message log form; use Turtle, TriG, "
                             f"N-Triples, N-Quads or JSON-LD (--to jsonld --messages)")
        self._conv = _ToRdflib()
        self._namespaces: dict = {}
        self._graph = self._new()
        self.frames_written = 0
        self.statements_written = 0

    def _new(self):
        return Dataset() if self._fmt in DATASET_FORMATS else Graph()

    def write(self, frame, message: bool) -> None:
        conv = self._conv
        graph = self._graph
        for prefix, iri in frame.namespaces:
            self._namespaces[prefix] = str(iri.value if isinstance(iri, IRI) else iri)
        n = 0
        if isinstance(graph, Dataset):
            default = default_graph(graph)
            contexts: dict = {}
            for st in frame.statements:
                g = st[3] if len(st) == 4 else None
                if g is None or type(g) is DefaultGraph:
                    ctx = default
                else:
                    ctx = contexts.get(g)
                    if ctx is None:
                        ctx = contexts[g] = graph.graph(conv(g))
                ctx.add((conv(st[0]), conv(st[1]), conv(st[2])))
                n += 1
        else:
            for st in frame.statements:
                if len(st) == 4 and st[3] is not None and type(st[3]) is not DefaultGraph:
                    where = f" (frame {self.frames_written})" if self._messages else ""
                    raise JellyError(f"the input has statements in a named graph{where}, which "
                                     f"{_label(self._fmt)} cannot hold; write TriG (.trig), "
                                     f"N-Quads (.nq) or JSON-LD (.jsonld) instead")
                graph.add((conv(st[0]), conv(st[1]), conv(st[2])))
                n += 1
        self.statements_written += n
        self.frames_written += 1
        if self._messages:
            if self._fmt != "ndjsonld":
                self._stream.write(b"# @message\n")
            self._flush_graph()
            self._graph = self._new()

    def _flush_graph(self) -> None:
        graph = self._graph
        for prefix, ns in self._namespaces.items():
            graph.bind(prefix, ns, override=True, replace=True)
        try:
            if self._fmt == "ndjsonld":
                text = graph.serialize(format="json-ld", indent=None, encoding="utf-8")
                self._stream.write(text.replace(b"\n", b" ").strip() + b"\n")
            else:
                graph.serialize(destination=self._stream, format=RDFLIB_NAMES[self._fmt],
                                encoding="utf-8")
        except JellyError:
            raise
        except Exception as exc:
            raise _rdflib_error(exc, "write the statements as", self._fmt) from None

    def close(self) -> None:
        if not self._messages:
            self._flush_graph()
