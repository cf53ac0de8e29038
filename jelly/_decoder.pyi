"""Jelly-RDF frame decoder (stub of the compiled ``jelly._decoder``).

One ``Decoder`` holds the state of one stream, so frames must be fed in order.  A frame can be
decoded whole (``decode_frame``) or a few statements at a time (``begin_frame``,
``decode_statements``, ``end_frame``), so memory need not follow the size of a frame.  After an
error the decoder stays failed.
"""

from typing import Any, Final, Iterator, final

from typing_extensions import Buffer, TypeAlias

from ._sink import StatementSink, TermFactory, _PyFactory
from ._termdecoder import TermDecoder
from .options import ReaderLimits, StreamOptions

#: What ``terms=`` takes: ``"native"``, ``"nt"``, a compiled factory or a Python one.
_Terms: TypeAlias = "str | TermFactory | _PyFactory"
#: A frame's statements: a list (of tuples or of lines) or, for ``output="columns"`` and
#: ``"arrow"``, a tuple (one item per position).  ``output="text"`` gives bytes, which is not
#: in this type, so that code that iterates the usual outputs needs no narrowing.
_Statements: TypeAlias = "list[Any] | tuple[list[Any], ...]"

#: Row kinds by field number of the ``RdfStreamRow`` oneof, in the order of
#: :attr:`Frame.row_counts`.
ROW_KINDS: Final[tuple[str, ...]]

class Frame:
    """One decoded frame: its statements, metadata and namespace declarations."""

    def __init__(self, index: int, statements: _Statements,
                 metadata: dict[str, bytes] | None = None,
                 namespaces: list[tuple[str, Any]] | None = None,
                 row_counts: tuple[int, ...] | None = None, named_graph_statements: int = 0,
                 statement_count: int | None = None, stream_index: int = 0,
                 frames: int = 1) -> None: ...
    @property
    def index(self) -> int:
        """Index of the frame in the input (0-based)."""
    @property
    def statements(self) -> _Statements:
        """The statements, in the shape of the reader's ``output``: ``"tuples"`` a list of
        ``(s, p, o)`` / ``(s, p, o, g)``, ``"lines"`` a list of N-Triples / N-Quads lines,
        ``"text"`` those lines as one ``bytes`` of UTF-8, ``"columns"`` a tuple of lists, one
        per position, ``"arrow"`` per position the buffers of Arrow arrays."""
    @property
    def metadata(self) -> dict[str, bytes]:
        """The frame's metadata."""
    @property
    def namespaces(self) -> list[tuple[str, Any]]:
        """Namespace declarations of the frame: ``(name, IRI term)`` in order."""
    @property
    def row_counts(self) -> tuple[int, ...]:
        """Rows of each kind, in the order of :data:`ROW_KINDS`."""
    @property
    def named_graph_statements(self) -> int:
        """How many statements are in a named graph (not the default graph)."""
    @property
    def statement_count(self) -> int:
        """Statements decoded from the frame (also those taken with decode_statements)."""
    @property
    def stream_index(self) -> int:
        """Index of the stream the frame belongs to, in input that concatenates streams."""
    @property
    def frames(self) -> int:
        """Frames of the stream this holds: 1, or those from ``index`` on that a reader
        decoded together (``Decoder.decode_run``)."""
    @property
    def rows(self) -> dict[str, int]:
        """Rows of the frame by kind: ``{"options": 1, "triple": 10, ...}``."""
    def __len__(self) -> int:
        """Number of statements (also for column output)."""
    def __iter__(self) -> Iterator[Any]: ...

@final
class Decoder(TermDecoder):
    """Decoding state of one Jelly stream; feed it frames in order with :meth:`decode_frame`.

    ``terms`` names what each term becomes (``"native"``: jelly's terms; ``"nt"``: N-Triples
    strings, the default graph ``None``) or is a term factory: an object with callables
    ``iri(str)``, ``bnode(str)``, ``literal(lex, language, datatype)``, ``triple(s, p, o)``,
    ``datatype(str)`` (the object passed to ``literal``) and a ``default_graph`` value.
    ``output`` shapes each frame's ``statements``: ``"tuples"``, ``"columns"`` (a tuple of
    lists, one per position), ``"arrow"`` (per position the buffers of Arrow arrays),
    ``"lines"`` (N-Triples / N-Quads lines; needs ``terms="nt"``) or ``"text"`` (the lines as
    one ``bytes`` of UTF-8; needs ``terms="nt"``).
    ``new_streams=True`` reads a frame that starts with different stream options as the start of
    a new stream (what concatenating two files gives) instead of rejecting it.
    ``segment=True``: the input starts at a segment start inside a stream (a frame that begins
    with the options row), whose earlier rows are not known.  Whatever would depend on them (an
    id 0 counting on from earlier ids, a repeated term or a lookup slot the input has not
    defined yet, a triple outside a graph) raises :class:`JellyDecodeError`; what decodes is
    exactly what a reader of the whole stream reads there (see :mod:`jelly.parallel`).
    """

    #: The stream options, once the options row has been read.
    options: StreamOptions | None
    #: Index of the current stream in input that concatenates streams.
    stream_index: int

    def __init__(self, *, limits: ReaderLimits | None = None, terms: _Terms = "native",
                 output: str | StatementSink = "tuples", strict: bool = False,
                 factory: TermFactory | _PyFactory | None = None,
                 new_streams: bool = False, segment: bool = False) -> None: ...
    def begin_frame(self, data: Buffer, offset: int = 0) -> None:
        """Start decoding one frame (the bytes of an ``RdfStreamFrame``, without a length
        prefix, in any buffer); ``offset`` is its position in the whole stream, for errors."""
    def decode_statements(self, max_statements: int = 4096) -> _Statements | None:
        """The next statements of the frame begun with :meth:`begin_frame` (about
        ``max_statements``, in the shape of ``output``), or ``None`` when it has no more."""
    def end_frame(self) -> Frame:
        """Decode what is left of the current frame and return it as a :class:`Frame` (its
        ``statements`` are those not taken with :meth:`decode_statements`)."""
    def decode_frame(self, data: Buffer, offset: int = 0) -> Frame:
        """Decode one frame (the bytes of an ``RdfStreamFrame``, without a length prefix).

        ``offset`` is the position of ``data`` in the whole stream, used in error messages.
        """
    def decode_run(self, frames: list[tuple[int, bytes | memoryview]], at: int,
                   max_statements: int, namespaces: dict[str, Any] | None = None
                   ) -> tuple[_Statements | Frame | None, int]:
        """Decode ``frames[at:]`` (``(offset, bytes)`` pairs, as ``FrameReader.batches``
        gives them) in one call, until the output holds ``max_statements``.  Returns
        ``(result or None, at)``, ``at`` the first frame not begun.

        With ``namespaces`` (a dict that namespace declarations go into), the result is the
        statements (in the shape of ``output``), and a frame that does not fit is left open
        and goes on at the next call.  Without, frames are decoded whole and the result is
        one :class:`Frame` for all of them (the first one's ``index``; namespaces, row counts
        and statements of them all); a frame with metadata ends a run, so the metadata is the
        last frame's."""
    @property
    def mid_frame(self) -> bool:
        """True between the start and the end of a frame being decoded in pieces."""
    @property
    def in_graph_now(self) -> bool:
        """True while a GRAPHS stream is inside a graph (between graph_start and graph_end)."""
