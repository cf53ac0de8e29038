"""RDF terms of the library-free API (stub of the compiled ``jelly._terms``).

``IRI``, ``BlankNode``, ``Literal`` and ``Triple`` (an RDF-star quoted triple) are immutable and
hashable; ``str(term)`` is the term in N-Triples syntax and ``repr(term)`` is Python syntax.
Statements are plain tuples ``(s, p, o)`` or ``(s, p, o, g)``; the default graph is
``DEFAULT_GRAPH``.  A literal whose datatype is ``xsd:string`` is the same term as the simple
literal, so it is stored with ``datatype=None``.
"""

from typing import Final, Iterator, final

from typing_extensions import TypeAlias

#: Any RDF term (generalized RDF-star: any of them in any position of a quoted triple).
_Term: TypeAlias = "IRI | BlankNode | Literal | Triple"
#: What sorts: a term or the default graph.
_Sortable: TypeAlias = "IRI | BlankNode | Literal | Triple | DefaultGraph"

XSD_STRING: Final[str]
RDF_LANGSTRING: Final[str]

@final
class IRI:
    """An IRI; ``value`` is the IRI string."""

    def __init__(self, value: str) -> None:
        """Raises ``TypeError`` unless ``value`` is a ``str``."""
    @property
    def value(self) -> str:
        """The IRI string."""
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    def __lt__(self, other: _Sortable) -> bool:
        """A total order over terms (kind first: the default graph, blank nodes, IRIs,
        literals, triples); ``<=``, ``>`` and ``>=`` follow it."""
    def __le__(self, other: _Sortable) -> bool: ...
    def __reduce__(self) -> tuple[type[IRI], tuple[str]]: ...

@final
class BlankNode:
    """A blank node; ``value`` is its label (without ``_:``)."""

    def __init__(self, value: str) -> None:
        """Raises ``TypeError`` unless ``value`` is a ``str``."""
    @property
    def value(self) -> str:
        """The label, without ``_:``."""
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    def __lt__(self, other: _Sortable) -> bool:
        """A total order over terms (kind first: the default graph, blank nodes, IRIs,
        literals, triples); ``<=``, ``>`` and ``>=`` follow it."""
    def __le__(self, other: _Sortable) -> bool: ...
    def __reduce__(self) -> tuple[type[BlankNode], tuple[str]]: ...

@final
class Literal:
    """A literal: lexical form, optional language tag, optional datatype IRI.

    ``datatype`` is ``None`` for simple (``xsd:string``) and language-tagged literals.
    """

    def __init__(self, lex: str, language: str | None = None,
                 datatype: IRI | str | None = None) -> None:
        """A datatype given as a ``str`` becomes an :class:`IRI`; ``xsd:string`` becomes
        ``None``.  Raises ``ValueError`` for a language tag together with a datatype other than
        ``rdf:langString``, an empty language tag, or ``rdf:langString`` without a tag."""
    @property
    def lex(self) -> str:
        """The lexical form."""
    @property
    def language(self) -> str | None:
        """The language tag, or ``None``."""
    @property
    def datatype(self) -> IRI | None:
        """The datatype IRI; ``None`` for simple and language-tagged literals."""
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    def __lt__(self, other: _Sortable) -> bool:
        """A total order over terms (kind first: the default graph, blank nodes, IRIs,
        literals, triples); ``<=``, ``>`` and ``>=`` follow it."""
    def __le__(self, other: _Sortable) -> bool: ...
    def __reduce__(self) -> tuple[type[Literal], tuple[str, str | None, IRI | None]]: ...

@final
class Triple:
    """An RDF-star quoted triple, usable as a term; iterates as ``s, p, o``."""

    def __init__(self, s: _Term, p: _Term, o: _Term) -> None: ...
    @property
    def s(self) -> _Term:
        """The subject."""
    @property
    def p(self) -> _Term:
        """The predicate."""
    @property
    def o(self) -> _Term:
        """The object."""
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    def __lt__(self, other: _Sortable) -> bool:
        """A total order over terms (kind first: the default graph, blank nodes, IRIs,
        literals, triples); ``<=``, ``>`` and ``>=`` follow it."""
    def __le__(self, other: _Sortable) -> bool: ...
    def __iter__(self) -> Iterator[_Term]: ...
    def __reduce__(self) -> tuple[type[Triple], tuple[_Term, _Term, _Term]]: ...

@final
class DefaultGraph:
    """The default graph of a dataset; use the ``DEFAULT_GRAPH`` singleton.  ``str()`` of it is
    the empty string."""

    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    def __lt__(self, other: _Sortable) -> bool:
        """Before every term: it sorts first among graph names."""
    def __le__(self, other: _Sortable) -> bool: ...
    def __reduce__(self) -> str: ...

#: The default graph (the graph term of a statement outside any named graph).
DEFAULT_GRAPH: Final[DefaultGraph]
