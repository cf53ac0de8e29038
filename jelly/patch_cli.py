"""``jelly patch``: RDF Patch on the command line, between RDF Patch text (``.rdfp``) and
Jelly-Patch (``.jellyp``, ``.jelly``, either gzipped), and against datasets.

* ``convert IN OUT`` - text <-> Jelly-Patch (or either to itself), with the Jelly-Patch writer's
  options;
* ``inspect FILE`` - options and operations per kind per frame (per patch for text);
* ``validate FILE`` - strict: transactions (no nesting, no commit or abort without a start, no
  patch ending inside one), headers before a patch's other operations, and the stream rules of
  Jelly-Patch (statement and stream types, punctuation, options);
* ``apply DATASET PATCH OUT`` - a dataset in any format ``jelly convert`` reads, changed by the
  patch (transactions: committed ones applied, aborted ones not), written in any format;
* ``diff A B OUT`` - the patch that turns dataset A into dataset B.

``-`` is stdin / stdout; an input patch's format comes from ``--from``, its extension or (for
stdin) its first bytes, an output's from ``--to`` or its extension (stdout: RDF Patch text).
Outputs are written atomically; errors are one line and exit status 1 (:mod:`jelly.cli`).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import stat
import sys
from typing import Any, Iterator

from . import formats
from ._patchops import Add, Delete, EndOfPatch, PatchOp, TxAbort, TxCommit
from .errors import JellyError, amount
from .io import is_stdio, open_input, peek
from .options import _preset_sizes
from .patchdata import OPERATION_NAMES, PatchChecker, _check_jelly_kind, apply_operations, \
    diff, read_dataset, statement_features, write_dataset

#: Columns of ``inspect``: operations by RDF Patch row code ("SEG": ends of patches).
OPERATION_COLUMNS = ("H", "TX", "TC", "TA", "PA", "PD", "A", "D", "SEG")
#: Jelly-Patch rows that are no operation, and the column ``inspect`` shows them in.
LOOKUP_COLUMNS = {"name": "names", "prefix": "prefixes", "datatype": "datatypes"}
_TABLE_SIZES = ("max_name_table_size", "max_prefix_table_size", "max_datatype_table_size")
_WRITER_FIELDS = ("stream_type", "statement_type", "preset", "max_name_table_size",
                  "max_prefix_table_size", "max_datatype_table_size", "rdf_star", "generalized")


# -------------------------------------------------------------------------- formats and I/O

def _input_format(name: str | None, path: str) -> formats.RdfFormat | None:
    """The patch format named or told by the extension; None: tell it by the content."""
    if name:
        return formats.get(name, formats.PATCH, "input")
    if is_stdio(path):
        return None
    fmt = formats.for_path(path, formats.PATCH)
    if fmt is None:
        raise JellyError(f"cannot tell the patch format of {path!r} from its name; name it with "
                         f"--from ({', '.join(formats.names(formats.PATCH))})")
    return fmt


def _output_format(name: str | None, path: str) -> formats.RdfFormat:
    if name:
        return formats.get(name, formats.PATCH, "output")
    if is_stdio(path):
        return formats.RDF_PATCH
    fmt = formats.for_path(path, formats.PATCH)
    if fmt is None:
        raise JellyError(f"cannot tell the patch format of {path!r} from its name; name it with "
                         f"--to ({', '.join(formats.names(formats.PATCH))})")
    return fmt


class _Input:
    """An open patch: ``fmt``, its operations (``ops``, consumed once), and for Jelly-Patch
    the reader (``options``, ``frames()``).  ``line``: for text opened with ``lines``, the
    line of the operation last handed out (None: the end of the input)."""

    def __init__(self, fmt: formats.RdfFormat, ops: Iterator[Any], reader: Any = None, *,
                 lined: bool = False):
        self.fmt = fmt
        self.ops: Iterator[PatchOp] = self._lined(ops) if lined else ops
        self.reader = reader
        self.line: int | None = None

    def _lined(self, pairs: Iterator[tuple[PatchOp, int | None]]) -> Iterator[PatchOp]:
        for op, self.line in pairs:
            yield op

    def at_line(self, exc: JellyError) -> JellyError:
        """An error of the patch's structure (:class:`PatchChecker`) at the line of the
        operation it names, for text read with ``lines`` (it named the operation only)."""
        if getattr(exc, "operation", None) is None or self.line is None or exc.line is not None:
            return exc
        return JellyError(exc.message, line=self.line)

    @property
    def binary(self) -> bool:
        return self.reader is not None


@contextlib.contextmanager
def _open_patch(path: str, name: str | None, syntax: str | None = None,
                strict: bool = False, lines: bool = False) -> Iterator[_Input]:
    from . import patch
    fmt = _input_format(name, path)
    with open_input(path) as stream:
        if fmt is formats.RDF_PATCH:
            # Named: nothing to tell from its first bytes, which a live feed may not have
            # sent yet (a peek waits for 64 bytes, more than a short patch).
            yield _text_input(stream, syntax, lines)
            return
        head, stream = peek(stream, 64)
        if fmt in (None, formats.JELLY_PATCH):
            _check_jelly_kind(head, path, patch=True)
        told = formats.sniff(head)
        if fmt is None:
            fmt = told if told is formats.JELLY_PATCH else formats.RDF_PATCH
        if fmt is formats.JELLY_PATCH:
            with patch.PatchReader(stream, strict=strict) as reader:
                yield _Input(fmt, iter(reader), reader)
        else:
            yield _text_input(stream, syntax, lines)


def _text_input(stream: Any, syntax: str | None, lines: bool) -> _Input:
    from ._rdfpatch import parse_rdfpatch
    return _Input(formats.RDF_PATCH, parse_rdfpatch(stream, syntax=syntax, lines=lines),
                  lined=lines)


def _add_writer_options(p: argparse.ArgumentParser, defaults: str) -> None:
    g = p.add_argument_group(f"Jelly-Patch output options ({defaults})")
    g.add_argument("--options-from", metavar="FILE",
                   help="copy every option from this Jelly-Patch file")
    g.add_argument("--stream-type", choices=["punctuated", "frame", "flat"],
                   help="patches end with punctuation rows (default), one per frame, or the "
                        "whole stream is one patch")
    g.add_argument("--statement-type", choices=["triples", "quads"],
                   help="default: quads from the first statement or namespace with a graph")
    g.add_argument("--preset", choices=["small", "big"],
                   help="table sizes: small (128/16/16) or big (4000/150/32, the default)")
    g.add_argument("--max-name-table-size", type=int, metavar="N")
    g.add_argument("--max-prefix-table-size", type=int, metavar="N")
    g.add_argument("--max-datatype-table-size", type=int, metavar="N")
    g.add_argument("--rows-per-frame", type=int, metavar="N",
                   help="rows per frame of flat and punctuated streams (default 1024)")
    g.add_argument("--rdf-star", action="store_const", const=True,
                   help="announce RDF-star quoted triples (needed when the first frame has none)")
    g.add_argument("--generalized", action="store_const", const=True,
                   help="allow generalized statements")
    g.add_argument("--single-frame", action="store_true",
                   help="write one non-delimited frame instead of a delimited stream")


def _writer_flags(args: argparse.Namespace) -> dict[str, Any]:
    flags = {k: getattr(args, k) for k in _WRITER_FIELDS if getattr(args, k) is not None}
    if args.rows_per_frame is not None:
        flags["rows_per_frame"] = args.rows_per_frame
    if args.single_frame:
        flags["delimited"] = False
    return flags


def _open_writer(path: str, fmt: formats.RdfFormat, args: argparse.Namespace,
                 source_options: Any = None, held: list[PatchOp] | None = None) -> Any:
    """A TextWriter or a PatchWriter to ``path``.  ``held``: all the operations, known before
    the options are written; a PatchWriter enables the RDF-star and generalized statements
    they need (by itself it looks at the first frame for RDF-star only)."""
    from . import patch, rdfpatch
    flags = _writer_flags(args)
    if fmt is formats.RDF_PATCH:
        if flags or args.options_from:
            raise JellyError("the Jelly-Patch output options do not apply to RDF Patch text "
                             "output")
        return rdfpatch.TextWriter(path, syntax=args.syntax)
    options = None
    if args.options_from:
        if any(k in flags for k in _WRITER_FIELDS):
            raise JellyError("--options-from cannot be combined with other option flags")
        with _naming(args.options_from, "in the options file "):
            options = patch.read_options(args.options_from)
    elif held is not None:
        star, generalized = statement_features(
            (op.s, op.p, op.o, op.g) for op in held if isinstance(op, (Add, Delete)))
        if star:
            flags.setdefault("rdf_star", True)
        if generalized:
            flags.setdefault("generalized", True)
    elif source_options is not None:
        # Each option not given keeps the input's; a preset is its three table sizes.
        options = source_options
        if "preset" in flags:
            sizes = _preset_sizes(flags.pop("preset"))
            for name, size in zip(_TABLE_SIZES, sizes):
                flags.setdefault(name, size)
    if options is not None:
        options = options.replace(version=patch.PATCH_PROTOCOL_VERSION)
    return patch.PatchWriter(path, options, **flags)


# ---------------------------------------------------------------------------------- convert

_PATCH_ENDS = (TxCommit, TxAbort, EndOfPatch)


def _live(path: str) -> bool:
    """Whether ``path`` is stdout read as it comes (a pipe, a socket, a terminal), not a
    regular file: a file gets the frames a path gets."""
    if not is_stdio(path):
        return False
    try:
        return not stat.S_ISREG(os.fstat(sys.stdout.fileno()).st_mode)
    except (OSError, ValueError, io.UnsupportedOperation):
        return True


def _flushed_at_patch_ends(ops: Iterator[PatchOp], writer: Any) -> Iterator[PatchOp]:
    """``ops``, the writer's output flushed once the writer has taken the end of a patch
    (TC, TA, END_OF_PATCH): a live feed of patches goes on patch by patch, not when 64 KiB
    of output have gathered."""
    from . import rdfpatch
    for op in ops:
        yield op
        if isinstance(op, _PATCH_ENDS):
            if isinstance(writer, rdfpatch.TextWriter):
                writer.flush()
            else:
                if writer.stream_type != "frame":   # a FRAME stream's frame ends with its patch
                    writer.flush()
                writer._stream.flush()


def cmd_convert(args: argparse.Namespace) -> int:
    out_fmt = _output_format(args.to_format, args.output)
    with _open_patch(args.input, args.from_format, args.syntax) as src:
        options = src.reader.options if src.binary else None
        with _open_writer(args.output, out_fmt, args, options) as writer:
            ops = src.ops
            writer.write_all(_flushed_at_patch_ends(ops, writer) if _live(args.output)
                             else ops)
    if args.verbose:
        print(amount(writer.operations_written, "operation"), file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------------- inspect

def _count(counts: dict[str, int], ops: list[PatchOp]) -> None:
    for op in ops:
        counts[OPERATION_NAMES[type(op)]] += 1


def _patch_row(rows: list[dict[str, Any]], totals: dict[str, int], counts: dict[str, int],
               index: int, per_frame: bool) -> int:
    """Count one patch of a text patch in; the index of the next."""
    for k in totals:
        totals[k] += counts[k]
    if per_frame:
        rows.append({"patch": index, **counts})
    return index + 1


def _inspect(src: _Input, per_frame: bool) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    totals = dict.fromkeys(OPERATION_COLUMNS, 0)
    counts = dict.fromkeys(OPERATION_COLUMNS, 0)
    if src.binary:
        reader = src.reader
        options = reader.options
        totals.update(dict.fromkeys(LOOKUP_COLUMNS.values(), 0))
        # In the pieces the reader decodes: a large frame is never held whole.
        for piece in reader._pieces():
            if isinstance(piece, list):
                _count(counts, piece)
                continue
            _count(counts, piece.operations)
            row: dict[str, Any] = {"frame": piece.index, **counts}
            kinds = piece.rows
            for kind, column in LOOKUP_COLUMNS.items():
                row[column] = kinds[kind]
            for k in totals:
                totals[k] += row[k]
            if per_frame:
                rows.append(row)
            counts = dict.fromkeys(OPERATION_COLUMNS, 0)
        for k in OPERATION_COLUMNS:     # what the end of the stream ends (a FLAT stream's
            totals[k] += counts[k]      # patch): no frame's
        report: dict[str, Any] = {
            "format": src.fmt.name, "delimited": reader.delimited,
            "options": None if options is None else {
                "statement_type": options.statement_type, "stream_type": options.stream_type,
                "generalized_statements": options.generalized_statements,
                "rdf_star": options.rdf_star, "max_name_table_size": options.max_name_table_size,
                "max_prefix_table_size": options.max_prefix_table_size,
                "max_datatype_table_size": options.max_datatype_table_size,
                "version": options.version},
            "frames": reader.frame_count, "patches": totals["SEG"]}
        if per_frame:
            report["frame_rows"] = rows
    else:
        # Text has no frames: the same table per patch.
        index = 0
        for op in src.ops:
            name = OPERATION_NAMES[type(op)]
            counts[name] += 1
            if name == "SEG":
                index = _patch_row(rows, totals, counts, index, per_frame)
                counts = dict.fromkeys(OPERATION_COLUMNS, 0)
        if any(counts.values()):
            index = _patch_row(rows, totals, counts, index, per_frame)
        report = {"format": src.fmt.name, "patches": index}
        if per_frame:
            report["patch_rows"] = rows
    report["totals"] = totals
    return report


def cmd_inspect(args: argparse.Namespace) -> int:
    with _open_patch(args.file, args.from_format, args.syntax) as src:
        report = {"file": args.file, **_inspect(src, not args.summary)}
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
        return 0
    fmt = formats.get(report["format"])
    if "delimited" in report:
        kind = "delimited" if report["delimited"] else "single frame"
        print(f"file: {args.file} ({fmt.label}, {kind}, {amount(report['frames'], 'frame')}, "
              f"{amount(report['patches'], 'patch')})")
        if report["options"] is not None:
            print("options:")
            for k, v in report["options"].items():
                print(f"  {k}: {v}")
        first, table = "frame", report.get("frame_rows", ())
    else:
        print(f"file: {args.file} ({fmt.label}, {amount(report['patches'], 'patch')})")
        first, table = "patch", report.get("patch_rows", ())
    cols = [first, *report["totals"]]
    widths = [max(len(c), 6) for c in cols]
    print("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    for row in table:
        print("  ".join(str(row[c]).rjust(w) for c, w in zip(cols, widths)))
    totals = {first: "total", **report["totals"]}
    print("  ".join(str(totals[c]).rjust(w) for c, w in zip(cols, widths)))
    return 0


# --------------------------------------------------------------------------------- validate

def cmd_validate(args: argparse.Namespace) -> int:
    checker = PatchChecker(headers=True)
    with _open_patch(args.file, args.from_format, args.syntax, strict=True, lines=True) as src:
        if src.binary:
            reader = src.reader
            for piece in reader._pieces():
                try:
                    for op in piece if isinstance(piece, list) else piece.operations:
                        checker.check(op)
                except JellyError as exc:
                    # The frame being decoded (a frame's last piece has moved the count on).
                    index = reader.frame_count - (not isinstance(piece, list))
                    raise JellyError(exc.message, frame=index) from None
        else:
            try:
                for op in src.ops:
                    checker.check(op)
            except JellyError as exc:
                raise src.at_line(exc) from None
        checker.finish()
        what = f"{src.fmt.label}"
    if not args.quiet:
        print(f"valid {what}: {amount(checker.patches, 'patch')}, "
              f"{amount(checker.operations - checker.ends, 'operation')}")
    return 0


# ------------------------------------------------------------------------------ apply, diff

@contextlib.contextmanager
def _naming(source: object, role: str = "") -> Iterator[None]:
    """Errors of reading ``source`` (one of a command's inputs) say which it is."""
    try:
        yield
    except JellyError as exc:
        name = ("stdin" if source == "-" else repr(os.fspath(source))) \
            if isinstance(source, (str, os.PathLike)) else "the input"
        if name not in exc.message:         # some errors name it already
            exc.name_source(role + name)
        raise


def cmd_apply(args: argparse.Namespace) -> int:
    with _naming(args.dataset):
        data = read_dataset(args.dataset, format=args.from_format, syntax=args.syntax,
                            base=args.base)
    with _naming(args.patch), \
            _open_patch(args.patch, args.patch_format, args.syntax, lines=True) as src:
        try:
            result = apply_operations(src.ops, data)
        except JellyError as exc:
            raise src.at_line(exc) from None
    write_dataset(data, args.output, format=args.to_format, syntax=args.syntax)
    if args.verbose:
        print(f"{result.added} added, {result.deleted} deleted, "
              f"{amount(result.committed, 'transaction')} committed, {result.aborted} aborted; "
              f"{amount(len(data), 'statement')}", file=sys.stderr)
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    out_fmt = _output_format(args.to_format, args.output)
    with _naming(args.first):
        a = read_dataset(args.first, format=args.from_format, syntax=args.syntax,
                         base=args.base)
    with _naming(args.second):
        b = read_dataset(args.second, format=args.from_format, syntax=args.syntax,
                         base=args.base)
    ops = diff(a, b, transaction=not args.no_transaction)
    with _open_writer(args.output, out_fmt, args, held=ops) as writer:
        writer.write_all(ops)
    if args.verbose:
        print(amount(len(ops), "operation"), file=sys.stderr)
    return 0


# ------------------------------------------------------------------------------ the parser

def _syntax_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--syntax", choices=["rdf12", "rdf-star"],
                   help="quoted triples in text: strict RDF 1.2 (<<( s p o )>>) or RDF-star "
                        "(<< s p o >>); default: read both, write RDF-star")


def _patch_file(p: argparse.ArgumentParser, from_help: str) -> None:
    p.add_argument("file", help="the patch ('-': stdin)")
    p.add_argument("--from", dest="from_format", metavar="FORMAT", help=from_help)
    _syntax_option(p)


def add_commands(subparsers: Any) -> None:
    """``jelly patch convert | inspect | validate | apply | diff``."""
    patch_names = ", ".join(formats.names(formats.PATCH))
    rdf_names = ", ".join(formats.names(formats.RDF))
    from_help = (f"format of the patch ({patch_names}; default: by its extension, for stdin "
                 f"by its first bytes)")
    to_help = f"format of the patch ({patch_names}; default: by its extension, stdout: rdfp)"
    top = subparsers.add_parser(
        "patch", help="RDF Patch: convert text and Jelly-Patch, inspect, validate, apply, diff",
        description="RDF Patch (change sets of RDF datasets) as text (.rdfp) and as Jelly-Patch "
                    "(.jellyp, .jelly; .gz compressed).  '-' is stdin / stdout.")
    top.set_defaults(func=lambda args: (top.print_help(sys.stderr), 2)[1])
    sub = top.add_subparsers(dest="patch_command", metavar="SUBCOMMAND")

    p = sub.add_parser("convert", help="convert between RDF Patch text and Jelly-Patch",
                       description="Convert a patch between RDF Patch text and Jelly-Patch (or "
                                   "re-encode either).  Jelly-Patch to Jelly-Patch keeps "
                                   "each of the input's options that is not given.")
    p.add_argument("input", help="the patch ('-': stdin)")
    p.add_argument("output", help="the converted patch ('-': stdout)")
    p.add_argument("--from", dest="from_format", metavar="FORMAT", help=from_help)
    p.add_argument("--to", dest="to_format", metavar="FORMAT", help=to_help)
    p.add_argument("-v", "--verbose", action="store_true", help="print counts on stderr")
    _syntax_option(p)
    _add_writer_options(p, "default: the input's, if Jelly-Patch")
    p.set_defaults(func=cmd_convert)

    p = sub.add_parser("inspect", help="show options and operations per kind per frame",
                       description="Show a patch's options and its operations per kind per "
                                   "frame (Jelly-Patch; with its lookup rows) or per patch "
                                   "(text).")
    _patch_file(p, from_help)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--summary", action="store_true", help="totals only")
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("validate", help="check a patch strictly; exit status 0 or 1",
                       description="Check a patch strictly: transactions pair up (no nesting, "
                                   "no TC or TA without TX, no patch ending inside one), "
                                   "headers come before a patch's other operations, and a "
                                   "Jelly-Patch stream keeps its stream and statement types' "
                                   "rules and its options.")
    _patch_file(p, from_help)
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("apply", help="apply a patch to a dataset",
                       description="Apply a patch to a dataset (read whole into memory) and "
                                   "write the result.  Transactions: a committed one is applied "
                                   "whole, an aborted one not at all.  Blank nodes are matched "
                                   "by label; namespace operations change the dataset's "
                                   "prefixes (their graph is ignored).")
    p.add_argument("dataset", help=f"the dataset ({rdf_names})")
    p.add_argument("patch", help=f"the patch ({patch_names})")
    p.add_argument("output", help="the changed dataset ('-': stdout, N-Quads unless --to "
                                  "says)")
    p.add_argument("--from", dest="from_format", metavar="FORMAT",
                   help="format of the dataset (default: by its extension)")
    p.add_argument("--to", dest="to_format", metavar="FORMAT",
                   help="format of the output (default: by its extension)")
    p.add_argument("--patch-format", metavar="FORMAT", help=from_help)
    p.add_argument("--base", metavar="IRI", help="base IRI of relative IRIs in the dataset")
    p.add_argument("-v", "--verbose", action="store_true", help="print counts on stderr")
    _syntax_option(p)
    p.set_defaults(func=cmd_apply)

    p = sub.add_parser("diff", help="the patch that turns dataset A into dataset B",
                       description="Write the patch that turns dataset A into dataset B (both "
                                   "read whole into memory): namespaces and statements deleted, "
                                   "then added, in one transaction.  Blank nodes are compared "
                                   "by label.")
    p.add_argument("first", metavar="A", help=f"the dataset to start from ({rdf_names})")
    p.add_argument("second", metavar="B", help="the dataset to reach")
    p.add_argument("output", help=f"the patch ({patch_names}; '-': RDF Patch text)")
    p.add_argument("--from", dest="from_format", metavar="FORMAT",
                   help="format of A and B (default: by their extensions)")
    p.add_argument("--to", dest="to_format", metavar="FORMAT", help=to_help)
    p.add_argument("--no-transaction", action="store_true",
                   help="no TX ... TC around the changes")
    p.add_argument("--base", metavar="IRI", help="base IRI of relative IRIs in A and B")
    p.add_argument("-v", "--verbose", action="store_true", help="print counts on stderr")
    _syntax_option(p)
    _add_writer_options(p, "RDF-star and generalized statements are enabled when the patch "
                           "holds them")
    p.set_defaults(func=cmd_diff)
