"""Term factories and statement sinks (stub of the compiled ``jelly._sink``).

A decoder asks its ``TermFactory`` for every term it builds and hands every statement to its
``StatementSink``.  Built in: the factories ``NativeTerms`` (jelly's own terms) and ``PyTerms``
(an object with Python callables, e.g. the rdflib adapter's), ``jelly._ntformat.NTriplesTerms``;
the sinks ``TupleSink``, ``ColumnSink``, ``jelly._ntformat.LineSink``,
``jelly._ntformat.TextSink`` and ``jelly._ntformat.ArrowSink``.  Their building
methods are C-level only.
"""

from typing import Any, Final, Protocol, final

class _PyFactory(Protocol):
    """What ``terms=`` may also be: an object with these callables and a default graph."""

    @property
    def default_graph(self) -> Any: ...
    def iri(self, value: str, /) -> Any: ...
    def bnode(self, label: str, /) -> Any: ...
    def literal(self, lex: str, language: str | None, datatype: Any, /) -> Any: ...
    def triple(self, s: Any, p: Any, o: Any, /) -> Any: ...
    def datatype(self, iri: str, /) -> Any: ...

class TermFactory:
    """Base of the compiled term factories."""

    @property
    def default_graph(self) -> Any:
        """The term of the default graph."""
    @property
    def acyclic(self) -> bool:
        """True when the terms can never be part of a reference cycle."""

@final
class NativeTerms(TermFactory):
    """jelly's own terms: IRI, BlankNode, Literal, Triple and DEFAULT_GRAPH."""

    def __init__(self) -> None: ...

@final
class PyTerms(TermFactory):
    """Terms of another library, built by an object with callables ``iri(str)``,
    ``bnode(str)``, ``literal(lex, language, datatype)``, ``triple(s, p, o)``, ``datatype(str)``
    (the object passed to ``literal``) and a ``default_graph`` value."""

    def __init__(self, factory: _PyFactory) -> None:
        """Raises ``TypeError`` if ``factory`` lacks one of the callables."""

class StatementSink:
    """Base of the compiled statement sinks."""

    @property
    def pending(self) -> int:
        """Statements collected since the sink was last emptied."""

@final
class TupleSink(StatementSink):
    """A list of ``(s, p, o)`` / ``(s, p, o, g)`` tuples."""

    def __init__(self, untrack: bool = False) -> None:
        """``untrack``: keep the tuples away from the garbage collector (acyclic terms only)."""

@final
class ColumnSink(StatementSink):
    """A tuple of lists ``(s, p, o)`` or ``(s, p, o, g)``: no tuple per statement."""

    def __init__(self) -> None: ...

#: Names ``terms=`` takes, and where their compiled factories live (``"module:class"``).
TERM_FACTORIES: Final[dict[str, str]]
#: Names ``output=`` takes, and where their compiled sinks live (``"module:class"``).
SINKS: Final[dict[str, str]]
