/// A key and its value as etcd stores them, with the revisions that order its changes.
public struct EtcdKeyValue: Sendable, Hashable {
    /// The key's bytes.
    public let key: [UInt8]
    /// The value's bytes; empty for a delete event.
    public let value: [UInt8]
    /// The revision that created the key (since it last did not exist); 0 for a delete event.
    public let createRevision: Int64
    /// The revision of the key's last change; for a delete event, the delete's revision.
    public let modRevision: Int64
    /// How many times the key was put since it was created; 0 for a delete event.
    public let version: Int64

    /// Creates a key-value (for tests and fakes; the client makes them from etcd's answers).
    public init(key: [UInt8], value: [UInt8], createRevision: Int64, modRevision: Int64, version: Int64) {
        self.key = key
        self.value = value
        self.createRevision = createRevision
        self.modRevision = modRevision
        self.version = version
    }
}
