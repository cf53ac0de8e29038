"""Transcoding Jelly streams: frames re-encoded with other options, several streams merged
into one, without building RDF terms (the core's :class:`jelly._transcode.Transcoder`).

:func:`transcode` is what ``jelly transcode IN... OUT`` runs; :func:`output_options` says what
options an output gets from the first input's and the fields given.  Each input frame gives one
output frame, with the input's metadata; lookup entries are written when the output first
needs them, so an output may have smaller tables than its inputs.  Output options that cannot
hold an input (RDF-star or generalized statements it does not enable, named graphs in a TRIPLES
stream, typed literals without a datatype table) are refused with :class:`JellyOptionsError`
when that input starts.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Sequence

from . import formats
from ._transcode import Transcoder
from .errors import JellyError
from .io import FrameReader, not_jelly, open_input, open_output
from .options import (PRESETS, LogicalStreamType, PhysicalStreamType, ReaderLimits,
                      StreamOptions, make_options)
from .writer import DEFAULT_SEGMENT_SIZE

if TYPE_CHECKING:
    from .convert import Result
    from .io import Input, Output

__all__ = ["Transcoder", "output_options", "transcode"]

#: Fields of :func:`jelly.make_options` that :func:`output_options` takes.
OPTION_FIELDS = ("preset", "physical_type", "logical_type", "max_name_table_size",
                 "max_prefix_table_size", "max_datatype_table_size", "rdf_star",
                 "generalized_statements", "stream_name", "version")

def _logical_for(logical: int, physical: PhysicalStreamType) -> int:
    """The logical type an input's ``logical`` becomes in an output of type ``physical``:
    kept when it fits, else its counterpart (flat triples and flat quads, graphs and
    datasets)."""
    mapping = {2: 1, 4: 3} if physical == PhysicalStreamType.TRIPLES else {1: 2, 3: 4}
    return mapping.get(int(logical) % 10, int(logical))


def output_options(input: StreamOptions, **fields: Any) -> StreamOptions:
    """Output options from an input stream's ``input`` and the fields of
    :func:`jelly.make_options` (``preset`` sets the table sizes; ``None`` values are not
    given).  What is not given stays the input's; a new physical type without a logical type
    maps the logical type to its counterpart (flat triples to flat quads, graphs to datasets);
    the version stays automatic (the input's)."""
    fields = {k: v for k, v in fields.items() if v is not None}
    unknown = set(fields) - set(OPTION_FIELDS)
    if unknown:
        raise TypeError(f"unknown option fields: {', '.join(sorted(unknown))}")
    base = input.replace(version=None)
    preset = fields.pop("preset", None)
    if preset is not None:
        sizes = make_options(preset=preset)
        base = base.replace(max_name_table_size=sizes.max_name_table_size,
                            max_prefix_table_size=sizes.max_prefix_table_size,
                            max_datatype_table_size=sizes.max_datatype_table_size)
    if "physical_type" in fields and "logical_type" not in fields:
        physical = make_options(base, physical_type=fields["physical_type"],
                                logical_type=0).physical_type
        if physical != base.physical_type:
            base = base.replace(physical_type=physical,
                                logical_type=_logical_for(int(base.logical_type), physical))
    return make_options(base, **fields)


def _check_fields(fields: dict[str, Any]) -> None:
    """Refuse option fields that no input could make right (a table too small, a logical type
    that does not fit the physical type given), before any input is read: an error that is
    the caller's has no input position, and is not missed when the input is empty.  Fields
    that depend on the input (a logical type without a physical type) wait for it."""
    error: JellyError | None = None
    for physical in ("triples", "quads"):
        try:
            output_options(make_options(physical_type=physical), **fields)
            return
        except JellyError as exc:
            error = error or exc
    assert error is not None
    raise error


def transcode(inputs: Input | Sequence[Input], output: Output,
              options: StreamOptions | None = None, *, limits: ReaderLimits | None = None,
              segment_size: int | None = DEFAULT_SEGMENT_SIZE, **fields: Any) -> Result:
    """Transcode the Jelly stream(s) ``inputs`` (paths, ``"-"``, bytes or binary files; one or
    a list, merged in order) into one delimited Jelly stream at ``output``.  Output options are
    ``options`` if given, else the first input's with ``fields`` (see :func:`output_options`).
    The output is segmented as ``jelly convert`` writes it (``segment_size`` statements, None:
    no segments), so that it can be read in parts.  The output path is only replaced when
    everything succeeded; empty inputs give an empty output."""
    from .convert import Result

    if isinstance(inputs, (str, os.PathLike, bytes, bytearray, memoryview)) or \
            hasattr(inputs, "read"):
        inputs = [inputs]
    inputs = list(inputs)
    if not inputs:
        raise JellyError("nothing to transcode: no input")
    fields = {k: v for k, v in fields.items() if v is not None}     # None: not given
    if options is not None and fields:
        raise JellyError(f"give either options or option fields, not both (options "
                         f"(--options-from) with {', '.join(sorted(fields))})")
    chosen: StreamOptions | Callable[[StreamOptions], StreamOptions] | None = options
    if options is None and fields:
        _check_fields(fields)
        chosen = lambda first: output_options(first, **fields)  # noqa: E731
    limits = limits if limits is not None else ReaderLimits()
    transcoder = Transcoder(chosen, limits=limits, segment_size=segment_size)
    with open_output(output) as out:
        for source in inputs:
            transcoder.next_input()
            try:
                with open_input(source) as stream:
                    reader = FrameReader(stream, limits)
                    first = True
                    for offset, frame in reader:
                        try:
                            out.write(transcoder.transcode_frame(frame, offset, True))
                        except JellyError as exc:
                            if first:       # an input that is not Jelly says what it is
                                raise not_jelly(reader.head, exc) from None
                            raise
                        first = False
            except JellyError as exc:
                if len(inputs) > 1 and isinstance(source, (str, os.PathLike)):
                    exc.name_source(os.fspath(source))
                raise
    # Empty input is an empty stream (docs/user-guide.md): the output is empty too.
    return Result(transcoder.statements, transcoder.frames)


# -- command line ---------------------------------------------------------------------------

def add_commands(subparsers: Any) -> None:
    """``jelly transcode``."""
    from .cli import segment_size_option
    p = subparsers.add_parser(
        "transcode", help="re-encode Jelly streams with other options, or merge them",
        description="Re-encode Jelly streams frame by frame with other stream options, or merge "
                    "several into one, without building RDF terms.  Options not given are the "
                    "first input's.  '-' is stdin / stdout.")
    p.add_argument("files", nargs="+", metavar="IN... OUT",
                   help="input Jelly files (merged in order), then the output file")
    p.set_defaults(rest_positionals="files")
    g = p.add_argument_group("output options (default: the first input's)")
    g.add_argument("--options-from", metavar="FILE.jelly",
                   help="copy every stream option from this Jelly file")
    g.add_argument("--preset", choices=sorted(PRESETS), help="table sizes")
    g.add_argument("--physical-type", choices=["triples", "quads", "graphs"])
    g.add_argument("--logical-type",
                   choices=[m.name.lower() for m in LogicalStreamType if m.value])
    g.add_argument("--max-name-table-size", type=int, metavar="N")
    g.add_argument("--max-prefix-table-size", type=int, metavar="N")
    g.add_argument("--max-datatype-table-size", type=int, metavar="N")
    g.add_argument("--rdf-star", action="store_const", const=True,
                   help="allow RDF-star quoted triples")
    g.add_argument("--generalized", dest="generalized_statements", action="store_const",
                   const=True, help="allow generalized statements")
    g.add_argument("--stream-name", metavar="NAME")
    g.add_argument("--protocol-version", dest="version", type=int, choices=[1, 2],
                   help="protocol version (1 leaves out namespace declarations)")
    segment_size_option(p)
    p.add_argument("-v", "--verbose", action="store_true", help="print counts on stderr")
    p.set_defaults(func=cmd_transcode)


def cmd_transcode(args: argparse.Namespace) -> int:
    from .reader import read_options

    if len(args.files) < 2:
        raise JellyError("give at least one input and the output")
    *inputs, output = args.files
    named = formats.for_path(output) if output != "-" else None
    if named is not None and named is not formats.JELLY:
        raise JellyError(f"transcode writes Jelly, and {output!r} names {named.label}; "
                         f"write it with jelly convert")
    fields = {k: getattr(args, k) for k in OPTION_FIELDS}
    options = None
    if args.options_from:
        if any(v is not None for v in fields.values()):
            raise JellyError("--options-from cannot be combined with other option flags")
        options = read_options(args.options_from)
    result = transcode(inputs, output, options, segment_size=args.segment_size or None,
                       **fields)
    if args.verbose:
        print(f"{result.statements} statements, {result.frames} frames", file=sys.stderr)
    return 0
