/// The keys a range read found, and the revision it read at.
public struct EtcdRange: Sendable {
    /// The store's revision when the read was served: a watch from `revision + 1` sees every
    /// change after what ``keyValues`` shows.
    public let revision: Int64
    /// The keys found, in key order.
    public let keyValues: [EtcdKeyValue]

    /// Creates a range result (for tests and fakes; the client makes them from etcd's answers).
    public init(revision: Int64, keyValues: [EtcdKeyValue]) {
        self.revision = revision
        self.keyValues = keyValues
    }
}
