public import Foundation

// The observation spellings that the family in PreferenceStore+Observing.swift replaced (issue
// 37, item 4). Each is deprecated for one release, with a message saying what to write, and
// forwards to its replacement; then it goes. `renamed:` makes the compiler offer a fix-it
// wherever the rename keeps the call's meaning.
extension PreferenceStore {
    /// The name the store posts its size-limit notification under: Apple's, kept for one more
    /// release alongside ``sizeLimitEvents()``.
    static let sizeLimitNotificationName = Notification.Name("PreferenceStoreSizeLimitExceededNotification")

    /// Posted when a set takes the domain over its soft size limit, or is refused at its hard
    /// limit, with the store as object and `userInfo` `key` (String), `size` and `limit`
    /// (Int, bytes) and `refused` (Bool), on the thread that made the set, before it returns.
    ///
    /// Deprecated: ``sizeLimitEvents()`` delivers the same as ``SizeLimitEvent`` values, with
    /// nothing to parse. Still posted for one release.
    @available(
        *, deprecated,
        message: "use sizeLimitEvents(), which delivers each warning and refusal as a SizeLimitEvent value; this notification is posted for one more release"
    )
    public static let sizeLimitExceededNotification = sizeLimitNotificationName

    /// Calls `handler` for every effective change of any key.
    ///
    /// Deprecated: renamed ``observe(options:handler:)``, which it calls; the handler runs on
    /// the same threads.
    @available(*, deprecated, renamed: "observe(options:handler:)", message: "observing every key is now observe(options:handler:)")
    public func observeAllKeys(
        options: PreferenceObservationOptions = [.old, .new],
        handler: @escaping @Sendable (PreferenceChange) -> Void
    ) -> PreferenceObservation {
        observe(options: options, handler: handler)
    }

    /// The values of a typed key as an asynchronous sequence: with `initial`, the current
    /// value first; then each new value, in commit order.
    ///
    /// Deprecated: renamed ``values(of:initial:)``, which it calls (same default, same
    /// threads).
    @available(*, deprecated, renamed: "values(of:initial:)", message: "a typed key's values are now values(of:initial:)")
    public func updates<Value>(_ key: PreferenceKey<Value>, initial: Bool = true) -> AsyncStream<Value> {
        values(of: key, initial: initial)
    }

    /// The changes of `key` as an asynchronous sequence, in commit order: with `initial`, a
    /// change from nil to the current value first.
    ///
    /// Deprecated: renamed ``changes(of:initial:)``, which it calls (same threads).
    @available(*, deprecated, renamed: "changes(of:initial:)", message: "a key's changes are now changes(of:initial:)")
    public func updates(forKey key: String, initial: Bool) -> AsyncStream<PreferenceChange> {
        changes(of: key, initial: initial)
    }

    /// The changes of `key` as an asynchronous sequence, in commit order, starting with the
    /// next change.
    ///
    /// Deprecated: write `changes(of: key, initial: false)`, which it calls. It has no fix-it
    /// on purpose: ``changes(of:initial:)`` starts with the current value by default, so
    /// renaming the call alone would change what it delivers.
    @available(
        *, deprecated,
        message: "use changes(of: key, initial: false): changes(of:) also starts with the current value, which this did not"
    )
    public func updates(forKey key: String) -> AsyncStream<PreferenceChange> {
        changes(of: key, initial: false)
    }
}
