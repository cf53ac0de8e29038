"""Shared test set-up: the protobuf oracle, the conformance suite and its manifests.

The official Jelly-RDF conformance suite is expected beside the repository, at
``<repo>/../shared/conformance`` (as in CI), or wherever ``JELLY_CONFORMANCE_DIR`` points
(the directory holding ``rdf/`` and ``vocabulary.ttl``).  If it cannot be found, every test
that needs it FAILS with a message saying so; nothing is skipped.

Tests ask for conformance data through these parametrized fixtures:

* ``conformance_case``  - every manifest entry (from_jelly and to_jelly)
* ``from_jelly_case``   - every from_jelly entry
* ``to_jelly_case``     - every to_jelly entry
* ``positive_jelly``    - (case id, path) of every positive from_jelly ``in.jelly``
* ``valid_jelly``       - (case id, path) of every valid Jelly file of the suite: positive
                          from_jelly inputs and to_jelly expected outputs
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

import refdecoder  # noqa: E402

try:  # keep property tests reproducible-ish and free of on-disk state
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "jelly", deadline=None, database=None, print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                               HealthCheck.filter_too_much])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "jelly"))
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    pass

MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
JELLYT = "https://w3id.org/jelly/dev/tests/vocab#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
BASE_IRI = "https://w3id.org/jelly/dev/tests/rdf/"
DIRECTIONS = ("from_jelly", "to_jelly")
EXPECTED_CASE_COUNT = 187


class ConformanceMissing(Exception):
    pass


def conformance_dir() -> Path:
    """The conformance suite directory (holding ``rdf/``); raises ConformanceMissing."""
    env = os.environ.get("JELLY_CONFORMANCE_DIR")
    path = Path(env) if env else REPO_ROOT.parent / "shared" / "conformance"
    for d in DIRECTIONS:
        if not (path / "rdf" / d / "manifest.ttl").is_file():
            how = ("JELLY_CONFORMANCE_DIR=" + env) if env else \
                f"the default location {path} (set JELLY_CONFORMANCE_DIR to override)"
            raise ConformanceMissing(
                f"Jelly-RDF conformance suite not found: no rdf/{d}/manifest.ttl under {how}")
    return path


@dataclasses.dataclass(frozen=True)
class Case:
    id: str                 # e.g. "from_jelly/triples_rdf_1_1/pos_001"
    direction: str          # "from_jelly" | "to_jelly"
    positive: bool
    name: str
    action: tuple           # local Paths
    result: tuple           # local Paths (possibly empty)

    @property
    def physical(self) -> str:
        return self.id.split("/")[1].split("_")[0]   # triples / quads / graphs


def _local(iri: str, root: Path) -> Path:
    if not iri.startswith(BASE_IRI):
        raise ValueError(f"manifest IRI outside the suite: {iri}")
    return root / "rdf" / iri[len(BASE_IRI):]


@functools.lru_cache(maxsize=None)
def load_cases() -> tuple:
    """All manifest entries of both manifests, in manifest order."""
    import rdflib
    from rdflib.collection import Collection

    root = conformance_dir()
    cases = []
    for direction in DIRECTIONS:
        mpath = root / "rdf" / direction / "manifest.ttl"
        g = rdflib.Graph()
        g.parse(mpath, format="turtle")
        manifest = rdflib.URIRef(f"{BASE_IRI}{direction}/manifest")
        entries_node = g.value(manifest, rdflib.URIRef(MF + "entries"))
        if entries_node is None:
            raise AssertionError(f"{mpath}: no mf:entries on {manifest}")
        entries = list(Collection(g, entries_node))
        if not entries:
            raise AssertionError(f"{mpath}: empty mf:entries")

        def files(node):
            if node is None:
                return ()
            if isinstance(node, rdflib.BNode) or node == rdflib.RDF.nil:
                return tuple(_local(str(x), root) for x in Collection(g, node))
            return (_local(str(node), root),)

        for e in entries:
            types = {str(t) for t in g.objects(e, rdflib.URIRef(RDF_TYPE))}
            pos = JELLYT + "TestPositive" in types
            neg = JELLYT + "TestNegative" in types
            if pos == neg:
                raise AssertionError(f"{e}: must be exactly one of TestPositive/TestNegative")
            kind = JELLYT + ("TestRdfFromJelly" if direction == "from_jelly"
                             else "TestRdfToJelly")
            if kind not in types:
                raise AssertionError(f"{e}: missing type {kind}")
            action = files(g.value(e, rdflib.URIRef(MF + "action")))
            result = files(g.value(e, rdflib.URIRef(MF + "result")))
            if not action:
                raise AssertionError(f"{e}: no mf:action")
            for p in action + result:
                if not p.is_file():
                    raise AssertionError(f"{e}: file {p} does not exist")
            cid = str(e)[len(BASE_IRI):]
            name = str(g.value(e, rdflib.URIRef(MF + "name")) or "")
            cases.append(Case(cid, direction, pos, name, action, result))
    return tuple(cases)


class _Missing:
    """Parameter value standing in for the conformance data when it cannot be loaded."""

    def __init__(self, reason: str):
        self.reason = reason


def _params(select):
    try:
        cases = load_cases()
    except ConformanceMissing as e:
        return [pytest.param(_Missing(str(e)), id="conformance-suite-missing")]
    except Exception as e:  # a broken manifest must fail loudly, not vanish
        return [pytest.param(_Missing(f"cannot load the manifests: {e!r}"),
                             id="conformance-manifest-broken")]
    out = select(cases)
    if not out:
        return [pytest.param(_Missing("no matching conformance cases"), id="no-cases")]
    return out


def _valid_jelly(cases):
    out = []
    for c in cases:
        if c.direction == "from_jelly" and c.positive:
            out.append(pytest.param((c.id, c.action[0]), id=c.id))
        elif c.direction == "to_jelly" and c.positive:
            out.append(pytest.param((c.id + "/out", c.result[0]), id=c.id + "/out"))
    return out


_SELECTORS = {
    "conformance_case": lambda cs: [pytest.param(c, id=c.id) for c in cs],
    "from_jelly_case": lambda cs: [pytest.param(c, id=c.id) for c in cs
                                   if c.direction == "from_jelly"],
    "to_jelly_case": lambda cs: [pytest.param(c, id=c.id) for c in cs
                                 if c.direction == "to_jelly"],
    "positive_jelly": lambda cs: [pytest.param((c.id, c.action[0]), id=c.id) for c in cs
                                  if c.direction == "from_jelly" and c.positive],
    "valid_jelly": _valid_jelly,
}


def pytest_generate_tests(metafunc):
    for name, select in _SELECTORS.items():
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, _params(select), indirect=True)


def _unwrap(request):
    value = request.param
    if isinstance(value, _Missing):
        pytest.fail(value.reason, pytrace=False)
    return value


@pytest.fixture
def conformance_case(request):
    return _unwrap(request)


@pytest.fixture
def from_jelly_case(request):
    return _unwrap(request)


@pytest.fixture
def to_jelly_case(request):
    return _unwrap(request)


@pytest.fixture
def positive_jelly(request):
    return _unwrap(request)


@pytest.fixture
def valid_jelly(request):
    return _unwrap(request)


def valid_jelly_files():
    """[(id, Path)] of all valid Jelly files in the suite (raises if the suite is missing)."""
    return [p.values[0] for p in _valid_jelly(load_cases())]


@pytest.fixture(scope="session")
def pb2():
    """The ``rdf_pb2``-like module compiled from proto/*.proto (independent oracle)."""
    return refdecoder.load_pb2()


def import_jelly():
    """Import the library under test; a failure to import FAILS the test (never skips)."""
    try:
        import jelly
        jelly.parse_frames  # noqa: B018 - the API must exist
        jelly.JellyError  # noqa: B018
    except Exception as e:  # ImportError, AttributeError, a broken build...
        pytest.fail(f"cannot import the jelly library under test: {e!r}", pytrace=False)
    return jelly


@pytest.fixture(scope="session")
def jelly():
    return import_jelly()


def jelly_subprocess_env() -> dict:
    """Environment for running ``python -m jelly`` so the child imports the same jelly."""
    env = dict(os.environ)
    try:
        import jelly
        pkg_parent = str(Path(jelly.__file__).resolve().parent.parent)
    except Exception:
        pkg_parent = str(REPO_ROOT)
    env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"]
                                      if env.get("PYTHONPATH") else "")
    env.setdefault("PYTHONIOENCODING", "utf-8")
    return env
