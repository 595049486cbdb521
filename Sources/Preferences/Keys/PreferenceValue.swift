public import Foundation

/// A Swift type a typed ``PreferenceKey`` can hold: it converts to and from a property-list
/// value.
///
/// `Bool`, the integer and floating-point types, `String`, `Date`, `Data`, `URL`, arrays,
/// string-keyed dictionaries and optionals of these conform. Any `Codable` type conforms
/// by declaring it (`extension Theme: PreferenceValue {}`): it is stored as a native
/// property-list dictionary or array, not as a JSON string.
public protocol PreferenceValue: Sendable {
    /// Creates a value from what the store holds, or nil if it is not of this type.
    init?(propertyListValue: PropertyListValue)
    /// The value as the store should hold it, or nil to remove the key (an optional's nil).
    var propertyListValue: PropertyListValue? { get }
}

extension PreferenceValue where Self: Codable {
    /// Decodes the value natively from a property-list value.
    public init?(propertyListValue: PropertyListValue) {
        guard let value = try? PropertyListValueDecoder().decode(Self.self, from: propertyListValue) else { return nil }
        self = value
    }

    /// Encodes the value natively as a property-list value.
    public var propertyListValue: PropertyListValue? {
        try? PropertyListValueEncoder().encode(self)
    }
}

extension Bool: PreferenceValue {
    /// Reads a `.bool`.
    public init?(propertyListValue: PropertyListValue) {
        guard case .bool(let value) = propertyListValue else { return nil }
        self = value
    }
    /// The value as `.bool`.
    public var propertyListValue: PropertyListValue? { .bool(self) }
}

extension Int: PreferenceValue {
    /// Reads an `.integer` that fits in `Int`.
    public init?(propertyListValue: PropertyListValue) {
        guard case .integer(let value) = propertyListValue, let int = value.intValue else { return nil }
        self = int
    }
    /// The value as `.integer`.
    public var propertyListValue: PropertyListValue? { .integer(PropertyListInteger(self)) }
}

extension Int64: PreferenceValue {
    /// Reads an `.integer` that fits in `Int64`.
    public init?(propertyListValue: PropertyListValue) {
        guard case .integer(let value) = propertyListValue, let int = value.int64Value else { return nil }
        self = int
    }
    /// The value as `.integer`.
    public var propertyListValue: PropertyListValue? { .integer(PropertyListInteger(self)) }
}

extension UInt64: PreferenceValue {
    /// Reads a non-negative `.integer`.
    public init?(propertyListValue: PropertyListValue) {
        guard case .integer(let value) = propertyListValue, let int = value.uint64Value else { return nil }
        self = int
    }
    /// The value as `.integer`.
    public var propertyListValue: PropertyListValue? { .integer(PropertyListInteger(self)) }
}

extension Double: PreferenceValue {
    /// Reads a `.double`, `.float` or `.integer`.
    public init?(propertyListValue: PropertyListValue) {
        switch propertyListValue {
        case .double(let value): self = value
        case .float(let value): self = Double(value)
        case .integer(let value): self = value.doubleValue
        default: return nil
        }
    }
    /// The value as `.double`.
    public var propertyListValue: PropertyListValue? { .double(self) }
}

extension Float: PreferenceValue {
    /// Reads a `.float`, `.double` or `.integer`.
    public init?(propertyListValue: PropertyListValue) {
        switch propertyListValue {
        case .float(let value): self = value
        case .double(let value): self = Float(value)
        case .integer(let value): self = Float(value.doubleValue)
        default: return nil
        }
    }
    /// The value as `.float`.
    public var propertyListValue: PropertyListValue? { .float(self) }
}

extension String: PreferenceValue {
    /// Reads a `.string`.
    public init?(propertyListValue: PropertyListValue) {
        guard case .string(let value) = propertyListValue else { return nil }
        self = value
    }
    /// The value as `.string`.
    public var propertyListValue: PropertyListValue? { .string(self) }
}

extension Date: PreferenceValue {
    /// Reads a `.date`.
    public init?(propertyListValue: PropertyListValue) {
        guard case .date(let value) = propertyListValue else { return nil }
        self = value
    }
    /// The value as `.date`.
    public var propertyListValue: PropertyListValue? { .date(self) }
}

extension Data: PreferenceValue {
    /// Reads a `.data`.
    public init?(propertyListValue: PropertyListValue) {
        guard case .data(let value) = propertyListValue else { return nil }
        self = value
    }
    /// The value as `.data`.
    public var propertyListValue: PropertyListValue? { .data(self) }
}

extension URL: PreferenceValue {
    /// Reads a URL stored as `set(_:forKey:)` stores one: a `~`-abbreviated path or a
    /// full URL string.
    public init?(propertyListValue: PropertyListValue) {
        guard let url = propertyListValue.coercedURL(home: PropertyListValue.defaultHomeDirectory) else { return nil }
        self = url
    }
    /// A file URL as a `~`-abbreviated path, any other URL as its full string.
    public var propertyListValue: PropertyListValue? {
        PropertyListValue.storing(self, home: PropertyListValue.defaultHomeDirectory)
    }
}

extension PropertyListValue: PreferenceValue {
    /// Any value as it is.
    public init?(propertyListValue: PropertyListValue) { self = propertyListValue }
    /// The value as it is.
    public var propertyListValue: PropertyListValue? { self }
}

extension Optional: PreferenceValue where Wrapped: PreferenceValue {
    /// Reads the wrapped type; a value of another type reads as nil.
    public init?(propertyListValue: PropertyListValue) {
        self = Wrapped(propertyListValue: propertyListValue)
    }
    /// nil removes the key.
    public var propertyListValue: PropertyListValue? { self?.propertyListValue }
}

extension Array: PreferenceValue where Element: PreferenceValue {
    /// Reads an `.array` whose every element is of `Element`'s type.
    public init?(propertyListValue: PropertyListValue) {
        guard case .array(let values) = propertyListValue else { return nil }
        var result: [Element] = []
        result.reserveCapacity(values.count)
        for value in values {
            guard let element = Element(propertyListValue: value) else { return nil }
            result.append(element)
        }
        self = result
    }
    /// The elements as an `.array` (optional elements that are nil are left out).
    public var propertyListValue: PropertyListValue? { .array(compactMap(\.propertyListValue)) }
}

extension Dictionary: PreferenceValue where Key == String, Value: PreferenceValue {
    /// Reads a `.dictionary` whose every value is of `Value`'s type.
    public init?(propertyListValue: PropertyListValue) {
        guard case .dictionary(let entries) = propertyListValue else { return nil }
        var result: [String: Value] = Dictionary(minimumCapacity: entries.count)
        for (key, value) in entries {
            guard let element = Value(propertyListValue: value) else { return nil }
            result[key] = element
        }
        self = result
    }
    /// The entries as a `.dictionary` (nil values are left out).
    public var propertyListValue: PropertyListValue? { .dictionary(compactMapValues(\.propertyListValue)) }
}
