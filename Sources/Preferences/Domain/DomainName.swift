import PropertyList
/// A preferences domain's name, checked before it is ever used in a path.
///
/// A name is 1 to 200 bytes of `A-Z a-z 0-9 . _ -` and does not start with a dot, so it
/// can never name a hidden lock or temporary file, climb out of its directory (`..`), or
/// carry a path separator. Checking happens before any file-system call.
public struct DomainName: Sendable, Hashable, CustomStringConvertible {
    /// The longest name accepted, in bytes.
    public static let maximumLength = 200

    /// The validated name.
    public let rawValue: String

    /// Validates a name.
    ///
    /// - Throws: ``PreferencesError`` with code `invalidDomainName`, saying what is wrong.
    public init(_ name: String) throws(PreferencesError) {
        let bytes = name.utf8
        guard !bytes.isEmpty else {
            throw PreferencesError(.invalidDomainName, "a domain name cannot be empty")
        }
        guard bytes.count <= Self.maximumLength else {
            throw PreferencesError(
                .invalidDomainName, "domain name is \(bytes.count) bytes; at most \(Self.maximumLength) are allowed")
        }
        guard bytes.first != UInt8(ascii: ".") else {
            throw PreferencesError(.invalidDomainName, "domain name \"\(name)\" starts with a dot")
        }
        if let bad = name.unicodeScalars.first(where: { !Self.isAllowed($0) }) {
            throw PreferencesError(
                .invalidDomainName,
                "domain name \"\(name.debugDescription.dropFirst().dropLast())\" contains \(Self.describe(bad)); only A-Z, a-z, 0-9, '.', '_' and '-' are allowed")
        }
        rawValue = name
    }

    /// The name.
    public var description: String { rawValue }

    /// A character as a reader can see it: printable ASCII in quotes, anything else by
    /// its code point, so control characters and look-alikes are unambiguous.
    private static func describe(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + hex.zeroPadded(to: 4)
        return (0x20...0x7E).contains(scalar.value) ? "\"\(scalar)\" (\(code))" : code
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", ".", "_", "-": true
        default: false
        }
    }
}
