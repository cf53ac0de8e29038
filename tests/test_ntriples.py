"""Tests of the N-Triples / N-Quads codec (jelly._ntriples).

Expected values are written out by hand (W3C test-suite style), never computed by the codec.
"""

import io
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jelly
from helpers import run_jelly
from jelly._ntformat import NQuadsWriter, statement_to_nt, term_to_nt
from jelly._ntriples import MESSAGE, parse_nquads
from jelly._terms import DEFAULT_GRAPH, BlankNode, IRI, Literal, Triple
from jelly.errors import JellyEncodeError, JellyError, RdfSyntaxError

XSD = "http://www.w3.org/2001/XMLSchema#"
EX = "http://example/"


def ex(name):
    return IRI(EX + name)


def parse(data, **kw):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return list(parse_nquads(data, **kw))


def parse_error(data, **kw):
    with pytest.raises(RdfSyntaxError) as info:
        parse(data, **kw)
    return info.value


S, P, O = ex("s"), ex("p"), ex("o")


# ---------------------------------------------------------------------------------------------
# Positive syntax

POSITIVE = [
    # empty documents, comments, blank lines
    ("", []),
    ("#Empty file.\n", []),
    ("#One comment, one empty line.\n\n", []),
    ("\n\n   \n\t\n", []),
    # IRIs
    ("<http://example/s> <http://example/p> <http://example/o> .", [(S, P, O)]),
    ("<http://example/\\u0053> <http://example/p> <http://example/o> .",
     [(ex("S"), P, O)]),
    ("<http://example/\\U00000053> <http://example/p> <http://example/o> .",
     [(ex("S"), P, O)]),
    ("<http://example/s> <http://example/p> "
     "<scheme:!$%25&'()*+,-./0123456789:/@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~?#> .",
     [(S, P, IRI("scheme:!$%25&'()*+,-./0123456789:/@ABCDEFGHIJKLMNOPQRSTUVWXYZ_"
                 "abcdefghijklmnopqrstuvwxyz~?#"))]),
    ("<http://example/\\u00E9t\\u00e9> <http://example/p> <http://example/\u00e9\U0001F600> .",
     [(ex("\u00e9t\u00e9"), P, ex("\u00e9\U0001F600"))]),
    # UCHAR may encode characters that IRIREF does not allow verbatim
    ("<http://example/a\\u0020b\\u003E> <http://example/p> <http://example/o> .",
     [(ex("a b>"), P, O)]),
    ("<http://example/s> <http://example/p> <http://example/\x7f> .", [(S, P, ex("\x7f"))]),
    # string literals
    ('<http://example/s> <http://example/p> "string" .', [(S, P, Literal("string"))]),
    ('<http://example/s> <http://example/p> "string"@en .',
     [(S, P, Literal("string", language="en"))]),
    ('<http://example/s> <http://example/p> "string"@en-uk .',
     [(S, P, Literal("string", language="en-uk"))]),
    ('<http://example/s> <http://example/p> "chat"@zh-Hant-TW-1996 .',
     [(S, P, Literal("chat", language="zh-Hant-TW-1996"))]),
    ('<http://example/s> <http://example/p> "a\\n" .', [(S, P, Literal("a\n"))]),
    ('<http://example/s> <http://example/p> "a\\u0020b" .', [(S, P, Literal("a b"))]),
    ('<http://example/s> <http://example/p> "a\\U00000020b" .', [(S, P, Literal("a b"))]),
    ('<http://example/s> <http://example/p> "\\u006F\\U0000006F" .', [(S, P, Literal("oo"))]),
    ('<http://example/s> <http://example/p> "\\U0001F600\\u00e9" .',
     [(S, P, Literal("\U0001F600\u00e9"))]),
    ('<http://example/s> <http://example/p> "\\t\\b\\n\\r\\f\\"\\\'\\\\" .',
     [(S, P, Literal("\t\b\n\r\f\"'\\"))]),
    ('<http://example/s> <http://example/p> "x\'y" .', [(S, P, Literal("x'y"))]),
    ('<http://example/s> <http://example/p> "x\'\'y" .', [(S, P, Literal("x''y"))]),
    ('<http://example/s> <http://example/p> "x\\"\\"y" .', [(S, P, Literal('x""y'))]),
    ('<http://example/s> <http://example/p> "test-\\\\" .', [(S, P, Literal("test-\\"))]),
    # raw control characters other than CR/LF are allowed inside literals
    ('<http://example/s> <http://example/p> "\t\x00\x01\x1f\x7f" .',
     [(S, P, Literal("\t\x00\x01\x1f\x7f"))]),
    ("<http://example/s> <http://example/p> "
     '"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\u0008\\t\\u000B\\u000C'
     '\\u000E\\u000F\\u0010\\u001F" .',
     [(S, P, Literal("\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\x0b\x0c\x0e\x0f\x10\x1f"))]),
    # UTF-8 sequence-length boundaries
    ('<http://example/s> <http://example/p> "\u0080\u07ff\u0800\u0fff\u1000\ucfff\ud000\ud7ff'
     '\ue000\ufffd\U00010000\U0003fffd\U00040000\U000ffffd\U00100000\U0010fffd" .',
     [(S, P, Literal("\u0080\u07ff\u0800\u0fff\u1000\ucfff\ud000\ud7ff\ue000\ufffd\U00010000"
                     "\U0003fffd\U00040000\U000ffffd\U00100000\U0010fffd"))]),
    ('<http://example/s> <http://example/p> "`~!@#$%^&*()-_=+[{]}|;:\',<.>/?" .',
     [(S, P, Literal("`~!@#$%^&*()-_=+[{]}|;:',<.>/?"))]),
    # datatypes; xsd:string is the simple literal
    ('<http://example/s> <http://example/p> "123"^^<http://www.w3.org/2001/XMLSchema#byte> .',
     [(S, P, Literal("123", datatype=IRI(XSD + "byte")))]),
    ('<http://example/s> <http://example/p> "123"^^<http://www.w3.org/2001/XMLSchema#string> .',
     [(S, P, Literal("123"))]),
    ('<http://example/s> <http://example/p> "x"^^<http://example/\\u0064t> .',
     [(S, P, Literal("x", datatype=ex("dt")))]),
    # blank nodes
    ("_:a <http://example/p> <http://example/o> .", [(BlankNode("a"), P, O)]),
    ("<http://example/s> <http://example/p> _:a .\n_:a <http://example/p> <http://example/o> .",
     [(S, P, BlankNode("a")), (BlankNode("a"), P, O)]),
    ("<http://example/s> <http://example/p> _:1 .", [(S, P, BlankNode("1"))]),
    ("_:a.b-c_d\u00b7f <http://example/p> _:\u00e9t\u00e9\u0300 .",
     [(BlankNode("a.b-c_d\u00b7f"), P, BlankNode("\u00e9t\u00e9\u0300"))]),
    ("_:_x <http://example/p> _:\U00010000z .", [(BlankNode("_x"), P, BlankNode("\U00010000z"))]),
    # the '.' ending a label belongs to the statement
    ("<http://example/s> <http://example/p> _:o.", [(S, P, BlankNode("o"))]),
    ("<http://example/s> <http://example/p> _:o.o.", [(S, P, BlankNode("o.o"))]),
    # whitespace and comments
    ("<http://example/s><http://example/p><http://example/o>.", [(S, P, O)]),
    ('<http://example/s><http://example/p>"Alice".', [(S, P, Literal("Alice"))]),
    ("_:s<http://example/p><http://example/o>.", [(BlankNode("s"), P, O)]),
    ('<http://example/s><http://example/p>"x"@en.', [(S, P, Literal("x", language="en"))]),
    ('<http://example/s><http://example/p>"1"^^<http://example/dt>.',
     [(S, P, Literal("1", datatype=ex("dt")))]),
    ("  \t<http://example/s> \t <http://example/p>\t<http://example/o>   .  \t ", [(S, P, O)]),
    ("<http://example/s> <http://example/p> <http://example/o> . # comment", [(S, P, O)]),
    ("<http://example/s> <http://example/p> _:o . # comment", [(S, P, BlankNode("o"))]),
    ('<http://example/s> <http://example/p> "o" . # comment', [(S, P, Literal("o"))]),
    ('<http://example/s> <http://example/p> "o"^^<http://example/dt> . # comment',
     [(S, P, Literal("o", datatype=ex("dt")))]),
    ('<http://example/s> <http://example/p> "o"@en . # comment',
     [(S, P, Literal("o", language="en"))]),
    ("<http://example/s> <http://example/p> <http://example/o> .#no space", [(S, P, O)]),
    ("  # indented comment \u00e9\n", []),
    # whitespace around ^^ and before a language tag (between terminals)
    ('<http://example/s> <http://example/p> "o" ^^ <http://example/dt> .',
     [(S, P, Literal("o", datatype=ex("dt")))]),
    ('<http://example/s> <http://example/p> "o" @en .', [(S, P, Literal("o", language="en"))]),
    # line ends
    ("<http://example/s> <http://example/p> <http://example/o> .\r\n"
     "<http://example/s> <http://example/p> <http://example/o2> .\r\n",
     [(S, P, O), (S, P, ex("o2"))]),
    ("<http://example/s> <http://example/p> <http://example/o> .\r"
     "<http://example/s> <http://example/p> <http://example/o2> .",
     [(S, P, O), (S, P, ex("o2"))]),
    ("<http://example/s> <http://example/p> <http://example/o> .\n\r\n\r\r\n", [(S, P, O)]),
    # N-Quads
    ("<http://example/s> <http://example/p> <http://example/o> <http://example/g> .",
     [(S, P, O, ex("g"))]),
    ("<http://example/s> <http://example/p> <http://example/o> _:g .",
     [(S, P, O, BlankNode("g"))]),
    ('<http://example/s> <http://example/p> "o"@en <http://example/g> .',
     [(S, P, Literal("o", language="en"), ex("g"))]),
    ('<http://example/s> <http://example/p> "o"^^<http://example/dt><http://example/g>.',
     [(S, P, Literal("o", datatype=ex("dt")), ex("g"))]),
    ("<http://example/s> <http://example/p> <http://example/o> _:g. # c",
     [(S, P, O, BlankNode("g"))]),
    # RDF-star quoted triples
    ("<< <http://example/s> <http://example/p> <http://example/o> >> "
     "<http://example/q> <http://example/z> .",
     [(Triple(S, P, O), ex("q"), ex("z"))]),
    ("<http://example/x> <http://example/p> "
     "<< <http://example/s> <http://example/p> <http://example/o> >> .",
     [(ex("x"), P, Triple(S, P, O))]),
    ("<< <http://example/s> <http://example/p> <http://example/o> >> <http://example/q> "
     "<< <http://example/s2> <http://example/p2> <http://example/o2> >> .",
     [(Triple(S, P, O), ex("q"), Triple(ex("s2"), ex("p2"), ex("o2")))]),
    ("<< << _:b0 <http://example/p> _:b1 >> <http://example/r> \"z\"@en >> "
     "<http://example/q> \"1\"^^<http://example/dt> .",
     [(Triple(Triple(BlankNode("b0"), P, BlankNode("b1")), ex("r"), Literal("z", language="en")),
       ex("q"), Literal("1", datatype=ex("dt")))]),
    ("<<<http://example/s><http://example/p><http://example/o>>><http://example/q>"
     "<<_:a<http://example/p>\"x\">>.",
     [(Triple(S, P, O), ex("q"), Triple(BlankNode("a"), P, Literal("x")))]),
    ("<<_:a <http://example/p> _:b>> <http://example/q> <http://example/z> .",
     [(Triple(BlankNode("a"), P, BlankNode("b")), ex("q"), ex("z"))]),
    ("<< <http://example/s> <http://example/p> <http://example/o> >> <http://example/q> "
     "<http://example/z> <http://example/g> .",
     [(Triple(S, P, O), ex("q"), ex("z"), ex("g"))]),
    # RDF 1.2 triple-term spelling
    ("<http://example/x> <http://example/p> "
     "<<( <http://example/s> <http://example/p> <http://example/o> )>> .",
     [(ex("x"), P, Triple(S, P, O))]),
    # generalized RDF: any term kind in any position (graph: not a quoted triple)
    ('"lit" <http://example/p> <http://example/o> .', [(Literal("lit"), P, O)]),
    ("<http://example/s> _:p <http://example/o> .", [(S, BlankNode("p"), O)]),
    ('<http://example/s> "p"@en <http://example/o> .', [(S, Literal("p", language="en"), O)]),
    ("<http://example/s> << _:a _:b _:c >> <http://example/o> .",
     [(S, Triple(BlankNode("a"), BlankNode("b"), BlankNode("c")), O)]),
    ('<http://example/s> <http://example/p> <http://example/o> "g"^^<http://example/dt> .',
     [(S, P, O, Literal("g", datatype=ex("dt")))]),
    ('<< "a" "b" "c" >> "p" "o" "g" .',
     [(Triple(Literal("a"), Literal("b"), Literal("c")), Literal("p"), Literal("o"),
       Literal("g"))]),
    # a UTF-8 byte order mark at the very start is tolerated
    ("\ufeff<http://example/s> <http://example/p> <http://example/o> .", [(S, P, O)]),
]


@pytest.mark.parametrize("doc,expected", POSITIVE)
def test_positive(doc, expected):
    assert parse(doc) == expected


@pytest.mark.parametrize("doc,expected", POSITIVE)
def test_positive_one_byte_chunks(doc, expected):
    assert parse(doc, chunk_size=1) == expected


def test_statement_shapes_are_plain_tuples():
    out = parse("<http://example/s> <http://example/p> <http://example/o> .\n"
                "<http://example/s> <http://example/p> <http://example/o> <http://example/g> .\n")
    assert [type(x) for x in out] == [tuple, tuple]
    assert [len(x) for x in out] == [3, 4]
    lit = parse('<http://example/s> <http://example/p> "x"@en .')[0][2]
    assert lit.datatype is None and lit.language == "en"
    assert parse('<http://example/s> <http://example/p> '
                 '"x"^^<http://www.w3.org/2001/XMLSchema#string> .')[0][2].datatype is None


def test_repeated_iris_are_shared_objects():
    out = parse("<http://example/s> <http://example/p> <http://example/o1> .\n"
                "<http://example/s> <http://example/p> <http://example/o2> .\n"
                '_:b <http://example/p> "1"^^<http://example/dt> .\n'
                '_:b <http://example/p> "2"^^<http://example/dt> .\n')
    assert out[0][0] is out[1][0]
    assert out[0][1] is out[1][1] is out[2][1]
    assert out[2][2].datatype is out[3][2].datatype
    assert out[0][2] == ex("o1") and out[1][2] == ex("o2")


def test_many_distinct_iris_still_correct():
    # far more distinct IRIs than cache slots: evictions must never mix terms up
    n = 30000
    doc = "".join(f"<http://example/s{i}> <http://example/p{i % 7}> <http://example/o{i * 31 % n}> .\n"
                  for i in range(n))
    out = parse(doc)
    assert len(out) == n
    for i in (0, 1, 8191, 8192, 12345, n - 1):
        assert out[i] == (ex(f"s{i}"), ex(f"p{i % 7}"), ex(f"o{i * 31 % n}"))


def test_nesting_depth_limit():
    def nested(depth):
        text = "<http://example/s> <http://example/p> <http://example/o>"
        term = Triple(S, P, O)
        for _ in range(depth - 1):
            text = f"<< {text} >> <http://example/p> <http://example/o>"
            term = Triple(term, P, O)
        return f"<< {text} >> <http://example/q> <http://example/z> .", term

    doc, term = nested(64)
    assert parse(doc) == [(term, ex("q"), ex("z"))]
    doc, _ = nested(65)
    err = parse_error(doc)
    assert "nested" in err.message and err.line == 1
    err = parse_error("<< " * 100000)
    assert "nested" in err.message


def test_relative_iris():
    doc = "<s> <http://example/p> <o> ."
    assert "relative IRI" in parse_error(doc).message
    assert parse(doc, allow_relative_iris=True) == [(IRI("s"), P, IRI("o"))]
    assert parse("<> <http://example/p> <#o> .", allow_relative_iris=True) == [
        (IRI(""), P, IRI("#o"))]


# ---------------------------------------------------------------------------------------------
# Negative syntax

NEGATIVE = [
    # IRIs
    "<http://example/ space> <http://example/p> <http://example/o> .",
    "<http://example/\\u00ZZ11> <http://example/p> <http://example/o> .",
    "<http://example/\\U00ZZ1111> <http://example/p> <http://example/o> .",
    "<http://example/\\n> <http://example/p> <http://example/o> .",
    "<http://example/\\/> <http://example/p> <http://example/o> .",
    "<http://example/\\u12> <http://example/p> <http://example/o> .",
    "<s> <http://example/p> <http://example/o> .",
    "<http://example/s> <p> <http://example/o> .",
    "<http://example/s> <http://example/p> <o> .",
    '<http://example/s> <http://example/p> "foo"^^<dt> .',
    "<http://example/s> <http://example/p> <http://example/o\"> .",
    "<http://example/s> <http://example/p> <http://example/{o}> .",
    "<http://example/s> <http://example/p> <http://example/o|> .",
    "<http://example/s> <http://example/p> <http://example/^o> .",
    "<http://example/s> <http://example/p> <http://example/`o> .",
    "<http://example/s> <http://example/p> <http://example/\to> .",
    "<http://example/s> <http://example/p> <http://exa<mple/o> .",
    "<http://example/s> <http://example/p> <http://example/o",
    "<http://example/s> <http://example/p> <http://example/o .",
    # surrogates and out-of-range code points from escapes
    "<http://example/\\uD800> <http://example/p> <http://example/o> .",
    '<http://example/s> <http://example/p> "\\uDFFF" .',
    '<http://example/s> <http://example/p> "\\uD83D\\uDE00" .',
    '<http://example/s> <http://example/p> "\\U0000D800" .',
    '<http://example/s> <http://example/p> "\\U00110000" .',
    '<http://example/s> <http://example/p> "\\UFFFFFFFF" .',
    # Turtle-only syntax
    "@prefix : <http://example/> .",
    "@base <http://example/> .",
    "PREFIX : <http://example/>",
    "<http://example/s> <http://example/p> <http://example/o>, <http://example/o2> .",
    "<http://example/s> <http://example/p> <http://example/o>; <http://example/p2> <http://example/o2> .",
    "<http://example/s> <http://example/p> ex:o .",
    "<http://example/s> a <http://example/o> .",
    "<http://example/s> <http://example/p> [] .",
    "<http://example/s> <http://example/p> ( ) .",
    "<http://example/s> <http://example/p> 1 .",
    "<http://example/s> <http://example/p> 1.0 .",
    "<http://example/s> <http://example/p> 1.0e0 .",
    "<http://example/s> <http://example/p> true .",
    # language tags
    '<http://example/s> <http://example/p> "string"@1 .',
    '<http://example/s> <http://example/p> "string"@ .',
    '<http://example/s> <http://example/p> "string"@en- .',
    '<http://example/s> <http://example/p> "string"@en--LTR .',    # W3C ntriples-langdir-bad-2
    '<http://example/s> <http://example/p> "string"@en--unk .',    # W3C ntriples-langdir-bad-1
    '<http://example/s> <http://example/p> "string"@en-- .',
    '<http://example/s> <http://example/p> "string"@--ltr .',
    '<http://example/s> <http://example/p> "string"@en--ltr-x .',
    '<http://example/s> <http://example/p> "string"@en_US .',
    '<http://example/s> <http://example/p> "string"@en^^<http://example/dt> .',
    # escapes in literals
    '<http://example/s> <http://example/p> "\\o" .',
    '<http://example/s> <http://example/p> "\\u006" .',
    '<http://example/s> <http://example/p> "\\U0000006" .',
    '<http://example/s> <http://example/p> "\\U0000WXYZ" .',
    '<http://example/s> <http://example/p> "\\x41" .',
    '<http://example/s> <http://example/p> "\\ " .',
    # strings
    "<http://example/s> <http://example/p> \"abc' .",
    "<http://example/s> <http://example/p> 'abc' .",
    "<http://example/s> <http://example/p> '''abc''' .",
    '<http://example/s> <http://example/p> """abc""" .',
    '<http://example/s> <http://example/p> "abc .',
    '<http://example/s> <http://example/p> abc" .',
    '<http://example/s> <http://example/p> "abc\ndef" .',
    '<http://example/s> <http://example/p> "abc\rdef" .',
    '<http://example/s> <http://example/p> "abc\\',
    # datatype syntax
    '<http://example/s> <http://example/p> "a"^<http://example/dt> .',
    '<http://example/s> <http://example/p> "a"^^ .',
    '<http://example/s> <http://example/p> "a"^^"b" .',
    '<http://example/s> <http://example/p> "a"^^_:b .',
    '<http://example/s> <http://example/p> "a"^^<< <http://example/s> <http://example/p> <http://example/o> >> .',
    # blank nodes
    "_: <http://example/p> <http://example/o> .",
    "_:-a <http://example/p> <http://example/o> .",
    "_:.a <http://example/p> <http://example/o> .",
    "_:\u00b7a <http://example/p> <http://example/o> .",
    "_a <http://example/p> <http://example/o> .",
    "_ <http://example/p> <http://example/o> .",
    "<http://example/s> <http://example/p> _:a..",
    "<http://example/s> <http://example/p> _:a~ .",
    # statement structure
    "<http://example/s> <http://example/p> <http://example/o>",
    "<http://example/s> <http://example/p> <http://example/o>\n",
    "<http://example/s> <http://example/p> .",
    "<http://example/s> .",
    "<http://example/s>",
    ".",
    "<http://example/s> <http://example/p> <http://example/o> . .",
    "<http://example/s> <http://example/p> <http://example/o> . <http://example/x>",
    "<http://example/s> <http://example/p> <http://example/o> <http://example/g> <http://example/x> .",
    "<http://example/s> <http://example/p> <http://example/o> # missing dot",
    "<http://example/s> <http://example/p> <http://example/o> .\f",
    "\v<http://example/s> <http://example/p> <http://example/o> .",
    "<http://example/s>\u00a0<http://example/p> <http://example/o> .",
    "<http://example/s> <http://example/p> <http://example/o> <http://example/g space> .",
    # quoted triples
    "<< <http://example/s> <http://example/p> <http://example/o> >> .",
    "<< <http://example/s> <http://example/p> <http://example/o> >>",
    "<< <http://example/s> <http://example/p> >> <http://example/q> <http://example/z> .",
    "<< <http://example/s> <http://example/p> <http://example/o> <http://example/x> >> "
    "<http://example/q> <http://example/z> .",
    "<< <http://example/s> <http://example/p> <http://example/o> > <http://example/q> <http://example/z> .",
    "<< <http://example/s> <http://example/p> <http://example/o> .",
    "<<( <http://example/s> <http://example/p> <http://example/o> >> <http://example/q> <http://example/z> .",
    "<< <http://example/s> <http://example/p> <http://example/o> )>> <http://example/q> <http://example/z> .",
    "<http://example/s> <http://example/p> <http://example/o> "
    "<< <http://example/s> <http://example/p> <http://example/o> >> .",
    "<< <http://example/s> <http://example/p> <http://example/o> <http://example/g> >> <http://example/q> <http://example/z> .",
    "<<",
    "<<(",
    "<",
]


@pytest.mark.parametrize("doc", NEGATIVE)
def test_negative(doc):
    err = parse_error(doc)
    assert isinstance(err, ValueError)
    assert err.line == 1
    assert "column" in err.message


INVALID_UTF8 = [
    b"\xff",
    b"\xc0\xaf",            # overlong '/'
    b"\xe0\x80\xaf",        # overlong
    b"\xed\xa0\x80",        # encoded surrogate
    b"\xf4\x90\x80\x80",    # beyond U+10FFFF
    b"\xe2\x82",            # truncated
    b"\x80",                # lone continuation byte
    b"\xf8\x88\x80\x80\x80",
]


@pytest.mark.parametrize("bad", INVALID_UTF8)
@pytest.mark.parametrize("template", [
    b"<http://example/s> <http://example/p> \"a%sb\" .\n",
    b"<http://example/s> <http://example/p> <http://example/%s> .\n",
    b"_:a%s <http://example/p> <http://example/o> .\n",
    b"<http://example/s> <http://example/p> <http://example/o> . # %s\n",
    b"# comment %s\n",
    b"%s\n",
])
def test_invalid_utf8(bad, template):
    doc = b"# line 1\n" + template.replace(b"%s", bad)
    err = parse_error(doc)
    assert err.line == 2


def test_error_columns_and_lines():
    err = parse_error('<http://ex/s> <http://ex/p> "abc\\q" .')
    assert err.line == 1 and "column 33" in err.message and "escape" in err.message
    # columns count characters, not bytes
    err = parse_error('<http://ex/s> <http://ex/p> "\u00e9\U0001F600\\q" .')
    assert "column 32" in err.message
    err = parse_error("<http://ex/s> <http://ex/p> <http://ex/o>")
    assert "column 42" in err.message and "'.'" in err.message
    err = parse_error("<http://ex/s> <http://ex/p> <http://ex/o> . junk")
    assert "column 45" in err.message
    doc = ("# comment\n"
           "\n"
           "<http://example/s> <http://example/p> <http://example/o> .\r\n"
           "\r\n"
           "<http://example/s> <http://example/p> \"unterminated .\n")
    err = parse_error(doc)
    assert err.line == 5 and "unterminated" in err.message and "column 39" in err.message
    assert "line 5" in str(err)
    # CR alone ends a line too
    err = parse_error("<http://example/s> <http://example/p> <http://example/o> .\r\r@x")
    assert err.line == 3 and "column 1" in err.message


def test_statements_before_an_error_are_yielded():
    doc = (b"<http://example/s> <http://example/p> <http://example/o1> .\n"
           b"<http://example/s> <http://example/p> <http://example/o2> .\n"
           b"<http://example/s> <http://example/p> oops .\n"
           b"<http://example/s> <http://example/p> <http://example/o4> .\n")
    for chunk_size in (1, 7, 1 << 20):
        got = []
        with pytest.raises(RdfSyntaxError) as info:
            for item in parse_nquads(doc, chunk_size=chunk_size):
                got.append(item)
        assert got == [(S, P, ex("o1")), (S, P, ex("o2"))]
        assert info.value.line == 3


def test_error_line_numbers_with_many_lines():
    lines = ["<http://example/s> <http://example/p> <http://example/o> .\n"] * 5000
    lines[4321] = "<http://example/s> <http://example/p> \"bad\\z\" .\n"
    for chunk_size in (3, 1000, 1 << 20):
        err = parse_error("".join(lines), chunk_size=chunk_size)
        assert err.line == 4322


# ---------------------------------------------------------------------------------------------
# Message delimiters

def test_messages():
    doc = (b"#@message\n"
           b"<http://example/s> <http://example/p> <http://example/o1> .\n"
           b"#   @message foo\n"
           b"# message\n"
           b"#\t@message\n"
           b"# @messages are a prefix match\n"
           b"   # @message indented line\n"
           b"<http://example/s> <http://example/p> <http://example/o2> . # @message\n"
           b"#x @message\n"
           b"# @Message\n"
           b"# \xc2\xa0@message\n")
    assert parse(doc, messages=True) == [
        MESSAGE, (S, P, ex("o1")), MESSAGE, MESSAGE, MESSAGE, MESSAGE, (S, P, ex("o2")), MESSAGE]
    assert parse(doc) == [(S, P, ex("o1")), (S, P, ex("o2"))]
    assert repr(MESSAGE) == "MESSAGE"


@pytest.mark.parametrize("text", [
    "@message", " @message", "\t\t@message x", "\x0b\x0c@message", "\x1c\x1d\x1e\x1f@message",
    "\u00a0@message", "\u2003 @message", "\u3000@message", "\u0085@message", "message",
    " @messag", "@MESSAGE", "x@message", "\u200b@message", "\u00e9 @message", "",
    " ", "@", "@message\u00e9",
])
def test_message_rule_matches_regex(text):
    expected = re.match(r"^\s*@message", text) is not None
    doc = ("#" + text + "\n").encode("utf-8")
    assert parse(doc, messages=True) == ([MESSAGE] if expected else [])


# ---------------------------------------------------------------------------------------------
# Chunk boundaries and streams

CHUNK_DOC = ("\ufeff# h\u00e9ader comment\r\n"
             "<http://example/s> <http://example/p> \"caf\u00e9 \\u00e9 \\U0001F600 \U0001F600\"@fr-CA .\r\n"
             "\r\n"
             "#@message\n"
             "_:b\u00e9 <http://example/p> << <http://example/s> <http://example/p> \"x\\\"y\" >> <http://example/g> .\r"
             "<http://example/s> <http://example/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> . # tail\n"
             "# @message\n"
             "<http://example/\\u00E9> <http://example/p> _:x.").encode("utf-8")
CHUNK_EXPECTED = [
    (S, P, Literal("caf\u00e9 \u00e9 \U0001F600 \U0001F600", language="fr-CA")),
    MESSAGE,
    (BlankNode("b\u00e9"), P, Triple(S, P, Literal('x"y')), ex("g")),
    (S, P, Literal("1", datatype=IRI(XSD + "integer"))),
    MESSAGE,
    (ex("\u00e9"), P, BlankNode("x")),
]


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 7, 8, 13, 64, 1 << 20])
def test_chunk_boundaries(chunk_size):
    assert parse(CHUNK_DOC, messages=True, chunk_size=chunk_size) == CHUNK_EXPECTED
    assert list(parse_nquads(io.BytesIO(CHUNK_DOC), messages=True,
                             chunk_size=chunk_size)) == CHUNK_EXPECTED


class ShortReads(io.RawIOBase):
    """A stream returning fewer bytes than asked (like a pipe) and recording requests."""

    def __init__(self, data, pattern):
        self.data = data
        self.pos = 0
        self.pattern = pattern
        self.requests = []

    def readable(self):
        return True

    def read(self, n=-1):
        self.requests.append(n)
        k = min(n, self.pattern[len(self.requests) % len(self.pattern)])
        out = self.data[self.pos:self.pos + k]
        self.pos += len(out)
        return out


def test_short_reads_and_bounded_requests():
    stream = ShortReads(CHUNK_DOC, [1, 5, 2, 17, 3])
    assert list(parse_nquads(stream, messages=True, chunk_size=16)) == CHUNK_EXPECTED
    assert stream.requests and all(n == 16 for n in stream.requests)


def test_reads_in_chunks_not_all_at_once():
    doc = b"<http://example/s> <http://example/p> <http://example/o> .\n" * 2000
    stream = ShortReads(doc, [1 << 30])
    it = parse_nquads(stream, chunk_size=4096)
    assert next(it) == (S, P, O)
    assert stream.pos <= 4096
    assert sum(1 for _ in it) == 1999


def test_cr_at_chunk_end_then_lf():
    doc = b"<http://example/s> <http://example/p> <http://example/o> .\r\n" * 3 + b"oops"
    for chunk_size in range(1, 70):
        err = parse_error(doc, chunk_size=chunk_size)
        assert err.line == 4, chunk_size


def test_sources():
    line = b"<http://example/s> <http://example/p> <http://example/o> .\n"
    assert parse(bytearray(line)) == [(S, P, O)]
    assert list(parse_nquads(memoryview(line))) == [(S, P, O)]
    with pytest.raises(TypeError):
        parse_nquads("<http://example/s> <http://example/p> <http://example/o> .")
    with pytest.raises(TypeError):
        list(parse_nquads(io.StringIO("<http://example/s> <http://example/p> <http://example/o> .")))
    with pytest.raises(TypeError):
        parse_nquads(42)
    with pytest.raises(ValueError):
        parse_nquads(line, chunk_size=0)


# ---------------------------------------------------------------------------------------------
# Writing

def test_term_to_nt():
    assert term_to_nt(IRI("http://example/s")) == "<http://example/s>"
    assert term_to_nt(IRI("http://example/a b")) == "<http://example/a\\u0020b>"
    assert term_to_nt(IRI('http://x/<>"{}|^`\\')) == (
        "<http://x/\\u003C\\u003E\\u0022\\u007B\\u007D\\u007C\\u005E\\u0060\\u005C>")
    assert term_to_nt(IRI("http://x/\x00\x1f\n")) == "<http://x/\\u0000\\u001F\\u000A>"
    assert term_to_nt(IRI("http://x/\u00e9\U0001F600\x7f~")) == "<http://x/\u00e9\U0001F600\x7f~>"
    assert term_to_nt(IRI("http://x/\u00e9 \U0001F600")) == "<http://x/\u00e9\\u0020\U0001F600>"
    assert term_to_nt(BlankNode("b0")) == "_:b0"
    assert term_to_nt(Literal("plain")) == '"plain"'
    assert term_to_nt(Literal("")) == '""'
    assert term_to_nt(Literal('a"b\\c\nd\re')) == '"a\\"b\\\\c\\nd\\re"'
    assert term_to_nt(Literal("\t\b\f")) == '"\\t\\b\\f"'
    assert term_to_nt(Literal("\x00\x01\x0b\x0e\x1f\x7f")) == (
        '"\\u0000\\u0001\\u000B\\u000E\\u001F\\u007F"')
    assert term_to_nt(Literal("\u00e9\u20ac\U0001F600'\x80\x9f")) == '"\u00e9\u20ac\U0001F600\'\x80\x9f"'
    assert term_to_nt(Literal("\U0001F600\n")) == '"\U0001F600\\n"'
    assert term_to_nt(Literal("chat", language="en-GB")) == '"chat"@en-GB'
    assert term_to_nt(Literal("1", datatype=IRI(XSD + "integer"))) == (
        '"1"^^<http://www.w3.org/2001/XMLSchema#integer>')
    assert term_to_nt(Literal("1", datatype=XSD + "string")) == '"1"'
    assert term_to_nt(Literal("x", datatype=IRI("http://x/d t"))) == '"x"^^<http://x/d\\u0020t>'
    assert term_to_nt(Triple(BlankNode("a"), IRI("http://example/p"), Literal("1"))) == (
        '<< _:a <http://example/p> "1" >>')
    assert term_to_nt(Triple(Triple(BlankNode("a"), IRI("http://example/p"), Literal("1")),
                             IRI("http://example/q"), IRI("http://example/o"))) == (
        '<< << _:a <http://example/p> "1" >> <http://example/q> <http://example/o> >>')


def test_str_of_terms_is_ntriples():
    assert str(IRI("http://example/a b")) == "<http://example/a\\u0020b>"
    assert str(Literal("x\n", language="en")) == '"x\\n"@en'
    assert str(BlankNode("z")) == "_:z"
    assert str(Triple(S, P, O)) == "<< <http://example/s> <http://example/p> <http://example/o> >>"


@pytest.mark.parametrize("bad", ["x", None, 1, ("a",), DEFAULT_GRAPH, b"<x>"])
def test_term_to_nt_rejects_non_terms(bad):
    with pytest.raises(TypeError):
        term_to_nt(bad)


@pytest.mark.parametrize("term", [
    IRI("http://x/\ud800"), Literal("a\udfff"), Literal("a", language="e\ud800"),
    BlankNode("b\udc00"), Literal("x", datatype=IRI("http://x/\ud800")),
])
def test_lone_surrogates_are_refused(term):
    with pytest.raises(ValueError):
        term_to_nt(term)


def test_statement_to_nt():
    assert statement_to_nt((S, P, O)) == (
        "<http://example/s> <http://example/p> <http://example/o> .\n")
    assert statement_to_nt((S, P, O, ex("g"))) == (
        "<http://example/s> <http://example/p> <http://example/o> <http://example/g> .\n")
    assert statement_to_nt((S, P, O, DEFAULT_GRAPH)) == (
        "<http://example/s> <http://example/p> <http://example/o> .\n")
    assert statement_to_nt((S, P, O, None)) == (
        "<http://example/s> <http://example/p> <http://example/o> .\n")
    assert statement_to_nt((BlankNode("b"), P, Literal("v", language="en"), BlankNode("g"))) == (
        '_:b <http://example/p> "v"@en _:g .\n')
    assert statement_to_nt([Literal("s"), BlankNode("p"), Triple(S, P, O), Literal("g")]) == (
        '"s" _:p << <http://example/s> <http://example/p> <http://example/o> >> "g" .\n')
    with pytest.raises(ValueError):
        statement_to_nt((S, P, O, Triple(S, P, O)))
    with pytest.raises(ValueError):
        statement_to_nt((S, P))
    with pytest.raises(ValueError):
        statement_to_nt((S, P, O, O, O))
    with pytest.raises(TypeError):
        statement_to_nt((S, P, "o"))
    with pytest.raises(TypeError):
        statement_to_nt(42)


class CountingStream:
    def __init__(self):
        self.chunks = []
        self.flushes = 0
        self.closed = False

    def write(self, data):
        assert isinstance(data, bytes)
        self.chunks.append(data)
        return len(data)

    def flush(self):
        self.flushes += 1

    def close(self):
        self.closed = True


def test_writer_buffers_and_flushes():
    stream = CountingStream()
    w = NQuadsWriter(stream)
    w.write((S, P, O))
    w.write_message()
    w.write((S, P, Literal("\u00e9"), ex("g")))
    w.write(MESSAGE)
    assert stream.chunks == []
    w.flush()
    assert b"".join(stream.chunks) == (
        "<http://example/s> <http://example/p> <http://example/o> .\n"
        "# @message\n"
        "<http://example/s> <http://example/p> \"\u00e9\" <http://example/g> .\n"
        "# @message\n").encode("utf-8")
    assert stream.flushes == 1
    w.close()
    assert not stream.closed


def test_writer_batches_writes():
    stream = CountingStream()
    w = NQuadsWriter(stream)
    n = 20000
    for i in range(n):
        w.write((ex(f"s{i}"), P, Literal(str(i))))
    w.close()
    data = b"".join(stream.chunks)
    assert data.count(b"\n") == n
    assert len(stream.chunks) <= len(data) // 60000 + 2
    assert data.startswith(b'<http://example/s0> <http://example/p> "0" .\n')
    assert data.endswith(b'<http://example/s19999> <http://example/p> "19999" .\n')


def test_writer_context_manager_and_no_flush_method():
    out = io.BytesIO()
    with NQuadsWriter(out) as w:
        w.write((S, P, O))
    assert out.getvalue() == b"<http://example/s> <http://example/p> <http://example/o> .\n"

    class WriteOnly:
        def __init__(self):
            self.data = b""

        def write(self, b):
            self.data += b

    wo = WriteOnly()
    w = NQuadsWriter(wo)
    w.write((S, P, O))
    w.close()
    assert wo.data == b"<http://example/s> <http://example/p> <http://example/o> .\n"


def test_writer_round_trip_with_messages():
    out = io.BytesIO()
    w = NQuadsWriter(out)
    items = [MESSAGE, (S, P, O), (S, P, Literal("a\nb"), ex("g")), MESSAGE, MESSAGE,
             (Triple(S, P, O), P, BlankNode("x"))]
    for item in items:
        w.write(item)
    w.close()
    assert parse(out.getvalue(), messages=True) == items


# ---------------------------------------------------------------------------------------------
# Property tests

_SPECIAL = '"\\\n\r\t\b\f\x00\x01\x1f\x7f\x85\u00a0\u2028\ufeff\U0001F600\U0010FFFD <>{}|^`\'@#.'
_text = st.text(st.one_of(st.characters(blacklist_categories=("Cs",)), st.sampled_from(_SPECIAL)),
                max_size=30)
_iris = st.builds(lambda scheme, rest: IRI(scheme + ":" + rest),
                  st.sampled_from(["http", "urn", "a+b.c-d", "X1"]), _text)
# no ":" (the W3C tests nt-syntax-bad-bnode-01/02 reject it)
_LABEL_FIRST = "abcXYZ019_\u00c0\u00e9\u0370\u3001\U00010000"
_LABEL_REST = _LABEL_FIRST + "-.\u00b7\u0300\u203f"
_bnodes = st.builds(
    lambda first, rest: BlankNode((first + rest).rstrip(".") or first),
    st.sampled_from(_LABEL_FIRST), st.text(st.sampled_from(_LABEL_REST), max_size=8))
_langs = st.from_regex(r"[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8}){0,3}", fullmatch=True)
_literals = st.one_of(
    st.builds(Literal, _text),
    st.builds(lambda lex, lang: Literal(lex, language=lang), _text, _langs),
    st.builds(lambda lex, dt: Literal(lex, datatype=dt), _text,
              st.one_of(_iris, st.just(IRI(XSD + "string")), st.just(IRI(XSD + "integer")))),
)
_simple = st.one_of(_iris, _bnodes, _literals)
_quoted = st.builds(Triple, _simple, _simple, _simple)
_terms = st.one_of(_simple, _quoted, st.builds(Triple, _quoted, _simple, _quoted))
_graphs = st.one_of(_iris, _bnodes, _literals, st.just(DEFAULT_GRAPH))
_statements = st.one_of(st.tuples(_terms, _terms, _terms), st.tuples(_terms, _terms, _terms, _graphs))


def _expected(stmt):
    return stmt[:3] if len(stmt) == 4 and stmt[3] is DEFAULT_GRAPH else stmt


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_statements, max_size=6), st.sampled_from([1, 2, 3, 7, 1 << 20]))
def test_round_trip(stmts, chunk_size):
    text = "".join(statement_to_nt(s) for s in stmts)
    assert parse(text.encode("utf-8"), chunk_size=chunk_size) == [_expected(s) for s in stmts]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_statements, max_size=4))
def test_round_trip_through_writer(stmts):
    out = io.BytesIO()
    w = NQuadsWriter(out, buffer_size=50)
    for s in stmts:
        w.write(s)
    w.close()
    assert list(parse_nquads(io.BytesIO(out.getvalue()), chunk_size=5)) == [_expected(s) for s in stmts]


@settings(max_examples=200, deadline=None)
@given(_terms)
def test_term_text_is_a_valid_statement_part(term):
    line = f"{term_to_nt(term)} <http://example/p> {term_to_nt(term)} {term_to_nt(term) if type(term) is not Triple else ''} ."
    out = parse(line)
    assert out[0][0] == term and out[0][2] == term


_VALID_DOC = ("# header\n"
              "<http://example/s> <http://example/p> \"a\\u00e9\\n\\\"q\\\"\"@en-GB .\r\n"
              "_:b1 <http://example/p> << <http://example/s> <http://example/p> \"x\"^^<http://example/dt> >> <http://example/g> .\n"
              "#@message\n"
              "<http://example/\\u0041> <http://example/p> \"\u00e9\U0001F600\" _:g . # c\n"
              "<< _:a _:b _:c >> \"p\" _:o.\n").encode("utf-8")


def _check_outcome(doc, **kw):
    try:
        items = list(parse_nquads(doc, messages=True, **kw))
    except RdfSyntaxError as e:
        assert isinstance(e.line, int) and e.line >= 1
        return
    kinds = (IRI, BlankNode, Literal, Triple)
    for item in items:
        if item is MESSAGE:
            continue
        assert type(item) is tuple and len(item) in (3, 4)
        assert all(type(t) in kinds for t in item)


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_fuzz_mutations(data):
    doc = bytearray(_VALID_DOC)
    for _ in range(data.draw(st.integers(1, 6))):
        op = data.draw(st.sampled_from(["replace", "insert", "delete", "dup"]))
        i = data.draw(st.integers(0, len(doc)))
        if op == "replace" and i < len(doc):
            doc[i] = data.draw(st.integers(0, 255))
        elif op == "insert":
            doc[i:i] = data.draw(st.binary(min_size=1, max_size=4))
        elif op == "delete":
            del doc[i:i + data.draw(st.integers(1, 8))]
        else:
            j = data.draw(st.integers(i, min(len(doc), i + 20)))
            doc[i:i] = doc[i:j]
    _check_outcome(bytes(doc), chunk_size=data.draw(st.sampled_from([1, 3, 7, 1 << 20])))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_fuzz_random_bytes(doc):
    _check_outcome(doc)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"<", b">", b"<<", b">>", b"<<(", b")>>", b"_:", b"a", b".",
                                 b'"', b"\\", b"\\u", b"\\U0001", b"@", b"^^", b" ", b"\t",
                                 b"\n", b"\r", b"#", b"@message", b"http://x/", b"\xc3",
                                 b"\xa9", b"\xf0\x9f\x98\x80"]), max_size=40))
def test_fuzz_token_soup(parts):
    _check_outcome(b"".join(parts), chunk_size=3)


# ---------------------------------------------------------------------------------------------
# RDF 1.2 and the syntax= choice (expected values from the W3C grammars, written by hand)

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
T_SPO = Triple(S, P, O)


@pytest.mark.parametrize("doc,expected", [
    # RDF 1.2 triple terms, as objects, nested, without white space
    ("<http://example/s> <http://example/p> <<( <http://example/s> <http://example/p> "
     "<http://example/o> )>> .", [(S, P, T_SPO)]),
    ("<http://example/s><http://example/p><<(<http://example/s><http://example/p>"
     "<<(<http://example/s><http://example/p><http://example/o>)>>)>>.",
     [(S, P, Triple(S, P, T_SPO))]),
    ("_:b <http://example/p> <<( _:b <http://example/p> \"x\"@en )>> <http://example/g> .",
     [(BlankNode("b"), P, Triple(BlankNode("b"), P, Literal("x", language="en")), ex("g"))]),
    # directional language tags: the language keeps the direction after '--'
    ('<http://example/s> <http://example/p> "Hello"@en--ltr .',
     [(S, P, Literal("Hello", language="en--ltr"))]),
    ('<http://example/s> <http://example/p> "x"@en-GB--rtl <http://example/g> .',
     [(S, P, Literal("x", language="en-GB--rtl"), ex("g"))]),
    # the version directive
    ('VERSION "1.2"\n<http://example/s> <http://example/p> <http://example/o> .', [(S, P, O)]),
    ('VERSION"1.2-basic" # c\n', []),
])
def test_rdf12_positive(doc, expected):
    assert parse(doc, syntax="rdf12") == expected
    assert parse(doc) == expected                   # the default syntax reads RDF 1.2 too


@pytest.mark.parametrize("doc,where,message", [
    # RDF-star notation is not RDF 1.2 (W3C ntriples12-bad-reified-*)
    ("<< <http://example/s> <http://example/p> <http://example/o> >> <http://example/q> "
     "<http://example/z> .", 1, "'<< ... >>' is not RDF 1.2"),
    ("<http://example/x> <http://example/p> << <http://example/s> <http://example/p> "
     "<http://example/o> >> .", 39, "'<< ... >>' is not RDF 1.2"),
    # triple terms are objects only (W3C ntriples12-bad-syntax-01, -10)
    ("<http://example/a> <<( <http://example/s> <http://example/p> <http://example/o> )>> "
     "<http://example/z> .", 20, "cannot be the predicate"),
    ("<<( <http://example/s> <http://example/p> <http://example/o> )>> <http://example/a> "
     "<http://example/z> .", 1, "cannot be the subject"),
    # no generalized statements (W3C ntriples12-bad-syntax-02, -04)
    ('<http://example/q> <http://example/r> <<( "XYZ" <http://example/p> <http://example/o> )>> .',
     43, "a literal cannot be the subject"),
    ("<http://example/q> <http://example/r> <<( <http://example/s> _:p <http://example/o> )>> .",
     62, "blank node cannot be a predicate"),
    ('"s" <http://example/p> <http://example/o> .', 1, "a literal cannot be the subject"),
    ('<http://example/s> <http://example/p> <http://example/o> "g" .', 58,
     "a literal cannot be the graph label"),
    # language tags must be well-formed BCP 47 (W3C ntriples-langdir-bad-4)
    ('<http://example/a> <http://example/b> "Hello"@cantbethislong .', 46, "not well-formed"),
    ('<http://example/a> <http://example/b> "Hello"@en-x .', 46, "not well-formed"),
])
def test_rdf12_negative(doc, where, message):
    e = parse_error(doc, syntax="rdf12")
    assert message in e.message, e.message
    assert e.message.endswith(f"at column {where}") and e.line == 1, e.message


def test_rdf12_rules_in_every_syntax():
    # rdf:langString / rdf:dirLangString need a tag (W3C ntriples-langdir-bad-3, -5)
    for dt in ("langString", "dirLangString"):
        for syntax in (None, "rdf12", "rdf-star"):
            e = parse_error(f'<http://example/a> <http://example/b> "x"^^<{RDF}{dt}> .',
                            syntax=syntax)
            assert "needs a language tag" in e.message
    # a base direction is ltr or rtl, lowercase (W3C ntriples-langdir-bad-1, -2)
    for tag in ("en--LTR", "en--unk", "en--"):
        for syntax in (None, "rdf12"):
            parse_error(f'<http://example/a> <http://example/b> "x"@{tag} .', syntax=syntax)
    # the default syntax reads RDF 1.1 tags as the grammar has them
    assert parse('<http://example/a> <http://example/b> "x"@cantbethislong .') == [
        (ex("a"), ex("b"), Literal("x", language="cantbethislong"))]


def test_rdf_star_syntax():
    quoted = ("<< <http://example/s> <http://example/p> <http://example/o> >> "
              "<http://example/q> << _:b <http://example/p> \"x\" >> .")
    assert parse(quoted, syntax="rdf-star") == [
        (T_SPO, ex("q"), Triple(BlankNode("b"), P, Literal("x")))]
    for doc, message in [
        ("<http://example/s> <http://example/p> <<( <http://example/s> <http://example/p> "
         "<http://example/o> )>> .", "triple term '<<( ... )>>' (RDF 1.2) is not RDF-star"),
        ('<http://example/s> <http://example/p> "x"@en--ltr .', "directional language tag"),
        ('VERSION "1.2"', "VERSION directive"),
        ("<http://example/s> << <http://example/s> <http://example/p> <http://example/o> >> "
         "<http://example/o> .", "cannot be a predicate"),
        ('<http://example/s> "p" <http://example/o> .', "a literal cannot be the predicate"),
    ]:
        assert message in parse_error(doc, syntax="rdf-star").message


def test_default_syntax_reads_both_notations_and_generalized_statements():
    doc = ('<< <http://example/s> <http://example/p> <http://example/o> >> "p" '
           '<<( _:b _:p <http://example/o> )>> .')
    assert parse(doc) == [(T_SPO, Literal("p"), Triple(BlankNode("b"), BlankNode("p"), O))]


def test_unknown_syntax():
    with pytest.raises(ValueError, match="unknown syntax"):
        parse_nquads(b"", syntax="rdf11")


def test_term_parser_syntax():
    from jelly._ntriples import TermParser
    t = TermParser(syntax="rdf12").parse("<<( <http://example/s> <http://example/p> <http://example/o> )>>")
    assert t == T_SPO
    with pytest.raises(RdfSyntaxError):
        TermParser(syntax="rdf12").parse("<< <http://example/s> <http://example/p> <http://example/o> >>")
    assert TermParser().parse("<< <http://example/s> <http://example/p> <http://example/o> >>") == T_SPO


def test_writer_rdf12_syntax():
    nested = (S, P, Triple(S, P, T_SPO), ex("g"))
    assert statement_to_nt(nested, syntax="rdf12") == (
        "<http://example/s> <http://example/p> <<( <http://example/s> <http://example/p> "
        "<<( <http://example/s> <http://example/p> <http://example/o> )>> )>> <http://example/g> .\n")
    assert term_to_nt(T_SPO) == "<< <http://example/s> <http://example/p> <http://example/o> >>"
    assert term_to_nt(T_SPO, syntax="rdf-star") == term_to_nt(T_SPO)
    for stmt in [(T_SPO, P, O), (S, P, Triple(T_SPO, P, O))]:
        with pytest.raises(JellyError, match="--to-rdf12"):
            statement_to_nt(stmt, syntax="rdf12")
    out = io.BytesIO()
    with NQuadsWriter(out, syntax="rdf12") as w:
        w.write((S, P, T_SPO))
    assert out.getvalue() == (b"<http://example/s> <http://example/p> <<( <http://example/s> "
                              b"<http://example/p> <http://example/o> )>> .\n")
    with pytest.raises(ValueError, match="unknown syntax"):
        statement_to_nt((S, P, O), syntax="rdf13")


def test_writer_rdf12_refuses_generalized_statements(tmp_path):
    """RDF 1.2 text has IRIs or blank nodes as subjects and graph names, IRIs as predicates:
    ``syntax="rdf12"`` refuses the rest (a generalized Jelly stream) instead of writing text
    that no RDF 1.2 reader (jelly's included) takes back, on every path that writes it."""
    lit, b = Literal("lit"), BlankNode("p")
    for stmt, what in [((lit, P, O), "a literal as subject"),
                       ((S, b, O), "a blank node as predicate"),
                       ((S, lit, O), "a literal as predicate"),
                       ((S, P, O, lit), "a literal as graph name"),
                       ((S, P, Triple(lit, P, O)), "a literal as subject")]:
        with pytest.raises(JellyError, match=what):
            statement_to_nt(stmt, syntax="rdf12")
        statement_to_nt(stmt)                       # generalized N-Triples by default
        src = tmp_path / "g.jelly"
        jelly.serialize([stmt], src, generalized_statements=True, rdf_star=True)
        for to in ("nq", "ttl" if len(stmt) == 3 else "trig"):
            args = ["convert", src, "-", "--to", to] + (["--syntax", "rdf12"] if to == "nq"
                                                        else [])
            proc = run_jelly(*args)
            assert proc.returncode == 1 and what.split(" as ")[1] in proc.stderr.decode(), \
                (stmt, to, proc.stderr)
            assert proc.stderr.decode().count("\n") == 1 and "pyoxigraph" not in \
                proc.stderr.decode() and "Named" not in proc.stderr.decode()


def test_writer_rdf12_refuses_relative_iris(tmp_path):
    """A Jelly stream may hold relative IRIs; RDF 1.2 N-Triples has none (the reader refuses
    them): ``syntax="rdf12"`` refuses them as subject, predicate, object, graph name or
    datatype; the default writes them as they are."""
    rel = IRI("rel")
    for stmt in [(rel, P, O), (S, rel, O), (S, P, rel), (S, P, O, rel),
                 (S, P, Literal("x", datatype="dt")), (S, P, Triple(S, P, rel))]:
        with pytest.raises(JellyError, match="is relative"):
            statement_to_nt(stmt, syntax="rdf12")
        assert "<rel>" in statement_to_nt(stmt) or "<dt>" in statement_to_nt(stmt)
        src = tmp_path / "r.jelly"
        jelly.serialize([stmt], src, rdf_star=True)
        proc = run_jelly("convert", src, "-", "--to", "nq", "--syntax", "rdf12")
        assert proc.returncode == 1 and "is relative" in proc.stderr.decode(), (stmt, proc)
        assert run_jelly("convert", src, "-", "--to", "nq").returncode == 0


def test_blank_node_labels_are_written_one_to_one_and_valid_ones_as_they_are():
    """A label that is not a BLANK_NODE_LABEL is written 'j-' + the hex of its UTF-8; a valid
    label only when it is such an escape of another label (it would collide with it).  Every
    other label, also 'j-ab' or 'j-6162', is written as it is: all labels of that shape were
    escaped, and text-to-text renamed such a node on every pass (a patch diff then apply did
    not give the second file)."""
    import pyoxigraph as ox
    kept = ["ab", "j-ab", "j-6162", "j-", "j-0", "j-zz", "j-ABCD", "j-c3", "j-e282", "x.y"]
    for label in kept:
        assert term_to_nt(BlankNode(label)) == f"_:{label}"
    escaped = {"a b": None, "\x00": None, "a:b": None, ".a": None}
    for label in escaped:
        assert term_to_nt(BlankNode(label)) == "_:j-" + label.encode().hex()
    # the escapes of those, and escapes of escapes, as labels in their own right
    chain = ["j-" + label.encode().hex() for label in escaped]
    chain += ["j-" + label.encode().hex() for label in chain]
    for label in chain:
        assert term_to_nt(BlankNode(label)) == "_:j-" + label.encode().hex()
    labels = kept + list(escaped) + chain
    written = [term_to_nt(BlankNode(label)) for label in labels]
    assert len(set(written)) == len(labels)
    for text in written:        # each a valid N-Triples blank node (pyoxigraph's parser)
        quads = list(ox.parse(f"{text} <http://p> <http://o> .\n".encode(),
                              format=ox.RdfFormat.N_TRIPLES))
        assert quads[0].subject.value == text[2:]


def test_escaped_literals_are_canonical_strs():
    """The escaped text is built in one new str, whose width must be that of the characters
    it holds: a literal whose only wide characters are escaped (U+FFFE) gives ASCII, and a
    str of a wider kind than its characters compares unequal to the same text."""
    for lex in ["a\ufffeb", "\uffff", "\ufffe\u00e9\n", "\u20ac\t", "\U0001F600\"", "\x00",
                "\u00e9" * 3 + "\x7f", "plain \\ " * 50]:
        text = term_to_nt(Literal(lex))
        assert text == text.encode().decode(), repr(lex)


def test_writer_rdf12_details():
    # directional tags, U+FFFE / U+FFFF escaped (RDF 1.2 canonical N-Triples), labels without ':'
    assert term_to_nt(Literal("a\ufffeb\uffff", language="ar--rtl")) == '"a\\uFFFEb\\uFFFF"@ar--rtl'
    assert term_to_nt(BlankNode("a:b")) == "_:j-" + b"a:b".hex()
    with pytest.raises(JellyEncodeError):
        term_to_nt(Literal("x", language="en--up"))
