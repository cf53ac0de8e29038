"""Replicate the changes made to an rdflib graph: record them as a Jelly-Patch stream while the
application changes the graph, and apply the stream to a replica (docs/patch.md).

Run: python examples/rdflib_patch_replication.py
"""

import tempfile
from pathlib import Path

from rdflib import RDF, BNode, Graph, Literal, Namespace

import jelly.patch
import jelly.rdfpatch
from jelly.rdflib.patch import apply_patch, diff, record

EX = Namespace("http://example.org/")
SOSA = Namespace("http://www.w3.org/ns/sosa/")


def load_sensors(graph):
    """The application's code: it knows nothing of patches."""
    for i in range(3):
        obs = EX[f"observation/{i}"]
        graph.add((obs, RDF.type, SOSA.Observation))
        graph.add((obs, SOSA.hasSimpleResult, Literal(20 + i / 2)))
        graph.add((obs, SOSA.madeBySensor, EX["sensor/1"]))


# The primary graph and its replica start from the same state.
primary, replica = Graph(), Graph()
for g in (primary, replica):
    g.add((EX["sensor/1"], RDF.type, SOSA.Sensor))
start = set(primary)

with tempfile.TemporaryDirectory() as tmp:
    log = Path(tmp) / "changes.jellyp"
    with jelly.patch.PatchWriter(log, stream_type="punctuated") as writer:
        # 1. A transaction: whatever the block changes, recorded as TX ... TC.
        with record(primary, sink=writer) as changes:
            primary.bind("obs", EX["observation/"])
            load_sensors(primary)
            primary.add((EX["sensor/1"], SOSA.isHostedBy, BNode("platform1")))
        # 2. A block that fails: undone in the primary, TX ... TA in the stream.
        try:
            with record(primary, sink=writer):
                primary.remove((None, SOSA.madeBySensor, None))
                raise RuntimeError("sensor registry unavailable")
        except RuntimeError as exc:
            print(f"rolled back: {exc}; the primary still has {len(primary)} triples")
        # 3. Another transaction, then the end of this patch (a punctuation row).
        with record(primary, sink=writer) as changes:
            primary.set((EX["observation/2"], SOSA.hasSimpleResult, Literal(21.5)))
            changes.end_patch()

    print(f"log: {log.stat().st_size} bytes of Jelly-Patch, "
          f"{len(jelly.rdfpatch.serialize(jelly.patch.parse(log)))} bytes as RDF Patch text")
    print("the log as RDF Patch text:")
    for row in jelly.rdfpatch.serialize(jelly.patch.parse(log)).decode().splitlines():
        print("   ", row)

    # The replica applies the log: committed transactions whole, the aborted one not at all.
    result = apply_patch(replica, log)
    print(f"applied: {result.added} added, {result.deleted} deleted, {result.committed} "
          f"committed, {result.aborted} aborted, {result.patches} patch")

print(f"replica identical: {set(replica) == set(primary)} ({len(replica)} triples); "
      f"prefix obs: {dict(replica.namespaces()).get('obs')}")

# The same changes as one patch, computed from the two states.
before = Graph()
for t in start:
    before.add(t)
ops = diff(before, primary, namespaces=False)
print(f"diff of the two states: {len(ops) - 2} changes in one transaction")
