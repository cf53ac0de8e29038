"""Self-tests of the N-Triples / N-Quads oracle on W3C-style lines, and of the neutral-term
helpers."""

from __future__ import annotations

import pytest

from oracle.ntriples import (MESSAGE, NTSyntaxError, nt_representable, parse_nquads,
                             split_messages, stmt_to_nt, term_to_nt)
from oracle.terms import DEFAULT_GRAPH, XSD_STRING, norm_term, nq_shape, walk

A, B, C = ("I", "http://a"), ("I", "http://b"), ("I", "http://c")


def test_nquads_reader_terms():
    text = (
        '<http://a/s> <http://a/p> "x\\ty\\u00e9\\U0001F600\\"" .\n'
        '_:b1 <http://a/p> "5"^^<http://www.w3.org/2001/XMLSchema#integer> <http://g> .\n'
        '_:b.1 <http://a/p> "s"^^<http://www.w3.org/2001/XMLSchema#string> _:g .\n'
        '# a comment\n'
        '<< _:x <http://a/p> "v"@en-GB >> <http://a/q> << <http://a/s> "l" _:y >> .\n'
        '"lit" _:p "o" "g" .'
    )
    got = parse_nquads(text)
    assert got == [
        (("I", "http://a/s"), ("I", "http://a/p"), ("L", 'x\tyé\U0001F600"', None, None)),
        (("B", "b1"), ("I", "http://a/p"),
         ("L", "5", None, "http://www.w3.org/2001/XMLSchema#integer"), ("I", "http://g")),
        (("B", "b.1"), ("I", "http://a/p"), ("L", "s", None, None), ("B", "g")),
        (("T", ("B", "x"), ("I", "http://a/p"), ("L", "v", "en-GB", None)), ("I", "http://a/q"),
         ("T", ("I", "http://a/s"), ("L", "l", None, None), ("B", "y"))),
        (("L", "lit", None, None), ("B", "p"), ("L", "o", None, None), ("L", "g", None, None)),
    ]
    with pytest.raises(NTSyntaxError):
        parse_nquads('<http://a> <http://b> "x" ')
    with pytest.raises(NTSyntaxError):
        parse_nquads('<http://a> <http://b> .')
    msgs = parse_nquads("# @message\n# @message\n<http://a> <http://b> <http://c> .\n",
                           messages=True)
    assert split_messages(msgs) == [[], [(("I", "http://a"), ("I", "http://b"),
                                            ("I", "http://c"))]]


@pytest.mark.parametrize("line, statement", [
    # from the W3C N-Triples test suite's positive syntax tests
    ("<http://a> <http://b> <http://c> .", (A, B, C)),
    ("<http://a>\t<http://b>   <http://c>.", (A, B, C)),
    ("<http://a> <http://b> <http://c> . # a comment", (A, B, C)),
    ('<http://a> <http://b> "\\u0041\\U00000042" .', (A, B, ("L", "AB", None, None))),
    ('<http://a> <http://b> "\\b\\f\\n\\r\\t\\"\\\'\\\\" .',
     (A, B, ("L", "\b\f\n\r\t\"'\\", None, None))),
    ('<http://a> <http://b> "" .', (A, B, ("L", "", None, None))),
    ('<http://a> <http://b> "x"@en-US-1994 .', (A, B, ("L", "x", "en-US-1994", None))),
    ("<http://a\\u0020b> <http://b> <http://c> .", (("I", "http://a b"), B, C)),
    ("_:a.b.c <http://b> _:0 .", (("B", "a.b.c"), B, ("B", "0"))),
    ("_:x. <http://b> <http://c> .", None),      # a label cannot end with '.': see below
    ("<http://a> <http://b> <http://c> <http://g> .", (A, B, C, ("I", "http://g"))),
    ("<http://a> <http://b> <http://c> _:g .", (A, B, C, ("B", "g"))),
])
def test_w3c_style_lines(line, statement):
    if statement is None:
        with pytest.raises(NTSyntaxError):
            parse_nquads(line)
        return
    assert parse_nquads(line) == [statement]
    assert parse_nquads(line + "\r\n") == [statement]       # CRLF line ends


@pytest.mark.parametrize("line", [
    '<http://a> <http://b> "x" ',                      # missing '.'
    "<http://a> <http://b> .",                         # too few terms
    "<http://a> <http://b> <http://c> <http://d> <http://e> .",   # too many terms
    '<http://a> <http://b> "x" . junk',                # junk after '.'
    '<http://a> <http://b> "\\x41" .',                 # not an escape of N-Triples
    '<http://a> <http://b> "\\u00G1" .',               # bad \u escape
    '<http://a> <http://b> "x"@ .',                    # empty language tag
    '<http://a> <http://b> "x"^^"y" .',                # datatype is not an IRI
    "<http://a b> <http://b> <http://c> .",            # space in an IRI
    "<http://a> <http://b> <http://c",                 # unterminated IRI
    '<http://a> <http://b> "abc',                      # unterminated literal
    "<< <http://a> <http://b> <http://c> <http://a> <http://b> <http://c> .",   # no '>>'
    "_: <http://b> <http://c> .",                      # empty blank node label
    "? <http://b> <http://c> .",                       # not a term
])
def test_w3c_style_bad_lines(line):
    with pytest.raises(NTSyntaxError, match="line 2"):
        parse_nquads("# first line\n" + line + "\n")


def test_blank_and_comment_lines_and_messages():
    text = "\n  \n# c\n<http://a> <http://b> <http://c> .\n  # @message\n# @message extra\n"
    assert parse_nquads(text) == [(A, B, C)]
    items = parse_nquads(text + "# @message\n<http://a> <http://b> <http://c> .", messages=True)
    assert items == [(A, B, C), MESSAGE, MESSAGE, (A, B, C)]
    assert parse_nquads(b"<http://a> <http://b> \"\xc3\xa9\" .") == [(A, B, ("L", "é", None, None))]
    with pytest.raises(NTSyntaxError, match="before the first"):
        split_messages(items)
    assert split_messages(items[1:]) == [[], [(A, B, C)]]


def test_writer_round_trips_through_the_reader():
    statements = [
        (A, B, ("L", 'q"uo\\te\nline\r', None, None)),
        (("B", "b1"), B, ("L", "x", "de-CH", None), ("I", "http://g")),
        (("T", A, B, ("L", "5", None, "http://www.w3.org/2001/XMLSchema#int")), B, C),
        (A, B, C, DEFAULT_GRAPH),
    ]
    text = "\n".join(stmt_to_nt(s) for s in statements)
    assert text.splitlines()[-1] == "<http://a> <http://b> <http://c> ."
    assert parse_nquads(text) == [nq_shape(s) for s in statements]
    assert term_to_nt(("L", "x", None, None)) == '"x"'
    assert term_to_nt(DEFAULT_GRAPH) == ""
    with pytest.raises(TypeError):
        term_to_nt(("Z", "?"))


@pytest.mark.parametrize("term, ok", [
    (("B", "b1"), True), (("B", "1b"), True), (("B", "a.b"), True), (("B", "a."), False),
    (("B", ""), False), (("B", "-a"), False), (("B", "a b"), False),
    (("L", "x", "en-GB", None), True), (("L", "x", "en_GB", None), False),
    (("T", A, B, ("B", "ok")), True), (("T", A, B, ("B", "not ok")), False), (A, True),
])
def test_nt_representable(term, ok):
    assert nt_representable(term) is ok


def test_neutral_term_helpers():
    typed = ("L", "x", None, XSD_STRING)
    assert norm_term(typed) == ("L", "x", None, None)
    assert norm_term(("T", A, B, typed)) == ("T", A, B, ("L", "x", None, None))
    assert norm_term(("L", "x", None, "http://dt")) == ("L", "x", None, "http://dt")
    nested = (A, B, ("T", C, B, ("T", A, A, ("B", "z"))))
    assert list(walk(nested)) == [A, B, nested[2], C, B, nested[2][3], A, A, ("B", "z")]
    assert nq_shape((A, B, C, DEFAULT_GRAPH)) == (A, B, C)
    assert nq_shape((A, B, C, ("I", "http://g"))) == (A, B, C, ("I", "http://g"))
    assert nq_shape((A, B, C)) == (A, B, C)


def test_rdf12_triple_terms_and_directional_tags():
    text = ('<http://a> <http://b> <<( <http://c> <http://d> "x"@en--rtl )>> .\n'
            '<http://a> <http://b> << <http://c> <http://d> "x"@en >> .\n')
    t12 = ("T", ("I", "http://c"), ("I", "http://d"), ("L", "x", "en--rtl", None))
    tstar = ("T", ("I", "http://c"), ("I", "http://d"), ("L", "x", "en", None))
    assert parse_nquads(text) == [(("I", "http://a"), ("I", "http://b"), t12),
                                  (("I", "http://a"), ("I", "http://b"), tstar)]
    with pytest.raises(NTSyntaxError):
        parse_nquads('<http://a> <http://b> <<( <http://c> <http://d> <http://e> >> .')
