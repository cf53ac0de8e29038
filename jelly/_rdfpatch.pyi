"""RDF Patch text (RDF Delta's format, ``.rdfp``): reader and writer of patch operations (stub
of the compiled ``jelly._rdfpatch``; the public API is :mod:`jelly.rdfpatch`).

One row per line, ending with ``.``: ``H key term``, ``TX`` / ``TC`` / ``TA``,
``PA "prefix" <iri> [graph]``, ``PD "prefix" [graph]``, ``A s p o [graph]``,
``D s p o [graph]`` and ``SEG`` (the end of a patch).  Terms are N-Triples terms (RDF-star and
RDF 1.2 included); the reader also takes what Jena's RDF Patch writer writes (``<_:label>``
blank nodes, Turtle numbers and booleans, namespace IRIs as quoted strings).
"""

from typing import Iterable, Iterator, Literal, Protocol, final, overload

from ._patchops import PatchOp

class _BinaryReader(Protocol):
    def read(self, size: int, /) -> bytes | bytearray | memoryview | None: ...

class _BinaryWriter(Protocol):
    def write(self, data: bytes, /) -> object: ...

@overload
def parse_rdfpatch(source: bytes | bytearray | memoryview | _BinaryReader, *,
                   syntax: str | None = None, chunk_size: int = ...,
                   lines: Literal[False] = False) -> Iterator[PatchOp]:
    """Parse RDF Patch text from a binary stream or bytes: an iterator of operations, reading
    ``chunk_size`` bytes at a time.  ``SEG .`` rows and the end of the input (after operations)
    give ``END_OF_PATCH``.  ``syntax``: ``None``, ``"rdf12"`` or ``"rdf-star"`` as for
    N-Triples.  Errors raise ``RdfSyntaxError`` with the line and column, after the operations
    of the lines before were yielded.  ``lines=True`` gives ``(operation, line)`` pairs
    (``None``: the end of the input ended the patch)."""
@overload
def parse_rdfpatch(source: bytes | bytearray | memoryview | _BinaryReader, *,
                   syntax: str | None = None, chunk_size: int = ...,
                   lines: Literal[True]) -> Iterator[tuple[PatchOp, int | None]]: ...
@overload
def parse_rdfpatch(source: bytes | bytearray | memoryview | _BinaryReader, *,
                   syntax: str | None = None, chunk_size: int = ...,
                   lines: bool) -> Iterator[PatchOp] | Iterator[tuple[PatchOp, int | None]]: ...

def format_op(op: PatchOp, syntax: str | None = None) -> str:
    """One operation as a row of RDF Patch text, without the line end (``END_OF_PATCH`` is
    ``SEG .``).  ``syntax="rdf12"`` writes quoted triples as RDF 1.2 triple terms."""

@final
class TextPatchWriter:
    """Writes operations as RDF Patch text to a binary stream, buffering about 64 KiB.

    ``END_OF_PATCH`` is written as ``SEG .``, except a last one right after an operation: the
    end of the text ends that patch (what the reader gives back).  ``close()`` flushes but
    leaves the underlying stream open."""

    def __init__(self, stream: _BinaryWriter, *, syntax: str | None = None) -> None: ...
    @property
    def operations_written(self) -> int:
        """Operations written so far (``END_OF_PATCH`` included)."""
    def write(self, op: PatchOp) -> None:
        """Buffer one operation."""
    def write_all(self, ops: Iterable[PatchOp]) -> None:
        """Buffer every operation of an iterable."""
    def flush(self) -> None:
        """Write out the buffer and flush the underlying stream (if it can be flushed)."""
    def close(self) -> None:
        """Write a pending ``SEG .`` that ends an empty last patch, and flush."""
