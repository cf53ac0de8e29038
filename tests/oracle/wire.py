"""Protobuf wire helpers of the oracles, written from the protobuf encoding spec: varints,
Jelly's framing (delimited or a single frame), walking the fields of a message, and the
minimal re-encoding of over-long tags and lengths that upb refuses.  Nothing here imports jelly
or a protobuf runtime (``desc`` arguments are protobuf descriptors, used only for their
``fields_by_number``)."""

from __future__ import annotations


class RefDecodeError(Exception):
    """The input is not valid (according to the oracle).

    ``optional`` is True when the spec leaves rejecting this input to the implementation
    and no single lenient reading exists (e.g. a stream without options header).
    """

    def __init__(self, message: str, optional: bool = False):
        super().__init__(message)
        self.optional = optional


def read_varint(data: bytes, pos: int):
    """Protobuf base-128 varint (at most 10 bytes; like protobuf's own readers, bits above
    64 are dropped) -> (value, new_pos)."""
    result = 0
    shift = 0
    for i in range(10):
        if pos >= len(data):
            raise RefDecodeError("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result & ((1 << 64) - 1), pos
        shift += 7
    raise RefDecodeError("varint longer than 10 bytes")


def is_delimited(data: bytes) -> bool:
    """The agreed detection rule: non-delimited iff the input starts with 0x0A and
    (the second byte is not 0x0A or the third byte is 0x0A)."""
    if len(data) >= 1 and data[0] == 0x0A:
        second = data[1] if len(data) > 1 else None
        third = data[2] if len(data) > 2 else None
        if second != 0x0A or third == 0x0A:
            return False
    return True


def split_frames(data: bytes):
    """Raw frame payloads of an input (delimited or a single non-delimited frame)."""
    if not is_delimited(data):
        return [data]
    frames = []
    pos = 0
    while pos < len(data):
        n, pos = read_varint(data, pos)
        if pos + n > len(data):
            raise RefDecodeError(f"truncated frame: need {n} bytes, have {len(data) - pos}")
        frames.append(data[pos:pos + n])
        pos += n
    return frames


def skip_field(data: bytes, pos: int, wt: int, number: int) -> int:
    if wt == 0:
        return read_varint(data, pos)[1]
    if wt == 1:
        return pos + 8
    if wt == 5:
        return pos + 4
    if wt == 2:
        n, pos = read_varint(data, pos)
        return pos + n
    if wt == 3:
        while True:
            tag, pos = read_varint(data, pos)
            if tag & 7 == 4:
                if tag >> 3 != number:
                    raise RefDecodeError("mismatched end group")
                return pos
            pos = skip_field(data, pos, tag & 7, tag >> 3)
    raise RefDecodeError(f"bad wire type {wt}")


def fields(data: bytes):
    """(number, wire type, value) of a well-formed message; value = bytes for LEN fields."""
    pos = 0
    while pos < len(data):
        tag, pos = read_varint(data, pos)
        number, wt = tag >> 3, tag & 7
        if wt == 2:
            n, pos = read_varint(data, pos)
            yield number, wt, data[pos:pos + n]
            pos += n
        else:
            pos = skip_field(data, pos, wt, number)
            yield number, wt, None


def normalize_varints(data: bytes, desc):
    """Re-encode over-long (> 5 byte) tags and lengths of a message minimally, following the
    schema into known message fields (and into groups).  None if the input is too broken
    to walk (then it is left to upb to judge)."""
    try:
        return _normalize(data, desc)
    except (RefDecodeError, IndexError):
        return None


def enc_varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _normalize(data: bytes, desc) -> bytes:
    out = bytearray()
    pos = 0
    while pos < len(data):
        start = pos
        tag, pos = read_varint(data, pos)
        number, wt = tag >> 3, tag & 7
        raw_tag = data[start:pos]
        out += enc_varint(tag) if pos - start > 5 and tag < 1 << 32 else raw_tag
        if wt == 0:
            s2 = pos
            _, pos = read_varint(data, pos)
            out += data[s2:pos]
        elif wt in (1, 5):
            n = 8 if wt == 1 else 4
            if pos + n > len(data):
                raise RefDecodeError("truncated")
            out += data[pos:pos + n]
            pos += n
        elif wt == 2:
            s2 = pos
            n, pos = read_varint(data, pos)
            if pos + n > len(data):
                raise RefDecodeError("truncated")
            body = data[pos:pos + n]
            fd = desc.fields_by_number.get(number) if desc is not None else None
            if fd is not None and fd.message_type is not None:
                body = _normalize(body, fd.message_type)
                out += enc_varint(len(body))
            else:
                out += enc_varint(n) if pos - s2 > 5 else data[s2:pos]
            out += body
            pos += n
        elif wt == 3:
            inner, pos = _normalize_group(data, pos, number)
            out += inner
        else:
            raise RefDecodeError("bad wire type")
    return bytes(out)


def _normalize_group(data: bytes, pos: int, number: int):
    """Content of a group up to and including its end tag -> (normalised bytes, new pos)."""
    out = bytearray()
    while True:
        start = pos
        tag, pos = read_varint(data, pos)
        if tag & 7 == 4:
            if tag >> 3 != number:
                raise RefDecodeError("mismatched end group")
            out += enc_varint(tag) if pos - start > 5 and tag < 1 << 32 else data[start:pos]
            return bytes(out), pos
        # one field: reuse _normalize on exactly that field's bytes
        end = skip_field(data, pos, tag & 7, tag >> 3)
        out += _normalize(data[start:end], None)
        pos = end


def has_field_zero(data: bytes, desc) -> bool:
    try:
        pos = 0
        while pos < len(data):
            tag, pos = read_varint(data, pos)
            number, wt = tag >> 3, tag & 7
            if number == 0:
                return True
            if wt == 2:
                n, pos = read_varint(data, pos)
                fd = desc.fields_by_number.get(number) if desc is not None else None
                if fd is not None and fd.message_type is not None and \
                        has_field_zero(data[pos:pos + n], fd.message_type):
                    return True
                pos += n
            elif wt == 3:
                end = skip_field(data, pos, wt, number)
                inner = data[pos:end]
                # the group's own end tag is the last tag inside `inner`
                if _group_has_field_zero(inner):
                    return True
                pos = end
            else:
                pos = skip_field(data, pos, wt, number)
    except (RefDecodeError, IndexError):
        return False
    return False


def _group_has_field_zero(inner: bytes) -> bool:
    pos = 0
    while pos < len(inner):
        tag, pos = read_varint(inner, pos)
        if tag >> 3 == 0:
            return True
        if tag & 7 == 4:
            return False
        pos = skip_field(inner, pos, tag & 7, tag >> 3)
    return False


def parse_frame(cls, payload: bytes, soft):
    """``(message, payload)``: ``payload`` parsed by upb as the protobuf message class ``cls``.
    upb takes tags and lengths of at most 5 varint bytes; protobuf-java and C++ read up to 10
    (non-minimal) bytes.  If that is all that is wrong, the minimal re-encoding is read (and
    returned), and ``soft`` is told, so that the implementation may choose.  upb lets a field
    number 0 pass inside messages that have no fields (RdfDefaultGraph, RdfGraphEnd, ...);
    protobuf's wire format has none: an error."""
    msg = cls()
    try:
        msg.ParseFromString(payload)
    except Exception as e:  # google.protobuf.message.DecodeError
        text = str(e).lower()
        optional = "recursion" in text or "depth" in text
        norm = normalize_varints(payload, cls.DESCRIPTOR)
        ok = False
        if norm is not None and norm != payload:
            try:
                msg = cls.FromString(norm)
                ok = True
            except Exception:
                pass
        if not ok:
            raise RefDecodeError(f"protobuf: {e}", optional=optional) from None
        soft("tag or length varint longer than 5 bytes")
        payload = norm
    if has_field_zero(payload, cls.DESCRIPTOR):
        raise RefDecodeError("protobuf: field number 0")
    return msg, payload
