"""The jelly command with the text formats it reads and writes through pyoxigraph: Turtle,
TriG, RDF/XML, JSON-LD, N3, and message logs (Turtle with '# @message' lines, one JSON-LD
document per line).  N-Triples, N-Quads and Jelly have a fast path of their own.

Literals keep their lexical form ("1E0" stays "1E0"), the prefixes of a Turtle input travel in
the Jelly file as namespace declarations and come back in the Turtle output, and relative IRIs
resolve against --base.

Run: python examples/text_formats_cli.py
"""

import subprocess
import sys
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"

TURTLE = """\
@prefix sosa: <http://www.w3.org/ns/sosa/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<observation/1> a sosa:Observation ;
    sosa:hasSimpleResult 1E0, "2.50"^^xsd:decimal, "line 1\\rline 2" .
"""


def jelly(*args):
    """Run the jelly command (python -m jelly, which is what the `jelly` script runs)."""
    proc = subprocess.run([sys.executable, "-m", "jelly", *map(str, args)],
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(proc.stderr)
    return proc.stdout


with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    # N-Triples -> Jelly -> Turtle -> Jelly: formats come from the file names.
    jelly("convert", DATA / "sensors.nt", tmp / "sensors.jelly")
    jelly("convert", tmp / "sensors.jelly", tmp / "sensors.ttl")
    jelly("convert", tmp / "sensors.ttl", tmp / "from-turtle.jelly")
    for name in ("sensors.jelly", "sensors.ttl", "from-turtle.jelly"):
        print(f"{name}: {(tmp / name).stat().st_size} bytes")
    print(jelly("validate", tmp / "from-turtle.jelly").strip())

    # Turtle -> Jelly -> Turtle: lexical forms, characters and prefixes come back as written.
    (tmp / "obs.ttl").write_text(TURTLE)
    jelly("convert", tmp / "obs.ttl", tmp / "obs.jelly", "--base", "http://example.org/")
    print("Turtle through Jelly:")
    print("    " + jelly("convert", tmp / "obs.jelly", "-", "--to", "ttl").strip()
          .replace("\n", "\n    "))

    # A message log: one frame per message, written as Turtle blocks and as JSON-LD lines.
    jelly("convert", DATA / "sensor-messages.nt", tmp / "messages.jelly")
    turtle_log = jelly("convert", tmp / "messages.jelly", "-", "--to", "ttl", "--messages")
    print(f"Turtle log: {turtle_log.count('# @message')} messages")
    jelly("convert", tmp / "messages.jelly", tmp / "messages.ndjsonld")
    lines = (tmp / "messages.ndjsonld").read_text().splitlines()
    print(f"JSON-LD log: {len(lines)} lines")
    jelly("convert", tmp / "messages.ndjsonld", tmp / "back.jelly")
    print(jelly("inspect", tmp / "back.jelly", "--summary").splitlines()[0])
