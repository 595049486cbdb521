import Foundation
package import PropertyList

/// Property-list values as JSON, for `--json` and `export --format json`.
///
/// JSON has fewer types than property lists, so this is an output format, not a storage
/// one: booleans, integers, reals, strings, arrays and dictionaries map one to one; dates
/// become ISO 8601 strings (`2024-01-02T03:04:05Z`), data a base64 string, and non-finite
/// reals the strings `nan`, `inf` and `-inf`. Keys are sorted so the output is stable.
package enum JSONText {
    /// The value as JSON: on one line, or indented by two spaces per level.
    package static func encode(_ value: PropertyListValue, pretty: Bool = true) -> String {
        var output = ""
        append(value, level: 0, pretty: pretty, to: &output)
        return output
    }

    /// A JSON object from already-encoded members, in the given order, on one line.
    package static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// A string as a JSON string literal.
    package static func string(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case let scalar where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    private static func append(_ value: PropertyListValue, level: Int, pretty: Bool, to output: inout String) {
        let newline = pretty ? "\n" : ""
        let indent = { (level: Int) in pretty ? String(repeating: "  ", count: level) : "" }
        switch value {
        case .bool(let bool): output += bool ? "true" : "false"
        case .integer(let integer): output += integer.description
        case .float(let float): output += real(Double(float), text: "\(float)")
        case .double(let double): output += real(double, text: "\(double)")
        case .date(let date): output += string(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: date.timeIntervalSinceReferenceDate.rounded() != date.timeIntervalSinceReferenceDate)))
        case .data(let data): output += string(data.base64EncodedString())
        case .string(let text): output += string(text)
        case .array(let elements):
            guard !elements.isEmpty else {
                output += "[]"
                return
            }
            output += "[" + newline
            for (index, element) in elements.enumerated() {
                output += indent(level + 1)
                append(element, level: level + 1, pretty: pretty, to: &output)
                output += (index == elements.count - 1 ? "" : ",") + newline
            }
            output += indent(level) + "]"
        case .dictionary(let entries):
            guard !entries.isEmpty else {
                output += "{}"
                return
            }
            output += "{" + newline
            let keys = entries.keys.sorted()
            for (index, key) in keys.enumerated() {
                output += indent(level + 1) + string(key) + (pretty ? ": " : ":")
                append(entries[key]!, level: level + 1, pretty: pretty, to: &output)
                output += (index == keys.count - 1 ? "" : ",") + newline
            }
            output += indent(level) + "}"
        }
    }

    /// A finite real as its shortest digits, anything else as a string.
    private static func real(_ value: Double, text: String) -> String {
        if value.isNaN { return string("nan") }
        if value.isInfinite { return string(value < 0 ? "-inf" : "inf") }
        return text
    }
}
