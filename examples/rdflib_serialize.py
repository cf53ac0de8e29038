"""Write rdflib graphs and datasets as Jelly, with the writer's options as keyword arguments.

Run: python examples/rdflib_serialize.py
"""

import io
import tempfile
from pathlib import Path

import jelly
import jelly.rdflib  # noqa: F401 - makes format="jelly" this library's, even with pyjelly installed
from rdflib import Dataset, Graph, URIRef
from rdflib.compare import isomorphic

DATA = Path(__file__).resolve().parent / "data"

g = Graph().parse(DATA / "sensors.nt", format="nt")
g.bind("obs", "http://example.org/aarhus/observation/")

# Bytes: rdflib returns bytes when an encoding is given (Jelly is binary, so the encoding
# itself is ignored).  g.serialize(format="jelly") alone is refused: rdflib would make a str.
data = g.serialize(format="jelly", encoding="utf-8")
print(f"{len(g)} triples: {len(data)} bytes of Jelly, "
      f"{len(g.serialize(format='nt', encoding='utf-8'))} bytes of N-Triples, "
      f"{len(g.serialize(format='turtle', encoding='utf-8'))} bytes of Turtle")
try:
    g.serialize(format="jelly")
except jelly.JellyError as exc:
    print("without an encoding:", str(exc).split(";")[0])

# To a path or a binary stream, with options of the core writer.
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "sensors.jelly"
    g.serialize(path, format="jelly", preset="small", rows_per_frame=100)
    options = jelly.read_options(path)
    frames = sum(1 for _ in jelly.parse_frames(path))
    print(f"small preset: tables {options.max_name_table_size}/{options.max_prefix_table_size}/"
          f"{options.max_datatype_table_size}, {frames} frames, {path.stat().st_size} bytes")
    back = Graph().parse(path, format="jelly")
    print("read back isomorphic:", isomorphic(back, g))

# A dataset is written as QUADS, or as GRAPHS on request.
ds = Dataset()
for i, triple in enumerate(sorted(g)):
    ds.graph(URIRef(f"http://example.org/sensor/{i % 4}")).add(triple)
buf = io.BytesIO()
for physical in ("quads", "graphs"):
    buf = io.BytesIO()
    ds.serialize(buf, format="jelly", physical_type=physical)
    options = jelly.read_options(buf.getvalue())
    back = Dataset().parse(data=buf.getvalue(), format="jelly")
    named = sorted(len(x) for x in back.graphs() if len(x))
    print(f"{options.physical_type.name}: {len(buf.getvalue())} bytes, graphs of {named} triples")
