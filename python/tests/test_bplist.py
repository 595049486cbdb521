"""The bounded decoder and the Swift-identical encoder."""

from __future__ import annotations

import datetime
import plistlib
import struct

import pytest

from swift_preferences import bplist
from swift_preferences.bplist import PlistDate, PropertyListError, Real32

SAMPLE = {
    "string": "hello",
    "unicode": "héllo wörld ✓ 𝄞",
    "long": "x" * 40,
    "int": 42, "negative": -7, "big": 2**40, "u64": 2**64 - 1, "i64min": -(2**63),
    "real": 1.25, "real32": Real32(0.5), "nan": float("nan"), "inf": float("-inf"),
    "true": True, "false": False,
    "data": b"\x00\x01\x02" * 10,
    "date": datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=datetime.timezone.utc),
    "array": [1, "two", [3.0], {"four": 4}],
    "dict": {"a": {"b": {"c": []}}},
    "repeat": [[1, 2], [1, 2], "hello", "hello"],
}


def test_round_trip_of_every_type() -> None:
    decoded = bplist.decode(bplist.encode(SAMPLE))
    assert bplist.same(decoded, SAMPLE)
    assert isinstance(decoded["real32"], Real32)
    assert isinstance(decoded["true"], bool) and isinstance(decoded["int"], int) and not isinstance(decoded["int"], bool)
    assert decoded["date"] == SAMPLE["date"]


def test_encoding_is_stable_and_plistlib_reads_it() -> None:
    data = bplist.encode(SAMPLE)
    assert bplist.encode(bplist.decode(data)) == data
    theirs = plistlib.loads(data)
    assert theirs["unicode"] == SAMPLE["unicode"] and theirs["u64"] == 2**64 - 1 and theirs["data"] == SAMPLE["data"]
    assert theirs["date"] == SAMPLE["date"].replace(tzinfo=None)


def test_reads_what_plistlib_writes() -> None:
    value = {k: v for k, v in SAMPLE.items() if k not in ("nan", "u64")}
    value["date"] = value["date"].replace(tzinfo=None)
    decoded = bplist.decode(plistlib.dumps(value, fmt=plistlib.FMT_BINARY))
    assert decoded["unicode"] == value["unicode"] and decoded["array"] == value["array"]
    assert decoded["date"].replace(tzinfo=None) == value["date"]


def test_exact_date_seconds_survive() -> None:
    seconds = 123456789.123456789
    data = bplist.encode({"d": PlistDate.from_seconds(seconds)})
    assert struct.pack(">d", seconds) in data
    assert bplist.decode(data)["d"].seconds == seconds


def test_not_a_property_list_type_names_key_and_type() -> None:
    with pytest.raises(TypeError, match="'k'.*set"):
        bplist.check_value("k", {1, 2})
    with pytest.raises(TypeError, match="NoneType"):
        bplist.check_value("k", [None])


def _plist(objects: list[bytes], top: int = 0, ref_width: int = 1) -> bytes:
    out = bytearray(b"bplist00")
    offsets = []
    for obj in objects:
        offsets.append(len(out))
        out += obj
    table = len(out)
    for offset in offsets:
        out.append(offset)
    out += b"\x00" * 6 + bytes([1, ref_width]) + struct.pack(">QQQ", len(objects), top, table)
    return bytes(out)


def test_cycle_is_refused() -> None:
    # An array whose only element is itself.
    with pytest.raises(PropertyListError, match="contains itself"):
        bplist.decode(_plist([b"\xa1\x00"]))


def test_expansion_bomb_is_refused() -> None:
    # Each array holds the next one twice: 2^30 values once expanded, in 31 objects.
    objects = [bytes([0xA2, i + 1, i + 1]) for i in range(30)] + [b"\x09"]
    with pytest.raises(PropertyListError, match="expand"):
        bplist.decode(_plist(objects))


def test_depth_limit() -> None:
    objects = [bytes([0xA1, i + 1]) for i in range(70)] + [b"\x09"]
    with pytest.raises(PropertyListError, match="deeper"):
        bplist.decode(_plist(objects))


@pytest.mark.parametrize("data", [
    b"", b"bplist", b"bplist01" + b"\x00" * 40, b"garbage" * 10,
    _plist([b"\xa1\x05"]),             # reference past the objects
    _plist([b"\x5f\x10\xff"]),         # length past the end
    _plist([b"\x80\x01"]),             # UID
    _plist([b"\x00"]),                 # null
    _plist([b"\xd1\x01\x01", b"\x10\x01"]),  # dictionary key that is not a string
])
def test_garbage_is_refused(data: bytes) -> None:
    with pytest.raises(PropertyListError):
        bplist.decode(data)


def test_object_count_limit_in_trailer() -> None:
    data = bytearray(_plist([b"\x09"]))
    data[-24:-16] = struct.pack(">Q", 70_000)
    with pytest.raises(PropertyListError):
        bplist.decode(bytes(data))
