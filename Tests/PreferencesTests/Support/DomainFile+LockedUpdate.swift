import Preferences

extension DomainFile {
    /// The file protocol's locked read-modify-write, for the tests that drive a domain file
    /// without a `PersistentDomain`: the directory, the `flock`, then the commit, as the
    /// library's one write path (`DomainWriter`) takes them, but without its in-process write
    /// lock, store publishing or journald entry.
    func update<Result>(
        policy: FilePolicy,
        recovering fallback: [String: PropertyListValue],
        known: DomainContents? = nil,
        lockDeadline: ContinuousClock.Instant? = nil,
        _ body: (inout [String: PropertyListValue]) throws(PreferencesError) -> Result
    ) throws(PreferencesError) -> (result: Result, contents: DomainContents?, changedDirectory: Bool) {
        try ensureDirectory(policy: policy)
        let lock = try DomainFileLock(path: lockPath, policy: policy, deadline: lockDeadline)
        defer { withExtendedLifetime(lock) {} }
        let outcome = try merge(policy: policy, recovering: fallback, known: known) { values throws(PreferencesError) in
            (try body(&values), nil)
        }
        return (outcome.result, outcome.contents, outcome.changedDirectory)
    }
}
