// Jena's "RDF Binary" in Thrift (RDF Thrift, compact protocol), written from the specification
// (../shared/spec/jena-rdf-binary.txt) with Jena's field ids, for the test oracle.  A stream is
// a plain sequence of RDF_StreamRow structs; a SPARQL result set is an RDF_VarTuple followed by
// RDF_DataTuple structs.

struct RDF_IRI {
  1: required string iri
}

struct RDF_PrefixName {
  1: required string prefix
  2: required string localName
}

struct RDF_BNode {
  1: required string label
}

struct RDF_Literal {
  1: required string lex
  2: optional string langtag
  3: optional string datatype
  4: optional RDF_PrefixName dtPrefix
  // Jena after 4.5 (RDF 1.2).
  5: optional string baseDirection
}

struct RDF_Decimal {
  1: required i64 value
  2: required i32 scale
}

struct RDF_VAR {
  1: required string name
}

struct RDF_ANY {}

struct RDF_UNDEF {}

struct RDF_REPEAT {}

union RDF_Term {
  1: RDF_IRI iri
  2: RDF_BNode bnode
  3: RDF_Literal literal
  4: RDF_PrefixName prefixName
  5: RDF_VAR variable
  6: RDF_ANY any
  7: RDF_UNDEF undefined
  8: RDF_REPEAT repeat
  9: RDF_Triple tripleTerm
  10: i64 valInteger
  11: double valDouble
  12: RDF_Decimal valDecimal
}

struct RDF_Triple {
  1: required RDF_Term S
  2: required RDF_Term P
  3: required RDF_Term O
}

struct RDF_Quad {
  1: required RDF_Term S
  2: required RDF_Term P
  3: required RDF_Term O
  4: optional RDF_Term G
}

struct RDF_PrefixDecl {
  1: required string prefix
  2: required string uri
}

union RDF_StreamRow {
  1: RDF_PrefixDecl prefixDecl
  2: RDF_Triple triple
  3: RDF_Quad quad
}

struct RDF_VarTuple {
  1: list<RDF_VAR> vars
}

struct RDF_DataTuple {
  1: list<RDF_Term> row
}
