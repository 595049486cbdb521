package import DeclaredSettings
package import Foundation
package import PropertyList

/// Swift source text for declared types and values: the generated file's `Value` types and
/// default literals.
///
/// Every literal reads back as exactly the schema's value: strings escape what a literal
/// cannot hold as it is, reals print with round-trip precision, and values of no fixed type
/// spell out their `PropertyListValue` case so no literal type is left to inference.
package enum SwiftLiteral {
    /// The Swift type a typed key of `type` holds (`[String]`, `[String: PropertyListValue]`).
    package static func typeName(of type: DeclaredType) -> String {
        switch type {
        case .string: "String"
        case .integer: "Int"
        case .real: "Double"
        case .boolean: "Bool"
        case .date: "Date"
        case .data: "Data"
        case .array(let element?): "[\(typeName(of: element))]"
        // No element type: elements may differ, so each stays a property-list value.
        case .array(nil): "[PropertyListValue]"
        case .dictionary: "[String: PropertyListValue]"
        }
    }

    /// Why a value has no literal of a type.
    package struct Unrepresentable: Error, Sendable, Equatable {
        /// What is wrong, in words.
        package let reason: String
    }

    /// The literal of `value` as a `type` value (the type ``typeName(of:)`` names).
    ///
    /// - Throws: ``Unrepresentable`` when the value does not have the type, or is an integer
    ///   outside `Int`'s range.
    package static func literal(_ value: PropertyListValue, as type: DeclaredType) throws(Unrepresentable) -> String {
        switch (type, value) {
        case (.string, .string(let text)):
            return string(text)
        case (.integer, .integer(let integer)):
            guard let int = integer.intValue else {
                throw Unrepresentable(reason: "\(integer) does not fit in Int")
            }
            return String(int)
        case (.real, .double(let real)):
            return double(real)
        case (.real, .float(let real)):
            // Widening is exact: the Double holds the same number the Float did.
            return double(Double(real))
        case (.real, .integer(let integer)):
            return double(integer.doubleValue)
        case (.boolean, .bool(let flag)):
            return flag ? "true" : "false"
        case (.date, .date(let moment)):
            return date(moment)
        case (.data, .data(let bytes)):
            return data(bytes)
        case (.array(let element?), .array(let elements)):
            var items: [String] = []
            for item in elements { items.append(try literal(item, as: element)) }
            return "[" + items.joined(separator: ", ") + "]"
        case (.array(nil), .array(let elements)):
            return "[" + elements.map(propertyListValue).joined(separator: ", ") + "]"
        case (.dictionary, .dictionary(let entries)):
            return dictionary(entries)
        default:
            throw Unrepresentable(reason: "\(value.typeName) is not \(type)")
        }
    }

    /// `value` as a `PropertyListValue` expression that names its case: `.string("a")`,
    /// `.array([.integer(1)])`.
    package static func propertyListValue(_ value: PropertyListValue) -> String {
        switch value {
        case .bool(let flag): ".bool(\(flag ? "true" : "false"))"
        case .integer(let integer): integerValue(integer)
        case .float(let real): ".float(\(float(real)))"
        case .double(let real): ".double(\(double(real)))"
        case .date(let moment): ".date(\(date(moment)))"
        case .data(let bytes): ".data(\(data(bytes)))"
        case .string(let text): ".string(\(string(text)))"
        case .array(let elements): ".array([" + elements.map(propertyListValue).joined(separator: ", ") + "])"
        case .dictionary(let entries): ".dictionary(\(dictionary(entries)))"
        }
    }

    /// A `[String: PropertyListValue]` literal, keys sorted so the output is the same on
    /// every run.
    static func dictionary(_ entries: [String: PropertyListValue]) -> String {
        if entries.isEmpty { return "[:]" }
        let items = entries.keys.sorted().map { "\(string($0)): \(propertyListValue(entries[$0]!))" }
        return "[" + items.joined(separator: ", ") + "]"
    }

    /// An `.integer` of any property-list integer. The case's argument is a
    /// `PropertyListInteger`, built from `Int64` or, above `Int64.max`, from `UInt64`.
    static func integerValue(_ integer: PropertyListInteger) -> String {
        if let signed = integer.int64Value {
            return ".integer(PropertyListInteger(Int64(\(signed))))"
        }
        return ".integer(PropertyListInteger(UInt64(\(integer))))"
    }

    /// A Swift string literal that holds exactly `text`.
    ///
    /// Quotes and backslashes are escaped, line breaks and tabs use their short escapes,
    /// and every other control character (C0, DEL, C1) and the Unicode line and paragraph
    /// separators become `\u{...}`, so the literal stays on one line and shows what it
    /// holds. Other characters, non-ASCII ones included, are written as they are.
    package static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\0": result += "\\0"
            default:
                let value = scalar.value
                if value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029 {
                    result += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// A `Double` expression with round-trip precision: Swift's shortest representation
    /// that reads back as the same bits (`0.1`, `1e+300`), or `.infinity` / `.nan`.
    package static func double(_ real: Double) -> String {
        if real.isNaN { return "Double.nan" }
        if real.isInfinite { return real < 0 ? "-Double.infinity" : "Double.infinity" }
        return "\(real)"
    }

    /// A `Float` expression with round-trip precision (see ``double(_:)``).
    static func float(_ real: Float) -> String {
        if real.isNaN { return "Float.nan" }
        if real.isInfinite { return real < 0 ? "-Float.infinity" : "Float.infinity" }
        return "\(real)"
    }

    /// A `Date` expression for exactly `date`.
    package static func date(_ date: Date) -> String {
        "Date(timeIntervalSinceReferenceDate: \(double(date.timeIntervalSinceReferenceDate)))"
    }

    /// A `Data` expression holding `bytes`.
    package static func data(_ bytes: Data) -> String {
        if bytes.isEmpty { return "Data()" }
        let hex = bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return "0x" + (digits.count == 1 ? "0" + digits : digits)
        }
        return "Data([" + hex.joined(separator: ", ") + "])"
    }
}
