"""Splittable Jelly: one delimited Jelly file read in parts, each part on its own (in worker
processes, or in Spark tasks), with exactly the result of reading the whole file in order.

A *segment* (written by ``Writer(segment_size=N)`` and by ``jelly convert``) starts with a frame
whose first row repeats the stream options, and nothing in it refers to the rows before it:
the lookups, repeated terms and IRI deltas start afresh.  The file stays a plain Jelly stream.

* :func:`scan` finds the candidate segment starts of a file: a walk in C over the frames'
  length prefixes that looks only at each frame's first row
  (:func:`jelly._framing.segment_starts`);
* :func:`plan` groups the segments into :class:`Part` s of about the same size;
* :func:`part_frames` decodes one part with a decoder that does not know the rows before it
  (``Decoder(segment=True)``).  That decoder *verifies* that the part is self-contained while
  it decodes: whatever would depend on earlier rows (an id 0 counting on from earlier ids, a
  repeated term or lookup entry not yet defined in the part, a triple outside a graph) fails.
  The joins are checked too: the options of the part's first frame against those of the
  segment start before it, and for GRAPHS streams whether the segment before ends inside a
  graph (that segment is decoded first).  Where verification fails, the part is read
  sequentially from the start of the file instead, so every input, segmented or not, gives
  the frames a sequential reader gives.

:func:`convert_jelly_to_text` and :func:`convert_text_to_jelly` run ``jelly convert --jobs N``
in worker processes (see :func:`jelly.convert.convert`).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import io
import mmap
import os
import stat
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, cast

from ._decoder import Decoder, Frame
from ._framing import detect_delimited, segment_starts
from ._streaming import delimit
from .errors import JellyError, RdfSyntaxError
from .io import FrameReader
from .options import DEFAULT_LIMITS, PhysicalStreamType, ReaderLimits, StreamOptions

# multiprocessing and concurrent.futures are imported where workers start: a conversion in one
# process (most of them) does not pay ~10 ms of start-up for them.
if TYPE_CHECKING:
    import concurrent.futures

    from .convert import Source
    from .io import BinaryWriter

#: Parts per worker process in a conversion: enough that the workers finish at about the same
#: time, few enough that each part holds whole segments.
PARTS_PER_JOB = 10
#: A conversion part of a Jelly file is at most this large (a worker holds its text, 4-8 times
#: larger, until it is its turn to be written).
MAX_PART_BYTES = 8 << 20
#: Text input is cut into chunks of about this many bytes at least.
MIN_CHUNK_BYTES = 1 << 20


@dataclasses.dataclass(frozen=True)
class Part:
    """A run of whole segments of a file: the bytes from ``start`` to ``end`` (frame
    boundaries), frames ``frame`` to ``end_frame`` (exclusive).  ``options`` are the stream
    options of its first frame and ``before`` the segment start before it as ``(offset, frame,
    options)``; both are None for the part at the start of the file."""
    start: int
    end: int
    frame: int
    end_frame: int
    options: bytes | None = None
    before: tuple[int, int, bytes] | None = None


#: What a scan finds: the segment starts ``(offset, frame, options)``, and the frame count.
Scan = tuple[list[tuple[int, int, "bytes | None"]], int]


def scan(read_at: Callable[[int, int], Any], size: int,
         limits: ReaderLimits = DEFAULT_LIMITS, block: int = 8 << 20) -> Scan | None:
    """The candidate segment starts of a whole delimited Jelly stream of ``size`` bytes and
    its number of frames; None if it cannot be split (a single-frame file, or not a whole
    stream: reading it in order reports the problem where it is).  ``read_at(n, offset)``
    gives bytes of it: it is read in blocks of ``block`` bytes (memory stays bounded; only the
    starts of frames are looked at)."""
    if size == 0 or not detect_delimited(read_at(min(size, 3), 0), True):
        return None
    starts: list[tuple[int, int, bytes | None]] = []
    pos = index = 0
    while pos < size:
        data = read_at(min(block, size - pos), pos)
        try:
            found, stop, index = segment_starts(data, 0, index, limits.max_frame_size)
        except JellyError:
            return None
        starts.extend((pos + offset, frame, options) for offset, frame, options in found)
        if stop == 0:
            if pos + len(data) >= size:
                return None         # truncated
            block *= 2              # a frame start longer than a block
        pos += stop
    return (starts, index) if pos == size else None


def plan(found: Scan, size: int, part_size: int) -> list[Part]:
    """Parts of at least ``part_size`` bytes (the last may be smaller) of a file of ``size``
    bytes with the segment starts ``found`` (:func:`scan`).  A file with a frame that may start
    a stream in another form than a plain segment start is one part."""
    starts, frames = found
    if any(options is None for _, _, options in starts):
        return [Part(0, size, 0, frames)]
    parts: list[Part] = []
    first = Part(0, size, 0, frames)
    previous = None
    for offset, frame, options in starts:
        assert options is not None
        if previous is not None and offset - first.start >= part_size:
            parts.append(dataclasses.replace(first, end=offset, end_frame=frame))
            first = Part(offset, size, frame, frames, options, previous)
        previous = (offset, frame, options)
    parts.append(first)
    return parts


class _Unverified(Exception):
    """The frame from which a part is not known to be self-contained."""

    def __init__(self, frame: int) -> None:
        super().__init__(frame)
        self.frame = frame


@functools.lru_cache(maxsize=64)
def stream_options(options: bytes) -> StreamOptions | None:
    """The :class:`StreamOptions` an ``RdfStreamOptions`` message holds (None if a reader
    rejects them)."""
    row = b"\x0a" + delimit(options)      # field 1 of a row, then field 1 of a frame
    decoder = Decoder()
    try:
        decoder.decode_frame(b"\x0a" + delimit(row))
    except JellyError:
        return None
    return decoder.options


Opener = Callable[[int, int], Any]
"""``open_range(start, end)``: the bytes of a file from ``start`` to ``end``, as a buffer or as
a binary stream."""


def _frames(open_range: Opener, start: int, end: int, index: int, decoder: Decoder,
            limits: ReaderLimits) -> Iterator[Frame]:
    """The frames from ``start`` (frame number ``index``) to ``end``, decoded by ``decoder``."""
    decoder.frame_index = index
    for offset, data in FrameReader(open_range(start, end), limits, delimited=True):
        yield decoder.decode_frame(data, start + offset)


def _verified(open_range: Opener, part: Part, limits: ReaderLimits, new_streams: bool,
              kwargs: dict[str, Any]) -> Iterator[Frame]:
    """The frames of ``part``, each exactly as a reader of the whole file decodes it; raises
    :class:`_Unverified` at the first frame where that is not certain."""
    if part.before is None:           # the start of the file: that is reading it in order
        yield from _frames(open_range, part.start, part.end, part.frame,
                           Decoder(limits=limits, new_streams=new_streams, **kwargs), limits)
        return
    assert part.options is not None
    mine, theirs = stream_options(part.options), stream_options(part.before[2])
    if mine is None or theirs is None or (mine != theirs and not new_streams):
        raise _Unverified(part.frame)
    # The same stream goes on: nothing may depend on the rows before.  Different options
    # start a new stream (new_streams): the decoder starts afresh, as here.
    same = mine == theirs
    lead = same and mine.physical_type == PhysicalStreamType.GRAPHS
    # The decoder knows nothing before its first options row, unless that is the file start.
    decoder = Decoder(limits=limits, new_streams=new_streams,
                      segment=same and not (lead and part.before[0] == 0), **kwargs)
    if lead:
        # Whether the segment before ends inside a graph: it is decoded first (not output),
        # and must show at least one graph_start or graph_end to tell.
        graph_rows = 0
        try:
            for frame in _frames(open_range, part.before[0], part.start, part.before[1],
                                 decoder, limits):
                graph_rows += frame.row_counts[3] + frame.row_counts[4]
        except JellyError:
            raise _Unverified(part.frame) from None
        if not graph_rows:
            raise _Unverified(part.frame)
    index = part.frame
    frames = _frames(open_range, part.start, part.end, index, decoder, limits)
    while True:
        try:
            frame = next(frames)
        except StopIteration:
            return
        except JellyError:
            raise _Unverified(index) from None
        yield frame
        index += 1


class _Sequential:
    """A reader of the whole file in order, which only moves forward: the frames a part that
    is not self-contained needs are read on from where the last such part ended (the frames
    before them are decoded, not returned)."""

    def __init__(self, open_range: Opener, size: int, limits: ReaderLimits, new_streams: bool,
                 kwargs: dict[str, Any]) -> None:
        self._frames = _frames(open_range, 0, size, 0,
                               Decoder(limits=limits, new_streams=new_streams, **kwargs), limits)

    def frames(self, first: int, stop: int) -> Iterator[Frame]:
        """Frames ``first`` to ``stop`` (exclusive)."""
        if first >= stop:
            return
        for frame in self._frames:
            if frame.index >= first:
                yield frame
            if frame.index + 1 >= stop:
                return


def part_frames(open_range: Opener, part: Part, *, limits: ReaderLimits | None = None,
                terms: Any = "native", output: str = "tuples", strict: bool = False,
                new_streams: bool = False) -> Iterator[Frame]:
    """The frames of one part of a file exactly as a reader of the whole file (with these
    arguments, see :class:`jelly.Reader`) gives them: verified segments decoded on their own,
    the rest read in order from the start of the file.  ``open_range(start, end)`` gives the
    bytes of the file from ``start`` to ``end`` (a buffer or a binary stream)."""
    limits = limits if limits is not None else DEFAULT_LIMITS
    kwargs = dict(terms=terms, output=output, strict=strict)
    try:
        yield from _verified(open_range, part, limits, new_streams, kwargs)
        return
    except _Unverified as stop:
        first = stop.frame
    yield from _Sequential(open_range, part.end, limits, new_streams, kwargs).frames(
        first, part.end_frame)


# ------------------------------------------------------------------------ worker processes

def available_cores() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _start_method() -> str:
    # fork: the workers start at once with jelly already imported.
    import multiprocessing
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def _pool(jobs: int) -> concurrent.futures.ProcessPoolExecutor:
    import concurrent.futures
    import multiprocessing
    return concurrent.futures.ProcessPoolExecutor(
        jobs, mp_context=multiprocessing.get_context(_start_method()))


class _InOrder:
    """``fn(*task)`` for each task in worker processes, results in task order; at most two
    tasks per worker wait or run at a time (memory stays bounded).  The first are submitted
    at once, so the caller can do other work while they run."""

    def __init__(self, pool: concurrent.futures.ProcessPoolExecutor, jobs: int,
                 fn: Callable[..., Any], tasks: Iterable[tuple[Any, ...]]) -> None:
        self._pool = pool
        self._fn = fn
        self._limit = 2 * jobs
        self._tasks = iter(tasks)
        self._waiting: collections.deque[concurrent.futures.Future[Any]] = collections.deque()
        self._fill()

    def _fill(self) -> None:
        while len(self._waiting) < self._limit:
            task = next(self._tasks, None)
            if task is None:
                return
            self._waiting.append(self._pool.submit(self._fn, *task))

    def __iter__(self) -> _InOrder:
        return self

    def __next__(self) -> Any:
        if not self._waiting:
            raise StopIteration
        result = self._waiting.popleft().result()
        self._fill()
        return result

    def cancel(self) -> None:
        """Drop the tasks that have not started (when the caller gives up)."""
        for future in self._waiting:
            future.cancel()


class FileRange(io.RawIOBase):
    """The bytes ``start`` to ``end`` of a file, as a binary stream; ``read_at(n, offset)``
    reads the file (``os.pread`` of a descriptor, ``read_at`` of a pyarrow file), so that
    several ranges of one open file can be read at a time."""

    def __init__(self, read_at: Callable[[int, int], bytes], start: int, end: int) -> None:
        self._read_at = read_at
        self._pos = start
        self._end = end

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = min(len(b), self._end - self._pos)
        if n <= 0:
            return 0
        data = self._read_at(n, self._pos)
        b[:len(data)] = data
        self._pos += len(data)
        return len(data)


def opener(read_at: Callable[[int, int], bytes]) -> Opener:
    """``open_range`` (see :func:`part_frames`) of a file that ``read_at(n, offset)`` reads."""
    return lambda start, end: io.BufferedReader(FileRange(read_at, start, end), 1 << 16)


def _read_at(fd: int) -> Callable[[int, int], bytes]:
    return lambda n, offset: os.pread(fd, n, offset)


def _blocks_at(fd: int) -> Callable[[int, int], memoryview]:
    """``read_at`` for :func:`scan`: every block read into the same buffer (a scan looks at
    one block at a time), so a scan takes memory from the system once."""
    held = [bytearray()]

    def read_at(n: int, offset: int) -> memoryview:
        if len(held[0]) < n:
            held[0] = bytearray(n)      # views of the old one may still be alive
        view = memoryview(held[0])[:n]
        return view[:os.preadv(fd, [view], offset)]
    return read_at


def _text_terms(syntax: str | None) -> Any:
    from ._ntformat import NTriplesTerms
    return NTriplesTerms(syntax=syntax) if syntax else "nt"


class _Text:
    """The text of a part, in a buffer that is used again for a later part: the memory of a
    part's text is taken from the system once per worker, not once per part."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.used = 0

    def add(self, data: bytes) -> None:
        room = len(self.buf) - self.used
        if len(data) <= room:
            self.buf[self.used:self.used + len(data)] = data
        else:
            view = memoryview(data)
            self.buf[self.used:] = view[:room]
            self.buf += view[room:]
        self.used += len(data)

    def view(self) -> memoryview:
        return memoryview(self.buf)[:self.used]


def _text_worker(conn: Any, path: str, fd_out: int | None, triples_only: bool,
                 syntax: str | None, limits: ReaderLimits) -> None:
    """A worker process of Jelly to text.  It decodes the parts it is sent, in order, and
    reports the size of each part's text (and the frame from which the part must be read in
    order, if verification failed); then it is told where the text goes: an offset of the
    output file, where it copies the text itself (:func:`_place`: the text is written once, by
    the workers in parallel), or -1: back through the pipe (an output that is not a plain
    file)."""
    kwargs = dict(terms=_text_terms(syntax), output="lines")
    waiting: collections.deque[_Text] = collections.deque()
    free: list[_Text] = []
    try:
        with open(path, "rb", buffering=0) as src:
            open_range = opener(_read_at(src.fileno()))
            for msg in iter(conn.recv, None):
                if isinstance(msg, Part):
                    text = free.pop() if free else _Text()
                    text.used = statements = frames = 0
                    failed = None
                    try:
                        for frame in _verified(open_range, msg, limits, True, kwargs):
                            if triples_only and frame.named_graph_statements:
                                failed = frame.index      # the sequential path reports it
                                break
                            lines: list[str] = frame.statements  # type: ignore[assignment]
                            text.add("".join(lines).encode("utf-8"))
                            statements += frame.statement_count
                            frames += 1
                    except _Unverified as stop:
                        failed = stop.frame
                    waiting.append(text)
                    conn.send(("size", text.used, statements, frames, failed))
                    continue
                text = waiting.popleft()
                if msg < 0:
                    conn.send(("text", bytes(memoryview(text.buf)[:text.used])))
                else:
                    assert fd_out is not None
                    view = text.view()
                    _place(fd_out, msg, view)
                    view.release()      # the buffer may grow for a later part
                free.append(text)
    except BaseException as exc:           # the main process raises it
        conn.send(("error", exc))
        try:
            for _ in iter(conn.recv, None):     # until the main process lets go
                pass
        except (EOFError, OSError):
            pass


def _place(fd: int, offset: int, data: memoryview) -> None:
    """Copy ``data`` into the file ``fd`` at ``offset`` (the file already extends past it)
    through a shared mapping.  ``pwrite`` takes the file's inode lock, and two workers writing
    their parts at once spun on it for up to half a second of CPU at 2M statements
    (``rwsem_spin_on_owner``); page faults of a mapping take no lock that the other worker
    holds."""
    if not len(data):
        return
    start = offset - offset % mmap.ALLOCATIONGRANULARITY
    with mmap.mmap(fd, offset - start + len(data), offset=start) as mm:
        mm[offset - start:] = data


class _Worker:
    """A worker process and its end of the pipe; the parts it holds, in order."""

    def __init__(self, ctx: Any, args: tuple[Any, ...]) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_text_worker, args=(child,) + args, daemon=True)
        self.process.start()
        child.close()
        self.parts: collections.deque[int] = collections.deque()

    def recv(self) -> Any:
        try:
            msg = self.conn.recv()
        except (EOFError, OSError):
            raise JellyError(f"a worker process ended (exit status "
                             f"{self.process.exitcode})") from None
        if msg[0] == "error":
            raise msg[1]
        return msg

    def send(self, msg: Any) -> None:
        try:
            self.conn.send(msg)
        except OSError:                 # it has ended: it said why, or recv says it
            while self.conn.poll():
                self.recv()
            self.recv()


def _placeable(out: BinaryWriter, method: str) -> int | None:
    """The descriptor of ``out`` if the workers can write into it at offsets: a plain file
    (not opened for appending) of a process they were forked from."""
    if method != "fork" or not isinstance(out, (io.BufferedWriter, io.FileIO)):
        return None
    try:
        fd = out.fileno()
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        import fcntl
        if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND:
            return None
    except (OSError, ValueError, ImportError):
        return None
    return fd


class _LinesSource:
    lines = True


def convert_jelly_to_text(path: str, out: BinaryWriter, *, jobs: int, format: str,
                          syntax: str | None = None, limits: ReaderLimits | None = None
                          ) -> tuple[int, int] | None:
    """Convert the Jelly file at ``path`` to N-Triples (``format="nt"``) or N-Quads text in
    ``out`` with ``jobs`` worker processes; the text is the same as a conversion in one
    process writes.  Returns ``(statements, frames)``, or None (nothing written) when the file
    cannot be split into two parts or more: then convert it in one process."""
    limits = limits if limits is not None else DEFAULT_LIMITS
    with open(path, "rb", buffering=0) as src:
        size = os.fstat(src.fileno()).st_size
        found = scan(_blocks_at(src.fileno()), size, limits, 1 << 20)
        if found is None:
            return None
        parts = plan(found, size, min(MAX_PART_BYTES, max(1, size // (jobs * PARTS_PER_JOB))))
        if len(parts) < 2:
            return None
        return _jelly_to_text(path, src.fileno(), size, parts, out, jobs, format, syntax,
                              limits)


def _jelly_to_text(path: str, fd: int, size: int, parts: list[Part], out: BinaryWriter,
                   jobs: int, format: str, syntax: str | None, limits: ReaderLimits
                   ) -> tuple[int, int]:
    from .convert import NQuadsSink
    method = _start_method()
    import multiprocessing.connection
    ctx = multiprocessing.get_context(method)
    fd_out = _placeable(out, method)
    out.flush()
    offset = out.tell() if fd_out is not None else 0       # type: ignore[attr-defined]
    extent = offset         # the size of the output file
    sink = NQuadsSink(out, _LinesSource(), format=format, syntax=syntax)   # type: ignore[arg-type]
    shadow = None           # frames read in order, for the parts that are not self-contained
    workers = [_Worker(ctx, (path, fd_out, format == "nt", syntax, limits))
               for _ in range(min(jobs, len(parts)))]
    statements = frames = 0
    try:
        sent = 0
        for w in workers:                   # a part per worker: it holds one part's text
            w.send(parts[sent])
            w.parts.append(sent)
            sent += 1
        reports: dict[int, tuple[Any, _Worker]] = {}
        for k, part in enumerate(parts):
            while k not in reports:         # the sizes of the parts, as they come
                for conn in multiprocessing.connection.wait([w.conn for w in workers]):
                    w = next(w for w in workers if w.conn is conn)
                    reports[w.parts.popleft()] = (w.recv(), w)
            (_, length, n, m, failed), w = reports.pop(k)
            if fd_out is not None:
                if offset + length > extent:        # room for the worker's mapping
                    extent = offset + length
                    os.ftruncate(fd_out, extent)
                w.send(offset)
            else:
                w.send(-1)
                while True:                 # its text; size reports may come first
                    msg = w.recv()
                    if msg[0] == "text":
                        out.write(msg[1])
                        break
                    reports[w.parts.popleft()] = (msg, w)
            offset += length
            statements += n
            frames += m
            if sent < len(parts):
                w.send(parts[sent])
                w.parts.append(sent)
                sent += 1
            if failed is not None:
                if shadow is None:
                    shadow = _Sequential(opener(_read_at(fd)), size, limits, True,
                                         dict(terms=_text_terms(syntax), output="lines"))
                if fd_out is not None:
                    out.seek(offset)                                # type: ignore[attr-defined]
                for frame in shadow.frames(failed, part.end_frame):
                    sink.write(frame, False)
                    statements += frame.statement_count
                    frames += 1
                sink.close()
                if fd_out is not None:
                    offset = out.tell()                             # type: ignore[attr-defined]
        for w in workers:
            w.send(None)
        for w in workers:
            w.process.join()
            if w.process.exitcode:
                raise JellyError(f"a worker process failed (exit status {w.process.exitcode})")
        if fd_out is not None:
            out.seek(offset)                                        # type: ignore[attr-defined]
    finally:
        for w in workers:
            if w.process.is_alive():
                w.process.terminate()
                w.process.join()
            w.conn.close()
    return statements, frames


def _chunks(fd: int, size: int, segment_size: int) -> list[tuple[int, int]]:
    """Text cut at line ends into chunks of about ``segment_size`` statements (estimated from
    the first MiB), of at least ``MIN_CHUNK_BYTES``."""
    head = os.pread(fd, MIN_CHUNK_BYTES, 0)
    per_line = len(head) / max(1, head.count(b"\n"))
    target = max(MIN_CHUNK_BYTES, int(segment_size * per_line))
    cuts = [0]
    while cuts[-1] + target < size:
        at = cuts[-1] + target
        while at < size:                # after the next line feed: a line end
            window = os.pread(fd, 1 << 16, at)
            i = window.find(b"\n")
            if i >= 0:
                at += i + 1
                break
            at += len(window)
        if at >= size:
            break
        cuts.append(at)
    cuts.append(size)
    return list(zip(cuts, cuts[1:]))


def _contains(fd: int, size: int, needle: bytes) -> bool:
    """Whether the file holds ``needle`` (read in blocks into one buffer)."""
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    pos = 0
    while pos < size:
        n = os.preadv(fd, [view], pos)
        if n <= 0:
            return False
        if buf.find(needle, 0, n) >= 0:
            return True
        if pos + n >= size:
            return False
        pos += n - (len(needle) - 1)        # blocks overlap: a needle across two is seen
    return False


def _lines_before(fd: int, offset: int) -> int:
    """Line ends before ``offset`` as the N-Triples parser counts them (LF, CR, CR LF)."""
    lines = pos = 0
    cr = False
    while pos < offset:
        block = os.pread(fd, min(1 << 20, offset - pos), pos)
        if not block:
            break
        lines += block.count(b"\n") + block.count(b"\r") - block.count(b"\r\n")
        if cr and block[:1] == b"\n":
            lines -= 1              # a CR LF across two blocks
        cr = block.endswith(b"\r")
        pos += len(block)
    return lines


def _jelly_chunk(path: str, start: int, end: int, options: StreamOptions, rows_per_frame: int,
                 segment_size: int, syntax: str | None) -> tuple[bytes, int, int, bool]:
    """Worker: the text from ``start`` to ``end`` as Jelly frames that start a segment (the
    stream's options row, when ``start`` is 0); their statements and frames, and whether the
    text holds a message delimiter (then the rest is not encoded)."""
    from ._ntriples import MESSAGE, parse_nquads
    from .writer import Writer
    buf = io.BytesIO()
    writer = Writer(buf, options, rows_per_frame=rows_per_frame, segment_size=segment_size)
    if start:
        writer._encoder.start_segment()
    with open(path, "rb", buffering=0) as src:
        message = writer.write_until(parse_nquads(FileRange(_read_at(src.fileno()), start, end),
                                                  messages=True, syntax=syntax), MESSAGE)
    writer.close()
    return buf.getvalue(), writer.statements_written, writer.frames_written, message


def convert_text_to_jelly(path: str, out: BinaryWriter, *, jobs: int, options: StreamOptions,
                          rows_per_frame: int, segment_size: int, syntax: str | None = None
                          ) -> tuple[int, int] | None:
    """Convert the N-Triples / N-Quads file at ``path`` to a Jelly stream with ``options`` in
    ``out`` with ``jobs`` worker processes: the text is cut at line ends into chunks, each
    encoded as a segment (and cut into segments of ``segment_size`` statements), concatenated
    in order; the statements are those a conversion in one process writes.  ``options`` must
    have a version (no namespaces in text: 1).  Returns ``(statements, frames)``, or None
    (nothing written) when the text is too small for two chunks or is an RDF message log:
    then convert it in one process."""
    with open(path, "rb", buffering=0) as src:
        fd = src.fileno()
        size = os.fstat(fd).st_size
        if size == 0:
            return None
        chunks = _chunks(fd, size, segment_size)
        if len(chunks) < 2:
            return None
        # A message log (a '# @message' line anywhere) is read in order (convert's
        # NQuadsSource).  The workers see the delimiters; an output that can be taken back is
        # emptied when one does, any other is searched first.
        begin = None
        if _placeable(out, "fork") is not None:
            out.flush()
            begin = out.tell()                                      # type: ignore[attr-defined]
        elif _contains(fd, size, b"@message"):
            return None
        statements = frames = 0
        with _pool(jobs) as pool:
            results = _InOrder(pool, jobs, _jelly_chunk, (
                (path, start, end, options, rows_per_frame, segment_size, syntax)
                for start, end in chunks))
            try:
                for start, _ in chunks:
                    try:
                        data, n, k, message = next(results)
                    except RdfSyntaxError as exc:
                        # The worker counted lines from its chunk's start.
                        line = exc.line + _lines_before(fd, start) if exc.line else exc.line
                        raise RdfSyntaxError(exc.message, offset=exc.offset, frame=exc.frame,
                                             row=exc.row, line=line) from None
                    if message and begin is not None:
                        out.seek(begin)                             # type: ignore[attr-defined]
                        out.truncate()                              # type: ignore[attr-defined]
                        return None
                    out.write(data)
                    statements += n
                    frames += k
            finally:
                results.cancel()
    return statements, frames


# --------------------------------------------------------------------- jelly convert --jobs

#: Inputs from this size on are converted with as many worker processes as there are cores,
#: unless told otherwise: a Jelly file (about half a million statements), a text file.
AUTO_JOBS_BYTES = {"jelly": 8 << 20, "text": 64 << 20}
COMPRESSED_MAGIC = (b"\x1f\x8b", b"\x28\xb5\x2f\xfd")     # gzip, zstd: never split


def splittable_path(source: object) -> str | None:
    """The path of ``source`` if it is a plain file (not stdin, not compressed): only those
    are read in parts."""
    if not isinstance(source, (str, os.PathLike)) or os.fspath(source) == "-":
        return None
    path = os.fspath(source)
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return None
    return None if any(head.startswith(m) for m in COMPRESSED_MAGIC) else path


def parallel_formats(input_format: str, output_format: str) -> bool:
    """Whether ``jelly convert --jobs`` converts between these formats in parts."""
    return (input_format == "jelly" and output_format in ("nt", "nq")) or \
        (input_format in ("nt", "nq") and output_format == "jelly")


def auto_jobs(path: str | None, input_format: str = "jelly") -> int:
    """Worker processes for converting the file at ``path`` when not told: every core for a
    large plain file, else 1."""
    if path is None:
        return 1
    kind = "jelly" if input_format == "jelly" else "text"
    try:
        large = os.path.getsize(path) >= AUTO_JOBS_BYTES[kind]
    except OSError:
        return 1
    return available_cores() if large else 1


def _first_statement(path: str, syntax: str | None) -> tuple[Any, ...] | None:
    """The first statement of a text file (from its first MiB), None if there is none there or
    it does not parse."""
    from ._ntriples import parse_nquads
    with open(path, "rb") as f:
        head = f.read(MIN_CHUNK_BYTES)
    head = head[:head.rfind(b"\n") + 1] if len(head) == MIN_CHUNK_BYTES else head
    try:
        return next(iter(parse_nquads(head, syntax=syntax)), None)
    except JellyError:
        return None


def convert_file(path: str, out: BinaryWriter, input_format: str, output_format: str, *,
                 jobs: int, options: StreamOptions | None, fields: dict[str, Any],
                 rows_per_frame: int, delimited: bool, segment_size: int | None,
                 syntax: str | None, limits: ReaderLimits | None) -> tuple[int, int] | None:
    """What :func:`jelly.convert.convert` runs for ``jobs > 1``: the conversion of the plain
    file at ``path`` in parts, written to ``out``; ``(statements, frames)``, or None (nothing
    written) when it is to be converted in one process."""
    if input_format == "jelly":
        return convert_jelly_to_text(path, out, jobs=jobs, format=output_format, syntax=syntax,
                                     limits=limits)
    if not delimited or not segment_size:
        return None
    from .convert import jelly_options
    from .options import PROTOCOL_VERSION_1_0
    if input_format == "nq":
        quads = True
    else:
        first = _first_statement(path, syntax)
        if first is None:
            return None
        quads = len(first) == 4
    source = cast("Source", _TextSource(quads))
    resolved = jelly_options(source, options, fields).replace(version=PROTOCOL_VERSION_1_0)
    return convert_text_to_jelly(path, out, jobs=jobs, options=resolved,
                                 rows_per_frame=rows_per_frame, segment_size=segment_size,
                                 syntax=syntax)


@dataclasses.dataclass
class _TextSource:
    """What :func:`jelly.convert.jelly_options` needs to know of flat N-Triples / N-Quads."""
    quads: bool
    grouped: bool = False
    options: None = None
