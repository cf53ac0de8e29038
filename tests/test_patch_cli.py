"""``jelly patch``: convert, inspect, validate, apply and diff, every option on good and bad
input (the output, or the one-line error and the exit status), and ``apply`` of ``diff A B``
to A giving a dataset isomorphic to B on random datasets.

The commands run in-process (``test_cli.run``); one test runs ``python -m jelly`` for real
pipes.  Datasets are compared with the independent N-Quads oracle and isomorphism check.
"""

from __future__ import annotations

import gzip
import json
import sys
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jelly
from jelly import patch as jpatch
from jelly import rdfpatch
from jelly.rdfpatch import END_OF_PATCH, TX_COMMIT, TX_START, Header

import helpers
from oracle import isomorphism as iso
from oracle.jelly_patch import load_pb2
from oracle import ntriples as ntr
from oracle import terms as neutral
from test_cli import fails, ok, run

EXAMPLES = helpers.REPO_ROOT.parent / "shared" / "patch-examples"
QUADS_EX = EXAMPLES / "quads-all-features-rdf11.rdfp"
TRIPLES_EX = EXAMPLES / "triples-all-features-rdf11.rdfp"
STAR_EX = EXAMPLES / "rdf-star.rdfp"
STAX_EX = EXAMPLES / "rdf-stax.rdfp"

A_NQ = b"""<http://ex/a> <http://ex/p> "1" .
<http://ex/a> <http://ex/p> "2" <http://ex/g> .
_:b <http://ex/p> <http://ex/o> .
"""
B_NQ = b"""<http://ex/a> <http://ex/p> "1" .
<http://ex/a> <http://ex/p> "3" <http://ex/g> .
_:b <http://ex/p> <http://ex/o> <http://ex/g2> .
"""


def text_of(path) -> bytes:
    """The operations of a patch file (any format) as RDF Patch text, by the library."""
    ops = jpatch.parse(path) if str(path).endswith((".jellyp", ".jelly", ".gz")) \
        else rdfpatch.parse(path)
    return rdfpatch.serialize(ops)


def _delimited(frame: bytes) -> bytes:
    n, prefix = len(frame), b""
    while True:
        prefix += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
        n >>= 7
        if not n:
            return prefix + frame


def nq(data: bytes) -> list:
    return [neutral.nq_shape(s) for s in ntr.parse_nquads(data)]


# -- convert -----------------------------------------------------------------------------------

@pytest.mark.parametrize("example", [QUADS_EX, TRIPLES_EX, STAR_EX, STAX_EX])
def test_convert_text_to_jelly_patch_and_back(tmp_path, example):
    ok("patch", "convert", example, tmp_path / "p.jellyp", "--rdf-star")
    ok("patch", "convert", tmp_path / "p.jellyp", tmp_path / "back.rdfp")
    assert (tmp_path / "back.rdfp").read_bytes() == rdfpatch.serialize(rdfpatch.parse(example))
    assert jpatch.read_options(tmp_path / "p.jellyp").stream_type == "punctuated"


def test_convert_stdin_stdout_and_sniffing(tmp_path):
    data = ok("patch", "convert", "-", "-", "--to", "jelly-patch", stdin=QUADS_EX.read_bytes())
    assert list(jpatch.parse(data))[0] == Header("id", jelly.IRI(
        "uuid:bbe2edae-325e-11ec-abcc-a70bbba0dfb1"))
    # stdin is told by its first bytes; stdout is RDF Patch text by default
    text = ok("patch", "convert", "-", "-", stdin=data)
    assert text == rdfpatch.serialize(rdfpatch.parse(QUADS_EX))
    assert ok("patch", "convert", "-", "-", stdin=QUADS_EX.read_bytes()) == text
    assert ok("patch", "convert", "-", "-", "--from", "rdfp", "--to", "rdfp",
              stdin=gzip.compress(QUADS_EX.read_bytes())) == text


def test_convert_gzip_and_extensions(tmp_path):
    ok("patch", "convert", QUADS_EX, tmp_path / "p.jelly.gz")
    assert (tmp_path / "p.jelly.gz").read_bytes()[:2] == b"\x1f\x8b"
    ok("patch", "convert", tmp_path / "p.jelly.gz", tmp_path / "p.rdfp.gz")
    assert gzip.decompress((tmp_path / "p.rdfp.gz").read_bytes()) == text_of(QUADS_EX)
    ok("patch", "convert", tmp_path / "p.jelly.gz", tmp_path / "p.jelly")
    assert text_of(tmp_path / "p.jelly") == text_of(QUADS_EX)


@pytest.mark.parametrize("stream_type", ["punctuated", "frame", "flat"])
def test_convert_stream_types(tmp_path, stream_type):
    out = tmp_path / "p.jellyp"
    ok("patch", "convert", TRIPLES_EX, out, "--stream-type", stream_type)
    assert jpatch.read_options(out).stream_type == stream_type
    assert text_of(out) == text_of(TRIPLES_EX)


def test_convert_statement_types(tmp_path):
    out = tmp_path / "p.jellyp"
    ok("patch", "convert", TRIPLES_EX, out, "--statement-type", "quads")
    assert jpatch.read_options(out).statement_type == "quads"
    ok("patch", "convert", TRIPLES_EX, out, "--statement-type", "triples")
    assert jpatch.read_options(out).statement_type == "triples"
    ok("patch", "convert", QUADS_EX, out)             # the first graph makes it QUADS
    assert jpatch.read_options(out).statement_type == "quads"
    out.write_bytes(b"old")
    fails("patch", "convert", QUADS_EX, out, "--statement-type", "triples", match="graph")
    assert out.read_bytes() == b"old"                 # atomic: a failure leaves it as it was


def test_writer_errors_name_the_flags_not_the_api_keywords(tmp_path):
    """The writer's errors name its keywords (statement_type='quads'); the command line names
    its flags instead, and the library keeps its own words."""
    mixed = tmp_path / "mixed.rdfp"
    mixed.write_bytes(b'A <http://ex/s> <http://ex/p> "1" .\n'
                      b'A <http://ex/s> <http://ex/p> "2" <http://ex/g> .\n')
    line = fails("patch", "convert", mixed, tmp_path / "p.jellyp",
                 match="statement type TRIPLES (use --statement-type quads)")
    assert "statement_type" not in line
    (tmp_path / "g.rdfp").write_bytes(b'A "s" <http://ex/p> <http://ex/o> .\n')
    fails("patch", "convert", tmp_path / "g.rdfp", tmp_path / "p.jellyp",
          match="a generalized statement; give --generalized")
    (tmp_path / "a.nq").write_bytes(A_NQ)
    (tmp_path / "b.nq").write_bytes(B_NQ)
    fails("patch", "diff", tmp_path / "a.nq", tmp_path / "b.nq", tmp_path / "p.jellyp",
          "--max-name-table-size", "2", match="--max-name-table-size must be at least 8, not 2")
    with pytest.raises(jelly.JellyEncodeError, match=r"\(use statement_type='quads'\)"):
        jpatch.serialize(rdfpatch.parse(mixed))


def test_convert_tables_frames_and_flags(tmp_path):
    out = tmp_path / "p.jellyp"
    ok("patch", "convert", STAX_EX, out, "--preset", "small", "--rows-per-frame", "50")
    opts = jpatch.read_options(out)
    assert (opts.max_name_table_size, opts.max_prefix_table_size,
            opts.max_datatype_table_size) == (128, 16, 16)
    report = json.loads(ok("patch", "inspect", out, "--json"))
    assert report["frames"] > 5 and all(sum(r[c] for c in ("A", "D", "TX", "TC", "H")) <= 50
                                        for r in report["frame_rows"])
    ok("patch", "convert", STAX_EX, out, "--max-name-table-size", "8",
       "--max-prefix-table-size", "0", "--max-datatype-table-size", "2", "--generalized")
    opts = jpatch.read_options(out)
    assert (opts.max_name_table_size, opts.max_prefix_table_size,
            opts.max_datatype_table_size, opts.generalized_statements) == (8, 0, 2, True)
    assert text_of(out) == text_of(STAX_EX)
    ok("patch", "convert", STAR_EX, out, "--rdf-star", "--rows-per-frame", "1")
    assert jpatch.read_options(out).rdf_star is True
    fails("patch", "convert", STAR_EX, out, "--rows-per-frame", "1", match="rdf_star")
    fails("patch", "convert", STAX_EX, out, "--max-name-table-size", "4", match="at least 8")
    fails("patch", "convert", STAX_EX, out, "--rows-per-frame", "0", match="--rows-per-frame")


def test_convert_single_frame(tmp_path):
    out = tmp_path / "p.jellyp"
    ok("patch", "convert", TRIPLES_EX, out, "--single-frame")
    assert out.read_bytes()[:1] == b"\x0a"            # no length prefix
    report = json.loads(ok("patch", "inspect", out, "--json"))
    assert report["delimited"] is False and report["frames"] == 1
    assert text_of(out) == text_of(TRIPLES_EX)


def test_convert_options_from_and_keeping_the_inputs_options(tmp_path):
    frame = tmp_path / "frame.jellyp"
    ok("patch", "convert", TRIPLES_EX, frame, "--stream-type", "frame", "--preset", "small")
    ok("patch", "convert", frame, tmp_path / "kept.jellyp")
    assert jpatch.read_options(tmp_path / "kept.jellyp") == jpatch.read_options(frame)
    ok("patch", "convert", TRIPLES_EX, tmp_path / "o.jellyp", "--options-from", frame)
    assert jpatch.read_options(tmp_path / "o.jellyp") == jpatch.read_options(frame)
    ok("patch", "convert", frame, tmp_path / "flat.jellyp", "--stream-type", "flat")
    assert jpatch.read_options(tmp_path / "flat.jellyp").stream_type == "flat"
    fails("patch", "convert", TRIPLES_EX, tmp_path / "x.jellyp", "--options-from", frame,
          "--preset", "big", match="--options-from")


def test_an_option_given_keeps_the_inputs_other_options(tmp_path):
    # the quoted triple comes after the first frame: only the input's --rdf-star allows it
    late = b"".join(b"A <http://ex/s%d> <http://ex/p> <http://ex/o> .\n" % i
                    for i in range(1100))
    late += b"A << <http://ex/a> <http://ex/b> <http://ex/c> >> <http://ex/p> <http://ex/o> .\n"
    (tmp_path / "late.rdfp").write_bytes(late)
    src = tmp_path / "src.jellyp"
    fails("patch", "convert", tmp_path / "late.rdfp", src, match="--rdf-star")
    ok("patch", "convert", tmp_path / "late.rdfp", src, "--rdf-star", "--stream-type", "frame",
       "--statement-type", "quads")
    ok("patch", "convert", src, tmp_path / "small.jellyp", "--preset", "small")
    got = jpatch.read_options(tmp_path / "small.jellyp")
    assert (got.stream_type, got.statement_type, got.rdf_star) == ("frame", "quads", True)
    assert (got.max_name_table_size, got.max_prefix_table_size,
            got.max_datatype_table_size) == (128, 16, 16)
    assert text_of(tmp_path / "small.jellyp") == text_of(tmp_path / "late.rdfp")
    ok("patch", "convert", src, tmp_path / "n.jellyp", "--preset", "small",
       "--max-name-table-size", "64", "--stream-type", "punctuated")
    got = jpatch.read_options(tmp_path / "n.jellyp")
    assert (got.stream_type, got.rdf_star, got.max_name_table_size,
            got.max_prefix_table_size) == ("punctuated", True, 64, 16)


def test_convert_text_output_options(tmp_path):
    # RDF 1.2 has triple terms as objects only: the example has quoted subjects
    fails("patch", "convert", STAR_EX, "-", "--syntax", "rdf12", match="RDF 1.2")
    # --syntax is the notation of input and output: both RDF 1.2, both RDF-star
    star = b"A <http://ex/s> <http://ex/p> << <http://ex/a> <http://ex/b> <http://ex/c> >> .\n"
    rdf12 = (b"A <http://ex/s> <http://ex/p> <<( <http://ex/a> <http://ex/b> <http://ex/c> )>> "
             b".\n")
    assert ok("patch", "convert", "-", "-", "--syntax", "rdf12", stdin=rdf12) == rdf12
    assert ok("patch", "convert", "-", "-", stdin=rdf12) == star
    assert ok("patch", "convert", "-", "-", "--syntax", "rdf-star", stdin=star) == star
    fails("patch", "convert", "-", "-", "--syntax", "rdf12", stdin=star, match="column 31")
    fails("patch", "convert", "-", "-", "--syntax", "rdf-star", stdin=rdf12, match="column 31")
    fails("patch", "convert", STAR_EX, tmp_path / "x.rdfp", "--preset", "small",
          match="do not apply to RDF Patch text")


def test_convert_bad_inputs(tmp_path):
    bad = tmp_path / "bad.rdfp"
    bad.write_bytes(b"TX .\nA <http://ex/s> <http://ex/p> .\n")
    line = fails("patch", "convert", bad, tmp_path / "o.jellyp", match="missing object")
    assert "column 31" in line and "line 2" in line
    assert not (tmp_path / "o.jellyp").exists()
    fails("patch", "convert", bad, tmp_path / "o.txt", match="--to")
    fails("patch", "convert", tmp_path / "x.data", tmp_path / "o.rdfp", match="--from")
    fails("patch", "convert", tmp_path / "missing.rdfp", tmp_path / "o.rdfp", match="cannot open")
    fails("patch", "convert", bad, "-", "--to", "turtle", match="unknown output format")
    rdf = tmp_path / "data.jelly"
    jelly.serialize([(jelly.IRI("http://ex/s"), jelly.IRI("http://ex/p"),
                      jelly.IRI("http://ex/o"))],
                    rdf)
    fails("patch", "convert", rdf, "-", match="Jelly-RDF")
    fails("patch", "convert", "-", "-", stdin=rdf.read_bytes(),
          match="stdin is a Jelly-RDF stream, not Jelly-Patch")
    fails("patch", "inspect", "-", stdin=gzip.compress(rdf.read_bytes()), match="Jelly-RDF")
    junk = tmp_path / "junk.jellyp"
    junk.write_bytes(b"\xff\xff\xff")
    fails("patch", "convert", junk, "-")
    fails("patch", "convert", match="the following arguments are required")


def test_a_real_pipe_and_the_entry_point(tmp_path):
    proc = helpers.run_jelly("patch", "convert", "-", "-", "--to", "jellyp",
                             stdin=QUADS_EX.read_bytes())
    assert proc.returncode == 0, proc.stderr
    back = helpers.run_jelly("patch", "convert", "-", "-", stdin=proc.stdout)
    assert back.returncode == 0 and back.stdout == text_of(QUADS_EX)
    bad = helpers.run_jelly("patch", "validate", "-", stdin=b"TC .\n")
    assert bad.returncode == 1 and bad.stderr.decode().count("\n") == 1
    assert bad.stderr.startswith(b"jelly: error: operation 1 (TC, patch 1)")
    assert helpers.run_jelly("patch").returncode == 2


# -- inspect -----------------------------------------------------------------------------------

def test_inspect_jelly_patch_frames(tmp_path):
    out = tmp_path / "p.jellyp"
    ok("patch", "convert", QUADS_EX, out, "--stream-type", "frame")
    report = json.loads(ok("patch", "inspect", out, "--json"))
    assert report["format"] == "jelly-patch" and report["frames"] == 1 and report["patches"] == 1
    assert report["options"]["stream_type"] == "frame"
    assert report["options"]["statement_type"] == "quads"
    # counted from the example by hand: 5 H, 2 TX, 1 TC, 1 TA, 3 PA, 3 PD, 7 A, 7 D, 1 patch
    want = {"H": 5, "TX": 2, "TC": 1, "TA": 1, "PA": 3, "PD": 3, "A": 7, "D": 7, "SEG": 1}
    assert {k: report["totals"][k] for k in want} == want
    assert report["frame_rows"][0]["frame"] == 0
    assert report["totals"]["names"] > 0 and report["totals"]["prefixes"] > 0
    table = ok("patch", "inspect", out).decode()
    assert "stream_type: frame" in table and table.splitlines()[-1].split()[0] == "total"
    summary = json.loads(ok("patch", "inspect", out, "--json", "--summary"))
    assert "frame_rows" not in summary and summary["totals"] == report["totals"]
    # the end of a FLAT stream is no frame's, but it ends the patch
    ok("patch", "convert", QUADS_EX, out, "--stream-type", "flat", "--rows-per-frame", "4",
       "--statement-type", "quads")
    report = json.loads(ok("patch", "inspect", out, "--json"))
    assert report["frames"] > 5 and report["patches"] == 1 and report["totals"]["SEG"] == 1
    assert all(row["SEG"] == 0 for row in report["frame_rows"])
    assert f"(Jelly-Patch, delimited, {report['frames']} frames, 1 patch)" in \
        ok("patch", "inspect", out).decode()


def test_counts_of_one_are_singular(tmp_path):
    one = tmp_path / "one.rdfp"
    one.write_bytes(b'A <http://ex/s> <http://ex/p> "y" .\n')
    ok("patch", "convert", one, tmp_path / "one.jellyp")
    assert "(Jelly-Patch, delimited, 1 frame, 1 patch)" in \
        ok("patch", "inspect", tmp_path / "one.jellyp").decode()
    assert "(RDF Patch, 1 patch)" in ok("patch", "inspect", one).decode()
    assert ok("patch", "validate", one) == b"valid RDF Patch: 1 patch, 1 operation\n"
    code, _, err = run("patch", "convert", one, tmp_path / "one.jellyp", "-v")
    assert code == 0 and err == "1 operation\n"


def test_inspect_text_per_patch(tmp_path):
    two = tmp_path / "two.rdfp"
    two.write_bytes(TRIPLES_EX.read_bytes() + b"SEG .\nTX .\nTA .\n")
    report = json.loads(ok("patch", "inspect", two, "--json"))
    assert report["format"] == "rdfp" and report["patches"] == 2
    assert report["patch_rows"][1] == {"patch": 1, "H": 0, "TX": 1, "TC": 0, "TA": 1, "PA": 0,
                                       "PD": 0, "A": 0, "D": 0, "SEG": 1}
    assert report["totals"]["A"] == 7 and report["totals"]["SEG"] == 2
    table = ok("patch", "inspect", two, "--summary").decode()
    assert "2 patches" in table and "patch" in table.splitlines()[1]
    fails("patch", "inspect", STAR_EX, "--from", "nope", match="unknown input format")


@pytest.mark.parametrize("command", [("inspect", "--summary"), ("validate",),
                                     ("convert", "OUT.rdfp"), ("convert", "OUT.jellyp")])
def test_a_large_frame_is_not_held_as_operations(tmp_path, command):
    """A FRAME stream holds a whole patch per frame: its bytes are held, its operations only
    a piece at a time (the whole frame's, decoded, take about eight times its bytes)."""
    import tracemalloc
    ops = [TX_START] + [jpatch.Add(jelly.IRI("http://ex/s"), jelly.IRI("http://ex/p"),
                                   jelly.Literal(f"value number {i}")) for i in range(100000)]
    data = jpatch.serialize(ops + [TX_COMMIT, END_OF_PATCH], stream_type="frame")
    del ops
    (tmp_path / "f.jellyp").write_bytes(data)
    args = [str(tmp_path / a) if a.startswith("OUT") else a for a in command[1:]]
    tracemalloc.start()
    try:
        ok("patch", command[0], tmp_path / "f.jellyp", *args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(data), (peak, len(data))


def test_text_inspect_holds_no_operations():
    import tracemalloc
    text = b"TX .\n" + b"".join(b'A <http://ex/s> <http://ex/p> "value number %d" .\n' % i
                                for i in range(100000)) + b"TC .\n"
    tracemalloc.start()
    try:
        report = json.loads(ok("patch", "inspect", "-", "--json", stdin=text))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report["totals"]["A"] == 100000 and report["patches"] == 1
    assert peak < 2 * len(text), (peak, len(text))


# -- validate ----------------------------------------------------------------------------------

@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.rdfp")))
def test_validate_the_examples(example, tmp_path):
    assert ok("patch", "validate", example).startswith(b"valid RDF Patch: 1 patch, ")
    ok("patch", "convert", example, tmp_path / "p.jellyp", "--rdf-star")
    assert ok("patch", "validate", tmp_path / "p.jellyp", "-q") == b""


@pytest.mark.parametrize("text, match", [
    (b"TX .\nTX .\nTC .\nTC .\n", "operation 2 (TX, patch 1): TX inside a transaction"),
    (b"TC .\n", "operation 1 (TC, patch 1): TC without a transaction"),
    (b"TX .\nTC .\nTA .\n", "operation 3 (TA, patch 1): TA without a transaction"),
    (b"TX .\nTC .\nH k \"v\" .\n", "operation 3 (H, patch 1): a header after the first"),
    (b"TX .\nSEG .\nTC .\n", "operation 2 (SEG, patch 1): the patch ends inside a transaction"),
    # (the end of the text ends its last patch: that END_OF_PATCH is operation 6)
    (b"TX .\nTC .\nSEG .\nH k \"v\" .\nTX .\n", "operation 6 (SEG, patch 2): the patch ends"),
    (b"TX .\nTC\n", "line 2"),
])
def test_validate_refuses_text(text, match):
    fails("patch", "validate", "-", stdin=text, match=match)


def test_structure_errors_of_text_name_the_line(tmp_path):
    """Comments and blank lines made "operation 4" hard to find in a long file: validate and
    apply say the line of the operation, from a file and from stdin; at the end of the input
    there is no line to name."""
    text = (b"# a comment\n\nTX .\nA <http://e/s> <http://e/p> \"1\" .\n\n# more\n"
            b"TC .\nTC .\n")
    (tmp_path / "p.rdfp").write_bytes(text)
    (tmp_path / "d.nq").write_bytes(b"")
    want = "operation 4 (TC, patch 1): TC without a transaction (no TX before it) (at line 8)"
    fails("patch", "validate", tmp_path / "p.rdfp", match=want)
    fails("patch", "validate", "-", stdin=text, match=want)
    fails("patch", "apply", tmp_path / "d.nq", tmp_path / "p.rdfp", tmp_path / "o.nq",
          match=want)
    err = fails("patch", "validate", "-", stdin=b"TX .\nA <http://e/s> <http://e/p> \"1\" .\n",
                match="the patch ends inside a transaction")
    assert "line" not in err


def test_validate_headers_may_start_every_patch():
    out = ok("patch", "validate", "-", stdin=b'H a "1" .\nTX .\nTC .\nSEG .\nH a "2" .\nTX .\n'
                                           b"TA .\n")
    assert out == b"valid RDF Patch: 2 patches, 6 operations\n"


def test_validate_refuses_jelly_patch_stream_rules(tmp_path):
    # a FRAME stream whose transaction spans two frames (two patches)
    spanning = tmp_path / "span.jellyp"
    jpatch.serialize([TX_START, END_OF_PATCH, TX_COMMIT], spanning, stream_type="frame")
    line = fails("patch", "validate", spanning, match="ends inside a transaction")
    assert "frame 0" in line
    # the same operations are readable (validate is the strict one)
    assert ok("patch", "convert", spanning, "-") == b"TX .\nSEG .\nTC .\n"
    # streams our writer refuses to write, built with the protobuf oracle's classes: a
    # punctuation row in a FRAME stream, and a quoted triple the options do not announce
    pb = load_pb2()
    iri = pb.RdfIri(prefix_id=0, name_id=1)
    for options, row, match in [
            (dict(stream_type=1), pb.RdfPatchRow(punctuation=pb.RdfPatchPunctuation()),
             "punctuation"),
            (dict(stream_type=3), pb.RdfPatchRow(statement_add=pb.RdfQuad(
                s_triple_term=pb.RdfTriple(s_iri=iri, p_iri=iri, o_iri=iri), p_iri=iri,
                o_iri=iri)), "rdf_star")]:
        frame = pb.RdfPatchFrame(rows=[
            pb.RdfPatchRow(options=pb.RdfPatchOptions(statement_type=1, max_name_table_size=8,
                                                      version=1, **options)),
            pb.RdfPatchRow(name=pb.RdfNameEntry(value="http://ex/a")), row,
            pb.RdfPatchRow(punctuation=pb.RdfPatchPunctuation())])
        data = frame.SerializeToString()
        bad = tmp_path / "bad.jellyp"
        bad.write_bytes(_delimited(data))
        fails("patch", "validate", bad, match=match)
        if match == "rdf_star":     # read leniently by convert
            assert ok("patch", "convert", bad, "-").startswith(b"A << <http://ex/a>")
    # a Jelly-Patch file cut short
    good = tmp_path / "good.jellyp"
    ok("patch", "convert", QUADS_EX, good)
    cut = tmp_path / "cut.jellyp"
    cut.write_bytes(good.read_bytes()[:-7])
    fails("patch", "validate", cut)


# -- apply -------------------------------------------------------------------------------------

def test_apply_transactions_and_formats(tmp_path):
    data = tmp_path / "a.nq"
    data.write_bytes(A_NQ)
    patch = tmp_path / "p.rdfp"
    patch.write_bytes(b"TX .\nD <http://ex/a> <http://ex/p> \"1\" .\n"
                      b"A <http://ex/a> <http://ex/p> \"9\" <http://ex/g> .\nTC .\n"
                      b"TX .\nD _:b <http://ex/p> <http://ex/o> .\nTA .\n"
                      b"A _:c <http://ex/p> <http://ex/o> .\n")
    code, _, err = run("patch", "apply", data, patch, tmp_path / "out.nq", "-v")
    assert code == 0 and err == ("2 added, 1 deleted, 1 transaction committed, 1 aborted; "
                                 "4 statements\n")
    assert iso.unordered_isomorphic(nq((tmp_path / "out.nq").read_bytes()), nq(
        b'<http://ex/a> <http://ex/p> "2" <http://ex/g> .\n'
        b'_:b <http://ex/p> <http://ex/o> .\n'
        b'<http://ex/a> <http://ex/p> "9" <http://ex/g> .\n'
        b'_:c <http://ex/p> <http://ex/o> .\n'))
    # Jelly in, Jelly out, through stdin for the patch (in Jelly-Patch)
    ok("convert", data, tmp_path / "a.jelly")
    ok("patch", "convert", patch, tmp_path / "p.jellyp", "--statement-type", "quads")
    ok("patch", "apply", tmp_path / "a.jelly", "-", tmp_path / "out.jelly",
       stdin=(tmp_path / "p.jellyp").read_bytes())
    back = ok("convert", tmp_path / "out.jelly", "-", "--to", "nq")
    assert iso.unordered_isomorphic(nq(back), nq((tmp_path / "out.nq").read_bytes()))
    # --from / --to / --patch-format for files without telling names
    (tmp_path / "data").write_bytes(A_NQ)
    (tmp_path / "patch").write_bytes(patch.read_bytes())
    out = ok("patch", "apply", tmp_path / "data", tmp_path / "patch", "-", "--from", "nq",
             "--to", "nq", "--patch-format", "rdfp")
    assert iso.unordered_isomorphic(nq(out), nq((tmp_path / "out.nq").read_bytes()))
    # stdout without --to: N-Quads, as a patch on stdout is text
    out = ok("patch", "apply", data, patch, "-")
    assert iso.unordered_isomorphic(nq(out), nq((tmp_path / "out.nq").read_bytes()))
    out = ok("patch", "apply", data, patch, "-", "--to", "jelly")
    assert iso.unordered_isomorphic(nq(ok("convert", "-", "-", "--to", "nq", stdin=out)),
                                    nq((tmp_path / "out.nq").read_bytes()))


def test_apply_sniffs_a_dataset_without_an_extension(tmp_path):
    """A dataset whose name says nothing is read by its content, as jelly convert reads it:
    N-Quads text, and the same as Jelly."""
    (tmp_path / "a.nq").write_bytes(A_NQ)
    (tmp_path / "text").write_bytes(A_NQ)
    ok("convert", tmp_path / "a.nq", tmp_path / "binary", "--to", "jelly")
    (tmp_path / "p.rdfp").write_bytes(b'A <http://ex/new> <http://ex/p> "1" .\n')
    expected = nq(A_NQ + b'<http://ex/new> <http://ex/p> "1" .\n')
    for name in ("text", "binary"):
        ok("patch", "apply", tmp_path / name, tmp_path / "p.rdfp", tmp_path / "out.nq")
        assert iso.unordered_isomorphic(nq((tmp_path / "out.nq").read_bytes()), expected), name


def test_apply_prefixes_to_a_jelly_dataset(tmp_path):
    data = tmp_path / "a.jelly"
    jelly.serialize([(jelly.IRI("http://ex/s"), jelly.IRI("http://ex/p"),
                      jelly.IRI("http://ex/o"))],
                    data, namespaces={"old": "http://old/", "ex": "http://ex/"})
    patch = tmp_path / "p.rdfp"
    patch.write_bytes(b'PD "old" .\nPA "new" <http://new/> .\nPA "ex" <http://ex2/> .\n')
    ok("patch", "apply", data, patch, tmp_path / "out.jelly")
    namespaces = {}
    for frame in jelly.parse_frames(tmp_path / "out.jelly"):
        namespaces.update((n, i.value) for n, i in frame.namespaces)
    assert namespaces == {"ex": "http://ex2/", "new": "http://new/"}


STAR_NQ = b'<< <http://ex/s> <http://ex/p> <http://ex/o> >> <http://ex/q> "x" .\n'


def test_apply_writes_jelly_with_the_options_the_result_needs(tmp_path):
    """The result is held whole, so its Jelly output enables RDF-star and generalized
    statements when the result holds them (apply has no option flags to ask for them), and
    not otherwise."""
    (tmp_path / "a.nq").write_bytes(STAR_NQ)
    ok("convert", tmp_path / "a.nq", tmp_path / "a.jelly", "--rdf-star")
    (tmp_path / "p.rdfp").write_bytes(b'A <http://ex/s> <http://ex/p> "y" .\n')
    expected = nq(STAR_NQ + b'<http://ex/s> <http://ex/p> "y" .\n')
    for data in ("a.jelly", "a.nq"):
        for out in ("out.jelly", "out.jelly.txt"):
            ok("patch", "apply", tmp_path / data, tmp_path / "p.rdfp", tmp_path / out)
        options = jelly.read_options(tmp_path / "out.jelly")
        assert (options.rdf_star, options.generalized_statements) == (True, False), data
        back = ok("convert", tmp_path / "out.jelly", "-", "--to", "nq")
        assert iso.unordered_isomorphic(nq(back), expected), data
        assert nq(ok("convert", tmp_path / "out.jelly.txt", "-", "--to", "nq")) == nq(back)
    # a literal subject (in a quoted triple too) is a generalized statement
    for text in (b'A "s" <http://ex/p> <http://ex/o> .\n',
                 b'A << "s" <http://ex/p> <http://ex/o> >> <http://ex/p> <http://ex/o> .\n'):
        (tmp_path / "g.rdfp").write_bytes(text)
        ok("patch", "apply", tmp_path / "a.nq", tmp_path / "g.rdfp", tmp_path / "out.jelly")
        assert jelly.read_options(tmp_path / "out.jelly").generalized_statements, text
    (tmp_path / "plain.nq").write_bytes(b"<http://ex/s> <http://ex/p> <http://ex/o> .\n")
    ok("patch", "apply", tmp_path / "plain.nq", tmp_path / "p.rdfp", tmp_path / "out.jelly")
    options = jelly.read_options(tmp_path / "out.jelly")
    assert (options.rdf_star, options.generalized_statements) == (False, False)


def test_apply_errors_write_nothing(tmp_path):
    data = tmp_path / "a.nq"
    data.write_bytes(A_NQ)
    out = tmp_path / "out.nq"
    out.write_bytes(b"old")
    for text, match in [(b"TX .\nA <http://ex/a> <http://ex/p> \"1\" .\n", "inside a transaction"),
                        (b"TC .\n", "without a transaction"),
                        (b"A <http://ex/a> <http://ex/p> .\n", "missing object")]:
        (tmp_path / "p.rdfp").write_bytes(text)
        fails("patch", "apply", data, tmp_path / "p.rdfp", out, match=match)
        assert out.read_bytes() == b"old"
    (tmp_path / "p.rdfp").write_bytes(b"A <http://ex/a> <http://ex/p> \"1\" <http://ex/g> .\n")
    fails("patch", "apply", data, tmp_path / "p.rdfp", tmp_path / "out.nt", match="N-Triples")
    fails("patch", "apply", tmp_path / "none.nq", tmp_path / "p.rdfp", out, match="cannot open")
    (tmp_path / "bad.nq").write_bytes(b"<http://ex/a> <http://ex/p> .\n")
    fails("patch", "apply", tmp_path / "bad.nq", tmp_path / "p.rdfp", out, match="line 1")


def test_a_jelly_patch_given_as_a_dataset_is_named_so(tmp_path):
    """A Jelly-Patch file where a dataset is expected is told apart, as a Jelly-RDF file given
    as a patch is, and not reported as a row the Jelly-RDF decoder does not know."""
    (tmp_path / "p.rdfp").write_bytes(b'A <http://ex/s> <http://ex/p> "y" .\n')
    ok("patch", "convert", tmp_path / "p.rdfp", tmp_path / "one.jelly")
    (tmp_path / "a.nq").write_bytes(A_NQ)
    fails("patch", "apply", tmp_path / "one.jelly", tmp_path / "p.rdfp", "-",
          match=f"error: {str(tmp_path / 'one.jelly')!r} is a Jelly-Patch stream, not Jelly-RDF")
    fails("patch", "apply", "-", tmp_path / "p.rdfp", "-", "--from", "jelly",
          stdin=gzip.compress((tmp_path / "one.jelly").read_bytes()),
          match="error: stdin is a Jelly-Patch stream, not Jelly-RDF")
    fails("patch", "diff", tmp_path / "a.nq", tmp_path / "one.jelly", "-",
          match="is a Jelly-Patch stream, not Jelly-RDF")
    from jelly.patchdata import read_dataset
    with pytest.raises(jelly.JellyError, match="^the input is a Jelly-Patch stream"):
        read_dataset((tmp_path / "one.jelly").read_bytes(), format="jelly")


# -- diff --------------------------------------------------------------------------------------

def test_diff(tmp_path):
    (tmp_path / "a.nq").write_bytes(A_NQ)
    (tmp_path / "b.nq").write_bytes(B_NQ)
    out = ok("patch", "diff", tmp_path / "a.nq", tmp_path / "b.nq", "-")
    assert out == (b'TX .\nD <http://ex/a> <http://ex/p> "2" <http://ex/g> .\n'
                   b"D _:b <http://ex/p> <http://ex/o> .\n"
                   b'A <http://ex/a> <http://ex/p> "3" <http://ex/g> .\n'
                   b"A _:b <http://ex/p> <http://ex/o> <http://ex/g2> .\nTC .\n")
    bare = ok("patch", "diff", tmp_path / "a.nq", tmp_path / "b.nq", "-", "--no-transaction")
    assert bare == b"".join(out.splitlines(keepends=True)[1:-1])
    assert ok("patch", "diff", tmp_path / "a.nq", tmp_path / "a.nq", "-") == b""
    code, _, err = run("patch", "diff", tmp_path / "a.nq", tmp_path / "b.nq",
                       tmp_path / "d.jellyp", "--stream-type", "frame", "--preset", "small", "-v")
    assert code == 0 and err == "6 operations\n"
    assert jpatch.read_options(tmp_path / "d.jellyp").stream_type == "frame"
    assert text_of(tmp_path / "d.jellyp") == out
    # triples only: a triples patch
    (tmp_path / "a.nt").write_bytes(b"<http://ex/a> <http://ex/p> \"1\" .\n")
    ok("patch", "diff", tmp_path / "a.nt", tmp_path / "a.nq", tmp_path / "t.jellyp")
    assert jpatch.read_options(tmp_path / "t.jellyp").statement_type == "quads"
    (tmp_path / "b.nt").write_bytes(b"<http://ex/a> <http://ex/p> \"2\" .\n")
    ok("patch", "diff", tmp_path / "a.nt", tmp_path / "b.nt", tmp_path / "t.jellyp")
    assert jpatch.read_options(tmp_path / "t.jellyp").statement_type == "triples"
    fails("patch", "diff", tmp_path / "a.nq", tmp_path / "nope.nq", "-", match="cannot open")
    fails("patch", "diff", tmp_path / "a.nq", tmp_path / "b.nq", "-", "--from", "nope",
          match="unknown input format")


def test_errors_of_two_inputs_say_which(tmp_path):
    """diff and apply read two inputs, and an error of either read the same: it now names
    the input (as transcode and validate do), and so does one of --options-from."""
    (tmp_path / "a.nq").write_bytes(A_NQ)
    (tmp_path / "bad.nq").write_bytes(A_NQ + b'<http://ex/a> <http://ex/p> "open .\n')
    bad = str(tmp_path / "bad.nq")
    line = fails("patch", "diff", tmp_path / "a.nq", bad, "-", match="unterminated string")
    assert line.startswith(f"jelly: error: {bad!r}: "), line
    line = fails("patch", "diff", bad, tmp_path / "a.nq", "-", match="unterminated string")
    assert line.startswith(f"jelly: error: {bad!r}: "), line
    (tmp_path / "p.rdfp").write_bytes(b'A <http://ex/a> <http://ex/p> "open .\n')
    line = fails("patch", "apply", tmp_path / "a.nq", tmp_path / "p.rdfp", "-")
    assert line.startswith(f"jelly: error: {str(tmp_path / 'p.rdfp')!r}: "), line
    line = fails("patch", "apply", bad, tmp_path / "p.rdfp", "-")
    assert line.startswith(f"jelly: error: {bad!r}: "), line
    for argv in (("patch", "diff", tmp_path / "a.nq", tmp_path / "a.nq", tmp_path / "d.jellyp"),
                 ("convert", tmp_path / "a.nq", tmp_path / "d.jelly")):
        line = fails(*argv, "--options-from", tmp_path / "a.nq")
        assert line.startswith(f"jelly: error: in the options file "
                               f"{str(tmp_path / 'a.nq')!r}: not a Jelly"), line


def test_diff_then_apply_keeps_labels_of_the_escape_shape(tmp_path):
    """A blank node labelled 'j-' + hex (a valid label: its hex is no UTF-8 of an invalid
    one) kept its label through a patch: it was renamed on every write, so applying the diff
    of A and B to A did not give B, and an empty patch renamed it again each time."""
    (tmp_path / "a.nq").write_bytes(b"_:j-ab <http://e/p> <http://e/o> .\n")
    (tmp_path / "b.nq").write_bytes(b"_:c1 <http://e/p> <http://e/o> .\n")
    ok("patch", "diff", tmp_path / "a.nq", tmp_path / "b.nq", tmp_path / "p.rdfp")
    assert b"D _:j-ab <http://e/p> <http://e/o> ." in (tmp_path / "p.rdfp").read_bytes()
    ok("patch", "apply", tmp_path / "a.nq", tmp_path / "p.rdfp", tmp_path / "r.nq")
    assert (tmp_path / "r.nq").read_bytes() == (tmp_path / "b.nq").read_bytes()
    (tmp_path / "empty.rdfp").write_bytes(b"")
    ok("patch", "apply", tmp_path / "a.nq", tmp_path / "empty.rdfp", tmp_path / "a1.nq")
    assert (tmp_path / "a1.nq").read_bytes() == (tmp_path / "a.nq").read_bytes()


def test_a_jelly_patch_cut_in_its_first_frame_is_said_to_be_cut(tmp_path):
    """Read as Jelly-Patch, a file cut inside its first frame is a truncation (it was "not a
    Jelly file (it looks like Jelly-Patch: read it with jelly patch)", said by jelly patch);
    read as Jelly, it is still said to look like Jelly-Patch."""
    whole = tmp_path / "whole.jellyp"
    ok("patch", "convert", EXAMPLES / "triples-all-features-rdf11.rdfp", whole)
    data = whole.read_bytes()
    (tmp_path / "cut.jellyp").write_bytes(data[:len(data) // 2])
    for argv in (("patch", "validate", tmp_path / "cut.jellyp"),
                 ("patch", "convert", tmp_path / "cut.jellyp", "-")):
        code, _, err = run(*argv)
        assert code == 1 and "input ends inside a frame" in err and "not a" not in err, err
    with pytest.raises(jelly.JellyTruncatedError):
        list(jpatch.parse(data[:len(data) // 2]))
    code, _, err = run("convert", tmp_path / "cut.jellyp", tmp_path / "out.nq")
    assert code == 1 and "it looks like Jelly-Patch" in err


def test_jenas_default_graph_names_are_the_default_graph(tmp_path):
    (tmp_path / "d.nq").write_bytes(b'<http://e/s> <http://e/p> "x" .\n')
    (tmp_path / "p.rdfp").write_bytes(
        b'PA "e" <http://e/> <urn:x-arq:DefaultGraphNode> .\n'
        b'D <http://e/s> <http://e/p> "x" <urn:x-arq:DefaultGraph> .\n'
        b'A <http://e/s> <http://e/p> "y" <urn:x-arq:DefaultGraph> .\n')
    assert ok("patch", "apply", tmp_path / "d.nq", tmp_path / "p.rdfp", "-", "--to", "nq") == \
        b'<http://e/s> <http://e/p> "y" .\n'
    assert ok("patch", "convert", tmp_path / "p.rdfp", "-") == (
        b'PA "e" <http://e/> .\nD <http://e/s> <http://e/p> "x" .\n'
        b'A <http://e/s> <http://e/p> "y" .\n')


@pytest.mark.parametrize("to", ["rdfp", "jelly-patch"])
def test_convert_to_stdout_passes_each_patch_on_as_it_ends(to):
    """A live feed of patches through a pipe: each patch comes out once it ends, not when
    64 KiB of output have gathered (nor after the 64 bytes a peek of the input waited for)."""
    import select
    import subprocess
    proc = subprocess.Popen([sys.executable, "-m", "jelly", "patch", "convert", "-", "-",
                             "--from", "rdfp", "--to", to], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=helpers.jelly_subprocess_env())
    try:
        got = b""
        for n in range(2):
            proc.stdin.write(f'TX .\nA <http://e/s> <http://e/p> "{n}" .\nTC .\n'.encode())
            proc.stdin.flush()
            want = f'"{n}"'.encode() if to == "rdfp" else f"\x01{n}".encode()
            while want not in got:
                ready, _, _ = select.select([proc.stdout], [], [], 30)
                assert ready, (n, got)            # nothing came within 30 s
                got += os.read(proc.stdout.fileno(), 65536)
        proc.stdin.close()
        assert proc.wait(30) == 0
    finally:
        proc.kill()


def test_apply_counts_changes_not_operations(tmp_path):
    """An A of a statement already there and a D of one that is not change nothing: -v said
    "1 added, 1 deleted"; the rdflib target counts the same way."""
    from rdflib import Dataset as RdfDataset
    from jelly.rdfpatch import parse as parse_text
    (tmp_path / "d.nq").write_bytes(b'<http://e/s> <http://e/p> "x" .\n')
    patch = (b'D <http://e/s> <http://e/p> "absent" .\nA <http://e/s> <http://e/p> "x" .\n'
             b'A <http://e/s> <http://e/p> "new" .\nD <http://e/s> <http://e/p> "x" .\n')
    (tmp_path / "p.rdfp").write_bytes(patch)
    code, _, err = run("patch", "apply", tmp_path / "d.nq", tmp_path / "p.rdfp",
                       tmp_path / "out.nq", "-v")
    assert code == 0 and err.startswith("1 added, 1 deleted,"), err
    ds = RdfDataset()
    ds.parse(data=(tmp_path / "d.nq").read_text(), format="nquads")
    from jelly.rdflib.patch import apply_patch
    result = apply_patch(ds, list(parse_text(patch)))
    assert (result.added, result.deleted) == (1, 1)


def test_convert_to_stdout_in_a_file_writes_what_a_path_gets(tmp_path):
    """Patches are flushed as they end only to a live stdout (a pipe): redirected to a file,
    stdout gets the frames a path gets, not a frame per patch."""
    import subprocess
    text = b"".join(f'TX .\nA <http://e/s> <http://e/p> "{n}" .\nTC .\n'.encode()
                    for n in range(50))
    (tmp_path / "p.rdfp").write_bytes(text)
    ok("patch", "convert", tmp_path / "p.rdfp", tmp_path / "path.jellyp")
    with open(tmp_path / "stdout.jellyp", "wb") as out:
        subprocess.run([sys.executable, "-m", "jelly", "patch", "convert", tmp_path / "p.rdfp",
                        "-", "--to", "jelly-patch"], stdout=out, check=True,
                       env=helpers.jelly_subprocess_env())
    assert (tmp_path / "stdout.jellyp").read_bytes() == (tmp_path / "path.jellyp").read_bytes()
    with jpatch.PatchReader(tmp_path / "path.jellyp") as reader:
        assert len(list(reader.frames())) == 1


def test_diff_namespaces(tmp_path):
    s = (jelly.IRI("http://ex/s"), jelly.IRI("http://ex/p"), jelly.IRI("http://ex/o"))
    jelly.serialize([s], tmp_path / "a.jelly", namespaces={"a": "http://a/", "x": "http://x/"})
    jelly.serialize([s], tmp_path / "b.jelly", namespaces={"b": "http://b/", "x": "http://y/"})
    out = ok("patch", "diff", tmp_path / "a.jelly", tmp_path / "b.jelly", "-")
    assert out == (b'TX .\nPD "a" .\nPD "x" .\nPA "b" <http://b/> .\nPA "x" <http://y/> .\n'
                   b"TC .\n")


def test_diff_writes_jelly_patch_with_the_options_the_patch_needs(tmp_path):
    """The patch is held whole, so a quoted triple after its first frame (where the writer
    alone settles rdf_star) and a generalized statement are announced in its options."""
    plain = b"".join(b'<http://ex/s> <http://ex/p> "%d" .\n' % i for i in range(5))
    (tmp_path / "a.nq").write_bytes(b"")
    (tmp_path / "b.nq").write_bytes(plain + STAR_NQ)
    (tmp_path / "g.nq").write_bytes(b'"s" <http://ex/p> <http://ex/o> .\n')
    for b, star, generalized in (("b.nq", True, False), ("g.nq", False, True)):
        ok("patch", "diff", tmp_path / "a.nq", tmp_path / b, tmp_path / "d.jellyp",
           "--rows-per-frame", "2")
        options = jpatch.read_options(tmp_path / "d.jellyp")
        assert (options.rdf_star, options.generalized_statements) == (star, generalized), b
        assert text_of(tmp_path / "d.jellyp") == \
            ok("patch", "diff", tmp_path / "a.nq", tmp_path / b, "-"), b


def test_diff_help_does_not_promise_the_inputs_options():
    """diff's inputs are datasets: its output options are not an input's, as convert's are."""
    convert = ok("patch", "convert", "--help").decode()
    diff_help = ok("patch", "diff", "--help").decode()
    assert "the input's, if Jelly-Patch" in convert and "the input's" not in diff_help
    assert "generalized statements are enabled when the patch holds them" in \
        " ".join(diff_help.split())


# -- apply(A, diff(A, B)) is B, on random datasets -----------------------------------------

IRIS = st.sampled_from(["http://ex/a", "http://ex/b", "urn:x:1", "http://ü/é", "http://ex/g"])
LABELS = st.sampled_from(["b1", "b2", "x", "n.1"])
LEXES = st.text(st.characters(blacklist_categories=("Cs",)), max_size=4)
TERM = st.one_of(st.builds(lambda v: ("I", v), IRIS), st.builds(lambda v: ("B", v), LABELS),
                 st.builds(lambda v: ("L", v, None, None), LEXES),
                 st.builds(lambda v: ("L", v, "en", None), LEXES),
                 st.builds(lambda v: ("L", v, None, "http://ex/dt"), LEXES))
SUBJECT = st.one_of(st.builds(lambda v: ("I", v), IRIS), st.builds(lambda v: ("B", v), LABELS))
GRAPH = st.one_of(st.just(None), st.builds(lambda v: ("I", v), IRIS),
                  st.builds(lambda v: ("B", v), LABELS))
STATEMENT = st.builds(lambda s, p, o, g: (s, ("I", p), o) + (() if g is None else (g,)),
                      SUBJECT, IRIS, TERM, GRAPH)
DATASET = st.lists(STATEMENT, max_size=12)


def _write(statements, path, fmt):
    stmts = [tuple(helpers.to_jelly(t) for t in s) for s in statements]
    if fmt == "jelly":
        jelly.serialize(stmts, path, physical_type="quads")
    else:
        path.write_bytes("".join(ntr.stmt_to_nt(s) + "\n" for s in statements).encode())


@settings(max_examples=25)
@given(a=DATASET, b=DATASET, formats=st.sampled_from([("nq", "nq", "rdfp"),
                                                      ("jelly", "nq", "jellyp"),
                                                      ("nq", "jelly", "jelly"),
                                                      ("jelly", "jelly", "rdfp")]))
def test_apply_of_diff_gives_a_dataset_isomorphic_to_b(tmp_path_factory, a, b, formats):
    tmp = tmp_path_factory.mktemp("diff")
    fa, fb, fp = formats
    pa, pb = tmp / f"a.{fa}", tmp / f"b.{fb}"
    _write(a, pa, fa)
    _write(b, pb, fb)
    ok("patch", "diff", pa, pb, tmp / f"d.{fp}")
    ok("patch", "apply", pa, tmp / f"d.{fp}", tmp / "out.nq")
    got = nq((tmp / "out.nq").read_bytes())
    want = list(dict.fromkeys(neutral.nq_shape(tuple(neutral.norm_term(t) for t in s))
                              for s in b))
    assert iso.unordered_isomorphic(got, want), (got, want)
