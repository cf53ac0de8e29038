"""Looking into Jelly streams: :func:`inspect` (options and rows of each kind per frame) and
:func:`validate` (a strict check), the library behind ``jelly inspect`` and ``jelly validate``."""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Any

from . import formats as _formats
from ._decoder import ROW_KINDS
from .errors import JellyError
from .options import LogicalStreamType, PhysicalStreamType, StreamOptions
from .reader import Reader

if TYPE_CHECKING:
    from .io import Input


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


def inspect(source: Input, *, per_frame: bool = True,
            format: str | None = None) -> dict[str, Any]:
    """A report on a Jelly stream: whether it is delimited, its frames, options, and the rows
    of each kind (plus bytes and metadata entries) in total and, with ``per_frame``, per frame.
    Concatenated streams are read as consecutive streams (``streams`` counts them).

    Another format (named by ``format``, or by the path's extension) reports through its
    registry entry's inspector, in the same shape with a ``"format"`` key (for RDF Thrift and
    RDF Protobuf: rows of each kind, no frames)."""
    fmt = _formats.get(format, role="input") if format else \
        _formats.for_path(source) if isinstance(source, (str, os.PathLike)) else None
    inspector = fmt.load_inspector() if fmt is not None else None
    if inspector is not None:
        report: dict[str, Any] = inspector(source, per_frame=per_frame)
        return report
    frames = []
    totals: dict[str, int] = dict.fromkeys(ROW_KINDS, 0)
    totals.update(bytes=0, metadata=0)
    streams = 0
    with Reader(source, new_streams=True) as reader:
        for frame in reader.frames():
            rows = frame.rows
            for k, v in rows.items():
                totals[k] += v
            totals["bytes"] += reader.last_frame_size
            totals["metadata"] += len(frame.metadata)
            streams = frame.stream_index + 1
            if per_frame:
                rows.update(frame=frame.index, bytes=reader.last_frame_size,
                            metadata=len(frame.metadata))
                frames.append(rows)
        options = reader.options
        report = {
            "delimited": reader.delimited,
            "frames": reader.frame_count,
            "streams": streams,
            "options": options_dict(options) if options is not None else None,
            "totals": totals,
        }
    if per_frame:
        report["frame_rows"] = frames
    return report


@dataclasses.dataclass
class Validation:
    frames: int
    statements: int
    options: StreamOptions


def validate(source: Input) -> Validation:
    """Check a Jelly stream strictly: well-formed, options a producer may write, RDF-star and
    generalized terms only where the options announce them, graphs closed.  Raises
    :class:`JellyError` (with the position) at the first problem."""
    statements = 0
    with Reader(source, strict=True) as reader:
        for frame in reader.frames():
            statements += len(frame)
        options = reader.options
        if options is None:
            raise JellyError("no stream options row: not a Jelly stream")
        if reader.in_graph:
            raise JellyError("the stream ends inside a graph (graph_end missing)")
        try:
            options.validate_for_writing()
        except JellyError as exc:
            raise JellyError(f"stream options: {exc}") from None
        return Validation(reader.frame_count, statements, options)
