"""Patch operations in the neutral form of ``oracle.jelly_patch`` (tuples of neutral terms), to
and from jelly's operations, and what a Jelly-Patch reader must give back for operations
written with given options (``docs/patch.md``, "Choices")."""

from __future__ import annotations

from helpers import from_jelly, to_jelly
from oracle.terms import DEFAULT_GRAPH, norm_term

END = ("END",)
_FIELDLESS = {"TX": "TX_START", "TC": "TX_COMMIT", "TA": "TX_ABORT", "END": "END_OF_PATCH"}


def _term(t):
    return None if t is None else from_jelly(t)


def op_from_jelly(op):
    """A jelly operation as a neutral tuple."""
    from jelly import patch
    if isinstance(op, (patch.Add, patch.Delete)):
        return ("A" if isinstance(op, patch.Add) else "D", from_jelly(op.s), from_jelly(op.p),
                from_jelly(op.o), _term(op.g))
    if isinstance(op, (patch.PrefixAdd, patch.PrefixDelete)):
        return ("PA" if isinstance(op, patch.PrefixAdd) else "PD", op.prefix, _term(op.iri),
                _term(op.graph))
    if isinstance(op, patch.Header):
        return ("H", op.key, from_jelly(op.value))
    for key, name in _FIELDLESS.items():
        if op is getattr(patch, name):
            return (key,)
    raise AssertionError(f"not a patch operation: {op!r}")


def op_to_jelly(n):
    """A neutral operation as a jelly operation."""
    from jelly import patch
    t = (lambda x: None if x is None else to_jelly(x))
    kind = n[0]
    if kind in ("A", "D"):
        return (patch.Add if kind == "A" else patch.Delete)(t(n[1]), t(n[2]), t(n[3]), t(n[4]))
    if kind == "PA":
        return patch.PrefixAdd(n[1], t(n[2]), t(n[3]))
    if kind == "PD":
        return patch.PrefixDelete(n[1], t(n[2]), t(n[3]))
    if kind == "H":
        return patch.Header(n[1], t(n[2]))
    return getattr(patch, _FIELDLESS[kind])


def _graph(g, quads):
    if quads:
        return DEFAULT_GRAPH if g is None else norm_term(g)
    return None


def expected(ops, statement_type, stream_type):
    """What reading back gives for neutral ``ops`` written with a writer of these types:
    default graphs as the statement type says, xsd:string literals as simple literals, and the
    ends of patches as the stream type places them (``close()`` ends an open patch)."""
    quads = statement_type == "quads"
    out = []
    for op in ops:
        kind = op[0]
        if kind in ("A", "D"):
            out.append((kind, *(norm_term(x) for x in op[1:4]), _graph(op[4], quads)))
        elif kind in ("PA", "PD"):
            out.append((kind, op[1], None if op[2] is None else norm_term(op[2]),
                        _graph(op[3], quads)))
        elif kind == "H":
            out.append(("H", op[1], norm_term(op[2])))
        else:
            out.append(op)
    if stream_type == "flat":
        out = [op for op in out if op != END]
        return out + [END] if out else []
    if out and out[-1] != END:
        out.append(END)
    return out
