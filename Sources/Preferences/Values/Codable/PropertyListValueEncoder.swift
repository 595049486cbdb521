/// Encodes `Encodable` values as native property-list values: a struct becomes a
/// `.dictionary`, an array an `.array`, so a typed preference holding a Codable value is
/// stored as a real property list that `defaults read` shows and other programs can read,
/// not as an opaque JSON string or archive.
///
/// Values map as follows. `Bool` is `.bool`; every integer type is `.integer` (the whole
/// range `Int64.min ... UInt64.max`; a wider `Int128` value beyond it throws); `Float` is
/// `.float` and `Double` is `.double`; `String` is `.string`; `Date` is `.date`; `Data`
/// is `.data`; `URL` is `.string` holding its `absoluteString`. Keyed containers become
/// dictionaries and unkeyed ones arrays. A top-level single value (an `Int`, a
/// raw-value enum) encodes as that value.
///
/// Property lists have no null. A nil optional in a keyed container is left out of the
/// dictionary (``PropertyListValueDecoder`` reads the missing key back as nil); a nil in
/// an array, or a nil at the top level, cannot be represented and throws
/// `EncodingError.invalidValue`.
public struct PropertyListValueEncoder: Sendable {
    /// Values handed to every `encode(to:)` as the encoder's `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates an encoder with no user info.
    public init() {
        userInfo = [:]
    }

    /// Encodes a value as a property-list value.
    ///
    /// - Throws: `EncodingError.invalidValue`, with the coding path, if the value holds
    ///   something a property list cannot (a nil in an array, an integer out of range),
    ///   encodes nothing at all, or encodes twice into one single-value container; and
    ///   any error the value's own `encode(to:)` throws.
    public func encode<T: Encodable>(_ value: T) throws -> PropertyListValue {
        let root = EncodingSlot(allowsNil: false)
        try ValueEncoder.encode(value, into: root, codingPath: [], userInfo: userInfo.mapValues { $0 })
        guard !root.isEmpty, let encoded = root.resolved() else {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return encoded
    }
}
