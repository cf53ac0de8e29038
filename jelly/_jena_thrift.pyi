"""RDF Thrift: Jena's RDF Binary in the Thrift compact protocol (stub of the compiled
``jelly._jena_thrift``).  A stream is a plain sequence of ``RDF_StreamRow`` structs; a result
set one ``RDF_VarTuple`` and then ``RDF_DataTuple`` structs.  Use :mod:`jelly.jena`."""

from typing import final

from ._jena import JenaDecoder, JenaEncoder

@final
class ThriftDecoder(JenaDecoder):
    """Reads RDF Thrift: RDF statements (``mode="rdf"``) or a result set (``"results"``)."""

@final
class ThriftEncoder(JenaEncoder):
    """Writes RDF Thrift; ``values``, ``prefix_names`` and ``repeat`` as in
    :class:`jelly.jena.Writer`."""
