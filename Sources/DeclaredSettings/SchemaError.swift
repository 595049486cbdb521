/// Why a schema file could not be used, which file, and where in it.
///
/// A schema that fails to load is never half-used: the domain works as if it had none, and
/// the error is reported (and kept, for `defaults describe`).
public struct SchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, stable for code to match on.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let description: String
        private init(_ name: String) { description = name }

        /// The file does not exist.
        public static let missingFile = Code("missingFile")
        /// The file exists but cannot be read, or is not a regular file.
        public static let unreadable = Code("unreadable")
        /// The file, or the directory it is in, could be changed by another user: a symbolic
        /// link, owned by someone other than this user or root, group- or world-writable, or in
        /// a world-writable directory. Refused as a planted domain file is.
        public static let untrusted = Code("untrusted")
        /// The file is larger than a schema may be.
        public static let tooLarge = Code("tooLarge")
        /// The file is not a property list.
        public static let invalidPropertyList = Code("invalidPropertyList")
        /// The property list does not have a schema's shape: a missing or misspelt field, a
        /// field of the wrong type, an unknown specifier.
        public static let malformed = Code("malformed")
        /// A `Type` that is not one of the declared types.
        public static let unknownType = Code("unknownType")
        /// A default that breaks its own key's type, range or choices, or a range whose
        /// minimum is above its maximum.
        public static let invalidDefault = Code("invalidDefault")
        /// The same key declared twice, or renamed from a name that is itself declared.
        public static let duplicateKey = Code("duplicateKey")
        /// Child panes of a Settings.bundle that lead back to a pane already being read.
        public static let cycle = Code("cycle")
    }

    /// The kind of failure.
    public let code: Code
    /// The file the failure is in.
    public let path: String
    /// Where in the file: `Keys.Volume.Default`, `PreferenceSpecifiers[3].DefaultValue`;
    /// empty for the file as a whole.
    public let keyPath: String
    /// What is wrong, in words.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, path: String, keyPath: String = "", _ reason: String) {
        self.code = code
        self.path = path
        self.keyPath = keyPath
        self.reason = reason
    }

    /// "schema <path>, at <keyPath>: <reason> (<code>)".
    public var description: String {
        let place = keyPath.isEmpty ? "" : ", at \(keyPath)"
        return "schema \(path)\(place): \(reason) (\(code))"
    }
}
