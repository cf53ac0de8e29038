"""The ``jelly`` command: argparse over the conversion library and its friends.

Every rejected input or option ends the program with exit status 1 and one line on stderr
saying what and where; set ``JELLY_DEBUG=1`` to see tracebacks.  Commands of optional parts
(patch, gRPC) come from the modules in :data:`COMMAND_MODULES`, each with ``add_commands``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import sys

from . import __version__, formats
from .convert import convert
from .errors import JellyError
from .inspect import inspect, validate
from .options import LogicalStreamType, PRESETS
from .reader import read_options
from .writer import DEFAULT_ROWS_PER_FRAME, DEFAULT_SEGMENT_SIZE

#: Modules that add subcommands (``add_commands(subparsers)``).
COMMAND_MODULES: tuple[str, ...] = ("jelly.transcode", "jelly.grpc.cli")


class CliError(JellyError):
    """A bad command line (as opposed to bad input data)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CliError(message)


# -- progress ------------------------------------------------------------------------------------

@contextlib.contextmanager
def _progress(stream, path: str, quiet: bool, delay: float = 1.0):
    """Wraps the input stream so that reading it moves a progress bar on stderr (a terminal
    only, not with --quiet, shown after ``delay`` seconds)."""
    size = 0
    if not quiet and path != "-" and sys.stderr.isatty():
        with contextlib.suppress(OSError):
            size = os.path.getsize(path)
    if size <= 0:
        yield stream
        return
    from tqdm import tqdm
    with tqdm.wrapattr(stream, "read", total=size, delay=delay, leave=False, desc="jelly",
                       unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr,
                       mininterval=0) as wrapped:
        yield wrapped


# -- convert -------------------------------------------------------------------------------------

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
    g.add_argument("--segment-size", type=int, default=DEFAULT_SEGMENT_SIZE, metavar="N",
                   help=f"start a self-contained segment every N statements, so that readers can "
                        f"split the file (default {DEFAULT_SEGMENT_SIZE}; 0: no segments)")
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
    options = read_options(args.options_from) if args.options_from else None
    result = convert(
        args.input, args.output, from_format=args.from_format, to_format=args.to_format,
        messages=args.messages, options=options, rows_per_frame=args.rows_per_frame,
        delimited=not args.single_frame,
        progress=lambda stream: _progress(stream, args.input, args.quiet), preset=args.preset,
        physical_type=args.physical_type, logical_type=args.logical_type,
        max_name_table_size=args.max_name_table_size,
        max_prefix_table_size=args.max_prefix_table_size,
        max_datatype_table_size=args.max_datatype_table_size, rdf_star=args.rdf_star,
        generalized_statements=args.generalized_statements, values=args.values,
        prefix_names=args.prefix_names, syntax=args.syntax, base=args.base,
        migrate=args.migrate, segment_size=args.segment_size or None, jobs=args.jobs)
    if args.verbose:
        print(f"{result.statements} statements, {result.frames} frames", file=sys.stderr)
    return 0


# -- inspect / validate --------------------------------------------------------------------------

def cmd_inspect(args) -> int:
    report = inspect(args.file, per_frame=not args.summary, format=args.format)
    report = {"file": args.file, **report}
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
        return 0
    if report.get("format"):
        # A format without frames (RDF Thrift, RDF Protobuf): its rows by kind.
        print(f"file: {args.file} ({formats.get(report['format']).label})")
        for k, v in report["totals"].items():
            print(f"  {k}: {v}")
        return 0
    kind = "delimited" if report["delimited"] else "single frame"
    print(f"file: {args.file} ({kind}, {report['frames']} frames)")
    if report["options"] is not None:
        print("options:")
        for k, v in report["options"].items():
            print(f"  {k}: {v}")
    cols = ["frame", "bytes"] + [c for c in report["totals"] if c not in ("bytes", "metadata")] \
        + ["metadata"]
    widths = [max(len(c), 7) for c in cols]
    print("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    for rows in report.get("frame_rows", ()):
        print("  ".join(str(rows[c]).rjust(w) for c, w in zip(cols, widths)))
    totals = report["totals"]
    print("  ".join(str(totals.get(c, "total")).rjust(w) for c, w in zip(cols, widths)))
    return 0


def cmd_validate(args) -> int:
    result = validate(args.file)
    if not args.quiet:
        print(f"valid: {result.frames} frames, {result.statements} statements")
    return 0


# -- entry point ---------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="jelly", description="Convert, inspect and validate Jelly-RDF streams.")
    parser.add_argument("--version", action="version", version=f"jelly {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    names = ", ".join(formats.names())
    conv = sub.add_parser(
        "convert", help="convert between Jelly and other RDF formats",
        description="Convert between RDF formats: Jelly (.jelly), N-Triples / N-Quads (.nt, "
                    ".nq), Turtle (.ttl), TriG (.trig), RDF/XML (.rdf, .owl, .xml), JSON-LD "
                    "(.jsonld, .json; .ndjsonld for one document per line), N3 (.n3) and Jena's "
                    "RDF Thrift (.rt, .trdf) and RDF Protobuf (.rpb), any of them gzipped "
                    "(.gz).  '-' is stdin / stdout.")
    conv.add_argument("input")
    conv.add_argument("output")
    conv.add_argument("--from", dest="from_format", metavar="FORMAT",
                      help=f"input format ({names})")
    conv.add_argument("--to", dest="to_format", metavar="FORMAT",
                      help=f"output format ({names})")
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
    insp = sub.add_parser("inspect", help="show stream options and rows per frame")
    insp.add_argument("file")
    insp.add_argument("--json", action="store_true", help="machine-readable output")
    insp.add_argument("--summary", action="store_true", help="totals only, no per-frame rows")
    insp.add_argument("--format", metavar="FORMAT",
                      help="format of the file (default: by its extension, else Jelly)")
    insp.set_defaults(func=cmd_inspect)
    val = sub.add_parser("validate", help="check a Jelly file strictly; exit status 0 or 1")
    val.add_argument("file")
    val.add_argument("-q", "--quiet", action="store_true")
    val.set_defaults(func=cmd_validate)
    for module in COMMAND_MODULES:
        importlib.import_module(module).add_commands(sub)
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
        # The reader of our output went away (e.g. `| head`): not an error.  Point stdout at
        # devnull so that the interpreter's final flush does not complain.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
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
    print(f"jelly: error: {' '.join(message.split())}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
