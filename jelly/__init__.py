"""jelly: a fast Jelly-RDF reader and writer with a Cython core.

Reading::

    for s, p, o in jelly.parse("data.jelly"): ...
    for frame in jelly.parse_frames("stream.jelly"): frame.statements, frame.metadata

Writing::

    jelly.serialize(statements, "out.jelly", preset="small")
"""

from ._decoder import Decoder, Frame
from ._encoder import Encoder
from ._terms import DEFAULT_GRAPH, BlankNode, DefaultGraph, IRI, Literal, Triple
from .errors import (JellyDecodeError, JellyEncodeError, JellyError, JellyLimitError,
                     JellyOptionsError, JellyTruncatedError, RdfSyntaxError)
from .options import (LogicalStreamType, PhysicalStreamType, ReaderLimits, StreamOptions,
                      make_options, preset)
from .reader import Reader, parse, parse_frames, read_options
from .writer import Writer, serialize, serialize_frames

__all__ = [
    "BlankNode", "DEFAULT_GRAPH", "Decoder", "DefaultGraph", "Encoder", "Frame", "IRI", "JellyDecodeError",
    "JellyEncodeError", "JellyError", "JellyLimitError", "JellyOptionsError",
    "JellyTruncatedError", "Literal", "LogicalStreamType", "PhysicalStreamType", "RdfSyntaxError",
    "Reader", "ReaderLimits", "StreamOptions", "Triple", "parse", "parse_frames", "preset",
    "read_options", "Writer", "make_options", "serialize", "serialize_frames",
]
__version__ = "0.1.0"
