"""An N-Triples / N-Quads reader and writer on neutral terms (independent of
``jelly._ntriples``; RDF-star and generalized terms), written from the W3C grammars.

* :func:`parse_nquads` - text to statement tuples (3 or 4 terms); ``# @message`` lines give
  :data:`MESSAGE` with ``messages=True``, and :func:`split_messages` groups by them;
* :func:`term_to_nt` / :func:`stmt_to_nt` - neutral terms back to text (for test inputs and
  readable failure messages); :func:`nt_representable` - whether N-Triples can spell a term.
"""

from __future__ import annotations

import re

from .terms import XSD_STRING, nq_shape

MESSAGE = object()   # yielded at "# @message" lines


class NTSyntaxError(ValueError):
    pass


# LANG_DIR of RDF 1.2 (a base direction after '--'); RDF 1.1's LANGTAG without it
_LANGTAG = re.compile(r"[a-zA-Z]+(?:-[a-zA-Z0-9]+)*(?:--(?:ltr|rtl))?")
_PN_BASE_RANGES = ((0x41, 0x5A), (0x61, 0x7A), (0xC0, 0xD6), (0xD8, 0xF6), (0xF8, 0x2FF),
                   (0x370, 0x37D), (0x37F, 0x1FFF), (0x200C, 0x200D), (0x2070, 0x218F),
                   (0x2C00, 0x2FEF), (0x3001, 0xD7FF), (0xF900, 0xFDCF), (0xFDF0, 0xFFFD),
                   (0x10000, 0xEFFFF))


def _pn_chars_u(c: str) -> bool:
    """N-Triples PN_CHARS_U (PN_CHARS_BASE, '_' and ':')."""
    if c in "_:":
        return True
    o = ord(c)
    return any(a <= o <= b for a, b in _PN_BASE_RANGES)


def _pn_chars(c: str) -> bool:
    o = ord(c)
    return _pn_chars_u(c) or c == "-" or "0" <= c <= "9" or o == 0xB7 or \
        0x300 <= o <= 0x36F or 0x203F <= o <= 0x2040


def nt_representable(term) -> bool:
    """Can N-Triples / N-Quads write this term as it is (label and language tag)?"""
    k = term[0]
    if k == "B":
        label = term[1]
        return bool(label) and (_pn_chars_u(label[0]) or label[0].isdigit()) and \
            not label.endswith(".") and all(_pn_chars(c) or c == "." for c in label)
    if k == "L" and term[2] is not None:
        return _LANGTAG.fullmatch(term[2]) is not None
    if k == "T":
        return all(nt_representable(t) for t in term[1:])
    return True


_ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'",
          "\\": "\\"}
_WS = " \t"


class _NTLine:
    def __init__(self, text: str, lineno: int):
        self.s = text
        self.i = 0
        self.lineno = lineno

    def err(self, msg):
        raise NTSyntaxError(f"line {self.lineno}: {msg}: {self.s!r}")

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in _WS:
            self.i += 1

    def peek(self, k=1):
        return self.s[self.i:self.i + k]

    def uchar(self):
        c = self.s[self.i + 1] if self.i + 1 < len(self.s) else ""
        n = {"u": 4, "U": 8}.get(c)
        if n is None:
            self.err("bad escape")
        h = self.s[self.i + 2:self.i + 2 + n]
        if len(h) != n or any(ch not in "0123456789abcdefABCDEF" for ch in h):
            self.err("bad \\u escape")
        self.i += 2 + n
        return chr(int(h, 16))

    def iri(self):
        assert self.s[self.i] == "<"
        self.i += 1
        out = []
        while True:
            if self.i >= len(self.s):
                self.err("unterminated IRI")
            c = self.s[self.i]
            if c == ">":
                self.i += 1
                return ("I", "".join(out))
            if c == "\\":
                out.append(self.uchar())
                continue
            if c in ' <"{}|^`' or ord(c) <= 0x20:
                self.err(f"bad character {c!r} in IRI")
            out.append(c)
            self.i += 1

    def bnode(self):
        self.i += 2
        j = self.i
        while j < len(self.s) and (_pn_chars(self.s[j]) or self.s[j] == "."):
            j += 1
        label = self.s[self.i:j]
        while label.endswith("."):
            label = label[:-1]
        if not label or not (_pn_chars_u(label[0]) or label[0].isdigit()):
            self.err("bad blank node label")
        self.i += len(label)
        return ("B", label)

    def literal(self):
        self.i += 1
        out = []
        while True:
            if self.i >= len(self.s):
                self.err("unterminated literal")
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                break
            if c == "\\":
                n = self.s[self.i + 1] if self.i + 1 < len(self.s) else ""
                if n in _ECHAR:
                    out.append(_ECHAR[n])
                    self.i += 2
                else:
                    out.append(self.uchar())
                continue
            if c in "\n\r":
                self.err("newline in literal")
            out.append(c)
            self.i += 1
        lex = "".join(out)
        # white space may separate the string from its language tag or '^^' (they are
        # separate terminals of the grammar)
        j = self.i
        while j < len(self.s) and self.s[j] in _WS:
            j += 1
        if self.s[j:j + 1] == "@" or self.s[j:j + 2] == "^^":
            self.i = j
        if self.peek() == "@":
            m = _LANGTAG.match(self.s, self.i + 1)
            if not m:
                self.err("bad language tag")
            self.i = m.end()
            return ("L", lex, m.group(0), None)
        if self.peek(2) == "^^":
            self.i += 2
            self.ws()
            if self.peek() != "<":
                self.err("datatype must be an IRI")
            dt = self.iri()[1]
            return ("L", lex, None, None if dt == XSD_STRING else dt)
        return ("L", lex, None, None)

    def term(self):
        self.ws()
        c = self.peek()
        if self.peek(2) == "<<":
            # RDF-star << s p o >> and the RDF 1.2 triple term <<( s p o )>>: the same term
            paren = self.peek(3) == "<<("
            self.i += 3 if paren else 2
            s = self.term()
            p = self.term()
            o = self.term()
            self.ws()
            close = ")>>" if paren else ">>"
            if self.peek(len(close)) != close:
                self.err(f"expected {close}")
            self.i += len(close)
            return ("T", s, p, o)
        if c == "<":
            return self.iri()
        if self.peek(2) == "_:":
            return self.bnode()
        if c == '"':
            return self.literal()
        self.err("expected a term")

    def statement(self):
        terms = []
        while True:
            self.ws()
            if self.peek() == ".":
                self.i += 1
                break
            if self.i >= len(self.s):
                self.err("missing final '.'")
            if len(terms) == 4:
                self.err("too many terms")
            terms.append(self.term())
        self.ws()
        if self.i < len(self.s) and self.s[self.i] != "#":
            self.err("junk after '.'")
        if len(terms) < 3:
            self.err("too few terms")
        return tuple(terms)


def parse_nquads(text, messages: bool = False):
    """Parse N-Triples / N-Quads text (str or bytes) into canonical statement tuples.

    Lines without a graph term give 3-tuples, lines with one give 4-tuples.  With
    ``messages=True``, :data:`MESSAGE` is yielded at every ``# @message`` line.
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    out = []
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        stripped = line.strip(_WS)
        if not stripped:
            continue
        if stripped.startswith("#"):
            if messages and stripped.rstrip() == "# @message":
                out.append(MESSAGE)
            continue
        out.append(_NTLine(line, lineno).statement())
    return out


def split_messages(items):
    """Split the output of ``parse_nquads(..., messages=True)`` into frames.

    Statements before the first marker form no frame; they are an error (returned as a
    leading frame flagged by raising)."""
    frames = []
    for it in items:
        if it is MESSAGE:
            frames.append([])
        else:
            if not frames:
                raise NTSyntaxError("statement before the first '# @message' line")
            frames[-1].append(it)
    return frames


def parse_nquads_file(path):
    with open(path, "rb") as fh:
        return parse_nquads(fh.read())



def term_to_nt(t) -> str:
    """Canonical term -> N-Triples text (for readable failure messages and test inputs)."""
    k = t[0]
    if k == "I":
        return "<" + t[1] + ">"
    if k == "B":
        return "_:" + t[1]
    if k == "L":
        lex = (t[1].replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
               .replace("\r", "\\r"))
        s = f'"{lex}"'
        if t[2] is not None:
            s += "@" + t[2]
        elif t[3] is not None:
            s += "^^<" + t[3] + ">"
        return s
    if k == "T":
        return "<< " + " ".join(term_to_nt(x) for x in t[1:]) + " >>"
    if k == "D":
        return ""
    raise TypeError(t)


def stmt_to_nt(st) -> str:
    st = nq_shape(st)
    return " ".join(term_to_nt(t) for t in st) + " ."
