import Foundation
package import PropertyList

extension PersistentDomain {
    /// The file's versions, newest first: the current file (if there is one), then the
    /// generations kept in its history, each with its time, writer and the keys it changed
    /// relative to the next older one. Keys declared private (``declarePrivate(_:)``) are never
    /// listed as changed: generations keep none of their values to compare.
    ///
    /// - Throws: ``PreferencesError`` if the history directory is refused (a link, not a
    ///   directory, another user's, writable by others).
    package func generations() throws(PreferencesError) -> [DomainGeneration] {
        let history = DomainHistory(file: file)
        let numbers = try history.generationNumbers(policy: policy)
        var versions: [(number: UInt64, isCurrent: Bool, version: DomainHistory.StoredVersion)] = []
        if let current = history.readCurrent(policy: policy) {
            versions.append((current.numberAsCurrent(newestKept: numbers.first), true, current))
        }
        for number in numbers {
            if let version = history.readGeneration(number, policy: policy) { versions.append((number, false, version)) }
        }
        let privateKeys = privateKeys
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
            return Self.generation(version, number: number, isCurrent: isCurrent, values: values, changedKeys: changed)
        }
    }

    /// A kept generation and its values, to restore: read by number after the history
    /// directory is checked (a generation is read by its path, which would go through a
    /// planted link).
    ///
    /// - Throws: ``PreferencesError`` if the directory is refused, the generation is not kept
    ///   (`missingFile`, also for the current version's number) or cannot be used.
    package func keptGeneration(_ number: Int) throws(PreferencesError) -> (generation: DomainGeneration, values: [String: PropertyListValue]) {
        let history = DomainHistory(file: file)
        let kept = try history.generationNumbers(policy: policy)
        guard number > 0, kept.contains(UInt64(number)), let version = history.readGeneration(UInt64(number), policy: policy) else {
            let current = number > 0 ? history.readCurrent(policy: policy) : nil
            if let current, current.numberAsCurrent(newestKept: kept.first) == UInt64(number) {
                throw PreferencesError(
                    .missingFile, path: current.path, "generation \(number) is the current version; there is nothing to restore")
            }
            throw PreferencesError(
                .missingFile, path: number > 0 ? history.path(ofGeneration: UInt64(number)) : history.directoryPath,
                "no generation \(number) is kept; `defaults history` lists the ones kept")
        }
        switch version.contents {
        case .success(let values):
            return (Self.generation(version, number: UInt64(number), isCurrent: false, values: values, changedKeys: nil), values)
        case .failure(let error): throw error
        }
    }

    /// The newest kept generation's number: the version before the current one.
    ///
    /// - Throws: ``PreferencesError`` with code `missingFile` if none is kept, or if the
    ///   history directory is refused.
    package func newestGenerationNumber() throws(PreferencesError) -> Int {
        let history = DomainHistory(file: file)
        guard let newest = try history.generationNumbers(policy: policy).first else {
            throw PreferencesError(.missingFile, path: history.directoryPath, "no earlier generation is kept to go back to")
        }
        return Int(newest)
    }

    /// The public description of a stored version.
    private static func generation(
        _ version: DomainHistory.StoredVersion, number: UInt64, isCurrent: Bool, values: [String: PropertyListValue]?,
        changedKeys: [String]?
    ) -> DomainGeneration {
        DomainGeneration(
            number: Int(number), isCurrent: isCurrent, path: version.path, date: date(of: version), writer: writer(of: version),
            values: values, problem: { if case .failure(let error) = version.contents { return error } else { return nil } }(),
            changedKeys: changedKeys, origin: CommitOrigin.recorded(atPath: version.path))
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
