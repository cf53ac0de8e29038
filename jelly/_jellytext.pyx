# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Jelly-Text: the protobuf text format of Jelly frames, for looking at streams and crafting
test files (what jelly-cli calls ``jelly-text``).

A Jelly-Text document is a sequence of frames, each the text format of one ``RdfStreamFrame``
(``rows { triple { s_iri { prefix_id: 1 name_id: 2 } ... } }``, ``metadata { key: "k" value:
"v" }``), each opened by a comment line ``# Frame N`` at the start of a line (what jelly-cli
writes); text before the first such line, or a document without one, is one frame.

Both directions are exact, field by field and in wire order: :func:`frame_to_text` prints what
is on the wire (a zero written explicitly is printed; unknown fields are printed by number:
``20: 5``, ``21: "bytes"``, ``22: 0x0000002a`` for fixed32, ``0x...`` with 16 digits for
fixed64), and :func:`text_to_frame` writes the fields as the text gives them (numbers for
unknown fields too), without checking the Jelly rules, so malformed streams can be crafted.
Strings are printed as UTF-8 with C escapes (``\\n``, ``\\"``, octal ``\\ooo`` for other control
bytes and for bytes that are not UTF-8); the parser reads the protobuf text format's escapes
(octal, ``\\x`` hex, ``\\u``, ``\\U``), either quote, adjacent strings, ``:`` before a message
and ``<...>`` for ``{...}``, enum names or numbers, ``true`` / ``false``.
"""

import re

from libc.stdint cimport uint64_t
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE

from ._wire cimport WT_VARINT, WT_I64, WT_LEN, WT_I32
from ._buffer cimport (WireReader, WriteBuffer, wb_init, wb_free, wb_take, wb_ensure,
                       wb_varint, wb_open, wb_close, wb_bytes)

from .errors import JellyDecodeError, RdfSyntaxError

# Field kinds.
cdef enum:
    T_MSG = 1
    T_STRING = 2
    T_BYTES = 3
    T_UINT = 4
    T_BOOL = 5
    T_ENUM = 6

PHYSICAL = {0: "PHYSICAL_STREAM_TYPE_UNSPECIFIED", 1: "PHYSICAL_STREAM_TYPE_TRIPLES",
            2: "PHYSICAL_STREAM_TYPE_QUADS", 3: "PHYSICAL_STREAM_TYPE_GRAPHS"}
LOGICAL = {0: "LOGICAL_STREAM_TYPE_UNSPECIFIED", 1: "LOGICAL_STREAM_TYPE_FLAT_TRIPLES",
           2: "LOGICAL_STREAM_TYPE_FLAT_QUADS", 3: "LOGICAL_STREAM_TYPE_GRAPHS",
           4: "LOGICAL_STREAM_TYPE_DATASETS", 13: "LOGICAL_STREAM_TYPE_SUBJECT_GRAPHS",
           14: "LOGICAL_STREAM_TYPE_NAMED_GRAPHS",
           114: "LOGICAL_STREAM_TYPE_TIMESTAMPED_NAMED_GRAPHS"}


def _terms(prefix, first):
    return {first: (f"{prefix}_iri", T_MSG, "RdfIri"), first + 1: (f"{prefix}_bnode", T_STRING, None),
            first + 2: (f"{prefix}_literal", T_MSG, "RdfLiteral"),
            first + 3: (f"{prefix}_triple_term", T_MSG, "RdfTriple")}


_ENTRY = {1: ("id", T_UINT, None), 2: ("value", T_STRING, None)}
_GRAPH = {1: ("g_iri", T_MSG, "RdfIri"), 2: ("g_bnode", T_STRING, None),
          3: ("g_default_graph", T_MSG, "RdfDefaultGraph"), 4: ("g_literal", T_MSG, "RdfLiteral")}

#: The messages of rdf.proto: field number -> (name, kind, message type or enum table).
SCHEMA = {
    "RdfStreamFrame": {1: ("rows", T_MSG, "RdfStreamRow"),
                       15: ("metadata", T_MSG, "MetadataEntry")},
    "MetadataEntry": {1: ("key", T_STRING, None), 2: ("value", T_BYTES, None)},
    "RdfStreamRow": {1: ("options", T_MSG, "RdfStreamOptions"), 2: ("triple", T_MSG, "RdfTriple"),
                     3: ("quad", T_MSG, "RdfQuad"), 4: ("graph_start", T_MSG, "RdfGraphStart"),
                     5: ("graph_end", T_MSG, "RdfGraphEnd"),
                     6: ("namespace", T_MSG, "RdfNamespaceDeclaration"),
                     9: ("name", T_MSG, "RdfNameEntry"), 10: ("prefix", T_MSG, "RdfPrefixEntry"),
                     11: ("datatype", T_MSG, "RdfDatatypeEntry")},
    "RdfStreamOptions": {1: ("stream_name", T_STRING, None),
                         2: ("physical_type", T_ENUM, PHYSICAL),
                         3: ("generalized_statements", T_BOOL, None),
                         4: ("rdf_star", T_BOOL, None),
                         9: ("max_name_table_size", T_UINT, None),
                         10: ("max_prefix_table_size", T_UINT, None),
                         11: ("max_datatype_table_size", T_UINT, None),
                         14: ("logical_type", T_ENUM, LOGICAL), 15: ("version", T_UINT, None)},
    "RdfTriple": {**_terms("s", 1), **_terms("p", 5), **_terms("o", 9)},
    "RdfQuad": {**_terms("s", 1), **_terms("p", 5), **_terms("o", 9),
                **{k + 12: v for k, v in _GRAPH.items()}},
    "RdfGraphStart": _GRAPH,
    "RdfGraphEnd": {},
    "RdfDefaultGraph": {},
    "RdfIri": {1: ("prefix_id", T_UINT, None), 2: ("name_id", T_UINT, None)},
    "RdfLiteral": {1: ("lex", T_STRING, None), 2: ("langtag", T_STRING, None),
                   3: ("datatype", T_UINT, None)},
    "RdfNamespaceDeclaration": {1: ("name", T_STRING, None), 2: ("value", T_MSG, "RdfIri")},
    "RdfNameEntry": _ENTRY,
    "RdfPrefixEntry": _ENTRY,
    "RdfDatatypeEntry": _ENTRY,
}
#: Field names to numbers, per message.
_NUMBERS = {m: {spec[0]: (n, spec) for n, spec in fields.items()} for m, fields in SCHEMA.items()}
#: A line that opens a frame.
FRAME_MARK = re.compile(r"#\s*Frame\b")

cdef dict _WIRE_OF = {T_MSG: WT_LEN, T_STRING: WT_LEN, T_BYTES: WT_LEN, T_UINT: WT_VARINT,
                      T_BOOL: WT_VARINT, T_ENUM: WT_VARINT}
_ESCAPES = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x22: '\\"', 0x27: "\\'", 0x5C: "\\\\"}


cdef str _quote_bytes(const unsigned char* p, Py_ssize_t n):
    """Printable ASCII as is, the rest as C escapes."""
    cdef Py_ssize_t i
    cdef unsigned char c
    out = []
    for i in range(n):
        c = p[i]
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif 0x20 <= c < 0x7F:
            out.append(chr(c))
        else:
            out.append(f"\\{c:03o}")
    return '"' + "".join(out) + '"'


cdef str _quote_str(str s):
    """A string as UTF-8 text, with C escapes for quotes, backslashes and control characters."""
    out = []
    for ch in s:
        c = ord(ch)
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif c < 0x20 or c == 0x7F:
            out.append(f"\\{c:03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


cdef class _Printer(WireReader):
    """Prints the fields of one frame as text, by the schema, in wire order."""

    cdef list out

    def __init__(self, Py_ssize_t frame_index, Py_ssize_t offset):
        WireReader.__init__(self)
        self.out = []
        self.frame_index = frame_index
        self.base_offset = offset

    cdef int message(self, str mtype, const unsigned char* p, const unsigned char* end,
                     int depth) except -1:
        cdef uint64_t tag, v, fixed
        cdef const unsigned char* q
        cdef int wt, kind, n
        cdef Py_ssize_t i
        fields = SCHEMA.get(mtype) if mtype is not None else None
        indent = "  " * depth
        if depth > self.max_nesting:
            self.fail(p, "messages nested too deeply")
        while p < end:
            q = self.tag(p, end, &tag)
            number = tag >> 3
            wt = tag & 7
            spec = fields.get(number) if fields is not None else None
            if depth == 0 and number == 1:
                self.row_index += 1
            if spec is not None and _WIRE_OF[spec[1]] == wt:
                name, kind, sub = spec
                if wt == WT_VARINT:
                    p = self.varint(q, end, &v)
                    if kind == T_BOOL and v <= 1:
                        value = "true" if v else "false"
                    elif kind == T_ENUM and v in sub:
                        value = sub[v]
                    else:
                        value = str(v)
                    self.out.append(f"{indent}{name}: {value}\n")
                    continue
                p = self.length(q, end, &v)
                if kind == T_MSG:
                    self.out.append(f"{indent}{name} {{\n")
                    self.message(sub, p, p + v, depth + 1)
                    self.out.append(f"{indent}}}\n")
                elif kind == T_STRING:
                    try:
                        text = _quote_str((<bytes>p[:v]).decode("utf-8"))
                    except UnicodeDecodeError:     # shown exactly, byte by byte
                        text = _quote_bytes(p, v)
                    self.out.append(f"{indent}{name}: {text}\n")
                else:
                    self.out.append(f"{indent}{name}: {_quote_bytes(p, v)}\n")
                p = p + v
            elif wt == WT_VARINT:
                p = self.varint(q, end, &v)
                self.out.append(f"{indent}{number}: {v}\n")
            elif wt == WT_LEN:
                p = self.length(q, end, &v)
                self.out.append(f"{indent}{number}: {_quote_bytes(p, v)}\n")
                p = p + v
            elif wt == WT_I32 or wt == WT_I64:
                n = 4 if wt == WT_I32 else 8
                if end - q < n:
                    self.malformed(q, "truncated fixed-size field")
                fixed = 0
                for i in range(n):
                    fixed |= (<uint64_t>q[i]) << (8 * i)
                self.out.append(f"{indent}{number}: 0x{fixed:0{2 * n}x}\n")
                p = q + n
            else:
                self.fail(p, f"field {number} is a group, which Jelly-Text cannot show")
        return 0


def frame_to_text(data, Py_ssize_t index=0, Py_ssize_t offset=0):
    """The Jelly-Text of one frame (the bytes of an ``RdfStreamFrame``, without a length
    prefix), opened by its ``# Frame index`` line.  ``offset`` (the frame's position in the
    stream) locates errors: a frame that is not well-formed protobuf raises
    :class:`JellyDecodeError`."""
    cdef bytes b = bytes(data)
    cdef _Printer printer = _Printer(index, offset)
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(b)
    printer.base = p
    printer.row_index = -1
    printer.message("RdfStreamFrame", p, p + PyBytes_GET_SIZE(b), 0)
    return f"# Frame {index}\n" + "".join(printer.out)


# ------------------------------------------------------------------------------- parsing

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n,;]+)
  | (?P<comment>\#[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>-?(?:0[xX][0-9a-fA-F]+|[0-9]+))
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[{}<>:])
""", re.X)
_UNESCAPE = re.compile(r"""\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))""",
                       re.S)
_SIMPLE = {"n": b"\n", "r": b"\r", "t": b"\t", "a": b"\a", "b": b"\b", "f": b"\f", "v": b"\v",
           "\\": b"\\", "'": b"'", '"': b'"', "?": b"?"}


def _integer(str text):
    """A protobuf text format integer: decimal, 0x hex or 0-prefixed octal."""
    if text[:2] in ("0x", "0X"):
        return int(text, 16)
    if len(text) > 1 and text[0] == "0":
        return int(text, 8)
    return int(text)


cdef class _TextParser:
    """Writes the fields of one frame's text into a buffer."""

    cdef WriteBuffer buf
    cdef list tokens
    cdef Py_ssize_t pos
    cdef str text
    cdef Py_ssize_t first_line

    def __cinit__(self):
        wb_init(&self.buf, 256)

    def __dealloc__(self):
        wb_free(&self.buf)

    def __init__(self, str text, Py_ssize_t first_line):
        self.text = text
        self.first_line = first_line
        self.tokens = []
        self.pos = 0
        at = 0
        n = len(text)
        while at < n:
            m = _TOKEN.match(text, at)
            if m is None:
                self.error(at, f"unexpected character {text[at]!r}")
            kind = m.lastgroup
            if kind != "space" and kind != "comment":
                self.tokens.append((kind, m.group(), at))
            at = m.end()

    cdef error(self, Py_ssize_t at, str message):
        line = self.text.count("\n", 0, at) + self.first_line
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        raise RdfSyntaxError(f"{message} at column {column} (Jelly-Text)", line=line)

    cdef tuple next(self, str what):
        if self.pos >= len(self.tokens):
            self.error(len(self.text), f"expected {what}, found the end of the frame")
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    cdef bytes string_value(self):
        """One or more adjacent string literals, unescaped."""
        parts = []
        kind, text, at = self.next("a string")
        if kind != "string":
            self.error(at, f"expected a string, found {text!r}")
        while True:
            parts.append(self.unescape(text[1:len(text) - 1], at))
            if self.pos < len(self.tokens) and self.tokens[self.pos][0] == "string":
                kind, text, at = self.next("a string")
            else:
                return b"".join(parts)

    cdef bytes unescape(self, str body, Py_ssize_t at):
        out = []
        last = 0
        for m in _UNESCAPE.finditer(body):
            out.append(body[last:m.start()].encode("utf-8"))
            last = m.end()
            octal, hexa, u4, u8, simple = m.groups()
            if octal is not None:
                value = int(octal, 8)
                if value > 255:
                    self.error(at, f"octal escape \\{octal} is above 255")
                out.append(bytes((value,)))
            elif hexa is not None:
                out.append(bytes((int(hexa, 16),)))
            elif u4 is not None or u8 is not None:
                try:
                    out.append(chr(int(u4 or u8, 16)).encode("utf-8"))
                except (ValueError, UnicodeEncodeError):
                    self.error(at, f"\\u escape {m.group()} is not a Unicode scalar value")
            elif simple in _SIMPLE:
                out.append(_SIMPLE[simple])
            else:
                self.error(at, f"unknown escape \\{simple}")
        out.append(body[last:].encode("utf-8"))
        return b"".join(out)

    cdef uint64_t number_value(self, uint64_t limit):
        kind, text, at = self.next("a number")
        if kind != "number" or text.startswith("-"):
            self.error(at, f"expected an unsigned number, found {text!r}")
        try:
            value = _integer(text)
        except ValueError:
            self.error(at, f"{text!r} is not a number")
        if value > limit:
            self.error(at, f"{text} is out of range")
        return value

    cdef int message(self, str mtype, str closing) except -1:
        cdef uint64_t v = 0
        cdef Py_ssize_t mark
        cdef bytes data
        numbers = _NUMBERS.get(mtype) if mtype is not None else None
        while True:
            if self.pos >= len(self.tokens):
                if closing:
                    self.error(len(self.text), f"expected {closing!r}, found the end of the frame")
                return 0
            kind, text, at = self.next("a field")
            if kind == "punct" and text == closing:
                return 0
            if kind == "name":
                entry = numbers.get(text) if numbers is not None else None
                if entry is None:
                    self.error(at, f"{mtype or 'this message'} has no field {text!r}")
                number, (_, ftype, sub) = entry
            elif kind == "number" and not text.startswith("-"):
                try:
                    number, ftype, sub = _integer(text), 0, None
                except ValueError:
                    self.error(at, f"{text!r} is not a field number")
                if number < 1 or number > 0x1FFFFFFF:
                    self.error(at, f"field number {text} is out of range")
            else:
                self.error(at, f"expected a field name, found {text!r}")
            has_colon = self.pos < len(self.tokens) and self.tokens[self.pos][:2] == ("punct", ":")
            if has_colon:
                self.pos += 1
            peek = self.tokens[self.pos] if self.pos < len(self.tokens) else ("", "", len(self.text))
            if peek[0] == "punct" and peek[1] in "{<":
                if ftype not in (0, T_MSG):
                    self.error(peek[2], f"field {text!r} is not a message")
                self.pos += 1
                wb_ensure(&self.buf, 11)
                wb_varint(&self.buf, (number << 3) | WT_LEN)
                mark = wb_open(&self.buf)
                self.message(sub, "}" if peek[1] == "{" else ">")
                wb_close(&self.buf, mark)
                continue
            if not has_colon:
                self.error(peek[2], f"expected ':' after {text!r}")
            if ftype == T_MSG:
                self.error(peek[2], f"field {text!r} is a message: write {text} {{ ... }}")
            if ftype in (T_STRING, T_BYTES) or (ftype == 0 and peek[0] == "string"):
                data = self.string_value()
                wb_ensure(&self.buf, 20)
                wb_varint(&self.buf, (number << 3) | WT_LEN)
                wb_varint(&self.buf, len(data))
                wb_bytes(&self.buf, data, len(data))
            elif ftype == T_BOOL and peek[0] == "name":
                self.pos += 1
                if peek[1] in ("true", "True", "t"):
                    v = 1
                elif peek[1] in ("false", "False", "f"):
                    v = 0
                else:
                    self.error(peek[2], f"expected true or false, found {peek[1]!r}")
                self.varint_field(number, v)
            elif ftype == T_ENUM and peek[0] == "name":
                self.pos += 1
                found = [k for k, name in sub.items() if name == peek[1]]
                if not found:
                    self.error(peek[2], f"unknown value {peek[1]!r} of {text!r}; use "
                                        f"{', '.join(sub.values())} or a number")
                self.varint_field(number, found[0])
            elif ftype == 0 and peek[0] == "number" and peek[1][:2].lower() == "0x" and \
                    len(peek[1]) in (10, 18):
                self.pos += 1
                self.fixed_field(number, int(peek[1], 16), (len(peek[1]) - 2) // 2)
            else:
                self.varint_field(number, self.number_value(
                    0xFFFFFFFF if ftype == T_UINT or ftype == T_ENUM else 0xFFFFFFFFFFFFFFFF))

    cdef int varint_field(self, uint64_t number, uint64_t v) except -1:
        wb_ensure(&self.buf, 20)
        wb_varint(&self.buf, (number << 3) | WT_VARINT)
        wb_varint(&self.buf, v)
        return 0

    cdef int fixed_field(self, uint64_t number, uint64_t v, int n) except -1:
        cdef int i
        wb_ensure(&self.buf, 10 + n)
        wb_varint(&self.buf, (number << 3) | (WT_I32 if n == 4 else WT_I64))
        for i in range(n):
            self.buf.data[self.buf.len] = (v >> (8 * i)) & 0xFF
            self.buf.len += 1
        return 0

    cdef bytes frame(self, bint delimited):
        self.message("RdfStreamFrame", "")
        return wb_take(&self.buf, delimited)


def text_to_frame(str text, Py_ssize_t first_line=1, bint delimited=False):
    """The bytes of the ``RdfStreamFrame`` that ``text`` (one frame of Jelly-Text) spells,
    after its length as a varint when ``delimited``.  Raises :class:`RdfSyntaxError` with the
    line (counted from ``first_line``) and column."""
    return _TextParser(text, first_line).frame(delimited)


def split_frames(lines):
    """Group the lines of a Jelly-Text document into frames: yields ``(first line number,
    text)``, a new frame at each line that starts with ``# Frame``; text before the first such
    line is a frame of its own unless it holds only blank lines and comments."""
    chunk = []
    start = 1
    number = 0
    marked = False
    for line in lines:
        number += 1
        if FRAME_MARK.match(line):
            if marked or any(_has_content(c) for c in chunk):
                yield start, "".join(chunk)
            chunk = []
            start = number + 1
            marked = True
            continue
        chunk.append(line)
    if marked or any(_has_content(c) for c in chunk):
        yield start, "".join(chunk)


cdef bint _has_content(str line):
    s = line.strip()
    return bool(s) and not s.startswith("#")
