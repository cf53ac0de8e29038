"""The read cursor shared by every wire format (stub of the compiled ``jelly._buffer``).

``WireReader`` is a compliant protobuf reader over one frame: every read is checked against the
end of its message, fields may come in any order, unknown fields are skipped by wire type,
repeated occurrences of a singular message field are merged and the last member of a oneof
wins.  Its reading methods are C-level only; from Python, a reader is the base of the decoders
and shows where it stands.  The write buffer is a C struct with no Python API.
"""

from .errors import JellyError

class WireReader:
    """A protobuf reader over the bytes of one frame, with the position of every error."""

    #: Index of the frame being (or last) decoded.
    frame_index: int
    #: The error that stopped this reader, if any: a reader that failed stays failed.
    failed: JellyError | None

    def __init__(self) -> None: ...


def hold_heap(reserve: int) -> bool:
    """Make this process keep the memory it frees and take the next ``reserve`` bytes of its
    heap in huge pages (Linux with glibc; elsewhere nothing is done): for the worker processes
    of :mod:`jelly.parallel`.  True if huge pages were asked for."""
