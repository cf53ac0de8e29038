"""The official Jelly-RDF conformance suite, driven by its two manifests.

* ``test_contract``: one case per manifest entry, run exactly as the external checker does,
  through the command line in a subprocess (``python -m jelly convert ...``).
* ``test_api_from_jelly`` / ``test_cli_in_process``: the same checks in-process
  (``jelly.parse_frames`` and ``jelly.cli.main``), faster and with better failure messages.
* ``test_oracle_*``: the reference decoder and N-Triples reader of the tests themselves are
  checked against the suite, so that the differential tests can trust them.
* ``test_iso_*``: unit tests of the isomorphism helpers.

Expected values come from the suite's files only, read with the tests' own N-Quads reader
(``oracle.ntriples``) and decoded with the tests' own reference decoder.
"""

from __future__ import annotations

import io
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

import helpers
from oracle import isomorphism as iso, jelly_rdf as rd, ntriples as ntr, terms as neutral
from oracle.terms import nq_shape

CLI_TIMEOUT = 120


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------

def expected_frames(case):
    return [ntr.parse_nquads_file(p) for p in case.result]


def input_frames(case):
    """to_jelly: the input files (all but the leading stream_options.jelly)."""
    opts, *inputs = case.action
    assert opts.name == "stream_options.jelly", case.action
    assert inputs, f"{case.id}: no input files"
    return opts, inputs


def write_message_log(inputs, tmp_path: Path) -> Path:
    """Join the input files into one message log, each file preceded by '# @message'."""
    ext = ".nq" if any(p.suffix == ".nq" for p in inputs) else ".nt"
    log = tmp_path / ("log" + ext)
    with open(log, "wb") as out:
        for p in inputs:
            out.write(b"# @message\n")
            data = p.read_bytes()
            out.write(data)
            if data and not data.endswith(b"\n"):
                out.write(b"\n")
    return log


def compare_frames(got, expected, what):
    """Frame-by-frame ordered isomorphism (one blank-node bijection per frame)."""
    got = [[nq_shape(s) for s in f] for f in got]
    expected = [[nq_shape(s) for s in f] for f in expected]
    assert len(got) == len(expected), \
        f"{what}: {len(got)} frames, expected {len(expected)}"
    for i, (g, e) in enumerate(zip(got, expected)):
        why = iso.ordered_mismatch(g, e)
        assert why is None, f"{what}: frame {i}: {why}\n got: " + \
            "\n      ".join(ntr.stmt_to_nt(s) for s in g) + "\n expected: " + \
            "\n      ".join(ntr.stmt_to_nt(s) for s in e)


def frames_of_message_log(data: bytes):
    return ntr.split_messages(ntr.parse_nquads(data, messages=True))


def run_cli(args, cwd):
    return subprocess.run([sys.executable, "-m", "jelly", *map(str, args)],
                          capture_output=True, cwd=cwd, env=helpers.jelly_subprocess_env(),
                          timeout=CLI_TIMEOUT)


def assert_clean_rejection(returncode, stderr: str, what):
    assert returncode != 0, f"{what}: invalid input accepted (exit 0)"
    assert "Traceback" not in stderr, f"{what}: traceback on stderr:\n{stderr}"
    lines = [ln for ln in stderr.strip().splitlines()]
    assert len(lines) == 1, f"{what}: stderr must be one line, got {len(lines)}:\n{stderr}"


def check_to_jelly_output(case, out_path: Path, inputs, opts_path: Path):
    data = out_path.read_bytes()
    try:
        options, frames = rd.decode(data)
    except rd.RefDecodeError as e:
        pytest.fail(f"{case.id}: jelly wrote a stream the reference decoder rejects: {e}")
    want = rd.read_options(opts_path.read_bytes())
    assert options is not None, f"{case.id}: no options in output"
    assert options.key() == want.key(), \
        f"{case.id}: options differ:\n got      {options}\n expected {want}"
    compare_frames(frames, [ntr.parse_nquads_file(p) for p in inputs], case.id)


# --------------------------------------------------------------------------------------
# manifests
# --------------------------------------------------------------------------------------

def test_manifests_hold_all_cases():
    try:
        cases = helpers.load_cases()
    except helpers.ConformanceMissing as e:
        pytest.fail(str(e), pytrace=False)
    assert len(cases) == helpers.EXPECTED_CASE_COUNT, \
        f"manifests hold {len(cases)} cases, expected {helpers.EXPECTED_CASE_COUNT}"
    assert len({c.id for c in cases}) == len(cases), "duplicate case ids"
    by_dir = {d: [c for c in cases if c.direction == d] for d in helpers.DIRECTIONS}
    assert len(by_dir["from_jelly"]) == 110 and len(by_dir["to_jelly"]) == 77
    for c in by_dir["from_jelly"]:
        assert len(c.action) == 1 and c.action[0].name == "in.jelly", c
        assert bool(c.result) == c.positive, c
        assert [p.name[:4] for p in c.result] == ["out_"] * len(c.result), c
    for c in by_dir["to_jelly"]:
        assert c.action[0].name == "stream_options.jelly" and len(c.action) >= 2, c
        assert (c.result == ()) != c.positive, c
        if c.positive:
            assert [p.name for p in c.result] == ["out.jelly"], c
    # mf:result lists keep their order
    multi = [c for c in cases if len(c.result) > 1]
    assert multi, "no multi-frame case found: rdf:List parsing broken?"
    for c in multi:
        assert [p.name for p in c.result] == sorted(p.name for p in c.result), c


def test_conformance_dir_override(monkeypatch, tmp_path):
    monkeypatch.setenv("JELLY_CONFORMANCE_DIR", str(tmp_path))
    with pytest.raises(helpers.ConformanceMissing, match="JELLY_CONFORMANCE_DIR"):
        helpers.conformance_dir()


# --------------------------------------------------------------------------------------
# the contract, as the external checker runs it (subprocess)
# --------------------------------------------------------------------------------------

def test_contract(conformance_case, tmp_path):
    case = conformance_case
    if case.direction == "from_jelly":
        out = tmp_path / "out.nq"
        proc = run_cli(["convert", case.action[0], out, "--messages"], tmp_path)
        stderr = proc.stderr.decode("utf-8", "replace")
        if case.positive:
            assert proc.returncode == 0, f"{case.id}: exit {proc.returncode}:\n{stderr}"
            got = frames_of_message_log(out.read_bytes())
            compare_frames(got, expected_frames(case), case.id)
        else:
            assert_clean_rejection(proc.returncode, stderr, case.id)
    else:
        opts, inputs = input_frames(case)
        log = write_message_log(inputs, tmp_path)
        out = tmp_path / "out.jelly"
        proc = run_cli(["convert", log, out, "--options-from", opts], tmp_path)
        stderr = proc.stderr.decode("utf-8", "replace")
        if case.positive:
            assert proc.returncode == 0, f"{case.id}: exit {proc.returncode}:\n{stderr}"
            check_to_jelly_output(case, out, inputs, opts)
        else:
            assert_clean_rejection(proc.returncode, stderr, case.id)


# --------------------------------------------------------------------------------------
# the same, in-process
# --------------------------------------------------------------------------------------

def test_api_from_jelly(from_jelly_case, jelly):
    case = from_jelly_case
    path = case.action[0]
    if case.positive:
        frames = list(jelly.parse_frames(str(path)))
        assert [f.index for f in frames] == list(range(len(frames)))
        got = [[helpers.from_jelly(s) for s in f.statements] for f in frames]
        compare_frames(got, expected_frames(case), case.id)
        # parse() yields the same statements, flattened
        flat = [helpers.from_jelly(s) for s in jelly.parse(path.read_bytes())]
        assert flat == [s for f in got for s in f]
    else:
        with pytest.raises(jelly.JellyError):
            for _ in jelly.parse_frames(str(path)):
                pass
        with pytest.raises(jelly.JellyError):
            list(jelly.parse(path.read_bytes()))


def _cli_main(jelly, argv):
    import jelly.cli as cli
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return code, err.getvalue()


def test_cli_in_process(conformance_case, jelly, tmp_path):
    case = conformance_case
    if case.direction == "from_jelly":
        out = tmp_path / "out.nq"
        code, err = _cli_main(jelly, ["convert", case.action[0], out, "--messages"])
        if case.positive:
            assert code == 0, f"{case.id}: exit {code}: {err}"
            compare_frames(frames_of_message_log(out.read_bytes()), expected_frames(case),
                           case.id)
        else:
            assert_clean_rejection(code, err, case.id)
    else:
        opts, inputs = input_frames(case)
        log = write_message_log(inputs, tmp_path)
        out = tmp_path / "out.jelly"
        code, err = _cli_main(jelly, ["convert", log, out, "--options-from", opts])
        if case.positive:
            assert code == 0, f"{case.id}: exit {code}: {err}"
            check_to_jelly_output(case, out, inputs, opts)
        else:
            assert_clean_rejection(code, err, case.id)


def test_to_jelly_output_readable_by_jelly(to_jelly_case, jelly, tmp_path):
    """What jelly writes, jelly reads back to the inputs (and to the same options)."""
    case = to_jelly_case
    if not case.positive:
        _expect_negative_to_jelly(case, jelly, tmp_path)
        return
    opts, inputs = input_frames(case)
    log = write_message_log(inputs, tmp_path)
    out = tmp_path / "out.jelly"
    code, err = _cli_main(jelly, ["convert", log, out, "--options-from", opts])
    assert code == 0, err
    frames = [[helpers.from_jelly(s) for s in f.statements] for f in jelly.parse_frames(str(out))]
    compare_frames(frames, [ntr.parse_nquads_file(p) for p in inputs], case.id)
    o = jelly.read_options(str(out))
    want = rd.read_options(opts.read_bytes())
    assert (int(o.physical_type), int(o.logical_type), bool(o.generalized_statements),
            bool(o.rdf_star), o.max_name_table_size, o.max_prefix_table_size,
            o.max_datatype_table_size) == want.key()


def _expect_negative_to_jelly(case, jelly, tmp_path):
    opts, inputs = input_frames(case)
    log = write_message_log(inputs, tmp_path)
    code, err = _cli_main(jelly, ["convert", log, tmp_path / "out.jelly",
                                  "--options-from", opts])
    assert_clean_rejection(code, err, case.id)


# --------------------------------------------------------------------------------------
# the oracle itself, against the suite
# --------------------------------------------------------------------------------------

def test_oracle_from_jelly(from_jelly_case):
    case = from_jelly_case
    data = case.action[0].read_bytes()
    if case.positive:
        result = rd.decode_full(data, strict=True)
        assert result.warnings == []
        compare_frames(result.statement_frames, expected_frames(case), case.id)
    else:
        with pytest.raises(rd.RefDecodeError) as ei:
            rd.decode_full(data, strict=False)
        assert not ei.value.optional, f"{case.id}: rejected only optionally: {ei.value}"


def test_oracle_to_jelly_expected(to_jelly_case):
    """The suite's expected out.jelly decodes (by the oracle) to the inputs, one per frame."""
    case = to_jelly_case
    opts, inputs = input_frames(case)
    want = rd.read_options(opts.read_bytes())
    if not case.positive:
        # The negative cases are about the producer: check the options that make them so.
        assert want.max_name_table_size < 8 or want.max_datatype_table_size == 0, case.id
        return
    options, frames = rd.decode(case.result[0].read_bytes())
    assert options.key() == want.key()
    compare_frames(frames, [ntr.parse_nquads_file(p) for p in inputs], case.id)


def _rdflib_statements(path: Path):
    import rdflib
    fmt = "nquads" if path.suffix == ".nq" else "nt"
    ds = rdflib.Dataset()
    ds.parse(path, format=fmt)
    out = []
    for s, p, o, g in ds.quads((None, None, None, None)):
        def conv(t):
            if isinstance(t, rdflib.URIRef):
                return ("I", str(t))
            if isinstance(t, rdflib.BNode):
                return ("B", str(t))
            dt = str(t.datatype) if t.datatype is not None else None
            if dt == neutral.XSD_STRING:
                dt = None
            return ("L", str(t), t.language, dt)
        st = (conv(s), conv(p), conv(o))
        if g is not None and str(g) != str(rdflib.graph.DATASET_DEFAULT_GRAPH_ID):
            st = st + (conv(g),)
        out.append(st)
    return out


def test_oracle_ntriples_reader_agrees_with_rdflib(monkeypatch):
    """Our N-Quads reader (used for all expected values) agrees with rdflib on every suite
    file rdflib can read (no RDF-star, no generalized statements)."""
    import rdflib
    import rdflib.exceptions
    monkeypatch.setattr(rdflib, "NORMALIZE_LITERALS", False)  # keep lexical forms as written
    checked = 0
    for case in helpers.load_cases():
        files = [p for p in case.action + case.result if p.suffix in (".nt", ".nq")]
        if "star" in case.id or "generalized" in case.id:
            continue
        for p in files:
            ours = ntr.parse_nquads_file(p)
            try:
                theirs = _rdflib_statements(p)
            except rdflib.exceptions.ParserError:
                continue  # rdflib's N-Triples grammar misses some valid blank node labels

            assert len(set(ours)) == len(set(theirs)), p
            assert iso.unordered_isomorphic(set(ours), set(theirs)), p
            checked += 1
    assert checked > 100
