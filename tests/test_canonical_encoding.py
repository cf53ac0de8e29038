"""What the writer emits is protobuf's canonical encoding: re-serializing each frame with the
protobuf package (compiled from proto/) gives the same bytes.  This catches encodings that
readers accept but that waste bytes (explicit default values, padded varints, ...)."""


import pytest

import jelly
from jelly import BlankNode, DEFAULT_GRAPH, IRI, Literal, Triple
from oracle.jelly_rdf import load_pb2
from oracle.wire import split_frames

XSD = "http://www.w3.org/2001/XMLSchema#"


def frames_of(data: bytes):
    return split_frames(data)


STATEMENTS = [
    # an IRI whose name part is empty ("http://e.org/") and one without '/' or '#'
    (IRI("http://e.org/"), IRI("http://e.org/p"), IRI("urn:x")),
    (IRI("http://e.org/s"), IRI("http://e.org/p"), Literal("")),
    (IRI("http://e.org/s"), IRI("http://e.org/q"), Literal("v", language="en")),
    (BlankNode("b"), IRI("http://e.org/q"), Literal("1", datatype=XSD + "integer")),
    (BlankNode(""), IRI("http://e.org/q"), Literal("x" * 300)),   # a row of more than 127 bytes
]


@pytest.mark.parametrize("sizes", [(8, 0, 4), (16, 2, 2), (4000, 150, 32)])
@pytest.mark.parametrize("physical", ["triples", "quads", "graphs"])
def test_frames_are_canonical_protobuf(physical, sizes):
    pb = load_pb2()
    statements = STATEMENTS if physical == "triples" else [
        st + ((IRI("http://e.org/g") if i % 2 else DEFAULT_GRAPH),)
        for i, st in enumerate(STATEMENTS)]
    data = jelly.serialize(statements * 3, physical_type=physical, rows_per_frame=7,
                           max_name_table_size=sizes[0], max_prefix_table_size=sizes[1],
                           max_datatype_table_size=sizes[2], namespaces={"ex": "http://e.org/"})
    frames = frames_of(data)
    assert len(frames) > 2
    for raw in frames:
        message = pb.RdfStreamFrame()
        message.ParseFromString(raw)
        assert message.SerializeToString(deterministic=True) == raw


def test_rdf_star_and_metadata_frames_are_canonical():
    pb = load_pb2()
    quoted = Triple(IRI("http://e.org/a"), IRI("http://e.org/b"), Literal("c"))
    data = jelly.serialize_frames(
        [[(quoted, IRI("http://e.org/said"), Triple(quoted, IRI("http://e.org/b"), BlankNode("z")))],
         []],
        rdf_star=True)
    for raw in frames_of(data):
        message = pb.RdfStreamFrame()
        message.ParseFromString(raw)
        assert message.SerializeToString(deterministic=True) == raw
