extension PreferenceFiles {
    /// Sets and removes keys of a domain's file (nil removes) and writes them durably now,
    /// merged under the domain's lock with whatever other processes wrote meanwhile.
    ///
    /// - Throws: ``PreferencesError`` without touching the file if it is unusable (a corrupt
    ///   file is not replaced, unlike a store's background write), or if the write failed.
    public func setValues(_ changes: [String: PropertyListValue?], at location: PersistentDomainLocation) throws(PreferencesError) {
        let domain = try usableDomain(at: location)
        // Applied inside the locked write, never left pending: a write that fails (a lock
        // held too long, a full disk) must not be retried behind the caller's back, at exit,
        // after the caller was told nothing was written.
        try domain.modify(changing: { changes.keys.sorted() }) { values throws(PreferencesError) in
            for (key, value) in changes { values[key] = value }
        }
    }

    /// Reads, changes and writes a domain's file while holding its lock, so no other process
    /// writes in between: appending to an array, renaming a key.
    ///
    /// `body` gets the file's current values; the file is written only if they changed.
    /// `changedKeys` are the keys named in the journald entry for the write.
    ///
    /// - Throws: ``PreferencesError`` without touching the file if it is unusable, or if the
    ///   write failed.
    public func modifyPersistentDomain<Result: Sendable>(
        at location: PersistentDomainLocation, changing changedKeys: [String] = [],
        _ body: (inout [String: PropertyListValue]) -> Result
    ) throws(PreferencesError) -> Result {
        let domain = try usableDomain(at: location)
        return try domain.modify(changing: { changedKeys }) { values throws(PreferencesError) -> Result in body(&values) }
    }

    /// Replaces a domain's whole contents and writes them durably now; empty values remove
    /// the file.
    ///
    /// - Throws: ``PreferencesError`` without touching the file if it is unusable, or if the
    ///   write failed.
    public func replacePersistentDomain(_ values: [String: PropertyListValue], at location: PersistentDomainLocation) throws(PreferencesError) {
        let domain = try usableDomain(at: location)
        // In the locked write, not pending: see setValues(_:at:). The journald entry names
        // the keys of both the old and the new contents, so a dropped key is named too.
        let keys = Array(Set(values.keys).union(domain.currentValues().keys)).sorted()
        return try domain.modify(changing: { keys }) { current in
            current = values
        }
    }

    /// The location's domain, loaded, if its file can be used; its problem otherwise.
    ///
    /// Checked before writing because a domain's write replaces a corrupt file (keeping it
    /// aside), which a program's own store may do but a tool must not do on its own.
    ///
    /// A corrupt file read from a generation (``recovery(at:)``) is refused too: a program's
    /// own store commits on top of the recovered values, but a tool's write would set the
    /// file aside behind the user's back; ``restore(generation:at:)`` and ``undo(at:)`` do
    /// so on request.
    private func usableDomain(at location: PersistentDomainLocation) throws(PreferencesError) -> PersistentDomain {
        let domain = try persistentDomain(declaringPrivateKeysAt: location)
        _ = domain.currentValues()
        if let problem = domain.problem { throw problem }
        if let recovery = domain.recovery {
            throw PreferencesError(
                recovery.reason.code, path: recovery.path,
                "\(recovery.reason.reason); its values are read from generation \(recovery.generation) (\(recovery.generationPath)), and nothing is written until a generation is restored")
        }
        return domain
    }
}
