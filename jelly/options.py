"""Stream options, presets and the physical / logical stream types of Jelly-RDF 1.1."""

from __future__ import annotations

import dataclasses
from enum import IntEnum
from typing import Any, TypeVar

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


def logical_base(value: int) -> int:
    """Base logical type of any (possibly unknown) logical type number."""
    return value % 10


def is_grouped(logical_type: int) -> bool:
    """True for logical types whose frames are stream elements (graphs or datasets)."""
    return logical_base(logical_type) in (LogicalStreamType.GRAPHS, LogicalStreamType.DATASETS)


#: The deepest RDF-star nesting any reader or writer accepts, whatever the limits say: quoted
#: triples are decoded and encoded recursively in C, and at this depth every codec (Jelly,
#: RDF Thrift, RDF Protobuf, the transcoder) needs under 128 KiB of C stack (measured; a thread's
#: stack is 8 MiB on glibc, 128 KiB on musl).  Terms themselves (hash, ==, order, str, repr,
#: freeing) work at any depth.
MAX_QUOTED_DEPTH = 128
#: Table sizes are 32-bit in the spec; frame lengths are 64-bit varints.
MAX_TABLE_SIZE = 0xFFFFFFFF
MAX_FRAME_SIZE = 2**63 - 1


def check_quoted_depth(value: int, what: str = "max_quoted_depth") -> int:
    """``value`` if it is a nesting limit a codec can honour (0..MAX_QUOTED_DEPTH), else
    :class:`JellyOptionsError`."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_QUOTED_DEPTH:
        raise JellyOptionsError(f"{what} must be an integer in 0..{MAX_QUOTED_DEPTH}, not "
                                f"{value!r} (deeper nesting cannot be decoded safely)")
    return value


@dataclasses.dataclass(frozen=True)
class ReaderLimits:
    """Safety caps a reader enforces on untrusted input (defaults follow jelly-jvm).

    Any value up to the maximum of its field is safe: memory follows the bytes of the input,
    never what the input declares, so raising a table or frame size limit only lets larger
    streams in (a frame is held whole, so ``max_frame_size`` bounds the memory of one frame).
    Values outside a field's range raise :class:`JellyOptionsError`.
    """

    #: Largest name table a stream may declare (0..MAX_TABLE_SIZE).
    max_name_table_size: int = 4096
    #: Largest prefix table a stream may declare (0..MAX_TABLE_SIZE).
    max_prefix_table_size: int = 1024
    #: Largest datatype table a stream may declare (0..MAX_TABLE_SIZE).
    max_datatype_table_size: int = 256
    #: Deepest RDF-star nesting accepted (a quoted triple inside a statement is depth 1;
    #: 0..MAX_QUOTED_DEPTH).
    max_quoted_depth: int = 64
    #: Largest single frame accepted, in bytes (0..MAX_FRAME_SIZE).
    max_frame_size: int = 512 * 1024 * 1024

    def __post_init__(self) -> None:
        for name, top in (("max_name_table_size", MAX_TABLE_SIZE),
                          ("max_prefix_table_size", MAX_TABLE_SIZE),
                          ("max_datatype_table_size", MAX_TABLE_SIZE),
                          ("max_frame_size", MAX_FRAME_SIZE)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= top:
                raise JellyOptionsError(f"{name} must be an integer in 0..{top}, not {v!r}")
        check_quoted_depth(self.max_quoted_depth)


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
        if not isinstance(self.stream_name, str):
            raise JellyOptionsError(f"stream_name must be a str, not {self.stream_name!r}")
        v = self.version
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0
                              or v > 0xFFFFFFFF):
            raise JellyOptionsError(f"version must be an integer in 0..2**32-1 or None, not "
                                    f"{v!r}")

    def replace(self, **changes: Any) -> StreamOptions:
        return dataclasses.replace(self, **changes)

    def validate_for_writing(self) -> None:
        """Raise :class:`JellyOptionsError` for options a producer must not use."""
        if self.physical_type == PhysicalStreamType.UNSPECIFIED:
            raise JellyOptionsError("physical_type must be TRIPLES, QUADS or GRAPHS")
        if self.max_name_table_size < MIN_NAME_TABLE_SIZE:
            raise JellyOptionsError(
                f"max_name_table_size must be at least {MIN_NAME_TABLE_SIZE}, "
                f"not {self.max_name_table_size}")
        if self.version and not 1 <= self.version <= PROTOCOL_VERSION:     # 0: as None
            raise JellyOptionsError(f"version {self.version} cannot be written: this library "
                                    f"writes versions 1 to {PROTOCOL_VERSION} (None: the "
                                    f"lowest the stream needs)")
        base = logical_base(int(self.logical_type))
        allowed = {
            PhysicalStreamType.TRIPLES: {0, 1, 3},
            PhysicalStreamType.QUADS: {0, 2, 4},
            PhysicalStreamType.GRAPHS: {0, 2, 4},
        }[self.physical_type]
        if base not in allowed:
            raise JellyOptionsError(
                f"logical type {_logical_name(int(self.logical_type))} does not fit physical "
                f"type {self.physical_type.name}")


def _logical_name(value: int) -> str:
    try:
        return LogicalStreamType(value).name
    except ValueError:
        return str(value)


#: Presets of the table sizes (name, prefix, datatype), as in jelly-jvm.
PRESETS = {
    "small": (128, 16, 16),
    "big": (4000, 150, 32),
}


def _preset_sizes(name: str) -> tuple[int, int, int]:
    try:
        return PRESETS[name]
    except KeyError:
        raise JellyOptionsError(f"unknown preset {name!r}; choose one of {sorted(PRESETS)}") from None


def preset(name: str, **changes: Any) -> StreamOptions:
    """Stream options of a named preset (``"small"`` or ``"big"``), with field overrides."""
    names, prefixes, datatypes = _preset_sizes(name)
    return StreamOptions(max_name_table_size=names, max_prefix_table_size=prefixes,
                         max_datatype_table_size=datatypes, **changes)


#: The preset used when neither options nor a preset are given.
DEFAULT_PRESET = "big"


_E = TypeVar("_E", PhysicalStreamType, LogicalStreamType)


def _enum(value: int | str, enum: type[_E], what: str) -> _E | int:
    if isinstance(value, str):
        try:
            return enum[value.upper().replace("-", "_")]
        except KeyError:
            names = ", ".join(m.name.lower() for m in enum if m.value)
            raise JellyOptionsError(f"unknown {what} {value!r}; choose one of {names}") from None
    try:
        return enum(int(value))
    except ValueError:
        if enum is LogicalStreamType:
            return int(value)      # unknown subtypes are legal
        raise JellyOptionsError(f"unknown {what} {value!r}") from None


def make_options(options: StreamOptions | None = None, *, preset: str | None = None,
                 physical_type: PhysicalStreamType | int | str | None = None,
                 logical_type: LogicalStreamType | int | str | None = None,
                 max_name_table_size: int | None = None,
                 max_prefix_table_size: int | None = None,
                 max_datatype_table_size: int | None = None, rdf_star: bool | None = None,
                 generalized_statements: bool | None = None, stream_name: str | None = None,
                 version: int | None = None, quads: bool | None = None,
                 grouped: bool = False) -> StreamOptions:
    """The one option resolver of every writer: stream options from a base (``options`` or a
    named ``preset``, default ``"big"``) and field overrides, checked for writing.

    Physical and logical types may be enum members, ints or names (``"quads"``).  What is not
    given is worked out: without ``options``, the physical type is QUADS when the data has
    graphs (``quads=True``) and TRIPLES otherwise; without a logical type (in ``options`` or
    given), a ``grouped`` stream (one graph or dataset per frame: RDF messages) is GRAPHS or
    DATASETS and a flat one FLAT_TRIPLES or FLAT_QUADS.  ``version`` None (the default of
    :class:`StreamOptions`) lets the writer pick the lowest version the stream needs.
    """
    if options is not None and preset is not None:
        raise JellyOptionsError("give either options or a preset, not both")
    given = options is not None
    if options is not None and not isinstance(options, StreamOptions):
        raise TypeError(f"options must be a jelly.StreamOptions (see jelly.make_options), not "
                        f"{type(options).__name__}")
    if options is None:
        names, prefixes, datatypes = _preset_sizes(preset or DEFAULT_PRESET)
        options = StreamOptions(max_name_table_size=names, max_prefix_table_size=prefixes,
                                max_datatype_table_size=datatypes)
    changes: dict[str, Any] = {}
    if physical_type is not None:
        changes["physical_type"] = _enum(physical_type, PhysicalStreamType, "physical type")
    elif not given:
        changes["physical_type"] = PhysicalStreamType.QUADS if quads else PhysicalStreamType.TRIPLES
    if logical_type is not None:
        changes["logical_type"] = _enum(logical_type, LogicalStreamType, "logical type")
    for name, value in (("max_name_table_size", max_name_table_size),
                        ("max_prefix_table_size", max_prefix_table_size),
                        ("max_datatype_table_size", max_datatype_table_size),
                        ("rdf_star", rdf_star), ("generalized_statements", generalized_statements),
                        ("stream_name", stream_name), ("version", version)):
        if value is not None:
            if name in ("rdf_star", "generalized_statements") and \
                    not isinstance(value, (bool, int)):      # "no" would turn it on
                raise TypeError(f"{name} must be True or False, not {value!r}")
            changes[name] = value
    result = options.replace(**changes)
    if result.physical_type == PhysicalStreamType.UNSPECIFIED:
        raise JellyOptionsError("physical_type must be TRIPLES, QUADS or GRAPHS")
    if int(result.logical_type) == 0 and logical_type is None:
        result = result.replace(logical_type=default_logical_type(result.physical_type, grouped))
    result.validate_for_writing()
    return result


def default_logical_type(physical_type: int, grouped: bool) -> LogicalStreamType:
    """The logical type a stream gets unless told otherwise: for grouped streams (a graph or
    dataset per frame) GRAPHS or DATASETS, for flat ones FLAT_TRIPLES or FLAT_QUADS."""
    triples = PhysicalStreamType(int(physical_type)) == PhysicalStreamType.TRIPLES
    if grouped:
        return LogicalStreamType.GRAPHS if triples else LogicalStreamType.DATASETS
    return LogicalStreamType.FLAT_TRIPLES if triples else LogicalStreamType.FLAT_QUADS


# ------------------------------------------------------------------------------- Jelly-Patch

#: Highest Jelly-Patch protocol version tag this implementation reads and writes (1.0.x).
PATCH_PROTOCOL_VERSION = 1

#: Statement types of Jelly-Patch (``PatchStatementType``) by name, and back.
PATCH_STATEMENT_TYPES = {"triples": 1, "quads": 2}
#: Patch stream types of Jelly-Patch (``PatchStreamType``) by name, and back.
PATCH_STREAM_TYPES = {"frame": 1, "flat": 2, "punctuated": 3}


def _patch_type(value: str | int, table: dict[str, int], what: str) -> str:
    """A statement or stream type given as a name (any case) or its wire number -> name."""
    if isinstance(value, str) and value.lower() in table:
        return value.lower()
    if isinstance(value, int) and not isinstance(value, bool):
        for name, number in table.items():
            if number == value:
                return name
    raise JellyOptionsError(f"unknown {what} {value!r}; choose one of {', '.join(table)}")


@dataclasses.dataclass(frozen=True)
class PatchOptions:
    """The ``RdfPatchOptions`` of a Jelly-Patch stream, with the spec's field names.

    ``statement_type`` is ``"triples"`` or ``"quads"``, ``stream_type`` ``"frame"`` (each frame
    is one patch), ``"flat"`` (the whole stream is one patch) or ``"punctuated"`` (patches end
    with a punctuation row); both may be given as their wire numbers too.
    """

    statement_type: str = "triples"
    stream_type: str = "punctuated"
    generalized_statements: bool = False
    rdf_star: bool = False
    max_name_table_size: int = 4000
    max_prefix_table_size: int = 150
    max_datatype_table_size: int = 32
    version: int = PATCH_PROTOCOL_VERSION

    def __post_init__(self) -> None:
        object.__setattr__(self, "statement_type", _patch_type(
            self.statement_type, PATCH_STATEMENT_TYPES, "statement type"))
        object.__setattr__(self, "stream_type", _patch_type(
            self.stream_type, PATCH_STREAM_TYPES, "patch stream type"))
        for name in ("max_name_table_size", "max_prefix_table_size", "max_datatype_table_size",
                     "version"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0 or v > 0xFFFFFFFF:
                raise JellyOptionsError(f"{name} must be an integer in 0..2**32-1, not {v!r}")

    @property
    def quads(self) -> bool:
        """True for statement type QUADS."""
        return self.statement_type == "quads"

    @property
    def generalized(self) -> bool:
        """``generalized_statements``."""
        return self.generalized_statements

    def replace(self, **changes: Any) -> PatchOptions:
        return dataclasses.replace(self, **changes)

    def validate_for_writing(self) -> None:
        """Raise :class:`JellyOptionsError` for options a producer must not use."""
        if self.max_name_table_size < MIN_NAME_TABLE_SIZE:
            raise JellyOptionsError(
                f"max_name_table_size must be at least {MIN_NAME_TABLE_SIZE}, "
                f"not {self.max_name_table_size}")
        if self.version == 0:
            raise JellyOptionsError("version must be at least 1")
