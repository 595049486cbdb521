/// A domain whose file is corrupt, read from the newest generation that decodes instead.
///
/// The corrupt file is left as it is until the domain is written, which keeps it aside as
/// `<fileName>.corrupt-<time>` and commits on top of the recovered values. Unsafe files (a
/// link, another user's, group- or world-writable, too large) are never recovered from: they
/// stay refused.
public struct DomainRecovery: Sendable, Hashable, CustomStringConvertible {
    /// The corrupt domain file.
    public let path: String
    /// Why the file cannot be used (code `corrupt` or `notADictionary`).
    public let reason: PreferencesError
    /// The number of the generation whose values are used.
    public let generation: Int
    /// The generation's file, in the domain's history directory.
    public let generationPath: String

    /// Creates the description of a recovery.
    public init(path: String, reason: PreferencesError, generation: Int, generationPath: String) {
        self.path = path
        self.reason = reason
        self.generation = generation
        self.generationPath = generationPath
    }

    /// Which file is corrupt, why, and which generation is used instead.
    public var description: String {
        "\(path) is corrupt (\(reason.reason)); its values are read from generation \(generation) (\(generationPath)) instead"
    }
}
