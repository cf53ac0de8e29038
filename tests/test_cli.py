"""The ``jelly`` command: convert (every direction, stdin / stdout, gzip, options, RDF formats
through rdflib, message logs), inspect, validate, errors and exit codes, progress.

Most tests call :func:`jelly.cli.main` in-process (fast); a few run ``python -m jelly`` in a
subprocess for real pipes and the entry point.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import signal
import subprocess
import sys
from contextlib import redirect_stderr

import pytest

import helpers
import jelly
import jelly.cli as cli
from jelly import parallel
from jelly.convert import convert
from oracle import jelly_rdf as rd, ntriples as ntr, terms as neutral, wire

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:rdflib")

DATA = helpers.REPO_ROOT / "examples" / "data"
SENSORS = DATA / "sensors.nt"
MESSAGES = DATA / "sensor-messages.nt"

QUADS = b"""<http://ex/a> <http://ex/p> "default" .
<http://ex/a> <http://ex/p> _:b <http://ex/g1> .
_:b <http://ex/q> "in g1"@en <http://ex/g1> .
<http://ex/a> <http://ex/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> <http://ex/g2> .
"""


def run(*argv, stdin: bytes = b""):
    """Run the command in-process: (exit code, stdout bytes, stderr text)."""
    out = io.BytesIO()
    err = io.StringIO()
    old_in, old_out = sys.stdin, sys.stdout
    fake_in = io.TextIOWrapper(io.BytesIO(stdin))
    fake_out = io.TextIOWrapper(out, write_through=True)
    sys.stdin, sys.stdout = fake_in, fake_out
    try:
        with redirect_stderr(err):
            try:
                code = cli.main([str(a) for a in argv])
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        fake_out.flush()
        result = out.getvalue()
    finally:
        sys.stdin, sys.stdout = old_in, old_out
    return code, result, err.getvalue()


def ok(*argv, stdin: bytes = b"") -> bytes:
    code, out, err = run(*argv, stdin=stdin)
    assert code == 0, err
    return out


def fails(*argv, stdin: bytes = b"", match: str = "") -> str:
    code, _, err = run(*argv, stdin=stdin)
    assert code == 1, f"exit {code}: {err}"
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jelly: error: "), err
    assert match in lines[0], lines[0]
    return lines[0]


def inspect_json(path) -> dict:
    return json.loads(ok("inspect", path, "--json", "--per-frame"))


def nq_statements(data: bytes) -> list:
    return sorted(ntr.stmt_to_nt(st) for st in ntr.parse_nquads(data))


def same_statements(a: bytes, b: bytes) -> bool:
    from oracle import isomorphism as iso
    return iso.unordered_isomorphic([neutral.nq_shape(s) for s in ntr.parse_nquads(a)],
                                    [neutral.nq_shape(s) for s in ntr.parse_nquads(b)])


# ------------------------------------------------------------------------------------------------
# convert: N-Triples / N-Quads / Jelly
# ------------------------------------------------------------------------------------------------

def test_nt_to_jelly_and_back(tmp_path):
    ok("convert", SENSORS, tmp_path / "s.jelly")
    ok("convert", tmp_path / "s.jelly", tmp_path / "back.nt")
    assert sorted((tmp_path / "back.nt").read_bytes().splitlines()) == \
        sorted(SENSORS.read_bytes().splitlines())
    info = inspect_json(tmp_path / "s.jelly")
    assert info["options"]["physical_type"] == "TRIPLES"
    assert info["options"]["logical_type"] == "FLAT_TRIPLES"


def test_nq_to_jelly_and_back(tmp_path):
    (tmp_path / "in.nq").write_bytes(QUADS)
    ok("convert", tmp_path / "in.nq", tmp_path / "q.jelly")
    assert inspect_json(tmp_path / "q.jelly")["options"]["physical_type"] == "QUADS"
    ok("convert", tmp_path / "q.jelly", tmp_path / "back.nq")
    assert same_statements((tmp_path / "back.nq").read_bytes(), QUADS)
    fails("convert", tmp_path / "q.jelly", tmp_path / "back.nt", match="named graph")


def test_stdin_and_stdout(tmp_path):
    data = ok("convert", "-", "-", "--from", "nt", "--to", "jelly", stdin=SENSORS.read_bytes())
    assert len(list(jelly.parse(data))) == 420
    text = ok("convert", "-", "-", "--from", "jelly", "--to", "nq", stdin=data)
    assert sorted(text.splitlines()) == sorted(SENSORS.read_bytes().splitlines())
    # without --from / --to the input is recognised and stdout gets N-Quads (test_cli_parity)
    assert ok("convert", "-", "-", stdin=data) == text


def test_real_pipes(tmp_path):
    """python -m jelly in a pipeline, through the OS."""
    env = helpers.jelly_subprocess_env()
    to_jelly = subprocess.run([sys.executable, "-m", "jelly", "convert", "-", "-", "--from", "nt",
                               "--to", "jelly"], input=SENSORS.read_bytes(), capture_output=True,
                              env=env, timeout=120)
    assert to_jelly.returncode == 0, to_jelly.stderr
    back = subprocess.run([sys.executable, "-m", "jelly", "convert", "-", "-", "--from", "jelly",
                           "--to", "ttl"], input=to_jelly.stdout, capture_output=True, env=env,
                          timeout=120)
    assert back.returncode == 0, back.stderr
    from rdflib import Graph
    g = Graph().parse(data=back.stdout, format="turtle")
    assert len(g) == 420
    version = subprocess.run([sys.executable, "-m", "jelly", "--version"], capture_output=True,
                             text=True, env=env, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("jelly ")


RUN = ("import atexit, sys\n"
       "from jelly import cli\n"
       "atexit.register(lambda: sys.stdout.write('exit handler ran\\n'))\n"
       "class Freed:\n"
       "    def __del__(self):\n"
       "        sys.stdout.write('freed in the teardown\\n')\n"
       "kept = Freed()\n"
       "sys.argv = ['jelly'] + sys.argv[1:]\n"
       "cli.run()\n"
       "print('not reached')\n")


def test_the_command_leaves_at_once_after_its_exit_handlers(tmp_path):
    """``jelly`` (``cli.run``) leaves without the interpreter's teardown (an object it would
    free says nothing), but only after the exit handlers have run and standard output is
    flushed, with main's exit status."""
    env = helpers.jelly_subprocess_env()
    convert(SENSORS, tmp_path / "s.jelly")
    done = subprocess.run([sys.executable, "-c", RUN, "inspect", str(tmp_path / "s.jelly"),
                           "--json"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    report, handler = done.stdout.rsplit("\n", 2)[:2]
    assert json.loads(report)["frames"] == 1 and handler == "exit handler ran"
    failed = subprocess.run([sys.executable, "-c", RUN, "inspect", str(tmp_path / "nothing")],
                            capture_output=True, text=True, env=env, timeout=60)
    assert failed.returncode == 1
    assert failed.stdout == "exit handler ran\n"
    assert failed.stderr.startswith("jelly: error: ") and "Traceback" not in failed.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_output_that_cannot_be_flushed_at_the_end_is_an_error(tmp_path):
    """What a command leaves in standard output's buffer is flushed before it leaves: a full
    device is a one-line error and exit status 1, as for any other write; also the help
    (argparse drops a write that fails: `--help > /dev/full` exited 0 when unbuffered)."""
    convert(SENSORS, tmp_path / "s.jelly")
    for argv in (["inspect", str(tmp_path / "s.jelly")], ["--help"], ["convert", "--help"]):
        for unbuffered in ("", "1"):
            env = {**helpers.jelly_subprocess_env(), "PYTHONUNBUFFERED": unbuffered}
            with open("/dev/full", "w") as full:
                proc = subprocess.run([sys.executable, "-m", "jelly", *argv], stdout=full,
                                      stderr=subprocess.PIPE, text=True, env=env, timeout=60)
            assert proc.returncode == 1, (argv, unbuffered)
            assert proc.stderr == "jelly: error: No space left on device\n", (argv, unbuffered)


def test_gzip_in_and_out(tmp_path):
    gz_in = tmp_path / "s.nt.gz"
    gz_in.write_bytes(gzip.compress(SENSORS.read_bytes()))
    ok("convert", gz_in, tmp_path / "s.jelly.gz")
    raw = (tmp_path / "s.jelly.gz").read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    assert len(list(jelly.parse(raw))) == 420
    ok("convert", tmp_path / "s.jelly.gz", tmp_path / "back.nt.gz")
    back = gzip.decompress((tmp_path / "back.nt.gz").read_bytes())
    assert sorted(back.splitlines()) == sorted(SENSORS.read_bytes().splitlines())
    ok("convert", tmp_path / "s.jelly.gz", tmp_path / "back.ttl.gz")
    from rdflib import Graph
    assert len(Graph().parse(data=gzip.decompress((tmp_path / "back.ttl.gz").read_bytes()),
                             format="turtle")) == 420


def test_jelly_to_jelly_keeps_frames_and_options(tmp_path):
    ok("convert", MESSAGES, tmp_path / "m.jelly")
    ok("convert", tmp_path / "m.jelly", tmp_path / "copy.jelly")
    a, b = inspect_json(tmp_path / "m.jelly"), inspect_json(tmp_path / "copy.jelly")
    assert a["frames"] == b["frames"] == 60
    assert a["options"] == b["options"]
    ok("convert", tmp_path / "m.jelly", tmp_path / "small.jelly", "--preset", "small")
    assert inspect_json(tmp_path / "small.jelly")["options"]["max_name_table_size"] == 128


def test_options_from(tmp_path):
    ok("convert", SENSORS, tmp_path / "ref.jelly", "--max-name-table-size", "64",
       "--max-prefix-table-size", "4", "--max-datatype-table-size", "8", "--generalized")
    (tmp_path / "in.nt").write_bytes(SENSORS.read_bytes()[:2000].rsplit(b"\n", 1)[0] + b"\n")
    ok("convert", tmp_path / "in.nt", tmp_path / "out.jelly", "--options-from",
       tmp_path / "ref.jelly")
    want = inspect_json(tmp_path / "ref.jelly")["options"]
    got = inspect_json(tmp_path / "out.jelly")["options"]
    assert got == want
    # also for input read through rdflib
    ok("convert", tmp_path / "out.jelly", tmp_path / "in.ttl")
    ok("convert", tmp_path / "in.ttl", tmp_path / "out2.jelly", "--options-from",
       tmp_path / "ref.jelly")
    got = inspect_json(tmp_path / "out2.jelly")["options"]
    assert {k: v for k, v in got.items() if k != "version"} == \
        {k: v for k, v in want.items() if k != "version"}


@pytest.mark.parametrize("flags,check", [
    (["--preset", "small"], {"max_name_table_size": 128, "max_prefix_table_size": 16,
                             "max_datatype_table_size": 16}),
    (["--preset", "big"], {"max_name_table_size": 4000, "max_prefix_table_size": 150,
                           "max_datatype_table_size": 32}),
    (["--max-name-table-size", "77"], {"max_name_table_size": 77}),
    (["--max-prefix-table-size", "0"], {"max_prefix_table_size": 0}),
    (["--max-datatype-table-size", "3"], {"max_datatype_table_size": 3}),
    (["--physical-type", "quads"], {"physical_type": "QUADS", "logical_type": "FLAT_QUADS"}),
    (["--physical-type", "graphs"], {"physical_type": "GRAPHS"}),
    (["--logical-type", "graphs"], {"logical_type": "GRAPHS"}),
    (["--physical-type", "quads", "--logical-type", "named_graphs"],
     {"logical_type": "NAMED_GRAPHS"}),
    (["--rdf-star"], {"rdf_star": True}),
    (["--generalized"], {"generalized_statements": True}),
])
def test_writer_flags_in_inspect(tmp_path, flags, check):
    ok("convert", SENSORS, tmp_path / "o.jelly", *flags)
    options = inspect_json(tmp_path / "o.jelly")["options"]
    for key, value in check.items():
        assert options[key] == value, (key, options)


def test_rows_per_frame_and_single_frame(tmp_path):
    ok("convert", SENSORS, tmp_path / "r.jelly", "--rows-per-frame", "100")
    info = inspect_json(tmp_path / "r.jelly")
    assert info["frames"] > 4 and info["delimited"] is True
    assert all(f["triple"] <= 100 for f in info["frame_rows"])
    ok("convert", SENSORS, tmp_path / "one.jelly", "--single-frame")
    info = inspect_json(tmp_path / "one.jelly")
    assert info["frames"] == 1 and info["delimited"] is False
    assert info["totals"]["triple"] == 420


def test_message_logs_nt(tmp_path):
    ok("convert", MESSAGES, tmp_path / "m.jelly")
    info = inspect_json(tmp_path / "m.jelly")
    assert info["frames"] == 60 and info["options"]["logical_type"] == "GRAPHS"
    text = ok("convert", tmp_path / "m.jelly", "-", "--to", "nt", "--messages")
    assert text.count(b"# @message\n") == 60


def test_a_first_delimiter_after_the_look_ahead(tmp_path):
    """What the user guide says of a log whose first ``# @message`` comes after the first
    ``--rows-per-frame`` statements: flat frames up to it, messages after it, a flat stream;
    with ``--messages`` every part is a message."""
    lines = [f'_:b{i % 3} <http://p> "{i}" .\n' for i in range(60)]
    (tmp_path / "late.nt").write_text("".join(lines[:40] + ["# @message\n"] + lines[40:]))
    ok("convert", tmp_path / "late.nt", tmp_path / "late.jelly", "--rows-per-frame", "16")
    info = inspect_json(tmp_path / "late.jelly")
    assert info["options"]["logical_type"] == "FLAT_TRIPLES"
    assert [f["triple"] for f in info["frame_rows"]][-1] == 20
    text = ok("convert", tmp_path / "late.jelly", "-", "--to", "nt").decode()
    assert "_:b0 " in text and "_:m0_b0 " in text and "_:m1_" not in text
    ok("convert", tmp_path / "late.nt", tmp_path / "log.jelly", "--rows-per-frame", "16",
       "--messages")
    info = inspect_json(tmp_path / "log.jelly")
    assert info["options"]["logical_type"] == "GRAPHS"
    assert [f["triple"] for f in info["frame_rows"]] == [40, 20]
    text = ok("convert", tmp_path / "log.jelly", "-", "--to", "nt").decode()
    assert "_:b0 " not in text and "_:m0_b0 " in text and "_:m1_b0 " in text
    # the default look-ahead sees an early delimiter: the same log without --messages
    ok("convert", tmp_path / "late.nt", tmp_path / "early.jelly")
    assert inspect_json(tmp_path / "early.jelly")["options"]["logical_type"] == "GRAPHS"


def test_verbose(tmp_path):
    code, _, err = run("convert", SENSORS, tmp_path / "v.jelly", "-v")
    assert code == 0 and "420 statements, 1 frame" in err


# ------------------------------------------------------------------------------------------------
# convert: formats through rdflib
# ------------------------------------------------------------------------------------------------

def rdflib_graph(path, fmt):
    from rdflib import Dataset, Graph
    g = Dataset() if fmt in ("trig", "json-ld") else Graph()
    return g.parse(str(path), format=fmt)


@pytest.mark.parametrize("suffix,fmt", [("ttl", "turtle"), ("trig", "trig"), ("rdf", "xml"),
                                        ("owl", "xml"), ("jsonld", "json-ld"), ("n3", "n3")])
def test_rdflib_formats_both_ways(tmp_path, suffix, fmt):
    ok("convert", SENSORS, tmp_path / "s.jelly")
    ok("convert", tmp_path / "s.jelly", tmp_path / f"s.{suffix}")
    text = tmp_path / f"s.{suffix}"
    assert len(rdflib_graph(text, fmt)) == 420
    ok("convert", text, tmp_path / "back.jelly")
    info = inspect_json(tmp_path / "back.jelly")
    assert info["options"]["physical_type"] == ("QUADS" if suffix in ("trig", "jsonld")
                                                else "TRIPLES")
    ok("convert", tmp_path / "back.jelly", tmp_path / "back.nq")
    assert same_statements((tmp_path / "back.nq").read_bytes(), SENSORS.read_bytes())


@pytest.mark.parametrize("fmt", ["turtle", "ttl", "trig", "xml", "rdf/xml", "json-ld", "jsonld",
                                 "n3"])
def test_rdflib_formats_by_name_on_stdio(fmt):
    data = ok("convert", SENSORS, "-", "--to", "jelly")
    text = ok("convert", "-", "-", "--from", "jelly", "--to", fmt, stdin=data)
    back = ok("convert", "-", "-", "--from", fmt, "--to", "jelly", stdin=text)
    nq = ok("convert", "-", "-", "--from", "jelly", "--to", "nq", stdin=back)
    assert same_statements(nq, SENSORS.read_bytes())


def test_datasets_through_trig_and_jsonld(tmp_path):
    (tmp_path / "in.nq").write_bytes(QUADS)
    ok("convert", tmp_path / "in.nq", tmp_path / "q.jelly")
    for suffix in ("trig", "jsonld"):
        ok("convert", tmp_path / "q.jelly", tmp_path / f"q.{suffix}")
        ok("convert", tmp_path / f"q.{suffix}", tmp_path / f"{suffix}.jelly")
        ok("convert", tmp_path / f"{suffix}.jelly", tmp_path / f"{suffix}.nq")
        assert same_statements((tmp_path / f"{suffix}.nq").read_bytes(), QUADS), suffix
    fails("convert", tmp_path / "q.jelly", tmp_path / "q.ttl", match="TriG")
    assert not (tmp_path / "q.ttl").exists()


TURTLE_LOG = b"""@prefix ex: <http://example.org/> .
ex:a ex:p 1 .
# @message
ex:b ex:p [ ex:q "blank" ] .
#   @message and a comment
# @message
ex:c ex:p "x"@en .
"""


def test_a_message_line_inside_a_long_string_is_text(tmp_path):
    """RDF Messages delimits messages with a comment; a ``# @message`` line inside a
    multi-line literal is text of the literal (the file was cut there: a syntax error)."""
    from jelly.oxigraph import _long_string
    for line, before, after in [
            (b'ex:a ex:p """start\n', None, b'"""'), (b"# @message\n", b'"""', b'"""'),
            (b'end""" .\n', b'"""', None), (b'ex:a ex:p "x\\"" """ .\n', None, b'"""'),
            (b'<http://a#"""> ex:p 1 . # """\n', None, None),
            (b"ex:a ex:p '''x''' .\n", None, None), (b'"""a\\"""" .\n', None, None),
            (b"ex:a ex:p '''it's \"\"\"\n", None, b"'''"),
            (b'ex:a ex:p "#" . """\n', None, b'"""')]:
        assert _long_string(line, before) == after, line
    text = (b'PREFIX : <http://ex/>\n:s :p """line1\n# @message\nline3""" .\n'
            b':s :q "x" .\n# @message\n:t :p \'\'\'a\n# @message\nb\'\'\' .\n')
    for suffix, to in (("ttl", "nt"), ("trig", "nq")):
        (tmp_path / f"log.{suffix}").write_bytes(text)
        out = ok("convert", tmp_path / f"log.{suffix}", "-", "--to", to, "--messages").decode()
        assert out.count("# @message\n") == 2, out
        assert '"line1\\n# @message\\nline3"' in out and '"a\\n# @message\\nb"' in out


def test_turtle_message_log(tmp_path):
    (tmp_path / "log.ttl").write_bytes(TURTLE_LOG)
    ok("convert", tmp_path / "log.ttl", tmp_path / "log.jelly")
    info = inspect_json(tmp_path / "log.jelly")
    assert info["options"]["logical_type"] == "GRAPHS"
    assert [f["triple"] for f in info["frame_rows"]] == [1, 2, 0, 1]   # prefixes carried over
    text = ok("convert", tmp_path / "log.jelly", "-", "--to", "ttl", "--messages")
    assert text.count(b"# @message\n") == 4
    ok("convert", "-", tmp_path / "again.jelly", "--from", "ttl", stdin=text)
    assert [f["triple"] for f in inspect_json(tmp_path / "again.jelly")["frame_rows"]] == \
        [1, 2, 0, 1]
    # TriG too
    trig = ok("convert", tmp_path / "log.jelly", "-", "--to", "trig", "--messages")
    assert trig.count(b"# @message\n") == 4
    ok("convert", "-", tmp_path / "trig.jelly", "--from", "trig", stdin=trig)
    info = inspect_json(tmp_path / "trig.jelly")
    assert info["frames"] == 4 and info["options"]["logical_type"] == "DATASETS"


def test_turtle_log_with_a_preamble(tmp_path):
    log = (b"# a log\n@prefix ex: <http://example.org/> .\n\n# @message\nex:a ex:p 1 .\n"
           b"# @message\nex:b ex:p 2 .\n")
    (tmp_path / "log.ttl").write_bytes(log)
    ok("convert", tmp_path / "log.ttl", tmp_path / "log.jelly")
    assert [f["triple"] for f in inspect_json(tmp_path / "log.jelly")["frame_rows"]] == [1, 1]


def test_turtle_without_delimiters_is_one_graph(tmp_path):
    (tmp_path / "g.ttl").write_bytes(TURTLE_LOG.replace(b"@message", b"just a comment"))
    ok("convert", tmp_path / "g.ttl", tmp_path / "g.jelly")
    info = inspect_json(tmp_path / "g.jelly")
    assert info["options"]["logical_type"] == "FLAT_TRIPLES" and info["totals"]["triple"] == 4
    ok("convert", tmp_path / "g.ttl", tmp_path / "m.jelly", "--messages")
    assert inspect_json(tmp_path / "m.jelly")["frames"] == 1


@pytest.mark.parametrize("fmt", ["ttl", "trig", "n3"])
def test_a_namespace_a_turtle_prefix_cannot_hold_is_left_out(tmp_path, fmt):
    """A relative namespace IRI (or a name that is no PN_PREFIX) is left out of the prefixes:
    pyoxigraph refused it and the whole document failed, though no statement used it."""
    import pyoxigraph as ox
    st = (jelly.IRI("http://ex.org/s"), jelly.IRI("http://ex.org/p"), jelly.Literal("o"))
    jelly.serialize([st], tmp_path / "in.jelly",
                    namespaces={"ex": "http://ex.org/", "r": "rel/", "x-1": "http://x/"})
    ok("convert", tmp_path / "in.jelly", tmp_path / f"out.{fmt}")
    text = (tmp_path / f"out.{fmt}").read_bytes()
    assert b"@prefix ex: <http://ex.org/>" in text and b"rel/" not in text
    if fmt != "n3":
        parsed = list(ox.parse(text, format=ox.RdfFormat.from_extension(fmt)))
        assert [(q.subject.value, q.predicate.value, q.object.value) for q in parsed] == \
            [("http://ex.org/s", "http://ex.org/p", "o")]


def test_ndjson_ld_message_log(tmp_path):
    ok("convert", MESSAGES, tmp_path / "m.jelly")
    ok("convert", tmp_path / "m.jelly", tmp_path / "m.ndjsonld")
    lines = (tmp_path / "m.ndjsonld").read_bytes().splitlines()
    assert len(lines) == 60 and all(json.loads(line) is not None for line in lines)
    same = ok("convert", tmp_path / "m.jelly", "-", "--to", "jsonld", "--messages")
    assert len(same.splitlines()) == 60
    ok("convert", tmp_path / "m.ndjsonld", tmp_path / "back.jelly")
    info = inspect_json(tmp_path / "back.jelly")
    assert info["frames"] == 60 and info["options"]["logical_type"] == "DATASETS"
    ok("convert", "-", tmp_path / "back2.jelly", "--from", "jsonld", "--messages", stdin=same)
    assert inspect_json(tmp_path / "back2.jelly")["frames"] == 60
    nq = ok("convert", tmp_path / "back.jelly", "-", "--to", "nq")
    assert same_statements(nq, MESSAGES.read_bytes().replace(b"# @message\n", b""))


def test_no_message_log_form(tmp_path):
    ok("convert", MESSAGES, tmp_path / "m.jelly")
    fails("convert", tmp_path / "m.jelly", tmp_path / "m.rdf", "--messages", match="RDF/XML")
    assert not (tmp_path / "m.rdf").exists()
    fails("convert", "-", tmp_path / "x.jelly", "--from", "xml", "--messages",
          stdin=b"<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'/>",
          match="message log")


def test_rdflib_syntax_error_is_one_line(tmp_path):
    (tmp_path / "bad.ttl").write_bytes(b"@prefix ex: <http://example.org/> .\nex:a ex:b .\n")
    fails("convert", tmp_path / "bad.ttl", tmp_path / "bad.jelly", match="Turtle")
    assert not (tmp_path / "bad.jelly").exists()
    (tmp_path / "bad.ndjsonld").write_bytes(b'{"@id": "http://a", "http://b": "x"}\n{oops\n')
    fails("convert", tmp_path / "bad.ndjsonld", tmp_path / "bad.jelly", match="line 2")
    assert not (tmp_path / "bad.jelly").exists()


def test_fast_paths_do_not_import_rdflib(tmp_path):
    code = (
        "import sys, jelly.cli as c\n"
        f"c.main(['convert', {str(SENSORS)!r}, {str(tmp_path / 'a.jelly')!r}, '-q'])\n"
        f"c.main(['convert', {str(tmp_path / 'a.jelly')!r}, {str(tmp_path / 'a.nq')!r}, '-q'])\n"
        f"c.main(['convert', {str(tmp_path / 'a.jelly')!r}, {str(tmp_path / 'b.jelly')!r}])\n"
        "print('rdflib' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=helpers.jelly_subprocess_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


# ------------------------------------------------------------------------------------------------
# inspect / validate
# ------------------------------------------------------------------------------------------------

def test_inspect_text_and_summary(tmp_path):
    ok("convert", MESSAGES, tmp_path / "m.jelly")
    text = ok("inspect", tmp_path / "m.jelly", "--per-frame").decode()
    assert "file:" in text and "(delimited, 60 frames)" in text
    assert "physical_type: TRIPLES" in text and "logical_type: GRAPHS" in text
    assert len(text.splitlines()) > 60
    summary = ok("inspect", tmp_path / "m.jelly", "--summary").decode()
    assert len(summary.splitlines()) < 20
    assert ok("inspect", tmp_path / "m.jelly").decode() == summary     # the default
    info = inspect_json(tmp_path / "m.jelly")
    assert set(info) == {"file", "delimited", "frames", "streams", "options", "unit", "totals",
                         "frame_rows"}
    assert info["totals"]["triple"] == 420 and len(info["frame_rows"]) == 60
    short = json.loads(ok("inspect", tmp_path / "m.jelly", "--json", "--summary"))
    assert "frame_rows" not in short


def test_validate(tmp_path):
    ok("convert", SENSORS, tmp_path / "s.jelly")
    assert ok("validate", tmp_path / "s.jelly").decode().strip() == \
        "valid: 1 frame, 420 statements"
    assert ok("validate", tmp_path / "s.jelly", "-q") == b""
    data = (tmp_path / "s.jelly").read_bytes()
    (tmp_path / "cut.jelly").write_bytes(data[:len(data) // 2])
    fails("validate", tmp_path / "cut.jelly", match="ends inside a frame")
    fails("inspect", tmp_path / "cut.jelly", match="frame 0")
    # strict: RDF-star without the option
    star = jelly.serialize([(jelly.IRI("http://a"), jelly.IRI("http://b"),
                             jelly.Triple(jelly.IRI("http://a"), jelly.IRI("http://b"),
                                          jelly.IRI("http://c")))], rdf_star=True)
    (tmp_path / "star.jelly").write_bytes(star)
    ok("validate", tmp_path / "star.jelly")


# ------------------------------------------------------------------------------------------------
# errors
# ------------------------------------------------------------------------------------------------

def test_bad_input(tmp_path):
    (tmp_path / "junk.jelly").write_bytes(b"\x07this is not jelly")
    fails("convert", tmp_path / "junk.jelly", tmp_path / "out.nt")
    assert not (tmp_path / "out.nt").exists()
    (tmp_path / "bad.nt").write_bytes(SENSORS.read_bytes() + b"<http://a> <http://b> .\n")
    fails("convert", tmp_path / "bad.nt", tmp_path / "out.jelly", match="line 421")
    assert not (tmp_path / "out.jelly").exists()


def test_partial_output_removed(tmp_path):
    ok("convert", SENSORS, tmp_path / "s.jelly", "--rows-per-frame", "10")
    data = (tmp_path / "s.jelly").read_bytes()
    (tmp_path / "cut.jelly").write_bytes(data[:-5])
    for out in ("out.nt", "out.nq.gz", "out.jelly", "out.ttl", "out.ndjsonld"):
        fails("convert", tmp_path / "cut.jelly", tmp_path / out)
        assert not (tmp_path / out).exists(), out
    # an existing file is replaced only by a complete conversion: on failure it keeps its
    # content, and no temporary file is left beside it
    (tmp_path / "keep.nt").write_bytes(b"old")
    fails("convert", tmp_path / "cut.jelly", tmp_path / "keep.nt")
    assert (tmp_path / "keep.nt").read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.jelly", "keep.nt", "s.jelly"]


#: The command with a limit on the size of the files it writes: a write past it fails in the
#: kernel with EFBIG, as one on a full disk fails with ENOSPC (SIGXFSZ, which would kill the
#: process first, is ignored).
LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]),) * 2)
import jelly.cli
sys.exit(jelly.cli.main(sys.argv[2:]))
"""


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGXFSZ"), reason="POSIX file limits")
def test_a_write_that_fails_leaves_nothing_behind(tmp_path):
    """A conversion whose output cannot be written (a full disk) fails in one line and leaves
    neither a part of its output nor its temporary file; a file it was to replace is kept."""
    segmented = tmp_path / "s.jelly"
    ok("convert", SENSORS, segmented, "--segment-size", "40", "--rows-per-frame", "16")
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.nt").write_bytes(b"old")
    for argv in (["convert", SENSORS, out / "a.jelly"],
                 ["convert", segmented, out / "a.nt", "--jobs", "1"],
                 ["convert", segmented, out / "a.nt", "--jobs", "2"],
                 ["convert", segmented, out / "keep.nt"],
                 ["convert", SENSORS, out / "a.nt.gz"],
                 ["transcode", segmented, out / "t.jelly", "--preset", "small"]):
        proc = subprocess.run([sys.executable, "-c", LIMITED, "2000", *map(str, argv)],
                              capture_output=True, text=True, timeout=120,
                              env=helpers.jelly_subprocess_env())
        assert proc.returncode == 1, (argv, proc.stderr)
        assert proc.stderr == "jelly: error: File too large\n", (argv, proc.stderr)
        assert sorted(os.listdir(out)) == ["keep.nt"], argv
    assert (out / "keep.nt").read_bytes() == b"old"


@pytest.mark.parametrize("sig, code", [("SIGTERM", 143), ("SIGINT", 130), ("SIGHUP", 129)])
def test_a_stopped_conversion_leaves_nothing_behind(tmp_path, sig, code):
    """``kill`` (as ``timeout`` and service managers send), Ctrl-C and a hang-up (the terminal
    or SSH connection closed) stop a conversion the way an error does: its temporary output
    goes, a file it was to replace is kept."""
    import signal
    import time
    (tmp_path / "out.jelly").write_bytes(b"old")
    proc = subprocess.Popen([sys.executable, "-m", "jelly", "convert", "-",
                             tmp_path / "out.jelly", "--from", "nt"],
                            stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=helpers.jelly_subprocess_env())
    try:
        proc.stdin.write(SENSORS.read_bytes() * 30)     # a frame or more; the input stays open
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while len(os.listdir(tmp_path)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(os.listdir(tmp_path)) == 2, "the output was never opened"
        proc.send_signal(getattr(signal, sig))
        assert proc.wait(60) == code, proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
    assert proc.stderr.read() == b""
    assert os.listdir(tmp_path) == ["out.jelly"]
    assert (tmp_path / "out.jelly").read_bytes() == b"old"


@pytest.mark.parametrize("after_rename", [True, False])
def test_a_signal_after_the_output_is_in_place_finds_the_work_done(tmp_path, monkeypatch,
                                                                  after_rename):
    """Ctrl-C just after the rename exited 130 with the new file in place, so a script that
    trusts the status took a finished conversion for a stopped one.  (The signal comes as a
    KeyboardInterrupt raised right after, or right before, the rename.)"""
    import jelly.cli
    import jelly.io
    real = os.replace

    def replace(src, dst):
        if not after_rename:
            raise KeyboardInterrupt
        real(src, dst)
        raise KeyboardInterrupt

    monkeypatch.setattr(jelly.io.os, "replace", replace)
    (tmp_path / "out.jelly").write_bytes(b"old")
    code = jelly.cli.main(["convert", str(SENSORS), str(tmp_path / "out.jelly"), "-q"])
    if after_rename:
        assert code == 0 and (tmp_path / "out.jelly").read_bytes() != b"old"
    else:
        assert code == 130 and (tmp_path / "out.jelly").read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["out.jelly"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX descriptors")
def test_a_regular_file_is_read_without_waiting_on_it(tmp_path, monkeypatch):
    """Under ``watch_signals`` a pipe is waited on with ``select`` before each read; a regular
    file, which a read never waits on, is not (a system call per 64 KiB read, for nothing)."""
    import select
    from jelly.io import read_some, watch_signals
    waits = []
    real = select.select
    monkeypatch.setattr(select, "select", lambda *args: waits.append(args) or real(*args))
    (tmp_path / "in").write_bytes(b"x" * 300_000)
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"y" * 30_000)
    os.close(write_fd)
    with watch_signals(), open(tmp_path / "in", "rb", buffering=0) as file, \
            open(read_fd, "rb", buffering=0) as pipe:
        assert len(b"".join(iter(lambda: read_some(file, 65536), b""))) == 300_000
        assert waits == []
        assert len(b"".join(iter(lambda: read_some(pipe, 65536), b""))) == 30_000
        assert waits                        # the pipe is waited on


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="POSIX signals")
@pytest.mark.parametrize("held", ["nothing", "read to its end", "peeked", "gzip", "Turtle"])
def test_a_signal_stops_a_read_that_waits_for_input(held):
    """Under ``watch_signals`` (``jelly`` runs every command in it) a signal stops a read of a
    pipe that has no input yet, also where the interpreter cannot run the handler before the
    read blocks.  Here the signal is caught by another thread, so the read is not interrupted:
    as when it comes between the interpreter's last look and ``read()`` (a ``kill`` of a
    conversion from a pipe once hung so, 1 time in 15).  Bytes a buffer holds are read at
    once, without waiting on the pipe.  Readers that read ``n`` bytes (gzip) or lines (Turtle)
    wait the same way."""
    import threading
    import time
    from jelly.io import open_input, peek, read_some, watch_signals
    from jelly.oxigraph import OxigraphSource

    class Stop(Exception):
        pass

    def stop(signum, frame):
        raise Stop

    def read_all(text):
        while read_some(text, 1 << 16):
            pass

    r, w = os.pipe()
    stream = open(r, "rb", buffering=0 if held == "nothing" else -1)
    done, closed = threading.Event(), threading.Event()

    def later():
        if done.wait(0.2):              # the test ended before: no handler to take it
            return
        signal.pthread_kill(threading.get_ident(), signal.SIGUSR1)     # caught here
        if not done.wait(10):           # only a read that was not stopped gets these
            os.write(w, b"late\n")
            os.close(w)                 # and the end of the input (gzip and lines wait on)
            closed.set()

    previous = signal.signal(signal.SIGUSR1, stop)
    thread = threading.Thread(target=later, daemon=True)
    try:
        with watch_signals():
            if held == "gzip":          # half of a gzip member: its reader waits for the rest
                packed = gzip.compress(SENSORS.read_bytes())
                os.write(w, packed[:len(packed) // 2])
            elif held == "Turtle":      # a line: the reader looks further for a delimiter
                os.write(w, b"<http://a> <http://b> <http://c> .\n")
            elif held != "nothing":
                os.write(w, b"first\n")
                assert read_some(stream, 1 << 16) == b"first\n"
            if held == "peeked":
                os.write(w, b"second\n")
                assert peek(stream, 2)[0] == b"se"
            thread.start()
            start = time.monotonic()
            if held == "peeked":
                assert read_some(stream, 1 << 16) == b"second\n"
            with pytest.raises(Stop):
                if held == "gzip":
                    with open_input(stream) as text:
                        read_all(text)
                elif held == "Turtle":
                    list(OxigraphSource(stream, format="ttl").frames())
                else:
                    read_some(stream, 1 << 16)
            assert time.monotonic() - start < 5
    finally:
        done.set()
        signal.signal(signal.SIGUSR1, previous)
        if thread.is_alive():
            thread.join()
        stream.close()
        if not closed.is_set():
            os.close(w)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_an_output_that_is_not_a_regular_file_is_written_in_place(tmp_path):
    """A named pipe (like /dev/null or /dev/stdout: anything but a regular file) is written to,
    not replaced by a file renamed over it; through a symbolic link, the file it points to is
    replaced and the link stays."""
    import stat
    import threading
    ok("convert", SENSORS, tmp_path / "s.jelly")
    ok("convert", tmp_path / "s.jelly", tmp_path / "plain.nt")
    expected = (tmp_path / "plain.nt").read_bytes()
    fifo = tmp_path / "pipe.nt"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    ok("convert", tmp_path / "s.jelly", fifo)
    reader.join(60)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got == [expected]
    (tmp_path / "target.nt").write_bytes(b"old")
    os.symlink("target.nt", tmp_path / "link.nt")
    ok("convert", tmp_path / "s.jelly", tmp_path / "link.nt")
    assert os.readlink(tmp_path / "link.nt") == "target.nt"
    assert (tmp_path / "target.nt").read_bytes() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["link.nt", "pipe.nt", "plain.nt", "s.jelly", "target.nt"]
    fails("convert", tmp_path / "s.jelly", tmp_path, "--to", "nt", match="it is a directory")


def test_bad_options(tmp_path):
    # errors of options name the flags (the library's messages keep the API's words)
    fails("convert", SENSORS, tmp_path / "o.jelly", "--max-name-table-size", "4",
          match="error: --max-name-table-size must be at least 8")
    fails("convert", SENSORS, tmp_path / "o.jelly", "--physical-type", "quads",
          "--logical-type", "graphs", match="logical type GRAPHS does not fit physical type "
                                               "QUADS")
    ok("convert", SENSORS, tmp_path / "opts.jelly")
    fails("convert", SENSORS, tmp_path / "o.jelly", "--options-from", tmp_path / "opts.jelly",
          "--preset", "small", match="--options-from and --preset both give the table sizes")
    fails("convert", SENSORS, tmp_path / "o.jelly", "--rows-per-frame", "0",
          match="error: --rows-per-frame must be at least 1")
    (tmp_path / "g.nt").write_bytes(b'"x" <http://e/p> <http://e/o> .\n')
    fails("convert", tmp_path / "g.nt", tmp_path / "o.jelly",
          match="is a generalized statement; give --generalized")
    with pytest.raises(jelly.JellyOptionsError, match="^rows_per_frame must be at least 1"):
        jelly.serialize([], rows_per_frame=0)
    fails("convert", SENSORS, tmp_path / "o.jelly", "--preset", "huge", match="invalid choice")
    fails("convert", SENSORS, tmp_path / "o.jelly", "--max-name-table-size", "x",
          match="invalid int value")
    fails("convert", SENSORS, tmp_path / "o.jelly", "--options-from", tmp_path / "none.jelly",
          match="cannot open")
    fails("convert", SENSORS, tmp_path / "o.jelly", "--max-datatype-table-size", "0",
          match="datatype")
    assert not (tmp_path / "o.jelly").exists()


def test_text_to_text_conversion(tmp_path):
    # Neither side needs to be Jelly: N-Triples to Turtle and back keeps the statements.
    ok("convert", SENSORS, tmp_path / "o.ttl")
    ok("convert", tmp_path / "o.ttl", tmp_path / "back.nt")
    original = set(SENSORS.read_text().splitlines()) - {""}
    assert len(original) == 420
    back = (tmp_path / "back.nt").read_text().splitlines()
    assert len(back) == len(original)


def test_missing_files_and_unknown_formats(tmp_path):
    fails("convert", tmp_path / "nope.nt", tmp_path / "o.jelly", match="cannot open")
    fails("inspect", tmp_path / "nope.jelly", match="cannot open")
    fails("validate", tmp_path / "nope.jelly", match="cannot open")
    fails("convert", SENSORS, tmp_path / "o.xyz", match="cannot tell the format")
    fails("convert", SENSORS, tmp_path / "o.jelly", "--from", "csv", match="unknown input format")
    fails("convert", SENSORS, "-", "--to", "yaml", match="unknown output format")
    fails("convert", SENSORS, tmp_path / "missing-dir" / "o.jelly", match="cannot write")
    fails("frobnicate", match="invalid choice")


def test_no_command_prints_help():
    code, _, err = run()
    assert code == 2 and "usage: jelly" in err


def test_help_mentions_formats():
    code, out, _ = run("convert", "--help")
    assert code == 0
    text = out.decode()
    for word in ("Turtle", "TriG", "RDF/XML", "JSON-LD", "N3", "--quiet", "--messages"):
        assert word in text


# ------------------------------------------------------------------------------------------------
# progress
# ------------------------------------------------------------------------------------------------

class FakeTTY(io.StringIO):
    def isatty(self):
        return True


def _bars(text):
    """The percentages a tqdm bar showed in ``text``."""
    import re
    return [int(p) for p in re.findall(r"(\d+)%\|", text)]


@pytest.mark.parametrize("name, jobs", [("big.nt", 1), ("big.nt", 2), ("big.nt.gz", 1),
                                        ("big.jelly", 1), ("big.jelly", 2)])
def test_progress_moves_with_the_conversion(tmp_path, monkeypatch, name, jobs):
    """The bar counts the input file's bytes as the readers take them (read1 / readinto, not
    only read), in parts with --jobs, and the compressed bytes of a compressed file."""
    import gzip
    text = b"".join(f'<http://e/s{i}> <http://e/p> "v{i}" .\n'.encode() for i in range(60_000))
    src = tmp_path / name
    if name.endswith(".gz"):
        src.write_bytes(gzip.compress(text))
    elif name.endswith(".jelly"):
        (tmp_path / "t.nt").write_bytes(text)
        convert(str(tmp_path / "t.nt"), str(src), segment_size=5_000)
    else:
        src.write_bytes(text)
    monkeypatch.setattr(cli, "PROGRESS_DELAY", 0)
    monkeypatch.setattr(cli, "PROGRESS_INTERVAL", 0)
    monkeypatch.setattr(parallel, "MIN_CHUNK_BYTES", 64 << 10)
    out = FakeTTY()
    monkeypatch.setattr(sys, "stderr", out)
    target = tmp_path / ("out.nt" if name.endswith(".jelly") else "out.jelly")
    assert cli.main(["convert", str(src), str(target), "--jobs", str(jobs)]) == 0
    shown = _bars(out.getvalue())
    assert shown and shown[-1] == 100, out.getvalue()[-300:]
    assert any(0 < p < 100 for p in shown), shown      # it moved on the way


def test_progress_only_for_files_on_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())          # not a terminal
    assert cli._progress(str(SENSORS), quiet=False) is None
    monkeypatch.setattr(sys, "stderr", FakeTTY())
    assert cli._progress(str(SENSORS), quiet=True) is None
    assert cli._progress("-", quiet=False) is None
    assert cli._progress(str(SENSORS), quiet=False) is not None


def test_quiet_conversion_prints_nothing(tmp_path):
    code, out, err = run("convert", SENSORS, tmp_path / "q.jelly", "--quiet")
    assert code == 0 and err == "" and out == b""


def test_stdout_is_flushed_per_frame(tmp_path):
    """A message log piped through `jelly convert - -` comes out frame by frame, while the
    input is still open (a consumer of a live stream sees each message at once)."""
    import select
    proc = subprocess.Popen([sys.executable, "-m", "jelly", "convert", "-", "-", "--from", "nq",
                             "--to", "jelly"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=helpers.jelly_subprocess_env())
    try:
        proc.stdin.write(b'<http://e/s> <http://e/p> "1" .\n# @message\n')
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "no output before the input ended"
        first = os.read(proc.stdout.fileno(), 1 << 16)
        frames = wire.split_frames(first)
        assert len(frames) == 1
        proc.stdin.write(b'<http://e/s> <http://e/p> "2" .\n')
        proc.stdin.close()
        rest = proc.stdout.read()
        assert proc.wait(60) == 0, proc.stderr.read()
    finally:
        proc.kill()
    _, got = rd.decode(first + rest)
    assert [[st[2] for st in frame] for frame in got] == [[("L", "1", None, None)],
                                                          [("L", "2", None, None)]]


def _one_statement_frames(n: int, quads: bool = False) -> bytes:
    """A stream of n one-statement frames, with an empty frame after every fifth (and the
    last statement in a named graph, with ``quads``)."""
    sts = [(jelly.IRI(f"http://ex/s{i % 11}"), jelly.IRI("http://ex/p"), jelly.Literal(str(i)))
           for i in range(n)]
    if quads:
        sts = [st + (jelly.DEFAULT_GRAPH,) for st in sts[:-1]] + [sts[-1] + (jelly.IRI("http://g"),)]
    data = jelly.serialize(sts, rows_per_frame=1)
    return b"".join(wire.enc_varint(len(f)) + f + (b"\x00" if k % 5 == 4 else b"")
                    for k, f in enumerate(wire.split_frames(data)))


def test_text_of_many_small_frames(tmp_path):
    """Jelly -> N-Triples decodes runs of small frames in one call: the text is the
    statements of every frame (the oracle's), an error comes after the lines of every frame
    before it, and a statement in a named graph is still refused in N-Triples."""
    data = _one_statement_frames(3000)
    _, frames = rd.decode(data)
    assert len(frames) > 3500 and sum(map(len, frames)) == 3000
    src = tmp_path / "small.jelly"
    src.write_bytes(data)
    out = ok("convert", src, "-", "--to", "nt", "--jobs", "1")
    assert ntr.parse_nquads(out) == [st for frame in frames for st in frame]
    assert frames[-1] == [] and len(frames[-2]) == 1
    cut = data[:-3]             # the empty last frame gone, the one before cut short
    (tmp_path / "cut.jelly").write_bytes(cut)
    code, out, err = run("convert", tmp_path / "cut.jelly", "-", "--to", "nt", "--jobs", "1")
    assert code == 1 and "input ends inside a frame" in err
    assert ntr.parse_nquads(out) == [st for frame in frames[:-2] for st in frame]
    pieces = [wire.enc_varint(len(f)) + f for f in wire.split_frames(data)]
    broken = b"\x0a\x03\xff\xff\xff"          # a row whose first tag never ends
    (tmp_path / "bad.jelly").write_bytes(b"".join(pieces[:1000]) + wire.enc_varint(5) + broken
                                         + b"".join(pieces[1000:]))
    code, out, err = run("convert", tmp_path / "bad.jelly", "-", "--to", "nt", "--jobs", "1")
    assert code == 1 and "frame 1000" in err, err
    assert ntr.parse_nquads(out) == [st for frame in frames[:1000] for st in frame]
    (tmp_path / "q.jelly").write_bytes(_one_statement_frames(50, quads=True))
    fails("convert", tmp_path / "q.jelly", "-", "--to", "nt",
          match="statements in named graphs, which N-Triples cannot hold")


def test_jelly_to_text_of_a_live_stream_comes_frame_by_frame():
    """`jelly convert - - --to nt` writes each frame's lines while the input is still open:
    frames decoded together are only those that one read of the input gives."""
    import select
    proc = subprocess.Popen([sys.executable, "-m", "jelly", "convert", "-", "-", "--from",
                             "jelly", "--to", "nt"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=helpers.jelly_subprocess_env())
    first = jelly.serialize([(jelly.IRI("http://e/s"), jelly.IRI("http://e/p"), jelly.Literal("1"))])
    try:
        proc.stdin.write(first)
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "no output before the input ended"
        assert os.read(proc.stdout.fileno(), 1 << 16) == b'<http://e/s> <http://e/p> "1" .\n'
        proc.stdin.close()
        assert proc.wait(60) == 0, proc.stderr.read()
    finally:
        proc.kill()


def test_convert_options_between_the_input_and_the_output(tmp_path):
    """``convert IN --opt OUT``: the output after an option is still the output (argparse
    alone fills only consecutive optional positionals), and what is left over is an error."""
    src = tmp_path / "in.nt"
    src.write_bytes(b"<http://ex/s> <http://ex/p> <http://ex/o> .\n")
    ok("convert", src, "--preset", "small", tmp_path / "out.jelly")
    assert [str(t) for st in jelly.parse(tmp_path / "out.jelly") for t in st] == \
        ["<http://ex/s>", "<http://ex/p>", "<http://ex/o>"]
    ok("convert", "--to", "nt", tmp_path / "out.jelly", "-q", tmp_path / "back.nt")
    assert (tmp_path / "back.nt").read_bytes() == src.read_bytes()
    fails("convert", src, tmp_path / "x.jelly", "extra", match="unrecognized arguments: extra")
    fails("convert", src, "--no-such-option", tmp_path / "x.jelly",
          match="unrecognized arguments: --no-such-option")
    assert not (tmp_path / "x.jelly").exists()


def test_convert_starts_without_the_other_commands_and_workers(tmp_path):
    """A conversion in one process imports neither the modules of the other commands (patch,
    gRPC, transcode, inspect with json) nor multiprocessing: start-up is paid by every run of
    `jelly convert`."""
    src = tmp_path / "in.nt"
    src.write_bytes(b"<http://example.org/s> <http://example.org/p> <http://example.org/o> .\n")
    code = ("import sys; from jelly.cli import main\n"
            f"assert main(['convert', {str(src)!r}, {str(tmp_path / 'out.jelly')!r}]) == 0\n"
            "loaded = [m for m in ('jelly.patch_cli', 'jelly.patchdata', 'jelly.grpc.cli', "
            "'jelly.transcode', 'jelly.inspect', 'json', 'multiprocessing', "
            "'concurrent.futures') if m in sys.modules]\n"
            "print(','.join(loaded))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""
    # the other commands are still there
    assert cli.build_parser().parse_args(["patch", "inspect", "x.rdfp"]).command == "patch"
    assert cli.build_parser("inspect").parse_args(["inspect", "--detail", "node"]).detail == "node"


@pytest.mark.parametrize("command", ["convert", "transcode"])
@pytest.mark.parametrize("value", ["-5", "x"])
def test_a_segment_size_that_is_not_a_count_is_refused_in_the_flags_words(tmp_path, command,
                                                                           value):
    src = SENSORS if command == "convert" else tmp_path / "in.jelly"
    if command == "transcode":
        ok("convert", SENSORS, src)
    code, _, err = run(command, src, tmp_path / "out.jelly", "--segment-size", value)
    assert code != 0
    assert err.strip().endswith(f"argument --segment-size: expected a number of statements, "
                                f"or 0 for no segments, not '{value}'"), err
    assert not (tmp_path / "out.jelly").exists()


@pytest.mark.skipif(not hasattr(signal, "SIGPIPE"), reason="POSIX pipes")
def test_a_reader_that_goes_away_gives_the_status_of_sigpipe(tmp_path):
    """``jelly convert ... | head``: no message, and exit status 141 (128 + SIGPIPE), as
    ``cat`` gives, so that ``set -o pipefail`` sees that the output was cut (it was 0)."""
    src = tmp_path / "in.nt"
    src.write_text("".join(f'<http://ex/s{i}> <http://ex/p> "{i}" .\n' for i in range(200_000)))
    proc = subprocess.Popen([sys.executable, "-m", "jelly", "convert", str(src), "-", "--to",
                             "nt", "--jobs", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=helpers.jelly_subprocess_env())
    assert proc.stdout.read(100).startswith(b"<http://ex/s0>")
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(60) == 141 and err == b"", err


def test_a_quoted_triple_without_rdf_star_names_the_flag_and_the_statement(tmp_path):
    """The library's message names its option (``rdf_star``), the command's the flag; both
    the statement (the message named ``jelly convert`` to API users and Spark jobs too)."""
    lines = [f'<http://ex/s{i}> <http://ex/p> "{i}" .\n' for i in range(5000)]
    lines.append("<< <http://ex/a> <http://ex/b> <http://ex/c> >> <http://ex/p> \"x\" .\n")
    src = tmp_path / "late.nt"
    src.write_text("".join(lines))
    line = fails("convert", src, tmp_path / "out.jelly", "--jobs", "1")
    assert line == ("jelly: error: quoted triple (RDF-star, or an RDF 1.2 triple term) in a "
                    "stream whose options do not enable RDF-star (give --rdf-star) "
                    "(at statement 5001)")
    with pytest.raises(jelly.JellyEncodeError) as caught:
        convert(src, tmp_path / "out.jelly", jobs=1)
    assert str(caught.value).endswith("do not enable rdf_star (at statement 5001)")
