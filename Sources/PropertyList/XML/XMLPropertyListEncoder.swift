#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes values as Apple's XML property lists, in the exact layout Apple's writer uses.
///
/// ```
/// <?xml version="1.0" encoding="UTF-8"?>
/// <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
/// <plist version="1.0">
/// <dict>
/// 	<key>enabled</key>
/// 	<true/>
/// </dict>
/// </plist>
/// ```
///
/// The layout: one element per line, indented with one tab per level (the top value is not
/// indented); dictionary keys sorted; `<true/>`, `<false/>`, and `<array/>`, `<dict/>` when
/// empty; `<data>` on its own line, its base64 in lines of 76 characters less 8 per level
/// of indentation (indentation counted to at most 8 levels), each indented like the
/// element; in strings and keys only `<`, `>` and `&` are escaped, the rest written as it is.
///
/// Numbers and dates:
/// - integers in decimal;
/// - reals in their shortest round-trip digits without a trailing `.0`, as Apple's current
///   writer does (`0.1`, `2`, `-0`, `1e+20`), infinities as `+infinity` and `-infinity`,
///   NaN as `nan`. A `.float` is written with its shortest `Float` digits (`0.1`, not
///   `0.10000000149011612`), and, since XML has one kind of real, reads back as the
///   `.double` of that text;
/// - dates in UTC as `2024-01-02T03:04:05Z`. Apple's writer drops the part of a second;
///   this one writes it when it is not zero, as `.` and the fewest digits that read back to
///   the same date bit for bit (`2024-01-02T03:04:05.25Z`). Whole-second dates are
///   therefore byte-identical to Apple's, and every date round-trips exactly through
///   ``XMLPropertyListDecoder``; Apple's parser and Python's `plistlib` read only
///   whole-second dates.
///
/// Strings with control characters are written raw, as Apple writes them: Apple's parser and
/// this library read them back, strict XML parsers (such as `plistlib`'s) refuse them.
public struct XMLPropertyListEncoder: Sendable {
    private static let header = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """.utf8)

    /// Creates an encoder.
    public init() {}

    /// Encodes a value as a complete XML property-list document.
    public func encode(_ value: PropertyListValue) -> [UInt8] {
        var output = Self.header
        Self.append(value, level: 0, to: &output)
        output.append(contentsOf: "</plist>\n".utf8)
        return output
    }

    private static func append(_ value: PropertyListValue, level: Int, to output: inout [UInt8]) {
        indent(level, &output)
        switch value {
        case .bool(let bool):
            output.append(contentsOf: (bool ? "<true/>\n" : "<false/>\n").utf8)
        case .integer(let integer):
            element("integer", integer.description, &output)
        case .float(let float):
            element("real", realText(RealNumberText.shortest(float), isNaN: float.isNaN, infinity: float.isInfinite ? float.sign : nil), &output)
        case .double(let double):
            element("real", realText(RealNumberText.shortest(double), isNaN: double.isNaN, infinity: double.isInfinite ? double.sign : nil), &output)
        case .date(let date):
            element("date", CalendarTime(date).iso8601, &output)
        case .string(let string):
            output.append(contentsOf: "<string>".utf8)
            appendEscaped(string, &output)
            output.append(contentsOf: "</string>\n".utf8)
        case .data(let data):
            output.append(contentsOf: "<data>\n".utf8)
            let tabs = min(level, 8)
            Base64.appendLines(of: data, tabs: tabs, lineLength: 76 - 8 * tabs, to: &output)
            indent(level, &output)
            output.append(contentsOf: "</data>\n".utf8)
        case .array(let elements):
            guard !elements.isEmpty else {
                output.append(contentsOf: "<array/>\n".utf8)
                return
            }
            output.append(contentsOf: "<array>\n".utf8)
            for element in elements {
                append(element, level: level + 1, to: &output)
            }
            indent(level, &output)
            output.append(contentsOf: "</array>\n".utf8)
        case .dictionary(let entries):
            guard !entries.isEmpty else {
                output.append(contentsOf: "<dict/>\n".utf8)
                return
            }
            output.append(contentsOf: "<dict>\n".utf8)
            for key in entries.keys.sorted() {
                indent(level + 1, &output)
                output.append(contentsOf: "<key>".utf8)
                appendEscaped(key, &output)
                output.append(contentsOf: "</key>\n".utf8)
                append(entries[key]!, level: level + 1, to: &output)
            }
            indent(level, &output)
            output.append(contentsOf: "</dict>\n".utf8)
        }
    }

    /// Apple's spellings of the special reals; finite values as they are.
    private static func realText(_ shortest: String, isNaN: Bool, infinity sign: FloatingPointSign?) -> String {
        if isNaN { return "nan" }
        if let sign { return sign == .minus ? "-infinity" : "+infinity" }
        return shortest
    }

    private static func element(_ name: String, _ content: String, _ output: inout [UInt8]) {
        output.append(UInt8(ascii: "<"))
        output.append(contentsOf: name.utf8)
        output.append(UInt8(ascii: ">"))
        output.append(contentsOf: content.utf8)
        output.append(contentsOf: "</".utf8)
        output.append(contentsOf: name.utf8)
        output.append(contentsOf: ">\n".utf8)
    }

    private static func appendEscaped(_ string: String, _ output: inout [UInt8]) {
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): output.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
            default: output.append(byte)
            }
        }
    }

    private static func indent(_ level: Int, _ output: inout [UInt8]) {
        output.append(contentsOf: repeatElement(UInt8(ascii: "\t"), count: level))
    }
}
