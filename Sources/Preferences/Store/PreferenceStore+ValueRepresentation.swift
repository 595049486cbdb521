extension PreferenceStore {
    /// Every key visible through the search list with its winning value, as property-list
    /// values, taken in one step.
    ///
    /// Like ``dictionaryRepresentation()``, but without bridging to `Any`: the values are
    /// read under the store's lock in one go, so the result is one consistent version of
    /// every layer (never half of another process's write), and a `.float` stays apart from
    /// a `.double`. Providers that build immutable snapshots (such as swift-configuration's)
    /// rely on both.
    public func propertyListRepresentation() -> [String: PropertyListValue] {
        current.read { $0.allValues }
    }
}
