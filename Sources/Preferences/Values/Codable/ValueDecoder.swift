#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Decoder` ``PropertyListValueDecoder`` hands to each value: it reads one
/// property-list value and is also that value's single-value container.
struct ValueDecoder: Decoder {
    /// The value being decoded.
    let value: PropertyListValue
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    /// Decodes a `T` from `value`, taking the types property lists hold natively
    /// (`Date`, `Data`, `URL`) before their own `Codable` forms would expect a number, a
    /// byte array or a dictionary.
    static func decode<T: Decodable>(
        _ type: T.Type, from value: PropertyListValue, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]
    ) throws -> T {
        if T.self == Date.self {
            guard case .date(let date) = value else { throw mismatch(Date.self, value, codingPath) }
            return try cast(date, codingPath)
        }
        if T.self == Data.self {
            guard case .data(let data) = value else { throw mismatch(Data.self, value, codingPath) }
            return try cast(data, codingPath)
        }
        if T.self == URL.self {
            guard case .string(let text) = value else { throw mismatch(URL.self, value, codingPath) }
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: codingPath, debugDescription: "Invalid URL string \"\(text)\""))
            }
            return try cast(url, codingPath)
        }
        return try T(from: ValueDecoder(value: value, codingPath: codingPath, userInfo: userInfo))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let entries) = value else {
            throw Self.mismatch([String: Any].self, value, codingPath, expecting: "a dictionary")
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(entries: entries, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw Self.mismatch([Any].self, value, codingPath, expecting: "an array")
        }
        return UnkeyedContainer(elements: elements, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    /// A decoder for a child value at `key`, sharing this one's user info.
    func child(_ value: PropertyListValue, at key: any CodingKey) -> ValueDecoder {
        ValueDecoder(value: value, codingPath: codingPath + [key], userInfo: userInfo)
    }

    /// A standard type-mismatch error: what was expected, what was found, and where.
    static func mismatch(
        _ type: Any.Type, _ value: PropertyListValue, _ codingPath: [any CodingKey], expecting: String? = nil
    ) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "Expected to decode \(expecting ?? "\(type)") but found a property-list \(value.typeName) instead"))
    }

    /// A number that exists but does not fit the requested type.
    static func unrepresentable(_ number: some CustomStringConvertible, as type: Any.Type, _ codingPath: [any CodingKey])
        -> DecodingError
    {
        DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: codingPath, debugDescription: "Number \(number) is not representable exactly as \(type)"))
    }

    /// `value` as `T`, which the caller has checked it is; a failure would be a bug here,
    /// reported as an error rather than a trap.
    private static func cast<T>(_ value: Any, _ codingPath: [any CodingKey]) throws -> T {
        guard let typed = value as? T else {
            throw DecodingError.typeMismatch(
                T.self, DecodingError.Context(codingPath: codingPath, debugDescription: "Internal type mismatch"))
        }
        return typed
    }
}

// MARK: - Scalars

extension ValueDecoder {
    static func bool(_ value: PropertyListValue, _ codingPath: [any CodingKey]) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, codingPath) }
        return bool
    }

    static func string(_ value: PropertyListValue, _ codingPath: [any CodingKey]) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, codingPath) }
        return string
    }

    /// Any integer type, from an `.integer` that fits it exactly.
    static func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: PropertyListValue, _ codingPath: [any CodingKey]) throws -> T {
        guard case .integer(let integer) = value else { throw mismatch(T.self, value, codingPath) }
        if let signed = integer.int64Value, let result = T(exactly: signed) { return result }
        if let unsigned = integer.uint64Value, let result = T(exactly: unsigned) { return result }
        throw unrepresentable(integer, as: T.self, codingPath)
    }

    /// A `Double` from a `.double`, a `.float` (always exact) or an `.integer` it holds
    /// exactly (beyond 2^53 not every integer has a double).
    static func double(_ value: PropertyListValue, _ codingPath: [any CodingKey]) throws -> Double {
        switch value {
        case .double(let double): return double
        case .float(let float): return Double(float)
        case .integer(let integer):
            let exact = integer.int64Value.flatMap { Double(exactly: $0) } ?? integer.uint64Value.flatMap { Double(exactly: $0) }
            guard let exact else { throw unrepresentable(integer, as: Double.self, codingPath) }
            return exact
        default:
            throw mismatch(Double.self, value, codingPath)
        }
    }

    /// A `Float` from a `.float`, an `.integer` it holds exactly, or a `.double` that
    /// loses nothing in a `Float`.
    ///
    /// "Loses nothing" for a double means it is a widened `Float`, or it is the double
    /// nearest to the shortest decimal of the `Float` nearest to it: `0.1` and `12.34`
    /// written as doubles mean the `Float`s 0.1 and 12.34, while `0.123456789012` carries
    /// digits no `Float` has and is refused.
    static func float(_ value: PropertyListValue, _ codingPath: [any CodingKey]) throws -> Float {
        switch value {
        case .float(let float): return float
        case .double(let double):
            if double.isNaN { return .nan }
            if let exact = Float(exactly: double) { return exact }
            let nearest = Float(double)
            guard nearest.isFinite, Double(nearest.description) == double else {
                throw unrepresentable(double, as: Float.self, codingPath)
            }
            return nearest
        case .integer(let integer):
            let exact = integer.int64Value.flatMap { Float(exactly: $0) } ?? integer.uint64Value.flatMap { Float(exactly: $0) }
            guard let exact else { throw unrepresentable(integer, as: Float.self, codingPath) }
            return exact
        default:
            throw mismatch(Float.self, value, codingPath)
        }
    }
}

extension ValueDecoder: SingleValueDecodingContainer {
    /// Always false: a single value is always there, and property lists have no null.
    func decodeNil() -> Bool { false }

    func decode(_ type: Bool.Type) throws -> Bool { try Self.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try Self.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try Self.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try Self.float(value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try Self.integer(type, value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Self.integer(type, value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Self.integer(type, value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Self.integer(type, value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Self.integer(type, value, codingPath) }
    func decode(_ type: Int128.Type) throws -> Int128 { try Self.integer(type, value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try Self.integer(type, value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Self.integer(type, value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Self.integer(type, value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Self.integer(type, value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Self.integer(type, value, codingPath) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try Self.integer(type, value, codingPath) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try Self.decode(type, from: value, codingPath: codingPath, userInfo: userInfo)
    }
}
