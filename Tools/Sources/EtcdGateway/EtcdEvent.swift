/// One change that a watch reports.
package struct EtcdEvent: Sendable, Hashable {
    /// What happened to the key.
    package enum Kind: Sendable, Hashable {
        /// The key was created or its value replaced.
        case put
        /// The key was deleted.
        case delete
    }

    /// What happened.
    package let kind: Kind
    /// The key after a put; for a delete, only the key and ``EtcdKeyValue/modRevision`` (the
    /// delete's revision) are set, the rest empty or 0.
    package let keyValue: EtcdKeyValue

    /// Creates an event (for tests and fakes; the client makes them from etcd's answers).
    package init(kind: Kind, keyValue: EtcdKeyValue) {
        self.kind = kind
        self.keyValue = keyValue
    }
}
