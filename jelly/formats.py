"""The format registry: every format the package reads or writes, in one table that the
command line, the conversion library, the rdflib plugin and Spark all use.

A format is an :class:`RdfFormat`: its name, aliases, file extensions, media type, what it
holds (triples only, or named graphs too; RDF statements or patch operations), whether it has
an RDF message log form, and where its reader and writer live (``"module:callable"``, imported
on first use so that looking a format up imports nothing heavy).  Adding a format is adding an
entry here plus its reader and writer (see ``docs/architecture.md``).

Look-ups: :func:`get` (name or alias), :func:`for_path` (by extension, ``.gz`` and ``.zst``
ignored), :func:`for_media_type`, :func:`sniff` (by the first bytes of the content),
:func:`sniff_content` (what an input is when neither its name nor ``--from`` says) and
:func:`looks_like` (what an input that failed to read as Jelly seems to be instead).
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import re
from typing import Any, Callable, Iterable

from .errors import JellyError

#: What the statements of a format are.
RDF = "rdf"            # RDF statements (triples / quads)
PATCH = "patch"        # RDF Patch operations


@dataclasses.dataclass(frozen=True)
class RdfFormat:
    name: str
    label: str
    extensions: tuple[str, ...]
    media_type: str
    aliases: tuple[str, ...] = ()
    binary: bool = False
    #: Holds named graphs (quads), not just triples.
    quads: bool = False
    #: Has an RDF message log form (one message per frame): '# @message' lines, or one
    #: document per line.
    messages: bool = False
    kind: str = RDF
    #: ``"module:callable"`` building a source: ``reader(stream, **options)``.
    reader: str | None = None
    #: ``"module:callable"`` building a sink: ``writer(stream, **options)``.
    writer: str | None = None
    #: Recognises the format from the first bytes of its content (or None).
    sniffer: Callable[[bytes], bool] | None = None
    #: ``"module:callable"`` reporting on a stream for ``jelly inspect``:
    #: ``inspector(source, per_frame=...)`` (None: the Jelly report of :mod:`jelly.inspect`).
    inspector: str | None = None

    def load_reader(self) -> Callable[..., Any]:
        if self.reader is None:
            raise JellyError(f"{self.label} cannot be read")
        return _load(self.reader)

    def load_writer(self) -> Callable[..., Any]:
        if self.writer is None:
            raise JellyError(f"{self.label} cannot be written")
        return _load(self.writer)

    def load_inspector(self) -> Callable[..., Any] | None:
        return _load(self.inspector) if self.inspector is not None else None

    def __str__(self) -> str:
        return self.name


def _load(spec: str) -> Callable[..., Any]:
    module, _, name = spec.partition(":")
    loaded: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return loaded


def _varint(head: bytes, i: int) -> tuple[int, int]:
    """The varint at ``i`` and the position after it (-1 for the value if it runs past the
    end)."""
    value = shift = 0
    while i < len(head) and shift < 64:
        value |= (head[i] & 0x7F) << shift
        i += 1
        if not head[i - 1] & 0x80:
            return value, i
        shift += 7
    return -1, i


def _tags(head: bytes) -> list[tuple[int, int]]:
    """Where a Jelly or Jelly-Patch stream starting with ``head`` has the tag 0A of the rows
    field, then of the options row: a single frame starts 0A <row length> 0A, a delimited
    stream with a frame length, then 0A <row length> 0A.  Bytes starting 0A can be either (a
    first frame of 10 bytes), so both places are given for them."""
    first = _varint(head, 0)[1]
    places = [(first, _varint(head, first + 1)[1])]
    if head[:1] == b"\x0a":
        places.insert(0, (0, _varint(head, 1)[1]))
    return places


def _options_head(head: bytes) -> int | None:
    """The first byte of the options message of a Jelly or Jelly-Patch stream (both start with
    an options row), or None if ``head`` does not look like one (see :func:`_tags`)."""
    head = head.lstrip(b"\x00")    # empty frames of a delimited stream (a length 0 each)
    if not head:
        return None
    for tags in _tags(head):
        if all(i < len(head) and head[i] == 0x0A for i in tags):
            i = _varint(head, tags[1] + 1)[1]     # the options message's length
            return head[i] if i < len(head) else 0
    return None


def _jelly_prefix(head: bytes) -> bool:
    """Whether ``head`` can be the first bytes of a Jelly or Jelly-Patch stream: the tags of
    :func:`_tags` that it holds are 0A."""
    return any(all(i >= len(head) or head[i] == 0x0A for i in tags) for tags in _tags(head))


def _jelly_head(head: bytes) -> bool:
    # RdfStreamOptions starts with stream_name (0A) or physical_type (10); RdfPatchOptions
    # with its statement_type (08).
    return _options_head(head) not in (None, 0x08) and not _protobuf_head(head)


def _jelly_patch_head(head: bytes) -> bool:
    return _options_head(head) == 0x08


#: The tags that start an RDF_Term of Jena's RDF Protobuf: iri .. valDecimal (fields 1-10).
_RPB_TERMS = frozenset((0x0A, 0x12, 0x1A, 0x22, 0x2A, 0x32, 0x3A, 0x40, 0x49, 0x52))


def _protobuf_head(head: bytes) -> bool:
    # A delimited RDF_StreamRow of Jena's RDF Protobuf: a triple or quad (fields 2, 3; a Jelly
    # frame starts with its rows, field 1) whose subject (field 1) is an RDF_Term; a base (4);
    # or a prefix declaration (1, like a frame's rows) holding a prefix and then a uri (2): so
    # longer than its first field, where the options row that starts a Jelly stream holds
    # nothing after its options.  With the empty prefix (left out) it holds only the uri.
    _, i = _varint(head, 0)
    if i + 1 >= len(head):
        return False
    if head[i] in (0x12, 0x1A):
        _, j = _varint(head, i + 1)
        if j + 1 >= len(head) or head[j] != 0x0A:
            return False
        _, k = _varint(head, j + 1)
        return k < len(head) and head[k] in _RPB_TERMS
    if head[i] == 0x22:                     # a base row (4): RDF_IRI, its iri (1)
        _, j = _varint(head, i + 1)
        return j < len(head) and head[j] == 0x0A
    if head[i] != 0x0A:
        return False
    outer, j = _varint(head, i + 1)
    if j >= len(head) or head[j] not in (0x0A, 0x12):
        return False
    inner, k = _varint(head, j + 1)
    if inner < 0:
        return False
    if head[j] == 0x12:                     # the uri alone: all of it, and text
        uri = head[k:k + inner]
        return outer == k + inner - j and bool(uri) and all(0x20 < c < 0x7F or c >= 0x80
                                                             for c in uri)
    after = k + inner
    return outer > after - j and after < len(head) and head[after] == 0x12


def _thrift_head(head: bytes) -> bool:
    # RDF_StreamRow in the compact protocol: a struct header for field 1, 2 or 3 (prefixDecl,
    # triple, quad), then the header of its first field: a string (prefix) or a struct (S).
    return len(head) >= 2 and head[0] in (0x1C, 0x2C, 0x3C) and head[1] in (0x18, 0x1C)


_REGISTRY: dict[str, RdfFormat] = {}
_ALIASES: dict[str, str] = {}


def register(fmt: RdfFormat) -> RdfFormat:
    """Add a format (or replace the one of the same name)."""
    _REGISTRY[fmt.name] = fmt
    for alias in (fmt.name, *fmt.aliases):
        _ALIASES[alias.lower()] = fmt.name
    return fmt


JELLY = register(RdfFormat(
    "jelly", "Jelly", (".jelly",), "application/x-jelly-rdf", aliases=("jelly-rdf",),
    binary=True, quads=True, messages=True,
    reader="jelly.convert:JellySource", writer="jelly.convert:JellySink", sniffer=_jelly_head))
# The protobuf text format of Jelly frames (jelly/jellytext.py), jelly-cli's "jelly-text".
JELLY_TEXT = register(RdfFormat(
    "jelly-text", "Jelly-Text", (".jelly.txt",), "text/x-jelly-text",
    aliases=("jellytext", "jelly_text"), quads=True, messages=True,
    reader="jelly.jellytext:JellyTextSource", writer="jelly.jellytext:JellyTextSink",
    sniffer=lambda head: _jelly_text_head(head)))
NTRIPLES = register(RdfFormat(
    "nt", "N-Triples", (".nt", ".ntriples"), "application/n-triples",
    aliases=("ntriples", "n-triples"), messages=True,
    reader="jelly.convert:NQuadsSource", writer="jelly.convert:NQuadsSink"))
NQUADS = register(RdfFormat(
    "nq", "N-Quads", (".nq", ".nquads"), "application/n-quads", aliases=("nquads", "n-quads"),
    quads=True, messages=True,
    reader="jelly.convert:NQuadsSource", writer="jelly.convert:NQuadsSink"))
# Jelly-Patch (jelly.patch) and RDF Patch text (jelly.rdfpatch): patch operations.  A Jelly-Patch
# file may also be named .jelly, as the issue's `jelly patch convert` examples do.
JELLY_PATCH = register(RdfFormat(
    "jelly-patch", "Jelly-Patch", (".jellyp", ".jelly"), "application/x-jelly-rdf-patch",
    aliases=("jellyp", "jelly-rdf-patch", "jellypatch"), binary=True, quads=True, kind=PATCH,
    reader="jelly.patch:PatchReader", writer="jelly.patch:PatchWriter",
    sniffer=_jelly_patch_head))
RDF_PATCH = register(RdfFormat(
    "rdfp", "RDF Patch", (".rdfp",), "application/rdf-patch",
    aliases=("rdf-patch", "rdfpatch"), quads=True, kind=PATCH,
    reader="jelly.rdfpatch:parse", writer="jelly.rdfpatch:TextWriter"))
# Jena's RDF Binary (jelly.jena), with Jena's names, extensions and media types.
RDF_THRIFT = register(RdfFormat(
    "rdf-thrift", "RDF Thrift", (".rt", ".trdf"), "application/rdf+thrift",
    aliases=("thrift", "rt", "trdf", "rdfthrift", "rdf_thrift"), binary=True, quads=True,
    reader="jelly.jena:ThriftSource", writer="jelly.jena:ThriftSink", sniffer=_thrift_head,
    inspector="jelly.jena:inspect_thrift"))
RDF_PROTOBUF = register(RdfFormat(
    "rdf-protobuf", "RDF Protobuf", (".rpb", ".pbrdf"), "application/rdf+protobuf",
    aliases=("protobuf", "rpb", "pbrdf", "rdf-proto", "rdfpb", "rdf_pb"), binary=True,
    quads=True, reader="jelly.jena:ProtobufSource", writer="jelly.jena:ProtobufSink",
    sniffer=_protobuf_head, inspector="jelly.jena:inspect_protobuf"))
# Through pyoxigraph (jelly/oxigraph.py, the only module that imports it).
_OX_READER, _OX_WRITER = "jelly.oxigraph:OxigraphSource", "jelly.oxigraph:OxigraphSink"
TURTLE = register(RdfFormat(
    "ttl", "Turtle", (".ttl", ".turtle"), "text/turtle", aliases=("turtle",), messages=True,
    reader=_OX_READER, writer=_OX_WRITER))
TRIG = register(RdfFormat(
    "trig", "TriG", (".trig",), "application/trig", quads=True, messages=True,
    reader=_OX_READER, writer=_OX_WRITER))
RDFXML = register(RdfFormat(
    "xml", "RDF/XML", (".rdf", ".owl", ".xml"), "application/rdf+xml",
    aliases=("rdfxml", "rdf/xml", "rdf", "owl"), reader=_OX_READER, writer=_OX_WRITER))
JSONLD = register(RdfFormat(
    "jsonld", "JSON-LD", (".jsonld", ".json"), "application/ld+json",
    aliases=("json-ld", "json"), quads=True, messages=True,
    reader=_OX_READER, writer=_OX_WRITER))
NDJSONLD = register(RdfFormat(
    "ndjsonld", "newline-delimited JSON-LD", (".ndjsonld", ".ndjson", ".jsonl"),
    "application/x-ndjson-ld", aliases=("ndjson-ld", "ndjson", "jsonl"), quads=True,
    messages=True, reader=_OX_READER, writer=_OX_WRITER))
N3 = register(RdfFormat(
    "n3", "N3", (".n3",), "text/n3", aliases=("notation3",),
    reader=_OX_READER, writer=_OX_WRITER))

#: Compression suffixes that a path may end with after the format's extension.
COMPRESSION_SUFFIXES = (".gz", ".zst")


def formats(kind: str | None = None) -> list[RdfFormat]:
    """Every registered format (of one kind)."""
    return [f for f in _REGISTRY.values() if kind is None or f.kind == kind]


def names(kind: str | None = RDF) -> list[str]:
    return [f.name for f in formats(kind)]


def get(name: str, kind: str | None = None, role: str = "") -> RdfFormat:
    """The format of a name or alias (case-insensitive); ``role`` names it in the error
    ("input", "output")."""
    key = _ALIASES.get(name.lower())
    fmt = _REGISTRY.get(key) if key else None
    if fmt is None or (kind is not None and fmt.kind != kind):
        what = f"{role} format" if role else "format"
        raise JellyError(f"unknown {what} {name!r}; choose one of {', '.join(names(kind))}")
    return fmt


def for_path(path: str | os.PathLike[str], kind: str | None = None) -> RdfFormat | None:
    """The format of a file name by its extension (after a compression suffix), or None."""
    lower = os.fspath(path).lower()
    for suffix in COMPRESSION_SUFFIXES:
        if lower.endswith(suffix):
            lower = lower[:-len(suffix)]
            break
    best = None
    for fmt in formats(kind):
        for ext in fmt.extensions:
            if lower.endswith(ext) and (best is None or len(ext) > best[0]):
                best = (len(ext), fmt)
    return best[1] if best else None


def for_media_type(media_type: str, kind: str | None = None) -> RdfFormat | None:
    base = media_type.split(";")[0].strip().lower()
    for fmt in formats(kind):
        if fmt.media_type == base:
            return fmt
    return None


def sniff(head: bytes, candidates: Iterable[RdfFormat] | None = None) -> RdfFormat | None:
    """The format whose sniffer recognises the first bytes of a content, or None."""
    for fmt in (candidates if candidates is not None else formats()):
        if fmt.sniffer is not None and fmt.sniffer(head):
            return fmt
    return None


# ------------------------------------------------------------------------- content sniffing

_TURTLE = re.compile(r"(?:\s*#[^\n]*\n)*\s*(?:@prefix|@base|(?i:prefix|base)\s)")
_XML = re.compile(r"\s*<(?:\?xml|!--|rdf:RDF)")
_JELLY_TEXT = re.compile(r"(?:\s*#[^\n]*\n)*\s*(?:rows|metadata)\s*:?\s*[{<]|\s*#\s*Frame\b")
_NT_START = re.compile(r"\s*(?:<[^<>\"{}|^`\\\s]*>|_:[^\s<>]+)\s+<")


def _text(head: bytes) -> str | None:
    """``head`` as text, if it is UTF-8 without control characters other than whitespace (a
    character cut at the end of ``head`` is dropped)."""
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:
            return None
        text = head[:exc.start].decode("utf-8")
    if any(c < " " and c not in "\t\r\n" for c in text):
        return None
    return text


def _jelly_text_head(head: bytes) -> bool:
    text = _text(head)
    return text is not None and _JELLY_TEXT.match(text) is not None


def _nt_kind(head: bytes) -> str | None:
    """"nt" or "nq" if the complete lines of ``head`` read as N-Triples / N-Quads (N-Quads if a
    statement has a graph), else None."""
    from ._ntriples import parse_nquads
    text = _text(head)
    if text is None or not text.strip():
        return None
    lines = text.splitlines(keepends=True)
    if len(lines) > 1 and not lines[-1].endswith("\n"):
        lines.pop()                   # cut off in the middle
    body = "".join(ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#"))
    if not body:
        return None
    if not body.endswith("\n"):      # one line longer than the head: judge its start
        return "nt" if _NT_START.match(body) else None
    try:
        statements = list(parse_nquads(body.encode("utf-8")))
    except ValueError:
        return None
    if not statements:
        return None
    return "nq" if any(len(st) == 4 for st in statements) else "nt"


def sniff_content(head: bytes) -> RdfFormat | None:
    """The format of an input from its first bytes (after decompression), for input whose name
    does not tell: Jelly (delimited or one frame), RDF Thrift, RDF Protobuf, Jelly-Text,
    N-Triples or N-Quads; None if it is none of them (or empty)."""
    if not head:
        return None
    if _jelly_head(head):
        return JELLY
    if _thrift_head(head):
        return RDF_THRIFT
    if _protobuf_head(head):
        return RDF_PROTOBUF
    if _jelly_text_head(head):
        return JELLY_TEXT
    kind = _nt_kind(head)
    return get(kind) if kind else None


def looks_like(head: bytes) -> str | None:
    """What the first bytes of an input that is not Jelly look like, for error messages:
    "N-Triples", "Turtle", "gzip-compressed data", ..., "text", or None (nothing known)."""
    from .io import compression
    kind = compression(head)
    if kind:
        return f"{kind}-compressed data"
    if _thrift_head(head):
        return "RDF Thrift"
    if _protobuf_head(head):
        return "RDF Protobuf"
    if _jelly_patch_head(head):
        return "Jelly-Patch: read it with jelly patch"
    if len(head) < 16 and _jelly_prefix(head):     # as likely a Jelly stream cut short
        return None
    if _jelly_text_head(head):
        return "Jelly-Text"
    kind = _nt_kind(head)
    if kind:
        return get(kind).label
    text = _text(head)
    if text is None or not text.strip():
        return None
    if _TURTLE.match(text):
        return "Turtle"
    if _XML.match(text):
        return "RDF/XML"
    if text.lstrip()[:1] in ("{", "["):
        return "JSON-LD"
    return "text"
