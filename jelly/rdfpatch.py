"""RDF Patch text (RDF Delta's format, ``.rdfp``, media type ``application/rdf-patch``).

Reading::

    for op in jelly.rdfpatch.parse("changes.rdfp"): ...     # streaming, any size
    for ops in jelly.rdfpatch.parse_patches("log.rdfp"): ...  # one list per patch

Writing::

    jelly.rdfpatch.serialize(ops, "changes.rdfp")
    with jelly.rdfpatch.TextWriter("changes.rdfp") as w:
        w.write(Add(s, p, o)); w.end_patch()

The operations are those of :mod:`jelly.patch` (``Add``, ``Delete``, ``PrefixAdd``,
``PrefixDelete``, ``Header``, ``TX_START``, ``TX_COMMIT``, ``TX_ABORT``, ``END_OF_PATCH``), so
text and Jelly-Patch convert into each other operation by operation.  ``END_OF_PATCH`` is the
row ``SEG .`` (Jena's segment mark, which jelly-jvm maps to Jelly-Patch punctuation); the end
of the text ends the last patch.  The reader and writer are compiled (``jelly._rdfpatch``);
errors are :class:`jelly.RdfSyntaxError` with the line and column.  See ``docs/patch.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator, overload

from ._patchops import (END_OF_PATCH, TX_ABORT, TX_COMMIT, TX_START, Add, Delete, EndOfPatch,
                        Header, PatchOp, PrefixAdd, PrefixDelete, TxAbort, TxCommit, TxStart)
from ._rdfpatch import TextPatchWriter, format_op, parse_rdfpatch
from .io import Destination, open_input

if TYPE_CHECKING:
    from .io import Input, Output

__all__ = ["parse", "parse_patches", "serialize", "format_op", "TextWriter", "MEDIA_TYPE",
           "EXTENSION", "Add", "Delete", "PrefixAdd", "PrefixDelete", "Header", "PatchOp",
           "TxStart", "TxCommit", "TxAbort", "EndOfPatch", "TX_START", "TX_COMMIT", "TX_ABORT",
           "END_OF_PATCH"]

#: The media type of RDF Patch (RDF Delta, Jena's ``WebContent.contentTypePatch``).
MEDIA_TYPE = "application/rdf-patch"
#: The file extension of RDF Patch text.
EXTENSION = ".rdfp"


def parse(source: Input, *, syntax: str | None = None) -> Iterator[PatchOp]:
    """Iterate the operations of RDF Patch text: a path (``"-"``: stdin; gzip is recognised),
    bytes or a binary file object.  The input is read in pieces, so a file of any size is read
    in memory bounded by its longest line.  ``END_OF_PATCH`` comes at each ``SEG .`` row and at
    the end of the input if operations followed the last one.  ``syntax`` as for N-Triples:
    ``None`` (RDF-star ``<< >>`` and RDF 1.2 ``<<( )>>``), ``"rdf12"`` or ``"rdf-star"``."""
    with open_input(source) as stream:
        yield from parse_rdfpatch(stream, syntax=syntax)


def parse_patches(source: Input, *, syntax: str | None = None) -> Iterator[list[PatchOp]]:
    """The patches of RDF Patch text, each a list of its operations (without the
    ``END_OF_PATCH`` that ends it)."""
    patch: list[PatchOp] = []
    for op in parse(source, syntax=syntax):
        if op is END_OF_PATCH:
            yield patch
            patch = []
        else:
            patch.append(op)


class TextWriter(Destination):
    """RDF Patch text opened for writing: :meth:`write` operations, :meth:`end_patch` between
    patches.  ``destination`` is a path (written to a temporary file and renamed into place when
    the writer closes without an error; ``.gz`` compresses), ``"-"`` (stdout), a binary file
    object, or ``None`` to collect the bytes (:meth:`getvalue`).  ``syntax="rdf12"`` writes
    quoted triples as RDF 1.2 triple terms ``<<( s p o )>>``."""

    def __init__(self, destination: Output | None = None, *,
                 syntax: str | None = None) -> None:
        super().__init__(destination)
        try:
            self._writer = TextPatchWriter(self._stream, syntax=syntax)
        except BaseException:
            self.abort()
            raise

    def write(self, op: PatchOp) -> None:
        """Write one operation."""
        self._check_open()
        self._writer.write(op)

    def write_all(self, ops: Iterable[PatchOp]) -> None:
        """Write every operation of an iterable."""
        self._check_open()
        self._writer.write_all(ops)

    def end_patch(self) -> None:
        """End the current patch (the same as ``write(END_OF_PATCH)``)."""
        self.write(END_OF_PATCH)

    def flush(self) -> None:
        """Write out what is buffered (a live consumer sees the rows so far)."""
        self._check_open()
        self._writer.flush()

    @property
    def operations_written(self) -> int:
        """Operations written so far (``END_OF_PATCH`` not counted, as ``PatchWriter``)."""
        return self._writer.operations_written

    def _write_out(self) -> None:
        self._writer.flush()

    def _finish(self) -> None:
        self._writer.close()


@overload
def serialize(ops: Iterable[PatchOp], destination: None = None, *,
              syntax: str | None = ...) -> bytes: ...


@overload
def serialize(ops: Iterable[PatchOp], destination: Output, *,
              syntax: str | None = ...) -> None: ...


def serialize(ops: Iterable[PatchOp], destination: Output | None = None, *,
              syntax: str | None = None) -> bytes | None:
    """Write operations as RDF Patch text; returns the bytes (UTF-8) when ``destination`` is
    None."""
    with TextWriter(destination, syntax=syntax) as writer:
        writer.write_all(ops)
    return writer.getvalue() if destination is None else None
