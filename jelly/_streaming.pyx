# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The messages of the Jelly gRPC streaming protocol (``grpc.proto``) as bytes, without
generated protobuf classes: ``RdfStreamSubscribe`` (a topic and requested options),
``RdfStreamOptions`` on its own, and the two frame edits a client and a broker need (the
stream name of a frame's options row, a length prefix).  ``RdfStreamFrame`` messages are Jelly
frames and travel as they are; ``RdfStreamReceived`` is empty.

Requested options are read leniently, as protobuf reads them: a field left out is 0 (the
stream options of a subscription need not be valid stream options).
"""

from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_SIMPLE
from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdint cimport uint64_t
from libc.string cimport memcpy

from ._wire cimport WT_LEN, read_varint
from ._buffer cimport (WireReader, WriteBuffer, wb_init, wb_free, wb_ensure, wb_byte,
                       wb_varint, wb_string_field, wb_take, utf8_of)
from ._decoder cimport Decoder
from ._encoder cimport write_options_message

from .errors import JellyError
from .options import StreamOptions


cdef object _options(Decoder reader, const unsigned char* p, const unsigned char* end):
    # Decoder.read_options checks the wire format only, not the values.
    name, physical, gen, star, names, prefixes, datatypes, logical, version = \
        reader.read_options(p, end)
    return StreamOptions(physical_type=physical, logical_type=logical,
                         generalized_statements=gen, rdf_star=star,
                         max_name_table_size=names, max_prefix_table_size=prefixes,
                         max_datatype_table_size=datatypes, stream_name=name, version=version)


cdef Decoder _reader(const unsigned char* base):
    cdef Decoder reader = Decoder()
    reader.base = base
    reader.base_offset = 0
    return reader


def decode_options(data):
    """The ``RdfStreamOptions`` message ``data`` as :class:`StreamOptions` (fields left out are
    0; version 0 means not given)."""
    try:
        return _decode_options(data)
    except JellyError as exc:
        raise _message_error("RdfStreamOptions", exc) from None


def _message_error(str what, exc):
    # Errors of a message outside any frame: the byte offset is all there is.
    return type(exc)(f"bad {what} message: {exc.message}", offset=exc.offset)


def _decode_options(data):
    cdef Py_buffer view
    cdef const unsigned char* p
    PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
    try:
        p = <const unsigned char*>view.buf
        return _options(_reader(p), p, p + view.len)
    finally:
        PyBuffer_Release(&view)


def encode_options(options):
    """The ``RdfStreamOptions`` message of ``options`` (version None or 0 is left out)."""
    cdef WriteBuffer b
    wb_init(&b, 64)
    try:
        write_options_message(&b, options, options.version or 0)
        return wb_take(&b, False)
    finally:
        wb_free(&b)


def decode_subscribe(data):
    """An ``RdfStreamSubscribe`` message: ``(topic, requested options or None)``; None when the
    message has no options field (the client requests nothing)."""
    cdef Py_buffer view
    cdef const unsigned char* p
    cdef const unsigned char* end
    cdef const unsigned char* q
    cdef uint64_t tag, v
    cdef Decoder reader
    cdef str topic = ""
    parts = None
    PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
    try:
        p = <const unsigned char*>view.buf
        end = p + view.len
        reader = _reader(p)
        while p < end:
            q = reader.tag(p, end, &tag)
            if tag == 0x0A or tag == 0x12:
                p = reader.length(q, end, &v)
                if tag == 0x0A:
                    topic = reader.string(p, p + v)
                else:
                    # A repeated message field merges: parse the occurrences concatenated.
                    if parts is None:
                        parts = []
                    parts.append(PyBytes_FromStringAndSize(<const char*>p, v))
                p = p + v
            else:
                p = reader.skip(q, end, tag)
        return topic, (_decode_options(b"".join(parts)) if parts is not None else None)
    except JellyError as exc:
        raise _message_error("RdfStreamSubscribe", exc) from None
    finally:
        PyBuffer_Release(&view)


def encode_subscribe(str topic, options=None):
    """An ``RdfStreamSubscribe`` message for ``topic`` and requested ``options`` (or none)."""
    cdef WriteBuffer b, o
    cdef const char* s
    cdef Py_ssize_t n
    wb_init(&b, 64)
    try:
        if topic:
            utf8_of(topic, &s, &n)
            wb_string_field(&b, 0x0A, s, n)
        if options is not None:
            body = encode_options(options)
            wb_string_field(&b, 0x12, <const char*>body, len(body))
        return wb_take(&b, False)
    finally:
        wb_free(&b)


def delimit(frame):
    """``frame`` after its length as a varint: one frame of a delimited Jelly file."""
    cdef WriteBuffer b
    cdef Py_buffer view
    PyObject_GetBuffer(frame, &view, PyBUF_SIMPLE)
    wb_init(&b, view.len + 10)
    try:
        memcpy(b.data, view.buf, view.len)
        b.len = view.len
        return wb_take(&b, True)
    finally:
        wb_free(&b)
        PyBuffer_Release(&view)


def first_options(frame):
    """The stream options of a frame that starts with an options row, read leniently (else
    None), and where that row ends: ``(options, end)``."""
    cdef Py_buffer view
    cdef const unsigned char* base
    cdef const unsigned char* p
    cdef const unsigned char* end
    cdef const unsigned char* row
    cdef const unsigned char* q
    cdef uint64_t v, w
    PyObject_GetBuffer(frame, &view, PyBUF_SIMPLE)
    try:
        base = <const unsigned char*>view.buf
        end = base + view.len
        # Only the common layout: rows (field 1) first, the options row holding just field 1.
        if view.len < 2 or base[0] != 0x0A:
            return None, 0
        p = read_varint(base + 1, end, &v)
        if p == NULL or v > <uint64_t>(end - p) or v < 2 or p[0] != 0x0A:
            return None, 0
        row = p
        q = read_varint(p + 1, p + v, &w)
        if q == NULL or w != <uint64_t>(p + v - q):
            return None, 0
        return _options(_reader(base), q, q + w), row + v - base
    finally:
        PyBuffer_Release(&view)


def with_stream_name(frame, str name):
    """``frame`` (bytes) with the stream name of its leading options row set to ``name``;
    unchanged if it does not start with an options row or already has that name."""
    options, end = first_options(frame)
    if options is None or options.stream_name == name:
        return frame
    body = encode_options(options.replace(stream_name=name))
    row = _field(0x0A, body)
    return _field(0x0A, row) + bytes(memoryview(frame)[end:])


cdef bytes _field(unsigned char tag, bytes body):
    cdef WriteBuffer b
    wb_init(&b, len(body) + 12)
    try:
        wb_string_field(&b, tag, <const char*>body, len(body))
        return wb_take(&b, False)
    finally:
        wb_free(&b)
