"""Self-tests of oracle.wire: varints, framing and field walking on hand-built bytes."""

from __future__ import annotations

import pytest

from oracle.proto import load_proto
from oracle.wire import (RefDecodeError, enc_varint, fields, has_field_zero, is_delimited,
                         normalize_varints, read_varint, skip_field, split_frames)


@pytest.mark.parametrize("value, encoded", [
    (0, b"\x00"), (1, b"\x01"), (127, b"\x7f"), (128, b"\x80\x01"), (150, b"\x96\x01"),
    (300, b"\xac\x02"), (2**32 - 1, b"\xff\xff\xff\xff\x0f"),
    (2**64 - 1, b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"),
])
def test_varint_known_encodings(value, encoded):
    assert enc_varint(value) == encoded
    assert read_varint(encoded, 0) == (value, len(encoded))
    assert read_varint(b"\xaa" + encoded + b"\xbb", 1) == (value, len(encoded) + 1)


def test_varint_edge_cases():
    # non-minimal encodings are read (protobuf readers accept them)
    assert read_varint(b"\x80\x00", 0) == (0, 2)
    assert read_varint(b"\x81\x80\x80\x80\x80\x80\x80\x80\x80\x00", 0) == (1, 10)
    # bits above 64 are dropped, like protobuf's own readers
    assert read_varint(b"\xff" * 9 + b"\x7f", 0) == (2**64 - 1, 10)
    with pytest.raises(RefDecodeError, match="longer than 10"):
        read_varint(b"\x80" * 10 + b"\x01", 0)
    with pytest.raises(RefDecodeError, match="truncated"):
        read_varint(b"\x80\x80", 0)
    with pytest.raises(RefDecodeError, match="truncated"):
        read_varint(b"", 0)


@pytest.mark.parametrize("head, delimited", [
    (b"", True), (b"\x05", True), (b"\x0a", False), (b"\x0a\x05", False),
    (b"\x0a\x0a", True), (b"\x0a\x0a\x0a", False), (b"\x0a\x0a\x12", True),
    (b"\x80\x01\x0a", True),
])
def test_delimited_detection(head, delimited):
    assert is_delimited(head) is delimited


def test_split_frames():
    assert split_frames(b"") == []
    assert split_frames(b"\x02ab\x00\x01c") == [b"ab", b"", b"c"]
    assert split_frames(b"\x0a\x02\x0a\x00") == [b"\x0a\x02\x0a\x00"]      # a single frame
    big = b"x" * 200
    assert split_frames(b"\xc8\x01" + big) == [big]
    with pytest.raises(RefDecodeError, match="need 3 bytes, have 2"):
        split_frames(b"\x01a\x03bc")
    with pytest.raises(RefDecodeError, match="truncated varint"):
        split_frames(b"\x01a\x80")


def test_skip_field_each_wire_type():
    data = b"\x96\x01" + b"12345678" + b"1234" + b"\x03abc" + b"\x08\x01\x0c" + b"!"
    assert skip_field(data, 0, 0, 1) == 2                  # varint
    assert skip_field(data, 2, 1, 1) == 10                 # fixed64
    assert skip_field(data, 10, 5, 1) == 14                # fixed32
    assert skip_field(data, 14, 2, 1) == 18                # length-delimited
    assert skip_field(data, 18, 3, 1) == 21                # group 1: a varint field, end tag
    with pytest.raises(RefDecodeError, match="mismatched end group"):
        skip_field(b"\x14", 0, 3, 1)                       # ends group 2, not 1
    for wt in (6, 7):
        with pytest.raises(RefDecodeError, match="bad wire type"):
            skip_field(b"\x00", 0, wt, 1)


def test_fields_walk():
    # field 1 varint 150, field 2 "hi", field 3 fixed32, field 15 length-delimited (empty)
    data = b"\x08\x96\x01" + b"\x12\x02hi" + b"\x1d\x01\x02\x03\x04" + b"\x7a\x00"
    assert list(fields(data)) == [(1, 0, None), (2, 2, b"hi"), (3, 5, None), (15, 2, b"")]


def test_field_number_zero_is_found():
    assert has_field_zero(b"\x00\x01", None)               # tag 0: field 0, varint
    assert not has_field_zero(b"\x08\x01", None)
    pb2 = load_proto("rdf.proto")
    frame = pb2.RdfStreamFrame.DESCRIPTOR
    # a frame whose row's graph_end message holds a field 0 (upb lets it pass)
    graph_end_with_zero = b"\x2a\x02\x00\x00"               # row field 5, payload 00 00
    row = b"\x0a" + bytes([len(graph_end_with_zero)]) + graph_end_with_zero
    assert has_field_zero(row, frame)
    assert not has_field_zero(b"\x0a\x02\x2a\x00", frame)


def test_normalize_over_long_varints():
    # tag 0x0A written in 6 bytes, length 1 written in 6 bytes: re-encoded minimally
    long_tag = b"\x8a\x80\x80\x80\x80\x00"
    long_len = b"\x81\x80\x80\x80\x80\x00"
    assert normalize_varints(long_tag + b"\x01" + b"z", None) == b"\x0a\x01z"
    assert normalize_varints(b"\x0a" + long_len + b"z", None) == b"\x0a\x01z"
    # 5 bytes is what upb accepts: a tag or the length of a non-message field is left as it is
    five_tag = b"\x8a\x80\x80\x80\x00\x01z"
    assert normalize_varints(five_tag, None) == five_tag
    five_len = b"\x0a\x81\x80\x80\x80\x00z"
    assert normalize_varints(five_len, None) == five_len
    # message fields are followed through the schema; their lengths are written anew
    pb2 = load_proto("rdf.proto")
    for inner in (b"\x2a\x80\x80\x80\x80\x00", b"\x2a\x80\x80\x80\x80\x80\x00"):
        framed = b"\x0a" + bytes([len(inner)]) + inner      # graph_end, length 0 over-long
        assert normalize_varints(framed, pb2.RdfStreamFrame.DESCRIPTOR) == b"\x0a\x02\x2a\x00"
    assert normalize_varints(b"\x0a\x05ab", None) is None   # too broken to walk
