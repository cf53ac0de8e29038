"""Stream options, presets and the physical / logical stream types of Jelly-RDF 1.1."""

from __future__ import annotations

import dataclasses
from enum import IntEnum

from .errors import JellyOptionsError

#: Highest protocol version tag this implementation reads (Jelly-RDF 1.1.x).
PROTOCOL_VERSION = 2
#: Version tag written when the stream uses nothing newer than Jelly-RDF 1.0.
PROTOCOL_VERSION_1_0 = 1
#: The spec's lower bound for ``max_name_table_size``.
MIN_NAME_TABLE_SIZE = 8


class PhysicalStreamType(IntEnum):
    UNSPECIFIED = 0
    TRIPLES = 1
    QUADS = 2
    GRAPHS = 3


class LogicalStreamType(IntEnum):
    UNSPECIFIED = 0
    FLAT_TRIPLES = 1
    FLAT_QUADS = 2
    GRAPHS = 3
    DATASETS = 4
    SUBJECT_GRAPHS = 13
    NAMED_GRAPHS = 14
    TIMESTAMPED_NAMED_GRAPHS = 114

    @property
    def base(self) -> "LogicalStreamType":
        """The base type (1-4): the last decimal digit, as the spec defines."""
        return LogicalStreamType(self.value % 10)


def logical_base(value: int) -> int:
    """Base logical type of any (possibly unknown) logical type number."""
    return value % 10


def is_grouped(logical_type: int) -> bool:
    """True for logical types whose frames are stream elements (graphs or datasets)."""
    return logical_base(logical_type) in (LogicalStreamType.GRAPHS, LogicalStreamType.DATASETS)


@dataclasses.dataclass(frozen=True)
class ReaderLimits:
    """Safety caps a reader enforces on untrusted input (defaults follow jelly-jvm)."""

    max_name_table_size: int = 4096
    max_prefix_table_size: int = 1024
    max_datatype_table_size: int = 256
    #: Deepest RDF-star nesting accepted (a quoted triple inside a statement is depth 1).
    max_quoted_depth: int = 64
    #: Largest single frame accepted, in bytes.
    max_frame_size: int = 512 * 1024 * 1024


DEFAULT_LIMITS = ReaderLimits()


@dataclasses.dataclass(frozen=True)
class StreamOptions:
    """The ``RdfStreamOptions`` of a stream, with the spec's field names."""

    physical_type: PhysicalStreamType = PhysicalStreamType.TRIPLES
    logical_type: int = LogicalStreamType.UNSPECIFIED
    generalized_statements: bool = False
    rdf_star: bool = False
    max_name_table_size: int = 4000
    max_prefix_table_size: int = 150
    max_datatype_table_size: int = 32
    stream_name: str = ""
    #: Protocol version tag; ``None`` (writers): the lowest version the stream's features allow.
    version: int | None = None

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "physical_type", PhysicalStreamType(int(self.physical_type)))
        except ValueError:
            raise JellyOptionsError(f"unknown physical stream type {self.physical_type!r}") from None
        lt = int(self.logical_type)
        try:
            lt = LogicalStreamType(lt)
        except ValueError:
            pass  # unknown subtypes are legal; their base type is lt % 10
        object.__setattr__(self, "logical_type", lt)
        for name in ("max_name_table_size", "max_prefix_table_size", "max_datatype_table_size"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 0 or v > 0xFFFFFFFF:
                raise JellyOptionsError(f"{name} must be an integer in 0..2**32-1, not {v!r}")

    def replace(self, **changes) -> "StreamOptions":
        return dataclasses.replace(self, **changes)

    def validate_for_writing(self) -> None:
        """Raise :class:`JellyOptionsError` for options a producer must not use."""
        if self.physical_type == PhysicalStreamType.UNSPECIFIED:
            raise JellyOptionsError("physical_type must be TRIPLES, QUADS or GRAPHS")
        if self.max_name_table_size < MIN_NAME_TABLE_SIZE:
            raise JellyOptionsError(
                f"max_name_table_size must be at least {MIN_NAME_TABLE_SIZE}, "
                f"not {self.max_name_table_size}")
        base = logical_base(int(self.logical_type))
        allowed = {
            PhysicalStreamType.TRIPLES: {0, 1, 3},
            PhysicalStreamType.QUADS: {0, 2, 4},
            PhysicalStreamType.GRAPHS: {0, 2, 4},
        }[self.physical_type]
        if base not in allowed:
            raise JellyOptionsError(
                f"logical type {int(self.logical_type)} does not fit physical type "
                f"{self.physical_type.name}")


#: Presets of the table sizes (name, prefix, datatype), as in jelly-jvm.
PRESETS = {
    "small": (128, 16, 16),
    "big": (4000, 150, 32),
}


def preset(name: str, **changes) -> StreamOptions:
    """Stream options of a named preset (``"small"`` or ``"big"``), with field overrides."""
    try:
        names, prefixes, datatypes = PRESETS[name]
    except KeyError:
        raise JellyOptionsError(f"unknown preset {name!r}; choose one of {sorted(PRESETS)}") from None
    return StreamOptions(max_name_table_size=names, max_prefix_table_size=prefixes,
                         max_datatype_table_size=datatypes, **changes)
