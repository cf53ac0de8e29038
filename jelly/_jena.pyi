"""Jena's RDF Binary, the part RDF Thrift and RDF Protobuf share (stub of the compiled
``jelly._jena``).

``JenaDecoder`` is the base of both readers: IRIs, prefixed names and blank nodes go through a
cache keyed by their bytes, literals and the value forms (read into the canonical lexical form
of their XSD type) are built by the term factory, REPEAT takes the previous row's term, and
statements go to the sink.  Input is fed in pieces (:meth:`JenaDecoder.feed`); a row cut off by
the end of a piece is read again when more bytes come.  ``JenaEncoder`` is the base of both
writers.  Use :mod:`jelly.jena` rather than these classes.
"""

from typing import Any, Callable, Final, Iterable, Sequence

from typing_extensions import Buffer

from ._sink import StatementSink, TermFactory, _PyFactory
from .options import ReaderLimits

XSD: Final[str]
XSD_STRING: Final[str]
XSD_INTEGER: Final[str]
XSD_DECIMAL: Final[str]
XSD_DOUBLE: Final[str]
RDF_LANGSTRING: Final[str]
#: IRIs Jena uses for the default graph (read as the default graph in a quad's graph).
JENA_DEFAULT_GRAPHS: Final[tuple[str, str]]
#: Row kinds, in the order of :attr:`JenaDecoder.row_counts`.
ROW_KINDS: Final[tuple[str, ...]]
#: Largest |scale| of a valDecimal a reader accepts.
MAX_DECIMAL_SCALE: Final[int]
#: What the readers read for RDF_REPEAT and RDF_UNDEF before resolving them.
REPEAT: Final[object]
UNDEF: Final[object]

from ._xsdvalues import decimal_lexical as decimal_lexical, double_lexical as double_lexical

class JenaDecoder:
    """Reading state of one RDF Binary stream."""

    #: 0 for RDF statements, 1 for a result set.
    mode: int
    #: Result set variables once the header is read (None before).
    variables: list[str] | None
    #: The IRI of the last base row (RDF Protobuf), or None.
    base_iri: str | None
    #: The error that stopped this reader, if any.
    failed: Any
    frame_index: int

    def __init__(self, *, mode: str = "rdf", limits: ReaderLimits | None = None,
                 terms: str | TermFactory | _PyFactory = "native",
                 output: str | StatementSink = "tuples", quads: bool = False) -> None:
        """``mode``: ``"rdf"`` or ``"results"``; ``terms`` and ``output`` as for
        :class:`jelly.Decoder`; ``quads``: triple rows as quads in the default graph."""
    def feed(self, data: Buffer, start: int = 0, offset: int = 0, final: bool = True,
             max_statements: int = -1) -> int:
        """Decode the rows of ``data[start:]`` (``offset``: where ``data`` starts in the
        stream); stops after ``max_statements``, at the end, or (unless ``final``) at a row the
        end cuts off.  Returns the position after the last row decoded."""
    def take(self) -> Any:
        """The statements (or result rows) decoded since the last call."""
    def take_namespaces(self) -> list[tuple[str, Any]]:
        """The prefix declarations ``(prefix, IRI term)`` read since the last call."""
    @property
    def need_more(self) -> bool:
        """True when the last feed stopped at a row cut off by the end of its data."""
    @property
    def pending(self) -> int:
        """Statements or result rows decoded and not yet taken."""
    @property
    def named_graph_statements(self) -> int:
        """Statements in named graphs among those not yet taken."""
    @property
    def bytes_read(self) -> int:
        """Bytes of the stream decoded so far."""
    @property
    def rows_read(self) -> int:
        """Rows decoded so far."""
    @property
    def row_counts(self) -> dict[str, int]:
        """Rows decoded so far by kind."""
    @property
    def namespaces(self) -> dict[str, str]:
        """Every prefix declared so far."""

class JenaEncoder:
    """Writing state of one RDF Binary stream."""

    def __init__(self, *, values: bool = False, repeat: bool = False,
                 prefix_names: bool = False, term_adapter: Callable[[Any], object] | None = None,
                 max_quoted_depth: int = 64) -> None: ...
    def add(self, statement: Sequence[Any]) -> None:
        """Write one statement."""
    def add_statements(self, iterator: Iterable[Any], max_bytes: int = -1,
                       stop: object = None) -> object:
        """Write statements until the iterator ends (True), the output holds ``max_bytes``
        (False) or it yields ``stop`` (returned)."""
    def declare_prefix(self, prefix: str, iri: object) -> None:
        """Write a prefix declaration row."""
    def write_base(self, iri: str) -> None:
        """Write a base IRI row (RDF Protobuf only)."""
    def write_variables(self, names: Iterable[str]) -> None:
        """Write a result set header."""
    def add_rows(self, iterator: Iterable[Sequence[Any]], max_bytes: int = -1) -> bool:
        """Write result rows until the iterator ends (True) or the output holds
        ``max_bytes`` (False)."""
    def take(self) -> bytes:
        """The bytes written since the last call."""
    @property
    def size(self) -> int:
        """Bytes written and not yet taken."""
    @property
    def rows(self) -> int:
        """Rows written."""
    @property
    def statements(self) -> int:
        """Statements written."""
