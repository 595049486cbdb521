/// Why a preferences operation failed, on which file, and the system error if there was one.
public struct PreferencesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, stable for code to match on.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let description: String
        private init(_ name: String) { description = name }

        /// A domain name that is empty, too long, or has characters outside `[A-Za-z0-9._-]`.
        public static let invalidDomainName = Code("invalidDomainName")
    }

    /// The kind of failure.
    public let code: Code
    /// The file the failure concerns, if any.
    public let path: String?
    /// The system error number, if a system call failed.
    public let errno: Int32?
    /// What happened and why, in words.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, path: String? = nil, errno: Int32? = nil, _ reason: String) {
        self.code = code
        self.path = path
        self.errno = errno
        self.reason = reason
    }

    /// What happened, to which file, and why.
    public var description: String {
        var text = reason
        if let path { text += " (\(path))" }
        if let errno { text += " [errno \(errno)]" }
        return text
    }
}
