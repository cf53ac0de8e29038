"""RDF-star <-> RDF 1.2 migration (jelly.migrate, jelly convert --to-rdf12 / --to-rdf-star).

Expected statements are written out by hand from the RDF 1.2 reification pattern
(``_:r rdf:reifies <<( s p o )>>``); the reifier labels come from ``reifier_of``, whose own
test pins one against a digest computed here with hashlib.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import run_jelly
from jelly import BlankNode, IRI, JellyError, Literal, Triple
from jelly.migrate import RDF_REIFIES, reifier_of, to_rdf12, to_rdf_star


def ex(name):
    return IRI("http://example/" + name)


A, B, C, S, P, O, G = (ex(n) for n in "abcspog")
T = Triple(A, B, C)


def test_reifier_label_is_a_digest_of_the_triple():
    nt = "<< <http://example/a> <http://example/b> <http://example/c> >>"
    assert reifier_of(T) == BlankNode("r" + hashlib.blake2b(nt.encode(), digest_size=16).hexdigest())


def test_subject_quoted_triples_become_reifiers():
    r = reifier_of(T)
    star = [(T, ex("source"), ex("x")),            # an annotation: the asserted triple and ...
            (A, B, C),
            (T, ex("date"), Literal("2025")),      # ... a second statement about it
            (S, P, T)]                             # an object stays a triple term
    assert list(to_rdf12(star)) == [
        (r, RDF_REIFIES, T), (r, ex("source"), ex("x")),
        (A, B, C),
        (r, ex("date"), Literal("2025")),
        (S, P, T)]
    assert list(to_rdf_star(to_rdf12(star))) == star


def test_nested_and_named_graphs():
    inner, outer = T, Triple(T, P, O)
    ri, ro = reifier_of(inner), reifier_of(outer)
    assert list(to_rdf12([(outer, ex("q"), Literal("z"), G)])) == [
        (ri, RDF_REIFIES, inner, G),
        (ro, RDF_REIFIES, Triple(ri, P, O), G),
        (ro, ex("q"), Literal("z"), G)]
    # a quoted triple inside an object triple term: its subject becomes a reifier too
    assert list(to_rdf12([(S, P, Triple(T, P, O))])) == [
        (ri, RDF_REIFIES, T), (S, P, Triple(ri, P, O))]
    # the rdf:reifies statement goes into every graph where the reifier is used
    assert list(to_rdf12([(T, P, O, G), (T, P, O, S)])) == [
        (ri, RDF_REIFIES, T, G), (ri, P, O, G), (ri, RDF_REIFIES, T, S), (ri, P, O, S)]


def test_what_has_no_other_form():
    with pytest.raises(JellyError, match="as predicate"):
        list(to_rdf12([(S, T, O)]))
    r1, r2 = BlankNode("r1"), BlankNode("r2")
    with pytest.raises(JellyError, match="reifies two triples"):
        list(to_rdf_star([(r1, RDF_REIFIES, T), (r1, RDF_REIFIES, Triple(S, P, O))]))
    with pytest.raises(JellyError, match="two reifiers"):
        list(to_rdf_star([(r1, RDF_REIFIES, T), (r2, RDF_REIFIES, T)]))
    with pytest.raises(JellyError, match="used before"):
        list(to_rdf_star([(r1, P, O), (r1, RDF_REIFIES, T)]))
    # what an RDF 1.2 parser makes of RDF-star syntax: one reifier per occurrence
    assert list(to_rdf_star([(r1, RDF_REIFIES, T), (r2, RDF_REIFIES, T), (r1, P, O), (S, P, r2)],
                            strict=False)) == [(T, P, O), (S, P, T)]
    # an IRI reifier stays (RDF-star reads it as a statement with a quoted object)
    assert list(to_rdf_star([(S, RDF_REIFIES, T)])) == [(S, RDF_REIFIES, T)]


_term = st.sampled_from([A, B, C, S, BlankNode("x"), Literal("1")])
_quoted = st.builds(Triple, st.sampled_from([A, S, BlankNode("y")]), st.sampled_from([P, B]), _term)
_subject = st.one_of(st.sampled_from([A, S]), _quoted, st.builds(Triple, _quoted, st.just(P), _term))
_object = st.one_of(_term, _quoted)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_subject, st.sampled_from([P, B]), _object), max_size=8))
def test_round_trip(statements):
    rdf12 = list(to_rdf12(statements))
    for s, p, o in rdf12:                      # RDF 1.2: no quoted subjects anywhere
        assert type(s) is not Triple
        assert type(o) is not Triple or type(o.s) is not Triple
    assert list(dict.fromkeys(to_rdf_star(rdf12))) == list(dict.fromkeys(statements))


def test_cli(tmp_path):
    src = tmp_path / "star.nt"
    src.write_text("<< <http://example/a> <http://example/b> <http://example/c> >> "
                   "<http://example/source> <http://example/x> .\n")
    r = reifier_of(T).value
    proc = run_jelly("convert", src, "-", "--to", "nt", "--to-rdf12")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == (
        f"_:{r} <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( <http://example/a> "
        f"<http://example/b> <http://example/c> )>> .\n"
        f"_:{r} <http://example/source> <http://example/x> .\n")
    jelly = tmp_path / "rdf12.jelly"
    assert run_jelly("convert", src, jelly, "--to-rdf12", "--rdf-star").returncode == 0
    back = run_jelly("convert", jelly, "-", "--to", "nt", "--to-rdf-star")
    assert back.returncode == 0, back.stderr
    assert back.stdout.decode() == src.read_text()
    bad = tmp_path / "bad.nt"
    bad.write_text(f"_:r1 <{RDF_REIFIES.value}> <<( <http://example/a> <http://example/b> "
                   f"<http://example/c> )>> .\n_:r2 <{RDF_REIFIES.value}> <<( <http://example/a> "
                   f"<http://example/b> <http://example/c> )>> .\n")
    proc = run_jelly("convert", bad, "-", "--to", "nt", "--to-rdf-star")
    assert proc.returncode == 1
    assert proc.stderr.decode().startswith("jelly: error: ") and "two reifiers" in proc.stderr.decode()
    assert proc.stderr.decode().count("\n") == 1


def test_a_reifier_nothing_uses_is_kept(tmp_path):
    """``_:r rdf:reifies <<( s p o )>>`` with no other statement about ``_:r`` has no RDF-star
    form without it: it is written as it was (a quoted triple as object), where the
    conversion used to drop it; at the end of a flat stream, at the end of its message in a
    message log (where a blank node is the message's own)."""
    reifies = f"<{RDF_REIFIES.value}>"
    tt = "<<( <http://example/a> <http://example/b> <http://example/c> )>>"
    quoted = "<< <http://example/a> <http://example/b> <http://example/c> >>"
    src = tmp_path / "lone.nq"
    src.write_text(f"_:r {reifies} {tt} <http://example/g> .\n"
                   f"_:u {reifies} {tt.replace('/c', '/d')} .\n"
                   f"_:u <http://example/q> \"1\" .\n")
    star = run_jelly("convert", src, "-", "--to", "nq", "--to-rdf-star")
    assert star.returncode == 0, star.stderr
    lines = star.stdout.decode().splitlines()
    assert f"_:r {reifies} {quoted} <http://example/g> ." in lines and len(lines) == 2
    (tmp_path / "star.nq").write_bytes(star.stdout)
    back = run_jelly("convert", tmp_path / "star.nq", "-", "--to", "nq", "--to-rdf12")
    assert f"{reifies} {tt} <http://example/g> ." in back.stdout.decode()
    log = tmp_path / "log.nt"
    log.write_text(f"# @message\n_:r {reifies} {tt} .\n# @message\n<http://example/s> "
                   f"<http://example/p> <http://example/o> .\n")
    star = run_jelly("convert", log, "-", "--to", "nt", "--to-rdf-star", "--messages")
    assert star.returncode == 0, star.stderr
    messages = star.stdout.decode().split("# @message\n")[1:]
    assert len(messages) == 2 and f"{reifies} {quoted} ." in messages[0]


def test_a_base_direction_has_no_rdf_star_form(tmp_path):
    """RDF-star has no base directions: ``--to-rdf-star`` and output with ``--syntax
    rdf-star`` stop with an error (they wrote ``"x"@en--ltr``, which the RDF-star reader
    refuses), quoted triples included; a plain language tag goes through."""
    d = Literal("x", language="en--ltr")
    for st in [(S, P, d), (S, P, Triple(S, P, d))]:
        with pytest.raises(JellyError, match="base direction"):
            list(to_rdf_star([st]))
    assert list(to_rdf_star([(S, P, Literal("x", language="en"))])) == [
        (S, P, Literal("x", language="en"))]
    line = '<http://example/a> <http://example/b> "x"@en--ltr .\n'
    # (N-Triples read as RDF-star refuses it first: the Turtle reader lets it through)
    for suffix, args in (("nt", ["--to-rdf-star"]), ("ttl", ["--syntax", "rdf-star"])):
        src = tmp_path / f"d.{suffix}"
        src.write_text(line)
        proc = run_jelly("convert", src, "-", "--to", "nt", *args)
        assert proc.returncode == 1 and "base direction" in proc.stderr.decode(), proc
    from jelly._ntformat import NQuadsWriter
    import io
    with pytest.raises(JellyError, match="base direction"):
        NQuadsWriter(io.BytesIO(), syntax="rdf-star").write((S, P, Triple(S, P, d)))


def test_rdf_star_data_of_the_jelly_conformance_suite(tmp_path, capsys):
    """The RDF-star N-Triples / N-Quads inputs of the Jelly conformance suite (not generalized):
    read with --syntax rdf-star, through Jelly and back; rejected by --syntax rdf12 where they
    hold quoted triples; through RDF 1.2 reifiers and back to the same statements."""
    from helpers import load_cases
    from jelly.cli import main
    from oracle.isomorphism import unordered_isomorphic
    from oracle.ntriples import parse_nquads as oracle_parse
    from oracle.terms import nq_shape

    def run(*argv):
        capsys.readouterr()
        rc = main([str(a) for a in argv])
        return rc, capsys.readouterr().err

    def read(path):
        return list(dict.fromkeys(nq_shape(st) for st in oracle_parse(path.read_bytes())))

    inputs = [p for c in load_cases() if c.direction == "to_jelly"
              and c.id.split("/")[1].endswith("_rdf_star") and c.positive
              for p in c.action if p.suffix in (".nt", ".nq")]
    assert len(inputs) > 20
    for path in inputs:
        expected = read(path)
        fmt = path.suffix[1:]
        jelly, back = tmp_path / "x.jelly", tmp_path / f"back.{fmt}"
        rc, err = run("convert", path, jelly, "--syntax", "rdf-star", "--rdf-star")
        assert rc == 0, (path, err)
        rc, err = run("convert", jelly, back, "--syntax", "rdf-star")
        assert rc == 0 and unordered_isomorphic(read(back), expected), path
        if b"<<" in path.read_bytes():
            rc, err = run("convert", path, jelly, "--syntax", "rdf12", "--rdf-star")
            assert rc == 1 and "is not RDF 1.2" in err, (path, err)
        rdf12 = tmp_path / f"rdf12.{fmt}"
        rc, err = run("convert", path, rdf12, "--to-rdf12")
        assert rc == 0, (path, err)
        rc, err = run("convert", rdf12, jelly, "--syntax", "rdf12", "--rdf-star")
        assert rc == 0, (path, err)
        rc, err = run("convert", jelly, back, "--to-rdf-star")
        assert rc == 0 and unordered_isomorphic(read(back), expected), (path, err)


def test_each_message_has_its_own_rdf_reifies(tmp_path):
    """A blank node label of a message log names a node of its own message only, so every
    message (a frame of a grouped Jelly stream too) that uses a reifier needs its own
    ``rdf:reifies`` statement; with one in the first message only, the way back lost the
    quoted triple of the second."""
    import jelly
    quoted = "<< <http://example/a> <http://example/b> <http://example/c> >>"
    log = tmp_path / "star.nq"
    log.write_text(f"# @message\n{quoted} <http://example/p> \"1\" .\n"
                   f"# @message\n{quoted} <http://example/p> \"2\" .\n")
    reifies = f"_:{reifier_of(T).value} <{RDF_REIFIES.value}> "
    for fmt in ("nq", "trig"):
        out = tmp_path / f"rdf12.{fmt}"
        proc = run_jelly("convert", log, out, "--to-rdf12", "--messages")
        assert proc.returncode == 0, proc.stderr
        messages = out.read_text().split("# @message\n")[1:]
        assert len(messages) == 2 and all(reifies in m for m in messages), messages
    back = run_jelly("convert", tmp_path / "rdf12.nq", "-", "--to", "nq", "--to-rdf-star",
                     "--messages")
    assert back.returncode == 0, back.stderr
    assert back.stdout.decode() == log.read_text()
    # Jelly: the log's messages are frames, and a grouped stream's frames are messages
    star, rdf12 = tmp_path / "star.jelly", tmp_path / "rdf12.jelly"
    assert run_jelly("convert", log, star, "--rdf-star").returncode == 0
    for src in (log, star):
        proc = run_jelly("convert", src, rdf12, "--to-rdf12", "--rdf-star")
        assert proc.returncode == 0, proc.stderr
        frames = [list(f.statements) for f in jelly.parse_frames(rdf12)]
        assert len(frames) == 2 and all(st[1] == RDF_REIFIES for st, _ in frames), frames
    back = run_jelly("convert", rdf12, "-", "--to", "nq", "--to-rdf-star", "--messages")
    assert back.returncode == 0, back.stderr
    assert back.stdout.decode() == log.read_text()


def test_a_reifier_stays_in_the_graph_of_its_rdf_reifies_statement(tmp_path):
    """RDF-star has no graph for a quoted triple: a reifier becomes its triple only where its
    rdf:reifies statement is, and every such statement needs a use in its graph; otherwise
    ``--to-rdf-star`` stops (it dropped the graph of the rdf:reifies statement)."""
    r = BlankNode("r")
    # what --to-rdf12 makes of a triple quoted in two graphs goes back
    star = [(T, P, O, G), (T, P, O, S)]
    assert list(to_rdf_star(to_rdf12(star))) == star
    assert list(to_rdf_star([(r, RDF_REIFIES, T, G), (S, P, Triple(r, P, O), G)])) == [
        (S, P, Triple(T, P, O), G)]
    with pytest.raises(JellyError, match="used in the default graph, where it has no rdf:reifies"):
        list(to_rdf_star([(r, RDF_REIFIES, T, G), (r, P, O)]))
    with pytest.raises(JellyError, match="used in graph <http://example/s>, where it has no"):
        list(to_rdf_star([(r, RDF_REIFIES, T, G), (r, P, O, G), (S, P, Triple(r, P, O), S)]))
    with pytest.raises(JellyError, match="rdf:reifies statement in graph <http://example/s> but "
                                         "is used only in other graphs"):
        list(to_rdf_star([(r, RDF_REIFIES, T, G), (r, RDF_REIFIES, T, S), (r, P, O, G)]))
    # a reifier used nowhere keeps its statements, each in its graph
    assert list(to_rdf_star([(r, RDF_REIFIES, T, G), (r, RDF_REIFIES, T, S)])) == [
        (r, RDF_REIFIES, T, G), (r, RDF_REIFIES, T, S)]
    src = tmp_path / "graphs.nq"
    src.write_text(f"_:r <{RDF_REIFIES.value}> <<( <http://example/a> <http://example/b> "
                   f"<http://example/c> )>> <http://example/g> .\n_:r <http://example/p> \"x\" .\n")
    proc = run_jelly("convert", src, "-", "--to", "nq", "--to-rdf-star")
    assert proc.returncode == 1 and proc.stdout == b"", proc
    assert proc.stderr.decode() == ("jelly: error: _:r is used in the default graph, where it has "
                                    "no rdf:reifies statement; RDF-star cannot say that\n")


def test_input_labels_never_meet_reifiers(tmp_path):
    """An input blank node labelled like a reifier (``r`` and 32 hex digits) became the reifier
    of an unrelated triple.  Such a label gets one more ``r``, and so does one that already has
    more (distinct labels stay distinct), wherever it stands; other labels stay as they are."""
    t = Triple(BlankNode("b1"), P, Literal("q"))
    r = reifier_of(t)
    rr, rrr = BlankNode("r" + r.value), BlankNode("rr" + r.value)
    other = BlankNode(r.value.upper())
    assert list(to_rdf12([(t, P, Literal("1")), (r, P, rr), (other, P, O)])) == [
        (r, RDF_REIFIES, t), (r, P, Literal("1")), (rr, P, rrr), (other, P, O)]
    quoted = Triple(r, P, O)
    assert list(to_rdf12([(quoted, P, Triple(S, P, r), r)])) == [
        (reifier_of(Triple(rr, P, O)), RDF_REIFIES, Triple(rr, P, O), rr),
        (reifier_of(Triple(rr, P, O)), P, Triple(S, P, rr), rr)]
    src = tmp_path / "clash.nt"
    src.write_text(f'<< _:b1 <http://example/p> "q" >> <http://example/p> "1" .\n'
                   f'_:{r.value} <http://example/name> "unrelated" .\n')
    proc = run_jelly("convert", src, "-", "--to", "nt", "--to-rdf12")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().splitlines()[2] == (
        f'_:{rr.value} <http://example/name> "unrelated" .')


def test_each_frame_of_a_grouped_stream_keeps_its_unused_rdf_reifies(tmp_path):
    """A frame of a grouped stream is a message with blank nodes of its own: an rdf:reifies
    statement that nothing in its frame uses stays in that frame, even when an earlier frame
    used the same label as a reifier (the state of the first frame kept it out of the
    second)."""
    import jelly
    r, X = BlankNode("r"), (S, P, O)
    path = tmp_path / "graphs.jelly"
    frames = [[(r, RDF_REIFIES, T), (r, P, Literal("1"))], [X, (r, RDF_REIFIES, T)]]
    jelly.serialize_frames(frames, path, logical_type=jelly.LogicalStreamType.GRAPHS,
                           rdf_star=True)
    proc = run_jelly("convert", path, "-", "--to", "nt", "--to-rdf-star", "--messages")
    assert proc.returncode == 0, proc.stderr
    reifies = f"_:r <{RDF_REIFIES.value}> << <http://example/a> <http://example/b> " \
              f"<http://example/c> >> .\n"
    assert proc.stdout.decode() == (
        "# @message\n"
        "<< <http://example/a> <http://example/b> <http://example/c> >> <http://example/p> "
        "\"1\" .\n"
        "# @message\n"
        "<http://example/s> <http://example/p> <http://example/o> .\n" + reifies)


@pytest.mark.parametrize("statements", [
    [(BlankNode("r"), RDF_REIFIES, T, None), (S, P, O, BlankNode("r")),
     (BlankNode("r"), P, O, None)],
    [(BlankNode("r"), RDF_REIFIES, T, None), (BlankNode("r"), P, O, None),
     (S, P, O, BlankNode("r"))],
    [(S, P, O, BlankNode("r")), (BlankNode("r"), RDF_REIFIES, T, None),
     (BlankNode("r"), P, O, None)],
    [(BlankNode("r"), RDF_REIFIES, T, BlankNode("r")), (BlankNode("r"), P, O, BlankNode("r"))],
], ids=["name-then-use", "use-then-name", "name-before-reifies", "its-own-graph"])
@pytest.mark.parametrize("strict", [True, False])
def test_a_reifier_that_names_a_graph(statements, strict):
    """RDF-star has no quoted triple as graph name: a reifier that names a graph and is used
    elsewhere is refused (its uses became the triple, the graph name stayed a blank node whose
    rdf:reifies statement was dropped), in any order; one that only names a graph is kept."""
    from jelly import DEFAULT_GRAPH
    sts = [st[:3] + ((DEFAULT_GRAPH if st[3] is None else st[3]),) for st in statements]
    with pytest.raises(JellyError, match="_:r reifies a triple and names a graph"):
        list(to_rdf_star(sts, strict=strict))
    r = BlankNode("r")
    only = [(S, P, O, r), (r, RDF_REIFIES, T, DEFAULT_GRAPH)]
    assert list(to_rdf_star(only, strict=strict)) == only
