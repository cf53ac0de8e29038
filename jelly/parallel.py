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
import contextlib
import dataclasses
import errno
import functools
import io
import marshal
import os
import select
import signal
import stat
import sys
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator, cast

from ._buffer import hold_heap
from ._decoder import Decoder, Frame
from ._framing import detect_delimited, segment_starts
from ._streaming import delimit
from .errors import JellyError, RdfSyntaxError
from .io import FrameReader, compression, is_stdio, not_jelly
from .options import DEFAULT_LIMITS, PhysicalStreamType, ReaderLimits, StreamOptions

# Workers are forked with os.fork and talk through pipes of their own (_Forked, _Channel):
# multiprocessing (11-13 ms to import and start a process) only where there is no fork.
if TYPE_CHECKING:
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
    options)``; both are None for the part at the start of the file.  ``stream``: the number of
    the stream its first frame is in (of streams with other options concatenated, read with
    ``new_streams``)."""
    start: int
    end: int
    frame: int
    end_frame: int
    options: bytes | None = None
    before: tuple[int, int, bytes] | None = None
    stream: int = 0


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


def plan(found: Scan, size: int, part_size: int, *, nearest: bool = False) -> list[Part]:
    """The parts of a file of ``size`` bytes with the segment starts ``found`` (:func:`scan`)
    for pieces of ``part_size`` bytes: the segments that start in the same piece form a part,
    the way Spark cuts a text file into splits and gives each line to the split it starts in.
    With ``nearest``, a part starts at the segment start nearest to each piece's start
    instead: segments about as large as the pieces then make a part each, where a segment
    ending just before a piece's end would share its part with the next one (a part twice
    the others' size that two workers of a conversion wait on).  A file with a frame that
    may start a stream in another form than a plain segment start is one part."""
    starts, frames = found
    if any(options is None for _, _, options in starts):
        return [Part(0, size, 0, frames)]
    part_size = max(1, part_size)
    parts: list[Part] = []
    first = Part(0, size, 0, frames)
    previous = None
    shift = part_size // 2 if nearest else 0
    stream = 0
    for offset, frame, options in starts:
        assert options is not None
        if previous is not None and options != previous[2] and \
                stream_options(options) != stream_options(previous[2]):
            stream += 1         # other options: a new stream (or an error) starts here
        if previous is not None and \
                (offset + shift) // part_size > (first.start + shift) // part_size:
            parts.append(dataclasses.replace(first, end=offset, end_frame=frame))
            first = Part(offset, size, frame, frames, options, previous, stream)
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
    """The frames from ``start`` (frame number ``index``) to ``end``, decoded by ``decoder``;
    an error in the file's first frame says what the file looks like, as a reader says it."""
    decoder.frame_index = index
    reader = FrameReader(open_range(start, end), limits, delimited=True)
    for offset, data in reader:
        try:
            frame = decoder.decode_frame(data, start + offset)
        except JellyError as exc:
            if start == 0 and exc.frame == 0:
                raise not_jelly(reader.head, exc) from None
            raise
        yield frame


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
    decoder.stream_index = part.stream
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
    return "fork" if hasattr(os, "fork") else "spawn"


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

    def read(self, n: int | None = -1) -> bytes:
        # What read_at gives, as it is: RawIOBase.read would copy it twice more (into a
        # bytearray through readinto, then into bytes), a fifth of the time of parsing a chunk.
        n = self._end - self._pos if n is None or n < 0 else min(n, self._end - self._pos)
        if n <= 0:
            return b""
        data = self._read_at(n, self._pos)
        self._pos += len(data)
        return data if isinstance(data, bytes) else bytes(data)

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[:len(data)] = data
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


#: Bytes of a mapped file a scan keeps mapped behind it (see :func:`scan_file`).
_SCAN_KEEP = 16 << 20


def scan_file(fd: int, size: int, limits: ReaderLimits = DEFAULT_LIMITS) -> Scan | None:
    """:func:`scan` of the file ``fd`` of ``size`` bytes, mapped into memory where it can be: a
    scan looks only at the starts of frames, and a mapping does not copy the rest (the 44 MB
    of a 2M-statement file, in a fresh process: 5.8 ms read in blocks, 2.8 ms mapped; the
    scan is on the way of every worker's first task).  The mapping is looked at
    :data:`_SCAN_KEEP` bytes at a time, and what is behind is let go."""
    try:
        import mmap
        mapped = mmap.mmap(fd, size, access=mmap.ACCESS_READ)
    except (ImportError, OSError, ValueError, OverflowError):
        return scan(_blocks_at(fd), size, limits, 1 << 20)
    dropped = 0

    def read(n: int, offset: int) -> memoryview:
        # Pages scanned are let go as the scan moves on: they stay in the page cache, but the
        # process would count the whole file as its own (a peak RSS of the file's size).
        nonlocal dropped
        if offset - dropped >= _SCAN_KEEP:
            upto = offset - offset % mmap.PAGESIZE
            mapped.madvise(mmap.MADV_DONTNEED, dropped, upto - dropped)
            dropped = upto
        return view[offset:offset + n]

    try:
        with memoryview(mapped) as view:
            return scan(read, size, limits, _SCAN_KEEP)
    finally:
        with contextlib.suppress(BufferError):  # a view in a traceback: closed when freed
            mapped.close()


class _Output:
    """The output of one task of a worker: what is written to it (a decoded frame's text, an
    encoded frame: ``bytes`` from the codecs), kept as it is, without a copy, until it is
    written out (:func:`_write_at`).  ``write`` lets a :class:`jelly.Writer` write into it.
    ``between``: called after each write, with the task still running (see :func:`_serve`)."""

    def __init__(self, between: Callable[[], object] | None = None) -> None:
        self.chunks: list[bytes] = []
        self.used = 0
        self.between = between

    def write(self, data: Any) -> int:
        if type(data) is not bytes:         # a view that its writer may change later
            data = bytes(data)
        self.chunks.append(data)
        self.used += len(data)
        if self.between is not None:
            self.between()
        return len(data)

    def flush(self) -> None:
        pass


#: Seconds that workers are given to write the outputs placed before an error (see
#: :meth:`_Placed.close`).
CLOSE_WAIT = 30.0

#: A task's output is written with ``pwritev`` in pieces of about this size: a write holds the
#: file's inode lock only that long.  Two workers writing whole parts at once spun on it for
#: up to half a second of CPU at 2M statements (``rwsem_spin_on_owner``); a shared mapping of
#: the output instead costs a page fault and the zeroing of each page written.
PIECE_BYTES = 1 << 20
#: The most buffers one ``pwritev`` takes (``IOV_MAX`` on Linux and macOS).
_IOV_MAX = 1024
#: The heap a worker grows at its start in huge pages and keeps (:func:`jelly._buffer.hold_heap`):
#: room for the outputs it holds (a part's text is 3-8 times its bytes, up to 8 MiB of them).
WORKER_HEAP = 64 << 20
#: Tasks a worker is sent ahead of the one it runs: it goes on to the next while the output
#: of the tasks before its own is not yet placed.
TASKS_AHEAD = 1


def _write_at(fd: int, offset: int, chunks: list[bytes]) -> None:
    """Write ``chunks`` one after the other into the file ``fd`` from ``offset``, about
    :data:`PIECE_BYTES` per system call."""
    group: list[memoryview] = []
    size = 0
    for chunk in chunks:
        view = memoryview(chunk)
        for at in range(0, len(view), PIECE_BYTES):
            group.append(view[at:at + PIECE_BYTES])
            size += len(group[-1])
            if size >= PIECE_BYTES or len(group) == _IOV_MAX:
                offset = _pwritev(fd, offset, group)
                group, size = [], 0
    if group:
        _pwritev(fd, offset, group)


def _pwritev(fd: int, offset: int, views: list[memoryview]) -> int:
    """Write all of ``views`` at ``offset`` (again after a short write); the offset after."""
    while views:
        try:
            done = os.pwritev(fd, views, offset)
            if not done:
                raise OSError(errno.EIO, "a write to the output file wrote nothing")
        except OSError as exc:
            exc.failed_at = offset  # type: ignore[attr-defined]   # see _Placed.close
            raise
        offset += done
        k = 0                                   # the views written whole
        while k < len(views) and done >= len(views[k]):
            done -= len(views[k])
            k += 1
        views = views[k:]
        if views and done:
            views[0] = views[0][done:]
    return offset


def _worker_main(conn: Any, inherited: list[int], fd_out: int | None, turn: _Turn | None,
                 run: Callable[[Any, _Output], tuple[Any, ...]], tasks: list[Any]) -> None:
    """A worker process.  It runs the tasks of ``tasks`` it is sent (``(index,)``), in order,
    each with ``run(task, output)``, and reports the size of each task's output and what
    ``run`` said; then it is told where the output goes: an offset of the output file, where it
    writes it itself (the output is written once, by the workers in parallel), or -1: back
    through the pipe (an output that is not a plain file).  An error is reported in place of
    the task's report (``"error"``; the worker goes on placing the outputs before it), or, in
    placing an output, as ``"lost"``; the worker then waits to be let go.  ``inherited``:
    descriptors of a forked worker to close (see :class:`_Worker`); ``turn``: whose turn it is
    to write into the output file (see :class:`_Turn`)."""
    for fd in inherited:
        os.close(fd)
    hold_heap(WORKER_HEAP)
    # terminate() ends a worker at once, whatever handler the program that forked it set (a
    # forked worker starts with SIGTERM blocked: see _Worker).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if inherited:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    said: tuple[Any, ...] = ("done",)      # every output placed is written
    try:
        lost = _serve(conn, fd_out, turn, run, tasks)
        if lost is not None:
            said = ("lost", lost)           # raised at once by the main process
    except (EOFError, OSError):             # the main process is gone: nobody to tell
        return
    except BaseException as exc:            # Ctrl-C while waiting (the main process has it
        said = ("error", exc)               # too): said as a task's error, no traceback
    try:
        conn.send(said)
        if said[0] != "done":
            for _ in iter(conn.recv, None):     # until the main process lets go
                pass
    except BaseException:                   # gone, or interrupted again: nothing to add
        pass


class _Lost(BaseException):
    """An output that could not be placed while a task ran (:func:`_serve`); a BaseException,
    so that no ``except Exception`` of the codecs takes it for the task's error."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(error)
        self.error = error


class _Turn:
    """The turn to write into the output file, passed between the workers: a pipe holding one
    byte, taken by the worker that writes.  Two workers writing into one file at once wait on
    its inode lock, spinning (each write took twice as long: they finish their tasks together
    and write together); a worker that finds the turn taken goes on with its task instead
    and writes when it is given back."""

    #: Seconds a worker with nothing else to do waits for the turn; then it writes without it
    #: (the turn only saves time: a worker that ended holding it must not stop the others).
    WAIT = 1.0

    def __init__(self) -> None:
        self.fds = os.pipe()
        os.set_blocking(self.fds[0], False)
        os.write(self.fds[1], b"t")

    def take(self, wait: bool) -> bool:
        """Take the turn; without ``wait``, only if it is free (False if not)."""
        deadline = time.monotonic() + self.WAIT
        while True:
            try:
                if os.read(self.fds[0], 1):
                    return True
            except BlockingIOError:
                pass
            left = deadline - time.monotonic()
            if not wait or left <= 0:
                return False
            select.select([self.fds[0]], [], [], left)

    def give(self) -> None:
        os.write(self.fds[1], b"t")

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)


def _serve(conn: Any, fd_out: int | None, turn: _Turn | None,
           run: Callable[[Any, _Output], tuple[Any, ...]], tasks: list[Any]
           ) -> BaseException | None:
    """Run tasks and place outputs as the main process says, until it lets go (``None``);
    the error of an output that could not be placed (the worker then stops).

    An output is written as soon as its place comes and ``turn`` is free, also while a later
    task runs: between two writes of that task's output the pipe is looked at.  Placed only
    between tasks, each output waited a task longer than it had to, and every worker ended
    with two or three outputs still to write after its last task."""
    waiting: collections.deque[_Output] = collections.deque()   # run, not yet placed
    ready: collections.deque[tuple[_Output, int]] = collections.deque()  # placed, not written
    inbox: collections.deque[Any] = collections.deque()     # tasks read while a task ran

    def place(offset: int) -> None:
        output = waiting.popleft()
        if offset < 0:
            # Back through the pipe about PIECE_BYTES at a time, each piece let go once sent:
            # one message of a part's text (up to 64 MiB) was three copies of it at once.
            chunks, output.chunks = output.chunks, []
            chunks.reverse()
            while chunks:
                group = [chunks.pop()]
                size = len(group[0])
                while chunks and size + len(chunks[-1]) <= PIECE_BYTES:
                    size += len(chunks[-1])
                    group.append(chunks.pop())
                conn.send(("data", group[0] if len(group) == 1 else b"".join(group)))
                del group
            conn.send(("placed",))
        else:
            ready.append((output, offset))

    def write(wait: bool) -> None:
        """Write the outputs placed, if the turn is free (``wait``: once it is)."""
        if not ready:
            return
        took = turn is not None and turn.take(wait)
        if not took and not wait:
            return
        try:
            while ready:
                output, offset = ready[0]
                assert fd_out is not None
                _write_at(fd_out, offset, output.chunks)
                ready.popleft()
        finally:
            if took:
                turn.give()                     # type: ignore[union-attr]

    def between() -> None:
        try:
            while conn.poll():
                msg = conn.recv()
                # A place is only ever sent for an output already reported (so never for the
                # task running): placing it before the tasks read with it changes nothing.
                if isinstance(msg, int):
                    place(msg)
                else:
                    inbox.append(msg)
            write(False)
        except Exception as exc:            # a full disk, the main process gone (Ctrl-C
            raise _Lost(exc) from None      # stays the task's, as without this)

    failed = False
    while True:
        try:
            if not inbox:
                write(True)                 # nothing else to do
        except BaseException as exc:        # a full disk
            return exc
        msg = inbox.popleft() if inbox else conn.recv()
        if msg is None:
            try:
                write(True)
            except BaseException as exc:
                return exc
            return None
        if isinstance(msg, int):
            try:
                place(msg)
            except BaseException as exc:    # the main process gone: telling it fails too
                return exc
            continue
        if failed:
            continue
        output = _Output(between)
        waiting.append(output)              # placed whether the task ends or fails
        try:
            said = run(tasks[msg[0]], output)
        except _Lost as lost:
            return lost.error
        except BaseException as exc:        # the main process raises it
            # A task's error is its report, raised in task order (as reading in order
            # would); the outputs of the tasks before it are still placed, and what the
            # task wrote before the error (the text before the error is written, as in
            # one process); later tasks are not run.
            conn.send(("error", exc, output.used))
            failed = True
            continue
        output.between = None
        conn.send(("size", output.used) + said)


def _how(exitcode: int | None) -> str:
    """How a worker process ended, from its exit code, for an error message."""
    if exitcode is None:
        return "(still running)"
    if exitcode < 0:
        try:
            return f"(killed by {signal.Signals(-exitcode).name})"
        except ValueError:
            return f"(killed by signal {-exitcode})"
    return f"(exit status {exitcode})"


class _Channel:
    """This process's ends of the two pipes to and from a forked worker: what a
    ``multiprocessing`` pipe gives (``send``, ``recv``, ``poll``) without importing
    ``multiprocessing``, which took 11-13 ms of a 0.3 s conversion on the way of the first
    task.  A message is its length and ``marshal``'s bytes, or ``pickle``'s for what
    ``marshal`` cannot take (an exception)."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd
        self._poller: Any = None

    def fileno(self) -> int:
        return self.read_fd

    def send(self, msg: Any) -> None:
        try:
            body = b"m" + marshal.dumps(msg)
        except ValueError:
            import pickle
            body = b"p" + pickle.dumps(msg, pickle.HIGHEST_PROTOCOL)
        views = [memoryview(len(body).to_bytes(8, "little")), memoryview(body)]
        while views:
            done = os.writev(self.write_fd, views)
            while views and done >= len(views[0]):
                done -= len(views.pop(0))
            if views:
                views[0] = views[0][done:]

    def recv(self) -> Any:
        body = self._read(int.from_bytes(self._read(8), "little"))
        if body[:1] == b"m":
            return marshal.loads(memoryview(body)[1:])
        import pickle
        return pickle.loads(memoryview(body)[1:])

    def _read(self, n: int) -> bytearray:
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            k = os.readv(self.read_fd, [view[got:]])
            if not k:
                raise EOFError("the other end of the pipe is closed")
            got += k
        return buf

    def poll(self, timeout: float = 0.0) -> bool:
        """Whether a message (or the pipe's end) is there to read, within ``timeout`` s."""
        if self._poller is None:
            self._poller = select.poll()
            self._poller.register(self.read_fd, select.POLLIN)
        return bool(self._poller.poll(int(timeout * 1000)))

    def close(self) -> None:
        for fd in (self.read_fd, self.write_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.read_fd = self.write_fd = -1


def _readable(fds: list[int], timeout: float | None) -> list[int]:
    """The descriptors of ``fds`` with something to read (or at their end), waiting up to
    ``timeout`` seconds (None: until one has); ``poll``, which takes any descriptor number."""
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    return [fd for fd, _ in poller.poll(None if timeout is None else int(timeout * 1000))]


class _Forked:
    """A worker process forked with ``os.fork``, running ``target(*args)``: what a
    ``multiprocessing`` process gives (``pid``, ``join``, ``exitcode``, ``is_alive``,
    ``terminate``).  The worker leaves with ``os._exit``: no exit handlers of the program
    it was forked from, and nothing of that program's buffers written out twice."""

    def __init__(self, target: Callable[..., object], args: tuple[Any, ...]) -> None:
        self.exitcode: int | None = None
        self.pid = os.fork()
        if self.pid == 0:
            code = 1
            try:
                target(*args)
                code = 0
            except SystemExit as exc:       # as the interpreter takes sys.exit's argument
                code = 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                import traceback
                traceback.print_exc()
                with contextlib.suppress(BaseException):
                    sys.stderr.flush()
            finally:
                os._exit(code)

    def _poll(self, flags: int) -> int | None:
        if self.exitcode is None:
            try:
                pid, status = os.waitpid(self.pid, flags)
            except ChildProcessError:       # reaped by someone else (SIGCHLD ignored)
                self.exitcode = 0
            else:
                if pid:
                    self.exitcode = os.waitstatus_to_exitcode(status)
        return self.exitcode

    def join(self, timeout: float | None = None) -> None:
        if timeout is None:
            self._poll(0)
            return
        deadline = time.monotonic() + timeout
        while self._poll(os.WNOHANG) is None and time.monotonic() < deadline:
            time.sleep(0.005)

    def is_alive(self) -> bool:
        return self._poll(os.WNOHANG) is None

    def terminate(self) -> None:
        if self._poll(os.WNOHANG) is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)


class _Worker:
    """A worker process and its end of the pipe; the tasks it holds, in order.  ``method``:
    ``"fork"`` (:class:`_Forked`, :class:`_Channel`) or a ``multiprocessing`` start method."""

    def __init__(self, method: str, args: tuple[Any, ...], started: list[_Worker]) -> None:
        self.conn: Any
        self.process: Any
        if method != "fork":
            import multiprocessing
            ctx: Any = multiprocessing.get_context(method)
            self.conn, child = ctx.Pipe()
            self.process = ctx.Process(target=_worker_main, args=(child, []) + args,
                                       daemon=True)
            self.process.start()
            child.close()
        else:
            worker_reads, main_writes = os.pipe()
            main_reads, worker_writes = os.pipe()
            self.conn = _Channel(main_reads, main_writes)
            # A forked worker has copies of this process's ends of the pipes, of its own too;
            # it closes them, so that it sees its pipe end (EOFError) if this process is
            # killed, instead of waiting for ever.
            inherited = [fd for w in started + [self]
                         for fd in (w.conn.read_fd, w.conn.write_fd)]
            # A SIGTERM (terminate()) before the worker has set its own handler would run the
            # handler of this process in it (the CLI's raises an exception): it waits, blocked.
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
            try:
                self.process = _Forked(_worker_main,
                                       (_Channel(worker_reads, worker_writes), inherited) + args)
            except BaseException:
                self.conn.close()
                raise
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                os.close(worker_reads)
                os.close(worker_writes)
        self.tasks: collections.deque[int] = collections.deque()

    def recv(self) -> Any:
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            self.process.join(5)        # its pipe closes as it ends: wait for its status
            raise JellyError(f"a worker process ended {_how(self.process.exitcode)}") from None

    def finish(self, timeout: float | None = None) -> BaseException | None:
        """Read what the worker says after it is let go, up to its end (or for ``timeout``
        seconds): reports of tasks not placed (dropped) and the error of an output it could
        not write (returned)."""
        lost = None
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while deadline is None or self.conn.poll(max(0.0, deadline - time.monotonic())):
                msg = self.conn.recv()
                if msg == ("done",):
                    break
                if msg[0] == "lost":
                    lost = msg[1]
        except (EOFError, OSError):         # it ended after an error
            pass
        return lost

    def send(self, msg: Any) -> None:
        try:
            self.conn.send(msg)
        except OSError:                 # it has ended: it said why, or recv says it
            msg = self.recv()
            raise msg[1] if msg[0] == "error" else \
                JellyError("a worker process stopped answering") from None


class _Placed:
    """Tasks run by ``jobs`` worker processes (``run(task, output)``, a module-level function)
    whose outputs go into ``out`` one after the other in task order, each written once: by
    the worker itself at its offset of a plain file, or by this process.  Iterating gives
    each task's report ``(index, said)`` in order, once its output is placed, so that the
    caller can stop (:attr:`offset` then is where the placed output ends).  A worker is sent
    its next task before its last output is placed, so no worker waits for the others; the
    tasks sent and not yet placed are bounded (memory is)."""

    def __init__(self, out: BinaryWriter, jobs: int, run: Callable[[Any, _Output], Any],
                 tasks: list[Any]) -> None:
        method = self._method = _start_method()
        self.out = out
        self.fd_out = _placeable(out, method)
        out.flush()
        self.offset = out.tell() if self.fd_out is not None else 0   # type: ignore[attr-defined]
        self._extent = self.offset       # the size of the output file
        self.tasks = tasks
        self.workers: list[_Worker] = []
        # The workers' turn to write (forked: they have its pipe; this process needs none).
        turn = _Turn() if self.fd_out is not None else None
        try:
            for _ in range(min(jobs, len(tasks))):
                self.workers.append(_Worker(method, (self.fd_out, turn, run, tasks),
                                            self.workers))
        except BaseException:
            self.close(check=False)
            raise
        finally:
            if turn is not None:
                turn.close()
        self._by_fd = {w.conn.fileno(): w for w in self.workers}
        self._window = len(self.workers) * (TASKS_AHEAD + 2)
        self._sent = 0
        self._reports: dict[int, tuple[Any, _Worker]] = {}

    def _feed(self, k: int) -> None:
        """Tasks to the workers that have fewer than 1 + TASKS_AHEAD to run (``k``: the next
        task to place)."""
        while self._sent < len(self.tasks) and self._sent < k + self._window:
            w = min(self.workers, key=lambda w: len(w.tasks))
            if len(w.tasks) > TASKS_AHEAD:
                return
            w.send((self._sent,))           # the worker has the tasks
            w.tasks.append(self._sent)
            self._sent += 1

    def _receive(self) -> None:
        if self._method == "fork":
            ready = _readable(list(self._by_fd), None)
        else:
            import multiprocessing.connection
            ready = [cast(Any, conn).fileno() for conn in
                     multiprocessing.connection.wait([w.conn for w in self.workers])]
        for fd in ready:
            w = self._by_fd[fd]
            self._report(w, w.recv())

    def _report(self, w: _Worker, msg: tuple[Any, ...]) -> None:
        """File a report of ``w`` under the task it ran: the oldest it holds."""
        if msg[0] == "lost":
            raise msg[1]
        self._reports[w.tasks.popleft()] = (msg, w)

    def __iter__(self) -> Iterator[tuple[int, tuple[Any, ...]]]:
        self._feed(0)
        for k in range(len(self.tasks)):
            while k not in self._reports:
                self._receive()
                self._feed(k)
            msg, w = self._reports.pop(k)
            if msg[0] == "error":
                if len(msg) > 2:            # not a worker's own end (Ctrl-C)
                    with contextlib.suppress(JellyError, OSError):  # the error comes first
                        self._place(w, msg[2])
                raise msg[1]
            self._place(w, msg[1])
            self._feed(k + 1)
            yield k, msg[2:]

    def _place(self, w: _Worker, length: int) -> None:
        """Place the next output of ``w`` (``length`` bytes) after those placed."""
        if self.fd_out is not None:
            if self.offset + length > self._extent:     # the workers write inside it
                self._extent = self.offset + length
                os.ftruncate(self.fd_out, self._extent)
            w.send(self.offset)
        else:
            w.send(-1)
            while True:                 # its output; reports of later tasks may come first
                data = w.recv()
                if data[0] == "data":
                    self.out.write(data[1])
                elif data[0] == "placed":
                    break
                else:
                    self._report(w, data)
        self.offset += length

    def seek(self) -> None:
        """Continue ``out`` (a plain file) where the placed output ends."""
        if self.fd_out is not None:
            self.out.seek(self.offset)                          # type: ignore[attr-defined]

    @contextlib.contextmanager
    def here(self) -> Iterator[None]:
        """This process writes into ``out`` in the block: after the output placed so far,
        before what is placed later."""
        self.seek()
        try:
            yield
        except OSError as exc:          # a full disk: the file ends where these bytes do
            if self.fd_out is not None and getattr(exc, "failed_at", None) is None:
                exc.failed_at = os.lseek(self.fd_out, 0, os.SEEK_CUR)  # type: ignore
            raise
        if self.fd_out is not None:
            self.offset = self.out.tell()                       # type: ignore[attr-defined]

    def __enter__(self) -> _Placed:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 *_: Any) -> None:
        self.close(check=kind is None, cut=getattr(error, "failed_at", None))

    def close(self, check: bool = True, cut: int | None = None) -> None:
        """Let the workers go once they have written the outputs placed; ``out`` goes on where
        the placed output ends.  ``check``: raise the error of an output a worker could not
        write (a full disk), which it may report only now.  Without it (an error is on its
        way) the workers are let go as well, so that the outputs placed before the error are
        written (no hole is left in a plain file: a standard output redirected to one, say),
        but are ended if they do not end within :data:`CLOSE_WAIT` seconds.

        A write that failed (a full disk; ``cut``: where, if the error on its way is one) leaves
        the outputs placed after it written, or the file stretched over them: the file is cut
        where the first failed write began, so that it holds what one process would have
        written, and no hole."""
        lost = None
        try:
            for w in self.workers:
                if check:
                    w.send(None)
                else:
                    with contextlib.suppress(OSError):      # it has ended
                        w.conn.send(None)
            for w in self.workers:
                said = w.finish(None if check else CLOSE_WAIT)
                at = getattr(said, "failed_at", None)
                if at is not None and (cut is None or at < cut):
                    cut = at
                lost = lost or said
                if check:
                    w.process.join()
                    if w.process.exitcode:
                        raise JellyError(f"a worker process failed "
                                         f"{_how(w.process.exitcode)}")
        finally:
            for w in self.workers:          # what still runs (one that did not end in time)
                w.conn.close()
                if w.process.is_alive():
                    w.process.terminate()
                    w.process.join()
            if cut is not None and self.fd_out is not None:
                with contextlib.suppress(OSError):
                    os.ftruncate(self.fd_out, cut)
                self.offset = self._extent = cut
        if check:
            if lost is not None:
                raise lost
            self.seek()


def _placeable(out: BinaryWriter, method: str) -> int | None:
    """The descriptor of ``out`` if the workers can write into it at offsets: a plain file
    (:func:`_plain_file`) of a process they were forked from."""
    return _plain_file(out) if method == "fork" else None


def _plain_file(out: BinaryWriter) -> int | None:
    """The descriptor of ``out`` if it is a plain file written at offsets (not opened for
    appending): one that can be written at any place, and taken back."""
    if not isinstance(out, (io.BufferedWriter, io.FileIO)):
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


# ------------------------------------------------------------------------ Jelly to text

def _text_terms(syntax: str | None) -> Any:
    from ._ntformat import NTriplesTerms
    return NTriplesTerms(syntax=syntax) if syntax else "nt"


@dataclasses.dataclass(frozen=True)
class _DecodePart:
    """A worker's task of Jelly to text: decode one part to text (see :func:`_decode_part`)."""
    path: str
    part: Part
    triples_only: bool
    syntax: str | None
    limits: ReaderLimits


def _decode_part(task: _DecodePart, output: _Output) -> tuple[int, int, int | None]:
    """Decode a part (verified, :func:`_verified`) to N-Triples / N-Quads text in ``output``;
    its statements and frames, and the frame from which it must be read in order (None if
    none: verified to its end)."""
    kwargs = dict(terms=_text_terms(task.syntax), output="text")
    statements = frames = 0
    with open(task.path, "rb", buffering=0) as src:
        try:
            for frame in _verified(opener(_read_at(src.fileno())), task.part, task.limits,
                                   True, kwargs):
                if task.triples_only and frame.named_graph_statements:
                    return statements, frames, frame.index   # the sequential path reports it
                output.write(frame.statements)
                statements += frame.statement_count
                frames += 1
        except _Unverified as stop:
            return statements, frames, stop.frame
    return statements, frames, None


class _DecodedToText:
    """The source :class:`jelly.convert.NQuadsSink` sees: frames decoded to text."""
    text = True


def convert_jelly_to_text(path: str, out: BinaryWriter, *, jobs: int, format: str,
                          syntax: str | None = None, limits: ReaderLimits | None = None,
                          progress: Callable[[int], object] | None = None
                          ) -> tuple[int, int] | None:
    """Convert the Jelly file at ``path`` to N-Triples (``format="nt"``) or N-Quads text in
    ``out`` with ``jobs`` worker processes; the text is the same as a conversion in one
    process writes.  Returns ``(statements, frames)``, or None (nothing written) when the file
    cannot be split into two parts or more: then convert it in one process.  ``progress``
    is called with the bytes of the file converted as each part is placed."""
    from .convert import NQuadsSink
    limits = limits if limits is not None else DEFAULT_LIMITS
    with open(path, "rb", buffering=0) as src:
        size = os.fstat(src.fileno()).st_size
        found = scan_file(src.fileno(), size, limits)
        if found is None:
            return None
        parts = plan(found, size, min(MAX_PART_BYTES, size // (jobs * PARTS_PER_JOB)),
                     nearest=True)
        if len(parts) < 2:
            return None
        sink = NQuadsSink(out, _DecodedToText(), format=format,      # type: ignore[arg-type]
                          syntax=syntax)
        shadow = None       # frames read in order, for the parts that are not self-contained
        statements = frames = 0
        with _Placed(out, jobs, _decode_part, [
                _DecodePart(path, part, format == "nt", syntax, limits) for part in parts]
                ) as placed:
            for k, (n, m, failed) in placed:
                statements += n
                frames += m
                if failed is not None:      # the rest of the part is read in order, here
                    if shadow is None:
                        shadow = _Sequential(opener(_read_at(src.fileno())), size, limits, True,
                                             dict(terms=_text_terms(syntax), output="text"))
                    with placed.here():
                        try:
                            for frame in shadow.frames(failed, parts[k].end_frame):
                                sink.write(frame, False)
                                statements += frame.statement_count
                                frames += 1
                        finally:            # on an error too: the text before it is written
                            sink.close()
                if progress is not None:
                    progress(parts[k].end)
    return statements, frames


# ------------------------------------------------------------------------ text to Jelly

def _chunks(fd: int, size: int, segment_size: int, jobs: int = 1) -> list[tuple[int, int]]:
    """Text cut at line ends into chunks of about ``segment_size`` statements (estimated from
    the first MiB), of at least ``MIN_CHUNK_BYTES``.  Towards the end they get smaller (at
    most a ``2 * jobs``-th of what is left), so that ``jobs`` workers finish together."""
    head = os.pread(fd, MIN_CHUNK_BYTES, 0)
    per_line = len(head) / max(1, head.count(b"\n"))
    target = max(MIN_CHUNK_BYTES, int(segment_size * per_line))
    cuts = [0]
    while True:
        at = cuts[-1] + max(MIN_CHUNK_BYTES, min(target, (size - cuts[-1]) // (2 * jobs)))
        if at >= size:
            break
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


@dataclasses.dataclass(frozen=True)
class _EncodeChunk:
    """A worker's task of text to Jelly: encode one chunk (see :func:`_encode_chunk`)."""
    path: str
    start: int
    end: int
    options: StreamOptions
    rows_per_frame: int
    segment_size: int
    syntax: str | None
    triples: bool           # N-Triples read by a strict syntax: no graph labels


def _encode_chunk(task: _EncodeChunk, output: _Output) -> tuple[int, int, bool]:
    """The text from ``start`` to ``end`` as Jelly frames that start a segment (the stream's
    options row, when ``start`` is 0) in ``output``; their statements and frames, and whether
    the text holds a message delimiter (then the rest is not encoded).  A syntax error counts
    its lines from the start of the file."""
    from ._ntriples import MESSAGE, parse_nquads
    from .writer import Writer
    writer = Writer(output, task.options, rows_per_frame=task.rows_per_frame,
                    segment_size=task.segment_size)        # it starts with a segment
    with open(task.path, "rb", buffering=0) as src:
        try:
            message = writer.write_until(parse_nquads(
                FileRange(_read_at(src.fileno()), task.start, task.end), messages=True,
                syntax=task.syntax, at_start=task.start == 0, triples=task.triples), MESSAGE)
        except RdfSyntaxError as exc:
            line = exc.line + _lines_before(src.fileno(), task.start) if exc.line else exc.line
            raise RdfSyntaxError(exc.message, offset=exc.offset, frame=exc.frame, row=exc.row,
                                 line=line) from None
    writer.close()
    return writer.statements_written, writer.frames_written, message


def convert_text_to_jelly(path: str, out: BinaryWriter, *, jobs: int, options: StreamOptions,
                          rows_per_frame: int, segment_size: int, syntax: str | None = None,
                          progress: Callable[[int], object] | None = None,
                          triples: bool = False) -> tuple[int, int] | None:
    """Convert the N-Triples / N-Quads file at ``path`` to a Jelly stream with ``options`` in
    ``out`` with ``jobs`` worker processes: the text is cut at line ends into chunks, each
    encoded as a segment (and cut into segments of ``segment_size`` statements), concatenated
    in order; the statements are those a conversion in one process writes.  ``options`` must
    have a version (no namespaces in text: 1).  ``progress`` is called with the bytes of the
    file converted as each chunk is placed.  Returns ``(statements, frames)``, or None
    (nothing written) when the text is too small for two chunks or is an RDF message log:
    then convert it in one process."""
    with open(path, "rb", buffering=0) as src:
        fd = src.fileno()
        size = os.fstat(fd).st_size
        if size == 0:
            return None
        chunks = _chunks(fd, size, segment_size, jobs)
        if len(chunks) < 2:
            return None
        # A message log (a '# @message' line anywhere) is read in order (convert's
        # NQuadsSource).  The workers see the delimiters; an output that can be taken back is
        # cut back to where it began when one does, any other is searched first.
        begin = None
        if _plain_file(out) is not None:
            out.flush()
            begin = out.tell()                                      # type: ignore[attr-defined]
        elif _contains(fd, size, b"@message"):
            return None
    statements = frames = 0
    with _Placed(out, jobs, _encode_chunk, [
            _EncodeChunk(path, start, end, options, rows_per_frame, segment_size, syntax,
                         triples)
            for start, end in chunks]) as placed:
        try:
            for index, (n, k, message) in placed:
                if message:
                    break
                statements += n
                frames += k
                if progress is not None:
                    progress(chunks[index][1])
            else:
                return statements, frames
        except JellyError as exc:   # a chunk's writer counts its own statements
            if exc.statement is not None:
                exc.at_statement(statements + exc.statement)
            raise
    assert begin is not None        # else the text was searched: it holds no delimiter
    out.seek(begin)                                                 # type: ignore[attr-defined]
    out.truncate()                                                  # type: ignore[attr-defined]
    return None


# --------------------------------------------------------------------- jelly convert --jobs

#: Inputs from this size on are converted with as many worker processes as there are cores,
#: unless told otherwise: a Jelly file (about 400,000 statements), a text file (about 130,000).
#: Below them two processes are no faster on two cores (``split_bench.py --only crossover``,
#: docs/performance.md).
AUTO_JOBS_BYTES = {"jelly": 8 << 20, "text": 16 << 20}


def splittable_path(source: object) -> str | None:
    """The path of ``source`` if it is a plain file (not stdin, not compressed): only those
    are read in parts."""
    if not isinstance(source, (str, os.PathLike)) or is_stdio(source):
        return None
    path = os.fspath(source)
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return None
    return None if compression(head) else path      # compressed input is never split


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


def _first_statement(path: str, syntax: str | None, triples: bool = False
                     ) -> tuple[Any, ...] | None:
    """The first statement of a text file (from its first MiB), None if there is none there or
    it does not parse."""
    from ._ntriples import parse_nquads
    with open(path, "rb") as f:
        head = f.read(MIN_CHUNK_BYTES)
    head = head[:head.rfind(b"\n") + 1] if len(head) == MIN_CHUNK_BYTES else head
    try:
        return next(iter(parse_nquads(head, syntax=syntax, triples=triples)), None)
    except JellyError:
        return None


def convert_file(path: str, out: BinaryWriter, input_format: str, output_format: str, *,
                 jobs: int, options: StreamOptions | None, fields: dict[str, Any],
                 rows_per_frame: int, delimited: bool, segment_size: int | None,
                 syntax: str | None, limits: ReaderLimits | None,
                 progress: Callable[[int], object] | None = None) -> tuple[int, int] | None:
    """What :func:`jelly.convert.convert` runs for ``jobs > 1``: the conversion of the plain
    file at ``path`` in parts, written to ``out``; ``(statements, frames)``, or None (nothing
    written) when it is to be converted in one process.  ``progress`` is called with the
    bytes of the file converted so far as parts are written."""
    if input_format == "jelly":
        return convert_jelly_to_text(path, out, jobs=jobs, format=output_format, syntax=syntax,
                                     limits=limits, progress=progress)
    if not delimited or not segment_size:
        return None
    from .convert import jelly_options
    from .options import PROTOCOL_VERSION_1_0
    if input_format == "nq":
        quads = True
    else:
        first = _first_statement(path, syntax, triples=syntax is not None)
        if first is None:
            return None
        quads = len(first) == 4
    source = cast("Source", _TextSource(quads))
    resolved = jelly_options(source, options, fields).replace(version=PROTOCOL_VERSION_1_0)
    return convert_text_to_jelly(path, out, jobs=jobs, options=resolved,
                                 rows_per_frame=rows_per_frame, segment_size=segment_size,
                                 syntax=syntax, progress=progress,
                                 triples=input_format == "nt" and syntax is not None)


@dataclasses.dataclass
class _TextSource:
    """What :func:`jelly.convert.jelly_options` needs to know of flat N-Triples / N-Quads."""
    quads: bool
    grouped: bool = False
    options: None = None
