/// A string given to a parameterized test, printed short in the test log.
///
/// Swift Testing prints every argument of a test case as the case starts, by its description
/// (`String(describingForTest:)`, which takes `CustomStringConvertible` when the type is not
/// `CustomTestStringConvertible`; this module does not link Testing). A string prints whole,
/// so a 201-byte domain name made a line of more than 300 characters; this prints a long one
/// as its start and its length.
package struct ArgumentText: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The string itself.
    package let value: String

    /// The longest string, in bytes, printed whole.
    private static let printedWhole = 40

    /// Wraps `value`.
    package init(_ value: String) {
        self.value = value
    }

    /// Wraps a literal, so that short arguments are written as plain strings.
    package init(stringLiteral value: String) {
        self.value = value
    }

    /// The string quoted and escaped as Swift writes it; a long one cut to its first 16
    /// characters, with its length in bytes.
    package var description: String {
        guard value.utf8.count > Self.printedWhole else { return value.debugDescription }
        return "\(String(value.prefix(16)).debugDescription)… (\(value.utf8.count) bytes)"
    }
}
