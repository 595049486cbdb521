public import DeclaredSettings
/// Why a preferences operation failed, on which file, and the system error if there was one.
public struct PreferencesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, stable for code to match on.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let description: String
        private init(_ name: String) { description = name }

        /// A domain name that is empty, too long, or has characters outside `[A-Za-z0-9._-]`.
        public static let invalidDomainName = Code("invalidDomainName")
        /// A domain file or its lock file is a symbolic link; links are never followed, so a
        /// planted link cannot redirect reads or writes to another file.
        public static let symbolicLink = Code("symbolicLink")
        /// A domain file or its lock file is something other than a regular file (a directory,
        /// FIFO, socket or device).
        public static let notRegularFile = Code("notRegularFile")
        /// A domain file or its lock file is owned by a user this process does not trust.
        public static let wrongOwner = Code("wrongOwner")
        /// A domain file or its lock file can be written by its group or by other users.
        public static let insecurePermissions = Code("insecurePermissions")
        /// A domain file, or the encoding of new values, is larger than the size limit.
        public static let tooLarge = Code("tooLarge")
        /// A domain file is not a valid binary property list; the reason carries the
        /// decoder's description of what is wrong and where.
        public static let corrupt = Code("corrupt")
        /// A domain file is a valid property list whose top-level value is not a dictionary.
        public static let notADictionary = Code("notADictionary")
        /// Another process held a domain's lock for longer than the configured timeout.
        public static let lockTimeout = Code("lockTimeout")
        /// A system call on a domain's file or directory failed; ``PreferencesError/errno``
        /// says why.
        public static let io = Code("io")
        /// A write to a layer this library only reads (managed or system defaults).
        public static let readOnly = Code("readOnly")
        /// A property-list file named by the program (registered defaults) does not exist.
        public static let missingFile = Code("missingFile")
        /// A property-list file named by the program exists but cannot be read.
        public static let unreadable = Code("unreadable")
        /// A property-list file named by the program is not a valid property list in any of
        /// the binary, XML or old-style text formats.
        public static let invalidPropertyList = Code("invalidPropertyList")
        /// A value that breaks the rule its key is declared with in the domain's schema;
        /// ``PreferencesError/violation`` says which key, value and rule.
        public static let schemaViolation = Code("schemaViolation")
        /// A schema the program named cannot be used; ``PreferencesError/schemaError`` says
        /// which file, where in it, and why.
        public static let invalidSchema = Code("invalidSchema")
        /// A write to a preferences directory that follows a newer version of the on-disk
        /// protocol than this library knows (or whose version marker names no version): the
        /// library reads there but never writes. The reason names the directory, the version
        /// found and the version known.
        public static let unsupportedProtocolVersion = Code("unsupportedProtocolVersion")
    }

    /// The kind of failure.
    public let code: Code
    /// The file the failure concerns, if any.
    public let path: String?
    /// The system error number, if a system call failed.
    public let errno: Int32?
    /// What happened and why, in words.
    public let reason: String
    /// For `schemaViolation`: the key, the value, the rule and the schema.
    public let violation: SchemaViolation?
    /// For `invalidSchema`: the schema's own error.
    public let schemaError: SchemaError?

    /// Creates an error.
    public init(_ code: Code, path: String? = nil, errno: Int32? = nil, _ reason: String) {
        self.code = code
        self.path = path
        self.errno = errno
        self.reason = reason
        violation = nil
        schemaError = nil
    }

    /// Creates a `schemaViolation` error for `violation`; its path is the schema's.
    public init(_ violation: SchemaViolation) {
        code = .schemaViolation
        path = violation.schemaPath
        errno = nil
        reason = "\(violation.key) \(violation.rule), not \(SchemaViolation.render(violation.value)); the value was not set"
        self.violation = violation
        schemaError = nil
    }

    /// Creates an `invalidSchema` error for `error`.
    public init(_ error: SchemaError) {
        code = .invalidSchema
        path = error.path
        errno = nil
        reason = (error.keyPath.isEmpty ? "" : "at \(error.keyPath): ") + error.reason
        violation = nil
        schemaError = error
    }

    /// What happened, to which file, and why.
    public var description: String {
        var text = reason
        if let path { text += " (\(path))" }
        if let errno { text += " [errno \(errno)]" }
        return text
    }
}
