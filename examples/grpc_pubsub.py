"""A broker of RDF streams over gRPC: publish the example sensor data to a topic, read it back
as two subscribers, one of them asking for other stream options.  Needs jelly[grpc].

Run: python examples/grpc_pubsub.py
"""

import os
import tempfile
import threading

import jelly
import jelly.io
from jelly.convert import convert
from jelly.grpc.client import Client
from jelly.grpc.server import Server

work = tempfile.mkdtemp()
sensors = os.path.join(work, "sensors.jelly")
convert("examples/data/sensors.nt", sensors)
statements = list(jelly.parse(sensors))

with Server(port=0) as server, Client(server.target) as client:     # port 0: any free port
    as_published, as_quads = [], []
    ready = threading.Barrier(3)

    def subscribe(out, requested):
        # on_subscribed: from then on, what is published arrives
        for frame in client.subscribe("sensors", requested, on_subscribed=ready.wait):
            out.extend(frame.statements)
            if len(out) == len(statements):
                return

    quads = jelly.make_options(physical_type="quads", preset="small")   # what one of them asks
    readers = [threading.Thread(target=subscribe, args=(as_published, None)),
               threading.Thread(target=subscribe, args=(as_quads, quads))]
    for t in readers:
        t.start()
    ready.wait()
    frames = client.publish("sensors", statements, rows_per_frame=64)
    for t in readers:
        t.join()
    print(f"published {len(statements)} statements in {frames} frames")
    print(f"subscriber 1: {len(as_published)} statements, identical: {as_published == statements}")
    print(f"subscriber 2: {len(as_quads)} quads, all in the default graph: "
          f"{all(q[3] == jelly.DEFAULT_GRAPH for q in as_quads)}")

# The transcoder that re-encoded them works on files too (jelly transcode on the command line).
from jelly.transcode import Transcoder  # noqa: E402

small = Transcoder(jelly.make_options(preset="small", max_name_table_size=16))
with open(sensors, "rb") as f:
    data = f.read()
out = b"".join(small.transcode_frame(frame, delimited=True)
               for _, frame in jelly.io.FrameReader(data))
print(f"transcoded to a 16-name table: {len(list(jelly.parse(out)))} statements, "
      f"{jelly.read_options(out).max_name_table_size} names")
