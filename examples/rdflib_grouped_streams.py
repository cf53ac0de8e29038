"""Streams of RDF messages with rdflib: one Graph (or Dataset) per Jelly frame, written from a
generator and read back one at a time, never holding more than one message in memory.

Run: python examples/rdflib_grouped_streams.py
"""

import io
from pathlib import Path

from jelly.rdflib import parse_grouped, parse_statements, serialize_grouped
from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import RDF, XSD

DATA = Path(__file__).resolve().parent / "data"
SOSA = Namespace("http://www.w3.org/ns/sosa/")
EX = Namespace("http://example.org/")


def observations(n):
    """Each message is a small graph about one observation (blank nodes are per message)."""
    for i in range(n):
        g = Graph()
        g.bind("sosa", SOSA)
        obs, result = EX[f"observation/{i}"], BNode()
        g.add((obs, RDF.type, SOSA.Observation))
        g.add((obs, SOSA.hasResult, result))
        g.add((result, SOSA.hasSimpleResult, Literal(f"{20 + i / 2}", datatype=XSD.double)))
        yield g, {"seq": str(i).encode()}      # a graph, or a (graph, frame metadata) pair


stream = io.BytesIO()
serialize_grouped(observations(5), stream, preset="small")
print(f"5 messages -> {len(stream.getvalue())} bytes")

stream.seek(0)
for graph, metadata in parse_grouped(stream, metadata=True):
    value = next(graph.objects(None, SOSA.hasSimpleResult))
    print(f"message seq={metadata['seq'].decode()}: {len(graph)} triples, result {value}")

# The example message log (one '# @message' block per message), as Graphs.
text = (DATA / "sensor-messages.nt").read_text()
messages = (Graph().parse(data=m, format="nt") for m in text.split("# @message\n") if m.strip())
data = serialize_grouped(messages)
sizes = [len(g) for g in parse_grouped(data)]
print(f"message log: {len(sizes)} messages of {min(sizes)}..{max(sizes)} triples")

# A flat reading, statement by statement, for code that does not want a Graph.
count = sum(1 for s, p, o in parse_statements(data) if p == URIRef(SOSA + "hasResult"))
print(f"{count} hasResult statements")
