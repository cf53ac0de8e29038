"""Shared helpers of the test suite: paths, the official conformance suite and its manifests,
running the command line, and the neutral term conversions between jelly and the oracles.
The random-data generator of the property tests is in ``strategies.py``.

Test modules import what they need from here (``from helpers import ...``); ``conftest.py``
only wires these into pytest (fixtures and parametrization).  The independent decoders that
tests compare against live in the ``oracle`` package.

The official Jelly-RDF conformance suite is expected beside the repository, at
``<repo>/../shared/conformance`` (as in CI), or wherever ``JELLY_CONFORMANCE_DIR`` points
(the directory holding ``rdf/`` and ``vocabulary.ttl``).  If it cannot be found, every test
that needs it FAILS with a message saying so; nothing is skipped.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import os
import subprocess
import sys
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent
#: The example data shipped in the repository.
DATA = REPO_ROOT / "examples" / "data"

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


def valid_jelly_files() -> list:
    """[(id, Path)] of all valid Jelly files in the suite (raises if the suite is missing):
    positive from_jelly inputs and to_jelly expected outputs."""
    out = []
    for c in load_cases():
        if c.direction == "from_jelly" and c.positive:
            out.append((c.id, c.action[0]))
        elif c.direction == "to_jelly" and c.positive:
            out.append((c.id + "/out", c.result[0]))
    return out


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


def run_jelly(*argv, stdin: bytes = b"", timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``python -m jelly ARGV`` in a child process (the real entry point, real pipes)."""
    return subprocess.run([sys.executable, "-m", "jelly", *map(str, argv)], input=stdin,
                          capture_output=True, env=jelly_subprocess_env(), timeout=timeout)


# -- neutral terms -----------------------------------------------------------------------------
# The oracles speak plain tuples: ("I", iri), ("B", label), ("L", lex, lang, datatype),
# ("T", s, p, o), ("D",) for the default graph.

def to_jelly(t):
    """A neutral term as a jelly term."""
    import jelly
    k = t[0]
    if k == "I":
        return jelly.IRI(t[1])
    if k == "B":
        return jelly.BlankNode(t[1])
    if k == "L":
        return jelly.Literal(t[1], language=t[2], datatype=t[3])
    if k == "D":
        return jelly.DEFAULT_GRAPH
    return jelly.Triple(*(to_jelly(x) for x in t[1:]))


def from_jelly(x):
    """A jelly term as a neutral term (a statement tuple term by term)."""
    import jelly
    if type(x) is tuple:
        return tuple(from_jelly(t) for t in x)
    if type(x) is jelly.IRI:
        return ("I", x.value)
    if type(x) is jelly.BlankNode:
        return ("B", x.value)
    if type(x) is jelly.Literal:
        return ("L", x.lex, x.language, None if x.datatype is None else x.datatype.value)
    if type(x) is jelly.DefaultGraph:
        return ("D",)
    if type(x) is jelly.Triple:
        return ("T", from_jelly(x.s), from_jelly(x.p), from_jelly(x.o))
    raise AssertionError(f"not a jelly term: {x!r}")


def term_struct(term):
    """The struct layout of a jelly term (``jelly.spark``'s ``terms="struct"``): ``(kind,
    value, datatype, language)``, or None for no term; written independently of jelly.spark."""
    from jelly import BlankNode, IRI, Literal
    if term is None:
        return None
    if type(term) is IRI:
        return ("iri", term.value, None, None)
    if type(term) is BlankNode:
        return ("bnode", term.value, None, None)
    if type(term) is Literal:
        return ("literal", term.lex, term.datatype.value if term.datatype else None,
                term.language)
    return ("triple", str(term), None, None)


class Pieces(io.RawIOBase):
    """A pipe-like stream: at most ``piece`` bytes per read, never sought; ``pos`` is how far
    it was read."""

    def __init__(self, data: bytes, piece: int = 16):
        self.data, self.pos, self.piece = data, 0, piece

    def readable(self):
        return True

    def readinto(self, b):
        n = min(len(b), self.piece, len(self.data) - self.pos)
        b[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n
