import Foundation

// `set(_: Any?, forKey:)`, `register(defaults:)` and `setPersistentDomain(_:forName:)` take
// `Any`, and `object(forKey:)` and friends return it, exactly as `UserDefaults` does. This
// file converts between those untyped values and `PropertyListValue`.
//
// What corelibs-Foundation on Linux does, which decides the order of the checks below:
// - An `NSNumber` casts with `as?` to every numeric type it can represent *and* to `Bool`:
//   `NSNumber(value: 1) as? Bool` is `true`. So a number's type must be read from the
//   `NSNumber` itself, before any native cast is tried.
// - The boolean `NSNumber`s are instances of a private subclass (`__NSCFBoolean`), the
//   class of `NSNumber(value: true)`; every other number is a plain `NSNumber`, whose
//   `objCType` is `f` or `d` for reals, `Q` for unsigned values above `Int64.max`, and a
//   signed code (`i`, `q`, `s`) for every other integer, including small unsigned ones.
// - Native Swift values do not cross-cast: an `Int` in an `Any` is not a `Bool`, `Double`
//   or `UInt8`, and a `Bool` is not an `Int`, although both cast to `NSNumber`. Telling
//   `NSNumber` objects apart from native values therefore uses the dynamic type, not `as?`.
// - Casting an `NSArray` to `[Any]` turns boolean elements into `Bool` but leaves other
//   numbers as `NSNumber`; `NSString`, `NSDate`, `NSData` and `NSDictionary` cast to
//   `String`, `Date`, `Data` and `[String: Any]` (the last only when every key is a string).
// - `Substring` does not cast to `String`, and a `Set` does not cast to `[Any]`.

extension PropertyListValue {
    /// Converts a value handed to `set(_: Any?, forKey:)` into a property-list value; nil
    /// if it is not a property-list type.
    ///
    /// Accepted: `PropertyListValue`; `Bool`; every integer type whose value lies in
    /// `Int64.min ... UInt64.max`; `Float`, `Double`, `CGFloat` and `Decimal` (stored as a
    /// `.double`, as `NSDecimalNumber` is); `String` and `Substring`; `Date`; `Data`;
    /// `URL` (stored as ``storing(_:home:)`` describes); arrays of accepted values; and
    /// dictionaries whose keys are all strings, including `[AnyHashable: Any]`. Optionals
    /// are unwrapped; a nil, at the top or anywhere inside a collection, is not a property
    /// list (they have no null), so the whole value is rejected. The Foundation classes
    /// `NSNumber`, `NSString`, `NSDate`, `NSData`, `NSURL`, `NSArray` and `NSDictionary`
    /// convert like their Swift counterparts, and a boolean `NSNumber` becomes a `.bool`,
    /// never the integer 1.
    ///
    /// Anything else (a custom struct, an `NSObject`, `NSNull`, a `Set`, a tuple, a
    /// dictionary with a non-string key, or a collection holding one) gives nil; the store
    /// traps on it, as `UserDefaults` does, using ``bridging(_:home:)`` to say what and
    /// where the offending part is.
    ///
    /// - Parameters:
    ///   - value: The value to convert.
    ///   - home: The home directory to abbreviate in file URLs; nil means
    ///     ``defaultHomeDirectory``, looked up only if the value holds a URL.
    package init?(bridging value: Any, home: String? = nil) {
        guard let converted = try? Self.bridging(value, home: home) else { return nil }
        self = converted
    }

    /// Converts a value as ``init(bridging:home:)`` does, or says which part of it is
    /// not a property-list type.
    ///
    /// The store uses this to trap with a message naming the key and the offending type
    /// and position (`value of type Point at ["items"][2]`), which is more use than the
    /// type of the whole collection.
    ///
    /// - Throws: ``BridgingFailure`` for the first part found that cannot be converted.
    package static func bridging(_ value: Any, home: String? = nil) throws(BridgingFailure) -> PropertyListValue {
        try bridge(value, home: home)
    }

    /// The value as a native Swift value, the way `object(forKey:)` returns it.
    ///
    /// `.bool` gives `Bool`; `.integer` gives `Int`, or `UInt64` for values above
    /// `Int.max` (and `Int64` for values beyond a 32-bit `Int`); `.float` gives `Float`;
    /// `.double` gives `Double`; `.string`, `.date` and `.data` give `String`, `Date` and
    /// `Data`; `.array` gives `[Any]` and `.dictionary` gives `[String: Any]`, their
    /// contents bridged the same way. ``init(bridging:home:)`` reads every one of these
    /// back to the value it came from.
    package var bridged: Any {
        switch self {
        case .bool(let value): return value
        case .integer(let value):
            if let int = value.intValue { return int }
            if let int64 = value.int64Value { return int64 }
            return value.uint64Value ?? 0
        case .float(let value): return value
        case .double(let value): return value
        case .date(let value): return value
        case .data(let value): return value
        case .string(let value): return value
        case .array(let elements): return elements.map(\.bridged)
        case .dictionary(let entries): return entries.mapValues(\.bridged)
        }
    }
}

extension PropertyListValue {
    /// The conversion behind ``bridging(_:home:)``.
    private static func bridge(_ value: Any, home: String?) throws(BridgingFailure) -> PropertyListValue {
        if let plist = value as? PropertyListValue { return plist }
        if let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedValue else {
                throw BridgingFailure(type: type(of: value), reason: "is nil, and property lists have no null")
            }
            return try bridge(wrapped, home: home)
        }
        if type(of: value) == AnyHashable.self, let hashable = value as? AnyHashable {
            return try bridge(hashable.base, home: home)
        }
        // Before any native cast: an NSNumber would pass `as? Bool` and `as? Int` alike.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            return bridge(number)
        }
        if let scalar = try bridgeScalar(value, home: home) { return scalar }
        switch value {
        case let elements as [Any]:
            var converted: [PropertyListValue] = []
            converted.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                do {
                    converted.append(try bridge(element, home: home))
                } catch {
                    throw error.inside("[\(index)]")
                }
            }
            return .array(converted)
        case let entries as [String: Any]:
            var converted: [String: PropertyListValue] = [:]
            converted.reserveCapacity(entries.count)
            for (key, element) in entries {
                do {
                    converted[key] = try bridge(element, home: home)
                } catch {
                    throw error.inside("[\(key.debugDescription)]")
                }
            }
            return .dictionary(converted)
        default:
            let reason =
                value is [AnyHashable: Any]
                ? "has a key that is not a string" : "is not a property-list type"
            throw BridgingFailure(type: type(of: value), reason: reason)
        }
    }

    /// A value of one of the scalar types, or nil if it is of none of them.
    private static func bridgeScalar(_ value: Any, home: String?) throws(BridgingFailure) -> PropertyListValue? {
        switch value {
        case let text as String: return .string(text)
        case let text as Substring: return .string(String(text))
        case let flag as Bool: return .bool(flag)
        case let int as Int: return .integer(PropertyListInteger(int))
        case let int as Int8: return .integer(PropertyListInteger(Int64(int)))
        case let int as Int16: return .integer(PropertyListInteger(Int64(int)))
        case let int as Int32: return .integer(PropertyListInteger(Int64(int)))
        case let int as Int64: return .integer(PropertyListInteger(int))
        case let int as UInt: return .integer(PropertyListInteger(UInt64(int)))
        case let int as UInt8: return .integer(PropertyListInteger(UInt64(int)))
        case let int as UInt16: return .integer(PropertyListInteger(UInt64(int)))
        case let int as UInt32: return .integer(PropertyListInteger(UInt64(int)))
        case let int as UInt64: return .integer(PropertyListInteger(int))
        case let int as Int128: return try integer(int)
        case let int as UInt128: return try integer(int)
        case let real as Float: return .float(real)
        case let real as Double: return .double(real)
        case let real as CGFloat: return .double(Double(real))
        case let decimal as Decimal: return .double(NSDecimalNumber(decimal: decimal).doubleValue)
        case let date as Date: return .date(date)
        case let data as Data: return .data(data)
        case let url as URL: return storing(url, home: home ?? defaultHomeDirectory)
        default: return nil
        }
    }

    /// A wide integer, if it lies in the property-list range.
    private static func integer(_ value: some BinaryInteger) throws(BridgingFailure) -> PropertyListValue {
        guard let integer = PropertyListInteger(exactly: value) else {
            throw BridgingFailure(
                type: type(of: value), reason: "is \(value), outside the property-list range \(Int64.min) ... \(UInt64.max)")
        }
        return .integer(integer)
    }

    /// The class of the boolean `NSNumber`s, which is how they are told from 0 and 1.
    private static let booleanNumberClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// An `NSNumber` as the property-list value of its own type.
    private static func bridge(_ number: NSNumber) -> PropertyListValue {
        if ObjectIdentifier(type(of: number)) == booleanNumberClass { return .bool(number.boolValue) }
        switch number.objCType.pointee {
        case CChar(UInt8(ascii: "f")):
            return .float(number.floatValue)
        case CChar(UInt8(ascii: "d")):
            return .double(number.doubleValue)
        case CChar(UInt8(ascii: "C")), CChar(UInt8(ascii: "S")), CChar(UInt8(ascii: "I")),
            CChar(UInt8(ascii: "L")), CChar(UInt8(ascii: "Q")):
            return .integer(PropertyListInteger(number.uint64Value))
        default:
            // Signed codes, and `c`, which on Apple platforms is an Int8 (booleans were
            // recognised by class above).
            return .integer(PropertyListInteger(number.int64Value))
        }
    }
}

/// An `Optional` of any wrapped type, so that an `Any` holding one can be unwrapped.
private protocol OptionalValue {
    /// The wrapped value, or nil.
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrappedValue: Any? { map { $0 } }
}
