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
from libc.stdlib cimport free, realloc
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE

from ._wire cimport WT_VARINT, WT_I64, WT_LEN, WT_I32
from ._buffer cimport (WireReader, WriteBuffer, wb_init, wb_free, wb_take, wb_ensure, wb_byte,
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
#: Field names (UTF-8, as the parser scans them) to numbers, per message.
_NUMBERS = {m: {spec[0].encode(): (n, spec) for n, spec in fields.items()}
            for m, fields in SCHEMA.items()}
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

# The parser scans the frame's UTF-8 bytes into a table of tokens (kind, start, end) first, as
# a tokenizer would, so an unexpected character anywhere is the error before any other; then
# it writes the fields straight from the bytes (strings unescaped into the buffer).

cdef enum:
    K_STRING = 1
    K_NUMBER = 2
    K_NAME = 3
    K_PUNCT = 4

#: Simple escapes: the character after the backslash -> the byte it stands for.
cdef dict _SIMPLE = {ord("n"): 0x0A, ord("r"): 0x0D, ord("t"): 0x09, ord("a"): 0x07,
                     ord("b"): 0x08, ord("f"): 0x0C, ord("v"): 0x0B, ord("\\"): 0x5C,
                     ord("'"): 0x27, ord('"'): 0x22, ord("?"): 0x3F}


cdef inline bint _is_space(unsigned char c) noexcept:
    return c == 0x20 or c == 0x09 or c == 0x0D or c == 0x0A or c == 0x2C or c == 0x3B


cdef inline bint _is_digit(unsigned char c) noexcept:
    return 0x30 <= c <= 0x39


cdef inline int _hex(unsigned char c) noexcept:
    if 0x30 <= c <= 0x39:
        return c - 0x30
    if 0x61 <= c <= 0x66:
        return c - 0x61 + 10
    if 0x41 <= c <= 0x46:
        return c - 0x41 + 10
    return -1


cdef inline bint _is_name_start(unsigned char c) noexcept:
    return (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A) or c == 0x5F


cdef class _TextParser:
    """Writes the fields of one frame's text into a buffer."""

    cdef WriteBuffer buf
    cdef bytes data
    cdef const unsigned char* p
    cdef Py_ssize_t n
    cdef Py_ssize_t first_line
    # the tokens: kind, start and end (byte offsets)
    cdef int* kinds
    cdef Py_ssize_t* starts
    cdef Py_ssize_t* ends
    cdef Py_ssize_t count
    cdef Py_ssize_t cap
    cdef Py_ssize_t pos

    def __cinit__(self):
        wb_init(&self.buf, 256)
        self.kinds = NULL
        self.starts = NULL
        self.ends = NULL

    def __dealloc__(self):
        wb_free(&self.buf)
        free(self.kinds)
        free(self.starts)
        free(self.ends)

    def __init__(self, bytes data, Py_ssize_t first_line):
        self.first_line = first_line
        self.data = data
        self.p = <const unsigned char*>PyBytes_AS_STRING(self.data)
        self.n = PyBytes_GET_SIZE(self.data)
        self.count = 0
        self.pos = 0
        self.scan()

    cdef int push(self, int kind, Py_ssize_t start, Py_ssize_t end) except -1:
        cdef Py_ssize_t cap
        if self.count == self.cap:
            cap = self.cap * 2 if self.cap else 256
            self.kinds = <int*>_grown(self.kinds, cap * sizeof(int))
            self.starts = <Py_ssize_t*>_grown(self.starts, cap * sizeof(Py_ssize_t))
            self.ends = <Py_ssize_t*>_grown(self.ends, cap * sizeof(Py_ssize_t))
            self.cap = cap
        self.kinds[self.count] = kind
        self.starts[self.count] = start
        self.ends[self.count] = end
        self.count += 1
        return 0

    cdef int scan(self) except -1:
        """The tokens of the text: strings (either quote, no line break inside, a backslash
        escaping the next character), numbers (``-``, ``0x`` hex or decimal digits), names,
        ``{}<>:``; spaces, ``,``, ``;`` and ``#`` comments between them."""
        cdef const unsigned char* p = self.p
        cdef Py_ssize_t n = self.n, at = 0, i
        cdef unsigned char c, quote
        while at < n:
            c = p[at]
            if _is_space(c):
                at += 1
            elif c == 0x23:                             # '#': to the end of the line
                while at < n and p[at] != 0x0A:
                    at += 1
            elif c == 0x22 or c == 0x27:                # a string
                quote, i = c, at + 1
                while i < n and p[i] != quote and p[i] != 0x0A:
                    if p[i] == 0x5C:                    # a backslash and what it escapes
                        if i + 1 >= n or p[i + 1] == 0x0A:
                            break
                        i += 1
                    i += 1
                if i >= n or p[i] != quote:
                    self.error(at, f"unexpected character {chr(c)!r}")
                self.push(K_STRING, at, i + 1)
                at = i + 1
            elif _is_digit(c) or (c == 0x2D and at + 1 < n and _is_digit(p[at + 1])):
                i = at + 1 if c == 0x2D else at
                if p[i] == 0x30 and i + 2 < n and (p[i + 1] | 0x20) == 0x78 \
                        and _hex(p[i + 2]) >= 0:
                    i += 2
                    while i < n and _hex(p[i]) >= 0:
                        i += 1
                else:
                    while i < n and _is_digit(p[i]):
                        i += 1
                self.push(K_NUMBER, at, i)
                at = i
            elif _is_name_start(c):
                i = at + 1
                while i < n and (_is_name_start(p[i]) or _is_digit(p[i])):
                    i += 1
                self.push(K_NAME, at, i)
                at = i
            elif c == 0x7B or c == 0x7D or c == 0x3C or c == 0x3E or c == 0x3A:
                self.push(K_PUNCT, at, at + 1)
                at += 1
            else:
                self.error(at, f"unexpected character {self.char_at(at)!r}")
        return 0

    cdef str char_at(self, Py_ssize_t at):
        """The character that starts at byte ``at``."""
        cdef Py_ssize_t end = at + 1
        while end < self.n and (self.p[end] & 0xC0) == 0x80:
            end += 1
        return self.data[at:end].decode("utf-8", "surrogatepass")

    cdef str token(self, Py_ssize_t k):
        return self.data[self.starts[k]:self.ends[k]].decode("utf-8", "surrogatepass")

    cdef error(self, Py_ssize_t at, str message):
        line_start = self.data.rfind(b"\n", 0, at) + 1
        line = self.data.count(b"\n", 0, at) + self.first_line
        column = len(self.data[line_start:at].decode("utf-8", "surrogatepass")) + 1
        raise RdfSyntaxError(f"{message} at column {column} (Jelly-Text)", line=line)

    cdef Py_ssize_t next(self, str what) except -1:
        """The index of the next token (consumed)."""
        if self.pos >= self.count:
            self.error(self.n, f"expected {what}, found the end of the frame")
        self.pos += 1
        return self.pos - 1

    cdef inline bint is_punct(self, Py_ssize_t k, unsigned char c) noexcept:
        return k < self.count and self.kinds[k] == K_PUNCT and self.p[self.starts[k]] == c

    cdef int string_value(self) except -1:
        """One or more adjacent string literals, unescaped into the buffer after their length."""
        cdef Py_ssize_t k = self.next("a string")
        cdef Py_ssize_t mark
        if self.kinds[k] != K_STRING:
            self.error(self.starts[k], f"expected a string, found {self.token(k)!r}")
        mark = wb_open(&self.buf)
        while True:
            self.unescape(self.starts[k] + 1, self.ends[k] - 1)
            if self.pos < self.count and self.kinds[self.pos] == K_STRING:
                k = self.next("a string")
            else:
                break
        wb_close(&self.buf, mark)
        return 0

    cdef int unescape(self, Py_ssize_t i, Py_ssize_t end) except -1:
        """The bytes of a string's body ``[i, end)`` with its escapes (octal, ``\\x`` hex,
        ``\\u`` and ``\\U``, simple ones) written into the buffer."""
        cdef const unsigned char* p = self.p
        cdef Py_ssize_t at = i - 1, run
        cdef unsigned char c
        cdef uint64_t v
        cdef int digits, d, width
        wb_ensure(&self.buf, end - i)
        while i < end:
            run = i
            while i < end and p[i] != 0x5C:
                i += 1
            if i > run:
                wb_bytes(&self.buf, <const char*>p + run, i - run)
            if i >= end:
                break
            c = p[i + 1]                                # the character after the backslash
            if 0x30 <= c <= 0x37:                       # octal: up to three digits
                v, digits, i = 0, 0, i + 1
                while digits < 3 and i < end and 0x30 <= p[i] <= 0x37:
                    v = v * 8 + (p[i] - 0x30)
                    digits += 1
                    i += 1
                if v > 255:
                    self.error(at, f"octal escape \\{self.data[i - digits:i].decode()} is above "
                                   f"255")
                wb_ensure(&self.buf, 1)
                wb_byte(&self.buf, <unsigned char>v)
            elif c == 0x78 and i + 2 < end and _hex(p[i + 2]) >= 0:    # \x: one or two
                v, i = _hex(p[i + 2]), i + 3
                if i < end and _hex(p[i]) >= 0:
                    v, i = v * 16 + _hex(p[i]), i + 1
                wb_ensure(&self.buf, 1)
                wb_byte(&self.buf, <unsigned char>v)
            elif (c == 0x75 or c == 0x55) and self.hex_run(i + 2, end, 4 if c == 0x75 else 8):
                width = 4 if c == 0x75 else 8
                v = 0
                for d in range(width):
                    v = v * 16 + _hex(p[i + 2 + d])
                if v > 0x10FFFF or 0xD800 <= v <= 0xDFFF:
                    self.error(at, f"\\u escape {self.data[i:i + 2 + width].decode()} is not a "
                                   f"Unicode scalar value")
                encoded = chr(v).encode("utf-8")
                wb_bytes(&self.buf, PyBytes_AS_STRING(encoded), PyBytes_GET_SIZE(encoded))
                i += 2 + width
            elif c in _SIMPLE:
                wb_ensure(&self.buf, 1)
                wb_byte(&self.buf, <unsigned char>_SIMPLE[c])
                i += 2
            else:
                self.error(at, f"unknown escape \\{self.char_at(i + 1)}")
        return 0

    cdef bint hex_run(self, Py_ssize_t i, Py_ssize_t end, int width) noexcept:
        cdef int d
        if i + width > end:
            return False
        for d in range(width):
            if _hex(self.p[i + d]) < 0:
                return False
        return True

    cdef int integer(self, Py_ssize_t k, uint64_t* out) except -1:
        """The value of the number token ``k`` (decimal, ``0x`` hex, or octal after a leading
        ``0``): 0 if it is one, 1 if it is above 2**64 - 1, 2 if it is not a number (an octal
        with 8 or 9).  A sign is the caller's to refuse."""
        cdef const unsigned char* p = self.p
        cdef Py_ssize_t i = self.starts[k], end = self.ends[k]
        cdef uint64_t v = 0
        cdef int base = 10, d
        if p[i] == 0x2D:
            i += 1
        if end - i > 2 and p[i] == 0x30 and (p[i + 1] | 0x20) == 0x78:
            base, i = 16, i + 2
        elif end - i > 1 and p[i] == 0x30:
            base, i = 8, i + 1
        while i < end:
            d = _hex(p[i])
            if d >= base:
                return 2
            if v > (0xFFFFFFFFFFFFFFFF - <uint64_t>d) // <uint64_t>base:
                return 1
            v = v * base + d
            i += 1
        out[0] = v
        return 0

    cdef uint64_t number_value(self, uint64_t limit) except? 0xFFFFFFFFFFFFFFFF:
        cdef Py_ssize_t k = self.next("a number")
        cdef uint64_t value = 0
        cdef int got
        if self.kinds[k] != K_NUMBER or self.p[self.starts[k]] == 0x2D:
            self.error(self.starts[k], f"expected an unsigned number, found {self.token(k)!r}")
        got = self.integer(k, &value)
        if got == 2:
            self.error(self.starts[k], f"{self.token(k)!r} is not a number")
        if got == 1 or value > limit:
            self.error(self.starts[k], f"{self.token(k)} is out of range")
        return value

    cdef int message(self, str mtype, int closing) except -1:
        """The fields of a message up to its ``closing`` character (0: the end of the text)."""
        cdef uint64_t v = 0, number = 0
        cdef Py_ssize_t mark, k, peek, at
        cdef int got, ftype = 0
        cdef bint has_colon
        names = _NUMBERS.get(mtype) if mtype is not None else None
        while True:
            if self.pos >= self.count:
                if closing:
                    self.error(self.n, f"expected {chr(closing)!r}, found the end of the frame")
                return 0
            k = self.next("a field")
            at = self.starts[k]
            if closing and self.is_punct(k, closing):
                return 0
            if self.kinds[k] == K_NAME:
                entry = names.get(self.data[at:self.ends[k]]) if names is not None else None
                if entry is None:
                    self.error(at, f"{mtype or 'this message'} has no field {self.token(k)!r}")
                number, (_, ftype, sub) = entry
            elif self.kinds[k] == K_NUMBER and self.p[at] != 0x2D:
                got = self.integer(k, &number)
                if got == 2:
                    self.error(at, f"{self.token(k)!r} is not a field number")
                if got == 1 or number < 1 or number > 0x1FFFFFFF:
                    self.error(at, f"field number {self.token(k)} is out of range")
                ftype, sub = 0, None
            else:
                self.error(at, f"expected a field name, found {self.token(k)!r}")
            has_colon = self.is_punct(self.pos, 0x3A)
            if has_colon:
                self.pos += 1
            peek = self.pos
            if self.is_punct(peek, 0x7B) or self.is_punct(peek, 0x3C):
                if ftype != 0 and ftype != T_MSG:
                    self.error(self.starts[peek], f"field {self.token(k)!r} is not a message")
                self.pos += 1
                wb_ensure(&self.buf, 11)
                wb_varint(&self.buf, (number << 3) | WT_LEN)
                mark = wb_open(&self.buf)
                self.message(sub, 0x7D if self.p[self.starts[peek]] == 0x7B else 0x3E)
                wb_close(&self.buf, mark)
                continue
            at = self.starts[peek] if peek < self.count else self.n
            if not has_colon:
                self.error(at, f"expected ':' after {self.token(k)!r}")
            if ftype == T_MSG:
                name = self.token(k)
                self.error(at, f"field {name!r} is a message: write {name} {{ ... }}")
            if ftype == T_STRING or ftype == T_BYTES or \
                    (ftype == 0 and peek < self.count and self.kinds[peek] == K_STRING):
                wb_ensure(&self.buf, 10)
                wb_varint(&self.buf, (number << 3) | WT_LEN)
                self.string_value()
            elif ftype == T_BOOL and peek < self.count and self.kinds[peek] == K_NAME:
                self.pos += 1
                word = self.data[at:self.ends[peek]]
                if word in (b"true", b"True", b"t"):
                    v = 1
                elif word in (b"false", b"False", b"f"):
                    v = 0
                else:
                    self.error(at, f"expected true or false, found {self.token(peek)!r}")
                self.varint_field(number, v)
            elif ftype == T_ENUM and peek < self.count and self.kinds[peek] == K_NAME:
                self.pos += 1
                word = self.token(peek)
                value = next((k for k, name in sub.items() if name == word), None)
                if value is None:
                    self.error(at, f"unknown value {self.token(peek)!r} of {self.token(k)!r}; "
                                   f"use {', '.join(sub.values())} or a number")
                self.varint_field(number, value)
            elif ftype == 0 and peek < self.count and self.kinds[peek] == K_NUMBER \
                    and self.ends[peek] - at in (10, 18) and self.p[at] == 0x30 \
                    and (self.p[at + 1] | 0x20) == 0x78:
                self.pos += 1
                self.integer(peek, &v)
                self.fixed_field(number, v, (self.ends[peek] - at - 2) // 2)
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
        self.message("RdfStreamFrame", 0)
        return wb_take(&self.buf, delimited)


cdef void* _grown(void* block, size_t size) except NULL:
    cdef void* grown = realloc(block, size)
    if grown == NULL:
        raise MemoryError()
    return grown


def text_to_frame(text, Py_ssize_t first_line=1, bint delimited=False):
    """The bytes of the ``RdfStreamFrame`` that ``text`` (one frame of Jelly-Text: a ``str``,
    or its UTF-8 bytes) spells, after its length as a varint when ``delimited``.  Raises
    :class:`RdfSyntaxError` with the line (counted from ``first_line``) and column."""
    cdef bytes data
    if isinstance(text, str):
        data = (<str>text).encode("utf-8", "surrogatepass")
    else:
        data = bytes(text)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RdfSyntaxError(f"Jelly-Text must be UTF-8: {exc.reason}",
                                 line=first_line + data.count(b"\n", 0, exc.start)) from None
    return _TextParser(data, first_line).frame(delimited)


def split_frames(read, Py_ssize_t block=1 << 20):
    """The frames of a Jelly-Text document that ``read(n)`` gives as UTF-8 bytes: yields
    ``(first line number, bytes)``, a new frame at each line that starts with ``# Frame``;
    text before the first such line is a frame of its own unless it holds only blank lines
    and comments.  Lines end at ``\\n``, as for the parser.  Only the frame being read is
    held, and the line of a mark is the only text looked at by more than ``bytes.find``."""
    cdef bytes buf = b""            # complete lines not yet given out, then a partial one
    cdef list pending = []          # blocks of a line longer than a block (joined once)
    cdef list parts = []            # the current frame's text so far
    cdef Py_ssize_t line = 1        # the number of buf's first line
    cdef Py_ssize_t start = 1       # the number of the current frame's first line
    cdef Py_ssize_t end, at, taken, line_end
    cdef bint marked = False
    cdef bytes data
    while True:
        data = read(block)
        if data and data.rfind(b"\n") < 0:
            pending.append(data)
            continue
        if pending:
            buf += b"".join(pending)
            pending = []
        buf += data
        end = buf.rfind(b"\n") + 1 if data else len(buf)
        taken = 0
        at = 0 if buf[:1] == b"#" else _after(buf.find(b"\n#", 0, end))
        while 0 <= at < end:
            line_end = buf.find(b"\n", at, end) + 1
            if line_end == 0:
                line_end = end
            if _is_mark(buf[at:line_end]):
                parts.append(buf[taken:at])
                if marked or _has_content(parts):
                    yield start, b"".join(parts)
                line += buf.count(b"\n", taken, at)
                start = line + 1            # the frame's text starts on the mark's next line
                line += buf.count(b"\n", at, line_end)
                parts = []
                taken = line_end
                marked = True
            at = _after(buf.find(b"\n#", line_end - 1, end))
        line += buf.count(b"\n", taken, end)
        parts.append(buf[taken:end])
        buf = buf[end:]
        if not data:
            break
    if marked or _has_content(parts):
        yield start, b"".join(parts)


cdef inline Py_ssize_t _after(Py_ssize_t found) noexcept:
    return -1 if found < 0 else found + 1


cdef bint _is_mark(bytes line):
    try:
        return FRAME_MARK.match(line.decode("utf-8")) is not None
    except UnicodeDecodeError:
        return False


cdef bint _has_content(list parts):
    """Whether text holds anything but blank lines and comments (looked at only before the
    first mark, and only up to the first such line)."""
    for part in parts:
        for line in (<bytes>part).decode("utf-8", "replace").split("\n"):
            s = line.strip()
            if s and not s.startswith("#"):
                return True
    return False
