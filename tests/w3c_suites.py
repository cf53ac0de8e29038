"""The W3C RDF test suites (N-Triples, N-Quads, Turtle, TriG) that tests/test_w3c.py runs.

No file of them is in this repository; they come from:

* **RDF 1.1**, always: the copy of the suites that rdflib ships in its source distribution on
  PyPI (``rdflib-7.6.0/test/data/suites/w3c/{ntriples,nquads,turtle,trig}``, a snapshot of
  w3c/rdf-tests from before 2023).  :func:`rdflib_suites` fetches it once with ``pip download``
  into the cache directory (``$JELLY_TEST_CACHE``, default ``~/.cache/jelly-tests``), checks its
  pinned SHA-256 and unpacks the four suites.
* **RDF 1.2**, always: the four RDF 1.2 suites of https://github.com/w3c/rdf-tests (commit
  ad541a5f, 2026-08-07) are vendored in ``tests/data/rdf-tests`` (test data under the W3C test
  suite licence, see its README; no package of PyPI or Debian ships them).  Their manifests
  include the current RDF 1.1 ones, which are not vendored (rdflib's copy above covers RDF 1.1):
  an include that is absent from the vendored tree is left out.
* A full checkout named by ``JELLY_RDF_TESTS`` replaces the vendored copy, RDF 1.1 includes
  and all; then a missing or broken suite fails the tests.

Manifests are read with rdflib (a test dependency, independent of the parsers under test).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

RDFLIB_VERSION = "7.6.0"
RDFLIB_SDIST_SHA256 = "6c831288d5e4a5a7ece85d0ccde9877d512a3d0f02d7c06455d00d6d0ea379df"
#: The rdflib copy's suites and the base IRI its tests assume (its manifests name none).
RDFLIB_SUITES = {"ntriples": ("nt", "http://www.w3.org/2013/N-TriplesTests/"),
                 "nquads": ("nq", "http://www.w3.org/2013/N-QuadsTests/"),
                 "turtle": ("ttl", "http://www.w3.org/2013/TurtleTests/"),
                 "trig": ("trig", "http://www.w3.org/2013/TriGTests/")}
#: The suites of a w3c/rdf-tests checkout (each RDF 1.2 manifest includes the RDF 1.1 one).
RDF_TESTS_SUITES = {"rdf/rdf12/rdf-n-triples": "nt", "rdf/rdf12/rdf-n-quads": "nq",
                    "rdf/rdf12/rdf-turtle": "ttl", "rdf/rdf12/rdf-trig": "trig"}
ENV_RDF_TESTS = "JELLY_RDF_TESTS"
#: The vendored RDF 1.2 suites (the same layout as a checkout, rdf/rdf12/... only).
VENDORED_RDF_TESTS = Path(__file__).parent / "data" / "rdf-tests"

MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFT = "http://www.w3.org/ns/rdftest#"
_ASSUMED_BASE = re.compile(r"assumedTestBase\s+<([^>]+)>")


class SuiteMissing(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Case:
    id: str             # e.g. "rdf12/ttl/turtle12-eval-rt-01"
    suite: str          # "rdf11" (rdflib's copy) or "rdf12" (a w3c/rdf-tests checkout)
    kind: str           # the registry name of the format: nt, nq, ttl, trig
    test: str           # positive, negative, eval, c14n
    action: Path
    result: Path | None
    base: str | None    # the IRI the test assumes for its action file


def cache_dir() -> Path:
    env = os.environ.get("JELLY_TEST_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "jelly-tests"


def rdflib_suites() -> Path:
    """The directory holding rdflib's copy of the four W3C suites (fetched once)."""
    target = cache_dir() / f"rdflib-{RDFLIB_VERSION}-w3c"
    marker = target / "SHA256"
    if marker.is_file() and marker.read_text().strip() == RDFLIB_SDIST_SHA256:
        return target
    cache_dir().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             f"rdflib=={RDFLIB_VERSION}", "-d", tmp, "-q"],
            capture_output=True, text=True, timeout=600)
        sdist = Path(tmp) / f"rdflib-{RDFLIB_VERSION}.tar.gz"
        if proc.returncode != 0 or not sdist.is_file():
            raise SuiteMissing(f"cannot fetch the rdflib {RDFLIB_VERSION} sdist from PyPI with "
                               f"pip: {(proc.stderr or proc.stdout).strip()[-500:]}")
        digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
        if digest != RDFLIB_SDIST_SHA256:
            raise SuiteMissing(f"rdflib-{RDFLIB_VERSION}.tar.gz has SHA-256 {digest}, not the "
                               f"pinned {RDFLIB_SDIST_SHA256}")
        unpacked = Path(tmp) / "w3c"
        prefix = f"rdflib-{RDFLIB_VERSION}/test/data/suites/w3c/"
        with tarfile.open(sdist) as tar:
            for member in tar.getmembers():
                name = member.name
                if not name.startswith(prefix) or not member.isfile():
                    continue
                rel = name[len(prefix):]
                if rel.split("/")[0] not in RDFLIB_SUITES or ".." in rel.split("/"):
                    continue
                dest = unpacked / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                src = tar.extractfile(member)
                assert src is not None
                dest.write_bytes(src.read())
        (unpacked / "SHA256").write_text(RDFLIB_SDIST_SHA256 + "\n")
        if target.exists():
            shutil.rmtree(target)
        unpacked.rename(target)
    return target


def rdf_tests_dir() -> Path:
    """The w3c/rdf-tests checkout named by JELLY_RDF_TESTS, else the vendored RDF 1.2 suites;
    SuiteMissing if it does not hold the suites."""
    env = os.environ.get(ENV_RDF_TESTS)
    root = Path(env) if env else VENDORED_RDF_TESTS
    for suite in RDF_TESTS_SUITES:
        if not (root / suite / "manifest.ttl").is_file():
            raise SuiteMissing(f"{root} has no {suite}/manifest.ttl (it must be a checkout of "
                               f"https://github.com/w3c/rdf-tests, or the vendored copy)")
    return root


def _test_kind(type_iri: str) -> str | None:
    name = type_iri[len(RDFT):] if type_iri.startswith(RDFT) else ""
    for suffix, kind in (("PositiveSyntax", "positive"), ("NegativeSyntax", "negative"),
                         ("NegativeEval", "negative"), ("PositiveC14N", "c14n"),
                         ("Eval", "eval")):
        if name.endswith(suffix):
            return kind
    return None


def _manifest(path: Path, seen: set[Path], optional_includes: bool = False
              ) -> list[tuple[str, str, Path, Path | None, str | None]]:
    """(test IRI, test kind, action, result, assumed base of the manifest) of a manifest and
    the ones it includes (with ``optional_includes``, those absent are left out)."""
    import rdflib
    from rdflib.collection import Collection
    path = path.resolve()
    if path in seen:
        return []
    seen.add(path)
    g = rdflib.Graph()
    g.parse(path, format="turtle", publicID=path.as_uri())
    mf = rdflib.Namespace(MF)
    out = []
    for m in g.subjects(rdflib.URIRef(RDF_TYPE), mf.Manifest):
        base = g.value(m, mf.assumedTestBase)
        include = g.value(m, mf.include)
        if include is not None:
            for inc in Collection(g, include):
                inc_path = _file(str(inc))
                if optional_includes and not inc_path.is_file():
                    continue
                out += _manifest(inc_path, seen, optional_includes)
        entries = g.value(m, mf.entries)
        if entries is None:
            continue
        for e in Collection(g, entries):
            kind = _test_kind(str(g.value(e, rdflib.URIRef(RDF_TYPE))))
            action = g.value(e, mf.action)
            if kind is None or action is None:
                continue
            result = g.value(e, mf.result)
            out.append((str(e), kind, _file(str(action)),
                        _file(str(result)) if result is not None else None,
                        str(base) if base is not None else None))
    return out


def _file(uri: str) -> Path:
    if not uri.startswith("file://"):
        raise ValueError(f"manifest entry outside the suite: {uri}")
    from urllib.parse import unquote, urlparse
    return Path(unquote(urlparse(uri).path))


def _base_of(action: Path, declared: dict[Path, str]) -> str | None:
    """The IRI a test assumes for its action: the nearest manifest's mf:assumedTestBase plus
    the path from that manifest's directory."""
    d = action.parent
    while d != d.parent:
        if d in declared:
            return declared[d] + action.relative_to(d).as_posix()
        d = d.parent
    return None     # the RDF 1.1 N-Triples / N-Quads manifests name none (nor need one)


def load_cases() -> list[Case]:
    """Every case of the suites available (see the module docstring)."""
    cases: list[Case] = []
    root = rdflib_suites()
    for name, (kind, base) in RDFLIB_SUITES.items():
        for iri, test, action, result, _ in _manifest(root / name / "manifest.ttl", set()):
            cases.append(Case(f"rdf11/{kind}/{iri.rsplit('#', 1)[-1]}", "rdf11", kind, test,
                              action, result, base + action.name))
    tests = rdf_tests_dir()
    vendored = tests.resolve() == VENDORED_RDF_TESTS.resolve()
    declared: dict[Path, str] = {}
    for path in (tests / "rdf").rglob("manifest.ttl"):
        m = _ASSUMED_BASE.search(path.read_text(encoding="utf-8", errors="replace"))
        if m:
            declared[path.parent.resolve()] = m.group(1)
    for suite, kind in RDF_TESTS_SUITES.items():
        for iri, test, action, result, _ in _manifest(tests / suite / "manifest.ttl", set(), vendored):
            if iri.startswith("file://"):
                where, _, frag = iri.partition("#")
                rel = _file(where).parent.relative_to(tests.resolve()).as_posix() + "#" + frag
            else:
                rel = iri.split("/rdf-tests/", 1)[-1]
            cases.append(Case(f"rdf-tests/{rel.removeprefix('rdf/')}", "rdf12", kind, test,
                              action, result,
                              _base_of(action.resolve(), declared)))
    return cases
