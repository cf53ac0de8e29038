"""Independent oracles: decoders and encoders written from the specifications only, on the
official ``protobuf`` runtime (upb) and plain Python, that the tests compare jelly against.
Nothing here imports jelly.

* :mod:`oracle.proto` - compiles a ``.proto`` of ``proto/`` into a private descriptor pool.

Neutral terms (what every oracle yields) are plain, hashable tuples: ``("I", iri)``,
``("B", label)``, ``("L", lex, lang, datatype)`` (xsd:string normalised to datatype None),
``("T", s, p, o)`` and ``("D",)`` for the default graph.
"""
