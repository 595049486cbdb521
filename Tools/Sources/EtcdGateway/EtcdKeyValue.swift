/// A key and its value as etcd stores them, with the revisions that order its changes.
package struct EtcdKeyValue: Sendable, Hashable {
    /// The key's bytes.
    package let key: [UInt8]
    /// The value's bytes; empty for a delete event.
    package let value: [UInt8]
    /// The revision that created the key (since it last did not exist); 0 for a delete event.
    package let createRevision: Int64
    /// The revision of the key's last change; for a delete event, the delete's revision.
    package let modRevision: Int64
    /// How many times the key was put since it was created; 0 for a delete event.
    package let version: Int64

    /// Creates a key-value (for tests and fakes; the client makes them from etcd's answers).
    package init(key: [UInt8], value: [UInt8], createRevision: Int64, modRevision: Int64, version: Int64) {
        self.key = key
        self.value = value
        self.createRevision = createRevision
        self.modRevision = modRevision
        self.version = version
    }
}
