"""The messages of the Jelly gRPC streaming protocol as bytes (stub of the compiled
``jelly._streaming``): ``RdfStreamSubscribe``, ``RdfStreamOptions`` on its own, and the frame
edits a client and a broker need.  Requested options are read leniently (a field left out is
0; version 0 means not given)."""

from typing_extensions import Buffer

from .options import StreamOptions

def decode_options(data: Buffer) -> StreamOptions:
    """The ``RdfStreamOptions`` message ``data`` as :class:`StreamOptions` (fields left out are
    0; version 0 means not given)."""
def encode_options(options: StreamOptions) -> bytes:
    """The ``RdfStreamOptions`` message of ``options`` (version None or 0 is left out)."""
def decode_subscribe(data: Buffer) -> tuple[str, StreamOptions | None]:
    """An ``RdfStreamSubscribe`` message: ``(topic, requested options or None)``; None when the
    message has no options field (the client requests nothing)."""
def encode_subscribe(topic: str, options: StreamOptions | None = None) -> bytes:
    """An ``RdfStreamSubscribe`` message for ``topic`` and requested ``options`` (or none)."""
def delimit(frame: Buffer) -> bytes:
    """``frame`` after its length as a varint: one frame of a delimited Jelly file."""
def first_options(frame: Buffer) -> tuple[StreamOptions | None, int]:
    """The stream options of a frame that starts with an options row, read leniently (else
    None), and where that row ends: ``(options, end)``."""
def with_stream_name(frame: bytes, name: str) -> bytes:
    """``frame`` with the stream name of its leading options row set to ``name``; unchanged if
    it does not start with an options row or already has that name."""
