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
N-Triples / N-Quads never builds a term: the Jelly source hands the sink N-Triples / N-Quads
text (``bytes`` per frame, :class:`jelly._ntformat.TextSink`) when the sink asks for it (its
class has ``text = True``).  N-Triples / N-Quads to Jelly feeds
the parser's statements straight into the encoder's C loop.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import io
import itertools
import os
import pathlib
import re
import sys
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Iterable, Iterator, cast

from . import formats as _formats
from ._decoder import Frame
from ._ntformat import NQuadsWriter, NTriplesTerms
from ._lines import ScopedBlankNodes
from ._ntriples import MESSAGE, SYNTAXES, UntilMessage, parse_nquads
from .errors import JellyError
from .io import (CHUNK_SIZE, HEAD_SIZE, CountedReader, FrameReader, is_stdio, open_input,
                 open_output, peek)
from .options import (DEFAULT_LIMITS, PhysicalStreamType, ReaderLimits, StreamOptions,
                      is_grouped, make_options)
from .reader import Reader
from .writer import DEFAULT_ROWS_PER_FRAME, DEFAULT_SEGMENT_SIZE, Writer

if TYPE_CHECKING:
    from typing import Protocol

    from .io import BinaryReader, BinaryWriter, Input, Output

    class Source(Protocol):
        """What a format's reader builds (see the module docstring)."""

        @property
        def text(self) -> bool: ...
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
    """Frames of a Jelly stream.  ``text=True`` decodes straight to N-Triples / N-Quads text
    (the fast path to text); ``messages=True`` treats every frame as an RDF message even when
    the stream's logical type does not say so; ``raw=True`` yields the frames undecoded
    (:class:`jelly.jellytext.RawFrame`)."""

    def __init__(self, stream: BinaryReader, *, text: bool = False, messages: bool = False,
                 limits: ReaderLimits | None = None, strict: bool = False,
                 text_syntax: str | None = None, raw: bool = False, **_: Any) -> None:
        self.text = text
        self.options: StreamOptions | None = None
        if raw:
            self._raw: FrameReader | None = FrameReader(stream, limits or DEFAULT_LIMITS)
            self.quads, self.grouped = False, messages
            return
        self._raw = None
        terms: Any = "native"
        if text:
            terms = NTriplesTerms(syntax=text_syntax) if text_syntax else "nt"
        self._reader = Reader(stream, limits=limits, strict=strict, new_streams=True,
                              terms=terms, output="text" if text else "tuples")
        self.options = self._reader.options
        if self.options is None:
            self.quads = False
            self.grouped = messages
        else:
            self.quads = self.options.physical_type != PhysicalStreamType.TRIPLES
            self.grouped = messages or is_grouped(int(self.options.logical_type))

    def frames(self) -> Iterator[tuple[Any, bool]]:
        grouped = self.grouped
        if self._raw is not None:
            from .jellytext import RawFrame
            for index, (_, data) in enumerate(self._raw):
                yield RawFrame(index, bytes(data)), grouped
            return
        # Text of a flat stream does not show where frames end: many small frames are
        # decoded in one call (a stream of one-statement frames at the speed of large ones).
        frames = self._reader._runs() if self.text and not grouped else self._reader.frames()
        for frame in frames:
            yield frame, grouped

    def close(self) -> None:
        if self._raw is None:
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

    text = False

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
        statements = frame.statements
        if message:
            writer.write_frame(statements, frame.metadata or None)
        elif type(statements) is UntilMessage:
            # the writer's C loop stops at the delimiter itself: no call per statement here
            statements.settle(writer.write_until(statements.items, MESSAGE))
        else:
            writer.write_all(statements)
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

    text = False
    options = None

    def __init__(self, stream: BinaryReader, *, format: str = "nq", messages: bool = False,
                 rows_per_frame: int = DEFAULT_ROWS_PER_FRAME, syntax: str | None = None,
                 **_: Any) -> None:
        self._items = parse_nquads(stream, messages=True, syntax=syntax,
                                   triples=format == "nt" and syntax is not None)
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
        index = 0
        for frame, message in self._frames():
            if message:     # a message's blank nodes are its own (RDF Messages, section 2)
                # Every label renamed, so that the names cannot meet another message's, and
                # stay apart for readers that scope labels per stream.
                frame.statements = ScopedBlankNodes(frame.statements, f"m{index}_")
                index += 1
            yield frame, message

    def _frames(self) -> Iterator[tuple[TextFrame, bool]]:
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


_NAMED_IN_NT = ("the input has statements in named graphs, which N-Triples cannot hold; "
                "write N-Quads (.nq) instead")


class NQuadsSink:
    """Writes N-Triples (``nt``: a statement in a named graph is an error) or N-Quads.
    ``messages=True`` writes a ``# @message`` line before each frame; ``syntax="rdf12"``
    writes quoted triples as RDF 1.2 triple terms ``<<( s p o )>>``."""

    text = True

    def __init__(self, stream: BinaryWriter, source: Source, *, format: str = "nq",
                 messages: bool = False, flush_frames: bool = False, syntax: str | None = None,
                 **_: Any) -> None:
        self._out = NQuadsWriter(stream, syntax=syntax)
        self._text = source.text
        self._triples_only = format == "nt"
        self._messages = messages
        self._flush = flush_frames
        self.frames_written = 0
        self.statements_written = 0

    def write(self, frame: Frame | TextFrame, message: bool) -> None:
        out = self._out
        if self._messages:
            out.write_message()
        if self._text:
            # A frame of a Jelly source, decoded to text.
            frame = cast(Frame, frame)     # its statements are UTF-8 text (bytes)
            if self._triples_only and frame.named_graph_statements:
                raise JellyError(_NAMED_IN_NT)
            out.write_text(cast(bytes, frame.statements))
            self.statements_written += frame.statement_count
            self.frames_written += frame.frames         # more than one: a run decoded together
        else:
            n = 0
            for st in frame.statements:
                if self._triples_only and len(st) == 4 and _named(st[3]):
                    raise JellyError(_NAMED_IN_NT)
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
    star = transform if isinstance(transform, ToRdfStar) else None
    for frame, message in frames:
        if star is None and message:
            # A message's blank nodes are its own: each that uses a reifier needs its own
            # rdf:reifies statement, not one written in an earlier message.
            transform = ToRdf12()
        statements: Iterable[Any] = transform(frame.statements)
        if star is not None and message:    # a message's blank nodes are its own
            statements = itertools.chain(statements, _later(star.unused))
        yield TextFrame(statements, list(frame.namespaces), dict(frame.metadata or {})), message
    rest = star.unused() if star is not None else None
    if rest:        # reifiers no statement used: their rdf:reifies statements, as they were
        yield TextFrame(rest, [], {}), False


def _later(make: Callable[[], list[Any]]) -> Iterator[Any]:
    """``make()``'s items, made when the first is asked for (after the items before)."""
    yield from make()


def _named(g: object) -> bool:
    from ._terms import DefaultGraph
    return g is not None and type(g) is not DefaultGraph


# ------------------------------------------------------------------------- the pipeline

def _format(name_or_format: str | _formats.RdfFormat | None, path: object, role: str,
            kind: str) -> _formats.RdfFormat | None:
    """The format named, or that of the path's extension; None where neither says (an input
    is then sniffed, an output on stdout takes the default)."""
    if isinstance(name_or_format, _formats.RdfFormat):
        return name_or_format
    if name_or_format:
        return _formats.get(name_or_format, kind, role)
    if isinstance(path, (str, os.PathLike)) and os.fspath(path) != "-":
        fmt = _formats.for_path(path, kind)
        if fmt is None and role == "output":
            raise JellyError(f"cannot tell the format of {os.fspath(path)!r} from its name; "
                             f"name it with --to ({', '.join(_formats.names(kind))})")
        return fmt
    if role == "output" and not (isinstance(path, (str, os.PathLike))):
        raise JellyError("name the output format with to_format")
    return None


def _sniffed(head: bytes, source: object) -> _formats.RdfFormat:
    """The format of an input from its first bytes; empty input is an empty Jelly stream."""
    if not head:
        return _formats.JELLY
    fmt = _formats.sniff_content(head)
    if fmt is None:
        name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else "the input"
        what = _formats.looks_like(head)
        seems = f" (it looks like {what})" if what and what != "text" else ""
        raise JellyError(f"cannot tell the format of {name!r} from its name or its content"
                         f"{seems}; name it with --from ({', '.join(_formats.names())})")
    return fmt


def sniff_input(stream: BinaryReader, source: object
                ) -> tuple[_formats.RdfFormat, BinaryReader]:
    """The format of an open input from its first bytes, and the stream to read it from (the
    bytes looked at are not lost); ``source`` names it in the error of unknown content."""
    head, stream = peek(stream, HEAD_SIZE)
    return _sniffed(head, source), stream


def _check_output(out_fmt: _formats.RdfFormat, to_stdout: bool) -> None:
    if to_stdout and out_fmt.binary and sys.stdout.isatty():
        raise JellyError(f"not writing {out_fmt.label} (binary) to a terminal: redirect the "
                         f"output, or name a text format with --to (e.g. --to nq)")


def stdout_format(input_format: _formats.RdfFormat) -> _formats.RdfFormat:
    """The output format on stdout when none is named: N-Quads for Jelly input (what
    jelly-cli's from-jelly writes), Jelly for anything else."""
    if input_format in (_formats.JELLY, _formats.JELLY_TEXT):
        return _formats.NQUADS
    return _formats.JELLY


# ------------------------------------------------------------------ selecting and reshaping

@dataclasses.dataclass(frozen=True)
class FrameRange:
    """0-based frame indices, written as jelly-cli writes them (Rust ranges): ``"3"`` (frame
    3), ``"..3"`` (0 to 2), ``"3.."`` (3 on), ``"1..3"`` (1 and 2), ``"1..=3"`` (1 to 3)."""

    start: int = 0
    stop: int | None = None

    @classmethod
    def parse(cls, text: str, flag: str = "--take-frames") -> FrameRange:
        m = re.fullmatch(r"\s*(\d*)\.\.(=?)(\d*)\s*", text)
        if m and not (m[2] and not m[3]):
            start = int(m[1]) if m[1] else 0
            stop = int(m[3]) + (1 if m[2] else 0) if m[3] else None
            return cls(start, stop)
        if text.strip().isdigit():
            return cls(int(text), int(text) + 1)
        raise JellyError(f"{flag}: {text!r} is not a frame range; write 3 (one frame), ..3, 3.., "
                         f"1..3 or 1..=3 (0-based; the end is excluded unless it follows =)")

    def __contains__(self, index: object) -> bool:
        return isinstance(index, int) and index >= self.start and \
            (self.stop is None or index < self.stop)

    def select(self, frames: Iterable[tuple[Any, bool]]) -> Iterator[tuple[Any, bool]]:
        """The frames in the range.  Frames before it are still read (later frames may use
        their lookups), their namespace declarations carried into the first frame taken;
        nothing is read after it."""
        if self.stop is not None and self.stop <= self.start:
            return
        carried: list[tuple[str, Any]] = []
        for index, (frame, message) in enumerate(frames):
            if index < self.start:
                carried.extend(frame.namespaces)
                collections.deque(getattr(frame, "statements", ()), maxlen=0)
            else:
                if carried:
                    frame.namespaces[:0] = carried
                    carried = []
                yield frame, message
            if self.stop is not None and index + 1 >= self.stop:
                return


def _flat_logical(options: StreamOptions, physical: PhysicalStreamType) -> StreamOptions:
    from .transcode import _logical_for
    return options.replace(physical_type=physical,
                           logical_type=_logical_for(int(options.logical_type), physical))


class _Wrapped:
    """A source reading another (closing it closes that one); the same kind of frames unless
    a subclass says otherwise."""

    def __init__(self, source: Source) -> None:
        self._source = source
        self.text, self.quads, self.grouped = source.text, source.quads, source.grouped
        self.options = source.options

    def close(self) -> None:
        self._source.close()


class _Selected(_Wrapped):
    """A source with only the frames of a :class:`FrameRange` (``take_frames``)."""

    def __init__(self, source: Source, frames: FrameRange) -> None:
        super().__init__(source)
        self._range = frames

    def frames(self) -> Iterator[tuple[Any, bool]]:
        return self._range.select(self._source.frames())


class _GraphsMerged(_Wrapped):
    """A source with the graph of every statement dropped (``merge_graphs``)."""

    def __init__(self, source: Source) -> None:
        super().__init__(source)
        self.text = self.quads = False
        o = source.options
        self.options = None if o is None else _flat_logical(o, PhysicalStreamType.TRIPLES)

    def frames(self) -> Iterator[tuple[TextFrame, bool]]:
        for frame, message in self._source.frames():
            yield TextFrame((st[:3] for st in frame.statements), list(frame.namespaces),
                            dict(frame.metadata or {})), message


class _Combined(_Wrapped):
    """A source whose frames are merged into one graph or dataset (``combine``): one frame of
    the distinct statements in the order first seen, held in memory."""

    def __init__(self, source: Source) -> None:
        super().__init__(source)
        self.text = self.grouped = False
        o = source.options
        self.options = o if o is None or not is_grouped(int(o.logical_type)) else \
            o.replace(logical_type=1 if o.physical_type == PhysicalStreamType.TRIPLES else 2)

    def frames(self) -> Iterator[tuple[TextFrame, bool]]:
        from .compare import folded
        # a statement is kept as first seen; language tags that differ only by case are one
        # tag (RDF 1.2), as for validate --compare-to
        statements: dict[Any, Any] = {}
        namespaces: list[tuple[str, Any]] = []
        for frame, _ in self._source.frames():
            namespaces.extend(frame.namespaces)
            for st in frame.statements:
                statements.setdefault(folded(st), st)
        yield TextFrame(list(statements.values()), namespaces), False


def open_source(stream: BinaryReader, fmt: _formats.RdfFormat, *, text: bool = False,
                **options: Any) -> Source:
    """A source over an open binary stream (see the module docstring)."""
    source: Source = fmt.load_reader()(stream, text=text, format=fmt.name, **options)
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
            progress: Callable[[int], ContextManager[Callable[[int], object]]] | None = None,
            syntax: str | None = None, base: str | None = None, migrate: str | None = None,
            take_frames: str | FrameRange | None = None, combine: bool = False,
            merge_graphs: bool = False, segment_size: int | None = DEFAULT_SEGMENT_SIZE,
            jobs: int | None = 1, **writer_fields: Any) -> Result:
    """Convert ``source`` (path, ``"-"``, bytes or binary file) to ``destination`` (path,
    ``"-"`` or binary file).  Formats come from the names (``from_format`` / ``to_format``:
    a name or alias of :mod:`jelly.formats`) or from the file extensions; an input whose name
    does not tell is recognised by its first bytes (:func:`jelly.formats.sniff_content`), and
    stdout without a named format gets :func:`stdout_format`.  ``messages`` writes (or reads) an
    RDF message log, one message per frame.  Jelly output takes ``options`` (a base
    :class:`StreamOptions`), the fields of :func:`jelly.make_options`, ``rows_per_frame`` and
    ``delimited``.  A destination path is only replaced when the conversion succeeds.
    ``progress`` shows how far the conversion of a file has come: ``progress(size)`` (the
    file's size in bytes) gives a context manager whose value is called with the number of
    the file's bytes converted so far (of a compressed file: of its compressed bytes).

    ``take_frames`` (a :class:`FrameRange` or its text) converts only those frames of a Jelly
    input or RDF message log; ``combine`` merges all frames into one graph or dataset (in
    memory, duplicates dropped) written as one document (or a flat Jelly stream);
    ``merge_graphs`` drops the graph of every statement, so quads can be written as triples.
    Jelly to Jelly-Text and Jelly-Text to Jelly copy the frames as they are, unless writer
    options or one of these ask for re-encoding.

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
    if isinstance(take_frames, str):
        take_frames = FrameRange.parse(take_frames)
    if combine and messages:
        raise JellyError("combine and messages contradict each other: a combined output is "
                         "one graph or dataset, a message log one per frame")
    out_syntax = migrate or syntax
    if base is None and isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-":
        base = pathlib.Path(os.fspath(source)).resolve().as_uri()
    if jobs is not None and jobs < 1:
        raise JellyError(f"jobs must be at least 1, not {jobs}")
    if segment_size is not None and segment_size < 1:
        raise JellyError(f"segment_size must be at least 1 (None: no segments), not "
                         f"{segment_size}")
    to_stdout = is_stdio(destination)
    from . import parallel
    reshaped = bool(migrate or combine or merge_graphs)
    # A plain file converted as it is may be converted in parts (jelly.parallel).
    path = None if messages or reshaped or take_frames is not None \
        else parallel.splittable_path(source)
    if path is not None:
        if in_fmt is None:
            with open(path, "rb") as f:
                in_fmt = _sniffed(f.read(HEAD_SIZE), source)
        if jobs is None:
            jobs = parallel.auto_jobs(path, in_fmt.name)
    with contextlib.ExitStack() as stack:
        out = None
        update = None
        size = 0
        if progress is not None and isinstance(source, (str, os.PathLike)) \
                and not is_stdio(source):
            with contextlib.suppress(OSError):  # a missing file is reported where it is read
                size = os.path.getsize(source)
        if progress is not None and size > 0:
            update = stack.enter_context(progress(size))
        if path is not None and in_fmt is not None and (jobs or 1) > 1:
            out_fmt = out_fmt or stdout_format(in_fmt)
            _check_output(out_fmt, to_stdout)
            if parallel.parallel_formats(in_fmt.name, out_fmt.name):
                out = stack.enter_context(open_output(destination))
                done = parallel.convert_file(
                    path, out, in_fmt.name, out_fmt.name, jobs=jobs or 1, options=options,
                    fields=writer_fields, rows_per_frame=rows_per_frame, delimited=delimited,
                    segment_size=segment_size, syntax=out_syntax, limits=limits,
                    progress=update)
                if done is not None:
                    return Result(*done)
        stream = stack.enter_context(open_input(source, decompress=update is None))
        if update is not None:      # counted as read from the file, then decompressed
            stream = stack.enter_context(open_input(io.BufferedReader(
                CountedReader(cast(io.BufferedIOBase, stream), update), CHUNK_SIZE)))
        if in_fmt is None:
            in_fmt, stream = sniff_input(stream, source)
        if out_fmt is None:
            out_fmt = stdout_format(in_fmt)
        _check_output(out_fmt, to_stdout)
        if messages and not out_fmt.messages and in_fmt.messages is False:
            raise JellyError(f"{out_fmt.label} has no RDF message log form")
        raw = not (reshaped or options or any(v not in (None, False)
                                              for v in writer_fields.values())) \
            and (out_fmt, in_fmt) in _RAW_COPIES
        sink_cls = out_fmt.load_writer()
        src = open_source(stream, in_fmt, raw=raw,
                          text=getattr(sink_cls, "text", False) and not reshaped,
                          messages=messages, rows_per_frame=rows_per_frame, limits=limits,
                          syntax=syntax, base=base, text_syntax=out_syntax)
        stack.callback(src.close)
        if take_frames is not None and in_fmt not in (_formats.JELLY, _formats.JELLY_TEXT) \
                and not src.grouped:
            raise JellyError(f"frames can only be taken (--take-frames) from a Jelly stream or "
                             f"an RDF message log; this {in_fmt.label} input is neither")
        if take_frames is not None:
            src = _Selected(src, take_frames)
        if merge_graphs:
            src = _GraphsMerged(src)
        if combine:
            src = _Combined(src)
        if out is None:
            out = stack.enter_context(open_output(destination))
        if raw and out_fmt is _formats.JELLY:
            from .jellytext import RawJellySink
            sink: Sink = RawJellySink(out, delimited)
        else:
            sink = open_sink(out, out_fmt, src, messages=messages, options=options,
                             rows_per_frame=rows_per_frame, delimited=delimited,
                             flush_frames=to_stdout, syntax=out_syntax,
                             segment_size=segment_size, **writer_fields)
        frames: Iterable[tuple[Any, bool]] = src.frames()
        if migrate:
            frames = migrated(frames, migrate)
        write_frames(sink, frames)
        return Result(sink.statements_written, sink.frames_written)


def write_frames(sink: Sink, frames: Iterable[tuple[Any, bool]]) -> None:
    """Write ``(frame, is a message)`` pairs to ``sink`` and close it; on an error the sink is
    aborted, where it can be (a Jelly or Jena writer leaves a path as it was)."""
    try:
        for frame, message in frames:
            sink.write(frame, message)
        sink.close()
    except BaseException:
        abort = getattr(sink, "abort", None)
        if abort is not None:
            abort()
        raise


#: (output, input) format pairs converted by copying undecoded frames.
_RAW_COPIES = ((_formats.JELLY_TEXT, _formats.JELLY), (_formats.JELLY_TEXT, _formats.JELLY_TEXT),
               (_formats.JELLY, _formats.JELLY_TEXT))
