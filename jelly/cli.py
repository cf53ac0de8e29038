"""The ``jelly`` command: argparse over the conversion library and its friends.

Every rejected input or option ends the program with exit status 1 and one line on stderr
saying what and where; set ``JELLY_DEBUG=1`` to see tracebacks.  Commands of optional parts
(patch, gRPC) come from the modules in :data:`COMMAND_MODULES`, each with ``add_commands``.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import os
import re
import signal
import sys
from typing import Any, Callable, Iterator

from . import __version__, formats
from .convert import convert
from .errors import JellyEncodeError, JellyError, JellyOptionsError, amount
from .io import outputs_done, outputs_mark, watch_signals
from .options import LogicalStreamType, PRESETS
from .writer import DEFAULT_ROWS_PER_FRAME, DEFAULT_SEGMENT_SIZE

#: Modules that add subcommands (``add_commands(subparsers)``).
COMMAND_MODULES: tuple[str, ...] = ("jelly.transcode", "jelly.grpc.cli", "jelly.patch_cli")


class CliError(JellyError):
    """A bad command line (as opposed to bad input data)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CliError(message)

    def _print_message(self, message, file=None):
        # argparse drops a write that fails (`--help > /dev/full` exited 0): it fails as
        # every other output of the command does (main says why; a closed pipe is 141).
        if message:
            (file or sys.stderr).write(message)


# -- progress ------------------------------------------------------------------------------------

#: Seconds a conversion runs before its progress bar shows, and between two updates of it.
PROGRESS_DELAY = 1.0
PROGRESS_INTERVAL = 0.1


def _progress(path: str, quiet: bool) -> Any:
    """The ``progress`` of :func:`jelly.convert.convert` for ``jelly convert``: a bar on
    stderr of the input file's bytes converted, on a terminal only, not with --quiet, shown
    after :data:`PROGRESS_DELAY` seconds; None where it is not shown."""
    if quiet or path == "-" or not sys.stderr.isatty():
        return None

    @contextlib.contextmanager
    def bar(size: int) -> Iterator[Callable[[int], None]]:
        from tqdm import tqdm
        with tqdm(total=size, delay=PROGRESS_DELAY, leave=False, desc="jelly", unit="B",
                  unit_scale=True, unit_divisor=1024, file=sys.stderr,
                  mininterval=PROGRESS_INTERVAL, miniters=1) as shown:
            yield lambda done: shown.update(done - shown.n)
    return bar


# -- convert -------------------------------------------------------------------------------------

def _segment_size(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a number of statements, or 0 for no "
                                         f"segments, not {text!r}")
    return n


def segment_size_option(p: Any) -> None:
    """``--segment-size N`` of the commands that write Jelly (``convert``, ``transcode``)."""
    p.add_argument("--segment-size", type=_segment_size, default=DEFAULT_SEGMENT_SIZE,
                   metavar="N",
                   help=f"start a self-contained segment every N statements, so that readers can "
                        f"split the file (default {DEFAULT_SEGMENT_SIZE}; 0: no segments)")


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
    g.add_argument("--rdf-star", action="store_const", const=True,
                   help="allow RDF-star quoted triples")
    g.add_argument("--generalized", dest="generalized_statements", action="store_const",
                   const=True, help="allow generalized statements")
    g.add_argument("--single-frame", action="store_true",
                   help="write one non-delimited frame instead of a delimited stream")
    segment_size_option(g)
    j = p.add_argument_group("RDF Thrift / RDF Protobuf output options")
    j.add_argument("--values", action="store_true",
                   help="write canonical xsd:integer, xsd:decimal and xsd:double literals as "
                        "value forms (valInteger, valDecimal, valDouble)")
    j.add_argument("--prefix-names", action="store_true",
                   help="write IRIs in declared namespaces as prefixed names (as Jena's RDF "
                        "Thrift writer does)")


def _add_text_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("text formats (docs/rdf12.md)")
    g.add_argument("--syntax", choices=["rdf12", "rdf-star"],
                   help="quoted triples in text: strict W3C RDF 1.2 (triple terms <<( s p o )>>) "
                        "or RDF-star (<< s p o >>); default: N-Triples/N-Quads read both and "
                        "write RDF-star, Turtle/TriG are RDF 1.2")
    g.add_argument("--base", metavar="IRI",
                   help="base IRI for relative IRIs (default: the input file's location)")
    mig = g.add_mutually_exclusive_group()
    mig.add_argument("--to-rdf12", dest="migrate", action="store_const", const="rdf12",
                     help="rewrite RDF-star quoted subjects (and annotations) as RDF 1.2 "
                          "reifiers (rdf:reifies)")
    mig.add_argument("--to-rdf-star", dest="migrate", action="store_const", const="rdf-star",
                     help="rewrite RDF 1.2 blank-node reifiers as RDF-star quoted triples "
                          "(refused where that would lose information)")


def cmd_convert(args) -> int:
    if args.options_from and args.preset:
        raise JellyError("--options-from and --preset both give the table sizes: use one (the "
                         "table size flags change single sizes of either)")
    options = None
    if args.options_from:
        from .inspect import options_of     # names the file in its errors; takes Jelly-Text
        options = options_of(args.options_from)
    result = convert(
        args.input, args.output, from_format=args.from_format, to_format=args.to_format,
        messages=args.messages, options=options, rows_per_frame=args.rows_per_frame,
        delimited=not args.single_frame,
        progress=_progress(args.input, args.quiet), preset=args.preset,
        physical_type=args.physical_type, logical_type=args.logical_type,
        max_name_table_size=args.max_name_table_size,
        max_prefix_table_size=args.max_prefix_table_size,
        max_datatype_table_size=args.max_datatype_table_size, rdf_star=args.rdf_star,
        generalized_statements=args.generalized_statements, values=args.values,
        prefix_names=args.prefix_names, syntax=args.syntax, base=args.base,
        migrate=args.migrate, take_frames=args.take_frames, combine=args.combine,
        merge_graphs=args.merge_graphs, segment_size=args.segment_size or None, jobs=args.jobs)
    if args.verbose:
        print(f"{amount(result.statements, 'statement')}, {amount(result.frames, 'frame')}",
              file=sys.stderr)
    return 0


# -- inspect / validate --------------------------------------------------------------------------

def cmd_inspect(args) -> int:
    from .inspect import inspect, render
    report = inspect(args.file, per_frame=args.per_frame, format=args.from_format,
                     detail=args.detail, size=args.size)
    sys.stdout.write(render({"file": args.file, **report}, "json" if args.json else args.format,
                            args.file))
    return 0


def cmd_validate(args) -> int:
    from .inspect import validate
    result = validate(args.file, compare_to=args.compare_to, compare_format=args.compare_format,
                      ordered=args.ordered, frames=args.frames, options_file=args.options_file,
                      delimited={"auto": None, "yes": True, "no": False}[args.delimited])
    if not args.quiet:
        streams = f"{result.streams} concatenated streams, " if result.streams > 1 else \
            "empty input, " if not result.frames else ""
        compared = f", same as {args.compare_to}" + (" in order" if args.ordered else "") \
            if result.compared is not None else ""
        print(f"valid: {streams}{amount(result.frames, 'frame')}, "
              f"{amount(result.statements, 'statement')}{compared}")
    return 0


# -- entry point ---------------------------------------------------------------------------------

#: The commands this module defines; the others come from COMMAND_MODULES.
CORE_COMMANDS = ("convert", "inspect", "validate")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or (``command`` one of :data:`CORE_COMMANDS`) enough of it for
    that command: the modules of the other commands are then neither imported nor asked to
    add their parsers, nor, for ``convert``, :mod:`jelly.inspect` (a few milliseconds of
    every run of ``jelly convert``)."""
    parser = _Parser(prog="jelly", description="Convert, inspect and validate Jelly-RDF streams.")
    parser.add_argument("--version", action="version", version=f"jelly {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    names = ", ".join(formats.names())
    conv = sub.add_parser(
        "convert", help="convert between Jelly and other RDF formats",
        description="Convert between RDF formats: Jelly (.jelly), N-Triples / N-Quads (.nt, "
                    ".nq), Turtle (.ttl), TriG (.trig), RDF/XML (.rdf, .owl, .xml), JSON-LD "
                    "(.jsonld, .json; .ndjsonld for one document per line), N3 (.n3), Jena's "
                    "RDF Thrift (.rt, .trdf) and RDF Protobuf (.rpb), and Jelly-Text "
                    "(.jelly.txt, the protobuf text format of frames), any of them gzipped "
                    "(.gz) or zstd-compressed (.zst).  '-' is stdin / stdout.")
    conv.add_argument("input", nargs="?", help="input file (default: stdin)")
    conv.add_argument("output", nargs="?", help="output file (default: stdout)")
    conv.set_defaults(optional_positionals=("input", "output"))
    conv.add_argument("--from", dest="from_format", metavar="FORMAT",
                      help=f"input format ({names}); default: by the file name, else by the "
                           f"first bytes (Jelly, Jelly-Text, N-Triples, N-Quads, RDF Thrift, "
                           f"RDF Protobuf)")
    conv.add_argument("--to", dest="to_format", metavar="FORMAT",
                      help=f"output format ({names}); default: by the file name; on stdout "
                           f"N-Quads for Jelly input, else Jelly")
    conv.add_argument("--take-frames", metavar="RANGE",
                      help="only these frames of a Jelly input or messages of a message log: "
                           "3, ..3, 3.., 1..3, 1..=3 (0-based, end excluded unless after =)")
    conv.add_argument("--combine", action="store_true",
                      help="merge all frames into one graph or dataset (held in memory, "
                           "duplicates dropped), written as one document or a flat stream")
    conv.add_argument("--merge-graphs", action="store_true",
                      help="drop graph names: quads become triples in the default graph "
                           "(e.g. to write N-Triples or Turtle from quads)")
    conv.add_argument("--messages", action="store_true",
                      help="RDF message log: one '# @message' block per Jelly frame (N-Triples, "
                           "N-Quads, Turtle, TriG) or one JSON-LD document per line")
    conv.add_argument("-j", "--jobs", type=int, metavar="N",
                      help="worker processes for Jelly to N-Triples/N-Quads and back (default: "
                           "every core for a large file; 1: one process)")
    conv.add_argument("-v", "--verbose", action="store_true", help="print counts on stderr")
    conv.add_argument("-q", "--quiet", action="store_true",
                      help="no progress on stderr (shown for long conversions on a terminal)")
    _add_text_options(conv)
    _add_writer_options(conv)
    conv.set_defaults(func=cmd_convert)
    if command != "convert":    # jelly.inspect (and json) are not imported for a conversion
        _add_inspect_commands(sub)
    if command not in CORE_COMMANDS:
        for module in COMMAND_MODULES:
            importlib.import_module(module).add_commands(sub)
    return parser


def _add_inspect_commands(sub: Any) -> None:
    """``jelly inspect`` and ``jelly validate``."""
    from .inspect import DETAILS
    insp = sub.add_parser("inspect", help="show stream options and rows of each kind",
                          description="Stream options and rows of each kind, in total or per "
                                      "frame, counted or in bytes.")
    insp.add_argument("file", nargs="?", default="-", help="input file (default: stdin)")
    rows = insp.add_mutually_exclusive_group()
    rows.add_argument("--per-frame", action="store_true", help="a row per frame, then totals")
    rows.add_argument("--summary", action="store_false", dest="per_frame",
                      help="totals only (the default)")
    insp.add_argument("--detail", choices=DETAILS,
                      help="terms of statement rows by kind (node), position (term) or both")
    insp.add_argument("--size", action="store_true",
                      help="bytes on the wire instead of counts")
    insp.add_argument("--format", choices=["table", "yaml", "json"], default="table",
                      help="output format (default: table)")
    insp.add_argument("--json", action="store_true", help="the same as --format json")
    insp.add_argument("--from", dest="from_format", metavar="FORMAT",
                      help="format of the file (default: by its extension, else Jelly)")
    insp.set_defaults(func=cmd_inspect)
    val = sub.add_parser("validate", help="check a Jelly file strictly; exit status 0 or 1",
                         description="Check a Jelly stream strictly (concatenated streams one "
                                     "by one), optionally against expected options and "
                                     "reference data.")
    val.add_argument("file", nargs="?", default="-", help="input file (default: stdin)")
    val.add_argument("--compare-to", metavar="FILE",
                     help="the stream must hold the same statements as FILE (any format): "
                          "the same dataset, blank nodes renamed")
    val.add_argument("--compare-format", metavar="FORMAT",
                     help="format of --compare-to (default: by its name, else its content)")
    val.add_argument("--ordered", action="store_true",
                     help="with --compare-to: the same statements in the same order "
                          "(both files read side by side: memory stays small)")
    val.add_argument("--frames", metavar="RANGE",
                     help="with --compare-to: only these frames (3, ..3, 3.., 1..3, 1..=3)")
    val.add_argument("--options-file", metavar="FILE",
                     help="every stream must have exactly the options of this Jelly (or "
                          "Jelly-Text) file")
    val.add_argument("--delimited", choices=["auto", "yes", "no"], default="auto",
                     help="require a delimited stream (yes) or a single frame (no)")
    val.add_argument("-q", "--quiet", action="store_true")
    val.set_defaults(func=cmd_validate)


class _Terminated(BaseException):
    """SIGTERM (``kill``, ``timeout``, a service manager) or SIGHUP (the terminal or the SSH
    connection closed), raised where the program is, so that it unwinds as on Ctrl-C: no
    half-written output or temporary file is left behind."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: object) -> None:
    raise _Terminated(signum)


#: The signals that end a command as Ctrl-C does, with exit status 128 + the signal: kill
#: and a hang-up (commands that stop cleanly on Ctrl-C take these too: jelly.grpc.cli).
ENDING_SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None),
                                   getattr(signal, "SIGHUP", None)) if s is not None)


#: Option names of the API at the start of an error of options or of a writer: on the command
#: line, the flags that give them.
_OPTION_WORD = re.compile(r"^(rows_per_frame|max_(?:name|prefix|datatype)_table_size) (?=must)")


def flags_named(exc: JellyError) -> str:
    """The one line of ``exc`` for the command line: an error of options or of a writer
    names the flags that fix it (``--rows-per-frame must be at least 1``, ``give
    --generalized``), not the API's keywords, which the library's own messages keep."""
    message = str(exc)
    if isinstance(exc, (JellyOptionsError, JellyEncodeError)):
        message = _OPTION_WORD.sub(lambda m: "--" + m.group(1).replace("_", "-") + " ", message)
        message = message.replace("enable generalized_statements", "give --generalized") \
            .replace("statement_type='quads'", "--statement-type quads") \
            .replace("do not enable rdf_star", "do not enable RDF-star (give --rdf-star)")
    return message


def main(argv=None) -> int:
    argv = [os.fspath(a) for a in (sys.argv[1:] if argv is None else argv)]
    parser = build_parser(argv[0] if argv else None)
    mark = outputs_mark()
    previous = {}
    try:
        for s in ENDING_SIGNALS:
            previous[s] = signal.signal(s, _terminate)
    except ValueError:                  # not the main thread: leave signals alone
        pass
    try:
        try:
            args = _parse(parser, argv)
        except SystemExit as done:      # --help, --version: printed; run() flushes it
            return done.code if isinstance(done.code, int) else 0
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        with watch_signals():       # a signal stops a read that waits for input
            return args.func(args)
    except _Terminated as stop:
        # after the output was renamed into place the work is done (the exit status says
        # whether a file was replaced); a signal before that leaves everything as it was
        return 0 if outputs_done(mark) else 128 + stop.signum
    except JellyError as exc:
        _die(flags_named(exc))
        return 1
    except BrokenPipeError:
        # The reader of our output went away (e.g. `| head`): no message, and the status a
        # process that SIGPIPE ends has (as `cat` gives), so that `set -o pipefail` sees the
        # output was cut.  Point stdout at devnull so that the final flush does not complain.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE
    except KeyboardInterrupt:
        return 0 if outputs_done(mark) else 130
    except OSError as exc:
        _die(f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""))
        return 1
    except Exception as exc:  # a bug: still one line, but say so
        if os.environ.get("JELLY_DEBUG"):
            raise
        _die(f"internal error: {exc!r} (set JELLY_DEBUG=1 for a traceback)")
        return 2
    finally:
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)


#: The exit status when the reader of standard output went away: 128 + SIGPIPE.
BROKEN_PIPE = 128 + getattr(signal, "SIGPIPE", 13)


def run() -> None:
    """The ``jelly`` command: :func:`main`, then leave at once.  By then every output is written
    and closed; what the interpreter would still do is free every object, module by module,
    about 10 ms of every command (a seventh of a small conversion's time).  The exit handlers
    (``atexit``, ``weakref.finalize``, logging) still run, and standard output and error are
    flushed; where they cannot be run this way, the interpreter ends as usual."""
    code = main()
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_handlers is None:
        sys.exit(code)
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:         # the reader went away (see main)
            if stream is sys.stdout and not code:
                code = BROKEN_PIPE
        except (OSError, ValueError) as exc:
            if stream is sys.stdout and not code:
                _die(f"{getattr(exc, 'strerror', None) or exc}")
                code = 1
    os._exit(code)


def _parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """parse_args, except that optional positionals (``convert [IN] [OUT]``) may also come
    after options (``convert in.nt --jobs 2 out.jelly``): argparse fills consecutive
    positionals only, so the ones it left unset take the leftover arguments, in order; and a
    list of positionals (``transcode IN... OUT``, ``rest_positionals``) takes those after
    options too (``transcode a b --preset small out``)."""
    args, extra = parser.parse_known_args(argv)
    for dest in getattr(args, "optional_positionals", ()):
        if getattr(args, dest) is None:
            given = bool(extra) and (extra[0] == "-" or not extra[0].startswith("-"))
            setattr(args, dest, extra.pop(0) if given else "-")
    rest = getattr(args, "rest_positionals", None)
    if rest is not None and extra and all(a == "-" or not a.startswith("-") for a in extra):
        setattr(args, rest, getattr(args, rest) + extra)
        extra = []
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _die(message: str) -> None:
    print(f"jelly: error: {' '.join(message.split())}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
