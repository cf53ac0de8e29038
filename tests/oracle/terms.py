"""Neutral terms: what every oracle yields, plain hashable tuples built without jelly.

::

    ("I", iri)                      IRI
    ("B", label)                    blank node
    ("L", lex, lang, datatype)      literal; lang / datatype are str or None;
                                    xsd:string is normalised to datatype None
    ("T", s, p, o)                  RDF-star quoted triple
    ("D",)                          the default graph

Statements are tuples of 3 (triples) or 4 (quads) terms.
"""

from __future__ import annotations

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
DEFAULT_GRAPH = ("D",)


def norm_term(t):
    """The term with the RDF rule applied that an ``xsd:string`` literal is a simple literal."""
    if t[0] == "L" and t[3] == XSD_STRING:
        return ("L", t[1], t[2], None)
    if t[0] == "T":
        return ("T",) + tuple(norm_term(x) for x in t[1:])
    return t


def walk(statement):
    """Every term of a statement, quoted triples and the terms inside them included."""
    for t in statement:
        yield t
        if t[0] == "T":
            yield from walk(t[1:])


def nq_shape(stmt):
    """N-Quads view of a statement: a default-graph quad becomes a 3-tuple."""
    if len(stmt) == 4 and stmt[3] == DEFAULT_GRAPH:
        return stmt[:3]
    return stmt

