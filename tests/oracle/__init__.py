"""Independent oracles: decoders and encoders written from the specifications only, on the
official ``protobuf`` runtime (upb) and plain Python, that the tests compare jelly against.
Nothing here imports jelly; the ``test_*.py`` modules beside them are the oracles' own tests.

* :mod:`oracle.proto` - compiles a ``.proto`` of ``proto/`` into a private descriptor pool;
* :mod:`oracle.wire` - varints, framing, walking fields, normalising over-long varints;
* :mod:`oracle.jelly_rdf` - the Jelly-RDF reference decoder (strict and lenient);
* :mod:`oracle.ntriples` - an N-Triples / N-Quads reader and writer;
* :mod:`oracle.isomorphism` - blank-node isomorphism of statement lists;
* :mod:`oracle.terms` - neutral-term helpers;
* :mod:`oracle.jena` - Jena's RDF Binary: RDF Protobuf on upb, RDF Thrift on thriftpy2's
  compact protocol, and what a reader must make of the rows.

Neutral terms (what every oracle yields) are plain, hashable tuples: ``("I", iri)``,
``("B", label)``, ``("L", lex, lang, datatype)`` (xsd:string normalised to datatype None),
``("T", s, p, o)`` and ``("D",)`` for the default graph.  Tests import the submodules
(``from oracle import jelly_rdf as rd``); neutral terms to and from jelly's are in
``helpers.py`` (``to_jelly``, ``from_jelly``).
"""
