"""A bounded ``bplist00`` decoder and an encoder that writes exactly the bytes the Swift encoder writes.

The decoder is a port of the Swift ``BinaryPropertyListReader``: nesting depth 64, at most
65,536 objects, at most 100,000 values once shared references are expanded, cycles refused,
every offset, reference, count and length checked before it is used. ``plistlib`` is not used
for untrusted bytes: it has none of these bounds.

The encoder is a port of the Swift ``ObjectFlattener`` and ``BinaryPropertyListWriter``: the
same object order (a container before its children, a dictionary's keys sorted by their UTF-8
bytes and written before its values), the same uniquing of equal scalars and equal nested
containers, the same integer, length and reference widths. A Python writer's file is therefore
byte-identical to a Swift writer's for the same values.

Values are Python objects: ``str``, ``int`` (Int64.min ... UInt64.max), ``float``, ``bool``,
``bytes``, ``datetime.datetime``, ``list`` and ``dict`` with ``str`` keys. Two subclasses keep
what a round trip must not lose: :class:`Real32` (a 32-bit real, as Swift's ``Float`` is written)
and :class:`PlistDate` (a date with its exact seconds since 2001-01-01).
"""

from __future__ import annotations

import datetime
import math
import struct
from typing import Any

MAXIMUM_DEPTH = 64
MAXIMUM_OBJECT_COUNT = 65_536
MAXIMUM_EXPANDED_OBJECT_COUNT = 100_000

_HEADER = b"bplist00"
_TRAILER_LENGTH = 32
_REFERENCE_DATE = datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc)
_INT64_MIN = -(1 << 63)
_UINT64_MAX = (1 << 64) - 1


class PropertyListError(ValueError):
    """Bytes the bounded decoder refuses, or a value the encoder cannot write; ``offset`` is where."""

    def __init__(self, message: str, offset: int | None = None) -> None:
        super().__init__(message if offset is None else f"{message} (at byte {offset})")
        self.offset = offset


class Real32(float):
    """A real number stored as a 32-bit float (what Swift writes for ``Float``); kept as such when written again."""

    __slots__ = ()


class PlistDate(datetime.datetime):
    """A UTC date that remembers its exact seconds since 2001-01-01T00:00:00Z.

    ``datetime`` holds microseconds; a property-list date is a double, which may hold more.
    Written again, a ``PlistDate`` gives back exactly the double it was read from.
    """

    seconds: float

    @classmethod
    def from_seconds(cls, seconds: float) -> "PlistDate":
        """The date ``seconds`` after 2001-01-01T00:00:00Z (clamped to what ``datetime`` can show)."""
        try:
            moment = _REFERENCE_DATE + datetime.timedelta(seconds=seconds)
        except OverflowError:
            moment = datetime.datetime.max.replace(tzinfo=datetime.timezone.utc) if seconds > 0 else datetime.datetime.min.replace(tzinfo=datetime.timezone.utc)
        value = cls(moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second,
                    moment.microsecond, tzinfo=datetime.timezone.utc)
        value.seconds = seconds
        return value


def date_seconds(value: datetime.datetime) -> float:
    """Seconds since 2001-01-01T00:00:00Z of a date (a naive date is taken as UTC, as plistlib does)."""
    exact = getattr(value, "seconds", None)
    if isinstance(exact, float):
        return exact
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    delta = value - _REFERENCE_DATE
    return delta.days * 86400.0 + delta.seconds + delta.microseconds / 1e6


# MARK: Decoding


class _Reader:
    """One decode: the bytes, the trailer's fields and the bookkeeping of shared objects."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        count = len(data)
        if count == 0:
            raise PropertyListError("the input is empty", 0)
        if count < 8:
            raise PropertyListError(f"the input is {count} bytes, shorter than the 8-byte header", count)
        if data[:6] != b"bplist":
            raise PropertyListError('the input does not start with "bplist"', 0)
        if data[6:8] != b"00":
            raise PropertyListError(f"binary property list version {data[6:8]!r} is not supported (only \"00\")", 6)
        if count < 8 + 2 + _TRAILER_LENGTH:
            raise PropertyListError(f"the input is {count} bytes, too short for a header, an object, an offset table and the 32-byte trailer", count)
        trailer = count - _TRAILER_LENGTH
        self.offset_width = data[trailer + 6]
        self.reference_width = data[trailer + 7]
        if not 1 <= self.offset_width <= 8:
            raise PropertyListError(f"offset table entry width {self.offset_width} is not in 1...8", trailer + 6)
        if not 1 <= self.reference_width <= 8:
            raise PropertyListError(f"object reference width {self.reference_width} is not in 1...8", trailer + 7)
        declared_count, declared_top, declared_table = struct.unpack_from(">QQQ", data, trailer + 8)
        if declared_count == 0:
            raise PropertyListError("the trailer declares 0 objects", trailer + 8)
        if declared_count > MAXIMUM_OBJECT_COUNT:
            raise PropertyListError(f"the trailer declares {declared_count} objects; the limit is {MAXIMUM_OBJECT_COUNT}", trailer + 8)
        if self.reference_width < 8 and declared_count > 1 << (8 * self.reference_width):
            raise PropertyListError(f"{declared_count} objects cannot be told apart by {self.reference_width}-byte references", trailer + 7)
        if declared_top >= declared_count:
            raise PropertyListError(f"the top object {declared_top} is not among the {declared_count} objects", trailer + 16)
        if declared_table <= 8:
            raise PropertyListError(f"the offset table at byte {declared_table} leaves no room for objects after the header", trailer + 24)
        table_length = declared_count * self.offset_width
        if declared_table > trailer or table_length > trailer - declared_table:
            raise PropertyListError(
                f"the offset table at byte {declared_table} with {declared_count} entries of {self.offset_width} bytes runs past the trailer at byte {trailer}",
                trailer + 24)
        self.object_count = declared_count
        self.top = declared_top
        self.objects_end = declared_table
        self.in_progress: set[int] = set()
        self.visited: set[int] = set()
        self.shared: dict[int, tuple[Any, int, int]] = {}
        self.deepest = 0
        self.expanded = 0

    def unsigned(self, at: int, width: int) -> int:
        return int.from_bytes(self.data[at:at + width], "big")

    def offset(self, index: int) -> int:
        entry = self.objects_end + index * self.offset_width
        offset = self.unsigned(entry, self.offset_width)
        if offset < 8:
            raise PropertyListError(f"offset table entry {index} points to byte {offset}, inside the header", entry)
        if offset >= self.objects_end:
            raise PropertyListError(f"offset table entry {index} points to byte {offset}, past the object area", entry)
        return offset

    def reference(self, at: int, container: int) -> int:
        reference = self.unsigned(at, self.reference_width)
        if reference >= self.object_count:
            raise PropertyListError(f"container object {container} refers to object {reference}, but there are {self.object_count}", at)
        return reference

    def need(self, length: int, offset: int, what: str, index: int) -> None:
        if length > self.objects_end - offset - 1:
            raise PropertyListError(f"{what} object {index} needs {length} bytes, past the object area's end", offset)

    def count(self, marker: int, index: int, offset: int, element_width: int, what: str) -> tuple[int, int]:
        count = marker & 0x0F
        start = offset + 1
        if count == 0x0F:
            self.need(1, offset, f"{what} length", index)
            length_marker = self.data[offset + 1]
            exponent = length_marker & 0x0F
            if length_marker & 0xF0 != 0x10 or exponent > 3:
                raise PropertyListError(f"{what} object {index} has a length marked 0x{length_marker:02X}, not a 1-8 byte integer", offset + 1)
            width = 1 << exponent
            self.need(1 + width, offset, f"{what} length", index)
            count = self.unsigned(offset + 2, width)
            start = offset + 2 + width
        available = self.objects_end - start
        if count > available // element_width:
            raise PropertyListError(
                f"{what} object {index} claims {count} elements of {element_width} bytes, but only {available} bytes remain before the offset table", offset)
        return count, start

    def count_expanded(self, amount: int, index: int) -> None:
        self.expanded += amount
        if self.expanded > MAXIMUM_EXPANDED_OBJECT_COUNT:
            raise PropertyListError(f"shared references expand to more than {MAXIMUM_EXPANDED_OBJECT_COUNT} values (reached at object {index})")

    def value(self, index: int, depth: int) -> Any:
        reused = self.shared.get(index)
        if reused is not None:
            value, size, height = reused
            self.count_expanded(size, index)
            if depth + height > MAXIMUM_DEPTH:
                raise PropertyListError(f"object {index} nests containers deeper than {MAXIMUM_DEPTH} where it is shared")
            self.deepest = max(self.deepest, depth + height)
            return value
        if index in self.in_progress:
            raise PropertyListError(f"object {index} contains itself", self.offset(index))
        offset = self.offset(index)
        data = self.data
        marker = data[offset]
        kind = marker & 0xF0
        if kind == 0x00:
            self.count_expanded(1, index)
            if marker == 0x08:
                return False
            if marker == 0x09:
                return True
            if marker == 0x00:
                raise PropertyListError(f"object {index} is a null, which property lists cannot hold", offset)
            if marker == 0x0F:
                raise PropertyListError(f"object {index} is a fill byte, not a value", offset)
            raise PropertyListError(f"object {index} has marker 0x{marker:02X}, which the format does not define", offset)
        if kind == 0x10:
            self.count_expanded(1, index)
            return self.integer(marker, index, offset)
        if kind == 0x20:
            self.count_expanded(1, index)
            if marker == 0x22:
                self.need(4, offset, "32-bit real", index)
                return Real32(struct.unpack_from(">f", data, offset + 1)[0])
            if marker == 0x23:
                self.need(8, offset, "64-bit real", index)
                return struct.unpack_from(">d", data, offset + 1)[0]
            raise PropertyListError(f"object {index} has marker 0x{marker:02X}, which the format does not define", offset)
        if kind == 0x30:
            self.count_expanded(1, index)
            if marker != 0x33:
                raise PropertyListError(f"object {index} has marker 0x{marker:02X}, which the format does not define", offset)
            self.need(8, offset, "date", index)
            seconds = struct.unpack_from(">d", data, offset + 1)[0]
            if math.isnan(seconds):
                raise PropertyListError(f"object {index} is a date whose time is NaN (not a number)", offset)
            return PlistDate.from_seconds(seconds)
        if kind in (0x40, 0x50, 0x60):
            self.count_expanded(1, index)
            if kind == 0x40:
                length, start = self.count(marker, index, offset, 1, "data")
                value = bytes(data[start:start + length])
            elif kind == 0x50:
                value = self.ascii_string(marker, index, offset)
            else:
                value = self.utf16_string(marker, index, offset)
            if marker & 0x0F == 0x0F:
                if index in self.visited:
                    self.shared[index] = (value, 1, 0)
                self.visited.add(index)
            return value
        if kind == 0x80:
            raise PropertyListError(f"object {index} is a keyed-archiver UID, which preferences cannot hold", offset)
        if kind == 0xC0:
            raise PropertyListError(f"object {index} is a set, which property lists cannot hold", offset)
        if kind in (0xA0, 0xD0):
            expanded_before, deepest_before = self.expanded, self.deepest
            self.deepest = depth
            value = self.array(marker, index, offset, depth) if kind == 0xA0 else self.dictionary(marker, index, offset, depth)
            if index in self.visited:
                self.shared[index] = (value, self.expanded - expanded_before, self.deepest - depth)
            self.visited.add(index)
            self.deepest = max(self.deepest, deepest_before)
            return value
        raise PropertyListError(f"object {index} has marker 0x{marker:02X}, which the format does not define", offset)

    def integer(self, marker: int, index: int, offset: int) -> int:
        exponent = marker & 0x0F
        if exponent > 4:
            raise PropertyListError(f"integer object {index} has marker 0x{marker:02X}, a width of 2^{exponent} bytes", offset)
        width = 1 << exponent
        self.need(width, offset, f"{width}-byte integer", index)
        if width <= 4:
            return self.unsigned(offset + 1, width)
        if width == 8:
            signed: int = struct.unpack_from(">q", self.data, offset + 1)[0]
            return signed
        high = self.unsigned(offset + 1, 8)
        low = self.unsigned(offset + 9, 8)
        if high == 0:
            return low
        if high == _UINT64_MAX and low >= 1 << 63:
            return low - (1 << 64)
        raise PropertyListError(f"16-byte integer object {index} lies outside Int64.min...UInt64.max", offset)

    def ascii_string(self, marker: int, index: int, offset: int) -> str:
        length, start = self.count(marker, index, offset, 1, "ASCII string")
        raw = self.data[start:start + length]
        if not raw.isascii():
            bad = next(i for i, b in enumerate(raw) if b >= 0x80)
            raise PropertyListError(f"ASCII string object {index} holds byte 0x{raw[bad]:02X}, which is not ASCII", start + bad)
        return raw.decode("ascii")

    def utf16_string(self, marker: int, index: int, offset: int) -> str:
        units, start = self.count(marker, index, offset, 2, "UTF-16 string")
        raw = self.data[start:start + 2 * units]
        try:
            return raw.decode("utf-16-be", errors="strict")
        except UnicodeDecodeError as error:
            raise PropertyListError(f"UTF-16 string object {index} has an unpaired surrogate at code unit {error.start // 2}",
                                    start + error.start) from None

    def begin_container(self, marker: int, index: int, offset: int, depth: int, references: int, what: str) -> tuple[int, int]:
        if depth >= MAXIMUM_DEPTH:
            raise PropertyListError(f"{what} object {index} nests deeper than {MAXIMUM_DEPTH} containers", offset)
        count, start = self.count(marker, index, offset, references * self.reference_width, what)
        self.in_progress.add(index)
        self.deepest = max(self.deepest, depth + 1)
        self.count_expanded(1, index)
        return count, start

    def array(self, marker: int, index: int, offset: int, depth: int) -> list[Any]:
        count, start = self.begin_container(marker, index, offset, depth, 1, "array")
        width = self.reference_width
        elements = [self.value(self.reference(start + position * width, index), depth + 1) for position in range(count)]
        self.in_progress.discard(index)
        return elements

    def dictionary(self, marker: int, index: int, offset: int, depth: int) -> dict[str, Any]:
        count, start = self.begin_container(marker, index, offset, depth, 2, "dictionary")
        width = self.reference_width
        values_start = start + count * width
        entries: dict[str, Any] = {}
        for position in range(count):
            key_object = self.reference(start + position * width, index)
            key_offset = self.offset(key_object)
            key_type = self.data[key_offset] & 0xF0
            if key_type not in (0x50, 0x60):
                raise PropertyListError(
                    f"dictionary object {index} has key {position} (object {key_object}) with marker 0x{self.data[key_offset]:02X}, not a string", key_offset)
            key = self.key(key_object, key_offset)
            child = self.reference(values_start + position * width, index)
            entries[key] = self.value(child, depth + 1)
        self.in_progress.discard(index)
        return entries

    def key(self, index: int, offset: int) -> str:
        reused = self.shared.get(index)
        if reused is not None and isinstance(reused[0], str):
            self.count_expanded(reused[1], index)
            return reused[0]
        self.count_expanded(1, index)
        marker = self.data[offset]
        string = self.ascii_string(marker, index, offset) if marker & 0xF0 == 0x50 else self.utf16_string(marker, index, offset)
        if marker & 0x0F == 0x0F:
            if index in self.visited:
                self.shared[index] = (string, 1, 0)
            self.visited.add(index)
        return string


def decode(data: bytes) -> Any:
    """Decodes a ``bplist00`` property list within the bounds; raises :class:`PropertyListError`."""
    reader = _Reader(bytes(data))
    return reader.value(reader.top, 0)


# MARK: Encoding


def _width(value: int) -> int:
    if value <= 0xFF:
        return 1
    if value <= 0xFFFF:
        return 2
    if value <= 0xFFFFFFFF:
        return 4
    return 8


def _integer_bytes(value: int) -> bytes:
    if value > (1 << 63) - 1:
        return bytes([0x14]) + b"\x00" * 8 + value.to_bytes(8, "big")
    if value < 0 or value > 0xFFFFFFFF:
        return bytes([0x13]) + (value & _UINT64_MAX).to_bytes(8, "big")
    width = _width(value)
    return bytes([0x10 | (width.bit_length() - 1)]) + value.to_bytes(width, "big")


def _header(marker: int, count: int) -> bytes:
    if count < 15:
        return bytes([marker | count])
    return bytes([marker | 0x0F]) + _integer_bytes(count)


def _describe(value: object) -> str:
    return type(value).__name__


class _Flattener:
    """Objects in the Swift encoder's order, with its uniquing: see the module's description."""

    def __init__(self) -> None:
        # Each object: ("scalar", bytes) or ("array"/"dict", [references]).
        self.objects: list[tuple[str, Any]] = []
        self.scalars: dict[tuple[Any, ...], int] = {}
        self.containers: dict[tuple[Any, ...], int] = {}
        self.expanded = 0

    def count_expanded(self) -> None:
        self.expanded += 1
        if self.expanded > MAXIMUM_EXPANDED_OBJECT_COUNT:
            raise PropertyListError(f"the value holds more than {MAXIMUM_EXPANDED_OBJECT_COUNT} values, more than a decoder accepts")

    def check_count(self) -> None:
        if len(self.objects) >= MAXIMUM_OBJECT_COUNT:
            raise PropertyListError(f"the value needs more than {MAXIMUM_OBJECT_COUNT} distinct objects, more than a decoder accepts")

    def scalar(self, identity: tuple[Any, ...], encoded: "bytes | Any") -> int:
        found = self.scalars.get(identity)
        if found is not None:
            return found
        self.check_count()
        self.objects.append(("scalar", encoded() if callable(encoded) else encoded))
        self.scalars[identity] = len(self.objects) - 1
        return len(self.objects) - 1

    def string(self, text: str) -> int:
        try:
            utf8 = text.encode("utf-8")
        except UnicodeEncodeError:
            raise PropertyListError(f"the string {text!r} holds an unpaired surrogate, which property lists cannot hold") from None

        def encoded() -> bytes:
            if utf8.isascii():
                return _header(0x50, len(utf8)) + utf8
            utf16 = text.encode("utf-16-be")
            return _header(0x60, len(utf16) // 2) + utf16

        return self.scalar(("s", utf8), encoded)

    def add(self, value: Any, depth: int, path: str) -> int:
        self.count_expanded()
        if isinstance(value, bool):
            return self.scalar(("b", value), bytes([0x09 if value else 0x08]))
        if isinstance(value, int):
            if not _INT64_MIN <= value <= _UINT64_MAX:
                raise PropertyListError(f"the integer {value} at {path} lies outside Int64.min...UInt64.max")
            return self.scalar(("i", int(value)), lambda: _integer_bytes(int(value)))
        if isinstance(value, Real32):
            bits = struct.pack(">f", value)
            return self.scalar(("f", bits), bytes([0x22]) + bits)
        if isinstance(value, float):
            bits = struct.pack(">d", value)
            return self.scalar(("d", bits), bytes([0x23]) + bits)
        if isinstance(value, str):
            return self.string(value)
        if isinstance(value, (bytes, bytearray, memoryview)):
            data = bytes(value)
            return self.scalar(("x", data), lambda: _header(0x40, len(data)) + data)
        if isinstance(value, datetime.datetime):
            seconds = date_seconds(value)
            if math.isnan(seconds):
                raise PropertyListError(f"the date at {path} is NaN")
            bits = struct.pack(">d", seconds)
            return self.scalar(("t", bits), bytes([0x33]) + bits)
        if isinstance(value, (list, tuple)):
            index = self.reserve(depth)
            references = [self.add(element, depth + 1, f"{path}[{position}]") for position, element in enumerate(value)]
            return self.finish("array", index, references, depth)
        if isinstance(value, dict):
            index = self.reserve(depth)
            items = []
            for key, element in value.items():
                if not isinstance(key, str):
                    raise TypeError(f"the dictionary at {path} has a key of type {_describe(key)}; property-list keys are strings")
                items.append((key.encode("utf-8", errors="surrogatepass"), key, element))
            items.sort(key=lambda item: item[0])
            references = []
            for _, key, _ in items:
                self.count_expanded()
                references.append(self.string(key))
            for _, key, element in items:
                references.append(self.add(element, depth + 1, f"{path}.{key}" if path else key))
            return self.finish("dict", index, references, depth)
        raise TypeError(f"the value of {path or 'the top level'} is of type {_describe(value)}, which is not a property-list type")

    def reserve(self, depth: int) -> int:
        if depth >= MAXIMUM_DEPTH:
            raise PropertyListError(f"the value nests more than {MAXIMUM_DEPTH} containers, more than a decoder accepts")
        self.objects.append(("array", []))
        return len(self.objects) - 1

    def finish(self, kind: str, index: int, references: list[int], depth: int) -> int:
        if depth > 0:
            identity = (kind, tuple(references))
            found = self.containers.get(identity)
            if found is not None:
                # Every child was a repeat, so the placeholder is the last object.
                assert len(self.objects) == index + 1
                self.objects.pop()
                return found
            self.containers[identity] = index
        if len(self.objects) > MAXIMUM_OBJECT_COUNT:
            raise PropertyListError(f"the value needs more than {MAXIMUM_OBJECT_COUNT} distinct objects, more than a decoder accepts")
        self.objects[index] = (kind, references)
        return index


def encode(value: Any) -> bytes:
    """Encodes a value as ``bplist00`` exactly as the Swift encoder does.

    Raises ``TypeError`` for a value that is not a property-list type (naming where it is) and
    :class:`PropertyListError` for one beyond the decoder's bounds.
    """
    flattener = _Flattener()
    flattener.add(value, 0, "")
    objects = flattener.objects
    reference_width = _width(len(objects) - 1)
    out = bytearray(_HEADER)
    offsets = []
    for kind, payload in objects:
        offsets.append(len(out))
        if kind == "scalar":
            out += payload
        else:
            count = len(payload) if kind == "array" else len(payload) // 2
            out += _header(0xA0 if kind == "array" else 0xD0, count)
            for reference in payload:
                out += reference.to_bytes(reference_width, "big")
    table_offset = len(out)
    offset_width = _width(offsets[-1])
    for offset in offsets:
        out += offset.to_bytes(offset_width, "big")
    out += b"\x00" * 6 + bytes([offset_width, reference_width])
    out += struct.pack(">QQQ", len(objects), 0, table_offset)
    return bytes(out)


def check_value(key: str, value: Any) -> None:
    """Raises ``TypeError`` naming ``key`` and the type if ``value`` is not a property-list value."""
    try:
        _Flattener().add(value, 1, key)
    except TypeError as error:
        raise TypeError(f"cannot store key {key!r}: {error}") from None
    except PropertyListError as error:
        raise ValueError(f"cannot store key {key!r}: {error}") from None


def _category(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, Real32):
        return "real32"
    if isinstance(value, float):
        return "real"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "data"
    if isinstance(value, datetime.datetime):
        return "date"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "dictionary"
    return type(value).__name__


def same(a: Any, b: Any) -> bool:
    """Whether two values are the same property-list value, as the Swift ``PropertyListValue ==``.

    Same types (``True`` is not ``1``; a 32-bit real is not a 64-bit one); reals by value, with
    ``0.0`` equal to ``-0.0`` and a NaN equal to a NaN of the same width; dates by their seconds.
    Both implementations must agree, or one commits (and its watchers report) a change the other
    does not see as one.
    """
    kind = _category(a)
    if kind != _category(b):
        return False
    if kind == "real32":
        x, y = struct.unpack(">f", struct.pack(">f", a))[0], struct.unpack(">f", struct.pack(">f", b))[0]
        return bool(x == y or (math.isnan(x) and math.isnan(y)))
    if kind == "real":
        x, y = float(a), float(b)
        return x == y or (math.isnan(x) and math.isnan(y))
    if kind == "date":
        return date_seconds(a) == date_seconds(b)
    if kind == "data":
        return bytes(a) == bytes(b)
    if kind == "array":
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if kind == "dictionary":
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)
