/// A batch of changes a watch delivers: the events of one or more revisions, in order.
package struct EtcdWatchResponse: Sendable {
    /// The store's revision when etcd sent the batch (at least the last event's revision).
    package let revision: Int64
    /// The changes, in revision order; never empty.
    package let events: [EtcdEvent]

    /// Creates a watch response (for tests and fakes; the client makes them from etcd's answers).
    package init(revision: Int64, events: [EtcdEvent]) {
        self.revision = revision
        self.events = events
    }
}
