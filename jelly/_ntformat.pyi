"""N-Triples / N-Quads output (stub of the compiled ``jelly._ntformat``).

``term_to_nt`` and ``statement_to_nt`` format jelly terms in the W3C canonical escaping;
``NQuadsWriter`` writes statements to a binary stream.  ``NTriplesTerms`` makes a decoder build
every term as its N-Triples string (the default graph is ``None``); ``TextSink`` writes
decoded statements as N-Triples / N-Quads text into one ``bytes`` per frame (``LineSink``: a
str per line), so Jelly becomes text without building any term object.  ``output="arrow"`` (:class:`ArrowSink`) puts each position's terms straight into
the buffers of Arrow arrays: N-Triples strings into a string array (:class:`StringColumn`),
jelly terms into the four string arrays of a term struct (:class:`TermColumns`).
"""

from typing import Any, Iterable, Literal, Protocol, final

from typing_extensions import Self

from ._ntriples import _MessageMarker
from ._sink import StatementSink, TermFactory
from ._terms import _Term

class _BinaryWriter(Protocol):
    def write(self, data: bytes, /) -> object: ...

#: None, "rdf12" or "rdf-star" (checked at run time)
_Syntax = str | None

def absolute_iri(iri: str) -> bool:
    """Whether ``iri`` starts with a scheme (RFC 3987): what RDF 1.2 N-Triples and Turtle
    prefixes take."""

def term_to_nt(term: _Term, syntax: _Syntax = None) -> str:
    """The N-Triples form of an IRI, blank node, literal or quoted triple: ``<< s p o >>``, or
    with ``syntax="rdf12"`` the RDF 1.2 triple term ``<<( s p o )>>``."""

def statement_to_nt(stmt: Iterable[Any], syntax: _Syntax = None) -> str:
    """One N-Triples / N-Quads line (with ``" .\\n"``) for ``(s, p, o)`` or ``(s, p, o, g)``.

    A graph of ``DEFAULT_GRAPH`` or ``None`` gives a triple line.  ``syntax="rdf12"`` writes
    quoted triples as RDF 1.2 triple terms and refuses them where RDF 1.2 has none.
    """

def check_rdf_star(t: Any, advice: str = ...) -> int:
    """Refuse ``t`` if it holds a literal with a base direction (quoted triples too): what RDF
    1.2 says and RDF-star cannot; ``advice`` ends the message."""

@final
class NQuadsWriter:
    """Writes statements as N-Quads lines to a binary stream, buffering about 64 KiB of UTF-8.

    ``write(MESSAGE)`` is the same as ``write_message()``.  ``close()`` flushes but leaves the
    underlying stream open.
    """

    def __init__(self, stream: _BinaryWriter, *, buffer_size: int = 65536,
                 syntax: _Syntax = None) -> None:
        """``syntax="rdf12"`` writes quoted triples as RDF 1.2 triple terms."""
    def write(self, stmt: Iterable[Any] | _MessageMarker) -> None:
        """Buffer one statement (a 3- or 4-tuple)."""
    def write_lines(self, lines: list[str]) -> None:
        """Buffer complete lines (str, each ending in a line feed), e.g. a frame of a decoder
        with ``output="lines"``."""
    def write_text(self, text: bytes | bytearray | memoryview) -> None:
        """Buffer complete lines as UTF-8 bytes, e.g. a frame of a decoder with
        ``output="text"``; text at least as large as the buffer goes to the stream as it is
        (after what is buffered), without a copy."""
    def write_message(self) -> None:
        """Write a message boundary: the line ``# @message``."""
    def flush(self) -> None:
        """Write out the buffer and flush the underlying stream (if it can be flushed)."""
    def close(self) -> None:
        """Flush; the underlying stream stays open."""
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> Literal[False]:
        """Flush; exceptions propagate."""

@final
class NTriplesTerms(TermFactory):
    """Every term as its N-Triples string; the default graph is ``None``.  With
    ``syntax="rdf12"`` quoted triples are RDF 1.2 triple terms ``<<( s p o )>>``."""

    def __init__(self, syntax: _Syntax = None) -> None: ...
    @property
    def rdf12(self) -> bool:
        """Quoted triples are written as RDF 1.2 triple terms."""

@final
class LineSink(StatementSink):
    """N-Triples / N-Quads lines (each ending in ``" .\\n"``) of N-Triples terms."""

    def __init__(self, terms: NTriplesTerms) -> None:
        """Raises ``ValueError`` unless ``terms`` is an :class:`NTriplesTerms`."""

@final
class TextSink(StatementSink):
    """N-Triples / N-Quads text of N-Triples terms: the lines of a frame (each ending in
    ``" .\\n"``) as one ``bytes`` of UTF-8, written into one buffer as they are decoded, with
    no str per line."""

    def __init__(self, terms: NTriplesTerms) -> None:
        """Raises ``ValueError`` unless ``terms`` is an :class:`NTriplesTerms`."""

#: The most UTF-8 bytes a :class:`StringColumn` (an Arrow ``string`` array) holds.
MAX_COLUMN_BYTES: int

class ArrowColumn:
    """What ``output="arrow"`` fills for each position of a frame: :class:`StringColumn` or
    :class:`TermColumns`."""

    def add_nulls(self, count: int) -> int:
        """Append ``count`` nulls (missing terms)."""

@final
class StringColumn(ArrowColumn):
    """One position's N-Triples strings (``None``: the default graph), as the buffers of an
    Arrow ``string`` array: :meth:`buffers` gives the validity bitmap (None without nulls),
    the int32 offsets and the UTF-8 data, for ``pyarrow.Array.from_buffers`` without a copy.
    Once lent, the column can no longer grow."""

    def __init__(self, rows: int = 0, size: int = 0) -> None:
        """Room for ``rows`` strings of ``size`` bytes in all, to start with."""
    def __len__(self) -> int: ...
    @property
    def nbytes(self) -> int:
        """Bytes of UTF-8 data."""
    @property
    def null_count(self) -> int: ...
    def add_nulls(self, count: int) -> int:
        """Append ``count`` nulls."""
    @staticmethod
    def concat(columns: list[StringColumn]) -> StringColumn:
        """One column holding the strings of ``columns`` one after the other (a batch of
        frames), in a single copy."""
    def buffers(self) -> list[memoryview | None]:
        """``[validity, offsets, data]`` as read-only memoryviews (validity None without
        nulls): the buffers of an Arrow ``string`` array of ``len(self)`` strings and
        ``null_count`` nulls.  The column no longer grows after this."""

@final
class TermColumns(ArrowColumn):
    """One position's jelly terms as the buffers of an Arrow term struct: four
    :class:`StringColumn` s ``kind`` (``iri``, ``bnode``, ``literal`` or ``triple``),
    ``value`` (the IRI, label, lexical form, or a quoted triple's N-Triples text),
    ``datatype`` (typed literals only) and ``language``.  A missing term (the default graph)
    is null in all four."""

    def __init__(self, rows: int = 0, like: TermColumns | None = None) -> None:
        """Room for ``rows`` terms (and as many bytes as ``like`` holds), to start with."""
    def __len__(self) -> int: ...
    @property
    def kind(self) -> StringColumn: ...
    @property
    def value(self) -> StringColumn: ...
    @property
    def datatype(self) -> StringColumn: ...
    @property
    def language(self) -> StringColumn: ...
    @property
    def fields(self) -> tuple[StringColumn, StringColumn, StringColumn, StringColumn]:
        """``(kind, value, datatype, language)``."""
    @property
    def nbytes(self) -> int:
        """Bytes of UTF-8 data of the largest of the four (each is an Arrow string array)."""
    def add_nulls(self, count: int) -> int:
        """Append ``count`` missing terms."""
    @staticmethod
    def concat(columns: list[TermColumns]) -> TermColumns:
        """One :class:`TermColumns` holding the terms of ``columns`` one after the other."""

@final
class ArrowSink(StatementSink):
    """Each frame's statements as :class:`ArrowColumn` s, one per position, of the kind of
    ``first`` (``output="arrow"``: see :func:`arrow_sink`)."""

    def __init__(self, first: ArrowColumn) -> None: ...

def arrow_sink(terms: TermFactory) -> ArrowSink:
    """The sink of ``output="arrow"``: N-Triples strings (``terms="nt"``) in
    :class:`StringColumn` s, jelly terms (``terms="native"``) in :class:`TermColumns`."""
