#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A property-list value: the types a preferences domain can hold.
///
/// Values are plain Swift data, `Sendable` and `Hashable`, so they can be cached, diffed
/// and handed between threads freely. Equality is structural: a `.float` never equals a
/// `.double`, because the binary format keeps 32- and 64-bit reals apart and so do we.
public enum PropertyListValue: Sendable, Hashable {
    /// A boolean.
    case bool(Bool)
    /// An integer from `Int64.min` through `UInt64.max`.
    case integer(PropertyListInteger)
    /// A 32-bit real.
    case float(Float)
    /// A 64-bit real.
    case double(Double)
    /// A point in time, kept to the precision of a `Double` count of seconds since 2001.
    case date(Date)
    /// Raw bytes.
    case data(Data)
    /// A Unicode string.
    case string(String)
    /// An ordered list of values.
    case array([PropertyListValue])
    /// A map from string keys to values.
    case dictionary([String: PropertyListValue])

    /// The property-list name of the value's type, as `defaults read-type` prints it:
    /// `boolean`, `integer`, `float`, `date`, `data`, `string`, `array` or `dictionary`.
    public var typeName: String {
        switch self {
        case .bool: "boolean"
        case .integer: "integer"
        case .float, .double: "float"
        case .date: "date"
        case .data: "data"
        case .string: "string"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }

    /// The boolean, if this is a `.bool`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The integer, if this is an `.integer`.
    public var integerValue: PropertyListInteger? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The string, if this is a `.string`.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The bytes, if this is a `.data`.
    public var dataValue: Data? {
        if case .data(let value) = self { value } else { nil }
    }

    /// The date, if this is a `.date`.
    public var dateValue: Date? {
        if case .date(let value) = self { value } else { nil }
    }

    /// The elements, if this is an `.array`.
    public var arrayValue: [PropertyListValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The entries, if this is a `.dictionary`.
    public var dictionaryValue: [String: PropertyListValue]? {
        if case .dictionary(let value) = self { value } else { nil }
    }

    /// Looks up a key, if this is a `.dictionary`.
    public subscript(key: String) -> PropertyListValue? {
        dictionaryValue?[key]
    }
}

extension PropertyListValue {
    /// Creates an integer value from any `Int`.
    public static func integer(_ value: Int) -> PropertyListValue {
        .integer(PropertyListInteger(value))
    }
}

extension PropertyListValue: ExpressibleByBooleanLiteral {
    /// Creates a `.bool` from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension PropertyListValue: ExpressibleByIntegerLiteral {
    /// Creates an `.integer` from a literal.
    public init(integerLiteral value: Int64) { self = .integer(PropertyListInteger(value)) }
}

extension PropertyListValue: ExpressibleByFloatLiteral {
    /// Creates a `.double` from a literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension PropertyListValue: ExpressibleByStringLiteral {
    /// Creates a `.string` from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension PropertyListValue: ExpressibleByArrayLiteral {
    /// Creates an `.array` from a literal.
    public init(arrayLiteral elements: PropertyListValue...) { self = .array(elements) }
}

extension PropertyListValue: ExpressibleByDictionaryLiteral {
    /// Creates a `.dictionary` from a literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
