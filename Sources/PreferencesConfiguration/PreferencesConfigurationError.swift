// With the package's Configuration trait only: it brings in swift-configuration.
#if Configuration
public import Configuration

/// Why a preference could not be served to swift-configuration.
///
/// Thrown (or delivered as a failed update to a watcher) when a key holds a value that
/// cannot be read as the requested `ConfigType`, for example a string that
/// is not a number read as `int`, or an integer beyond `Int`'s range. The message names the
/// key, the stored property-list type and the requested type, never the value, so secrets
/// do not end up in logs.
public struct PreferencesConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, stable for code to match on.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let description: String
        private init(_ name: String) { description = name }

        /// The stored value has no representation as the requested type.
        public static let valueNotConvertible = Code("valueNotConvertible")
    }

    /// The kind of failure.
    public let code: Code
    /// The domain the provider serves.
    public let domain: String
    /// The configuration key, its components joined by dots.
    public let key: String
    /// The type swift-configuration asked for.
    public let requestedType: ConfigType
    /// The property-list type of the stored value (`string`, `integer`, `date`, ...).
    public let storedType: String

    /// Creates an error.
    public init(_ code: Code, domain: String, key: String, requestedType: ConfigType, storedType: String) {
        self.code = code
        self.domain = domain
        self.key = key
        self.requestedType = requestedType
        self.storedType = storedType
    }

    /// What happened, in words.
    public var description: String {
        "Preference '\(key)' of domain \(domain) holds a \(storedType) that cannot be read as \(requestedType.rawValue)"
    }
}
#endif  // Configuration
