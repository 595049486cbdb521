/// The stores whose queued changes a caller must deliver once it has released every lock.
///
/// Usually one store (the one that made the change), so the first is kept apart and a set
/// allocates no array for it.
package struct PendingDeliveries {
    private var first: (any DomainSubscriber)?
    private var others: [any DomainSubscriber] = []

    /// No store to deliver.
    package init() {}

    /// Adds a store.
    package mutating func append(_ store: any DomainSubscriber) {
        if first == nil {
            first = store
        } else {
            others.append(store)
        }
    }

    /// Adds every store of `other`.
    package mutating func append(contentsOf other: PendingDeliveries) {
        if let store = other.first { append(store) }
        for store in other.others { append(store) }
    }

    /// Runs each store's delivery of the changes the calling thread made
    /// (``DomainSubscriber/deliverQueued()``); call it with no lock held.
    package func deliver() {
        first?.deliverQueued()
        for store in others { store.deliverQueued() }
    }

    /// Has each store's changes found in a file delivered on the watcher thread
    /// (``DomainSubscriber/deliverFoundChanges()``); call it with no lock held.
    package func deliverFoundChanges() {
        first?.deliverFoundChanges()
        for store in others { store.deliverFoundChanges() }
    }
}
