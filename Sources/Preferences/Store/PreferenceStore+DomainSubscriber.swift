extension PreferenceStore: DomainSubscriber {
    /// Reads compare `source`'s commit counter from now on (fresh reads).
    func commitCounterOpened(_ counter: CommitCounter, of source: PersistentDomain) {
        freshness.add(source, counter: counter)
    }
}
