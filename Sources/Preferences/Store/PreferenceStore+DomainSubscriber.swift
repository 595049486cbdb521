/// The store as the file layer sees it: each ``PersistentDomain`` of the search list publishes
/// its changes here, and the store re-resolves its snapshot and queues what observers hear.
extension PreferenceStore: DomainSubscriber {
    /// Reads compare `source`'s commit counter from now on (fresh reads).
    package func commitCounterOpened(_ counter: CommitCounter, of source: PersistentDomain) {
        freshness.add(source, counter: counter)
    }

    /// Applies a change of one file's values to this store's layers of that file and queues
    /// what reads now see differently; called by ``PersistentDomain/publish(_:origin:postsNotification:by:in:)``
    /// under the domain's state lock.
    ///
    /// - Returns: whether the caller must run ``deliverQueued()`` once it holds no lock.
    package func applyLayerChange(
        from source: PersistentDomain, _ delta: [(key: String, value: PropertyListValue?)],
        origin: ChangeOrigin, postsNotification: Bool
    ) -> Bool {
        // The changes are listed only for someone to hear them: not on the replay, and not
        // when nobody observes and nothing is posted.
        let isHeard = isHeard(postsNotification: postsNotification, origin: PreferenceChange.Origin(origin))
        return commit(origin: PreferenceChange.Origin(origin), postsNotification: postsNotification) { state, isReplay in
            var changes: [ResolvedValues.Change] = []
            state.apply(delta, toLayersOf: source, into: &changes, collecting: isHeard && !isReplay)
            return changes
        }
    }

    /// Replaces this store's layers of `source` with `values` (re-resolving only what
    /// differs); called under the domain's state lock.
    ///
    /// - Returns: whether the caller must run ``deliverQueued()`` once it holds no lock.
    package func replaceLayerValues(
        from source: PersistentDomain, with values: [String: PropertyListValue], origin: ChangeOrigin
    ) -> Bool {
        commit(origin: PreferenceChange.Origin(origin), postsNotification: true) { state in
            var changes: [ResolvedValues.Change] = []
            for index in state.layers.indices where state.layers[index].source === source {
                changes += state.replaceValues(values, inLayer: index)
            }
            return changes
        }
    }
}

extension PreferenceChange.Origin {
    /// The origin observers see of a change the file layer published.
    init(_ origin: ChangeOrigin) {
        switch origin {
        case .thisProcess: self = .thisProcess
        case .anotherProcess: self = .anotherProcess
        }
    }
}
