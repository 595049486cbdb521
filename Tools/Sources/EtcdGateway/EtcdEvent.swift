/// One change that a watch reports.
public struct EtcdEvent: Sendable, Hashable {
    /// What happened to the key.
    public enum Kind: Sendable, Hashable {
        /// The key was created or its value replaced.
        case put
        /// The key was deleted.
        case delete
    }

    /// What happened.
    public let kind: Kind
    /// The key after a put; for a delete, only the key and ``EtcdKeyValue/modRevision`` (the
    /// delete's revision) are set, the rest empty or 0.
    public let keyValue: EtcdKeyValue

    /// Creates an event (for tests and fakes; the client makes them from etcd's answers).
    public init(kind: Kind, keyValue: EtcdKeyValue) {
        self.kind = kind
        self.keyValue = keyValue
    }
}
