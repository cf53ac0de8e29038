"""The Jelly term encoding, decode side (stub of the compiled ``jelly._termdecoder``).

Shared by Jelly-RDF and Jelly-Patch: IRIs are resolved through the lookup tables and cached
per name slot, literals take their datatype from the datatype table, quoted triples nest up
to the reader's limit, and a statement position left empty repeats the previous statement's
term.  Its decoding methods are C-level only.
"""

from ._buffer import WireReader
from ._sink import TermFactory
from .options import ReaderLimits

class TermDecoder(WireReader):
    """Term decoding state of one stream: lookup tables, the IRI cache, repeated terms."""

    def __init__(self, *, limits: ReaderLimits, terms: TermFactory, strict: bool = False) -> None:
        """``limits`` caps the table sizes and the quoted-triple depth a stream may use;
        ``terms`` builds every term; ``strict`` also rejects RDF-star and generalized terms
        the stream options do not announce."""
