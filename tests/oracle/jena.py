"""An oracle for Jena's RDF Binary: RDF Protobuf through the ``protobuf`` runtime (upb) compiled
from ``proto/binary-rdf.proto``, RDF Thrift through the compact protocol of ``thriftpy2`` loading
``proto/binary-rdf.thrift``.  Both written from the specification; nothing here imports jelly.

Rows are plain tuples, terms as they are on the wire:

* rows: ``("prefix", prefix, uri)``, ``("base", iri)``, ``("triple", s, p, o)``,
  ``("quad", s, p, o, g)`` (``g`` None when absent);
* terms: the neutral terms of :mod:`oracle.terms` (``("I", iri)``, ``("B", label)``,
  ``("L", lex, lang, datatype)``, ``("T", s, p, o)``) and the wire-only ones:
  ``("N", prefix, local)`` (prefixed name), ``("LP", lex, prefix, local)`` (literal with a
  datatype prefixed name), ``("VI", int)``, ``("VF", float)``, ``("VD", unscaled, scale)``,
  ``("R",)`` REPEAT, ``("U",)`` UNDEF, ``("V", name)`` variable, ``("A",)`` ANY.

:func:`resolve` gives the statements a reader must produce: prefixed names expanded, value
forms in the canonical lexical form of their XSD type, REPEAT replaced, ``(s, p, o)`` for the
default graph and ``(s, p, o, g)`` for named graphs.
"""

from __future__ import annotations

import functools
import os
from decimal import Decimal

from .proto import PROTO_DIR, load_proto
from .wire import enc_varint, read_varint

XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_STRING = XSD + "string"


def pb():
    """The RDF Protobuf message classes."""
    return load_proto("binary-rdf.proto")


@functools.lru_cache(maxsize=None)
def th():
    """The RDF Thrift struct classes (thriftpy2)."""
    import thriftpy2
    return thriftpy2.load(os.path.join(PROTO_DIR, "binary-rdf.thrift"),
                          module_name="binary_rdf_thrift")


# ------------------------------------------------------------------ canonical lexical forms

def canonical_decimal(unscaled: int, scale: int) -> str:
    text = format(Decimal(unscaled).scaleb(-scale).normalize(), "f")
    return "0" if text in ("-0", "0") else text


def canonical_double(v: float) -> str:
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "INF" if v > 0 else "-INF"
    sign = "-" if str(v).startswith("-") else ""
    if v == 0:
        return sign + "0.0E0"
    _, digits, exp = Decimal(repr(abs(v))).normalize().as_tuple()
    ds = "".join(map(str, digits))
    return f"{sign}{ds[0]}.{ds[1:] or '0'}E{len(ds) - 1 + exp}"


# ------------------------------------------------------------------ protobuf

def _pb_term(t, m):
    k = t[0]
    if k == "I":
        m.iri.iri = t[1]
    elif k == "B":
        m.bnode.label = t[1]
    elif k == "N":
        m.prefixName.prefix, m.prefixName.localName = t[1], t[2]
    elif k == "L":
        m.literal.lex = t[1]
        if t[2] is not None:
            m.literal.langtag = t[2]
        elif t[3] is not None:
            m.literal.datatype = t[3]
        else:
            m.literal.simple = True
    elif k == "LDIR":
        m.literal.lex, m.literal.langdir = t[1], t[2]
    elif k == "LP":
        m.literal.lex = t[1]
        m.literal.dtPrefix.prefix, m.literal.dtPrefix.localName = t[2], t[3]
    elif k == "T":
        for name, x in zip("SPO", t[1:]):
            _pb_term(x, getattr(m.tripleTerm, name))
    elif k == "VI":
        m.valInteger = t[1]
    elif k == "VF":
        m.valDouble = t[1]
    elif k == "VD":
        m.valDecimal.value, m.valDecimal.scale = t[1], t[2]
        m.valDecimal.SetInParent()
    elif k == "V":
        m.variable.name = t[1]
    else:
        {"R": m.repeat, "U": m.undefined, "A": m.any}[k].SetInParent()


def _pb_from(m):
    k = m.WhichOneof("term")
    if k == "iri":
        return ("I", m.iri.iri)
    if k == "bnode":
        return ("B", m.bnode.label)
    if k == "prefixName":
        return ("N", m.prefixName.prefix, m.prefixName.localName)
    if k == "literal":
        lit = m.literal
        kind = lit.WhichOneof("literalKind")
        if kind == "dtPrefix":
            return ("LP", lit.lex, lit.dtPrefix.prefix, lit.dtPrefix.localName)
        if kind == "langdir":
            return ("LDIR", lit.lex, lit.langdir)
        return ("L", lit.lex, lit.langtag if kind == "langtag" else None,
                lit.datatype if kind == "datatype" else None)
    if k == "tripleTerm":
        tt = m.tripleTerm
        return ("T", _pb_from(tt.S), _pb_from(tt.P), _pb_from(tt.O))
    if k == "valInteger":
        return ("VI", m.valInteger)
    if k == "valDouble":
        return ("VF", m.valDouble)
    if k == "valDecimal":
        return ("VD", m.valDecimal.value, m.valDecimal.scale)
    if k == "variable":
        return ("V", m.variable.name)
    if k is None:
        return None
    return {"repeat": ("R",), "undefined": ("U",), "any": ("A",)}[k]


def _delimited(messages) -> bytes:
    return b"".join(enc_varint(len(b)) + b for b in (m.SerializeToString() for m in messages))


def _undelimit(data: bytes):
    pos = 0
    while pos < len(data):
        n, pos = read_varint(data, pos)
        yield data[pos:pos + n]
        pos += n


def pb_row(row):
    """One row as an RDF_StreamRow message."""
    P = pb()
    m = P.RDF_StreamRow()
    if row[0] == "prefix":
        m.prefixDecl.prefix, m.prefixDecl.uri = row[1], row[2]
    elif row[0] == "base":
        m.base.iri = row[1]
    else:
        target = m.triple if row[0] == "triple" else m.quad
        names = "SPOG" if row[0] == "quad" else "SPO"
        for name, t in zip(names, row[1:]):
            if t is not None:
                _pb_term(t, getattr(target, name))
        target.SetInParent()
    return m


def pb_encode(rows) -> bytes:
    return _delimited(pb_row(r) for r in rows)


def pb_decode(data: bytes) -> list:
    P = pb()
    out = []
    for body in _undelimit(data):
        m = P.RDF_StreamRow.FromString(body)
        k = m.WhichOneof("row")
        if k == "prefixDecl":
            out.append(("prefix", m.prefixDecl.prefix, m.prefixDecl.uri))
        elif k == "base":
            out.append(("base", m.base.iri))
        elif k == "triple":
            out.append(("triple", _pb_from(m.triple.S), _pb_from(m.triple.P),
                        _pb_from(m.triple.O)))
        elif k == "quad":
            q = m.quad
            out.append(("quad", _pb_from(q.S), _pb_from(q.P), _pb_from(q.O),
                        _pb_from(q.G) if q.HasField("G") else None))
        else:
            raise ValueError("RDF_StreamRow without a member")
    return out


def pb_encode_results(variables, rows) -> bytes:
    P = pb()
    header = P.RDF_VarTuple(vars=[P.RDF_Var(name=v) for v in variables])
    data = []
    for row in rows:
        m = P.RDF_DataTuple()
        for t in row:
            _pb_term(t if t is not None else ("U",), m.row.add())
        data.append(m)
    return _delimited([header] + data)


def pb_decode_results(data: bytes):
    P = pb()
    bodies = list(_undelimit(data))
    if not bodies:
        return [], []
    variables = [v.name for v in P.RDF_VarTuple.FromString(bodies[0]).vars]
    rows = [[_pb_from(t) for t in P.RDF_DataTuple.FromString(b).row] for b in bodies[1:]]
    return variables, rows


# ------------------------------------------------------------------ thrift

def _th_term(t):
    T = th()
    k = t[0]
    if k == "I":
        return T.RDF_Term(iri=T.RDF_IRI(iri=t[1]))
    if k == "B":
        return T.RDF_Term(bnode=T.RDF_BNode(label=t[1]))
    if k == "N":
        return T.RDF_Term(prefixName=T.RDF_PrefixName(prefix=t[1], localName=t[2]))
    if k == "L":
        return T.RDF_Term(literal=T.RDF_Literal(lex=t[1], langtag=t[2], datatype=t[3]))
    if k == "LP":
        return T.RDF_Term(literal=T.RDF_Literal(
            lex=t[1], dtPrefix=T.RDF_PrefixName(prefix=t[2], localName=t[3])))
    if k == "T":
        return T.RDF_Term(tripleTerm=T.RDF_Triple(*(_th_term(x) for x in t[1:])))
    if k == "VI":
        return T.RDF_Term(valInteger=t[1])
    if k == "VF":
        return T.RDF_Term(valDouble=t[1])
    if k == "VD":
        return T.RDF_Term(valDecimal=T.RDF_Decimal(value=t[1], scale=t[2]))
    if k == "V":
        return T.RDF_Term(variable=T.RDF_VAR(name=t[1]))
    return {"R": T.RDF_Term(repeat=T.RDF_REPEAT()), "U": T.RDF_Term(undefined=T.RDF_UNDEF()),
            "A": T.RDF_Term(any=T.RDF_ANY())}[k]


def _th_from(m):
    if m is None:
        return None
    if m.iri is not None:
        return ("I", m.iri.iri)
    if m.bnode is not None:
        return ("B", m.bnode.label)
    if m.prefixName is not None:
        return ("N", m.prefixName.prefix, m.prefixName.localName)
    if m.literal is not None:
        lit = m.literal
        if lit.dtPrefix is not None and lit.datatype is None:
            return ("LP", lit.lex, lit.dtPrefix.prefix, lit.dtPrefix.localName)
        return ("L", lit.lex, lit.langtag or None, lit.datatype)
    if m.tripleTerm is not None:
        tt = m.tripleTerm
        return ("T", _th_from(tt.S), _th_from(tt.P), _th_from(tt.O))
    if m.valInteger is not None:
        return ("VI", m.valInteger)
    if m.valDouble is not None:
        return ("VF", m.valDouble)
    if m.valDecimal is not None:
        return ("VD", m.valDecimal.value, m.valDecimal.scale)
    if m.variable is not None:
        return ("V", m.variable.name)
    if m.repeat is not None:
        return ("R",)
    if m.undefined is not None:
        return ("U",)
    if m.any is not None:
        return ("A",)
    return None


class _Transport:
    """What the compact protocol reads from and writes to: bytes with a position."""

    def __init__(self, data: bytes = b"") -> None:
        self.data = data
        self.pos = 0
        self.out: list = []

    def read(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise EOFError("RDF Thrift data ends inside a struct")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def write(self, b: bytes) -> None:
        self.out.append(bytes(b))


def _th_write(objs) -> bytes:
    from thriftpy2.protocol.compact import TCompactProtocol
    t = _Transport()
    proto = TCompactProtocol(t)
    for o in objs:
        o.write(proto)
    return b"".join(t.out)


def _th_read(data: bytes, classes):
    """Structs of ``classes`` (a class, or (first, rest)) until the data ends."""
    from thriftpy2.protocol.compact import TCompactProtocol
    t = _Transport(data)
    proto = TCompactProtocol(t)
    first, rest = classes if isinstance(classes, tuple) else (classes, classes)
    out = []
    cls = first
    while t.pos < len(data):
        o = cls()
        o.read(proto)
        out.append(o)
        cls = rest
    return out


def th_encode(rows) -> bytes:
    T = th()
    objs = []
    for r in rows:
        if r[0] == "prefix":
            objs.append(T.RDF_StreamRow(prefixDecl=T.RDF_PrefixDecl(prefix=r[1], uri=r[2])))
        elif r[0] == "triple":
            objs.append(T.RDF_StreamRow(triple=T.RDF_Triple(*(_th_term(t) for t in r[1:]))))
        elif r[0] == "quad":
            g = _th_term(r[4]) if r[4] is not None else None
            objs.append(T.RDF_StreamRow(quad=T.RDF_Quad(*(_th_term(t) for t in r[1:4]), g)))
        else:
            raise ValueError(f"RDF Thrift has no {r[0]} row")
    return _th_write(objs)


def th_decode(data: bytes) -> list:
    out = []
    for m in _th_read(data, th().RDF_StreamRow):
        if m.prefixDecl is not None:
            out.append(("prefix", m.prefixDecl.prefix, m.prefixDecl.uri))
        elif m.triple is not None:
            t = m.triple
            out.append(("triple", _th_from(t.S), _th_from(t.P), _th_from(t.O)))
        elif m.quad is not None:
            q = m.quad
            out.append(("quad", _th_from(q.S), _th_from(q.P), _th_from(q.O), _th_from(q.G)))
        else:
            raise ValueError("RDF_StreamRow without a member")
    return out


def th_encode_results(variables, rows) -> bytes:
    T = th()
    header = T.RDF_VarTuple(vars=[T.RDF_VAR(name=v) for v in variables])
    return _th_write([header] + [
        T.RDF_DataTuple(row=[_th_term(t if t is not None else ("U",)) for t in row])
        for row in rows])


def th_decode_results(data: bytes):
    T = th()
    if not data:
        return [], []
    objs = _th_read(data, (T.RDF_VarTuple, T.RDF_DataTuple))
    variables = [v.name for v in objs[0].vars or []]
    return variables, [[_th_from(t) for t in o.row or []] for o in objs[1:]]


# ------------------------------------------------------------------ meaning

def resolve_term(t, prefixes):
    k = t[0]
    if k == "N":
        return ("I", prefixes[t[1]] + t[2])
    if k == "LP":
        dt = prefixes[t[2]] + t[3]
        return ("L", t[1], None, None if dt == XSD_STRING else dt)
    if k == "L":
        return ("L", t[1], t[2] or None, None if t[3] == XSD_STRING else t[3])
    if k == "T":
        return ("T",) + tuple(resolve_term(x, prefixes) for x in t[1:])
    if k == "VI":
        return ("L", str(t[1]), None, XSD + "integer")
    if k == "VF":
        return ("L", canonical_double(t[1]), None, XSD + "double")
    if k == "VD":
        return ("L", canonical_decimal(t[1], t[2]), None, XSD + "decimal")
    return t


def resolve(rows):
    """(statements, namespaces) a reader must give for these rows (see the module
    docstring)."""
    prefixes: dict = {}
    namespaces = []
    out = []
    last = [None, None, None, None]
    for r in rows:
        if r[0] == "prefix":
            prefixes[r[1]] = r[2]
            namespaces.append((r[1], r[2]))
            continue
        if r[0] == "base":
            continue
        terms = list(r[1:]) + ([None] if r[0] == "triple" else [])
        for i, t in enumerate(terms):
            if t is not None and t[0] == "R":
                terms[i] = last[i]
            elif t is not None:
                terms[i] = resolve_term(t, prefixes)
        if r[0] == "quad":
            if terms[3] is None or terms[3][0] == "U":
                terms[3] = ("D",)
            last = terms
        else:
            last = terms[:3] + [last[3]]
        out.append(tuple(terms[:3]) if r[0] == "triple" or terms[3] == ("D",)
                   else tuple(terms))
    return out, namespaces


def resolve_results(rows):
    """Result rows as a reader must give them: REPEAT replaced, UNDEF as None."""
    out = []
    last = None
    for row in rows:
        values = []
        for i, t in enumerate(row):
            if t == ("R",):
                values.append(last[i])
            elif t is None or t == ("U",):
                values.append(None)
            else:
                values.append(resolve_term(t, {}))
        out.append(tuple(values))
        last = values
    return out
