"""Options of the Spark data source and column helpers (no pyspark in this module).

Spark hands data source options over as strings with case-insensitive keys; here a key is also
free of ``_`` and ``-``, so ``physicalType``, ``physical_type`` and ``PHYSICAL-TYPE`` are one
option.  Unknown keys are errors, so a misspelt option does not go unnoticed.
"""

from __future__ import annotations

from ..errors import JellyOptionsError
from ..options import ReaderLimits

#: Reading: key -> meaning (for error messages and docs).
READ_OPTIONS = {
    "rows": "statements (one row per statement, default) or frames (one row per frame)",
    "terms": "nt (N-Triples strings, default) or struct (kind, value, datatype, language)",
    "batchsize": "statements per Arrow batch (default 65536)",
    "includepath": "true adds a column path with the file each row comes from",
    "pathglobfilter": "only files whose name matches this glob (e.g. *.jelly)",
    "strict": "true rejects RDF-star / generalized terms the stream options do not announce",
    "maxnametablesize": "reader limit (default 4096)",
    "maxprefixtablesize": "reader limit (default 1024)",
    "maxdatatypetablesize": "reader limit (default 256)",
    "maxquoteddepth": "reader limit (default 64)",
    "maxframesize": "reader limit in bytes (default 512 MiB)",
    "partitionsize": "bytes per partition of a large segmented file (default 64 MiB; 0: one "
                     "partition per file)",
    "filterpushdown": "true applies the filters Spark pushes down while reading (needs "
                      "spark.sql.python.filterPushdown.enabled=true, Spark 4.1+)",
}

#: Writing: key -> keyword argument of jelly.Writer / jelly.make_options.
WRITE_OPTIONS = {
    "physicaltype": "physical_type",
    "logicaltype": "logical_type",
    "preset": "preset",
    "maxnametablesize": "max_name_table_size",
    "maxprefixtablesize": "max_prefix_table_size",
    "maxdatatypetablesize": "max_datatype_table_size",
    "rdfstar": "rdf_star",
    "generalizedstatements": "generalized_statements",
    "streamname": "stream_name",
    "rowsperframe": "rows_per_frame",
    "segmentsize": "segment_size",
}
WRITE_ONLY = {"compression": "none (default), gzip (files end in .jelly.gz) or zstd (.jelly.zst)"}

_INT_WRITE = {"max_name_table_size", "max_prefix_table_size", "max_datatype_table_size",
              "rows_per_frame", "segment_size"}
_BOOL_WRITE = {"rdf_star", "generalized_statements"}
_PATH_KEYS = {"path", "paths"}

#: Bytes per partition of a large segmented file (about four million statements).
DEFAULT_PARTITION_SIZE = 64 << 20


def normalize(options) -> dict:
    """Options with normalized keys (lower case, no ``_`` or ``-``)."""
    out = {}
    for key, value in dict(options or {}).items():
        out[key.lower().replace("_", "").replace("-", "")] = value
    return out


def parse_bool(value, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off", ""):
        return False
    raise JellyOptionsError(f"option {name} must be true or false, not {value!r}")


def parse_int(value, name: str, minimum: int = 0) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        raise JellyOptionsError(f"option {name} must be an integer, not {value!r}") from None
    if number < minimum:
        raise JellyOptionsError(f"option {name} must be at least {minimum}, not {number}")
    return number


def check_known(opts: dict, known, what: str) -> None:
    unknown = sorted(k for k in opts if k not in known and k not in _PATH_KEYS)
    if unknown:
        raise JellyOptionsError(f"unknown {what} option(s) {', '.join(unknown)}; known: "
                                f"{', '.join(sorted(known))}")


class ReadOptions:
    """Parsed reading options."""

    def __init__(self, options) -> None:
        opts = normalize(options)
        check_known(opts, READ_OPTIONS, "jelly read")
        self.rows = str(opts.get("rows", "statements")).strip().lower()
        if self.rows in ("statement", "triples", "quads"):
            self.rows = "statements"
        if self.rows == "frame":
            self.rows = "frames"
        if self.rows not in ("statements", "frames"):
            raise JellyOptionsError(f"option rows must be statements or frames, not "
                                    f"{opts['rows']!r}")
        self.terms = parse_layout(opts.get("terms", "nt"))
        self.batch_rows = parse_int(opts.get("batchsize", 65536), "batchSize", 1)
        self.include_path = parse_bool(opts.get("includepath", False), "includePath")
        self.glob = opts.get("pathglobfilter") or None
        self.strict = parse_bool(opts.get("strict", False), "strict")
        self.partition_size = parse_int(opts.get("partitionsize", DEFAULT_PARTITION_SIZE),
                                        "partitionSize")
        self.filter_pushdown = parse_bool(opts.get("filterpushdown", False), "filterPushdown")
        limits = {}
        for key, field in (("maxnametablesize", "max_name_table_size"),
                           ("maxprefixtablesize", "max_prefix_table_size"),
                           ("maxdatatypetablesize", "max_datatype_table_size"),
                           ("maxquoteddepth", "max_quoted_depth"),
                           ("maxframesize", "max_frame_size")):
            if key in opts:
                limits[field] = parse_int(opts[key], key)
        self.limits = ReaderLimits(**limits) if limits else None


def parse_layout(value) -> str:
    layout = str(value).strip().lower()
    if layout in ("nt", "ntriples", "n-triples", "string", "strings"):
        return "nt"
    if layout in ("struct", "structs"):
        return "struct"
    raise JellyOptionsError(f"option terms must be nt or struct, not {value!r}")


class WriteOptions:
    """Parsed writing options: ``writer_kwargs`` for :class:`jelly.Writer`, plus compression."""

    def __init__(self, options) -> None:
        opts = normalize(options)
        check_known(opts, {**WRITE_OPTIONS, **WRITE_ONLY}, "jelly write")
        kwargs = {}
        for key, field in WRITE_OPTIONS.items():
            if key not in opts or opts[key] is None:
                continue
            value = opts[key]
            if field in _INT_WRITE:
                value = parse_int(value, key, 1 if field == "rows_per_frame" else 0)
            elif field in _BOOL_WRITE:
                value = parse_bool(value, key)
            else:
                value = str(value)
                if field == "logical_type" and value.strip().isdigit():
                    value = int(value)
            kwargs[field] = value
        self.writer_kwargs = kwargs
        compression = str(opts.get("compression", "none")).strip().lower()
        if compression in ("none", "uncompressed", ""):
            compression = None
        elif compression in ("gzip", "gz"):
            compression = "gzip"
        elif compression in ("zstd", "zst"):
            compression = "zstd"
        else:
            raise JellyOptionsError(f"option compression must be none, gzip or zstd, not "
                                    f"{opts['compression']!r}")
        self.compression = compression
        self.extension = {"gzip": ".jelly.gz", "zstd": ".jelly.zst"}.get(compression or "",
                                                                        ".jelly")
