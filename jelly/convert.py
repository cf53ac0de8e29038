"""The conversion library: any format of the registry to any other, streaming, in constant memory.

:func:`convert` is what ``jelly convert`` runs; Spark, the examples and user code call it too.
A conversion is a *source* (a format's reader) feeding a *sink* (a format's writer) frame by
frame:

* a source has ``frames()`` yielding ``(frame, message)``: a frame holds ``statements``,
  ``namespaces`` and ``metadata``, and ``message`` says whether it is one RDF message of a
  message log (else it is a piece of a flat stream); a source also tells ``quads`` (whether
  statements carry graphs), ``grouped`` (whether its frames are messages) and ``options`` (a
  Jelly input's stream options);
* a sink has ``write(frame, message)`` and ``close()``; ``abort()`` if it can leave its output
  unfinished.

A frame's ``statements`` may be a list or an iterator that the sink consumes once.  Jelly to
N-Triples / N-Quads never builds a term: the Jelly source hands the sink N-Triples lines when
the sink asks for them (its class has ``lines = True``).  N-Triples / N-Quads to Jelly feeds
the parser's statements straight into the encoder's C loop.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import pathlib
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Iterable, Iterator, cast

from . import formats as _formats
from ._decoder import Frame
from ._ntformat import NQuadsWriter, NTriplesTerms
from ._ntriples import MESSAGE, SYNTAXES, UntilMessage, parse_nquads
from .errors import JellyError
from .io import open_input, open_output
from .options import (PhysicalStreamType, ReaderLimits, StreamOptions, is_grouped,
                      make_options)
from .reader import Reader
from .writer import DEFAULT_ROWS_PER_FRAME, DEFAULT_SEGMENT_SIZE, Writer

if TYPE_CHECKING:
    from typing import Protocol

    from .io import BinaryReader, BinaryWriter, Input, Output

    class Source(Protocol):
        """What a format's reader builds (see the module docstring)."""

        @property
        def lines(self) -> bool: ...
        @property
        def quads(self) -> bool: ...
        @property
        def grouped(self) -> bool: ...
        @property
        def options(self) -> StreamOptions | None: ...
        def frames(self) -> Iterator[tuple[Frame | TextFrame, bool]]: ...
        def close(self) -> None: ...

    class Sink(Protocol):
        """What a format's writer builds (see the module docstring)."""

        @property
        def frames_written(self) -> int: ...
        @property
        def statements_written(self) -> int: ...
        def write(self, frame: Frame | TextFrame, message: bool) -> None: ...
        def close(self) -> None: ...

#: Fields of :func:`jelly.make_options` that a conversion passes to a Jelly writer.
WRITER_OPTION_FIELDS = ("preset", "physical_type", "logical_type", "max_name_table_size",
                        "max_prefix_table_size", "max_datatype_table_size", "rdf_star",
                        "generalized_statements", "stream_name")


@dataclasses.dataclass
class TextFrame:
    """A frame of a source that is not Jelly: statements (possibly a lazy iterator, consumed
    once) and the namespaces declared with them."""
    statements: Iterable[Any]
    namespaces: list[tuple[str, Any]] = dataclasses.field(default_factory=list)
    metadata: dict[str, bytes] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Result:
    """What a conversion did."""
    statements: int
    frames: int


# ------------------------------------------------------------------------------------- Jelly

class JellySource:
    """Frames of a Jelly stream.  ``lines=True`` decodes straight to N-Triples / N-Quads lines
    (the fast path to text); ``messages=True`` treats every frame as an RDF message even when
    the stream's logical type does not say so."""

    def __init__(self, stream: BinaryReader, *, lines: bool = False, messages: bool = False,
                 limits: ReaderLimits | None = None, strict: bool = False,
                 lines_syntax: str | None = None, **_: Any) -> None:
        self.lines = lines
        terms: Any = "native"
        if lines:
            terms = NTriplesTerms(syntax=lines_syntax) if lines_syntax else "nt"
        self._reader = Reader(stream, limits=limits, strict=strict, new_streams=True,
                              terms=terms, output="lines" if lines else "tuples")
        self.options: StreamOptions | None = self._reader.options
        if self.options is None:
            self.quads = False
            self.grouped = messages
        else:
            self.quads = self.options.physical_type != PhysicalStreamType.TRIPLES
            self.grouped = messages or is_grouped(int(self.options.logical_type))

    def frames(self) -> Iterator[tuple[Frame, bool]]:
        grouped = self.grouped
        for frame in self._reader.frames():
            yield frame, grouped

    def close(self) -> None:
        self._reader.close()


def jelly_options(source: Source, options: StreamOptions | None, fields: dict[str, Any]
                  ) -> StreamOptions:
    """The stream options a Jelly sink writes for ``source`` (version automatic): without
    writer options, a Jelly source's are kept; otherwise :func:`jelly.make_options` resolves
    them from what the source holds (quads or triples, messages or flat)."""
    fields = {k: v for k, v in fields.items() if k in WRITER_OPTION_FIELDS and v is not None}
    src: StreamOptions | None = getattr(source, "options", None)
    if options is None and not fields and src is not None:
        return src.replace(version=None)
    return make_options(options.replace(version=None) if options else None,
                        quads=source.quads, grouped=source.grouped, **fields)


class JellySink:
    """Writes frames as a Jelly stream with the options of :func:`jelly_options`;
    ``segment_size`` makes it splittable (see :class:`jelly.Writer`)."""

    lines = False

    def __init__(self, stream: BinaryWriter, source: Source, *,
                 options: StreamOptions | None = None,
                 rows_per_frame: int = DEFAULT_ROWS_PER_FRAME, delimited: bool = True,
                 flush_frames: bool = False, segment_size: int | None = None,
                 **fields: Any) -> None:
        self._writer = Writer(stream, jelly_options(source, options, fields),
                              rows_per_frame=rows_per_frame, delimited=delimited,
                              segment_size=segment_size)
        self._flush = flush_frames
        self._stream = stream

    @property
    def frames_written(self) -> int:
        return self._writer.frames_written

    @property
    def statements_written(self) -> int:
        return self._writer.statements_written

    def write(self, frame: Frame | TextFrame, message: bool) -> None:
        writer = self._writer
        for name, iri in frame.namespaces:
            writer.declare_namespace(name, iri)
        if message:
            writer.write_frame(frame.statements, frame.metadata or None)
        else:
            writer.write_all(frame.statements)
            if frame.metadata:
                writer.flush_frame(frame.metadata)
        if self._flush:
            self._stream.flush()

    def close(self) -> None:
        self._writer.close()

    def abort(self) -> None:
        self._writer.abort()


# ------------------------------------------------------------------ N-Triples / N-Quads

class NQuadsSource:
    """Statements of N-Triples / N-Quads text.  Lines ``# @message`` delimit RDF messages: a
    document with one among its first ``rows_per_frame`` statements is a message log (each
    message one frame; ``messages=True`` makes any input one), others are read as one flat
    frame until a delimiter appears."""

    lines = False
    options = None

    def __init__(self, stream: BinaryReader, *, format: str = "nq", messages: bool = False,
                 rows_per_frame: int = DEFAULT_ROWS_PER_FRAME, syntax: str | None = None,
                 **_: Any) -> None:
        self._items = parse_nquads(stream, messages=True, syntax=syntax)
        head: list[Any] = []
        delimited = False
        for item in self._items:
            if item is MESSAGE:
                delimited = True
                break
            head.append(item)
            if len(head) >= max(1, rows_per_frame):
                break
        self._head = head
        self._delimited = delimited
        self.grouped = messages or delimited
        # N-Quads (by name) holds quads; N-Triples text may still hold a quad line.
        self.quads = format == "nq" or (bool(head) and len(head[0]) == 4)

    def frames(self) -> Iterator[tuple[TextFrame, bool]]:
        items = self._items
        head, self._head = self._head, []
        if not self.grouped:
            # Flat: everything up to a delimiter, if one comes after the look-ahead.
            part = UntilMessage(itertools.chain(head, items))
            yield TextFrame(part), False
            if part.ended:
                return
        elif self._delimited:
            # The look-ahead stopped at a delimiter.  A log's first message is what stands
            # before it (a log that starts with a delimiter does not start with an empty one).
            if head:
                yield TextFrame(head), True
        else:
            # A message log by request: the first message runs to the first delimiter.
            part = UntilMessage(itertools.chain(head, items))
            yield TextFrame(part), True
            if part.ended:
                return
        # From here on each delimiter opens a message (a last one, too).
        while True:
            part = UntilMessage(items)
            yield TextFrame(part), True
            if part.ended:
                return

    def close(self) -> None:
        pass


class NQuadsSink:
    """Writes N-Triples (``nt``: a statement in a named graph is an error) or N-Quads.
    ``messages=True`` writes a ``# @message`` line before each frame; ``syntax="rdf12"``
    writes quoted triples as RDF 1.2 triple terms ``<<( s p o )>>``."""

    lines = True

    def __init__(self, stream: BinaryWriter, source: Source, *, format: str = "nq",
                 messages: bool = False, flush_frames: bool = False, syntax: str | None = None,
                 **_: Any) -> None:
        self._out = NQuadsWriter(stream, syntax=syntax)
        self._lines = source.lines
        self._triples_only = format == "nt"
        self._messages = messages
        self._flush = flush_frames
        self.frames_written = 0
        self.statements_written = 0

    def write(self, frame: Frame | TextFrame, message: bool) -> None:
        out = self._out
        if self._messages:
            out.write_message()
        if self._lines:
            # A frame of a Jelly source, decoded to lines.
            frame = cast(Frame, frame)     # its statements are lines (str)
            if self._triples_only and frame.named_graph_statements:
                raise JellyError(f"frame {frame.index} has statements in named graphs, which "
                                 f"N-Triples cannot hold; write N-Quads (.nq) instead")
            out.write_lines(cast("list[str]", frame.statements))
            self.statements_written += frame.statement_count
        else:
            n = 0
            for st in frame.statements:
                if self._triples_only and len(st) == 4 and _named(st[3]):
                    raise JellyError("the input has statements in named graphs, which N-Triples "
                                     "cannot hold; write N-Quads (.nq) instead")
                out.write(st)
                n += 1
            self.statements_written += n
        self.frames_written += 1
        if self._flush:
            out.flush()

    def close(self) -> None:
        self._out.flush()


def migrated(frames: Iterable[tuple[Frame | TextFrame, bool]], to: str
             ) -> Iterator[tuple[TextFrame, bool]]:
    """Frames with their statements rewritten to RDF 1.2 (``to="rdf12"``) or RDF-star
    (``"rdf-star"``), see :mod:`jelly.migrate`; the state carries from frame to frame."""
    from .migrate import ToRdf12, ToRdfStar
    transform: Callable[[Iterable[Any]], Iterator[tuple[Any, ...]]] = \
        ToRdf12() if to == "rdf12" else ToRdfStar()
    for frame, message in frames:
        yield TextFrame(transform(frame.statements), list(frame.namespaces),
                        dict(frame.metadata or {})), message


def _named(g: object) -> bool:
    from ._terms import DefaultGraph
    return g is not None and type(g) is not DefaultGraph


# ------------------------------------------------------------------------- the pipeline

def _format(name_or_format: str | _formats.RdfFormat | None, path: object, role: str,
            kind: str) -> _formats.RdfFormat:
    if isinstance(name_or_format, _formats.RdfFormat):
        return name_or_format
    if name_or_format:
        return _formats.get(name_or_format, kind, role)
    if path is not None and not (isinstance(path, (str, os.PathLike)) and os.fspath(path) == "-"):
        if isinstance(path, (str, os.PathLike)):
            fmt = _formats.for_path(path, kind)
            if fmt is not None:
                return fmt
            raise JellyError(f"cannot tell the format of {os.fspath(path)!r} from its name; "
                             f"name it with --{'from' if role == 'input' else 'to'} "
                             f"({', '.join(_formats.names(kind))})")
    raise JellyError(f"name the {role} format of '-' with "
                     f"--{'from' if role == 'input' else 'to'}")


def open_source(stream: BinaryReader, fmt: _formats.RdfFormat, *, lines: bool = False,
                **options: Any) -> Source:
    """A source over an open binary stream (see the module docstring)."""
    source: Source = fmt.load_reader()(stream, lines=lines, format=fmt.name, **options)
    return source


def open_sink(stream: BinaryWriter, fmt: _formats.RdfFormat, source: Source,
              **options: Any) -> Sink:
    """A sink writing to an open binary stream (see the module docstring)."""
    sink: Sink = fmt.load_writer()(stream, source, format=fmt.name, **options)
    return sink


def convert(source: Input, destination: Output, *,
            from_format: str | _formats.RdfFormat | None = None,
            to_format: str | _formats.RdfFormat | None = None, messages: bool = False,
            options: StreamOptions | None = None, rows_per_frame: int = DEFAULT_ROWS_PER_FRAME,
            delimited: bool = True, limits: ReaderLimits | None = None,
            progress: Callable[[BinaryReader], ContextManager[BinaryReader]] | None = None,
            syntax: str | None = None, base: str | None = None, migrate: str | None = None,
            segment_size: int | None = DEFAULT_SEGMENT_SIZE, jobs: int | None = 1,
            **writer_fields: Any) -> Result:
    """Convert ``source`` (path, ``"-"``, bytes or binary file) to ``destination`` (path,
    ``"-"`` or binary file).  Formats come from the names (``from_format`` / ``to_format``:
    a name or alias of :mod:`jelly.formats`) or from the file extensions.  ``messages`` writes
    (or reads) an RDF message log, one message per frame.  Jelly output takes ``options`` (a
    base :class:`StreamOptions`), the fields of :func:`jelly.make_options`, ``rows_per_frame``
    and ``delimited``.  A destination path is only replaced when the conversion succeeds.
    ``progress`` wraps the input stream (e.g. to show how much was read).

    Text formats: ``syntax`` (``"rdf12"`` or ``"rdf-star"``) is the notation of quoted triples
    in text input and output (see :func:`jelly._ntriples.parse_nquads`, ``docs/rdf12.md``);
    ``base`` resolves relative IRIs (default: the input file's location).  ``migrate``
    (``"rdf12"`` or ``"rdf-star"``) rewrites RDF-star quoted triples as RDF 1.2 reifiers or back
    (:mod:`jelly.migrate`), and makes text output use that notation.

    Jelly output is written in self-contained segments of ``segment_size`` statements (None:
    none), so that it can be read in parallel (:mod:`jelly.parallel`).  ``jobs`` worker
    processes (None: as many as there are cores when the input is a large file) convert a
    Jelly file to N-Triples / N-Quads (the same text as one process writes) or an N-Triples /
    N-Quads file to Jelly (the same statements); other conversions, and inputs that are not
    plain files, run in this process.
    """
    in_fmt = _format(from_format, source, "input", _formats.RDF)
    out_fmt = _format(to_format, destination, "output", _formats.RDF)
    if syntax not in (None, *SYNTAXES):
        raise JellyError(f"unknown syntax {syntax!r}; choose {' or '.join(SYNTAXES)}")
    if migrate not in (None, *SYNTAXES):
        raise JellyError(f"unknown migration {migrate!r}; choose {' or '.join(SYNTAXES)}")
    out_syntax = migrate or syntax
    if base is None and isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-":
        base = pathlib.Path(os.fspath(source)).resolve().as_uri()
    if messages and not out_fmt.messages and in_fmt.messages is False:
        raise JellyError(f"{out_fmt.label} has no RDF message log form")
    if jobs is not None and jobs < 1:
        raise JellyError(f"jobs must be at least 1, not {jobs}")
    if segment_size is not None and segment_size < 1:
        raise JellyError(f"segment_size must be at least 1 (None: no segments), not "
                         f"{segment_size}")
    to_stdout = isinstance(destination, (str, os.PathLike)) and os.fspath(destination) == "-"
    from . import parallel
    path = parallel.splittable_path(source) if not (messages or migrate) else None
    if jobs is None:
        jobs = parallel.auto_jobs(path, in_fmt.name)
    with contextlib.ExitStack() as stack:
        out = None
        if jobs > 1 and path is not None and parallel.parallel_formats(in_fmt.name, out_fmt.name):
            out = stack.enter_context(open_output(destination))
            done = parallel.convert_file(
                path, out, in_fmt.name, out_fmt.name, jobs=jobs, options=options,
                fields=writer_fields, rows_per_frame=rows_per_frame, delimited=delimited,
                segment_size=segment_size, syntax=out_syntax, limits=limits)
            if done is not None:
                return Result(*done)
        stream = stack.enter_context(open_input(source))
        if progress is not None:
            stream = stack.enter_context(progress(stream))
        sink_cls = out_fmt.load_writer()
        src = open_source(stream, in_fmt, lines=getattr(sink_cls, "lines", False) and not migrate,
                          messages=messages, rows_per_frame=rows_per_frame, limits=limits,
                          syntax=syntax, base=base, lines_syntax=out_syntax)
        stack.callback(src.close)
        if out is None:
            out = stack.enter_context(open_output(destination))
        sink = open_sink(out, out_fmt, src, messages=messages, options=options,
                         rows_per_frame=rows_per_frame, delimited=delimited,
                         flush_frames=to_stdout, syntax=out_syntax, segment_size=segment_size,
                         **writer_fields)
        frames: Iterable[tuple[Frame | TextFrame, bool]] = src.frames()
        if migrate:
            frames = migrated(frames, migrate)
        try:
            for frame, message in frames:
                sink.write(frame, message)
            sink.close()
        except BaseException:
            abort = getattr(sink, "abort", None)
            if abort is not None:
                abort()
            raise
        return Result(sink.statements_written, sink.frames_written)
