"""RDF Protobuf: Jena's RDF Binary as delimited protobuf messages (stub of the compiled
``jelly._jena_proto``).  A stream is a sequence of delimited ``RDF_StreamRow`` messages; a
result set a delimited ``RDF_VarTuple`` and then delimited ``RDF_DataTuple`` messages.  Use
:mod:`jelly.jena`."""

from typing import final

from ._jena import JenaDecoder, JenaEncoder

@final
class ProtoDecoder(JenaDecoder):
    """Reads RDF Protobuf: RDF statements (``mode="rdf"``) or a result set (``"results"``)."""

@final
class ProtoEncoder(JenaEncoder):
    """Writes RDF Protobuf; ``values``, ``prefix_names`` and ``repeat`` as in
    :class:`jelly.jena.Writer`."""
