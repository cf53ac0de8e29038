"""A stream of RDF messages: one Jelly frame per message, read back frame by frame.

Run: python examples/message_stream.py
"""

import io

import jelly
from jelly import IRI, Literal

SOSA = "http://www.w3.org/ns/sosa/"
XSD = "http://www.w3.org/2001/XMLSchema#"


def readings(n):
    """Each reading is one message: a small graph about one observation."""
    for i in range(n):
        obs = IRI(f"http://example.org/observation/{i}")
        yield [
            (obs, IRI(SOSA + "madeBySensor"), IRI("http://example.org/sensor/7")),
            (obs, IRI(SOSA + "hasSimpleResult"), Literal(f"{20 + i * 0.5}", datatype=XSD + "double")),
        ]


buffer = io.BytesIO()
# Lookup tables are shared across frames, so later messages are smaller than the first.
with jelly.Writer(buffer, preset="small", logical_type="graphs") as writer:
    for i, message in enumerate(readings(5)):
        writer.write_frame(message, metadata={"seq": str(i).encode()})

buffer.seek(0)
for frame in jelly.parse_frames(buffer):
    print(f"message {frame.index} (seq={frame.metadata['seq'].decode()}): "
          f"{len(frame.statements)} statements")
    for statement in frame.statements:
        print("   ", *statement)
