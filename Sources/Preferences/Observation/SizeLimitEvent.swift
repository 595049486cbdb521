/// A set that took a domain over its soft size limit, or was refused at its hard limit.
///
/// Apple's systems warn only on tvOS and refuse silently at 4 MiB on iOS; a store here tells
/// the program (this event, through ``PreferenceStore/sizeLimitEvents()``), the journal and,
/// for a refusal, the caller of ``PreferenceStore/trySet(_:forKey:)``.
public struct SizeLimitEvent: Sendable, Hashable {
    /// The key whose set crossed the limit.
    public let key: String
    /// The domain's estimated encoded size in bytes with the set applied.
    public let size: Int
    /// The limit crossed: the soft limit for a warning, the hard limit for a refusal.
    public let limit: Int
    /// True if the set was refused (not applied and not written); false for a warning.
    public let wasRefused: Bool

    /// Creates an event.
    public init(key: String, size: Int, limit: Int, wasRefused: Bool) {
        self.key = key
        self.size = size
        self.limit = limit
        self.wasRefused = wasRefused
    }
}
