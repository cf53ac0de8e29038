"""N-Triples / N-Quads parser: the W3C grammars of RDF 1.1 and 1.2, the RDF-star syntax and
generalized RDF (stub of the compiled ``jelly._ntriples``).

``parse_nquads`` parses a document, ``TermParser`` single terms (e.g. DataFrame columns),
``MESSAGE`` stands for a ``# @message`` comment line (an RDF message boundary) and
``UntilMessage`` cuts a parse at the next one.  Output is in ``jelly._ntformat``.

``syntax``: ``None`` (RDF 1.2 triple terms ``<<( s p o )>>`` and RDF-star ``<< s p o >>``, any
term anywhere), ``"rdf12"`` (strict W3C RDF 1.2) or ``"rdf-star"`` (strict RDF-star).  A
directional language tag ``"x"@en--ltr`` becomes the language ``"en--ltr"``.
"""

from typing import Final, Iterable, Iterator, Literal, Protocol, final, overload

from typing_extensions import Self, TypeAlias

from ._terms import _Term

#: A parsed statement: ``(s, p, o)`` or ``(s, p, o, g)``.
_Statement: TypeAlias = tuple[_Term, ...]

class _BinaryReader(Protocol):
    def read(self, size: int, /) -> bytes | bytearray | memoryview | None: ...

_Source: TypeAlias = "bytes | bytearray | memoryview | _BinaryReader"
#: None, "rdf12" or "rdf-star" (checked at run time)
_Syntax: TypeAlias = "str | None"

#: The values of ``syntax=`` besides ``None``.
SYNTAXES: tuple[str, ...]

from ._lines import MESSAGE as MESSAGE, UntilMessage as UntilMessage, _MessageMarker as _MessageMarker

@overload
def parse_nquads(source: _Source, *, messages: Literal[False] = False, chunk_size: int = ...,
                 allow_relative_iris: bool = False,
                 syntax: _Syntax = None, at_start: bool = True,
                 triples: bool = False) -> Iterator[_Statement]: ...
@overload
def parse_nquads(source: _Source, *, messages: bool, chunk_size: int = ...,
                 allow_relative_iris: bool = False,
                 syntax: _Syntax = None, at_start: bool = True, triples: bool = False
                 ) -> Iterator[_Statement | _MessageMarker]:
    """Parse N-Triples / N-Quads from a binary stream or bytes.

    ``syntax``: ``None`` (both quoted-triple notations, generalized statements), ``"rdf12"``
    (strict W3C RDF 1.2) or ``"rdf-star"`` (strict RDF-star).  Returns an iterator of
    ``(s, p, o)`` and ``(s, p, o, g)`` tuples, reading ``chunk_size`` bytes at a time (what a
    pipe has is parsed as it arrives).  With ``messages=True`` a comment line ``# @message``
    yields ``MESSAGE``.  Syntax errors raise ``RdfSyntaxError`` with the line and column, after
    the statements of the lines before it were yielded.
    """

@final
class TermParser:
    """Parses single terms in N-Triples syntax (an IRI, blank node, literal, ``<< s p o >>`` or
    ``<<( s p o )>>``); repeated IRIs come back as the same objects.  ``syntax`` as for
    :func:`parse_nquads`."""

    def __init__(self, syntax: _Syntax = None) -> None: ...
    def parse(self, text: str) -> _Term:
        """The term that ``text`` spells; ``RdfSyntaxError`` if it is not exactly one."""

@final
class TermScanner:
    """Terms at a position of another line-based format's buffer (RDF Patch text): the same
    scanners, caches and errors as :func:`parse_nquads`, used from Cython (``_ntriples.pxd``).
    ``syntax`` as for :func:`parse_nquads`."""

    def __init__(self, syntax: _Syntax = None) -> None: ...
