"""Jelly-Patch frame decoder (stub of the compiled ``jelly._patchdecoder``).

The rules of ``RdfPatchFrame`` and ``RdfPatchRow`` on the term decoding of
``jelly._termdecoder`` (the same lookups, IRI deltas, repeated terms and quoted triples as
Jelly-RDF): the patch options, operation rows, punctuation and patch stream types.  One
``PatchDecoder`` holds the state of one stream; after an error it stays failed.
"""

from typing import Final, Iterator, final

from typing_extensions import Buffer

from ._decoder import _Terms
from ._patchops import PatchOp
from ._sink import StatementSink
from ._termdecoder import TermDecoder
from .options import PatchOptions, ReaderLimits

#: Row kinds in the order of :attr:`PatchFrame.row_counts` (the ``RdfPatchRow`` oneof).
ROW_KINDS: Final[tuple[str, ...]]

@final
class PatchSink(StatementSink):
    """The operations of a patch stream, in order (statement rows through the StatementSink
    interface, the other rows directly)."""

    def __init__(self) -> None: ...

class PatchFrame:
    """One decoded frame of a Jelly-Patch stream: its operations and its rows by kind."""

    def __init__(self, index: int, operations: list[PatchOp],
                 row_counts: tuple[int, ...] | None = None,
                 operation_count: int | None = None) -> None: ...
    @property
    def index(self) -> int:
        """Index of the frame in the input (0-based)."""
    @property
    def operations(self) -> list[PatchOp]:
        """The operations (those not taken with ``decode_operations``), ``END_OF_PATCH``
        where a patch ends in the frame."""
    @property
    def row_counts(self) -> tuple[int, ...]:
        """Rows of each kind, in the order of :data:`ROW_KINDS`."""
    @property
    def operation_count(self) -> int:
        """Operations decoded from the frame (also those taken with decode_operations)."""
    @property
    def rows(self) -> dict[str, int]:
        """Rows of the frame by kind: ``{"options": 1, "statement_add": 10, ...}``."""
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[PatchOp]: ...

@final
class PatchDecoder(TermDecoder):
    """Decoding state of one Jelly-Patch stream; feed it frames in order.

    ``terms`` names what each term becomes (``"native"``: jelly's terms) or is a term factory
    (see :class:`jelly.Decoder`).  ``strict=True`` also rejects quoted triples and generalized
    terms that the options do not announce, and transactions that do not pair up (``TX`` inside
    a transaction, ``TC`` / ``TA`` outside one, a patch that ends inside one), which the spec
    lets a consumer reject.
    """

    #: The patch options, once the options row has been read.
    options: PatchOptions | None

    def __init__(self, *, limits: ReaderLimits | None = None, terms: _Terms = "native",
                 strict: bool = False) -> None: ...
    def begin_frame(self, data: Buffer, offset: int = 0) -> None:
        """Start decoding one frame (the bytes of an ``RdfPatchFrame``, without a length
        prefix, in any buffer); ``offset`` is its position in the whole stream, for errors."""
    def decode_operations(self, max_operations: int = 4096) -> list[PatchOp] | None:
        """The next operations of the frame begun with :meth:`begin_frame` (about
        ``max_operations``, a list), or ``None`` when it has no more."""
    def end_frame(self) -> PatchFrame:
        """Decode what is left of the current frame and return it as a :class:`PatchFrame`
        (its ``operations`` are those not taken with :meth:`decode_operations`).  In a FRAME
        stream the frame ends a patch: its operations end with ``END_OF_PATCH``."""
    def decode_frame(self, data: Buffer, offset: int = 0) -> PatchFrame:
        """Decode one frame (the bytes of an ``RdfPatchFrame``, without a length prefix);
        ``offset`` is its position in the whole stream, for errors."""
    def finish(self) -> list[PatchOp]:
        """The stream has ended: returns the operations that this ends (``[END_OF_PATCH]`` for
        a FLAT stream that holds operations, else ``[]``); raises if a PUNCTUATED stream has
        operations after its last punctuation row (a patch without its end)."""
    @property
    def open_operations(self) -> int:
        """Operations read since the last end of a patch."""
