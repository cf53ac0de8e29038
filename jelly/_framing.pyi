"""Framing: where the frames of a byte stream begin and end (stub of the compiled
``jelly._framing``).

Jelly (and Jelly-Patch) files are delimited (each frame prefixed by its length as a varint) or
a single frame, told apart from the first bytes as jelly-jvm does.  ``FrameSplitter`` is the
push interface (``feed(bytes)`` returns the frames completed so far, for sockets, gRPC and
asyncio); ``frames_in`` splits the frames of a buffer already in memory, so frames can be
decoded in place.  Declared lengths are checked against the frame size limit before anything
is buffered.
"""

from typing import Callable

from typing_extensions import Buffer, TypeAlias

_Bytes: TypeAlias = "bytes | bytearray | memoryview"

def detect_delimited(head: _Bytes, complete: bool = False) -> bool | None:
    """Whether the stream starting with ``head`` is delimited (True), a single frame (False),
    or cannot be told yet (None: fewer than three bytes).  With ``complete`` (``head`` is the
    whole stream) a short input is read as what it can be: empty input and ``0A 0A`` (a frame
    length of 10) as delimited, a lone ``0A`` as a single frame."""

class FrameSplitter:
    """Splits a byte stream fed in pieces into frames.

    ``feed(data)`` returns a list of ``(offset, frame_bytes)`` for the frames completed by
    ``data`` (offset: where the frame's bytes start in the stream, after its length prefix);
    ``finish()`` says the stream has ended: it returns the frame of a single-frame stream and
    raises :class:`~jelly.JellyTruncatedError` if the stream ended inside a frame.
    ``delimited`` forces a variant (default: detect it).
    """

    #: The variant: True delimited, False single frame, None not known yet.
    delimited: bool | None

    def __init__(self, *, max_frame_size: int = 536870912, delimited: bool | None = None) -> None: ...
    @property
    def position(self) -> int:
        """Stream offset of the first byte not yet returned in a frame."""
    @property
    def buffered(self) -> int:
        """Bytes fed but not yet returned in a frame."""
    @property
    def wanted(self) -> int:
        """Bytes that the frame begun in what was fed still lacks, once its length prefix is
        there (else 0): a reader of a file may read them straight into place
        (:meth:`read_into`)."""
    def read_into(self, readinto: Callable[[memoryview], int | None], n: int
                  ) -> tuple[int, list[tuple[int, bytes | memoryview]]]:
        """Read at most ``n`` (at most :attr:`wanted`) bytes of the stream with
        ``readinto`` (a file's method) into the buffer of the frame begun, without the copies
        of feed(); returns ``(bytes read, the frames completed)``: 0 at the end of the
        stream, then :meth:`finish` says what is missing."""
    def feed(self, data: _Bytes) -> list[tuple[int, bytes | memoryview]]:
        """Add the next bytes of the stream; returns the frames they complete.  Frames
        before an error in the same bytes are returned first: the next call raises it."""
    def finish(self) -> list[tuple[int, bytes | memoryview]]:
        """The stream has ended: returns ``[(offset, frame)]`` for a single-frame stream, ``[]``
        otherwise; raises if it ended inside a frame or a length prefix."""

def is_rdf_protobuf_row(frame: Buffer) -> bool:
    """Whether the bytes of a frame (without its length) are a row of Jena's RDF Protobuf and
    not Jelly (one field 2, 3 or 4, whole, holding a message)."""
def frames_in(data: memoryview, pos: int, max_frame_size: int, index: int,
              max_frames: int) -> tuple[list[tuple[int, bytes | memoryview]], int]:
    """``(frames, pos)``: up to ``max_frames`` delimited frames of the stream in ``data``
    from ``pos`` as ``(offset, view of the frame)``, and where the next begins; no frames at
    the end.  Frames before an error are returned first: the next call raises it."""

def segment_starts(data: Buffer, pos: int = 0, index: int = 0,
                   max_frame_size: int = 4611686018427387904
                   ) -> tuple[list[tuple[int, int, bytes | None]], int, int]:
    """Walk the length prefixes of the delimited frames in ``data`` (any buffer) from ``pos``, a
    frame boundary (``index``: that frame's number), and find the candidate segment starts:
    frames whose first row is exactly a stream options row (see :mod:`jelly.parallel`).  Only
    each frame's prefix and first bytes are read.

    Returns ``(starts, pos, index)``: ``starts`` a list of ``(offset, frame index, options)``
    (``offset``: where the frame's length prefix is; ``options``: the bytes of its
    ``RdfStreamOptions``, or None for a frame whose first row may be an options row in a form
    that is not a plain segment start), and where the walk stopped, with that frame's number:
    at the end of ``data``; before a frame whose start ``data`` does not hold (a block of a
    larger file: read on from there; in a whole file, it is truncated); or beyond the end of
    ``data``, when the last frame walked ends there.  Raises like :class:`FrameSplitter` for a
    malformed or oversized length prefix."""
