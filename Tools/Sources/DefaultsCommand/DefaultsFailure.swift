/// A `defaults` command that cannot be carried out: one message saying what is wrong, an
/// optional usage hint, and the exit status. Nothing has been changed when one is thrown.
package struct DefaultsFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in one line, naming the domain, key, file or text at fault.
    package let message: String
    /// A line to print after the message when the command was written wrongly: the usage,
    /// or a hint at what is accepted.
    package let usage: String?
    /// The process's exit status (1, as Apple's tool uses for every failure).
    package let exitCode: Int32

    /// Creates a failure.
    package init(_ message: String, usage: String? = nil, exitCode: Int32 = 1) {
        self.message = message
        self.usage = usage
        self.exitCode = exitCode
    }

    /// The message and, on the next line, the usage hint.
    package var description: String {
        guard let usage else { return message }
        return message + "\n" + usage
    }

    /// Apple's message for a key a domain does not hold, word for word.
    package static func missingKey(domain: String, key: String) -> DefaultsFailure {
        DefaultsFailure("The domain/default pair of (\(domain), \(key)) does not exist")
    }

    /// Apple's message for a domain that has no values.
    package static func missingDomain(_ domain: String) -> DefaultsFailure {
        DefaultsFailure("Domain \(domain) does not exist")
    }
}
