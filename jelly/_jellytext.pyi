"""Jelly-Text, the protobuf text format of Jelly frames (stub of the compiled
``jelly._jellytext``).

A document is a sequence of frames, each opened by a line ``# Frame N``; both directions are
exact, field by field and in wire order, unknown fields by number.
"""

import re
from typing import Callable, Final, Iterator

from typing_extensions import Buffer

#: The messages of rdf.proto: field number -> (name, kind, message type or enum table).
SCHEMA: Final[dict[str, dict[int, tuple[str, int, object]]]]
#: A line that opens a frame.
FRAME_MARK: Final[re.Pattern[str]]
#: Enum value names of the physical and logical stream types.
PHYSICAL: Final[dict[int, str]]
LOGICAL: Final[dict[int, str]]

def frame_to_text(data: Buffer, index: int = 0, offset: int = 0) -> str:
    """The Jelly-Text of one frame (the bytes of an ``RdfStreamFrame``, without a length
    prefix), opened by its ``# Frame index`` line.  ``offset`` (the frame's position in the
    stream) locates errors: a frame that is not well-formed protobuf raises
    :class:`JellyDecodeError`."""
def text_to_frame(text: str | Buffer, first_line: int = 1, delimited: bool = False) -> bytes:
    """The bytes of the ``RdfStreamFrame`` that ``text`` (one frame of Jelly-Text: a ``str``,
    or its UTF-8 bytes) spells, after its length as a varint when ``delimited``.  Raises
    :class:`RdfSyntaxError` with the line (counted from ``first_line``) and column."""
def split_frames(read: Callable[[int], bytes], block: int = ...) -> Iterator[tuple[int, bytes]]:
    """The frames of a Jelly-Text document that ``read(n)`` gives as UTF-8 bytes:
    ``(first line number, bytes)``, a new frame at each line that starts with ``# Frame``."""
