import Foundation
import PropertyList
import Testing

/// The values exchanged with CPython's plistlib, under the names its side uses
/// (`Fixtures/plistlib_interop.py`). Each side spells its expectations independently.
enum InteropCases {
    /// Names of cases plistlib cannot write (it has no 32-bit reals).
    static let oursOnly: Set<String> = ["float32_tenth", "float32_negative_zero"]

    /// Cases that repeat equal containers, which our encoder writes once: plistlib must
    /// read them back, and we must write them in no more bytes than plistlib does.
    static let sharedContainers: Set<String> = ["shared_arrays_1000", "shared_dicts_1000", "shared_nested", "shared_ordinal_8"]

    /// The ordinal `n` as von Neumann built it: the array of all smaller ordinals.
    static func ordinal(_ n: Int) -> PropertyListValue {
        var smaller: [PropertyListValue] = []
        for _ in 0..<n { smaller.append(.array(smaller)) }
        return .array(smaller)
    }

    static func nested(_ depth: Int) -> PropertyListValue {
        var value: PropertyListValue = "bottom"
        for _ in 0..<depth { value = [value] }
        return value
    }

    /// One case as a test's argument, named by its name alone: the test log prints each
    /// argument as its case starts, and the whole value of `dict_10000_keys` is a line of
    /// hundreds of kilobytes.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let value: PropertyListValue
        var testDescription: String { name }
    }

    /// Every case, ordered by name.
    static var cases: [Case] {
        all.sorted { $0.key < $1.key }.map { Case(name: $0.key, value: $0.value) }
    }

    static let all: [String: PropertyListValue] = {
        var cases: [String: PropertyListValue] = [
            "bool_true": true,
            "bool_false": false,
            "int_zero": 0,
            "int_255": 255,
            "int_256": 256,
            "int_65535": 65535,
            "int_65536": 65536,
            "int_u32_max": .integer(PropertyListInteger(UInt64(UInt32.max))),
            "int_2_32": .integer(PropertyListInteger(Int64(1) << 32)),
            "int_minus_one": -1,
            "int64_min": .integer(PropertyListInteger(Int64.min)),
            "int64_max": .integer(PropertyListInteger(Int64.max)),
            "uint64_2_63": .integer(PropertyListInteger(UInt64(1) << 63)),
            "uint64_max": .integer(PropertyListInteger(UInt64.max)),
            "double_zero": .double(0),
            "double_negative_zero": .double(-0.0),
            "double_pi": .double(Double.pi),
            "double_infinity": .double(.infinity),
            "double_negative_infinity": .double(-.infinity),
            "double_smallest_subnormal": .double(.leastNonzeroMagnitude),
            "double_max": .double(.greatestFiniteMagnitude),
            "float32_tenth": .float(0.1),
            "float32_negative_zero": .float(-0.0),
            "date_reference": .date(Date(timeIntervalSinceReferenceDate: 0)),
            "date_unix_epoch": .date(Date(timeIntervalSince1970: 0)),
            // 1900-01-01 00:00:00.5 and 2200-06-15 12:30:45.25, UTC.
            "date_1900_half_second": .date(Date(timeIntervalSinceReferenceDate: -3_187_295_999.5)),
            "date_2200_quarter_second": .date(Date(timeIntervalSinceReferenceDate: 6_294_112_245.25)),
            "data_empty": .data(Data()),
            "data_small": .data(Data([0, 1, 2, 0xFE, 0xFF])),
            "data_1mib": .data(Data((0..<(1 << 20)).map { UInt8($0 % 251) })),
            "string_empty": "",
            "string_ascii": "Hello, preferences!",
            "string_nul": "a\u{0}b",
            "string_long_ascii": .string(String(repeating: "x", count: 1000)),
            "string_emoji": "👩‍👩‍👧‍👦 🎉 flags 🇩🇪",
            "string_cjk": "日本語の設定と中文设置",
            "string_combining": "e\u{301} a\u{308} n\u{303} \u{915}\u{94D}\u{937}",
            "string_latin1": "café naïve",
            "array_empty": [],
            "dict_empty": [:],
            "array_mixed": [true, 1, -2, 3.5, "four", .data(Data([5])), [], [:]],
            "dict_nested": ["a": ["b": ["c": [1, 2, ["d": "deep"]]]], "e": []],
            "dict_unicode_keys": ["ключ": 1, "🔑": 2, "a.b c@d": 3, "é": 4],
            "nesting_depth_32": nested(32),
            "shared_values": ["same", "same", 7, 7, ["same"]],
            "shared_arrays_1000": .array((0..<1_000).map { _ in [1, "a", true] }),
            "shared_dicts_1000": .array((0..<1_000).map { _ in ["count": 1, "name": "x"] }),
            "shared_nested": [["x"], [["x"]], [[["x"]]], ["k": [["x"]]], ["k": [["x"]]], [[["x"]]]],
            "shared_ordinal_8": ordinal(8),
            "shared_kinds_apart": [[1], [.double(1)], [true], ["1"], [], [:], ["a": 1], ["a", 1]],
        ]
        var big: [String: PropertyListValue] = [:]
        for i in 0..<10_000 {
            let key = "key" + String(repeating: "0", count: 5 - String(i).count) + String(i)
            big[key] = i % 2 == 0 ? .integer(i) : .string("v\(i)")
        }
        cases["dict_10000_keys"] = .dictionary(big)
        return cases
    }()
}

/// The folder of fixture files that sit beside these tests.
let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures", isDirectory: true)
