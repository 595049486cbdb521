extension PreferenceStore {
    /// Changes several keys as one commit: one atomic rename of the domain file, one batch
    /// of changes to every observer in every process, and no reader anywhere ever sees some
    /// of the changes without the others.
    ///
    /// ```swift
    /// try store.transaction { t in
    ///     t.set(1280, forKey: "WindowWidth")
    ///     t.set(800, forKey: "WindowHeight")
    ///     t.set(t.integer(forKey: "Launches") + 1, forKey: "Launches")
    /// }
    /// ```
    ///
    /// `body` runs while the domain's lock is held, in this process and across processes,
    /// on values read from the file under that lock: a read-modify-write inside it is atomic
    /// across processes. It must be quick, and must not flush, synchronize or start another
    /// transaction on the same domain (that would wait for its own lock); reads through the
    /// store inside it answer from the store's snapshot, so read through `t`. Write through
    /// `t` too: the store's own setters inside the body are ordinary changes, written after
    /// the transaction, so they win over the transaction's value of the same key. This
    /// process's unwritten changes are written in the same commit. The commit is durable when
    /// the call returns; the store and its observers have the new values by then. Observers
    /// with `.prior` get no call before a transaction's changes: they are known only under
    /// the lock, where no handler may run.
    ///
    /// If `body` throws, nothing is written and nothing changes; its error is rethrown.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: `body`'s error, or ``PreferencesError``: `schemaViolation` from a
    ///   ``PreferenceTransaction/trySet(_:forKey:)`` the body let through, `tooLarge` if the
    ///   result would exceed the size limit, or why the write failed. Nothing was written.
    @discardableResult
    public func transaction<Result>(_ body: (PreferenceTransaction) throws -> Result) throws -> Result {
        var result: Result?
        var bodyError: (any Error)?
        var changedKeys: Set<String> = []
        do throws(PreferencesError) {
            try appDomain.modify(changing: { changedKeys.sorted() }) {
                values throws(PreferencesError) in
                let transaction = PreferenceTransaction(store: self, values: values)
                do {
                    result = try body(transaction)
                } catch let error as PreferencesError {
                    throw error
                } catch {
                    // Leaves the write before anything is written; rethrown below.
                    bodyError = error
                    throw PreferencesError(.io, path: appDomain.file.path, "the transaction's body threw: \(error)")
                }
                values = transaction.values
                changedKeys = transaction.changedKeys
            }
        } catch {
            if let bodyError { throw bodyError }
            throw error
        }
        // Set whenever the body returned and nothing threw afterwards.
        return result!
    }
}
