"""The random-data generator of the property tests (hypothesis), shared by
``test_roundtrip.py`` and ``test_interop_pyjelly.py``.

:func:`scenario` draws a random stream to write: statements in the neutral tuple form of
``oracle.terms`` (built without jelly code, so the expected value of a round trip is the input
itself), the physical type, flags, table sizes and framing.  :func:`expected_statements` is what
a reader must give back; :func:`jstatements` / :func:`decoded` convert to and from jelly terms;
:func:`write_kwargs` are the writer options of a scenario.
"""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

import jelly

from helpers import from_jelly, to_jelly
from oracle.terms import norm_term, walk

XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_STRING = XSD + "string"
PHYSICAL = ("triples", "quads", "graphs")
D = ("D",)


def expected_statements(statements, physical):
    """What a reader gives back for ``statements`` written as a ``physical`` stream: xsd:string
    literals as simple literals, triples of a TRIPLES stream, quads (default graph added)
    otherwise."""
    out = []
    for s in statements:
        s = tuple(norm_term(t) for t in s)
        if physical == "triples":
            out.append(s[:3])
        else:
            out.append(s if len(s) == 4 else s + (D,))
    return out


def jstatements(statements):
    """Neutral statements as jelly statements."""
    return [tuple(to_jelly(t) for t in s) for s in statements]


def decoded(statements):
    """Jelly statements as neutral statements."""
    return [tuple(from_jelly(t) for t in s) for s in statements]


# any Unicode scalar value (no lone surrogates, which UTF-8 cannot carry), control chars included
ANY_CHAR = st.characters(blacklist_categories=("Cs",))
ODD_CHARS = st.sampled_from(["\x00", "\x01", "\n", "\r", "\t", "\x7f", "\u0085", "\u2028", "\ufeff",
                             "\uffff", "😀", "\U0010ffff", "𝔘", "é", "日", "#", "/", ":", "\\", '"',
                             "<", ">", " "])
TEXT = st.text(st.one_of(ANY_CHAR, ODD_CHARS), max_size=10)
PREFIXES = ["http://example.org/", "http://example.org/ns#", "https://w3id.org/a/b/c/", "urn:x:",
            "", "http://例え.jp/", XSD, "http://www.w3.org/1999/02/22-rdf-syntax-ns#"]
IRI_TEXT = st.one_of(
    st.builds(lambda p, l: p + l, st.sampled_from(PREFIXES), TEXT),
    TEXT,                                             # no '/' or '#', empty, anything
    st.sampled_from(["", "/", "#", "#/", "/#", "a#b/c", "a/b#c", "//", "##", "urn:isbn:0451",
                     "http://e.org/#", "http://e.org/", "mailto:a@b.c"]),
)
# "--" starts an RDF 1.2 base direction ("en--ltr"), which Jelly 1.1 cannot hold: writers refuse it.
LANG = st.one_of(st.sampled_from(["en", "en-GB", "de-CH-1901", "x-private", "EN", "zh-Hant-TW"]),
                 st.text(ANY_CHAR, min_size=1, max_size=6).filter(lambda t: "--" not in t))


@st.composite
def scenario(draw, *, min_statements=0, max_statements=40, pressure=False):
    """A random stream to write.  ``pressure``: RDF-star with many nested quoted triples and
    many distinct IRIs, so that one statement can outgrow a small name table."""
    physical = draw(st.sampled_from(PHYSICAL))
    rdf_star = pressure or draw(st.booleans())
    generalized = draw(st.booleans())
    iris = draw(st.lists(IRI_TEXT, min_size=1, max_size=24))
    if pressure:
        iris += [f"http://example.org/{'ab'[i % 2]}/n{i}" for i in range(12)]
    labels = draw(st.lists(TEXT, min_size=1, max_size=5))
    datatypes = draw(st.lists(IRI_TEXT, min_size=0, max_size=5)) + [XSD_STRING, XSD + "int"]
    lexes = draw(st.lists(TEXT, min_size=1, max_size=6))
    langs = draw(st.lists(LANG, min_size=1, max_size=3))

    def iri():
        return ("I", draw(st.sampled_from(iris)))

    def bnode():
        return ("B", draw(st.sampled_from(labels)))

    def literal():
        lex = draw(st.sampled_from(lexes))
        kind = draw(st.integers(0, 2))
        if kind == 0:
            return ("L", lex, None, None)
        if kind == 1:
            return ("L", lex, draw(st.sampled_from(langs)), None)
        return ("L", lex, None, draw(st.sampled_from(datatypes)))

    def term(pos, depth):
        kinds = {"s": ["I", "B"], "p": ["I"], "o": ["I", "B", "L"]}[pos]
        if generalized:
            kinds = ["I", "B", "L"]
        if rdf_star and depth < 3 and (pos != "p" or generalized):
            kinds = kinds + ["T"] * (len(kinds) if pressure else 1)
        k = draw(st.sampled_from(kinds))
        if k == "I":
            return iri()
        if k == "B":
            return bnode()
        if k == "L":
            return literal()
        return ("T", term("s", depth + 1), term("p", depth + 1), term("o", depth + 1))

    def graph():
        kinds = ["D", "I", "B"] + (["L"] if generalized else [])
        k = draw(st.sampled_from(kinds))
        return {"D": lambda: D, "I": iri, "B": bnode, "L": literal}[k]()

    n = draw(st.integers(min_statements, max_statements))
    statements = []
    prev = None
    for _ in range(n):
        if prev is not None and draw(st.booleans()):      # lots of repeated terms
            s = list(prev)
            for i in range(len(s)):
                if draw(st.booleans()):
                    s[i] = term("spo"[i], 0) if i < 3 else graph()
            if physical == "triples":
                s = s[:3]
        else:
            s = [term("s", 0), term("p", 0), term("o", 0)]
            if physical != "triples":
                s.append(graph())
        if physical == "triples" and draw(st.integers(0, 9)) == 0:
            s = s[:3] + [D]                  # a 4-tuple in the default graph is a triple
        if physical != "triples" and s[3] == D and draw(st.integers(0, 3)) == 0:
            s = s[:3]                        # a 3-tuple in a quads stream: default graph
        statements.append(tuple(s))
        prev = tuple(s) if len(s) == 4 or physical == "triples" else tuple(s) + (D,)
    typed = any(t[0] == "L" and t[3] not in (None, XSD_STRING)
                for s in statements for t in walk(s))
    tables = (draw(st.integers(8, 64)), draw(st.integers(0, 8)),
              draw(st.integers(1 if typed else 0, 8)))
    return dict(physical=physical, rdf_star=rdf_star, generalized=generalized,
                statements=statements, tables=tables,
                rows_per_frame=draw(st.integers(1, 50)), delimited=draw(st.booleans()))


def write_kwargs(sc):
    names, prefixes, datatypes = sc["tables"]
    return dict(physical_type=sc["physical"], rdf_star=sc["rdf_star"],
                generalized_statements=sc["generalized"], max_name_table_size=names,
                max_prefix_table_size=prefixes, max_datatype_table_size=datatypes)


def delimited_stream(sc) -> bytes:
    """The delimited Jelly stream of a scenario (scenarios the encoder refuses are skipped)."""
    try:
        return jelly.serialize(jstatements(sc["statements"]), rows_per_frame=sc["rows_per_frame"],
                               delimited=True, **write_kwargs(sc))
    except jelly.JellyEncodeError:
        assume(False)
        raise       # not reached: assume(False) ends the example
