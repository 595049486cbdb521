package import PropertyList

/// What a domain file's changes are published to: a store, as the file layer sees it.
///
/// ``PersistentDomain`` and its parts call only these, so the file layer never names the
/// store: the store subscribes to the files of its search list and implements this protocol
/// (`Store/PreferenceStore+DomainSubscriber.swift`).
package protocol DomainSubscriber: AnyObject, Sendable {
    /// Applies a change of `source`'s values to this subscriber's layers of that file; called
    /// under the domain's state lock.
    ///
    /// - Returns: whether the caller must deliver the queued changes once it holds no lock
    ///   (``deliverQueued()`` for this process's changes, ``deliverFoundChanges()`` for changes
    ///   found in the file).
    func applyLayerChange(
        from source: PersistentDomain, _ delta: [(key: String, value: PropertyListValue?)],
        origin: ChangeOrigin, postsNotification: Bool
    ) -> Bool

    /// Replaces this subscriber's layers of `source` with `values`; called under the domain's
    /// state lock. Returns whether the caller must deliver, as above.
    func replaceLayerValues(
        from source: PersistentDomain, with values: [String: PropertyListValue], origin: ChangeOrigin
    ) -> Bool

    /// `source`'s commit counter is open: reads compare it from now on.
    func commitCounterOpened(_ counter: CommitCounter, of source: PersistentDomain)

    /// Delivers the changes the calling thread made, on that thread (no lock held).
    func deliverQueued()

    /// Has changes found in a file delivered on the watcher thread (no lock held).
    func deliverFoundChanges()
}
