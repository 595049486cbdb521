#!/usr/bin/env python3
"""The other side of the interop tests: CPython's plistlib, a codec no one here wrote.

  plistlib_interop.py write DIR       writes every case this side can express to DIR/<name>.bplist
  plistlib_interop.py check DIR       reads DIR/<name>.bplist (written by our encoder) and compares
                                      each to this file's own expectation; exit 1 on any mismatch
  plistlib_interop.py write-xml DIR   the same in plistlib's FMT_XML, to DIR/<name>.xml
  plistlib_interop.py check-xml DIR   reads DIR/<name>.xml written by our XML encoder

The expected values here are written independently of the Swift test's, so a mistake in
one side's idea of a value shows up as a mismatch instead of cancelling out.
"""
import datetime
import math
import os
import plistlib
import struct
import sys


def float32(x):
    return struct.unpack(">f", struct.pack(">f", x))[0]


def nested(depth):
    value = "bottom"
    for _ in range(depth):
        value = [value]
    return value


def ordinal(n):
    """The ordinal n as von Neumann built it: the list of all smaller ordinals."""
    smaller = []
    for _ in range(n):
        smaller.append(list(smaller))
    return smaller


# plistlib shares a list or dict only when the same Python object recurs, so the repeated
# containers below are one object each (`[x] * 1000`) where they should be written once.
REPEATED_ARRAY = [1, "a", True]
REPEATED_DICT = {"count": 1, "name": "x"}
LEAF = ["x"]

EPOCH = datetime.datetime(2001, 1, 1)

# name -> (value, whether plistlib can write it: it has no 32-bit reals)
CASES = {
    "bool_true": (True, True),
    "bool_false": (False, True),
    "int_zero": (0, True),
    "int_255": (255, True),
    "int_256": (256, True),
    "int_65535": (65535, True),
    "int_65536": (65536, True),
    "int_u32_max": (2**32 - 1, True),
    "int_2_32": (2**32, True),
    "int_minus_one": (-1, True),
    "int64_min": (-(2**63), True),
    "int64_max": (2**63 - 1, True),
    "uint64_2_63": (2**63, True),
    "uint64_max": (2**64 - 1, True),
    "double_zero": (0.0, True),
    "double_negative_zero": (-0.0, True),
    "double_pi": (math.pi, True),
    "double_infinity": (math.inf, True),
    "double_negative_infinity": (-math.inf, True),
    "double_smallest_subnormal": (5e-324, True),
    "double_max": (sys.float_info.max, True),
    "float32_tenth": (float32(0.1), False),
    "float32_negative_zero": (-0.0, False),
    "date_reference": (EPOCH, True),
    "date_unix_epoch": (datetime.datetime(1970, 1, 1), True),
    "date_1900_half_second": (datetime.datetime(1900, 1, 1, 0, 0, 0, 500000), True),
    "date_2200_quarter_second": (datetime.datetime(2200, 6, 15, 12, 30, 45, 250000), True),
    "data_empty": (b"", True),
    "data_small": (bytes([0, 1, 2, 0xFE, 0xFF]), True),
    "data_1mib": (bytes(i % 251 for i in range(1 << 20)), True),
    "string_empty": ("", True),
    "string_ascii": ("Hello, preferences!", True),
    "string_nul": ("a\0b", True),
    "string_long_ascii": ("x" * 1000, True),
    "string_emoji": ("👩‍👩‍👧‍👦 🎉 flags 🇩🇪", True),
    "string_cjk": ("日本語の設定と中文设置", True),
    "string_combining": ("e\u0301 a\u0308 n\u0303 \u0915\u094d\u0937", True),
    "string_latin1": ("café naïve", True),
    "array_empty": ([], True),
    "dict_empty": ({}, True),
    "array_mixed": ([True, 1, -2, 3.5, "four", b"\x05", [], {}], True),
    "dict_nested": ({"a": {"b": {"c": [1, 2, {"d": "deep"}]}}, "e": []}, True),
    "dict_unicode_keys": ({"ключ": 1, "🔑": 2, "a.b c@d": 3, "é": 4}, True),
    "nesting_depth_32": (nested(32), True),
    "dict_10000_keys": ({f"key{i:05d}": (i if i % 2 == 0 else f"v{i}") for i in range(10000)}, True),
    "shared_values": (["same", "same", 7, 7, ["same"]], True),
    "shared_arrays_1000": ([REPEATED_ARRAY] * 1000, True),
    "shared_dicts_1000": ([REPEATED_DICT] * 1000, True),
    "shared_nested": ([LEAF, [LEAF], [[LEAF]], {"k": [LEAF]}, {"k": [LEAF]}, [[LEAF]]], True),
    "shared_ordinal_8": (ordinal(8), True),
    # Equal as Python values in places (1 == 1.0 == True) but of different types: not shared.
    "shared_kinds_apart": ([[1], [1.0], [True], ["1"], [], {}, {"a": 1}, ["a", 1]], True),
}


def same(a, b):
    """Strict equality: types must match (True is not 1), and -0.0 is not 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


# XML can carry fewer of the cases: plistlib refuses control characters in XML strings, and
# its XML dates have no part of a second (our encoder writes one when there is one, which
# plistlib cannot parse), so those cases stay binary-only.
XML_SKIPPED = {"string_nul", "date_1900_half_second", "date_2200_quarter_second"}

# Cases only the XML exchange has: markup characters, whitespace and dates to the second.
XML_EXTRA_CASES = {
    "xml_markup_string": ("<a href=\"x\">&amp; ]]> 'q' & < >", True),
    "xml_markup_keys": ({"<key>": "&", "a&b": "<", "]]>": ">", "x y\tz": "\n"}, True),
    "xml_whitespace_string": ("  leading and trailing\n\tspaces  ", True),
    "xml_multiline_string": ("line one\nline two\n\nline four", True),
    "xml_date_2024": (datetime.datetime(2024, 1, 2, 3, 4, 5), True),
    "xml_date_1600": (datetime.datetime(1600, 2, 29, 23, 59, 59), True),
    "xml_data_57_bytes": (bytes(range(57)), True),
    "xml_data_in_depth": ([[[{"d": bytes(range(200))}]]], True),
    "xml_int_negative_hex_range": ([-(2**63), 2**64 - 1, -1, 0], True),
}

# How our 32-bit reals read once written as XML: their shortest Float digits, read by
# plistlib as a double. float32(0.1) is 0.10000000149011612; the XML text is "0.1".
XML_FLOAT32_AS_DOUBLE = {"float32_tenth": 0.1, "float32_negative_zero": -0.0}


def xml_cases():
    cases = {name: case for name, case in CASES.items() if name not in XML_SKIPPED}
    cases.update(XML_EXTRA_CASES)
    return cases


def write(directory, cases, fmt, suffix):
    for name, (value, writable) in cases.items():
        if writable:
            with open(os.path.join(directory, name + suffix), "wb") as f:
                plistlib.dump(value, f, fmt=fmt)


def check(directory, cases, fmt, suffix, overrides):
    failures = 0
    for name, (expected, _) in cases.items():
        expected = overrides.get(name, expected)
        path = os.path.join(directory, name + suffix)
        try:
            with open(path, "rb") as f:
                actual = plistlib.load(f, fmt=fmt)
        except Exception as error:  # noqa: BLE001 - report every kind of failure
            print(f"{name}: plistlib could not read it: {error!r}")
            failures += 1
            continue
        if not same(actual, expected):
            shown = repr(actual)
            print(f"{name}: read {shown[:200]}, expected {repr(expected)[:200]}")
            failures += 1
    print(f"checked {len(cases)} cases, {failures} mismatched")
    return 1 if failures else 0


if __name__ == "__main__":
    command, directory = sys.argv[1], sys.argv[2]
    if command == "write":
        write(directory, CASES, plistlib.FMT_BINARY, ".bplist")
        sys.exit(0)
    if command == "write-xml":
        write(directory, xml_cases(), plistlib.FMT_XML, ".xml")
        sys.exit(0)
    if command == "check-xml":
        sys.exit(check(directory, xml_cases(), plistlib.FMT_XML, ".xml", XML_FLOAT32_AS_DOUBLE))
    sys.exit(check(directory, CASES, plistlib.FMT_BINARY, ".bplist", {}))
