"""Read Jelly into rdflib: Graph.parse(format="jelly") for graphs, Dataset.parse for datasets.

Run: python examples/rdflib_parse.py
"""

import io
from pathlib import Path

import jelly
import jelly.rdflib  # noqa: F401 - makes format="jelly" this library's, even with pyjelly installed
from rdflib import Dataset, Graph, URIRef

DATA = Path(__file__).resolve().parent / "data"

# Some Jelly to read: the example sensor stream (N-Triples), written as Jelly.
source = Graph().parse(DATA / "sensors.nt", format="nt")
source.bind("obs", "http://example.org/aarhus/observation/")
data = source.serialize(format="jelly", encoding="utf-8")      # bytes (see docs/rdflib.md)

# Read it from bytes or a binary file object (paths, URLs and pipes work too; gzip is
# recognised from the first bytes).
g = Graph().parse(data=data, format="jelly")
g2 = Graph().parse(io.BytesIO(data), format="jelly")
print(f"graph: {len(g)} triples ({len(g2)} from a file object), {len(data)} bytes of Jelly")
print("namespace declaration bound: obs ->", dict(g.namespaces())["obs"])

obs0 = URIRef("http://example.org/aarhus/observation/0")
for p, o in sorted(g.predicate_objects(obs0)):
    print("   ", g.namespace_manager.normalizeUri(p), o.n3(g.namespace_manager))

# A dataset: a QUADS stream parsed into a Dataset keeps named graphs apart from the default
# graph.  (Here the quads are made with the library-free API.)
quads = [(s, p, o, jelly.IRI(f"http://example.org/graph/{i % 3}") if i % 2 else
          jelly.DEFAULT_GRAPH)
         for i, (s, p, o) in enumerate(jelly.parse(data))]
ds = Dataset().parse(data=jelly.serialize(quads), format="jelly")
for graph in sorted(ds.graphs(), key=lambda x: str(x.identifier)):
    print(f"graph <{graph.identifier}>: {len(graph)} triples")
