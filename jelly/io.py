"""The one I/O layer: opening inputs and outputs, compression, safe writes, reading frames.

* :func:`open_input` - a path, ``"-"`` (stdin), bytes or a binary file object, as a binary
  stream; gzip- and zstd-compressed input is recognised by its magic bytes (any name, pipes
  included; zstd needs the ``zstandard`` package: ``pip install 'jelly[zstd]'``).  Input that
  is cut short or corrupt raises :class:`JellyDecodeError` naming the compression.
* :func:`open_output` - a path, ``"-"`` (stdout) or a binary file object; a path is written to
  a temporary file beside it and renamed into place only when the block succeeds, so a failed
  write never leaves half a file and never touches an existing one (through a symbolic link,
  the file it points to is replaced; a device, named pipe or socket such as ``/dev/null`` is
  written in place).  ``.gz`` and ``.zst`` compress.
* :class:`FrameReader` - the frames of a Jelly (or Jelly-Patch) stream, one at a time or in
  batches, with memory bounded by the largest frame; bytes input is split in place without
  copies.

Everything opened here is closed here.  Reading never mistakes a non-blocking stream's "no data
yet" (``read()`` returning ``None``) for the end of the input: it waits for data.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import os
import select
import signal
import stat
import sys
import tempfile
import time
import weakref
import zlib
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any, Callable, Iterator, TypeVar, cast

from ._framing import FrameSplitter, detect_delimited, frames_in, is_rdf_protobuf_row
from .errors import JellyDecodeError, JellyError, JellyLimitError
from .options import DEFAULT_LIMITS, ReaderLimits

CHUNK_SIZE = 1 << 16
GZIP_MAGIC = b"\x1f\x8b"
#: What reading an input may raise (a broken or truncated gzip member, an I/O error): every
#: reader turns it into JellyDecodeError.
READ_ERRORS = (OSError, EOFError, zlib.error)
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
#: Compression level of zstd output (zstandard's default; see docs/performance.md).
ZSTD_LEVEL = 3
#: Compressed bytes decompressed at a time (what they decompress to is at most ~8 MiB).
ZSTD_PIECE = 256
#: Bytes of an input kept to tell what it is when it is not what it should be.
HEAD_SIZE = 4096
#: Frames of bytes input split at a time (views into it, so a batch costs little memory).
BATCH_FRAMES = 1024
#: Frames as a reader gets them: (offset of the frame's bytes in the stream, the bytes).
Frames = list[tuple[int, bytes | memoryview]]

if TYPE_CHECKING:
    from typing import Protocol, Union

    from typing_extensions import TypeAlias

    class BinaryReader(Protocol):
        """A binary stream to read from (``read()`` may return None: no data yet)."""

        def read(self, size: int, /) -> bytes | bytearray | memoryview | None: ...

    class BinaryWriter(Protocol):
        """A binary stream to write to."""

        def write(self, data: bytes, /) -> object: ...

        def flush(self) -> object: ...

    #: What a reader takes: a path (``"-"``: stdin), bytes or a binary stream.
    Input: TypeAlias = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, BinaryReader]
    #: What a writer takes: a path (``"-"``: stdout) or a binary stream.
    Output: TypeAlias = Union[str, "os.PathLike[str]", BinaryWriter]


def read_some(stream: BinaryReader, n: int) -> bytes:
    """Up to ``n`` bytes, ``b""`` only at the end of the input.  What a pipe or socket has is
    returned at once (``read1``: a live stream is not held back until ``n`` bytes arrive).  A
    non-blocking stream with no data yet (``read()`` returns ``None``) is waited on, never
    taken for the end.  Under :func:`watch_signals`, a wait for input ends on a signal."""
    delay = 0.001
    read1 = getattr(stream, "read1", None)
    read: Callable[[int], bytes | bytearray | memoryview | None] = read1 or stream.read
    while True:
        if _signal_pipe is not None:
            _wait_for_input(stream)
        data = read(n)
        if data is not None and not data and read1 is not None:
            # A buffered stream over a non-blocking one gives b"" from read1() when it has no
            # data yet; its read() tells that apart from the end (None: no data yet).
            data = stream.read(n)
        if data is not None:
            break
        try:
            select.select([stream.fileno()], [], [], 1.0)  # type: ignore[attr-defined]
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            time.sleep(delay)         # no file descriptor to wait on: back off
            delay = min(delay * 2, 0.05)
    if _signal_pipe is not None and len(data) < n and isinstance(stream, io.BufferedReader):
        _drained.add(stream)        # read1 gave all it held: it holds nothing until peeked
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    if not isinstance(data, bytes):
        raise JellyError("expected a binary stream (open the file in 'rb' mode)")
    return data


#: The read end of the pipe that signals are written to under :func:`watch_signals`.
_signal_pipe: int | None = None
#: Buffered streams known to hold no bytes in their buffer (see :func:`read_some`).
_drained: weakref.WeakSet[io.BufferedReader] = weakref.WeakSet()
#: Files whose reads never wait (regular files: ``select`` always calls them ready), looked up
#: once per file, not waited on with a system call per read.
_never_waits: weakref.WeakSet[io.FileIO] = weakref.WeakSet()


@contextlib.contextmanager
def watch_signals() -> Iterator[None]:
    """Let a signal stop a read that waits for input (a pipe, socket or terminal that has
    nothing yet).  CPython runs a Python signal handler between bytecodes, so a signal that
    arrives just before a blocking ``read()`` leaves the read blocked with the handler not run
    (a command stopped by ``kill`` would wait for input that may never come).  Here
    :func:`read_some` waits with ``select`` on the input and on a pipe that the signal's C
    handler writes to (``signal.set_wakeup_fd``), and reads only once there is input.  For a
    command's main thread (elsewhere, and off POSIX, nothing is done)."""
    global _signal_pipe
    pipe = os.pipe() if os.name == "posix" and _signal_pipe is None else None
    previous = None
    if pipe is not None:
        for fd in pipe:
            os.set_blocking(fd, False)      # as set_wakeup_fd needs, and to drain it
        try:
            previous = signal.set_wakeup_fd(pipe[1], warn_on_full_buffer=False)
        except ValueError:                  # not the main thread
            os.close(pipe[0])
            os.close(pipe[1])
            pipe = None
    if pipe is not None:
        _signal_pipe = pipe[0]
    try:
        yield
    finally:
        if pipe is not None:
            _signal_pipe = None
            signal.set_wakeup_fd(previous if previous is not None else -1)
            os.close(pipe[0])
            os.close(pipe[1])


def _wait_for_input(stream: BinaryReader) -> None:
    """Wait until ``stream`` has input (or its end) to read without blocking, or a signal
    came (its handler runs as this returns to Python, and may raise).  Only a raw file, or a
    buffered one with an empty buffer, is waited on: bytes in a buffer are input at hand."""
    raw: Any = stream
    if isinstance(stream, io.BufferedReader):
        # over another layer (Chained), the read_some of that layer waits: the layer may
        # hold bytes while the descriptor has none
        if stream not in _drained or not isinstance(stream.raw, io.FileIO):
            return
        raw = stream.raw
    elif not isinstance(stream, io.FileIO):
        return
    if raw in _never_waits:
        return
    assert _signal_pipe is not None
    try:
        fd = raw.fileno()
        if stat.S_ISREG(os.fstat(fd).st_mode):
            _never_waits.add(raw)
            return
        while fd not in select.select([fd, _signal_pipe], [], [])[0]:
            with contextlib.suppress(OSError):      # empty: BlockingIOError
                while os.read(_signal_pipe, 64):
                    pass
    except (OSError, ValueError):   # no descriptor, or one select cannot take: read as is
        return


class Chained(io.RawIOBase):
    """Bytes already read (``head``: what a peek took from a pipe), then the rest of ``raw``,
    read with :func:`read_some`.  Also a way to have any stream read through ``read_some``
    (with no head): a ``BufferedReader`` over it reads lines, or ``n`` bytes, in pieces."""

    def __init__(self, head: bytes, raw: BinaryReader) -> None:
        self._head = memoryview(head)
        self._raw = raw

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self._head:
            n = min(len(b), len(self._head))
            b[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = read_some(self._raw, len(b))
        b[:len(data)] = data
        return len(data)

    def fileno(self) -> int:
        return self._raw.fileno()  # type: ignore[attr-defined,no-any-return]


def peek(stream: BinaryReader, n: int) -> tuple[bytes, BinaryReader]:
    """The first ``n`` bytes of ``stream`` (fewer at its end) and a stream that still starts
    with them."""
    if hasattr(stream, "peek") and not isinstance(stream, gzip.GzipFile):
        _drained.discard(stream)    # type: ignore[arg-type]    # a peek fills the buffer
        try:
            head = stream.peek(n)[:n]
            if len(head) >= n or not head:
                return head, stream
        except (OSError, ValueError):
            pass
    head = b""
    while len(head) < n:
        more = read_some(stream, n - len(head))
        if not more:
            break
        head += more
    return head, Chained(head, stream)


def _zstandard() -> Any:
    try:
        import zstandard
    except ImportError:
        raise JellyError("zstd-compressed data needs the zstandard package: "
                         "pip install 'jelly[zstd]'") from None
    return zstandard


class _Decompressed(io.RawIOBase):
    """Decompressed input (gzip or zstd) whose errors say what happened: input that ends
    inside the compressed data, or is not valid compressed data, raises
    :class:`JellyDecodeError` with the number of bytes decompressed until then."""

    def __init__(self, raw: BinaryReader, kind: str) -> None:
        self._kind = kind
        self._raw = raw
        self._out = 0
        self._pending = b""
        self._errors: tuple[type[BaseException], ...] = READ_ERRORS
        if kind == "gzip":
            # gzip reads through read_some too, as every reader does
            self._gzip: Any = gzip.GzipFile(fileobj=io.BufferedReader(
                raw if isinstance(raw, Chained) else Chained(b"", raw), CHUNK_SIZE), mode="rb")
        else:
            zstd = _zstandard()
            self._errors += (zstd.ZstdError,)
            self._dctx = zstd.ZstdDecompressor()
            self._obj = self._dctx.decompressobj()
            self._fed = False           # bytes of the current zstd frame were fed
            self._done = False
            self._input, self._in_at = b"", 0
            self._out_at = 0

    def readable(self) -> bool:
        return True

    def _fail(self, exc: BaseException) -> JellyDecodeError:
        what = "cut short" if isinstance(exc, EOFError) else "corrupt"
        return JellyDecodeError(f"the {self._kind}-compressed input is {what} ({exc}) after "
                                f"{self._out} bytes of decompressed data")

    def readinto(self, b: Any) -> int:
        try:
            data = self._gzip.read1(len(b)) if self._kind == "gzip" else self._zstd_read(len(b))
        except self._errors as exc:
            raise self._fail(exc) from None
        b[:len(data)] = data
        self._out += len(data)
        return len(data)

    def _zstd_read(self, n: int) -> bytes:
        # The input goes in in small pieces, so that what one piece decompresses to stays
        # bounded (zstd can make megabytes of a few bytes); offsets instead of slicing.
        while self._out_at >= len(self._pending) and not self._done:
            if self._in_at >= len(self._input):
                self._input, self._in_at = read_some(self._raw, CHUNK_SIZE), 0
                if not self._input:
                    if self._fed and not self._obj.eof:
                        raise EOFError("the input ends inside a zstd frame")
                    self._done = True
                    break
            piece = self._input[self._in_at:self._in_at + ZSTD_PIECE]
            self._in_at += len(piece)
            self._fed = True
            self._pending, self._out_at = self._obj.decompress(piece), 0
            if self._obj.eof:       # a frame ended inside the piece: the next starts there
                self._input = self._obj.unused_data + self._input[self._in_at:]
                self._in_at = 0
                self._obj = self._dctx.decompressobj()
                self._fed = False
        out = self._pending[self._out_at:self._out_at + n]
        self._out_at += len(out)
        return out

    def close(self) -> None:
        if self._kind == "gzip":
            self._gzip.close()
        super().close()


def compression(head: bytes | bytearray | memoryview) -> str | None:
    """``"gzip"`` or ``"zstd"`` if an input starting with ``head`` is compressed so, else
    None: the one test every reader and splitter of the package makes."""
    head = bytes(head[:4])
    return "gzip" if head[:2] == GZIP_MAGIC else "zstd" if head == ZSTD_MAGIC else None


def in_place(source: object) -> memoryview | None:
    """The bytes of ``source`` as they are, when it is a bytes-like object that is not
    compressed (a reader splits them without a copy); None when it is to be opened with
    :func:`open_input` (a path, a stream, compressed bytes)."""
    if not isinstance(source, (bytes, bytearray, memoryview)):
        return None
    view = memoryview(source).cast("B")
    return None if compression(view) else view


def _is_text(stream: object) -> bool:
    return isinstance(stream, io.TextIOBase)


@contextlib.contextmanager
def open_input(source: Input, *, decompress: bool = True) -> Iterator[BinaryReader]:
    """A binary stream over ``source`` (path, ``"-"`` for stdin, bytes-like object, binary
    file object), decompressed when it starts with the gzip or zstd magic bytes.  What is
    opened here is closed on exit; a file object passed in stays open."""
    with contextlib.ExitStack() as stack:
        if isinstance(source, (bytes, bytearray, memoryview)):
            stream: BinaryReader = io.BytesIO(source)
        elif is_stdio(source):
            stream = sys.stdin.buffer
        elif isinstance(source, (str, os.PathLike)):
            try:
                stream = stack.enter_context(open(source, "rb"))
            except OSError as exc:
                raise JellyError(f"cannot open {os.fspath(source)!r}: "
                                 f"{exc.strerror or exc}") from None
        elif hasattr(source, "read"):
            if _is_text(source):
                raise JellyError("expected a binary stream, got a text stream (open the file "
                                 "in 'rb' mode)")
            stream = source
        else:
            raise TypeError(f"cannot read from {type(source).__name__}: pass a path, bytes or "
                            f"a binary file object")
        if decompress:
            head, stream = peek(stream, 4)
            kind = compression(head)
            if kind is not None:
                stream = stack.enter_context(_Decompressed(stream, kind))
        yield stream


class CountedReader(io.RawIOBase):
    """The bytes of a file opened for reading, with ``update(n)`` called with the number read
    so far: a conversion's progress (counted before decompression, so that it is a share of
    the file's size)."""

    def __init__(self, file: io.BufferedIOBase, update: Callable[[int], object]) -> None:
        self._file = file
        self._update = update
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = self._file.readinto(b)
        if n:
            self.count += n
            self._update(self.count)
        return n


#: Outputs to paths being written, and renamed into place (see :func:`outputs_done`).
_outputs = {"open": 0, "done": 0}


def outputs_done(since: tuple[int, int] = (0, 0)) -> bool:
    """Whether every output path opened (since ``since``, an :func:`outputs_mark`) is renamed
    into place, and there was one: a signal that comes now finds the command's work done
    (``jelly.cli`` then exits 0)."""
    return _outputs["done"] > since[1] and _outputs["open"] == since[0]


def outputs_mark() -> tuple[int, int]:
    """The outputs open and done so far (for :func:`outputs_done`)."""
    return _outputs["open"], _outputs["done"]


class _AtomicFile(io.BufferedWriter):
    """A file written under a temporary name beside ``path`` and renamed into place by
    :meth:`commit`; :meth:`close` without a commit removes it."""

    def __init__(self, path: str) -> None:
        directory = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".part",
                                   dir=directory)
        super().__init__(io.FileIO(fd, "wb"), CHUNK_SIZE)
        self._tmp: str | None = tmp         # None once renamed into place
        self._path = path
        _outputs["open"] += 1

    def commit(self) -> None:
        assert self._tmp is not None, "committed twice"
        self.flush()
        os.fsync(self.fileno()) if os.environ.get("JELLY_FSYNC") else None
        super().close()
        try:
            mode = os.stat(self._path).st_mode & 0o7777      # keep an existing file's mode
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(self._tmp, mode)
        try:
            os.replace(self._tmp, self._path)
        finally:
            # renamed, though a signal may have come just after: the work is done
            if not os.path.exists(self._tmp):
                self._tmp = None
                _outputs["done"] += 1
                _outputs["open"] -= 1

    def close(self) -> None:
        """Without a commit: the temporary file goes, and what is still buffered is dropped
        (closing the raw file first), so an output that failed to write (a full disk) is not
        written again, and does not fail again, on the way out."""
        try:
            if not self.raw.closed:
                self.raw.close()
        finally:
            if self._tmp is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self._tmp)
                self._tmp = None
                _outputs["open"] -= 1


def _mode(path: str) -> int | None:
    """The file type and mode of ``path`` after symbolic links; None if there is no file."""
    try:
        return os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None


def compression_of_name(path: str) -> str | None:
    """The compression a path's name asks for: ``"gzip"`` (``.gz``), ``"zstd"`` (``.zst``)."""
    name = path.lower()
    return "gzip" if name.endswith(".gz") else "zstd" if name.endswith(".zst") else None


def is_stdio(source: object) -> bool:
    """Whether ``source`` names stdin or stdout: the path ``"-"``."""
    return isinstance(source, (str, os.PathLike)) and os.fspath(source) == "-"


@contextlib.contextmanager
def open_output(target: Output, *, compress: str | None = None) -> Iterator[BinaryWriter]:
    """A binary stream to ``target``: a path (written atomically: see the module docstring),
    ``"-"`` (stdout) or a binary file object (left open).  ``compress="gzip"`` or ``"zstd"``
    compresses; by default a path ending in ``.gz`` or ``.zst`` does."""
    with contextlib.ExitStack() as stack:
        atomic = None
        if is_stdio(target):
            stream: IO[bytes] = sys.stdout.buffer
        elif isinstance(target, (str, os.PathLike)):
            path = os.fspath(target)
            try:
                mode = _mode(path)
                if mode is not None and stat.S_ISDIR(mode):
                    raise JellyError(f"cannot write {path!r}: it is a directory")
                if mode is not None and not stat.S_ISREG(mode):
                    # /dev/null, /dev/stdout, a named pipe: what it is must stay (renaming a
                    # file over /dev/null would replace the device), so it is written to.
                    stream = stack.enter_context(open(path, "wb"))
                else:
                    # Through a symbolic link: the file it points to is replaced, not the link.
                    atomic = _AtomicFile(os.path.realpath(path))
                    stack.callback(atomic.close)
                    stream = atomic
            except OSError as exc:
                raise JellyError(f"cannot write {path!r}: {exc.strerror or exc}") from None
            if compress is None:
                compress = compression_of_name(path)
        elif hasattr(target, "write"):
            if _is_text(target):
                raise JellyError("this output is binary: pass a binary stream (opened with "
                                 "'wb'), not a text stream")
            stream = cast("IO[bytes]", target)
            if isinstance(target, io.RawIOBase) and not isinstance(target, io.FileIO):
                # A raw stream may take fewer bytes than it is given (a file's descriptor
                # takes all but on a full disk, which the next write reports).
                stream = cast("IO[bytes]", _WriteAll(target))
            elif not callable(getattr(target, "flush", None)):
                stream = cast("IO[bytes]", _WriteOnly(target))     # write() and nothing else
        else:
            raise TypeError(f"cannot write to {type(target).__name__}: pass a path, '-' or a "
                            f"binary file object")
        outer: Any = stream
        if compress == "gzip":
            outer = gzip.GzipFile(fileobj=stream, mode="wb", mtime=0)
        elif compress == "zstd":
            outer = _zstandard().ZstdCompressor(level=ZSTD_LEVEL).stream_writer(
                stream, closefd=False)
        elif compress is not None:
            raise JellyError(f"unknown compression {compress!r}")
        yield outer
        if outer is not stream:
            outer.close()         # writes the gzip / zstd end; the inner stream stays open
        stream.flush()
        if atomic is not None:
            atomic.commit()


class _WriteAll:
    """A raw stream whose writes write every byte: what is not taken is written again.
    Nothing is buffered, so a flush is the raw stream's."""

    def __init__(self, raw: io.RawIOBase) -> None:
        self._raw = raw

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        total = len(view)
        while view:
            n = self._raw.write(view)
            if n is None:
                raise BlockingIOError(errno.EAGAIN, "the output cannot take more bytes now")
            view = view[n:]
        return total

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class _WriteOnly:
    """An object with a ``write`` method only (what the docs ask of an output): flushing it
    is nothing to do."""

    def __init__(self, target: Any) -> None:
        self.write = target.write

    def flush(self) -> None:
        pass


class Destination:
    """The destination of a writer of this package, and its life: a path (written to a
    temporary file and renamed into place on :meth:`close`; see :func:`open_output`), ``"-"``,
    a binary stream (flushed and left open) or None (the bytes are kept: :meth:`getvalue`).
    :meth:`close` writes what the format holds back (:meth:`_finish`) and then finishes the
    destination; an error on the way, an exception in a ``with`` block, or :meth:`abort`
    leaves a path as it was before."""

    _stream: BinaryWriter

    def __init__(self, destination: Output | None) -> None:
        self._closed = False
        self._stack = contextlib.ExitStack()
        self._result: io.BytesIO | None = None
        if destination is None:
            self._result = self._stream = io.BytesIO()
        else:
            self._stream = self._stack.enter_context(open_output(destination))

    def __enter__(self: _D) -> _D:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def _finish(self) -> None:
        """Write out what the format holds back (at :meth:`close`)."""

    def _write_out(self) -> None:
        """Write out what is buffered, so that :meth:`getvalue` has it."""

    def close(self) -> None:
        """Finish the stream and the destination (a path is renamed into place)."""
        if self._closed:
            return
        try:
            self._finish()
            self._stream.flush()
        except BaseException:
            self.abort()
            raise
        self._closed = True
        self._stack.close()

    def abort(self) -> None:
        """Stop without finishing: a destination path is left as it was before."""
        if self._closed:
            return
        self._closed = True
        # Leaving the output context with an error discards the temporary file.
        self._stack.__exit__(JellyError, JellyError("aborted"), None)

    def _check_open(self) -> None:
        if self._closed:
            raise JellyError("the writer is closed")

    def getvalue(self) -> bytes:
        """The bytes written so far, when the destination was ``None``."""
        if self._result is None:
            raise JellyError("getvalue() is only for writers created without a destination")
        self._write_out()
        return self._result.getvalue()


_D = TypeVar("_D", bound=Destination)


def open_frames(source: Input, stack: contextlib.ExitStack, limits: ReaderLimits = DEFAULT_LIMITS,
                delimited: bool | None = None, kind: str = "Jelly") -> FrameReader:
    """The frames of a Jelly or Jelly-Patch input of any kind: bytes that are not compressed
    are split in place, anything else is opened in ``stack`` (:func:`open_input`: a path, a
    stream, gzip or zstd)."""
    view = in_place(source)
    return FrameReader(view if view is not None else stack.enter_context(open_input(source)),
                       limits, delimited, kind)


def not_jelly(head: bytes, error: JellyError, kind: str = "Jelly") -> JellyError:
    """The error to raise when the start of an input (``head``) failed to read as Jelly (or
    ``kind``): "not a Jelly file (it looks like N-Triples)" when it looks like something else,
    else ``error``."""
    from .formats import looks_like
    what = looks_like(head)
    if what is None or what.partition(":")[0] == kind:    # what is being read, cut short say
        return error
    return JellyDecodeError(f"not a {kind} file (it looks like {what})")


def _file_readinto(source: object) -> Callable[[memoryview], int | None] | None:
    """``readinto`` of a buffered regular file (which never waits for data), else None."""
    if not isinstance(source, io.BufferedReader):
        return None
    try:
        if stat.S_ISREG(os.fstat(source.fileno()).st_mode):
            return source.readinto
    except (OSError, ValueError, io.UnsupportedOperation):
        pass
    return None


class FrameReader:
    """The frames of a Jelly (or Jelly-Patch) stream, one at a time: iterating gives
    ``(offset, frame)`` where ``offset`` is where the frame's bytes start in the stream (after
    its length prefix) and ``frame`` its bytes (a memoryview into bytes input, which is split
    in place, or into a frame gathered from several reads); :meth:`batches` gives them in
    lists.  Memory is bounded by the largest frame (and a batch of frames that one read of at
    most 64 KiB completes); ``delimited`` is known once the first bytes are read (or forced by
    the argument)."""

    def __init__(self, source: bytes | bytearray | memoryview | BinaryReader,
                 limits: ReaderLimits = DEFAULT_LIMITS,
                 delimited: bool | None = None, kind: str = "Jelly") -> None:
        self._source = source
        #: What is being read ("Jelly" or "Jelly-Patch"), for the error of an input that is not.
        self.kind = kind
        self._limits = limits
        self.delimited = delimited
        #: The first bytes of the input (up to HEAD_SIZE), to tell what it is if not Jelly.
        self.head = b""

    def __iter__(self) -> Iterator[tuple[int, bytes | memoryview]]:
        for batch in self.batches():
            yield from batch

    def batches(self) -> Iterator[Frames]:
        """The frames as :meth:`__iter__` gives them, in lists (those one read of the input
        completes; at most :data:`BATCH_FRAMES` from bytes input), never empty: for readers
        that decode many frames in one call."""
        started = False
        try:
            for batch in self._frames():
                if not batch:
                    continue
                if not started:
                    started = True
                    self._check_first(batch[0][1])
                yield batch
        except JellyError as exc:
            if started:
                raise
            raise not_jelly(self.head, exc, self.kind) from None

    def _check_first(self, frame: bytes | memoryview) -> None:
        """A first frame that is a row of Jena's RDF Protobuf would read as an empty frame;
        the decoder refuses it too, this also for the readers that do not decode
        (transcode, inspect)."""
        if is_rdf_protobuf_row(frame):
            raise JellyDecodeError("not a Jelly file (it looks like RDF Protobuf)")

    def _frames(self) -> Iterator[Frames]:
        source = self._source
        if isinstance(source, (bytes, bytearray, memoryview)):
            self.head = bytes(memoryview(source)[:HEAD_SIZE])
            yield from self._in_place(memoryview(source))
            return
        splitter = FrameSplitter(max_frame_size=self._limits.max_frame_size,
                                 delimited=self.delimited)
        readinto = _file_readinto(source)
        while True:
            if readinto is not None and (want := splitter.wanted) > CHUNK_SIZE:
                # A large frame of a file: read straight into its buffer (not 64 KiB at a
                # time, copied twice), at most as much again as it holds: the buffer follows
                # the bytes there are, not the length the prefix declares.
                try:
                    got, frames = splitter.read_into(
                        readinto, min(want, max(CHUNK_SIZE, splitter.buffered)))
                except READ_ERRORS as exc:
                    raise JellyDecodeError(f"cannot read the input: {exc}",
                                           offset=splitter.position + splitter.buffered) from None
                if got:
                    yield frames
                    continue
            try:
                data = read_some(source, CHUNK_SIZE)
            except READ_ERRORS as exc:
                raise JellyDecodeError(f"cannot read the input: {exc}",
                                       offset=splitter.position + splitter.buffered) from None
            if len(self.head) < HEAD_SIZE:
                self.head += data[:HEAD_SIZE - len(self.head)]
            frames = splitter.feed(data) if data else splitter.finish()
            self.delimited = splitter.delimited
            yield frames
            if not data:
                return

    def _in_place(self, view: memoryview) -> Iterator[Frames]:
        limit = self._limits.max_frame_size
        if self.delimited is None:
            self.delimited = detect_delimited(view[:3], True)
        if not self.delimited:
            if len(view) > limit:
                raise JellyLimitError(f"single-frame input exceeds the frame size limit of "
                                      f"{limit} bytes", offset=0, frame=0)
            yield [(0, view)]
            return
        pos = index = 0
        while True:
            frames, pos = frames_in(view, pos, limit, index, BATCH_FRAMES)
            if not frames:
                return
            yield frames
            index += len(frames)
