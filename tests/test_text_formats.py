"""Turtle, TriG, N3, RDF/XML and JSON-LD through pyoxigraph (jelly.oxigraph) in the conversion
library and the command: data comes back exactly as written (lexical forms, characters,
prefixes), relative IRIs resolve against --base or the input's location, errors are one line
with the line and column, and big inputs stream.

Expected N-Quads are written out by hand.
"""

from __future__ import annotations

import io

import pytest

from helpers import run_jelly
from jelly import BlankNode, IRI, JellyError, Literal, parse_frames
from jelly.convert import convert

XSD = "http://www.w3.org/2001/XMLSchema#"
TURTLE = (b'@prefix ex: <http://example/> .\n'
          b'@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n'
          b'ex:s ex:p 1E0, 01, 1.50, "2.50"^^xsd:decimal, true, "a\\rb\\u00e9\\t" ;\n'
          b'     ex:q "chat"@en-GB, <rel#x> .\n')


def _nq(data: bytes, fmt: str, *args) -> str:
    out = io.BytesIO()
    convert(data, out, from_format=fmt, to_format="nq", **dict(args))
    return out.getvalue().decode()


def test_turtle_keeps_what_it_was_given(tmp_path):
    src = tmp_path / "data.ttl"
    src.write_bytes(TURTLE)
    jelly = tmp_path / "data.jelly"
    convert(src, jelly)
    back = io.BytesIO()
    convert(jelly, back, to_format="nq")
    base = src.resolve().as_uri()
    base_dir = base.rsplit("/", 1)[0]
    assert back.getvalue().decode() == (
        '<http://example/s> <http://example/p> "1E0"^^<http://www.w3.org/2001/XMLSchema#double> .\n'
        '<http://example/s> <http://example/p> "01"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'
        '<http://example/s> <http://example/p> "1.50"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n'
        '<http://example/s> <http://example/p> "2.50"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n'
        '<http://example/s> <http://example/p> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .\n'
        '<http://example/s> <http://example/p> "a\\rb\u00e9\\t" .\n'
        '<http://example/s> <http://example/q> "chat"@en-gb .\n'
        f'<http://example/s> <http://example/q> <{base_dir}/rel#x> .\n')
    # the prefixes travel as namespace declarations and come back in Turtle
    frames = list(parse_frames(jelly))
    assert ("ex", IRI("http://example/")) in [(n, IRI(str(i.value if isinstance(i, IRI) else i)))
                                               for n, i in frames[0].namespaces]
    ttl = io.BytesIO()
    convert(jelly, ttl, to_format="ttl")
    assert ttl.getvalue().decode().startswith(
        "@prefix ex: <http://example/> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "ex:s ex:p 1E0 , 01 , 1.50 , 2.50 , true , \"a\\rb\u00e9\\t\" ;\n")


def test_base():
    data = b"<s> <http://example/p> <../o> ."
    assert _nq(data, "ttl", ("base", "http://example/a/b")) == (
        "<http://example/a/s> <http://example/p> <http://example/o> .\n")
    # bytes have no location: a relative IRI without --base is an error
    with pytest.raises(Exception, match="line 1") as info:
        _nq(data, "ttl")
    assert "column 1" in str(info.value)
    with pytest.raises(Exception, match="not an absolute IRI"):
        _nq(data, "ttl", ("base", "no scheme"))


@pytest.mark.parametrize("data,fmt,where", [
    (b"@prefix ex: <http://example/> .\nex:s ex:p ex:o\n", "ttl", "(at line 3)"),
    (b"<http://example/s> <http://example/p> \"x .\n", "ttl", "at column 39"),
    (b"@prefix ex: <http://example/> .\n\nex:s ex:p ex:o, .", "ttl", "(at line 3)"),
    (b"{ <http://example/s> <http://example/p> <http://example/o> . } }", "trig", "line 1"),
])
def test_syntax_errors_are_one_line_with_the_place(tmp_path, data, fmt, where):
    src = tmp_path / f"bad.{fmt}"
    src.write_bytes(data)
    proc = run_jelly("convert", src, tmp_path / "out.jelly")
    err = proc.stderr.decode()
    assert proc.returncode == 1 and err.startswith("jelly: error: ") and err.count("\n") == 1
    assert where in err, err
    assert not (tmp_path / "out.jelly").exists()


def test_rdf_star_turtle():
    data = (b"@prefix : <http://example/> .\n"
            b"<< :a :b :c >> :source :x .\n"
            b":s :p << :a :b :c >> .\n"
            b":a :b :c {| :date 2025 |} .\n")
    t = "<< <http://example/a> <http://example/b> <http://example/c> >>"
    assert _nq(data, "ttl", ("syntax", "rdf-star")) == (
        f"{t} <http://example/source> <http://example/x> .\n"
        f"<http://example/s> <http://example/p> {t} .\n"
        "<http://example/a> <http://example/b> <http://example/c> .\n"
        f'{t} <http://example/date> "2025"^^<http://www.w3.org/2001/XMLSchema#integer> .\n')
    # read as RDF 1.2 (the default): << >> is a reifier
    rdf12 = _nq(data, "ttl")
    assert rdf12.count("<http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies>") == 3


def test_trig_jsonld_rdfxml_n3_round_trips():
    trig = (b'@prefix ex: <http://example/> .\n'
            b'ex:g { ex:s ex:p "x"@en, _:b . }\n'
            b'ex:s ex:p "1.0"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n')
    expected = ('<http://example/s> <http://example/p> "x"@en <http://example/g> .\n'
                '<http://example/s> <http://example/p> _:b <http://example/g> .\n'
                '<http://example/s> <http://example/p> "1.0"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n')
    assert _nq(trig, "trig") == expected
    for fmt in ("trig", "jsonld"):
        jelly, text = io.BytesIO(), io.BytesIO()
        convert(trig, jelly, from_format="trig", to_format="jelly")
        convert(jelly.getvalue(), text, from_format="jelly", to_format=fmt)
        again = _nq(text.getvalue(), fmt)
        assert _same_up_to_bnodes(again, expected), (fmt, again)
    triples = b'<http://example/s> <http://example/p> "x\\ry", "2"^^<http://example/dt> .\n'
    for fmt in ("xml", "n3", "ttl"):
        out = io.BytesIO()
        convert(triples, out, from_format="ttl", to_format=fmt)
        assert _nq(out.getvalue(), fmt) == (
            '<http://example/s> <http://example/p> "x\\ry" .\n'
            '<http://example/s> <http://example/p> "2"^^<http://example/dt> .\n'), fmt


def _same_up_to_bnodes(a: str, b: str) -> bool:
    import re
    norm = lambda s: sorted(re.sub(r"_:\w+", "_:X", s).splitlines())  # noqa: E731
    return norm(a) == norm(b)


def test_what_a_format_cannot_hold(tmp_path):
    quads = b"<http://example/s> <http://example/p> <http://example/o> <http://example/g> .\n"
    with pytest.raises(Exception, match="named graph.*TriG"):
        convert(quads, io.BytesIO(), from_format="nq", to_format="ttl")
    star = b"<< <http://example/s> <http://example/p> <http://example/o> >> <http://example/p> <http://example/o> .\n"
    with pytest.raises(Exception, match="--to-rdf12"):
        convert(star, io.BytesIO(), from_format="nt", to_format="ttl")
    out = io.BytesIO()
    convert(star, out, from_format="nt", to_format="ttl", migrate="rdf12")
    assert b"<http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<(" in out.getvalue()
    # a base direction has no field in Jelly 1.1
    src = tmp_path / "dir.ttl"
    src.write_bytes(b'<http://example/s> <http://example/p> "Hello"@en--ltr .\n')
    proc = run_jelly("convert", src, tmp_path / "dir.jelly")
    err = proc.stderr.decode()
    assert proc.returncode == 1 and "base direction" in err and "Jelly 1.1" in err
    assert _nq(src.read_bytes(), "ttl") == \
        '<http://example/s> <http://example/p> "Hello"@en--ltr .\n'


@pytest.mark.parametrize("fmt", ["ttl", "trig", "xml", "jsonld"])
def test_a_literal_over_16_mib_is_written_and_refused_as_input_in_one_line(tmp_path, fmt):
    """pyoxigraph's parsers stop at a token of 16 MiB (a MemoryError).  Writing a text format
    from Jelly goes through its N-Quads parser, which must not be where such a literal stops;
    reading one from a text format is pyoxigraph's limit, and says so."""
    import jelly
    lex = "\u00e9" + "a" * (17 << 20)
    data = jelly.serialize([(IRI("http://e/s"), IRI("http://e/p"), Literal(lex))])
    (tmp_path / "big.jelly").write_bytes(data)
    out = tmp_path / f"big.{'rdf' if fmt == 'xml' else fmt}"
    proc = run_jelly("convert", tmp_path / "big.jelly", out)
    assert proc.returncode == 0, proc.stderr
    text = out.read_bytes().decode()
    assert lex in text and text.count("a" * 1000) == (17 << 20) // 1000
    if fmt == "ttl":
        proc = run_jelly("convert", out, tmp_path / "back.nt")
        lines = proc.stderr.decode().strip().splitlines()
        assert proc.returncode == 1 and len(lines) == 1, lines
        assert "a literal or IRI is longer than pyoxigraph reads" in lines[0]
        assert not (tmp_path / "back.nt").exists()


def test_rdf_xml_output_is_xml_that_readers_take(tmp_path):
    """pyoxigraph's RDF/XML writer wrote rdf:nodeID="1" for _:1, <oxprefix:> for a predicate
    that ends with no XML name, control characters as they are, and a carriage return raw
    (read back as a line feed): XML that rdflib refuses, or that says something else."""
    import rdflib
    from rdflib.compare import isomorphic
    src = tmp_path / "in.nt"
    src.write_bytes(
        b'_:1 <http://e/p> _:2 .\n_:_x <http://e/p> _:x .\n_:2 <http://e/p> _:_x .\n'
        b'_:x <http://e/p> "rdf:nodeID=\\"1\\" <oxprefix: >" .\n'
        b'<http://e/s> <http://e/1p> "a\\rb\\r\\n" .\n<http://e/s> <http://e/a-b.c> "\\u00e9" .\n'
        b'<http://e/s> <urn:x:y> "d"@en .\n')
    out = tmp_path / "out.rdf"
    proc = run_jelly("convert", src, out)
    assert proc.returncode == 0, proc.stderr
    got = rdflib.Graph().parse(out, format="xml")          # rdflib refused the old output
    assert isomorphic(got, rdflib.Graph().parse(src, format="nt"))
    assert any(str(o) == "a\rb\r\n" for o in got.objects())
    for line, what in ((b'<http://e/s> <http://e/> "x" .\n', "the predicate <http://e/>:"),
                       (b'<http://e/s> <http://e/p#x?> "x" .\n', "the predicate <http://e/p#x?>"),
                       (b'<http://e/s> <http://e/p> "a\\u0001b" .\n', "character U+0001"),
                       (b'<http://e/s> <http://e/p> "a\\uFFFFb" .\n', "character U+FFFF")):
        src.write_bytes(line)
        proc = run_jelly("convert", src, out)
        err = proc.stderr.decode().strip().splitlines()
        assert proc.returncode == 1 and len(err) == 1, err
        assert err[0].startswith("jelly: error: RDF/XML cannot hold ") and what in err[0], err
        assert rdflib.Graph().parse(out, format="xml")     # the earlier output, untouched


def test_rdf_xml_mends_triple_terms_too(tmp_path):
    """An RDF 1.2 triple term is written inside rdf:parseType="Triple": its blank nodes,
    carriage returns and predicates are mended or refused as anywhere else."""
    import pyoxigraph
    src = tmp_path / "in.nt"
    src.write_bytes(b'<http://e/s> <http://e/p> <<( _:1 <http://e/a> "x\\r" )>> .\n'
                    b'_:1 <http://e/b> <<( <http://e/s> <http://e/a> _:_1 )>> .\n')
    out = tmp_path / "out.rdf"
    proc = run_jelly("convert", src, out, "--syntax", "rdf12")
    assert proc.returncode == 0, proc.stderr
    (q2, q1) = sorted(pyoxigraph.parse(path=str(out)), key=lambda q: q.predicate.value)
    inner1, inner2 = q1.object, q2.object
    assert inner1.object.value == "x\r" and q2.subject == inner1.subject
    assert isinstance(inner2.object, pyoxigraph.BlankNode) and inner2.object != q2.subject
    src.write_bytes(b'<http://e/s> <http://e/p> <<( <http://e/s> <http://e/> "x" )>> .\n')
    proc = run_jelly("convert", src, out, "--syntax", "rdf12")
    assert proc.returncode == 1 and b"the predicate <http://e/>:" in proc.stderr, proc.stderr


def test_rdf_xml_is_mended_across_the_writes_of_pyoxigraph():
    """The XML is mended a line at a time: a label or a carriage return cut by one of
    pyoxigraph's writes is mended all the same."""
    from jelly.oxigraph import _XmlOutput
    doc = (b'<rdf:Description rdf:nodeID="1">\n\t<p rdf:nodeID="_x"/>\n'
           b'<p>a\rb</p>\n</rdf:Description>\n') * 3000          # mended 64 KiB at a time
    want = doc.replace(b'nodeID="1"', b'nodeID="_1"').replace(b'"_x"', b'"__x"') \
        .replace(b"\r", b"&#xD;")
    for size in (1, 7, 13, 4093, 65537, len(doc)):
        out = io.BytesIO()
        xml = _XmlOutput(out)
        for i in range(0, len(doc), size):
            xml.write(doc[i:i + size])
        xml.finish()
        assert out.getvalue() == want, size


def test_message_logs(tmp_path):
    log = (b"@prefix ex: <http://example/> .\n"
           b"# @message\nex:a ex:p _:x .\n"
           b"# @message\nex:b ex:p _:x .\n")
    jelly = io.BytesIO()
    convert(log, jelly, from_format="ttl", to_format="jelly")
    frames = list(parse_frames(jelly.getvalue()))
    assert [len(f.statements) for f in frames] == [1, 1]
    (a, _, xa), (b, _, xb) = frames[0].statements[0], frames[1].statements[0]
    assert (a, b) == (IRI("http://example/a"), IRI("http://example/b"))
    assert type(xa) is BlankNode and xa != xb          # blank nodes are scoped per message
    out = io.BytesIO()
    convert(jelly.getvalue(), out, from_format="jelly", to_format="ttl", messages=True)
    text = out.getvalue().decode()
    assert text.count("# @message\n") == 2 and text.count("@prefix ex:") == 1
    nd = io.BytesIO()
    convert(jelly.getvalue(), nd, from_format="jelly", to_format="ndjsonld")
    assert len(nd.getvalue().splitlines()) == 2
    again = io.BytesIO()
    convert(nd.getvalue(), again, from_format="ndjsonld", to_format="jelly")
    assert [len(f.statements) for f in parse_frames(again.getvalue())] == [1, 1]
    # an error in a later message names its line in the whole log
    bad = log + b"# @message\nex:c ex:p .\n"
    with pytest.raises(Exception, match=r"column 11 \(Turtle\) \(at line 7\)"):
        convert(bad, io.BytesIO(), from_format="ttl", to_format="jelly")


@pytest.mark.parametrize("fmt", ["nt", "nq"])
def test_n_triples_message_logs_scope_blank_nodes_per_message(fmt):
    """As for Turtle: _:x of one message is not _:x of the next (RDF Messages, section 2),
    in the Jelly frames written, in text and whichever way a reader scopes labels."""
    log = (b"# @message\n_:x <http://example/p> _:y .\n"
           b"# @message\n_:x <http://example/p> << _:y <http://example/q> _:z >> .\n"
           b"<http://example/s> <http://example/p> \"no blank node\" .\n")
    jelly = io.BytesIO()
    convert(log, jelly, from_format=fmt, to_format="jelly", rdf_star=True)
    frames = list(parse_frames(jelly.getvalue()))
    assert [len(f.statements) for f in frames] == [1, 2]
    (x1, _, y1), (x2, _, t2) = frames[0].statements[0][:3], frames[1].statements[0][:3]
    assert type(x1) is BlankNode and x1 != x2 and y1 != t2.s
    assert {x1, y1}.isdisjoint({x2, t2.s, t2.o})
    assert x2 != t2.s != t2.o                           # distinct in a message stay distinct
    assert frames[1].statements[1][2] == Literal("no blank node")
    # to text: a log read back as one document keeps them apart too
    text = io.BytesIO()
    convert(log, text, from_format=fmt, to_format="nq")
    labels = [line.split()[0] for line in text.getvalue().splitlines()[:2]]
    assert labels[0].startswith(b"_:") and labels[0] != labels[1]
    # without message lines the labels are the document's own
    flat = io.BytesIO()
    convert(b"_:x <http://example/p> _:y .\n", flat, from_format=fmt, to_format="nq")
    assert flat.getvalue() == b"_:x <http://example/p> _:y .\n"


def test_turtle_streams(tmp_path):
    """A big document becomes many frames, and the first ones are written before the whole
    input has been read."""
    n = 20000
    src = tmp_path / "big.ttl"
    src.write_bytes(b"@prefix ex: <http://example/> .\n" +
                    b"".join(b"ex:s%d ex:p %d .\n" % (i, i) for i in range(n)))
    read = []

    class Spy(io.RawIOBase):
        def __init__(self, f):
            self.f = f

        def readable(self):
            return True

        def readinto(self, b):
            data = self.f.read(len(b))
            b[:len(data)] = data
            read.append(len(data))
            return len(data)

    from jelly.oxigraph import OxigraphSource
    with open(src, "rb") as f:
        source = OxigraphSource(io.BufferedReader(Spy(f), 4096), format="ttl")
        frames = source.frames()
        first, _ = next(frames)
        assert len(first.statements) == 1024
        assert sum(read) < src.stat().st_size // 2
        rest = sum(len(fr.statements) for fr, _ in frames)
    assert len(first.statements) + rest == n
    assert first.statements[0] == (IRI("http://example/s0"), IRI("http://example/p"),
                                   Literal("0", datatype=XSD + "integer"))
    assert first.namespaces == [("ex", "http://example/")]


def test_cli_options(tmp_path):
    src = tmp_path / "a.nt"
    src.write_text("<http://example/s> <http://example/p> <<( <http://example/a> "
                   "<http://example/b> <http://example/c> )>> .\n")
    proc = run_jelly("convert", src, "-", "--to", "nt", "--syntax", "rdf-star")
    assert proc.returncode == 1 and "is not RDF-star" in proc.stderr.decode()
    proc = run_jelly("convert", src, "-", "--to", "nt", "--syntax", "rdf12")
    assert proc.stdout.decode() == src.read_text()
    assert run_jelly("convert", src, "-", "--to", "nt").stdout.decode() == (
        "<http://example/s> <http://example/p> << <http://example/a> <http://example/b> "
        "<http://example/c> >> .\n")
    proc = run_jelly("convert", src, "-", "--to", "nt", "--syntax", "rdf11")
    assert proc.returncode == 1 and "invalid choice" in proc.stderr.decode()
    proc = run_jelly("convert", src, "-", "--to-rdf12", "--to-rdf-star", "--to", "nt")
    assert proc.returncode == 1 and "not allowed with" in proc.stderr.decode()
    ttl = tmp_path / "rel.ttl"
    ttl.write_text("<s> <p> <o> .\n")
    proc = run_jelly("convert", "-", "-", "--from", "ttl", "--to", "nt", stdin=ttl.read_bytes())
    assert proc.returncode == 1 and "line 1" in proc.stderr.decode()
    proc = run_jelly("convert", "-", "-", "--from", "ttl", "--to", "nt", "--base",
                     "http://example/", stdin=ttl.read_bytes())
    assert proc.stdout.decode() == "<http://example/s> <http://example/p> <http://example/o> .\n"


def test_flat_text_to_turtle_is_written_a_batch_at_a_time(tmp_path, monkeypatch):
    """N-Triples input is one flat frame: Turtle, TriG and N3 output serialize it a batch at a
    time (a 2M-statement file took 970 MB when it was serialized whole), and the result reads
    back to the same statements."""
    import jelly.oxigraph as jox
    from jelly.convert import convert
    src = tmp_path / "in.nt"
    src.write_text("".join(f'<http://e/s{i % 700}> <http://e/p> "v{i}"@en-GB .\n'
                           for i in range(10_000)))
    sizes = []
    real = jox.ox.serialize

    def spy(items, *args, **kwargs):
        sizes.append(len(items))
        return real(items, *args, **kwargs)
    monkeypatch.setattr(jox, "STREAMED_BATCH", 1000)
    monkeypatch.setattr(jox.ox, "serialize", spy)
    convert(str(src), str(tmp_path / "out.ttl"))
    assert sum(sizes) == 10_000 and max(sizes) <= 1000
    monkeypatch.undo()
    convert(str(tmp_path / "out.ttl"), str(tmp_path / "back.nt"))
    # (pyoxigraph writes language tags in lower case, their value)
    assert sorted((tmp_path / "back.nt").read_text().splitlines()) == \
        sorted(line.replace("@en-GB", "@en-gb") for line in src.read_text().splitlines())


def test_jelly_to_turtle_lets_pyoxigraph_read_the_decoded_text(tmp_path, monkeypatch):
    """Jelly input is decoded to N-Triples text and parsed by pyoxigraph, not made into
    pyoxigraph terms one Python call at a time (more than half of a conversion to
    Turtle).  Quoted triples, written in RDF-star notation that pyoxigraph does not read, are
    written again by jelly's writer as RDF 1.2 triple terms; what pyoxigraph still refuses is
    converted term by term, with the errors of that route."""
    import jelly.oxigraph as jox
    made = []
    real = jox._ToOx.__call__
    monkeypatch.setattr(jox._ToOx, "__call__", lambda self, t: made.append(t) or real(self, t))
    lines = [f'<http://example/s{i % 50}> <http://example/p> "v{i}"@en .\n' for i in range(3000)]
    nt = tmp_path / "in.nt"
    nt.write_text("".join(lines))
    convert(str(nt), str(tmp_path / "in.jelly"), rows_per_frame=700)
    made.clear()
    convert(str(tmp_path / "in.jelly"), str(tmp_path / "out.ttl"))
    assert made == []                   # no term made in Python
    assert sorted(_nq((tmp_path / "out.ttl").read_bytes(), "ttl").splitlines(True)) == \
        sorted(lines)
    # a quoted triple in the middle of a frame: the statements before it are pyoxigraph's, the
    # rest written again as RDF 1.2, none twice, no term made in Python; prefixes travel
    star = (["@prefix ex: <http://example/> .\n"] + lines[:10]
            + ["ex:s ex:p <<( ex:a ex:b ex:c )>> .\n"] + lines[10:20])
    (tmp_path / "star.ttl").write_text("".join(star))
    convert(str(tmp_path / "star.ttl"), str(tmp_path / "star.jelly"), rdf_star=True)
    made.clear()
    convert(str(tmp_path / "star.jelly"), str(tmp_path / "star-out.ttl"))
    text = (tmp_path / "star-out.ttl").read_bytes()
    assert text.startswith(b"@prefix ex: <http://example/> .\n") and b"<<( ex:a" in text
    assert len(_nq(text, "ttl").splitlines()) == 21
    assert made == []
    # a quoted triple as subject has no RDF 1.2 spelling: the term route says so
    (tmp_path / "subject.nt").write_text("<< <http://example/a> <http://example/b> "
                                         "<http://example/c> >> <http://example/p> \"1\" .\n")
    convert(str(tmp_path / "subject.nt"), str(tmp_path / "subject.jelly"), rdf_star=True)
    with pytest.raises(JellyError, match="quoted triple as subject"):
        convert(str(tmp_path / "subject.jelly"), str(tmp_path / "subject.ttl"))
    assert made                         # converted term by term, up to the refused one
    # a statement pyoxigraph refuses: the error of the term route
    (tmp_path / "gen.nt").write_text('"lit" <http://example/p> <http://example/o> .\n')
    convert(str(tmp_path / "gen.nt"), str(tmp_path / "gen.jelly"), generalized_statements=True)
    with pytest.raises(JellyError, match=r"a literal as subject \(a generalized statement\) "
                                         r"cannot be written in Turtle"):
        convert(str(tmp_path / "gen.jelly"), str(tmp_path / "gen.ttl"))


def _numbered(n: int) -> bytes:
    """``n`` statements as N-Triples, each with its own literal."""
    return b"".join(b'<http://example/s%d> <http://example/p> "value %d" .\n' % (i // 5, i)
                    for i in range(n))


@pytest.mark.parametrize("fmt, ox_format", [("xml", "RDF_XML"), ("jsonld", "JSON_LD")])
def test_rdfxml_and_jsonld_are_written_as_the_statements_come(tmp_path, fmt, ox_format):
    """One document, the bytes pyoxigraph writes from all the statements at once, without
    holding them: the peak of Python memory stays far under the 300 bytes a statement that
    holding the document took."""
    import threading
    import tracemalloc

    import pyoxigraph as ox

    import jelly
    n = 200_000
    text = _numbered(n)
    data = io.BytesIO()
    convert(text, data, from_format="nt", to_format="jelly", rows_per_frame=1000)
    convert(_numbered(10), tmp_path / f"warm.{fmt}", from_format="nt")   # first-use caches
    threads, jelly_bytes = threading.active_count(), data.getvalue()
    tracemalloc.start()
    try:
        convert(jelly_bytes, tmp_path / f"out.{fmt}")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 30 * n, peak
    assert threading.active_count() == threads
    expected = ox.serialize(ox.parse(text, format=ox.RdfFormat.N_TRIPLES),
                            format=getattr(ox.RdfFormat, ox_format))
    assert (tmp_path / f"out.{fmt}").read_bytes() == expected
    assert len(list(jelly.parse(data.getvalue()))) == n
    empty = io.BytesIO()
    convert(b"", empty, from_format="nt", to_format=fmt)
    assert empty.getvalue() == ox.serialize([], format=getattr(ox.RdfFormat, ox_format))


def test_an_error_while_a_document_is_written_ends_it(tmp_path):
    """What pyoxigraph cannot write (a triple term in JSON-LD, after 9,000 statements) and a
    stream that breaks off are one-line errors, with no output file and no thread left."""
    import threading
    threads = threading.active_count()
    late = _numbered(9000) + (b"<http://example/s> <http://example/p> << <http://example/a> "
                              b"<http://example/b> <http://example/c> >> .\n") + _numbered(10)
    star = tmp_path / "late.jelly"
    convert(late, star, from_format="nt", rdf_star=True, rows_per_frame=500)
    with pytest.raises(JellyError, match="^cannot write the statements as JSON-LD: .*RDF 1.2"):
        convert(star, tmp_path / "out.jsonld")
    proc = run_jelly("convert", star, tmp_path / "cli.jsonld")
    assert proc.returncode == 1 and proc.stderr.decode().startswith(
        "jelly: error: cannot write the statements as JSON-LD")
    assert not (tmp_path / "cli.jsonld").exists() and not (tmp_path / "out.jsonld").exists()
    whole = (tmp_path / "plain.jelly")
    convert(_numbered(20000), whole, from_format="nt", rows_per_frame=500)
    cut = whole.read_bytes()[:len(whole.read_bytes()) * 2 // 3]
    for fmt in ("xml", "jsonld"):
        with pytest.raises(JellyError, match="truncated|ends"):
            convert(cut, tmp_path / f"cut.{fmt}", from_format="jelly")
        assert not (tmp_path / f"cut.{fmt}").exists()
    assert threading.active_count() == threads


def test_a_json_ld_document_on_one_line_is_not_read_whole(tmp_path):
    """pyoxigraph writes JSON-LD on one line.  JSON-LD is not looked at for ``# @message``
    delimiters (its message log is one document per line), so its peak of memory is that of
    the same document on many lines, not that plus the document."""
    import tracemalloc

    def peak(path) -> int:
        tracemalloc.start()
        try:
            assert convert(path, tmp_path / "out.nt").statements == 50_000
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    one, many = tmp_path / "one.jsonld", tmp_path / "many.jsonld"
    convert(_numbered(50_000), one, from_format="nt")
    many.write_bytes(one.read_bytes().replace(b"},{", b"},\n{"))
    assert one.read_bytes().count(b"\n") <= 1 and many.read_bytes().count(b"\n") > 5_000
    peak(many)                          # first-use caches
    assert peak(one) < peak(many) + one.stat().st_size / 4


def test_looking_for_delimiters_reads_a_long_first_line_only_to_the_lookahead():
    """Turtle on one line: the look for ``# @message`` delimiters stops near the lookahead's
    64 KiB, and the rest of the line is left in the stream for the parser.  (pyoxigraph's own
    Turtle reader then grows its buffer with a long line, a fifth of it or so: not ours.)"""
    from jelly.io import Chained
    from jelly.oxigraph import LOOKAHEAD, split_messages
    line = b" ".join(b"<http://example/s%d> <http://example/p> %d ." % (i, i)
                     for i in range(40_000))
    assert len(line) > 20 * LOOKAHEAD
    raw = io.BytesIO(line)
    is_log, head, _ = split_messages(io.BufferedReader(Chained(b"", raw), 1 << 16))
    assert not is_log and line.startswith(head)
    assert LOOKAHEAD <= len(head) <= LOOKAHEAD + 256
    assert raw.tell() <= 2 * LOOKAHEAD + (1 << 16)


def test_a_delimiter_that_starts_near_the_end_of_the_lookahead_is_found():
    from jelly.oxigraph import LOOKAHEAD, split_messages
    filler = b"# " + b"x" * (LOOKAHEAD - 8) + b"\n"          # one comment line
    text = filler + b"# @message\n<http://example/s> <http://example/p> 1 .\n"
    assert len(filler) < LOOKAHEAD < len(filler) + len(b"# @message")
    is_log, head, messages = split_messages(io.BufferedReader(io.BytesIO(text)))
    assert is_log and [m[2] for m in messages] == [
        filler, b"<http://example/s> <http://example/p> 1 .\n"]
    later = filler + b"#" * 16 + b"\n# @message\n"             # starts after the lookahead
    is_log, head, _ = split_messages(io.BufferedReader(io.BytesIO(later)))
    assert not is_log and later.startswith(head)


def test_text_input_reaches_jelly_as_n_quads_text(monkeypatch):
    """pyoxigraph's quads reach jelly through N-Quads text that jelly's parser reads: a Python
    conversion per term is not made; if jelly's parser refused the text, the batch would be
    converted term by term, to the same statements."""
    import jelly.oxigraph as jo
    trig = (b'@prefix ex: <http://example/> .\n'
            b'ex:s ex:p "a\\nb"@en-GB, _:b1, 1.5 .\n'
            b'ex:g { ex:s ex:p <<( ex:a ex:b "c"@en--rtl )>> . _:b1 ex:p ex:o }\n')
    calls = []
    monkeypatch.setattr(jo, "_from_ox",
                        lambda t: calls.append(t) or pytest.fail("a term made in Python"))
    text_route = [fr.statements for fr, _ in jo.OxigraphSource(io.BytesIO(trig),
                                                                format="trig").frames()]
    assert calls == [] and sum(map(len, text_route)) == 5
    monkeypatch.undo()

    def refuse(*_, **__):
        raise JellyError("refused")
    monkeypatch.setattr(jo, "parse_nquads", refuse)
    term_route = [fr.statements for fr, _ in jo.OxigraphSource(io.BytesIO(trig),
                                                                format="trig").frames()]
    from jelly.compare import normalized
    assert [sorted(map(str, normalized(f))) for f in text_route] == \
        [sorted(map(str, normalized(f))) for f in term_route]
