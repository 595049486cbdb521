import Foundation
import PropertyList

/// The values exchanged with CPython's plistlib in XML (`Fixtures/plistlib_interop.py`,
/// `write-xml` and `check-xml`): the binary cases XML can carry, plus cases of its own.
enum XMLInteropCases {
    /// Binary cases left out of XML, with the reason the Python side gives: plistlib refuses
    /// control characters in XML strings and reads no part of a second in XML dates.
    static let skipped: Set<String> = ["string_nul", "date_1900_half_second", "date_2200_quarter_second"]

    /// Cases plistlib writes byte for byte differently from us, only in how reals are
    /// spelled (it writes Python's repr: `0.0`, `-0.0`, `inf`; we write Apple's `0`, `-0`,
    /// `+infinity`; `1.0` where we write `1`).
    static let differentRealSpelling: Set<String> = [
        "double_zero", "double_negative_zero", "double_infinity", "double_negative_infinity", "shared_kinds_apart",
    ]

    static let extra: [String: PropertyListValue] = [
        "xml_markup_string": "<a href=\"x\">&amp; ]]> 'q' & < >",
        "xml_markup_keys": ["<key>": "&", "a&b": "<", "]]>": ">", "x y\tz": "\n"],
        "xml_whitespace_string": "  leading and trailing\n\tspaces  ",
        "xml_multiline_string": "line one\nline two\n\nline four",
        // 2024-01-02T03:04:05Z and 1600-02-29T23:59:59Z.
        "xml_date_2024": .date(Date(timeIntervalSinceReferenceDate: 725_857_445)),
        "xml_date_1600": .date(Date(timeIntervalSinceReferenceDate: -12_649_219_201)),
        "xml_data_57_bytes": .data(Data((0..<57).map { UInt8($0) })),
        "xml_data_in_depth": [[[["d": .data(Data((0..<200).map { UInt8($0) }))]]]],
        "xml_int_negative_hex_range": [
            .integer(PropertyListInteger(Int64.min)), .integer(PropertyListInteger(UInt64.max)), -1, 0,
        ],
    ]

    /// Every case of the XML exchange, as we expect to read it from plistlib.
    static let all: [String: PropertyListValue] = InteropCases.all
        .filter { !skipped.contains($0.key) }
        .merging(extra, uniquingKeysWith: { first, _ in first })

    /// The names plistlib writes (it has no 32-bit reals).
    static var writtenByPlistlib: [String: PropertyListValue] {
        all.filter { !InteropCases.oursOnly.contains($0.key) }
    }
}
