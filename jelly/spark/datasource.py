"""The ``jelly`` Spark data source (PySpark's Python Data Source API).

Reading gives one partition per file, or, for a large segmented file (:mod:`jelly.parallel`),
one per ``partitionSize`` bytes of it, split at segment starts; it hands Spark Arrow record
batches whose buffers the core's decoder writes (``output="arrow"``).  Writing gives one
segmented ``.jelly`` file per non-empty partition: each task writes a hidden temporary file,
the job's commit renames them all, and an abort deletes them.
"""

from __future__ import annotations

import dataclasses
import functools
import gzip
import uuid
from typing import Dict, Iterator, List, Optional

import pyarrow.fs as pafs
from pyspark.sql.datasource import (DataSource, DataSourceArrowWriter, DataSourceReader,
                                    InputPartition, WriterCommitMessage)
from pyspark.sql.types import (ArrayType, BinaryType, DataType, LongType, MapType, StringType,
                               StructField, StructType)

from .. import parallel
from ..errors import JellyError, JellyOptionsError
from ..io import compression
from ..options import DEFAULT_LIMITS, PhysicalStreamType, ReaderLimits
from ..reader import Reader
from ..options import make_options
from ..writer import DEFAULT_SEGMENT_SIZE, Writer
from . import _arrow, _filters, _fs
from ._options import ReadOptions, WriteOptions

#: The short name: ``spark.read.format("jelly")``.
FORMAT = "jelly"

_IO_BUFFER = 1 << 20
#: Bytes read at a time when a file's segment starts are looked for: few requests to an
#: object store; blocks that stay in the CPU's cache for a local file (twice as fast there).
_SCAN_BLOCK = 8 << 20
_SCAN_BLOCK_LOCAL = 1 << 20


# ------------------------------------------------------------------------------- schemas


def term_type(terms: str = "nt") -> DataType:
    """The Spark type of one term: ``string`` (N-Triples) or the term struct."""
    if terms == "nt":
        return StringType()
    if terms == "struct":
        return StructType([
            StructField("kind", StringType(), False),
            StructField("value", StringType(), False),
            StructField("datatype", StringType(), True),
            StructField("language", StringType(), True),
        ])
    raise JellyOptionsError(f"terms must be 'nt' or 'struct', not {terms!r}")


def statement_type(terms: str = "nt") -> StructType:
    """``struct<s, p, o, g>`` of terms (``g`` null for the default graph)."""
    t = term_type(terms)
    return StructType([StructField("s", t, False), StructField("p", t, False),
                       StructField("o", t, False), StructField("g", t, True)])


def statements_schema(terms: str = "nt", include_path: bool = False) -> StructType:
    """Schema of ``rows=statements``: ``s, p, o, g`` [, ``path``]."""
    schema = StructType(list(statement_type(terms).fields))
    if include_path:
        schema = schema.add(StructField("path", StringType(), False))
    return schema


def frames_schema(terms: str = "nt", include_path: bool = False) -> StructType:
    """Schema of ``rows=frames``: ``frame`` (index in its file), ``statements`` (array of
    statement structs), ``metadata`` (map of string to binary) [, ``path``]."""
    schema = StructType([
        StructField("frame", LongType(), False),
        StructField("statements", ArrayType(statement_type(terms), False), False),
        StructField("metadata", MapType(StringType(), BinaryType(), False), False),
    ])
    if include_path:
        schema = schema.add(StructField("path", StringType(), False))
    return schema


def read_schema(options) -> StructType:
    """The schema ``spark.read.format("jelly")`` gives for these options."""
    opts = options if isinstance(options, ReadOptions) else ReadOptions(options)
    if opts.rows == "frames":
        return frames_schema(opts.terms, opts.include_path)
    return statements_schema(opts.terms, opts.include_path)


def arrow_schema(schema: StructType):
    """The Arrow schema Spark expects for record batches of ``schema``."""
    from pyspark.sql.pandas.types import to_arrow_schema
    return to_arrow_schema(schema, timezone="UTC")


def _same_shape(a: DataType, b: DataType) -> bool:
    """Equal types, ignoring nullability (a user schema may relax it)."""
    if isinstance(a, StructType) and isinstance(b, StructType):
        return (a.names == b.names
                and all(_same_shape(x.dataType, y.dataType) for x, y in zip(a.fields, b.fields)))
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return _same_shape(a.elementType, b.elementType)
    if isinstance(a, MapType) and isinstance(b, MapType):
        return _same_shape(a.keyType, b.keyType) and _same_shape(a.valueType, b.valueType)
    return type(a) is type(b)


# ------------------------------------------------------------------------------- reading


def _paths_option(options) -> list[str]:
    import json
    opts = {k.lower(): v for k, v in dict(options).items()}
    if "paths" in opts and opts["paths"]:
        paths = json.loads(opts["paths"])
    elif opts.get("path"):
        paths = [opts["path"]]
    else:
        raise JellyError("no path given: spark.read.format('jelly').load(path)")
    return [_fs.resolve(p) for p in paths]


class JellyDataSource(DataSource):
    """``spark.read.format("jelly")`` and ``df.write.format("jelly")``.

    Register it once per session with :func:`jelly.spark.register` (or
    ``spark.dataSource.register(JellyDataSource)``).
    """

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def schema(self) -> StructType:
        return read_schema(ReadOptions(self.options))

    def reader(self, schema: StructType) -> "JellyReader":
        opts = ReadOptions(self.options)
        expected = read_schema(opts)
        if not _same_shape(schema, expected):
            raise JellyOptionsError(
                f"the jelly data source gives the schema {expected.simpleString()} for these "
                f"options, not {schema.simpleString()}")
        reader = FilteringJellyReader if opts.filter_pushdown else JellyReader
        # Spark checks the batches against the schema it asked for (nullability included).
        return reader(_paths_option(self.options), opts, schema)

    def writer(self, schema: StructType, overwrite: bool) -> "JellyWriter":
        return JellyWriter(_paths_option(self.options), WriteOptions(self.options), schema,
                           overwrite)


class JellyReader(DataSourceReader):
    """One partition per file, or per ``partitionSize`` bytes of a large segmented file;
    batches of about ``batchSize`` statements."""

    def __init__(self, paths: list[str], options: ReadOptions, schema: StructType) -> None:
        self.paths = paths
        self.options = options
        self.schema = schema
        self.arrow_schema = arrow_schema(schema)
        self.filters = _filters.Filters(self.arrow_schema)

    def partitions(self) -> List[InputPartition]:
        out = []
        for path in self.paths:
            for f in self.filters.files(_fs.list_files(path, self.options.glob)):
                out.extend(InputPartition(p) for p in file_partitions(f, self.options))
        return out

    def read(self, partition: InputPartition) -> Iterator:
        if partition.value is None:    # Spark's stand-in partition when there is no file
            return iter(())
        if isinstance(partition.value, tuple):
            batches = read_part(*partition.value, self.options, self.arrow_schema)
        else:
            batches = read_file(partition.value, self.options, self.arrow_schema)
        return self.filters.apply(batches)


class FilteringJellyReader(JellyReader):
    """A :class:`JellyReader` whose batches hold only the rows that pass the filters Spark
    pushes down and :mod:`jelly.spark._filters` evaluates (option ``filterPushdown``).  A
    separate class because Spark refuses a reader that has ``pushFilters`` while its
    ``spark.sql.python.filterPushdown.enabled`` is off, the default."""

    def pushFilters(self, filters: list) -> list:
        return list(self.filters.push(filters))


def _zstd_writer(raw):
    from ..io import ZSTD_LEVEL, _zstandard
    return _zstandard().ZstdCompressor(level=ZSTD_LEVEL).stream_writer(raw, closefd=False)
def scan_file(path: str, limits: ReaderLimits = DEFAULT_LIMITS
              ) -> tuple[parallel.Scan, int] | None:
    """The segment starts and frame count of a delimited, uncompressed Jelly file and its size
    (read in blocks; only the frames' starts are looked at), or None if it cannot be split."""
    fs, inner = _fs.filesystem(path)
    info = fs.get_file_info(inner)
    block = _SCAN_BLOCK_LOCAL if isinstance(fs, pafs.LocalFileSystem) else _SCAN_BLOCK
    return _scan(path, info.size, info.mtime_ns, limits, block)


@functools.lru_cache(maxsize=256)
def _scan(path: str, size: int, mtime_ns: int | None, limits: ReaderLimits, block: int
          ) -> tuple[parallel.Scan, int] | None:
    # Per version of a file: a query plans its partitions more than once.
    with _fs.open_random_access(path) as f:
        head = f.read_at(min(size, 4), 0)
        if compression(head):
            return None
        found = parallel.scan(f.read_at, size, limits, block)
    return (found, size) if found is not None else None


def file_partitions(path: str, options: ReadOptions) -> list:
    """What one file gives Spark to read: its path, or ``(path, part)`` per part of a large
    segmented file."""
    if options.partition_size <= 0:
        return [path]
    fs, inner = _fs.filesystem(path)
    if fs.get_file_info(inner).size <= options.partition_size:
        return [path]
    scanned = scan_file(path, options.limits or DEFAULT_LIMITS)
    if scanned is None:
        return [path]
    parts = parallel.plan(scanned[0], scanned[1], options.partition_size)
    return [path] if len(parts) < 2 else [(path, part) for part in parts]


def read_part(path: str, part: parallel.Part, options: ReadOptions, schema) -> Iterator:
    """Record batches of one part of a segmented file (the rows a read of the whole file gives
    for it: see :func:`jelly.parallel.part_frames`)."""
    with _fs.open_random_access(path) as f:
        yield from _batches(parallel.part_frames(
            parallel.opener(f.read_at), part, limits=options.limits, strict=options.strict,
            **_arrow.decoder_kwargs(options.terms)),
            options, schema, path)


def _batches(frames, options: ReadOptions, schema, path: str) -> Iterator:
    """Record batches of decoded frames (``output="arrow"``); errors name the file."""
    convert = _arrow.frame_batches if options.rows == "frames" else _arrow.statement_batches
    try:
        yield from convert(frames, schema, options.terms, options.batch_rows, path)
    except JellyError as exc:
        raise type(exc)(f"{path}: {exc.message}", offset=exc.offset, frame=exc.frame,
                        row=exc.row, line=exc.line) from None


def read_file(path: str, options: ReadOptions, schema) -> Iterator:
    """Record batches of one Jelly file (``schema``: the Arrow schema of the output)."""
    fs, inner = _fs.filesystem(path)
    try:
        stream = fs.open_input_stream(inner, compression=None, buffer_size=_IO_BUFFER)
    except (OSError, ValueError) as exc:
        raise JellyError(f"cannot open {path}: {exc}") from None
    with stream:
        reader = Reader(stream, limits=options.limits, strict=options.strict,
                        **_arrow.decoder_kwargs(options.terms))
        # A row per statement: small frames in a row are decoded together (a stream of
        # one-statement frames took 8 µs a frame for its columns, 40 times a large frame's).
        frames = reader._runs() if options.rows == "statements" else reader.frames()
        yield from _batches(frames, options, schema, path)


# ------------------------------------------------------------------------------- writing


@dataclasses.dataclass
class JellyCommitMessage(WriterCommitMessage):
    """What one task wrote: a temporary file to rename on commit (None: empty partition)."""

    temp: Optional[str]
    final: Optional[str]
    rows: int = 0
    frames: int = 0


#: The columns a DataFrame to write may have (besides any others, which are not written).
_WRITTEN_COLUMNS = ("s", "p", "o", "g", "statements", "metadata")


def written_columns(names: List[str]) -> Dict[str, str]:
    """The columns written, by their lower-case name: Spark resolves column names regardless
    of case (``spark.sql.caseSensitive`` is off by default), so ``S, P, O`` are written too; a
    name as written here wins over another spelling."""
    found: Dict[str, str] = {}
    for name in names:
        low = name.lower()
        if low in _WRITTEN_COLUMNS and (low not in found or name == low):
            found[low] = name
    return found


def _input_layout(schema: StructType) -> tuple[str, bool]:
    """``("statements" | "frames", has graph column)`` of a DataFrame to write."""
    columns = written_columns(schema.names)
    if "statements" in columns and \
            isinstance(schema[columns["statements"]].dataType, ArrayType):
        element = schema[columns["statements"]].dataType.elementType
        if not isinstance(element, StructType) or not {"s", "p", "o"} <= set(element.names):
            raise JellyOptionsError("the statements column must be an array of structs with "
                                    "fields s, p, o [, g]")
        _check_term_fields(element, {n: n for n in element.names})
        return "frames", "g" in element.names
    if not {"s", "p", "o"} <= set(columns):
        raise JellyOptionsError(
            f"writing Jelly needs columns s, p, o [, g] (or a statements array column), not "
            f"{', '.join(schema.names)}")
    _check_term_fields(schema, columns)
    return "statements", "g" in columns


def _check_term_fields(struct: StructType, columns: Dict[str, str]) -> None:
    for name in ("s", "p", "o", "g"):
        if name not in columns:
            continue
        dt = struct[columns[name]].dataType
        if isinstance(dt, StringType):
            continue
        if isinstance(dt, StructType) and {"kind", "value"} <= set(dt.names):
            continue
        raise JellyOptionsError(f"column {name} must be a string (N-Triples term) or a term "
                                f"struct (kind, value, datatype, language), not "
                                f"{dt.simpleString()}")


def stream_options(writer_kwargs: dict, has_graph: bool, grouped: bool):
    """Stream options and rows per frame for the writer keyword arguments: the physical type
    defaults to QUADS when there is a ``g`` column (TRIPLES otherwise), the logical type to the
    flat one, or for one frame per row (``grouped``) to GRAPHS / DATASETS."""
    kwargs = dict(writer_kwargs)
    rows_per_frame = kwargs.pop("rows_per_frame", None)
    kwargs.pop("segment_size", None)
    return make_options(quads=has_graph, grouped=grouped, **kwargs), rows_per_frame


class JellyWriter(DataSourceArrowWriter):
    """One Jelly file per non-empty partition, committed or aborted as a whole."""

    def __init__(self, paths: list[str], options: WriteOptions, schema: StructType,
                 overwrite: bool) -> None:
        if len(paths) != 1:
            raise JellyError("write to one directory: df.write.format('jelly').save(dir)")
        self.path = paths[0]
        self.overwrite = overwrite
        self.compression = options.compression
        self.extension = options.extension
        self.layout, self.has_graph = _input_layout(schema)
        # Columns spelled in another case, under the names the writing reads.
        self.renamed = {name: low for low, name in written_columns(schema.names).items()
                        if name != low}
        # Fail on the driver, before any task runs, if the options are wrong.
        self.stream_options, self.rows_per_frame = stream_options(
            options.writer_kwargs, self.has_graph, self.layout == "frames")
        # Segmented files by default, so that later reads can split them (0: none).
        self.segment_size = options.writer_kwargs.get("segment_size", DEFAULT_SEGMENT_SIZE) or None
        self.job = uuid.uuid4().hex[:12]
        fs, inner = _fs.filesystem(self.path)
        info = fs.get_file_info(inner)
        if info.type == pafs.FileType.File:
            raise JellyError(f"{self.path} is a file; jelly writes a directory of part files")
        fs.create_dir(inner, recursive=True)

    # -- tasks -------------------------------------------------------------------------------

    def write(self, iterator) -> JellyCommitMessage:
        from pyspark import TaskContext
        ctx = TaskContext.get()
        part = ctx.partitionId() if ctx is not None else 0
        attempt = ctx.attemptNumber() if ctx is not None else 0
        batch = next(iterator, None)
        while batch is not None and batch.num_rows == 0:
            batch = next(iterator, None)
        if batch is None:
            return JellyCommitMessage(None, None)
        name = f"part-{part:05d}-{self.job}{self.extension}"
        final = _fs.join(self.path, name)
        temp = _fs.join(self.path, f".{name}.{attempt}.tmp")
        fs, inner = _fs.filesystem(self.path)
        fs.create_dir(inner, recursive=True)
        _, temp_inner = _fs.filesystem(temp)
        try:
            rows, frames = self._write_file(fs, temp_inner, batch, iterator)
        except BaseException:
            try:
                fs.delete_file(temp_inner)
            except OSError:
                pass
            raise
        return JellyCommitMessage(temp, final, rows, frames)

    def _write_file(self, fs, inner, first, iterator):
        conv = _arrow.TermConverter()
        options = self.stream_options
        with_graph = options.physical_type != PhysicalStreamType.TRIPLES
        rows = 0
        raw = fs.open_output_stream(inner, compression=None, buffer_size=_IO_BUFFER)
        try:
            out = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) \
                if self.compression == "gzip" else _zstd_writer(raw) \
                if self.compression == "zstd" else raw
            kwargs = {}
            if self.rows_per_frame is not None:
                kwargs["rows_per_frame"] = self.rows_per_frame
            writer = Writer(out, options, segment_size=self.segment_size, **kwargs)
            batch = first
            while batch is not None:
                if self.renamed:
                    batch = batch.rename_columns([self.renamed.get(n, n)
                                                  for n in batch.schema.names])
                if self.layout == "frames":
                    for statements, metadata in _arrow.frames_of_batch(batch, conv, with_graph):
                        writer.write_frame(statements, metadata)
                else:
                    writer.write_all(_arrow.batch_statements(batch, conv, with_graph))
                rows += batch.num_rows
                batch = next(iterator, None)
            writer.close()
            frames = writer.frames_written
            if out is not raw:
                out.close()
        finally:
            raw.close()
        return rows, frames

    # -- driver ------------------------------------------------------------------------------

    def commit(self, messages: List[Optional[JellyCommitMessage]]) -> None:
        fs, inner = _fs.filesystem(self.path)
        done = [m for m in messages if m is not None and m.temp is not None]
        keep = {_fs.filesystem(m.temp)[1] for m in done}
        if self.overwrite:
            # Replace what the directory held, as Spark's file sources do, now that every
            # task has succeeded.
            selector = pafs.FileSelector(inner, recursive=False, allow_not_found=True)
            for info in fs.get_file_info(selector):
                if info.path in keep:
                    continue
                if info.type == pafs.FileType.Directory:
                    fs.delete_dir(info.path)
                else:
                    fs.delete_file(info.path)
        for m in done:
            fs.move(_fs.filesystem(m.temp)[1], _fs.filesystem(m.final)[1])
        self._remove_temps(fs, inner)
        with fs.open_output_stream(_fs.filesystem(_fs.join(self.path, "_SUCCESS"))[1]):
            pass

    def abort(self, messages: List[Optional[JellyCommitMessage]]) -> None:
        fs, inner = _fs.filesystem(self.path)
        for m in messages:
            if m is not None and m.temp is not None:
                try:
                    fs.delete_file(_fs.filesystem(m.temp)[1])
                except OSError:
                    pass
        self._remove_temps(fs, inner)

    def _remove_temps(self, fs, inner: str) -> None:
        """Delete this job's leftover temporary files (failed or speculative attempts)."""
        selector = pafs.FileSelector(inner, recursive=False, allow_not_found=True)
        marker = f"-{self.job}"
        for info in fs.get_file_info(selector):
            name = info.base_name
            if name.startswith(".part-") and marker in name and name.endswith(".tmp"):
                try:
                    fs.delete_file(info.path)
                except OSError:
                    pass
