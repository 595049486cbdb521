/// The keys a range read found, and the revision it read at.
package struct EtcdRange: Sendable {
    /// The store's revision when the read was served: a watch from `revision + 1` sees every
    /// change after what ``keyValues`` shows.
    package let revision: Int64
    /// The keys found, in key order.
    package let keyValues: [EtcdKeyValue]

    /// Creates a range result (for tests and fakes; the client makes them from etcd's answers).
    package init(revision: Int64, keyValues: [EtcdKeyValue]) {
        self.revision = revision
        self.keyValues = keyValues
    }
}
