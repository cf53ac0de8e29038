"""pyoxigraph in jelly: the only module that imports it.

Text formats (Turtle, TriG, N3, RDF/XML, JSON-LD and newline-delimited JSON-LD) as a source and
a sink of the conversion library (:mod:`jelly.convert`), through pyoxigraph's parsers and
serializers: they follow the W3C grammars of RDF 1.1 and RDF 1.2 (all the W3C Turtle and TriG
tests pass), keep every literal's lexical form and every character as written, and stream.

* :class:`OxigraphSource` parses as it reads (one frame per batch of statements, with the
  prefixes declared so far as Jelly namespace declarations); relative IRIs resolve against
  ``base`` (the conversion library passes the input's location).  ``syntax="rdf-star"`` reads
  RDF-star Turtle / TriG: pyoxigraph reads ``<< s p o >>`` as RDF 1.2 does (a reifier), and each
  blank-node reifier is turned back into the quoted triple (:func:`jelly.migrate.to_rdf_star`).
* :class:`OxigraphSink` writes Turtle, TriG and N3 frame by frame (prefixes from the input's
  namespace declarations); RDF/XML and JSON-LD are single documents, written as the statements
  come by pyoxigraph's serializer in a thread of its own (:class:`_Document`).

Message logs: Turtle and TriG split at lines ``# @message`` (prefixes and base carry over),
newline-delimited JSON-LD has one document per line.

The bridge to a ``pyoxigraph.Store`` (no other Jelly library has one):

* :func:`load` reads a Jelly stream into a Store with its bulk loader: the core decodes the
  frames straight to N-Quads lines (no Python term objects) that pyoxigraph's Rust parser
  reads as they come, so memory stays bounded by a frame;
* :func:`serialize` writes a Store, or any iterable of pyoxigraph quads or triples, as Jelly
  with the options of every other writer (:func:`jelly.serialize`).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import queue
import re
import threading
from typing import Any, Iterator

from ._ntformat import NQuadsWriter, absolute_iri
from ._ntriples import parse_nquads
from ._terms import DEFAULT_GRAPH, BlankNode, DefaultGraph, IRI, Literal, Triple
from .convert import TextFrame
from .errors import JellyDecodeError, JellyError, RdfSyntaxError
from .formats import get as get_format
from .io import CHUNK_SIZE, READ_ERRORS, Chained, read_some
from .migrate import ToRdfStar

try:
    import pyoxigraph as ox
except ImportError:     # pragma: no cover - the extra is installed by the tests
    raise JellyError("Turtle, TriG, N3, RDF/XML and JSON-LD need pyoxigraph: "
                     "pip install 'jelly[oxigraph]'") from None

__all__ = ["OxigraphSource", "OxigraphSink", "load", "serialize"]

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
RDF_DIRLANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString"

#: pyoxigraph's formats of the registry's names.
OX_FORMATS = {"ttl": ox.RdfFormat.TURTLE, "trig": ox.RdfFormat.TRIG, "n3": ox.RdfFormat.N3,
              "xml": ox.RdfFormat.RDF_XML, "jsonld": ox.RdfFormat.JSON_LD,
              "ndjsonld": ox.RdfFormat.JSON_LD}
#: Formats that hold named graphs.
DATASET_FORMATS = ("trig", "jsonld", "ndjsonld")
#: Formats written frame by frame (the others are one document, see :class:`_Document`).
STREAMED_OUTPUT = ("ttl", "trig", "n3")
#: Statements per frame of a flat source.
BATCH = 1024
#: A Turtle / TriG document is a message log if a delimiter line comes within its first bytes.
LOOKAHEAD = 1 << 16
#: A line that delimits RDF messages in Turtle / TriG: a comment whose text starts with
#: @message (the same test as the N-Triples reader's).
DELIMITER = re.compile(rb"^\s*#\s*@message")
#: PN_PREFIX of Turtle, ASCII part and beyond (a prefix name that is not one is not written).
_PN_BASE = ("A-Za-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF"
            "\u200C-\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD"
            "\U00010000-\U000EFFFF")
_PN_CHARS = _PN_BASE + "_\\-0-9\u00B7\u0300-\u036F\u203F-\u2040"
PN_PREFIX = re.compile(f"(?:[{_PN_BASE}](?:[{_PN_CHARS}.]*[{_PN_CHARS}])?)?")
_OX_LINE = re.compile(r"\bline (\d+)")
_OX_COLUMN = re.compile(r"\bcolumns? (\d+)")


def _label(fmt: str) -> str:
    return get_format(fmt).label


# ----------------------------------------------------------------------------------- terms

def _from_ox(t: Any) -> Any:
    """The jelly term of a pyoxigraph term (the rare way: see :func:`_jelly_statements`)."""
    tp = type(t)
    if tp is ox.NamedNode:
        return IRI(t.value)
    if tp is ox.BlankNode:
        return BlankNode(t.value)
    if tp is ox.Literal:
        lang = t.language
        if lang is not None:
            d = t.direction
            return Literal(t.value, lang if d is None else f"{lang}--{d}")
        dt = t.datatype.value
        return Literal(t.value, None, None if dt == XSD_STRING else dt)
    if tp is ox.Triple:
        return Triple(_from_ox(t.subject), _from_ox(t.predicate), _from_ox(t.object))
    if tp is ox.DefaultGraph:
        return DEFAULT_GRAPH
    raise JellyError(f"pyoxigraph gave a term jelly does not know: {t!r}")


class _ToOx:
    """jelly terms to pyoxigraph terms (cached per term)."""

    def __init__(self) -> None:
        self._cache: dict[Any, Any] = {}

    def __call__(self, t: Any) -> Any:
        c = self._cache.get(t)
        if c is not None:
            return c
        tp = type(t)
        try:
            if tp is IRI:
                c = ox.NamedNode(t.value)
            elif tp is BlankNode:
                c = ox.BlankNode(t.value)
            elif tp is Literal:
                c = self._literal(t)
            elif tp is Triple:
                c = ox.Triple(self(t.s), self(t.p), self(t.o))
            elif tp is DefaultGraph or t is None:
                return ox.DefaultGraph()
            else:
                raise JellyError(f"not an RDF term: {t!r}")
        except (TypeError, ValueError) as exc:
            if isinstance(exc, JellyError):
                raise
            raise JellyError(_term_error(t, exc)) from None
        if len(self._cache) >= 1 << 16:
            self._cache.clear()
        self._cache[t] = c
        return c

    @staticmethod
    def _literal(t: Literal) -> Any:
        lang = t.language
        if lang is not None:
            tag, sep, direction = lang.partition("--")
            if sep:
                return ox.Literal(t.lex, language=tag, direction=ox.BaseDirection(direction))
            return ox.Literal(t.lex, language=lang)
        if t.datatype is None:
            return ox.Literal(t.lex)
        return ox.Literal(t.lex, datatype=ox.NamedNode(t.datatype.value))


def _term_error(t: Any, exc: BaseException) -> str:
    if type(t) is Triple and ("NamedOrBlankNode" in str(exc) or "Triple" in str(exc)):
        return ("a quoted triple as subject cannot be written in RDF 1.2 (triple terms are "
                "objects only); convert RDF-star to RDF 1.2 reifiers first (jelly convert "
                "--to-rdf12)")
    return f"cannot write {t!r}: {str(exc).splitlines()[0]}"


# ---------------------------------------------------------------------------------- reading

def _syntax_error(exc: SyntaxError, fmt: str, line_offset: int = 0) -> RdfSyntaxError:
    # pyoxigraph: "Parser error at line 2 between columns 23 and 27: <reason>", or "between
    # line 1 column 39 and line 2 column 1", or "at line 2 column 11"
    text = str(exc.msg if exc.msg else exc)
    head, sep, reason = text.partition(": ")
    line_m, column_m = _OX_LINE.search(head), _OX_COLUMN.search(head)
    if head.startswith("Parser error") and sep and line_m:
        where = f" at column {column_m.group(1)}" if column_m else ""
        return RdfSyntaxError(f"{' '.join(reason.split())}{where} ({_label(fmt)})",
                              line=int(line_m.group(1)) + line_offset)
    line = getattr(exc, "lineno", None)
    if line is not None:
        line += line_offset
    return RdfSyntaxError(f"{' '.join(text.split())} ({_label(fmt)})", line=line)


def split_messages(stream: Any, lookahead: int = LOOKAHEAD
                   ) -> tuple[bool, bytes, Iterator[tuple[bool, int, bytes]]]:
    """Turtle / TriG text split at ``# @message`` lines: ``(True, b"", messages)`` where
    messages are ``(is_head, first line number, bytes)``, one at a time (``is_head`` marks the
    text before the first delimiter), if a delimiter comes within the first ``lookahead`` bytes;
    else ``(False, what was read, empty)`` and the stream holds the rest."""
    lines = _marked(stream, lookahead)
    head: list[bytes] = []
    size = 0
    found = False
    for delimiter, line in lines:
        if delimiter:
            found = True
            break
        head.append(line)
        size += len(line)
        if size >= lookahead:
            break
    first = b"".join(head)
    if not found:
        return False, first, iter(())

    def messages() -> Iterator[tuple[bool, int, bytes]]:
        number = len(head) + 1          # the delimiter's line
        if first.strip():
            yield True, 1, first
        chunk: list[bytes] = []
        start = number + 1
        for delimiter, line in lines:
            number += 1
            if delimiter:
                yield False, start, b"".join(chunk)
                chunk = []
                start = number + 1
            else:
                chunk.append(line)
        yield False, start, b"".join(chunk)
    return True, b"", messages()


def _marked(stream: Any, head: int = 0) -> Iterator[tuple[bool, bytes]]:
    """The lines of Turtle / TriG text, each with whether it is a message delimiter: a
    ``# @message`` line outside a multi-line literal.  Lines are read one at a time; the
    first ``head`` bytes as lines cut near that size (a delimiter line that starts in them is
    read whole), so that looking for a delimiter does not read a long first line whole (a
    document on one line)."""
    quote = None                        # the long string a line ends in (its """ or ''')
    read = 0
    while line := stream.readline(max(head - read, 256) if read < head else -1):
        read += len(line)
        if quote is None and DELIMITER.match(line):
            yield True, line
        else:
            quote = _long_string(line, quote)
            yield False, line


def _long_string(line: bytes, quote: bytes | None) -> bytes | None:
    """The long string (its quotes, ``\"\"\"`` or ``'''``) that Turtle text is inside after
    ``line``, given the one it was inside before (None: none): a ``# @message`` line inside a
    multi-line literal is text of the literal, not a delimiter (RDF Messages: a comment)."""
    if quote is None and b'"""' not in line and b"'''" not in line:
        return None                     # the usual line: no long string starts or ends
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if quote is not None:           # inside: up to its closing quotes
            if c == 0x5C:               # a backslash escapes the next character
                i += 2
            elif line.startswith(quote, i):
                quote, i = None, i + 3
            else:
                i += 1
        elif c == 0x23:                 # '#': a comment to the end of the line
            return None
        elif c == 0x5C:
            i += 2
        elif c in (0x22, 0x27):         # '"' or "'"
            if line.startswith(bytes((c,)) * 3, i):
                quote, i = bytes((c,)) * 3, i + 3
            else:                       # a short string: on this line, to its closing quote
                i += 1
                while i < n and line[i] != c:
                    i += 2 if line[i] == 0x5C else 1
                i += 1
        elif c == 0x3C and i + 1 < n and line[i + 1] not in b"<( \t":    # an IRI: to its '>'
            end = line.find(b">", i + 1)
            i = n if end < 0 else end + 1
        else:
            i += 1
    return quote


class OxigraphSource:
    """Statements of a document in a text format, read by pyoxigraph (see the module
    docstring): one frame per batch of statements, or per RDF message for logs."""

    text = False
    options = None

    def __init__(self, stream: Any, *, format: str, messages: bool = False,
                 syntax: str | None = None, base: str | None = None, **_: Any) -> None:
        if syntax not in (None, "rdf12", "rdf-star"):
            raise JellyError(f"unknown syntax {syntax!r}; choose rdf12 or rdf-star")
        if messages and format == "jsonld":
            format = "ndjsonld"
        if base is not None:
            try:
                ox.NamedNode(base)
            except ValueError:
                raise JellyError(f"the base IRI {base!r} is not an absolute IRI") from None
        self._fmt = format
        self._ox = OX_FORMATS[format]
        self._syntax = syntax
        self._base = base
        self.quads = format in DATASET_FORMATS
        self._declared: dict[str, str] = {}
        # Turtle and TriG may be message logs (# @message lines); JSON-LD's log form is
        # ndjsonld (JSON has no comments), so a JSON-LD document is never split.
        logs = format in ("ttl", "trig")
        if format == "ndjsonld" or logs:
            # lines are read through read_some, in pieces (readline of the stream itself
            # would wait on a pipe in C, where a signal may not stop it)
            stream = io.BufferedReader(Chained(b"", stream), CHUNK_SIZE)
        if format == "ndjsonld":
            self.grouped = True
            self._parts = self._json_lines(stream)
        elif logs:
            try:
                is_log, head, chunks = split_messages(stream)
            except READ_ERRORS as exc:
                raise JellyDecodeError(f"cannot read the input: {exc}") from None
            self.grouped = is_log or messages
            if is_log:
                self._parts = self._chunks(chunks)
            elif messages:      # a log by request, without delimiters: one message
                self._parts = self._chunks(iter(((False, 1, head + b"".join(
                    iter(lambda: read_some(stream, CHUNK_SIZE), b""))),)))
            else:
                self._parts = self._document(Chained(head, stream))
        elif messages:
            raise JellyError(f"{_label(format)} has no RDF message log form; use Turtle, TriG, "
                             f"N-Triples, N-Quads or JSON-LD (one document per line)")
        else:
            self.grouped = False
            self._parts = self._document(stream)

    # Each part yields (statements, namespaces) frames.

    def _frames(self, data: Any, line_offset: int = 0, rename: bool = False
                ) -> Iterator[tuple[list[Any], list[tuple[str, str]]]]:
        """(statements, new prefixes) of a document, BATCH statements at a time."""
        try:
            parser = ox.parse(data, format=self._ox, base_iri=self._base,
                              without_named_graphs=not self.quads, rename_blank_nodes=rename)
        except ValueError as exc:
            raise JellyError(f"cannot read {_label(self._fmt)}: {exc}") from None
        self._parser = parser
        try:
            while batch := list(itertools.islice(parser, BATCH)):
                yield _jelly_statements(batch), self._new_prefixes()
        except SyntaxError as exc:
            raise _syntax_error(exc, self._fmt, line_offset) from None
        except MemoryError as exc:              # pyoxigraph's limit, not the machine's
            raise JellyError(f"cannot read {_label(self._fmt)}: a literal or IRI is longer "
                             f"than pyoxigraph reads ({exc})") from None
        yield [], self._new_prefixes()          # those declared after the last statement

    def _new_prefixes(self) -> list[tuple[str, str]]:
        new = []
        for prefix, iri in self._parser.prefixes.items():
            if self._declared.get(prefix) != iri:
                self._declared[prefix] = iri
                new.append((prefix, iri))
        return new

    def _document(self, stream: Any) -> Iterator[tuple[list[Any], list[tuple[str, str]], bool]]:
        for batch, ns in self._frames(stream):
            yield batch, ns, False

    def _chunks(self, chunks: Iterator[tuple[bool, int, bytes]]
                ) -> Iterator[tuple[list[Any], list[tuple[str, str]], bool]]:
        carried = b""
        waiting: list[tuple[str, str]] = []
        for is_head, start, chunk in chunks:
            header = carried
            offset = start - 1 - header.count(b"\n")
            frames = list(self._frames(header + chunk, offset, rename=True))
            statements = [st for batch, _ in frames for st in batch]
            namespaces = waiting + [ns for _, nss in frames for ns in nss]
            carried = self._header()
            if is_head and not statements:
                waiting = namespaces    # only prefixes and comments before the first delimiter
                continue
            waiting = []
            yield statements, namespaces, True

    def _header(self) -> bytes:
        """Prefix and base declarations to carry into the next message."""
        out = [f"@prefix {p}: <{iri}> .\n" for p, iri in self._parser.prefixes.items()]
        base = self._parser.base_iri
        if base is not None:
            out.append(f"@base <{base}> .\n")
        return "".join(out).encode("utf-8")

    def _json_lines(self, stream: Any) -> Iterator[tuple[list[Any], list[tuple[str, str]], bool]]:
        for number, line in enumerate(iter(stream.readline, b""), 1):
            if line.strip():
                frames = list(self._frames(line, number - 1, rename=True))
                yield [st for b, _ in frames for st in b], [n for _, ns in frames for n in ns], True

    def frames(self) -> Iterator[tuple[TextFrame, bool]]:
        star = ToRdfStar(strict=False) if self._syntax == "rdf-star" else None
        parts = iter(self._parts)
        while True:
            try:
                statements, namespaces, message = next(parts)
            except StopIteration:
                break
            except READ_ERRORS as exc:      # a broken gzip member, an I/O error
                raise JellyDecodeError(f"cannot read the input: {exc}") from None
            if star is not None:
                statements = star.feed(statements)
                if message:     # a message is whole: nothing waits for the next one
                    statements += star.flush()
            if statements or namespaces or message:
                yield TextFrame(statements, namespaces), message or self.grouped
        if star is not None:
            rest = star.flush()
            if rest:
                yield TextFrame(rest, []), False

    def close(self) -> None:
        pass


# ---------------------------------------------------------------------------------- writing

#: Statements converted (and, for Turtle, TriG and N3, written) at a time: memory stays
#: bounded when a frame is a whole flat text input.
STREAMED_BATCH = 4096


class OxigraphSink:
    """Writes a text format through pyoxigraph: Turtle, TriG and N3 frame by frame, RDF/XML and
    JSON-LD as one document written as the statements come (its prefixes are those declared
    before its first statement); with ``messages`` one document per frame (after a
    ``# @message`` line; one line each for JSON-LD).

    From a source that gives text (Jelly and Jena's formats decoded to N-Triples / N-Quads),
    pyoxigraph parses each frame's text into its own terms: making them in Python, one
    constructor call per term and statement, took more than half of a conversion to Turtle
    (``benchmarks/text_out_bench.py``).  From a statement pyoxigraph will not parse on, the
    frame is read by jelly's parser: quoted triples (RDF-star notation in the text) are
    written again as RDF 1.2 triple terms for pyoxigraph, and what still does not go (a quoted
    triple as subject, a generalized statement, a term it finds invalid) is taken the way of
    other sources, which says what cannot be written."""

    text = True

    def __init__(self, stream: Any, source: Any, *, format: str, messages: bool = False,
                 **_: Any) -> None:
        if messages and format == "jsonld":
            format = "ndjsonld"
        self._fmt = format
        self._ox = OX_FORMATS[format]
        self._stream = stream
        self._messages = messages or format == "ndjsonld"
        if self._messages and not get_format(format).messages:
            raise JellyError(f"{_label(format)} has no RDF message log form; use Turtle, TriG, "
                             f"N-Triples, N-Quads or JSON-LD (--to jsonld --messages)")
        self._quads = format in DATASET_FORMATS
        self._text_format = ox.RdfFormat.N_QUADS if self._quads else ox.RdfFormat.N_TRIPLES
        self._text = source.text
        self._conv = _ToOx()
        self._prefixes: dict[str, str] = {}
        self._written: dict[str, str] = {}
        self._document: _Document | None = None      # RDF/XML and JSON-LD
        self.frames_written = 0
        self.statements_written = 0

    def write(self, frame: Any, message: bool) -> None:
        for prefix, iri in frame.namespaces:
            iri = iri.value if isinstance(iri, IRI) else str(iri)
            if self._text and iri.startswith("<") and iri.endswith(">"):
                iri = iri[1:-1]     # as N-Triples writes it (one with escapes is left out below)
            # Left out: what a Turtle prefix cannot be (pyoxigraph refused a relative IRI
            # and failed the whole document, though no statement used it).
            if PN_PREFIX.fullmatch(prefix) and absolute_iri(iri) and \
                    not any(c in iri for c in '<>"{}|^`\\ \n\r\t'):
                self._prefixes[prefix] = iri
        if self._text:
            if not self._quads and frame.named_graph_statements:
                raise JellyError(self._named_graph_error())
            items = self._parsed(frame.statements)
        else:
            items = self._converted(frame.statements)
        if self._messages:          # a message is one document
            held = list(items)
            self.statements_written += len(held)
            if self._fmt != "ndjsonld":
                self._stream.write(b"# @message\n")
            self._serialize(held, streamed=self._fmt in STREAMED_OUTPUT)
        else:                       # a batch at a time: a frame of text input is all of it
            while batch := list(itertools.islice(items, STREAMED_BATCH)):
                self.statements_written += len(batch)
                if self._fmt in STREAMED_OUTPUT:
                    self._serialize(batch, streamed=True)
                else:
                    self._started().put(batch)
        self.frames_written += 1

    def _parsed(self, text: bytes) -> Iterator[Any]:
        """pyoxigraph's terms of a frame's N-Triples / N-Quads ``text``; from a statement it
        will not parse on, those of jelly's parser, a batch at a time (see :meth:`_rewritten`)."""
        done = 0
        try:
            for item in ox.parse(text, format=self._text_format):
                yield item
                done += 1
            return
        except (SyntaxError, MemoryError):      # MemoryError: a token over 16 MiB (below)
            pass
        # jelly's parser reads whatever jelly's N-Triples writer wrote (generalized statements
        # and relative IRIs too)
        rest = itertools.islice(parse_nquads(text, at_start=False, allow_relative_iris=True),
                                done, None)
        while batch := list(itertools.islice(rest, STREAMED_BATCH)):
            yield from self._rewritten(batch)

    def _rewritten(self, batch: list[Any]) -> list[Any]:
        """pyoxigraph's terms of statements it refused as text.  Most often that is RDF-star
        notation (``<< s p o >>``): jelly's writer spells the quoted triples again as RDF 1.2
        triple terms, which pyoxigraph reads (RDF-star data to Turtle, 200k statements: 1.32 s
        term by term, 0.54 s so, ``benchmarks/command_bench.py --only star-out``).  A batch
        that still does not go (a quoted triple as subject, a generalized statement, a
        relative IRI, a literal over pyoxigraph's 16 MiB) is converted term by term, which
        says what cannot be written."""
        out = io.BytesIO()
        writer = NQuadsWriter(out, syntax="rdf12")
        try:
            for st in batch:
                writer.write(st)
            writer.close()
            return list(ox.parse(out.getvalue(), format=self._text_format))
        except (JellyError, SyntaxError, MemoryError):   # MemoryError: its 16 MiB limit
            return self._items(batch)

    def _converted(self, statements: Any) -> Iterator[Any]:
        """pyoxigraph's terms of jelly's ``statements``, made a batch at a time."""
        statements = iter(statements)
        while batch := list(itertools.islice(statements, STREAMED_BATCH)):
            yield from self._items(batch)

    def _items(self, statements: Any) -> list[Any]:
        conv = self._conv
        out: list[Any] = []
        if self._quads:
            for st in statements:
                g = st[3] if len(st) == 4 else None
                try:
                    out.append(ox.Quad(conv(st[0]), conv(st[1]), conv(st[2]),
                                       ox.DefaultGraph() if g is None or type(g) is DefaultGraph
                                       else conv(g)))
                except TypeError as exc:
                    raise JellyError(self._statement_error(st, exc)) from None
            return out
        for st in statements:
            if len(st) == 4 and st[3] is not None and type(st[3]) is not DefaultGraph:
                raise JellyError(self._named_graph_error())
            try:
                out.append(ox.Triple(conv(st[0]), conv(st[1]), conv(st[2])))
            except TypeError as exc:
                raise JellyError(self._statement_error(st, exc)) from None
        return out

    def _named_graph_error(self) -> str:
        where = f" (frame {self.frames_written})" if self._messages else ""
        return (f"the input has statements in a named graph{where}, which "
                f"{_label(self._fmt)} cannot hold; write TriG (.trig), N-Quads (.nq) or "
                f"JSON-LD (.jsonld) instead")

    def _statement_error(self, st: Any, exc: BaseException) -> str:
        """What of ``st`` pyoxigraph refused (``exc``): a term where RDF allows none of its
        kind (a generalized statement), or a quoted triple as subject."""
        kinds = {Literal: "a literal", BlankNode: "a blank node", Triple: "a quoted triple"}
        s, p, g = st[0], st[1], st[3] if len(st) == 4 else None
        if type(s) is Triple:
            return _term_error(s, exc)
        for term, role, fits in ((s, "subject", type(s) is not Literal),
                                 (p, "predicate", type(p) is IRI),
                                 (g, "graph name", type(g) is not Literal)):
            if not fits:
                return (f"{kinds.get(type(term), repr(term))} as {role} (a generalized "
                        f"statement) cannot be written in {_label(self._fmt)}")
        return _term_error(p, exc)

    def _serialize(self, items: list[Any], streamed: bool) -> None:
        prefixes = self._prefixes if self._fmt != "ndjsonld" else {}
        try:
            data = ox.serialize(items, format=self._ox, prefixes=prefixes or None)
        except (TypeError, ValueError, OSError) as exc:
            raise _write_error(exc, _label(self._fmt)) from None
        assert data is not None
        if self._fmt == "xml":
            data = _xml_mended(data)
        if self._fmt == "ndjsonld":
            self._stream.write(data.replace(b"\n", b" ").strip() + b"\n")
            return
        if streamed and prefixes:
            # pyoxigraph opens every document with all its prefixes: write each once, when it
            # is new or changed, and the body of the frame.
            body = data
            for _ in range(len(prefixes)):
                if not body.startswith(b"@prefix "):
                    break
                body = body[body.index(b"\n") + 1:]
            fresh = [p for p, iri in prefixes.items() if self._written.get(p) != iri]
            header = "".join(f"@prefix {p}: <{prefixes[p]}> .\n" for p in fresh).encode("utf-8")
            self._written.update(prefixes)
            data = header + body
        self._stream.write(data)

    def _started(self) -> _Document:
        if self._document is None:
            self._document = _Document(self._stream, self._ox, dict(self._prefixes),
                                       _label(self._fmt))
        return self._document

    def close(self) -> None:
        if not self._messages and self._fmt not in STREAMED_OUTPUT:
            self._started().close()

    def abort(self) -> None:
        if self._document is not None:
            self._document.abort()


#: What pyoxigraph's RDF/XML writer gets wrong (0.5.13), found in the XML it writes: a blank
#: node label that is not an XML name (``_:1`` as ``rdf:nodeID="1"``); a predicate that ends
#: with no XML name (``<http://e/>``, written ``<oxprefix: xmlns:oxprefix="http://e/">``);
#: characters XML cannot hold (U+0001, raw); a carriage return, raw, which XML readers turn
#: into a line feed.  Text is escaped (``"`` as ``&quot;``), so each is found only where it
#: is markup.
_XML_NODE_ID = re.compile(rb'rdf:nodeID="(?=[0-9_.\-])')
_XML_NO_LOCAL_NAME = re.compile(rb'<oxprefix\w*:[\s/>](?:[^>]*xmlns:oxprefix\w*="([^"]*)")?')
_XML_NOT_XML = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]|\xef\xbf[\xbe\xbf]")
#: The bytes that may stand anywhere in XML: deleting them leaves only what it cannot hold,
#: a scan many times faster than the regex (the 250 MB of RDF/XML of 2M statements, in
#: 64 KiB pieces, by hand: 0.09 s against 2.22 s).
_XML_BYTES = bytes(b for b in range(256) if b >= 0x20 or b in (0x09, 0x0A, 0x0D))


def _xml_mended(data: bytes) -> bytes:
    """pyoxigraph's RDF/XML as XML that readers take and that says what it was given: a
    blank node label that is not an XML name gets a ``_`` in front (one that starts with
    ``_`` too, so that no two meet), a carriage return becomes ``&#xD;``; a predicate without
    an XML name at its end, or a character XML cannot hold, is an error."""
    if b"<oxprefix" in data and (m := _XML_NO_LOCAL_NAME.search(data)):
        iri = f" <{m.group(1).decode('utf-8', 'replace')}>" if m.group(1) else ""
        raise JellyError(f"RDF/XML cannot hold the predicate{iri}: it does not end with an "
                         f"XML name (write another format)")
    if (data.translate(None, _XML_BYTES) or not data.isascii() and b"\xef\xbf" in data) \
            and (m := _XML_NOT_XML.search(data)):
        char = data[m.start():m.end()].decode("utf-8")
        raise JellyError(f"RDF/XML cannot hold the character U+{ord(char):04X} of a literal: "
                         f"XML 1.0 has no such character (write another format)")
    data = _XML_NODE_ID.sub(b'rdf:nodeID="_', data)     # data itself when there is none
    return data.replace(b"\r", b"&#xD;") if b"\r" in data else data


class _XmlOutput:
    """The stream pyoxigraph's RDF/XML writer writes to (in small pieces): its bytes gathered
    and mended (:func:`_xml_mended`) 64 KiB at a time, cut after a line feed, so that nothing
    it looks for is cut in two (none holds a line feed)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._held = bytearray()

    def write(self, data: Any) -> int:
        held = self._held
        held += data
        if len(held) >= CHUNK_SIZE:
            cut = held.rfind(b"\n") + 1
            if cut:
                self._stream.write(_xml_mended(bytes(held[:cut])))
                del held[:cut]
        return len(data)

    def flush(self) -> None:
        pass        # what is held waits for the rest of its line (finish)

    def finish(self) -> None:
        if self._held:
            self._stream.write(_xml_mended(bytes(self._held)))
            self._held.clear()


class _Document:
    """One RDF/XML or JSON-LD document, written as its statements come: pyoxigraph's
    serializer writes a document from an iterator it pulls from, so it runs in a thread of its
    own, and :meth:`put` hands it batches through a queue of two.  Memory stays at a few
    batches (holding the document took 1.3 GiB for 2M statements, ``command_bench.py --only
    documents``)."""

    _END, _ABORT = object(), object()

    def __init__(self, stream: Any, format: Any, prefixes: dict[str, str], label: str) -> None:
        if format == ox.RdfFormat.RDF_XML:
            stream = _XmlOutput(stream)
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=2)
        self._label = label
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(stream, format, prefixes),
                                        name="jelly-document", daemon=True)
        self._thread.start()

    def _items(self) -> Iterator[Any]:
        while (batch := self._queue.get()) is not self._END:
            if batch is self._ABORT:
                raise _Aborted
            yield from batch

    def _run(self, stream: Any, format: Any, prefixes: dict[str, str]) -> None:
        try:
            ox.serialize(self._items(), stream, format=format, prefixes=prefixes or None)
            if isinstance(stream, _XmlOutput):
                stream.finish()
        except _Aborted:
            pass
        except BaseException as exc:        # handed to the caller of put / close
            self._error = exc
            while True:                     # let a put waiting on a full queue go on
                try:
                    self._queue.get_nowait()
                except queue.Empty:
                    break

    def put(self, batch: Any) -> None:
        """Hand ``batch`` (a list of statements, or ``_END``) to the serializer; raise its
        error, if it had one."""
        while self._error is None:
            try:
                self._queue.put(batch, timeout=0.05)
                return
            except queue.Full:
                if not self._thread.is_alive() and self._error is None:
                    raise JellyError(f"the {self._label} writer stopped before the end")
        self._raise()

    def close(self) -> None:
        self.put(self._END)
        self._thread.join()
        self._raise()

    def abort(self) -> None:
        if self._thread.is_alive():
            with contextlib.suppress(queue.Full):
                self._queue.put(self._ABORT, timeout=1)
            self._thread.join(timeout=5)

    def _raise(self) -> None:
        if self._error is not None:
            raise _write_error(self._error, self._label) from None


def _write_error(exc: BaseException, label: str) -> BaseException:
    """What to raise for ``exc`` from pyoxigraph's serializer: statements it cannot write
    (``TypeError``, ``ValueError``, or an ``OSError`` without an errno, as for a triple term
    in JSON-LD) as a :class:`JellyError`; an error of the output itself, or jelly's own
    (:func:`_xml_mended`), as it is."""
    if isinstance(exc, JellyError):
        return exc
    if isinstance(exc, (TypeError, ValueError)) \
            or (isinstance(exc, OSError) and exc.errno is None):
        return JellyError(f"cannot write the statements as {label}: "
                          f"{str(exc).splitlines()[0]}")
    return exc


class _Aborted(Exception):
    """The conversion failed: the document ends unfinished (the output is discarded)."""


# --------------------------------------------------------------------- pyoxigraph.Store

class _NQuadsOf(io.RawIOBase):
    """The statements of a Jelly stream as N-Quads bytes, decoded as the reader asks for them
    (RDF 1.2 triple terms ``<<( s p o )>>`` for quoted triples), small frames in a row together
    (``Reader._runs``)."""

    def __init__(self, reader: Any) -> None:
        self._frames = reader._runs()
        self._buf = memoryview(b"")     # a view: handing out a piece copies it once, not twice
        self._at = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        while self._at >= len(self._buf):
            frame = next(self._frames, None)
            if frame is None:
                return 0
            self._buf = memoryview(frame.statements)
            self._at = 0
        n = min(len(b), len(self._buf) - self._at)
        b[:n] = self._buf[self._at:self._at + n]
        self._at += n
        return n


def load(source: Any, store: Any = None, *, limits: Any = None) -> Any:
    """Load the statements of a Jelly stream (a path, ``"-"``, bytes or a binary file; gzip or
    zstd; concatenated streams read one after another) into ``store``, a ``pyoxigraph.Store``
    (a new in-memory one if None), with pyoxigraph's bulk loader; returns the store.

    Blank nodes are the store's own: its bulk loader gives each label of the text it is
    handed a fresh node (the same label in the stream is the same node, also across the
    frames of a grouped stream, which the rdflib parser scopes per frame).  What a Store cannot
    hold (a quoted triple as subject, generalized statements) raises :class:`JellyError`; the
    bulk loader is not transactional, so the statements before it stay loaded."""
    from ._ntformat import NTriplesTerms
    from .reader import Reader

    store = ox.Store() if store is None else store
    with Reader(source, limits=limits, terms=NTriplesTerms(syntax="rdf12"), output="text",
                new_streams=True) as reader:
        try:
            store.bulk_load(input=io.BufferedReader(_NQuadsOf(reader), 1 << 16),
                            format=ox.RdfFormat.N_QUADS)
        except SyntaxError as exc:
            reason = str(exc.msg if exc.msg else exc).partition(": ")[2] or str(exc)
            raise JellyError(f"pyoxigraph cannot store a statement of this stream (frame "
                             f"{max(reader.frame_count - 1, 0)}): {' '.join(reason.split())} "
                             f"(RDF 1.2 has quoted triples as objects only, and no "
                             f"generalized statements)") from None
    return store


def _jelly_statements(batch: list[Any]) -> list[Any]:
    """jelly statements of a batch of pyoxigraph quads: pyoxigraph writes them as N-Quads and
    jelly's parser reads that, both compiled, instead of a Python call per term (reading
    Turtle 20% faster, ``benchmarks/command_bench.py --only text-in``).  A statement of the
    default graph is a triple, as from an N-Quads source.  Should jelly's parser refuse what
    pyoxigraph wrote (none is known), the batch is converted term by term, as before."""
    text = ox.serialize(batch, format=ox.RdfFormat.N_QUADS)
    try:
        return list(parse_nquads(text, at_start=False))
    except JellyError:
        return [tuple(map(_from_ox, (q.subject, q.predicate, q.object)))
                if type(q) is ox.Triple or type(q.graph_name) is ox.DefaultGraph
                else tuple(map(_from_ox, (q.subject, q.predicate, q.object, q.graph_name)))
                for q in batch]


def serialize(quads: Any, destination: Any = None, **options: Any) -> bytes | None:
    """Write ``quads`` as Jelly: a ``pyoxigraph.Store`` (every quad; as triples when it has no
    named graphs) or any iterable of pyoxigraph ``Quad`` or ``Triple`` objects.  The options
    are those of :func:`jelly.serialize` (``preset``, ``physical_type``, ``rdf_star``,
    ``rows_per_frame``, ``delimited``, ...); returns the bytes when ``destination`` is None."""
    from .writer import serialize as _serialize

    items = iter(quads)
    if isinstance(quads, ox.Store):
        triples = next(iter(quads.named_graphs()), None) is None
    else:
        first = next(items, None)
        triples = first is None or type(first) is ox.Triple
        items = itertools.chain(() if first is None else (first,), items)
    if not triples and options.get("physical_type") is None and options.get("options") is None:
        options["physical_type"] = "quads"     # the default graph's statements come as triples

    def statements() -> Iterator[Any]:
        while batch := list(itertools.islice(items, BATCH)):
            yield from _jelly_statements(batch)
    return _serialize(statements(), destination, **options)
