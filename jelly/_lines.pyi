"""Line-based text input shared by the N-Triples / N-Quads codec and the RDF Patch text
reader (stub of the compiled ``jelly._lines``): blocks of whole lines, and RDF message
boundaries."""

from typing import Any, Callable, Final, Iterable, Iterator, final

from typing_extensions import Self

@final
class _MessageMarker:
    """Type of the ``MESSAGE`` sentinel."""

    def __reduce__(self) -> str: ...

#: Stands for a ``# @message`` line: the boundary of an RDF message in a message log.
MESSAGE: Final[_MessageMarker]

def line_blocks(read: Callable[[int], Any], chunk_size: int,
                reader: str) -> Iterator[tuple[bytearray, int]]: ...

class LineParser:
    """Parses complete lines held in a buffer (the state of a line-based text parser)."""

def parse_lines(read: Callable[[int], Any], parser: LineParser, chunk_size: int, batch: int,
                reader: str) -> Iterator[Any]: ...

@final
class ScopedBlankNodes:
    """The statements with ``prefix`` before every blank node label (in quoted triples too):
    one RDF message's labels, made distinct from every other message's."""

    def __init__(self, statements: Iterable[Any], prefix: str) -> None: ...
    def __iter__(self) -> Self: ...
    def __next__(self) -> Any: ...

@final
class UntilMessage:
    """The statements of a parse (an iterator of statements and ``MESSAGE`` items) up to the
    next ``MESSAGE`` or the end: one RDF message of a message log.  Afterwards ``delimited``
    says that it stopped at a delimiter (which it consumed) and ``ended`` that the input ended."""

    def __init__(self, items: Iterable[Any]) -> None: ...
    @property
    def items(self) -> Iterator[Any]: ...
    def settle(self, stopped: bool) -> None: ...
    @property
    def delimited(self) -> bool:
        """It stopped at a ``MESSAGE`` (consumed)."""
    @property
    def ended(self) -> bool:
        """The items ended."""
    def __iter__(self) -> Self: ...
    def __next__(self) -> Any: ...

