/// A batch of changes a watch delivers: the events of one or more revisions, in order.
public struct EtcdWatchResponse: Sendable {
    /// The store's revision when etcd sent the batch (at least the last event's revision).
    public let revision: Int64
    /// The changes, in revision order; never empty.
    public let events: [EtcdEvent]

    /// Creates a watch response (for tests and fakes; the client makes them from etcd's answers).
    public init(revision: Int64, events: [EtcdEvent]) {
        self.revision = revision
        self.events = events
    }
}
