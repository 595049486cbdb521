#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Encoder` ``PropertyListValueEncoder`` hands to each value: it writes into one
/// ``EncodingSlot`` and is also that slot's single-value container.
struct ValueEncoder: Encoder {
    /// Where this encoder's value goes.
    let slot: EncodingSlot
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    /// Encodes `value` into `slot`, taking the types property lists hold natively
    /// (`Date`, `Data`, `URL`) before their own `Codable` forms would turn them into a
    /// number, a byte array or a dictionary.
    static func encode<T: Encodable>(
        _ value: T, into slot: EncodingSlot, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]
    ) throws {
        // Exact type tests rather than `as?`: a cast would also unwrap an `Optional<Date>`.
        if T.self == Date.self, let date = value as? Date {
            slot.content = .value(.date(date))
        } else if T.self == Data.self, let data = value as? Data {
            slot.content = .value(.data(data))
        } else if T.self == URL.self, let url = value as? URL {
            slot.content = .value(.string(url.absoluteString))
        } else {
            try value.encode(to: ValueEncoder(slot: slot, codingPath: codingPath, userInfo: userInfo))
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let keyed: EncodingSlot.Keyed
        switch slot.content {
        case .empty:
            keyed = EncodingSlot.Keyed()
            slot.content = .keyed(keyed)
        case .keyed(let existing):
            // Asking again for the same kind of container continues it, as in Foundation.
            keyed = existing
        default:
            preconditionFailure(
                "Cannot encode a keyed container at \(Self.describe(codingPath)): \(slot.contentDescription) was already encoded there")
        }
        return KeyedEncodingContainer(KeyedContainer<Key>(keyed: keyed, encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let unkeyed: EncodingSlot.Unkeyed
        switch slot.content {
        case .empty:
            unkeyed = EncodingSlot.Unkeyed()
            slot.content = .unkeyed(unkeyed)
        case .unkeyed(let existing):
            unkeyed = existing
        default:
            preconditionFailure(
                "Cannot encode an unkeyed container at \(Self.describe(codingPath)): \(slot.contentDescription) was already encoded there")
        }
        return UnkeyedContainer(unkeyed: unkeyed, encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        self
    }

    /// An encoder for a child value at `key`, sharing this one's user info.
    func child(_ slot: EncodingSlot, at key: any CodingKey) -> ValueEncoder {
        ValueEncoder(slot: slot, codingPath: codingPath + [key], userInfo: userInfo)
    }

    /// A coding path as a reader sees it: `items.Index 2.name`, or `the top level`.
    static func describe(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty ? "the top level" : codingPath.map(\.stringValue).joined(separator: ".")
    }

    /// An integer as a property-list integer, or an error naming the path if it lies
    /// outside `Int64.min ... UInt64.max`.
    static func integer(_ value: some BinaryInteger & Sendable, codingPath: [any CodingKey]) throws -> PropertyListValue {
        guard let integer = PropertyListInteger(exactly: value) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "\(value) is outside the property-list integer range \(Int64.min) ... \(UInt64.max)"))
        }
        return .integer(integer)
    }
}

extension ValueEncoder: SingleValueEncodingContainer {
    func encodeNil() throws {
        guard slot.allowsNil else {
            throw EncodingError.invalidValue(
                Optional<Any>.none as Any,
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "A property list has no null: nil can be left out of a dictionary, but not of an array or the top level"))
        }
        try store(nil)
    }

    func encode(_ value: Bool) throws { try store(.bool(value)) }
    func encode(_ value: String) throws { try store(.string(value)) }
    func encode(_ value: Double) throws { try store(.double(value)) }
    func encode(_ value: Float) throws { try store(.float(value)) }
    func encode(_ value: Int) throws { try store(.integer(PropertyListInteger(value))) }
    func encode(_ value: Int8) throws { try store(.integer(PropertyListInteger(Int64(value)))) }
    func encode(_ value: Int16) throws { try store(.integer(PropertyListInteger(Int64(value)))) }
    func encode(_ value: Int32) throws { try store(.integer(PropertyListInteger(Int64(value)))) }
    func encode(_ value: Int64) throws { try store(.integer(PropertyListInteger(value))) }
    func encode(_ value: Int128) throws { try store(Self.integer(value, codingPath: codingPath)) }
    func encode(_ value: UInt) throws { try store(.integer(PropertyListInteger(UInt64(value)))) }
    func encode(_ value: UInt8) throws { try store(.integer(PropertyListInteger(UInt64(value)))) }
    func encode(_ value: UInt16) throws { try store(.integer(PropertyListInteger(UInt64(value)))) }
    func encode(_ value: UInt32) throws { try store(.integer(PropertyListInteger(UInt64(value)))) }
    func encode(_ value: UInt64) throws { try store(.integer(PropertyListInteger(value))) }
    func encode(_ value: UInt128) throws { try store(Self.integer(value, codingPath: codingPath)) }

    func encode<T: Encodable>(_ value: T) throws {
        try checkEmpty()
        try Self.encode(value, into: slot, codingPath: codingPath, userInfo: userInfo)
    }

    /// Puts a scalar (or, for nil, the omission marker) into the slot.
    private func store(_ value: PropertyListValue?) throws {
        try checkEmpty()
        slot.content = value.map { .value($0) } ?? .omitted
    }

    /// A single-value container holds one value; a second would silently replace the
    /// first, so it is an error (Foundation's coders trap here; ours can throw).
    private func checkEmpty() throws {
        guard slot.isEmpty else {
            throw EncodingError.invalidValue(
                slot.contentDescription,
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "A single-value container can hold one value, but \(slot.contentDescription) was already encoded at \(Self.describe(codingPath))"))
        }
    }
}
