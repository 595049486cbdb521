public import Foundation

/// The typed getters and setters of Apple's `UserDefaults`, written once for every type that
/// reads and writes preference values by key: ``PreferenceStore`` and, inside a transaction's
/// body, ``PreferenceTransaction``.
///
/// A conforming type gives the raw value of a key through its search list
/// (``value(forKey:)``) and stores one (``setValue(_:forKey:)``); the getters apply Apple's
/// coercions to it and the setters turn Swift values into property-list values, the same for
/// both. Code generic over it reads and writes either.
public protocol PreferenceValueAccess: AnyObject {
    /// The value for `key` from the first layer of the search list that holds it.
    func value(forKey key: String) -> PropertyListValue?

    /// Stores a property-list value, or removes the key for nil.
    func setValue(_ value: PropertyListValue?, forKey key: String)

    /// Stores any property-list value (`Bool`, integers, `Float`, `Double`, `String`,
    /// `Date`, `Data`, `URL`, arrays and string-keyed dictionaries of these); nil removes
    /// the key.
    ///
    /// Passing anything else is a programming error and stops the program with a message
    /// naming the key and the type, as on Apple's systems.
    func set(_ value: Any?, forKey key: String)

    /// The URL for `key`: a stored path (with `~` expanded) as a file URL, or a stored
    /// URL string as a URL.
    func url(forKey key: String) -> URL?

    /// Stores a URL: a file URL as its path with the home directory abbreviated to `~`,
    /// any other URL as its full string. nil removes the key.
    func set(_ url: URL?, forKey key: String)
}

extension PreferenceValueAccess {
    /// The value for `key` as a Swift value (`Bool`, `Int`, `Double`, `String`, `Date`,
    /// `Data`, `[Any]`, `[String: Any]`...), or nil.
    public func object(forKey key: String) -> Any? {
        value(forKey: key)?.bridged
    }

    /// The string for `key`; numbers give their shortest decimal form and booleans "1"
    /// or "0"; nil for other types and missing keys.
    public func string(forKey key: String) -> String? {
        value(forKey: key)?.coercedString
    }

    /// The array for `key`, or nil if the value is not an array.
    public func array(forKey key: String) -> [Any]? {
        guard case .array(let elements)? = value(forKey: key) else { return nil }
        return elements.map(\.bridged)
    }

    /// The dictionary for `key`, or nil if the value is not a dictionary.
    public func dictionary(forKey key: String) -> [String: Any]? {
        guard case .dictionary(let entries)? = value(forKey: key) else { return nil }
        return entries.mapValues(\.bridged)
    }

    /// The data for `key`, or nil if the value is not data.
    public func data(forKey key: String) -> Data? {
        value(forKey: key)?.dataValue
    }

    /// The array of strings for `key`, or nil if the value is not an array of strings
    /// only.
    public func stringArray(forKey key: String) -> [String]? {
        value(forKey: key)?.coercedStringArray
    }

    /// The integer for `key`: reals truncate, numeric strings parse (`"1.0"` is 1),
    /// booleans are 1 or 0; 0 if missing or not numeric.
    public func integer(forKey key: String) -> Int {
        value(forKey: key)?.coercedInteger ?? 0
    }

    /// The float for `key`, with the coercions of ``double(forKey:)``; 0 if missing.
    public func float(forKey key: String) -> Float {
        value(forKey: key)?.coercedFloat ?? 0
    }

    /// The double for `key`: numbers convert (a stored Float keeps its precision),
    /// numeric strings parse, `true` is 1; 0 if missing.
    public func double(forKey key: String) -> Double {
        value(forKey: key)?.coercedDouble ?? 0
    }

    /// The boolean for `key`: non-zero numbers and strings starting with Y, y, T, t or a
    /// digit 1-9 are true; false if missing.
    public func bool(forKey key: String) -> Bool {
        value(forKey: key)?.coercedBool ?? false
    }

    /// Stores an integer.
    public func set(_ value: Int, forKey key: String) {
        setValue(.integer(PropertyListInteger(value)), forKey: key)
    }

    /// Stores a 32-bit real (it keeps its precision: `string(forKey:)` of 12.34 is "12.34").
    public func set(_ value: Float, forKey key: String) {
        setValue(.float(value), forKey: key)
    }

    /// Stores a 64-bit real.
    public func set(_ value: Double, forKey key: String) {
        setValue(.double(value), forKey: key)
    }

    /// Stores a boolean.
    public func set(_ value: Bool, forKey key: String) {
        setValue(.bool(value), forKey: key)
    }

    /// Removes `key`; a value in a lower layer (a registered default) shows through again.
    public func removeObject(forKey key: String) {
        setValue(nil, forKey: key)
    }
}
