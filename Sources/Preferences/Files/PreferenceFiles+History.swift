import Foundation

extension PreferenceFiles {
    /// A domain's versions, newest first: the current file (if there is one), then the
    /// generations kept in its history, each with its time, writer and the keys it changed
    /// relative to the next older one (keys declared private are never listed as changed:
    /// generations keep none of their values to compare).
    ///
    /// A version that cannot be used (corrupt, unsafe) is listed with its ``DomainGeneration/problem``.
    ///
    /// - Throws: ``PreferencesError`` if the history directory is refused (a link, not a
    ///   directory, another user's, writable by others).
    public func generations(at location: PersistentDomainLocation) throws(PreferencesError) -> [DomainGeneration] {
        try persistentDomain(declaringPrivateKeysAt: location).generations()
    }

    /// Makes a kept generation's values the domain's again (but for keys declared private,
    /// which keep their current values), as a new commit: under the domain's lock, keeping the replaced file as a generation, by atomic rename, so every
    /// process watching the domain sees ordinary changes (and a later restore or undo can
    /// undo this one).
    ///
    /// - Returns: The generation restored.
    /// - Throws: ``PreferencesError`` without changing anything if the history directory is
    ///   refused (see ``generations(at:)``), the generation is not kept (`missingFile`, also
    ///   for the current version's number), cannot be used (`corrupt`, `notADictionary`,
    ///   unsafe), or the write failed.
    @discardableResult
    public func restore(generation number: Int, at location: PersistentDomainLocation) throws(PreferencesError) -> DomainGeneration {
        let domain = try persistentDomain(declaringPrivateKeysAt: location)
        // The history directory is checked first, as `generations(at:)` and `undo(at:)` check it.
        let (generation, values) = try domain.keptGeneration(number)
        // Loaded first, so an unsafe file refuses the restore before anything is written; a
        // corrupt one is kept aside by the write, as any commit does.
        _ = domain.currentValues()
        if let problem = domain.problem, problem.code != .corrupt && problem.code != .notADictionary { throw problem }
        // The journald entry names the keys of both the old and the new contents.
        let keys = Array(Set(values.keys).union(domain.currentValues().keys)).sorted()
        // Generations hold no private values (and one kept before a key was declared private
        // must not bring an old secret back): private keys keep their current values.
        let privateKeys = domain.privateKeys
        try domain.modify(changing: { keys }) { current in
            var restored = values.filter { !privateKeys.contains($0.key) }
            for key in privateKeys { if let value = current[key] { restored[key] = value } }
            current = restored
        }
        return generation
    }

    /// Restores the newest kept generation: the version before the current one. Undoing
    /// twice undoes the undo, since the undo is itself a commit that keeps what it replaced.
    ///
    /// - Returns: The generation restored.
    /// - Throws: ``PreferencesError`` with code `missingFile` if no generation is kept, or
    ///   as ``restore(generation:at:)`` does.
    @discardableResult
    public func undo(at location: PersistentDomainLocation) throws(PreferencesError) -> DomainGeneration {
        // Only the newest number is needed here; the restore declares the private keys.
        return try restore(generation: persistentDomain(at: location).newestGenerationNumber(), at: location)
    }

    /// The generation a domain's values are read from because its file is corrupt; nil if
    /// the file is not corrupt or no generation decodes.
    public func recovery(at location: PersistentDomainLocation) -> DomainRecovery? {
        // A plist named by path in XML or text form is no damaged domain file: reading it as
        // one would log it as corrupt (see persistentDomainValues(at:)).
        if location.isFile, let path = filePath(of: location), Self.isRegularNonBinaryFile(path) { return nil }
        guard let domain = try? persistentDomain(at: location) else { return nil }
        domain.loadIfNeeded()
        return domain.recovery
    }
}
