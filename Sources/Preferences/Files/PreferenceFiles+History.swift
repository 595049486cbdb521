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
        let domain = try persistentDomain(declaringPrivateKeysAt: location)
        let policy = domain.policy
        let privateKeys = domain.privateKeys
        let history = DomainHistory(file: domain.file)
        let numbers = try history.generationNumbers(policy: policy)
        var versions: [(number: UInt64, isCurrent: Bool, version: DomainHistory.StoredVersion)] = []
        if let current = history.readCurrent(policy: policy) {
            versions.append((current.numberAsCurrent(newestKept: numbers.first), true, current))
        }
        for number in numbers {
            if let version = history.readGeneration(number, policy: policy) { versions.append((number, false, version)) }
        }
        return versions.indices.map { index in
            let (number, isCurrent, version) = versions[index]
            let values = try? version.contents.get()
            var changed: [String]?
            if index + 1 < versions.count, let values, let older = try? versions[index + 1].version.contents.get() {
                // Generations keep no private values, so their changes cannot be told: they
                // are left out of the comparison rather than shown as changed every time.
                changed = DomainState.changedKeys(
                    from: older.filter { !privateKeys.contains($0.key) }, to: values.filter { !privateKeys.contains($0.key) }
                ).sorted()
            } else if index + 1 == versions.count, number == 1, let values {
                // The domain's first version: every key it holds was new.
                changed = values.keys.sorted()
            }
            return DomainGeneration(
                number: Int(number), isCurrent: isCurrent, path: version.path, date: Self.date(of: version),
                writer: Self.writer(of: version), values: values,
                problem: { if case .failure(let error) = version.contents { return error } else { return nil } }(),
                changedKeys: changed)
        }
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
        let history = DomainHistory(file: domain.file)
        // The directory is checked first, as `generations(at:)` and `undo(at:)` check it: a
        // generation is read by its path, which would go through a planted link.
        let kept = try history.generationNumbers(policy: domain.policy)
        guard number > 0, kept.contains(UInt64(number)), let version = history.readGeneration(UInt64(number), policy: domain.policy) else {
            let current = number > 0 ? history.readCurrent(policy: domain.policy) : nil
            if let current, current.numberAsCurrent(newestKept: kept.first) == UInt64(number) {
                throw PreferencesError(
                    .missingFile, path: current.path, "generation \(number) is the current version; there is nothing to restore")
            }
            throw PreferencesError(
                .missingFile, path: number > 0 ? history.path(ofGeneration: UInt64(number)) : history.directoryPath,
                "no generation \(number) is kept; `defaults history` lists the ones kept")
        }
        let values: [String: PropertyListValue]
        switch version.contents {
        case .success(let decoded): values = decoded
        case .failure(let error): throw error
        }
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
        return DomainGeneration(
            number: number, isCurrent: false, path: version.path, date: Self.date(of: version), writer: Self.writer(of: version),
            values: values, problem: nil, changedKeys: nil)
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
        let domain = try persistentDomain(at: location)
        let history = DomainHistory(file: domain.file)
        guard let newest = try history.generationNumbers(policy: domain.policy).first else {
            throw PreferencesError(.missingFile, path: history.directoryPath, "no earlier generation is kept to go back to")
        }
        return try restore(generation: Int(newest), at: location)
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

    /// When a version was written: its record's time if the record is valid, else its
    /// modification time.
    private static func date(of version: DomainHistory.StoredVersion) -> Date? {
        guard let nanoseconds = version.validRecord?.modificationTime ?? version.identity?.modificationTime else { return nil }
        return Date(timeIntervalSince1970: Double(nanoseconds) / 1_000_000_000)
    }

    /// Who wrote a version, from its record.
    private static func writer(of version: DomainHistory.StoredVersion) -> DomainGeneration.Writer {
        if let record = version.validRecord { return .process(id: record.processID, unit: record.unit) }
        return version.record == nil ? .unknown : .editedOutsideLibrary
    }
}
