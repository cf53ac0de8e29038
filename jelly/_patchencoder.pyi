"""Jelly-Patch encoder (stub of the compiled ``jelly._patchencoder``).

Patch operations as rows of ``RdfPatchFrame`` messages in one write buffer, on the term
encoding of ``jelly._termencoder`` (as Jelly-RDF): the options row (put in front of the first
frame when it leaves), statement, namespace, transaction and header rows, punctuation.
Framing is the caller's.
"""

from typing import Any, Callable, Iterable, final

from ._patchops import EndOfPatch, PatchOp
from ._termencoder import TermEncoder
from .options import PatchOptions

@final
class PatchEncoder(TermEncoder):
    """Encoding state of one Jelly-Patch stream.

    Operations go in with :meth:`add` / :meth:`add_operations`, punctuation with
    :meth:`punctuation`; the bytes of a finished ``RdfPatchFrame`` come out of
    :meth:`take_frame`.  ``options`` is a :class:`jelly.PatchOptions` (its statement type
    decides how statements and namespaces are written).  With ``rdf_star_auto`` the options say
    ``rdf_star`` exactly when the first frame holds a quoted triple; one after the first frame
    is then an error.
    """

    def __init__(self, options: PatchOptions, *,
                 term_adapter: Callable[[Any], object] | None = None,
                 max_quoted_depth: int = 64, rdf_star_auto: bool = False) -> None: ...
    @property
    def options(self) -> PatchOptions:
        """The options of the stream (``rdf_star`` settled once the first frame has left)."""
    @property
    def operations(self) -> int:
        """Operations encoded so far (punctuation not counted)."""
    @property
    def pending(self) -> bool:
        """True when the current frame holds rows that :meth:`take_frame` has not returned."""
    @property
    def started(self) -> bool:
        """True once the first frame (with the options row) has been taken."""
    def add(self, op: PatchOp) -> None:
        """Encode one operation (not ``END_OF_PATCH``: see :meth:`punctuation`)."""
    def add_operations(self, iterator: Iterable[PatchOp],
                       max_rows: int = -1) -> bool | EndOfPatch:
        """Encode operations from ``iterator`` until it is exhausted (returns True), the frame
        holds at least ``max_rows`` rows (returns False), or it yields ``END_OF_PATCH``
        (returns that object; the iterator is left after it)."""
    def punctuation(self) -> None:
        """Write a punctuation row (the end of a patch in a PUNCTUATED stream)."""
    def take_frame(self, delimited: bool = False) -> bytes:
        """Return the bytes of the current ``RdfPatchFrame`` (after its length as a varint when
        ``delimited``) and start a new one.  The first frame starts with the options row."""
