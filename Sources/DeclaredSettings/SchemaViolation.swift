import Foundation
public import PropertyList

/// A value that breaks the rule its key is declared with: which key, which value, which rule,
/// and which schema says so.
public struct SchemaViolation: Sendable, Hashable, CustomStringConvertible {
    /// A rule a declared key's values must keep.
    public enum Rule: Sendable, Hashable, CustomStringConvertible {
        /// The value must have this type.
        case type(DeclaredType)
        /// The value must be at least this.
        case minimum(PropertyListValue)
        /// The value must be at most this.
        case maximum(PropertyListValue)
        /// The value must be one of these.
        case choices([PropertyListValue])

        /// The rule in words: "must be an integer", "must be at most 100".
        public var description: String {
            switch self {
            case .type(let type): "must be \(type.withArticle)"
            case .minimum(let bound): "must be at least \(SchemaViolation.render(bound))"
            case .maximum(let bound): "must be at most \(SchemaViolation.render(bound))"
            case .choices(let choices): "must be one of " + choices.map(SchemaViolation.render).joined(separator: ", ")
            }
        }
    }

    /// The declared key.
    public let key: String
    /// The value that breaks the rule (for an array element of the wrong type, the whole
    /// array; ``elementPath`` says which element).
    public let value: PropertyListValue
    /// The rule broken.
    public let rule: Rule
    /// For an array, the index path of the element of the wrong type; empty otherwise.
    public let elementPath: [Int]
    /// The schema file the key is declared in.
    public let schemaPath: String

    /// Creates a violation.
    public init(key: String, value: PropertyListValue, rule: Rule, elementPath: [Int] = [], schemaPath: String) {
        self.key = key
        self.value = value
        self.rule = rule
        self.elementPath = elementPath
        self.schemaPath = schemaPath
    }

    /// "Volume must be at most 100, not 150 (schema /usr/share/.../greeter.plist)".
    public var description: String {
        let element = elementPath.isEmpty ? "" : " (element " + elementPath.map { "[\($0)]" }.joined() + ")"
        return "\(key) \(rule), not \(Self.render(value))\(element) (schema \(schemaPath))"
    }

    /// A value in a message: strings quoted, numbers plain, containers summarised, and long
    /// text cut so a hostile value cannot flood a log.
    public static func render(_ value: PropertyListValue) -> String {
        let text: String
        switch value {
        case .string(let string): text = "\"" + string.replacingControlCharacters() + "\""
        case .integer(let integer): text = integer.description
        case .double(let double): text = double.description
        case .float(let float): text = float.description
        case .bool(let bool): text = bool ? "true" : "false"
        case .date(let date): text = "date \(date.timeIntervalSinceReferenceDate)"
        case .data(let data): text = "\(data.count) bytes of data"
        case .array(let elements): text = "an array of \(elements.count)"
        case .dictionary(let entries): text = "a dictionary of \(entries.count)"
        }
        return text.count > 80 ? String(text.prefix(77)) + "..." : text
    }
}

extension String {
    /// The string with control characters shown as `\u{..}`, for one-line messages.
    fileprivate func replacingControlCharacters() -> String {
        var result = ""
        for scalar in unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
