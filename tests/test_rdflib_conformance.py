"""The official conformance suite through the rdflib plugin (``format="jelly"``).

Every case is run through rdflib, from and to Jelly:

* from_jelly: ``Graph().parse`` (TRIPLES) or ``Dataset().parse`` (QUADS, GRAPHS) of ``in.jelly``
  must give the expected statements (as a set: an rdflib graph is one), and
  ``jelly.rdflib.parse_grouped`` the expected statements frame by frame; negative cases must
  raise ``jelly.JellyError``.
* to_jelly: the input files are turned into rdflib Graphs / Datasets (one per input file),
  written with ``graph.serialize(format="jelly", options=...)`` (one input) or
  ``jelly.rdflib.serialize_grouped`` (several), and the output is read back by the tests'
  reference decoder: same stream options, and each frame isomorphic to its input file.
  Negative cases must raise ``jelly.JellyError``.

A case is *not applicable* when rdflib cannot represent its data: RDF-star quoted triples, and
literals as graph names (generalized quads).  Those are checked too: reading them through rdflib
must fail with :class:`jelly.rdflib.NotRepresentableError` (or, for negative cases, any
``JellyError``).  Everything else must pass; ``test_summary`` counts them (the number in the
README, beside pyjelly's published rdflib result).
"""

from __future__ import annotations

import io

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:rdflib")

import helpers
from oracle import isomorphism as iso, jelly_rdf as rd, ntriples as ntr, terms as neutral

import jelly
import jelly.rdflib  # noqa: F401 - registers format="jelly" as ours
from jelly.options import is_grouped
from jelly.rdflib import NotRepresentableError, parse_grouped, serialize_grouped
from rdflib import BNode, Dataset, Graph, Literal, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID, ConjunctiveGraph

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"

#: RDF 1.1 cases (triples, quads, graphs; from and to Jelly): all must pass.
RDF11_CASES = 84


class NotApplicable(Exception):
    """The case holds data rdflib cannot represent."""


# --------------------------------------------------------------------------------------------
# rdflib terms <-> canonical tuples of the reference decoder
# --------------------------------------------------------------------------------------------

def canon(term):
    if isinstance(term, URIRef):
        return ("I", str(term))
    if isinstance(term, BNode):
        return ("B", str(term))
    if isinstance(term, Literal):
        dt = None if term.datatype is None else str(term.datatype)
        return ("L", str(term), term.language, None if dt == XSD_STRING else dt)
    raise TypeError(f"not an rdflib term: {term!r}")


def statements_of(graph) -> set:
    """The statements of an rdflib Graph (triples) or Dataset (quads; default graph as
    triples, the N-Quads view of the suite's expected files)."""
    if isinstance(graph, ConjunctiveGraph):
        default = jelly.rdflib.streams.default_graph(graph).identifier
        out = set()
        for s, p, o, c in graph.quads((None, None, None, None)):
            ident = c.identifier if isinstance(c, Graph) else c
            st = (canon(s), canon(p), canon(o))
            if ident not in (default, DATASET_DEFAULT_GRAPH_ID):
                st += (canon(ident),)
            out.add(st)
        return out
    return {(canon(s), canon(p), canon(o)) for s, p, o in graph}


def _has_quoted(st) -> bool:
    return any(t[0] == "T" for t in st)


def rdflib_term(t, bnodes: dict):
    kind = t[0]
    if kind == "I":
        return URIRef(t[1])
    if kind == "B":
        node = bnodes.get(t[1])
        if node is None:
            node = bnodes[t[1]] = BNode()
        return node
    if kind == "L":
        return Literal(t[1], lang=t[2], datatype=t[3], normalize=False)
    raise NotApplicable(f"rdflib cannot hold the term {t!r}")


def to_rdflib(statements, physical: str):
    """A Graph (TRIPLES) or Dataset of canonical statements (one blank node scope)."""
    bnodes: dict = {}
    if physical == "triples":
        g = Graph(bind_namespaces="none")
        for st in statements:
            g.add(tuple(rdflib_term(t, bnodes) for t in st))
        return g
    ds = Dataset()
    for st in statements:
        s, p, o = (rdflib_term(t, bnodes) for t in st[:3])
        if len(st) == 3 or st[3] == neutral.DEFAULT_GRAPH:
            ds.add((s, p, o))
        else:
            if st[3][0] == "L":
                raise NotApplicable("rdflib cannot name a graph with a literal")
            ds.add((s, p, o, rdflib_term(st[3], bnodes)))
    return ds


def assert_same(got: set, expected, what: str) -> None:
    expected = set(neutral.nq_shape(st) for st in expected)
    assert iso.unordered_isomorphic(list(got), list(expected)), (
        f"{what}: not isomorphic\n got: " + "\n      ".join(sorted(map(ntr.stmt_to_nt, got)))
        + "\n expected: " + "\n      ".join(sorted(map(ntr.stmt_to_nt, expected))))


# --------------------------------------------------------------------------------------------
# the cases
# --------------------------------------------------------------------------------------------

def category(case) -> str:
    return case.id.split("/")[1]   # e.g. triples_rdf_1_1_generalized


def expected_frames(case):
    return [ntr.parse_nquads_file(p) for p in case.result]


def run_from_jelly(case) -> str:
    path = case.action[0]
    data = path.read_bytes()
    if not case.positive:
        with pytest.raises(jelly.JellyError):
            container = Graph() if case.physical == "triples" else Dataset()
            container.parse(data=data, format="jelly")
        with pytest.raises(jelly.JellyError):
            for _ in parse_grouped(io.BytesIO(data)):
                pass
        return "n/a" if "rdf_star" in category(case) else "pass"
    frames = expected_frames(case)
    if any(_has_quoted(st) for f in frames for st in f) or any(
            len(st) == 4 and st[3][0] == "L" for f in frames for st in f):
        # rdflib cannot hold it: the failure must be clear and name the alternative.
        with pytest.raises(NotRepresentableError, match="jelly.parse"):
            container = Graph() if case.physical == "triples" else Dataset()
            container.parse(str(path), format="jelly")
        return "n/a"
    grouped = is_grouped(int(jelly.read_options(data).logical_type))
    # 1. the whole stream through Graph.parse / Dataset.parse
    container = Graph() if case.physical == "triples" else Dataset()
    container.parse(str(path), format="jelly")
    expected = []
    for i, frame in enumerate(frames):
        for st in frame:   # blank nodes are scoped per frame in grouped streams
            expected.append(tuple(("B", f"f{i}:{t[1]}") if grouped and t[0] == "B" else t
                                  for t in st))
    assert_same(statements_of(container), expected, f"{case.id} (parse)")
    # 2. frame by frame
    got = list(parse_grouped(str(path)))
    assert len(got) == len(frames), f"{case.id}: {len(got)} frames, expected {len(frames)}"
    for i, (g, e) in enumerate(zip(got, frames)):
        assert_same(statements_of(g), e, f"{case.id} frame {i}")
    return "pass"


def run_to_jelly(case, tmp_path) -> str:
    opts_path, *inputs = case.action
    # The options of negative cases are invalid for a writer, so read them with the oracle.
    ref = rd.read_options(opts_path.read_bytes())
    options = jelly.StreamOptions(
        physical_type=ref.physical_type, logical_type=ref.logical_type,
        generalized_statements=ref.generalized_statements, rdf_star=ref.rdf_star,
        max_name_table_size=ref.max_name_table_size,
        max_prefix_table_size=ref.max_prefix_table_size,
        max_datatype_table_size=ref.max_datatype_table_size)
    physical = case.physical
    frames = [ntr.parse_nquads_file(p) for p in inputs]
    if any(_has_quoted(st) for f in frames for st in f):
        return "n/a"   # nothing rdflib could have been given
    try:
        graphs = [to_rdflib(f, physical) for f in frames]
    except NotApplicable:
        return "n/a"
    out = tmp_path / "out.jelly"
    if not case.positive:
        with pytest.raises(jelly.JellyError):
            if len(graphs) == 1:
                graphs[0].serialize(out, format="jelly", options=options)
            else:
                serialize_grouped(graphs, str(out), options=options)
        return "pass"
    if len(graphs) == 1:
        graphs[0].serialize(out, format="jelly", options=options)
    else:
        serialize_grouped(graphs, str(out), options=options)
    got_options, got_frames = rd.decode(out.read_bytes())
    want = rd.read_options(opts_path.read_bytes())
    assert got_options.key() == want.key(), \
        f"{case.id}: options differ:\n got      {got_options}\n expected {want}"
    assert len(got_frames) == len(frames), \
        f"{case.id}: {len(got_frames)} frames, expected {len(frames)}"
    for i, (g, e) in enumerate(zip(got_frames, frames)):
        assert_same({neutral.nq_shape(st) for st in g}, e, f"{case.id} frame {i}")
    # and rdflib reads it back to the same graphs
    back = list(parse_grouped(str(out)))
    for i, (g, e) in enumerate(zip(back, frames)):
        assert_same(statements_of(g), e, f"{case.id} read back, frame {i}")
    return "pass"


def run_case(case, tmp_path) -> str:
    if case.direction == "from_jelly":
        return run_from_jelly(case)
    return run_to_jelly(case, tmp_path)


def test_case(conformance_case, tmp_path):
    run_case(conformance_case, tmp_path)


def test_summary(tmp_path, capsys):
    """All cases rdflib can represent pass; all RDF 1.1 cases are among them."""
    try:
        cases = helpers.load_cases()
    except helpers.ConformanceMissing as e:
        pytest.fail(str(e), pytrace=False)
    results = {}
    for i, case in enumerate(cases):
        d = tmp_path / str(i)
        d.mkdir()
        results[case.id] = run_case(case, d)
    passed = [c for c, r in results.items() if r == "pass"]
    rdf11 = [c for c in passed if c.split("/")[1].endswith("rdf_1_1")]
    generalized = [c for c in passed if c.split("/")[1].endswith("generalized")]
    with capsys.disabled():
        print(f"\nrdflib plugin conformance: {len(passed)} passed, 0 failed, "
              f"{len(results) - len(passed)} not applicable "
              f"({len(rdf11)} RDF 1.1, {len(generalized)} generalized)")
    assert len(rdf11) == RDF11_CASES
    assert len(results) == helpers.EXPECTED_CASE_COUNT
