"""The Jelly term encoding, encode side (stub of the compiled ``jelly._termencoder``).

Shared by Jelly-RDF and Jelly-Patch: each row's terms are resolved to LRU lookup slots and
IRI deltas in a first pass (emitting the lookup entry rows) and written in a second one; a
refused row leaves the stream valid.  Its encoding methods are C-level only.
"""

class TermEncoder:
    """Term encoding state of one stream: lookup tables, IRI deltas, repeated terms."""

    @property
    def rows(self) -> int:
        """Rows in the frame being written."""
