/// Decodes `Decodable` values from native property-list values, the inverse of
/// ``PropertyListValueEncoder``.
///
/// A value decodes only from the representation that means it: `Bool` from `.bool`,
/// `String` from `.string`, `Date` from `.date`, `Data` from `.data`, `URL` from a
/// `.string` that parses as a URL, keyed containers from `.dictionary` and unkeyed ones
/// from `.array`. Numbers cross representations only when nothing is lost: an integer
/// type from an `.integer` that fits it; `Double` from `.double`, `.float` or an
/// `.integer` it holds exactly; `Float` from `.float`, from an `.integer` it holds
/// exactly, or from a `.double` that is a `Float` widened or is the nearest double to a
/// `Float`'s shortest decimal form (so `0.1` written as a double still reads as
/// `Float(0.1)`, but `0.123456789012` does not). A missing key reads as nil through
/// `decodeIfPresent` and `decodeNil(forKey:)`, since the encoder leaves nil out.
///
/// Mismatches throw the standard `DecodingError`s (`typeMismatch`, `keyNotFound`,
/// `valueNotFound`, `dataCorrupted`) with the coding path of the offending value.
public struct PropertyListValueDecoder: Sendable {
    /// Values handed to every `init(from:)` as the decoder's `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates a decoder with no user info.
    public init() {
        userInfo = [:]
    }

    /// Decodes a value of the given type from a property-list value.
    ///
    /// - Throws: `DecodingError` when the value does not have the shape or types `T`
    ///   expects, and any error `T`'s own `init(from:)` throws.
    public func decode<T: Decodable>(_ type: T.Type, from value: PropertyListValue) throws -> T {
        try ValueDecoder.decode(type, from: value, codingPath: [], userInfo: userInfo.mapValues { $0 })
    }
}
