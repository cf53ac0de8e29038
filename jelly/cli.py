"""The ``jelly`` command: convert, inspect and validate Jelly streams.

Every rejected input or option ends the program with exit status 1 and one line on stderr
saying what and where; set ``JELLY_DEBUG=1`` to see tracebacks.
"""

from __future__ import annotations

import argparse
import gzip
import io
import itertools
import json
import os
import re
import sys
from typing import Iterator

from . import __version__
from .errors import JellyError
from .options import LogicalStreamType, PhysicalStreamType, PRESETS, StreamOptions, is_grouped
from .reader import Reader, read_options
from .writer import DEFAULT_ROWS_PER_FRAME, Writer, make_options

#: Format names and the file suffixes that select them (each also with ``.gz``).
FORMATS = {
    "jelly": (".jelly", ".jelly.gz"),
    "nt": (".nt", ".nt.gz", ".ntriples"),
    "nq": (".nq", ".nq.gz", ".nquads"),
    "ttl": (".ttl", ".ttl.gz", ".turtle"),
    "trig": (".trig", ".trig.gz"),
    "xml": (".rdf", ".rdf.gz", ".owl", ".xml"),
    "jsonld": (".jsonld", ".jsonld.gz", ".json"),
    "ndjsonld": (".ndjsonld", ".ndjson", ".jsonl"),
    "n3": (".n3",),
}
_ALIASES = {"ntriples": "nt", "n-triples": "nt", "nquads": "nq", "n-quads": "nq",
            "jelly-rdf": "jelly", "turtle": "ttl", "rdfxml": "xml", "rdf/xml": "xml",
            "rdf": "xml", "owl": "xml", "json-ld": "jsonld", "json": "jsonld",
            "ndjson-ld": "ndjsonld", "ndjson": "ndjsonld", "jsonl": "ndjsonld",
            "notation3": "n3"}
#: Formats read and written through rdflib (the others have their own fast paths), with
#: rdflib's name for them and a human name.
RDFLIB_FORMATS = {
    "ttl": ("turtle", "Turtle"),
    "trig": ("trig", "TriG"),
    "xml": ("xml", "RDF/XML"),
    "jsonld": ("json-ld", "JSON-LD"),
    "ndjsonld": ("json-ld", "newline-delimited JSON-LD"),
    "n3": ("n3", "N3"),
}
#: rdflib formats that hold named graphs (read into an rdflib Dataset, written as QUADS).
DATASET_FORMATS = ("trig", "jsonld", "ndjsonld")
#: rdflib formats with an RDF message log form: '# @message' delimiters, or one JSON-LD
#: document per line (RDF Messages, section 2).
MESSAGE_FORMATS = ("ttl", "trig", "ndjsonld")


class CliError(JellyError):
    """A bad command line (as opposed to bad input data)."""


def _format_of(path: str, given: str | None, role: str) -> str:
    if given:
        name = _ALIASES.get(given.lower(), given.lower())
        if name not in FORMATS:
            raise CliError(f"unknown {role} format {given!r}; choose one of {', '.join(FORMATS)}")
        return name
    if path == "-":
        raise CliError(f"name the {role} format of '-' with "
                       f"--{'from' if role == 'input' else 'to'}")
    lower = path.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    for name, suffixes in FORMATS.items():
        if lower.endswith(tuple(x[:-3] if x.endswith(".gz") else x for x in suffixes)):
            return name
    raise CliError(f"cannot tell the format of {path!r} from its name; use "
                   f"--{'from' if role == 'input' else 'to'} ({', '.join(FORMATS)})")


def _open_in(path: str):
    if path == "-":
        return sys.stdin.buffer
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise CliError(f"cannot open {path!r}: {exc.strerror or exc}") from None
    return f


def _text_input(stream):
    """Transparently gunzip N-Triples input."""
    head = stream.peek(2)[:2] if hasattr(stream, "peek") else b""
    if head == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=stream, mode="rb")
    return stream


# -- convert -------------------------------------------------------------------------------------

def _writer_options(args, input_format: str, first_is_quad: bool, messages: bool) -> StreamOptions:
    base = None
    if args.options_from:
        src = read_options(args.options_from)
        base = src.replace(version=1)   # the writer decides the version from the features used
    physical = args.physical_type
    if base is None and physical is None:
        physical = "quads" if (input_format == "nq" or first_is_quad) else "triples"
    logical = args.logical_type
    if base is None and logical is None and messages:
        p = physical if isinstance(physical, str) else "triples"
        logical = "graphs" if p.lower() == "triples" else "datasets"
    return make_options(
        base, preset=None if base is not None else args.preset,
        physical_type=physical, logical_type=logical,
        max_name_table_size=args.max_name_table_size,
        max_prefix_table_size=args.max_prefix_table_size,
        max_datatype_table_size=args.max_datatype_table_size,
        rdf_star=True if args.rdf_star else None,
        generalized_statements=True if args.generalized else None)


def _convert_text_to_jelly(args, in_stream, in_fmt, out_target) -> tuple[int, "Writer"]:
    from ._ntriples import MESSAGE, parse_nquads
    items = parse_nquads(_text_input(in_stream), messages=True)
    # Read ahead up to one frame of statements: a '# @message' delimiter among them makes the
    # input a message log, which fixes the logical type before the options row is written.
    lookahead = max(1, args.rows_per_frame)
    head: list = []
    delimited = False      # did the look-ahead stop at a delimiter?
    for item in items:
        if item is MESSAGE:
            delimited = True
            break
        head.append(item)
        if len(head) >= lookahead:
            break
    messages = args.messages or delimited
    first_is_quad = bool(head) and len(head[0]) == 4
    options = _writer_options(args, in_fmt, first_is_quad, messages)
    with Writer(out_target, options, rows_per_frame=args.rows_per_frame,
                delimited=not args.single_frame) as writer:
        if not messages:
            writer.write_all(head)
            if not writer.write_until(items, MESSAGE):   # the C loop stops at a delimiter
                return writer.statements_written, writer
            # A delimiter after the look-ahead: from here on, one frame per message.
            writer.flush_frame()
            delimited, head = True, []
        # A message log: every message becomes one frame.  Statements before the first
        # delimiter form the first message; a log that starts with a delimiter does not start
        # with an empty message.  Each delimiter opens a message (a last one, too).
        if delimited:
            if head:
                writer.write_frame(head)
            head = []
        stopped = True
        while stopped:
            stopped = writer.write_frame_until(itertools.chain(head, items), MESSAGE)
            head = []
    return writer.statements_written, writer


def _convert_jelly_to_text(args, in_stream, out_fmt, out_stream) -> tuple[int, int]:
    # The decoder writes the lines itself (terms cached as N-Triples per lookup slot), so no
    # term objects are built; each frame becomes one write.
    statements = frames = 0
    to_nt = out_fmt == "nt"
    marker = "# @message\n" if args.messages else ""
    with Reader(in_stream, terms="nt", output="lines") as reader:
        for frame in reader.frames():
            if to_nt and frame.named_graph_statements:
                raise CliError(f"frame {frame.index} has statements in named graphs, which "
                               f"N-Triples cannot hold; write N-Quads (.nq) instead")
            out_stream.write((marker + "".join(frame.statements)).encode("utf-8"))
            statements += len(frame.statements)
            frames += 1
    out_stream.flush()
    return statements, frames


def _convert_jelly_to_jelly(args, in_stream, out_target) -> tuple[int, int]:
    statements = 0
    with Reader(in_stream) as reader:
        src = reader.options
        if src is None:
            raise CliError("the input holds no Jelly stream options")
        keep_frames = args.messages or is_grouped(int(src.logical_type))
        if args.options_from or any(v is not None for v in (
                args.physical_type, args.logical_type, args.max_name_table_size,
                args.max_prefix_table_size, args.max_datatype_table_size)) or args.rdf_star \
                or args.generalized or args.preset:
            options = _writer_options(args, "nq" if src.physical_type != 1 else "nt",
                                      False, keep_frames)
        else:
            options = src.replace(version=1)
        with Writer(out_target, options, rows_per_frame=args.rows_per_frame,
                    delimited=not args.single_frame, namespaces=None) as writer:
            for frame in reader.frames():
                for name, iri in frame.namespaces:
                    writer.declare_namespace(name, iri)
                if keep_frames:
                    writer.write_frame(frame.statements, frame.metadata or None)
                else:
                    writer.write_all(frame.statements)
                statements += len(frame.statements)
    return statements, writer.frames_written


def cmd_convert(args) -> int:
    in_fmt = _format_of(args.input, args.from_format, "input")
    out_fmt = _format_of(args.output, args.to_format, "output")
    if in_fmt != "jelly" and out_fmt != "jelly":
        raise CliError("one side of a conversion must be Jelly")
    in_stream = _open_in(args.input)
    created = None
    progress = _Progress.start(args, in_stream)
    try:
        if args.output == "-":
            out_stream = sys.stdout.buffer
            out_target = out_stream
        elif out_fmt == "jelly":
            out_target = args.output   # the writer gzips a .gz path
            created = args.output
            out_stream = None
        else:
            created = args.output
            out_stream = _open_out_text(args.output)
        if in_fmt == "jelly" and out_fmt == "jelly":
            n, frames = _convert_jelly_to_jelly(args, in_stream, out_target)
        elif in_fmt == "jelly":
            try:
                if out_fmt in RDFLIB_FORMATS:
                    n, frames = _convert_jelly_to_rdflib(args, in_stream, out_fmt, out_stream)
                else:
                    n, frames = _convert_jelly_to_text(args, in_stream, out_fmt, out_stream)
            finally:
                if args.output != "-":
                    out_stream.close()
        elif in_fmt in RDFLIB_FORMATS:
            n, writer = _convert_rdflib_to_jelly(args, in_stream, in_fmt, out_target)
            frames = writer.frames_written
        else:
            n, writer = _convert_text_to_jelly(args, in_stream, in_fmt, out_target)
            frames = writer.frames_written   # read after the writer closed: the last frame counts
        created = None
    finally:
        if progress is not None:
            progress.stop()
        if args.input != "-":
            in_stream.close()
        if created is not None:   # do not leave half a file behind
            try:
                os.unlink(created)
            except OSError:
                pass
    if args.verbose:
        print(f"{n} statements, {frames} frames", file=sys.stderr)
    return 0


# -- other RDF formats, through rdflib -------------------------------------------------------------

#: A line that delimits RDF messages in Turtle / TriG: a comment line whose text matches
#: /^\s*@message/ (the same test as the N-Triples reader's).
_DELIMITER = re.compile(rb"^\s*#\s*@message")


def _rdflib_format(fmt: str, messages: bool) -> str:
    """The format actually read or written: JSON-LD message logs are newline-delimited."""
    if messages and fmt == "jsonld":
        return "ndjsonld"
    return fmt


def _rdflib_error(exc: BaseException, action: str, fmt: str) -> CliError:
    message = str(exc) or type(exc).__name__
    return CliError(f"cannot {action} {RDFLIB_FORMATS[fmt][1]}: {message}")


def _parse_rdflib(data: bytes, fmt: str, prefixes: bytes = b""):
    """Parse one document (or message) with rdflib into a Graph, or a Dataset for formats with
    named graphs."""
    from rdflib import Dataset, Graph
    target = Dataset() if fmt in DATASET_FORMATS else Graph()
    try:
        target.parse(data=prefixes + data if prefixes else data,
                     format=RDFLIB_FORMATS[fmt][0])
    except JellyError:
        raise
    except Exception as exc:
        raise _rdflib_error(exc, "parse the input as", fmt) from None
    return target


def _prefix_lines(graph, fmt: str) -> bytes:
    """Turtle / TriG prefix declarations of a parsed message, to carry into the next ones."""
    from .rdflib.streams import _default_bindings
    defaults = _default_bindings()
    lines = [f"@prefix {p}: <{n}> .\n" for p, n in graph.namespaces()
             if (p, str(n)) not in defaults]
    return "".join(lines).encode("utf-8")


def _split_messages(stream):
    """(is_log, iterator of (is_head, message bytes)) for Turtle / TriG: the text is split at
    '# @message' lines, one message at a time; ``is_head`` marks the text before the first
    delimiter.  Without a delimiter the whole input is one document."""
    lines = iter(stream)
    head = []
    found = False
    for line in lines:
        if _DELIMITER.match(line):
            found = True
            break
        head.append(line)
    first = b"".join(head)

    def messages():
        if first.strip():
            yield True, first
        chunk = []
        for line in lines:
            if _DELIMITER.match(line):
                yield False, b"".join(chunk)
                chunk = []
            else:
                chunk.append(line)
        yield False, b"".join(chunk)

    if not found:
        return False, iter(((True, first),))
    return True, messages()


def _rdflib_messages(args, stream, fmt: str):
    """(is_log, iterator of rdflib graphs or datasets) of rdflib-format input."""
    stream = _text_input(stream)
    if fmt == "ndjsonld":
        def lines():
            for number, line in enumerate(stream, 1):
                if line.strip():
                    try:
                        yield _parse_rdflib(line, fmt)
                    except CliError as exc:
                        raise CliError(f"line {number}: {exc}") from None
        return True, lines()
    if fmt in MESSAGE_FORMATS:
        is_log, chunks = _split_messages(stream)
        if not is_log and not args.messages:
            return False, (_parse_rdflib(c, fmt) for _, c in chunks)

        def graphs():
            prefixes = b""
            for is_head, chunk in chunks:
                graph = _parse_rdflib(chunk, fmt, prefixes)
                prefixes = _prefix_lines(graph, fmt)
                if is_head and is_log and not _statement_count(graph):
                    continue    # only prefixes and comments before the first delimiter
                yield graph
        return True, graphs()
    if args.messages:
        raise CliError(f"{RDFLIB_FORMATS[fmt][1]} has no RDF message log form; use Turtle, "
                       f"TriG, N-Triples, N-Quads or JSON-LD (one document per line)")
    return False, iter((_parse_rdflib(stream.read(), fmt),))


def _statement_count(graph) -> int:
    from rdflib.graph import ConjunctiveGraph
    from .rdflib.streams import graphs
    if isinstance(graph, ConjunctiveGraph):
        return sum(len(c) for c in graphs(graph))
    return len(graph)


def _convert_rdflib_to_jelly(args, in_stream, in_fmt, out_target):
    from .rdflib.streams import _serialize, _serialize_grouped
    in_fmt = _rdflib_format(in_fmt, args.messages)
    is_log, graphs = _rdflib_messages(args, in_stream, in_fmt)
    options = _writer_options(args, "nq" if in_fmt in DATASET_FORMATS else "nt", False,
                              is_log or args.messages)
    kwargs = dict(options=options, rows_per_frame=args.rows_per_frame,
                  delimited=not args.single_frame)
    count = [0]

    def counted(items):
        for graph in items:
            count[0] += _statement_count(graph)
            yield graph

    if is_log or args.messages:
        writer = _serialize_grouped(counted(graphs), out_target, kwargs)
    else:
        graph = next(graphs)
        count[0] = _statement_count(graph)
        writer = _serialize(graph, out_target, kwargs)
    return count[0], writer


def _convert_jelly_to_rdflib(args, in_stream, out_fmt, out_stream) -> tuple[int, int]:
    from .rdflib.streams import _parse_graph, parse_grouped
    out_fmt = _rdflib_format(out_fmt, args.messages)
    messages = args.messages or out_fmt == "ndjsonld"
    if messages and out_fmt not in MESSAGE_FORMATS:
        raise CliError(f"{RDFLIB_FORMATS[out_fmt][1]} has no RDF message log form; use "
                       f"Turtle, TriG, N-Triples, N-Quads or JSON-LD (--to jsonld --messages)")
    statements = frames = 0
    if messages:
        for graph in parse_grouped(in_stream):
            if out_fmt != "ndjsonld":
                out_stream.write(b"# @message\n")
            _write_rdflib(graph, out_fmt, out_stream, frames)
            statements += _statement_count(graph)
            frames += 1
    else:
        graph, frames = _parse_graph(in_stream)
        _write_rdflib(graph, out_fmt, out_stream, None)
        statements = _statement_count(graph)
    return statements, frames


def _write_rdflib(graph, fmt: str, out_stream, frame) -> None:
    from rdflib.graph import ConjunctiveGraph, DATASET_DEFAULT_GRAPH_ID, Dataset
    from .rdflib.streams import default_graph, graphs
    name = RDFLIB_FORMATS[fmt][0]
    if not isinstance(graph, ConjunctiveGraph) and fmt in DATASET_FORMATS:
        ds = Dataset()     # a dataset format writes a Graph as the default graph
        default = default_graph(ds)
        for prefix, ns in graph.namespaces():
            ds.bind(prefix, ns, override=True, replace=True)
        default.addN((s, p, o, default) for s, p, o in graph)
        graph = ds
    if isinstance(graph, ConjunctiveGraph) and fmt not in DATASET_FORMATS:
        default_ids = {default_graph(graph).identifier, DATASET_DEFAULT_GRAPH_ID}
        for ctx in graphs(graph):
            if ctx.identifier not in default_ids and len(ctx):
                where = f" (frame {frame})" if frame is not None else ""
                raise CliError(f"the input has statements in a named graph{where}, which "
                               f"{RDFLIB_FORMATS[fmt][1]} cannot hold; write TriG (.trig), "
                               f"N-Quads (.nq) or JSON-LD (.jsonld) instead")
        graph = default_graph(graph)
    try:
        if fmt == "ndjsonld":
            text = graph.serialize(format=name, indent=None, encoding="utf-8")
            out_stream.write(text.replace(b"\n", b" ").strip() + b"\n")
        else:
            graph.serialize(destination=out_stream, format=name, encoding="utf-8")
    except JellyError:
        raise
    except Exception as exc:
        raise _rdflib_error(exc, "write the statements as", fmt) from None


# -- progress ------------------------------------------------------------------------------------

class _Progress:
    """How far a conversion has read its input file, on stderr, for long conversions: shown
    after ``delay`` seconds, refreshed every ``interval``, on a terminal only, not with
    --quiet.  A thread polls the file position (os.lseek), so no conversion path needs to
    report anything."""

    def __init__(self, fd: int, size: int, out, delay: float = 1.0, interval: float = 0.5):
        import threading
        import time
        self.fd = fd
        self.size = size
        self.out = out
        self.delay = delay
        self.interval = interval
        self.started = time.monotonic()
        self.shown = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="jelly-progress", daemon=True)
        self._thread.start()

    @classmethod
    def start(cls, args, in_stream) -> "_Progress | None":
        if getattr(args, "quiet", False) or args.input == "-":
            return None
        try:
            if not sys.stderr.isatty():
                return None
            fd = in_stream.fileno()
            size = os.fstat(fd).st_size
        except (AttributeError, OSError, ValueError):
            return None
        if size <= 0:
            return None
        return cls(fd, size, sys.stderr)

    def line(self) -> str:
        import time
        try:
            pos = os.lseek(self.fd, 0, os.SEEK_CUR)
        except OSError:
            pos = 0
        pct = min(100, pos * 100 // self.size)
        elapsed = time.monotonic() - self.started
        return f"jelly: {pct:3d}% of {_human(self.size)} read, {elapsed:.0f}s"

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        while True:
            try:
                self.out.write("\r" + self.line())
                self.out.flush()
                self.shown = True
            except (OSError, ValueError):
                return
            if self._stop.wait(self.interval):
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        if self.shown:
            try:
                self.out.write("\r" + " " * 60 + "\r")
                self.out.flush()
            except (OSError, ValueError):
                pass


def _human(size: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size} B"


def _open_out_text(path: str):
    try:
        raw = open(path, "wb")
    except OSError as exc:
        raise CliError(f"cannot write {path!r}: {exc.strerror or exc}") from None
    if path.lower().endswith(".gz"):
        return _GzipOwner(raw)
    return raw


class _GzipOwner(gzip.GzipFile):
    def __init__(self, raw):
        super().__init__(fileobj=raw, mode="wb", mtime=0)
        self._raw_owned = raw

    def close(self):
        try:
            super().close()
        finally:
            self._raw_owned.close()


# -- inspect / validate --------------------------------------------------------------------------

def _options_dict(o: StreamOptions) -> dict:
    lt = o.logical_type
    return {
        "stream_name": o.stream_name,
        "physical_type": PhysicalStreamType(o.physical_type).name,
        "logical_type": lt.name if isinstance(lt, LogicalStreamType) else int(lt),
        "generalized_statements": o.generalized_statements,
        "rdf_star": o.rdf_star,
        "max_name_table_size": o.max_name_table_size,
        "max_prefix_table_size": o.max_prefix_table_size,
        "max_datatype_table_size": o.max_datatype_table_size,
        "version": o.version,
    }


def cmd_inspect(args) -> int:
    from ._decoder import ROW_KINDS
    stream = _open_in(args.file)
    frames = []
    totals = dict.fromkeys(ROW_KINDS, 0)
    totals.update(bytes=0, metadata=0)
    try:
        with Reader(stream) as reader:
            for frame in reader.frames():
                rows = frame.rows
                for k, v in rows.items():
                    totals[k] += v
                totals["bytes"] += reader.last_frame_size
                totals["metadata"] += len(frame.metadata)
                if not args.summary:
                    rows.update(frame=frame.index, bytes=reader.last_frame_size,
                                metadata=len(frame.metadata))
                    frames.append(rows)
            options = reader.options
            delimited = reader.delimited
            count = reader.frame_count
    finally:
        if args.file != "-":
            stream.close()
    report = {
        "file": args.file,
        "delimited": delimited,
        "frames": count,
        "options": _options_dict(options) if options is not None else None,
        "totals": totals,
    }
    if not args.summary:
        report["frame_rows"] = frames
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
        return 0
    out = sys.stdout
    print(f"file: {args.file} ({'delimited' if delimited else 'single frame'}, {count} frames)",
          file=out)
    if options is not None:
        print("options:", file=out)
        for k, v in report["options"].items():
            print(f"  {k}: {v}", file=out)
    cols = ["frame", "bytes", *ROW_KINDS, "metadata"]
    widths = [max(len(c), 7) for c in cols]
    if not args.summary:
        print("  ".join(c.rjust(w) for c, w in zip(cols, widths)), file=out)
        for rows in frames:
            print("  ".join(str(rows[c]).rjust(w) for c, w in zip(cols, widths)), file=out)
    print("  ".join(str(totals.get(c, "total")).rjust(w) for c, w in zip(cols, widths)), file=out)
    return 0


def cmd_validate(args) -> int:
    stream = _open_in(args.file)
    statements = 0
    try:
        with Reader(stream, strict=True) as reader:
            for frame in reader.frames():
                statements += len(frame.statements)
            options = reader.options
            if options is None:
                raise JellyError("no stream options row: not a Jelly stream")
            if reader._decoder.in_graph_now:
                raise JellyError("the stream ends inside a graph (graph_end missing)")
            try:
                options.validate_for_writing()
            except JellyError as exc:
                raise JellyError(f"stream options: {exc}") from None
            frames = reader.frame_count
    finally:
        if args.file != "-":
            stream.close()
    if not args.quiet:
        print(f"valid: {frames} frames, {statements} statements")
    return 0


# -- entry point ---------------------------------------------------------------------------------

def _add_writer_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("Jelly output options")
    g.add_argument("--options-from", metavar="FILE.jelly",
                   help="copy physical/logical type, flags and table sizes from this Jelly file")
    g.add_argument("--preset", choices=sorted(PRESETS),
                   help="table sizes: small (128/16/16) or big (4000/150/32, the default)")
    g.add_argument("--physical-type", choices=["triples", "quads", "graphs"])
    g.add_argument("--logical-type", choices=[m.name.lower() for m in LogicalStreamType if m.value])
    g.add_argument("--max-name-table-size", type=int, metavar="N")
    g.add_argument("--max-prefix-table-size", type=int, metavar="N")
    g.add_argument("--max-datatype-table-size", type=int, metavar="N")
    g.add_argument("--rows-per-frame", type=int, default=DEFAULT_ROWS_PER_FRAME, metavar="N",
                   help=f"rows per frame of flat streams (default {DEFAULT_ROWS_PER_FRAME})")
    g.add_argument("--rdf-star", action="store_true", help="allow RDF-star quoted triples")
    g.add_argument("--generalized", action="store_true", help="allow generalized statements")
    g.add_argument("--single-frame", action="store_true",
                   help="write one non-delimited frame instead of a delimited stream")


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CliError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="jelly", description="Convert, inspect and validate Jelly-RDF streams.")
    parser.add_argument("--version", action="version", version=f"jelly {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    conv = sub.add_parser(
        "convert", help="convert between Jelly and other RDF formats",
        description="Convert between Jelly (.jelly, .jelly.gz) and N-Triples / N-Quads (.nt, .nq; "
                    "a fast path of their own) or, through rdflib, Turtle (.ttl), TriG (.trig), "
                    "RDF/XML (.rdf, .owl, .xml), JSON-LD (.jsonld, .json; .ndjsonld for one "
                    "document per line) and N3 (.n3).  Any of them may be gzipped (.gz).  "
                    "'-' is stdin / stdout.")
    conv.add_argument("input")
    conv.add_argument("output")
    conv.add_argument("--from", dest="from_format", metavar="FORMAT",
                      help=f"input format ({', '.join(FORMATS)})")
    conv.add_argument("--to", dest="to_format", metavar="FORMAT",
                      help=f"output format ({', '.join(FORMATS)})")
    conv.add_argument("--messages", action="store_true",
                      help="RDF message log: one '# @message' block per Jelly frame (N-Triples, "
                           "N-Quads, Turtle, TriG) or one JSON-LD document per line")
    conv.add_argument("-v", "--verbose", action="store_true", help="print counts on stderr")
    conv.add_argument("-q", "--quiet", action="store_true",
                      help="no progress on stderr (shown for long conversions on a terminal)")
    _add_writer_options(conv)
    conv.set_defaults(func=cmd_convert)
    insp = sub.add_parser("inspect", help="show stream options and rows per frame")
    insp.add_argument("file")
    insp.add_argument("--json", action="store_true", help="machine-readable output")
    insp.add_argument("--summary", action="store_true", help="totals only, no per-frame rows")
    insp.set_defaults(func=cmd_inspect)
    val = sub.add_parser("validate", help="check a Jelly file strictly; exit status 0 or 1")
    val.add_argument("file")
    val.add_argument("-q", "--quiet", action="store_true")
    val.set_defaults(func=cmd_validate)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    if argv is not None:
        argv = [os.fspath(a) for a in argv]
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        return args.func(args)
    except JellyError as exc:
        _die(str(exc))
        return 1
    except BrokenPipeError:
        try:   # the reader of our output went away (e.g. `| head`): not an error
            sys.stdout = None
        except Exception:
            pass
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        _die(f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""))
        return 1
    except Exception as exc:  # a bug: still one line, but say so
        if os.environ.get("JELLY_DEBUG"):
            raise
        _die(f"internal error: {exc!r} (set JELLY_DEBUG=1 for a traceback)")
        return 2


def _die(message: str) -> None:
    message = " ".join(message.split())
    print(f"jelly: error: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
