"""Looking into Jelly streams: :func:`inspect` (options and rows of each kind, per frame or in
total, counted or in bytes, terms by kind and position) and :func:`validate` (a strict check,
optionally against expected options and reference data), the library behind ``jelly inspect``
and ``jelly validate``; :func:`render` prints a report as a table, YAML or JSON.

Empty input (no bytes, after decompression) is an empty stream: no frames, no options, no
statements.  ``inspect`` reports it, ``validate`` accepts it, as every reader does (see the
user guide, "Empty input").
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

from . import formats as _formats
from ._decoder import ROW_KINDS
from .errors import JellyError, amount
from .io import is_stdio
from .options import LogicalStreamType, PhysicalStreamType, StreamOptions
from .reader import Reader

if TYPE_CHECKING:
    from .convert import FrameRange
    from .io import Input

#: What ``detail`` may be: terms by kind (``node``), by position (``term``), or both (``all``).
DETAILS = ("node", "term", "all")


def options_dict(o: StreamOptions) -> dict[str, Any]:
    """Stream options as plain values, with the spec's field names and enum names."""
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


def _terms(stats: dict[str, Any], detail: str, size: bool) -> dict[str, Any]:
    """The term counts of :class:`jelly._framestats.FrameStats` in the shape of ``detail``."""
    table: dict[str, dict[str, int]] = stats["term_bytes" if size else "terms"]
    if detail == "term":
        return {pos: sum(kinds.values()) for pos, kinds in table.items()}
    if detail == "node":
        out: dict[str, int] = {}
        for kinds in table.values():
            for kind, n in kinds.items():
                out[kind] = out.get(kind, 0) + n
        return out
    return {pos: dict(kinds) for pos, kinds in table.items()}


def _add(total: dict[str, Any], part: dict[str, Any]) -> None:
    for k, v in part.items():
        if isinstance(v, dict):
            _add(total.setdefault(k, {}), v)
        else:
            total[k] = total.get(k, 0) + v


def inspect(source: Input, *, per_frame: bool = True, format: str | None = None,
            detail: str | None = None, size: bool = False) -> dict[str, Any]:
    """A report on a Jelly stream: whether it is delimited, its frames, options, and the rows
    of each kind (plus frame bytes and metadata entries) in total and, with ``per_frame``, per
    frame.  ``size`` reports bytes on the wire instead of counts (rows and metadata entries
    with their tag and length); ``detail`` adds the terms written in statement rows by kind
    (``"node"``), by position (``"term"``) or both (``"all"``), see :mod:`jelly._framestats`.
    Concatenated streams are read as consecutive streams (``streams`` counts them,
    ``stream_options`` lists the options of each when there are several).

    Another format (named by ``format``, or by the path's extension) reports through its
    registry entry's inspector, in the same shape with a ``"format"`` key (for RDF Thrift and
    RDF Protobuf: rows of each kind, no frames)."""
    if detail is not None and detail not in DETAILS:
        raise JellyError(f"unknown detail {detail!r}; choose {', '.join(DETAILS)}")
    fmt = _formats.get(format, role="input") if format else _by_name(source)
    inspector = fmt.load_inspector() if fmt is not None else None
    if inspector is not None:
        assert fmt is not None
        if detail is not None or size:
            raise JellyError(f"sizes and term details (--size, --detail) are for Jelly "
                             f"input; {fmt.label} is inspected by row kind only")
        report: dict[str, Any] = inspector(source, per_frame=per_frame)
        return report
    with _as_jelly(source, fmt) as jelly:
        return _inspect_jelly(jelly, detail, size, per_frame)


def _inspect_jelly(source: Input, detail: str | None, size: bool, per_frame: bool
                   ) -> dict[str, Any]:
    """:func:`inspect` of a Jelly stream."""
    stats = None
    if detail is not None or size:
        from ._framestats import FrameStats
        stats = FrameStats()
    frames = []
    totals: dict[str, Any] = dict.fromkeys(ROW_KINDS, 0)
    totals.update(bytes=0, metadata=0)
    terms: dict[str, Any] = {}
    stream_options: list[dict[str, Any]] = []
    with Reader(source, new_streams=True) as reader:
        for frame in reader.frames():
            rows: dict[str, Any] = frame.rows
            metadata = len(frame.metadata)
            part: dict[str, Any] = {}
            if stats is not None:
                counts = stats.read(reader.last_frame)
                if size:
                    rows, metadata = counts["row_bytes"], counts["metadata_bytes"]
                if detail is not None:
                    part = _terms(counts, detail, size)
                    _add(terms, part)
            if frame.stream_index >= len(stream_options) and reader.options is not None:
                stream_options.append(options_dict(reader.options))
            _add(totals, {**rows, "bytes": reader.last_frame_size, "metadata": metadata})
            if per_frame:
                row = {"frame": frame.index, **rows, "bytes": reader.last_frame_size,
                       "metadata": metadata}
                if len(stream_options) > 1:
                    row["stream"] = frame.stream_index
                if detail is not None:
                    row["terms"] = part
                frames.append(row)
        report: dict[str, Any] = {
            "delimited": reader.delimited,
            "frames": reader.frame_count,
            "streams": len(stream_options),
            "options": stream_options[0] if stream_options else None,
            "unit": "bytes" if size else "count",
            "totals": totals,
        }
    if len(stream_options) > 1:
        report["stream_options"] = stream_options
    if detail is not None:
        report["detail"] = detail
        report["terms"] = terms
    if per_frame:
        report["frame_rows"] = frames
    return report


# ---------------------------------------------------------------------------- printing

def _yaml(value: Any, indent: int = 0) -> list[str]:
    """Lines of YAML for the plain values of a report (dicts, lists, str, int, bool, None);
    strings are written as JSON strings, which YAML reads as double-quoted scalars."""
    pad = "  " * indent
    out: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                out.append(f"{pad}{k}:")
                out.extend(_yaml(v, indent + 1))
            else:
                out.append(f"{pad}{k}: {_scalar(v)}")
    else:
        for item in value:
            lines = _yaml(item, indent + 1) if isinstance(item, (dict, list)) and item \
                else [f"{pad}  {_scalar(item)}"]
            out.append(f"{pad}- {lines[0].lstrip()}")
            out.extend(lines[1:])
    return out


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, (dict, list)):
        return "{}" if isinstance(v, dict) else "[]"
    return json.dumps(v, ensure_ascii=False) if isinstance(v, str) else str(v)


def _flat_terms(terms: dict[str, Any]) -> dict[str, int]:
    """Term counts as table columns: ``iri``, ``subject`` or ``subject.iri``."""
    out: dict[str, int] = {}
    for k, v in terms.items():
        if isinstance(v, dict):
            out.update({f"{k}.{kind}": n for kind, n in v.items()})
        else:
            out[k] = v
    return out


def render(report: dict[str, Any], fmt: str = "table", name: str = "") -> str:
    """A report of :func:`inspect` as ``"table"`` (for people), ``"yaml"`` or ``"json"``."""
    if fmt == "json":
        return json.dumps(report, indent=2) + "\n"
    if fmt == "yaml":
        return "\n".join(_yaml(report)) + "\n"
    if fmt != "table":
        raise JellyError(f"unknown report format {fmt!r}; choose table, yaml or json")
    lines = []
    if report.get("format"):
        # A format without frames (RDF Thrift, RDF Protobuf): its rows by kind.
        lines.append(f"file: {name} ({_formats.get(report['format']).label})")
        lines += [f"  {k}: {v}" for k, v in report["totals"].items()]
        return "\n".join(lines) + "\n"
    kind = "delimited" if report["delimited"] else "single frame"
    streams = f", {report['streams']} concatenated streams" if report["streams"] > 1 else ""
    lines.append(f"file: {name} ({kind}, {amount(report['frames'], 'frame')}{streams})")
    for i, options in enumerate(report.get("stream_options") or [report["options"]]):
        if options is not None:
            lines.append("options:" if report["streams"] < 2 else f"options of stream {i}:")
            lines += [f"  {k}: {v}" for k, v in options.items()]
    if report["unit"] == "bytes":
        lines.append("sizes in bytes (tag and length included)")
    totals = {**report["totals"], **_flat_terms(report.get("terms", {}))}
    cols = ["frame", "bytes"] + [c for c in totals if c not in ("bytes", "metadata")
                                 and (c in ROW_KINDS or totals[c])] + ["metadata"]
    if report["streams"] > 1 and report.get("frame_rows"):
        cols.insert(1, "stream")
    widths = [max(len(c), 7) for c in cols]
    lines.append("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    for row in report.get("frame_rows", ()):
        values = {**row, **_flat_terms(row.get("terms", {}))}
        lines.append("  ".join(str(values.get(c, 0)).rjust(w) for c, w in zip(cols, widths)))
    totals.update(frame="total", stream="")
    lines.append("  ".join(str(totals.get(c, 0)).rjust(w) for c, w in zip(cols, widths)))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- validation

@dataclasses.dataclass
class Validation:
    frames: int
    statements: int
    #: The options of the (first) stream; None for empty input.
    options: StreamOptions | None
    #: Consecutive streams in the input (what concatenating files gives); 0 for empty input.
    streams: int = 1
    delimited: bool | None = None
    #: Statements compared with the reference (``compare_to``), else None.
    compared: int | None = None


@contextlib.contextmanager
def _as_jelly(source: Input, fmt: _formats.RdfFormat | None) -> Iterator[Input]:
    """A Jelly-Text input as the Jelly stream it spells (a frame at a time); any other as it
    is."""
    if fmt is not _formats.JELLY_TEXT:
        yield source
        return
    from .io import open_input
    from .jellytext import jelly_stream
    with open_input(source) as stream:
        yield jelly_stream(stream)


def _by_name(source: Input) -> _formats.RdfFormat | None:
    return _formats.for_path(source) if isinstance(source, (str, os.PathLike)) else None


def options_of(path: Input) -> StreamOptions:
    """The stream options of a Jelly or Jelly-Text file (its first options row)."""
    from .reader import read_options
    try:
        with _as_jelly(path, _by_name(path)) as jelly:
            return read_options(jelly)
    except JellyError as exc:       # not the input's error: say whose
        exc.name_source(f"in the options file {_name(path)}")
        raise


def validate(source: Input, *, compare_to: Input | None = None,
             compare_format: str | None = None, ordered: bool = False,
             frames: FrameRange | str | None = None, options_file: Input | None = None,
             delimited: bool | None = None) -> Validation:
    """Check a Jelly stream strictly: well-formed, options a producer may write, RDF-star and
    generalized terms only where the options announce them, graphs closed.  Concatenated
    streams are checked one by one (``streams`` counts them).  Raises :class:`JellyError`
    (with the position) at the first problem.

    ``delimited`` (True / False) requires the delimited or the single-frame variant;
    ``options_file`` (a Jelly or Jelly-Text file) gives the options every stream must have,
    field by field; ``compare_to`` (any format, named by ``compare_format`` or its name)
    holds the statements the stream must hold: the same dataset (blank nodes renamed), or
    with ``ordered`` the same statements in the same order; ``frames`` (a
    :class:`jelly.convert.FrameRange` or its text) compares only those frames."""
    from .convert import FrameRange
    if compare_to is None and (ordered or frames is not None):
        given = " and ".join(n for n, v in (("ordered", ordered), ("frames", frames is not None))
                             if v)
        raise JellyError(f"{given} say{'s' if ' ' not in given else ''} how to compare: give "
                         f"compare_to (--compare-to) too")
    stdin = [n for n, v in (("the stream", source), ("the reference", compare_to),
                            ("the options file", options_file)) if is_stdio(v)]
    if len(stdin) > 1:
        raise JellyError(f"{' and '.join(stdin)} cannot share stdin ('-'): one reading "
                         f"would take the other's bytes")
    if isinstance(frames, str):
        frames = FrameRange.parse(frames, "--frames")
    expected_options = options_of(options_file) if options_file is not None else None
    check = (frames, delimited, expected_options, options_file)
    if compare_to is None:
        return _validate_stream(source, None, *check)
    from . import compare
    reference = _statements_of(compare_to, compare_format)
    if ordered:             # the reference read alongside the stream: neither is held
        comparison = compare.OrderedComparison(reference)
        with contextlib.closing(comparison):
            result = _validate_stream(source, comparison.add, *check)
            difference = comparison.difference()
        compared = comparison.compared
    else:                   # a set comparison: the reference is held, and read first
        dataset = compare.DatasetComparison()
        with compare.collector_paused():
            dataset.expect(reference)
            result = _validate_stream(source, dataset.add, *check)
            difference = dataset.difference()
        compared = dataset.compared
    if difference is not None:
        raise JellyError(f"the statements differ from {_name(compare_to)}: {difference}")
    result.compared = compared
    return result


def _validate_stream(source: Input,
                     compare: Callable[[Iterable[Sequence[Any]]], object] | None,
                     frames: FrameRange | None, delimited: bool | None,
                     expected_options: StreamOptions | None, options_file: Input | None
                     ) -> Validation:
    """:func:`validate`'s pass over the stream; ``compare`` is given the statements of each
    frame to compare (those of ``frames``)."""
    statements = 0
    stream_options: list[StreamOptions] = []
    in_graph = False
    with _as_jelly(source, _by_name(source)) as jelly, \
            Reader(jelly, strict=True, new_streams=True) as reader:
        for frame in reader.frames():
            if delimited is not None and reader.delimited != delimited:
                raise JellyError("expected a delimited stream, but the input is a single frame"
                                 if delimited else "expected a single frame (non-delimited), "
                                 "but the input is a delimited stream")
            if frame.stream_index >= len(stream_options) and reader.options is not None:
                if in_graph:
                    raise JellyError(f"stream {len(stream_options) - 1} ends inside a graph "
                                     f"(graph_end missing)", frame=frame.index)
                _check_options(reader.options, expected_options, options_file,
                               len(stream_options), frame.index)
                stream_options.append(reader.options)
            statements += len(frame)
            if compare is not None and (frames is None or frame.index in frames):
                compare(frame.statements)
            in_graph = reader.in_graph
        if in_graph:
            raise JellyError("the stream ends inside a graph (graph_end missing)")
        if statements and not stream_options:
            raise JellyError("no stream options row: not a Jelly stream")
        if expected_options is not None and not stream_options:
            raise JellyError(f"the input is empty: it has no stream options to compare with "
                             f"{_name(options_file)}")
        return Validation(reader.frame_count, statements,
                          stream_options[0] if stream_options else None, len(stream_options),
                          reader.delimited)


def _name(source: object) -> str:
    return repr(os.fspath(source)) if isinstance(source, (str, os.PathLike)) else "the reference"


def _check_options(options: StreamOptions, expected: StreamOptions | None, path: object,
                   stream: int, frame: int) -> None:
    where = f" of stream {stream}" if stream else ""
    try:
        options.validate_for_writing()
    except JellyError as exc:
        raise JellyError(f"stream options{where}: {exc}", frame=frame) from None
    if expected is not None and options != expected:
        got, want = options_dict(options), options_dict(expected)
        diff = ", ".join(f"{k} is {got[k]!r}, not {want[k]!r}" for k in want if got[k] != want[k])
        raise JellyError(f"stream options{where} differ from those of {_name(path)}: {diff}",
                         frame=frame)


def _statements_of(source: Input, format: str | None) -> Iterator[Any]:
    """Every statement of a file of any format, in order, read as they are asked for; an error
    in it names it (validate reads two inputs)."""
    from .convert import _format, _sniffed, open_source
    from .io import HEAD_SIZE, open_input, peek
    fmt = _format(format, source, "input", _formats.RDF)
    try:
        with open_input(source) as stream:
            if fmt is None:
                head, stream = peek(stream, HEAD_SIZE)
                fmt = _sniffed(head, source)
            src = open_source(stream, fmt)
            try:
                for frame, _ in src.frames():
                    yield from frame.statements
            finally:
                src.close()
    except JellyError as exc:
        exc.name_source(f"in the reference {_name(source)}")
        raise
