"""The one exception family of jelly.

Every rejected input or option raises a subclass of :class:`JellyError`, which is a
``ValueError``.  Where the error comes from a byte stream, ``offset`` is the byte offset in the
(decompressed) stream, ``frame`` the 0-based frame index and ``row`` the 0-based row index in
that frame, ``line`` the 1-based line of a text input and ``statement`` the 1-based number of
a statement that could not be written; each is ``None`` where it does not apply.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

_E = TypeVar("_E", bound="JellyError")


def amount(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1 (``1 frame``, ``2 patches``): counts in
    messages and reports."""
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {noun}es" if noun.endswith(("s", "x", "ch", "sh")) else f"{n} {noun}s"


class JellyError(ValueError):
    """Root of all errors raised by jelly for bad input, bad options or bad data."""

    def __init__(self, message: str, *, offset: int | None = None, frame: int | None = None,
                 row: int | None = None, line: int | None = None,
                 statement: int | None = None) -> None:
        self.message = message
        self.statement = statement
        self.offset = offset
        self.frame = frame
        self.row = row
        self.line = line
        super().__init__(self._describe())

    def _describe(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.statement is not None:
            where.append(f"statement {self.statement}")
        if self.offset is not None:
            where.append(f"byte {self.offset}")
        if self.frame is not None:
            where.append(f"frame {self.frame}")
        if self.row is not None:
            where.append(f"row {self.row}")
        return f"{self.message} (at {', '.join(where)})" if where else self.message

    def name_source(self, source: str) -> None:
        """Put ``source`` (which of several inputs this error is about) before the message,
        keeping the class and the location (for a re-raise)."""
        self.message = f"{source}: {self.message}"
        self.args = (self._describe(),)

    def at_statement(self: _E, number: int) -> _E:
        """This error, located at the ``number``-th statement (1-based) of what was written."""
        self.statement = number
        self.args = (self._describe(),)
        return self

    def __reduce__(self) -> tuple[Callable[..., JellyError], tuple[Any, ...]]:
        # keep the location when pickled (Spark, multiprocessing)
        return (_rebuild, (type(self), self.message, self.offset, self.frame, self.row, self.line,
                           self.statement))


def _rebuild(cls: type[JellyError], message: str, offset: int | None, frame: int | None,
             row: int | None, line: int | None, statement: int | None = None) -> JellyError:
    return cls(message, offset=offset, frame=frame, row=row, line=line, statement=statement)


class JellyDecodeError(JellyError):
    """The input is not a valid Jelly stream (bad wire format or broken stream rules)."""


class JellyTruncatedError(JellyDecodeError):
    """The input ended in the middle of a frame or a length prefix."""


class JellyLimitError(JellyDecodeError):
    """The input asks for more than the reader's safety caps allow (table sizes, nesting, frame size)."""


class JellyEncodeError(JellyError):
    """The statements cannot be written with the chosen stream options."""


class JellyOptionsError(JellyError):
    """Stream options are invalid or inconsistent."""


class RdfSyntaxError(JellyError):
    """N-Triples / N-Quads (or another RDF text syntax) could not be parsed."""
