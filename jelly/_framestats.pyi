"""What a Jelly frame is made of on the wire: rows by kind and the terms of statement rows by
position and kind, counted and in bytes (stub of the compiled ``jelly._framestats``)."""

from typing import Any, Final

from typing_extensions import Buffer

from ._buffer import WireReader

#: Kinds of terms, in the order of the counts.
TERM_KINDS: Final[tuple[str, ...]]
#: Positions of terms, in the order of the counts.
POSITIONS: Final[tuple[str, ...]]

class FrameStats(WireReader):
    """Counts of one frame; :meth:`read` returns them."""

    def read(self, data: Buffer) -> dict[str, Any]:
        """Counts of the frame ``data`` (bytes of an ``RdfStreamFrame``): a dict with ``rows``
        and ``row_bytes`` (by the row kinds of :data:`jelly._decoder.ROW_KINDS`), ``terms``
        and ``term_bytes`` (``{position: {kind: n}}``), ``metadata`` and
        ``metadata_bytes``."""
