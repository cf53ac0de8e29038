"""The typed public API: the stubs of the compiled modules match them, and ``mypy --strict``
accepts the public Python modules and a program that uses the API as the README and the user
guide show.

mypy runs once per session (one process for everything); if mypy is not installed the tests
fail.  The program is also run, so what it claims about the API is true at run time too; its
``assert_type`` lines pin the types users see, and its ``# type: ignore[...]`` lines are
misuses that the stubs must reject (``--strict`` reports an ignore that is not needed, so a
stub that is too loose fails the test).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from helpers import REPO_ROOT, jelly_subprocess_env

PACKAGE = REPO_ROOT / "jelly"
COMPILED = ("_buffer", "_decoder", "_encoder", "_framing", "_lookup", "_ntformat", "_ntriples",
            "_sink", "_streaming", "_termdecoder", "_termencoder", "_terms", "_transcode",
            "_jena", "_jena_thrift", "_jena_proto", "_patchops", "_patchdecoder", "_patchencoder",
            "_rdfpatch", "_jellytext", "_framestats", "_lines", "_xsdvalues")
PUBLIC_PY = ("__init__", "options", "errors", "reader", "writer", "io", "formats", "convert",
             "inspect", "jena", "migrate", "transcode", "patch", "rdfpatch", "patchdata",
             "patch_cli", "jellytext", "compare", "parallel")
#: Dunder methods that are part of a class's API (others come from object or Cython).
API_DUNDERS = {"__init__", "__iter__", "__next__", "__len__", "__enter__", "__exit__",
               "__call__", "__getitem__", "__contains__"}
#: Attributes a stub declares that exist on instances only (set in ``__init__``).
INSTANCE_ATTRIBUTES = {("_lookup", "TableFull", "table")}

PROGRAM = '''
from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator

if sys.version_info >= (3, 11):
    from typing import assert_type
else:
    from typing_extensions import assert_type

import jelly
import jelly.convert
import jelly.formats
import jelly.inspect
import jelly.patchdata
import jelly.rdfpatch
from jelly import DEFAULT_GRAPH, IRI, BlankNode, Literal, Triple

EX = "http://example.org/"


def terms() -> None:
    s = IRI(EX + "s")
    lit = Literal("1", datatype="http://www.w3.org/2001/XMLSchema#int")
    assert_type(lit.datatype, IRI | None)
    assert_type(lit.language, str | None)
    assert_type(s.value, str)
    quoted = Triple(s, IRI(EX + "p"), BlankNode("b"))
    for term in quoted:
        print(str(term))
    assert s < lit and sorted([IRI(EX + "b"), s]) == [IRI(EX + "b"), s]
    assert str(DEFAULT_GRAPH) == ""


def reading_and_writing(tmp: Path) -> None:
    statements = [(IRI(EX + "s"), IRI(EX + "p"), Literal("o", language="en")),
                  (BlankNode("b"), IRI(EX + "p"), Literal("2"))]
    data = jelly.serialize(statements, preset="small")
    assert_type(data, bytes)
    for s, p, o in jelly.parse(data):
        print(s, p, o)
    assert_type(jelly.serialize(statements, tmp / "out.jelly.gz", preset="small"), None)
    assert len(list(jelly.parse(tmp / "out.jelly.gz"))) == 2
    for frame in jelly.parse_frames(data):
        assert_type(frame.index, int)
        assert_type(frame.metadata, dict[str, bytes])
        assert_type(frame.rows, dict[str, int])
        print(frame.statements, frame.namespaces, len(frame))
    with jelly.Reader(io.BytesIO(data)) as reader:
        assert_type(reader.options, jelly.StreamOptions | None)
        for frame in reader.frames():
            print(frame.index)
        print(reader.namespaces)
    limits = jelly.ReaderLimits(max_name_table_size=16384)
    assert len(list(jelly.parse(data, limits=limits, strict=True))) == 2
    options = jelly.read_options(data)
    assert_type(options.physical_type, jelly.PhysicalStreamType)
    quads = [(IRI(EX + "s"), IRI(EX + "p"), IRI(EX + "o"), IRI(EX + "g"))]
    with jelly.Writer(tmp / "messages.jelly", physical_type="quads",
                      logical_type="datasets") as w:
        w.write_frame(quads, metadata={"seq": b"1"})
    assert_type(jelly.serialize_frames([quads, quads], physical_type="quads"), bytes)
    out = io.BytesIO()
    jelly.serialize(statements, out, namespaces={"ex": EX})


def frames_one_at_a_time() -> None:
    encoder = jelly.Encoder(jelly.make_options(preset="small", physical_type="quads"))
    encoder.add_statements([(IRI(EX + "s"), IRI(EX + "p"), IRI(EX + "o"), DEFAULT_GRAPH)])
    payload = encoder.take_frame(metadata={"seq": b"1"})
    assert_type(payload, bytes)
    decoder = jelly.Decoder()
    frame = decoder.decode_frame(payload)
    assert frame.metadata == {"seq": b"1"} and len(frame) == 1
    columns = jelly.Decoder(terms="nt", output="columns").decode_frame(payload)
    print(columns.statements)


def errors() -> None:
    try:
        list(jelly.parse(b"\\x05\\x0a\\x03"))
    except jelly.JellyDecodeError as exc:
        assert_type(exc.offset, int | None)
        assert_type(exc.frame, int | None)
        print(exc.message)
    else:
        raise AssertionError("a truncated stream was read")


def library(tmp: Path) -> None:
    source = tmp / "in.nt"
    source.write_bytes(b"<http://example.org/s> <http://example.org/p> \\"o\\" .\\n")
    result = jelly.convert.convert(source, tmp / "out.jelly")
    assert_type(result.statements, int)
    fmt = jelly.formats.for_path("x.ttl.gz")
    assert fmt is not None and fmt.media_type == "text/turtle"
    assert jelly.formats.get("nq").quads
    report = jelly.inspect.inspect(tmp / "out.jelly")
    assert report["frames"] == 1
    assert_type(jelly.inspect.validate(tmp / "out.jelly").statements, int)


def rdf_patch_text(tmp: Path) -> None:
    from jelly.rdfpatch import TX_COMMIT, TX_START, Add, PatchOp
    ops: list[PatchOp] = [TX_START, Add(IRI(EX + "s"), IRI(EX + "p"), Literal("o")), TX_COMMIT]
    data = jelly.rdfpatch.serialize(ops)
    assert_type(data, bytes)
    assert_type(jelly.rdfpatch.serialize(ops, tmp / "p.rdfp"), None)
    back = list(jelly.rdfpatch.parse(data))
    assert back[:3] == ops and str(back[1]).startswith("A <")
    assert_type(next(jelly.rdfpatch.parse_patches(tmp / "p.rdfp")), list[PatchOp])
    with jelly.rdfpatch.TextWriter() as w:
        w.write_all(ops)
        w.end_patch()
    assert_type(w.getvalue(), bytes)
    dataset = jelly.patchdata.Dataset([(IRI(EX + "s"), IRI(EX + "p"), Literal("o"))])
    result = jelly.patchdata.apply_operations(jelly.rdfpatch.parse(data), dataset)
    assert_type(result.added, int)
    assert_type(jelly.patchdata.diff(dataset, jelly.patchdata.Dataset()), list[PatchOp])


def _misuses() -> None:
    """Never called: each line must be rejected by the stubs (else the ignore is unused)."""
    IRI(42)  # type: ignore[arg-type]
    Literal("x").datatype.value  # type: ignore[union-attr]
    jelly.serialize([]) + 1  # type: ignore[operator]
    jelly.parse(42)  # type: ignore[arg-type]
    jelly.Decoder(strict="yes")  # type: ignore[arg-type]
    jelly.Decoder().decode_frame("text")  # type: ignore[arg-type]
    jelly.Encoder(jelly.make_options()).take_frame(metadata={"k": "v"})  # type: ignore[dict-item]
    jelly.ReaderLimits(max_frame_size="big")  # type: ignore[arg-type]
    next(jelly.parse_frames(b"")).index.upper()  # type: ignore[attr-defined]
    jelly.rdfpatch.serialize([("s", "p", "o")])  # type: ignore[list-item]


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        terms()
        reading_and_writing(Path(d))
        frames_one_at_a_time()
        errors()
        library(Path(d))
        rdf_patch_text(Path(d))
    print("program ok")
'''


@pytest.fixture(scope="session")
def mypy_run(tmp_path_factory):
    """One ``mypy --strict`` over the program, the public modules and the stubs: (program
    path, exit code, output lines)."""
    tmp = tmp_path_factory.mktemp("typing")
    program = tmp / "uses_jelly.py"
    program.write_text(textwrap.dedent(PROGRAM).lstrip())
    files = [str(program)] + [f"jelly/{m}.py" for m in PUBLIC_PY] + \
        [f"jelly/{m}.pyi" for m in COMPILED]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--python-version", "3.10",
         "--cache-dir", str(tmp / "cache"), "--no-color-output", "--show-error-codes", *files],
        cwd=REPO_ROOT, capture_output=True, text=True, env=jelly_subprocess_env(), timeout=600)
    if "No module named mypy" in proc.stderr:
        pytest.fail("mypy is not installed (it is in the 'test' extra)", pytrace=False)
    return program, proc.returncode, (proc.stdout + proc.stderr).splitlines()


def _errors_in(lines, path_test):
    return [ln for ln in lines if ": error:" in ln and path_test(ln.split(":", 1)[0])]


def test_mypy_strict_accepts_the_public_modules_and_stubs(mypy_run):
    _, code, lines = mypy_run
    errors = _errors_in(lines, lambda p: Path(p).parts[:1] == ("jelly",))
    assert not errors, "\n".join(errors)
    assert code == 0 or _errors_in(lines, lambda p: True), "\n".join(lines)


def test_mypy_strict_accepts_a_program_using_the_api(mypy_run):
    program, code, lines = mypy_run
    errors = _errors_in(lines, lambda p: Path(p).name == program.name)
    assert not errors, "\n".join(errors)
    assert code == 0, "\n".join(lines)
    assert any(ln.startswith("Success") for ln in lines), "\n".join(lines)


def test_the_typed_program_runs(mypy_run, tmp_path):
    program, _, _ = mypy_run
    proc = subprocess.run([sys.executable, str(program)], cwd=tmp_path, capture_output=True,
                          text=True, env=jelly_subprocess_env(), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.rstrip().endswith("program ok")


def test_stubs_and_py_typed_are_shipped():
    assert (PACKAGE / "py.typed").is_file()
    pyproject = (REPO_ROOT / "pyproject.toml").read_text()
    package_data = re.search(r"^\[tool\.setuptools\.package-data\]\n(.*?)(?:\n\[|\Z)",
                             pyproject, re.S | re.M)
    assert package_data is not None, "no [tool.setuptools.package-data] in pyproject.toml"
    assert '"py.typed"' in package_data.group(1) and '"*.pyi"' in package_data.group(1)
    test_extra = re.search(r"^test = \[(.*?)^\]", pyproject, re.S | re.M)
    assert test_extra is not None and '"mypy' in test_extra.group(1)


# -- the stubs against the compiled modules ---------------------------------------------------

def _imported_names(pyx: str) -> set[str]:
    """Names a .pyx binds with Python imports (``cimport`` binds nothing at run time)."""
    names = set()
    for m in re.finditer(r"^(?:from\s+\S+\s+import\s+(\([^)]*\)|[^\n]*)|import\s+([^\n]*))",
                         pyx, re.M):
        for item in (m.group(1) or m.group(2)).strip("()").split(","):
            item = item.split("#")[0].strip()
            if item:
                names.add(item.split(" as ")[-1].strip().split(".")[0])
    return names


def _stub(module: str) -> ast.Module:
    path = PACKAGE / f"{module}.pyi"
    assert path.is_file(), f"jelly/{module}.pyi is missing"
    return ast.parse(path.read_text(), str(path))


def _defined(body) -> dict[str, list]:
    """Names a stub body defines, each with its definitions (several for overloads)."""
    out: dict[str, list] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.setdefault(node.target.id, []).append(node)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out.setdefault(t.id, []).append(node)
    return out


def _public(name: str) -> bool:
    return not name.startswith("_") or name in API_DUNDERS


def _runtime_public(module: str):
    mod = importlib.import_module(f"jelly.{module}")
    pyx = (PACKAGE / f"{module}.pyx").read_text()
    imported = _imported_names(pyx)
    return mod, {n: getattr(mod, n) for n in dir(mod)
                 if not n.startswith("_") and n not in imported}


def _params_of_stub(fn: ast.FunctionDef) -> list[tuple[str, str, bool]]:
    a = fn.args
    out = []
    positional = a.posonlyargs + a.args
    first_default = len(positional) - len(a.defaults)
    for i, arg in enumerate(positional):
        kind = "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        out.append((arg.arg, kind, i >= first_default))
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", False))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, "KEYWORD_ONLY", default is not None))
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", False))
    return out


def _params_of_runtime(obj) -> list[tuple[str, str, bool]] | None:
    if isinstance(obj, (types.WrapperDescriptorType, types.MethodWrapperType)):
        return None   # a slot (e.g. __init__, __iter__): Cython keeps no signature
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = [(p.name, p.kind.name, p.default is not inspect.Parameter.empty)
              for p in sig.parameters.values()]
    return params


def _signature_problems(where: str, runtime, stubs: list) -> list[str]:
    want = _params_of_runtime(runtime)
    if want is None:
        return []
    problems = []
    for fn in stubs:
        if not isinstance(fn, ast.FunctionDef):
            return [f"{where} is a function at run time, not in the stub"]
        got = _params_of_stub(fn)
        overloaded = len(stubs) > 1
        if len(got) != len(want) or any(
                g[0] != w[0] and g[1] != "POSITIONAL_ONLY"
                or (g[1] != w[1] and not (g[1] == "POSITIONAL_ONLY"
                                         and w[1] == "POSITIONAL_OR_KEYWORD"))
                or (g[2] != w[2] and not overloaded)
                for g, w in zip(got, want)):
            problems.append(f"{where}: stub parameters {got} differ from the run time's {want}")
    return problems


@pytest.mark.parametrize("module", COMPILED)
def test_stub_matches_the_compiled_module(module):
    stub = _defined(_stub(module).body)
    mod, runtime = _runtime_public(module)
    problems = [f"jelly.{module}.{n} is not in the stub" for n in sorted(runtime)
                if n not in stub]
    problems += [f"jelly.{module}.{n} is in the stub but not in the module" for n in sorted(stub)
                 if not n.startswith("_") and not hasattr(mod, n)]
    for name, obj in sorted(runtime.items()):
        if name not in stub:
            continue
        if inspect.isclass(obj):
            cls_stub = [d for d in stub[name] if isinstance(d, ast.ClassDef)]
            if not cls_stub:
                problems.append(f"jelly.{module}.{name} is a class at run time, not in the stub")
                continue
            members = _defined(cls_stub[0].body)
            for m in sorted(k for k in vars(obj) if _public(k)):
                if m not in members:
                    problems.append(f"jelly.{module}.{name}.{m} is not in the stub")
                else:
                    problems += _signature_problems(f"jelly.{module}.{name}.{m}",
                                                    getattr(obj, m), members[m])
            for m in sorted(k for k in members if _public(k)):
                if not hasattr(obj, m) and (module, name, m) not in INSTANCE_ATTRIBUTES:
                    problems.append(f"jelly.{module}.{name}.{m} is in the stub but not at run "
                                    f"time")
        elif callable(obj):
            problems += _signature_problems(f"jelly.{module}.{name}", obj, stub[name])
    assert not problems, "\n".join(problems)


def test_every_compiled_module_is_covered():
    """A new .pyx needs a stub (and a place in COMPILED)."""
    pyx = sorted(p.stem for p in PACKAGE.glob("_*.pyx"))
    assert pyx == sorted(COMPILED)
    assert sorted(p.stem for p in PACKAGE.glob("_*.pyi")) == sorted(COMPILED)


def test_the_stub_check_finds_a_missing_name():
    """The comparison above can fail: a stub without a runtime name is reported."""
    stub = _defined(ast.parse("class IRI:\n    value: str\n").body)
    _, runtime = _runtime_public("_terms")
    assert "Literal" in runtime and "Literal" not in stub
    assert "parse_nquads" in _runtime_public("_ntriples")[1]
    assert "io" not in _runtime_public("_ntriples")[1]        # imported, not defined
    bad = ast.parse("def frames_in(data, pos, limit=0, index=0, max_frames=1): ...").body[0]
    from jelly import _framing
    assert _signature_problems("frames_in", _framing.frames_in, [bad])
