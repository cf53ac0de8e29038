"""Write statements to Jelly and read them back with the library-free API.

Run: python examples/parse_and_serialize.py
"""

import jelly
from jelly import IRI, BlankNode, Literal

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"

statements = [
    (IRI(EX + "alice"), IRI(EX + "knows"), IRI(EX + "bob")),
    (IRI(EX + "alice"), IRI(EX + "name"), Literal("Alice", language="en")),
    (IRI(EX + "alice"), IRI(EX + "age"), Literal("42", datatype=XSD + "integer")),
    (IRI(EX + "bob"), IRI(EX + "address"), BlankNode("addr1")),
    (BlankNode("addr1"), IRI(EX + "city"), Literal("Aarhus")),
]

# Serialize to bytes (pass a path or a binary file object to write a file instead).
data = jelly.serialize(statements, preset="small", namespaces={"ex": EX})
print(f"{len(statements)} statements -> {len(data)} bytes of Jelly")

# Parse them back: statements are tuples of terms; str(term) is N-Triples.
for s, p, o in jelly.parse(data):
    print(s, p, o, ".")

print("options:", jelly.read_options(data))
assert list(jelly.parse(data)) == statements
