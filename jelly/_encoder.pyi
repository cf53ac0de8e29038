"""Jelly-RDF statement encoder (stub of the compiled ``jelly._encoder``).

Rows of ``RdfStreamFrame`` messages in one write buffer: the stream options row, the statement
rows of each physical stream type, graph start/end, namespace declarations and frame metadata,
on the term encoding of ``jelly._termencoder``.
"""

from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar, final

from ._termencoder import TermEncoder
from .options import StreamOptions

_T = TypeVar("_T")

@final
class Encoder(TermEncoder):
    """Encoding state of one Jelly stream.

    Statements go in with :meth:`add_statements` (or the single-statement methods); the bytes of
    a finished ``RdfStreamFrame`` come out of :meth:`take_frame`.  The options row starts the
    first frame.
    """

    #: True once a namespace declaration was written (the stream then needs version 2).
    used_namespaces: bool

    def __init__(self, options: StreamOptions, *,
                 term_adapter: Callable[[Any], object] | None = None,
                 max_quoted_depth: int = 64) -> None:
        """``options`` is a :class:`jelly.StreamOptions`; ``term_adapter`` turns terms of other
        libraries into jelly terms (called only for objects that are not jelly terms);
        ``max_quoted_depth``: deepest RDF-star nesting written (0..``MAX_QUOTED_DEPTH``)."""
    @property
    def options(self) -> StreamOptions:
        """The stream options."""
    @property
    def statements(self) -> int:
        """Statements encoded so far."""
    @property
    def pending(self) -> bool:
        """True when the current frame holds rows that :meth:`take_frame` has not returned."""
    def add_statements(self, iterator: Iterable[Any], max_rows: int = -1,
                       stop: _T | None = None) -> bool | _T:
        """Encode statements from ``iterator`` until it is exhausted (returns True) or the frame
        holds at least ``max_rows`` rows (returns False; the iterator is left where it stopped).

        If the iterator yields the object ``stop`` (e.g. a message delimiter), encoding stops
        there and ``stop`` is returned.
        """
    def add(self, statement: Sequence[Any]) -> None:
        """Encode one statement: ``(s, p, o)`` or ``(s, p, o, g)``."""
    def start_graph(self, graph: object) -> None:
        """GRAPHS streams: open a graph explicitly (closes the open one)."""
    def end_graph(self) -> None:
        """GRAPHS streams: close the open graph, if any."""
    def add_namespace(self, name: str, iri: object) -> None:
        """Write a namespace declaration row (name without the colon; the IRI of the namespace
        as a ``str``, an :class:`~jelly.IRI` or a term the ``term_adapter`` makes one of)."""
    def start_segment(self) -> None:
        """Start a self-contained segment with the next row: the options row is written again
        and the lookups, repeated terms and IRI deltas start afresh (the first entry and IRI
        with explicit ids), so the frames from here on decode without what came before.  Call
        it between frames and outside a graph."""
    def take_frame(self, metadata: Mapping[str, bytes | bytearray] | None = None,
                   close_graph: bool = False, delimited: bool = False) -> bytes:
        """Return the bytes of the current ``RdfStreamFrame`` (after its length as a varint when
        ``delimited``) and start a new one.

        ``metadata`` (a mapping of str to bytes) is written as the frame's metadata;
        ``close_graph`` ends an open graph first (grouped GRAPHS streams keep graphs in a frame).
        """
