import Logging
import SystemPackage

extension PreferenceFiles {
    /// Replaces the managed (forced) layer's file of a domain,
    /// `<system dir>/managed/<name>.plist`, with `values`, durably, and records where they came
    /// from; empty values remove the file. For the one program that feeds the managed layer
    /// (`preferences-fleet`), running as the user who owns it (root).
    ///
    /// The write is the library's own: under the file's lock, one atomic rename of a synced
    /// file, the replaced version kept as a generation, the directory synced before this
    /// returns, and one journald entry. The file is mode 0644 (every user's programs read the
    /// managed layer) and the directory, made if missing, 0755; a directory or file that is a
    /// link, another user's, or writable by others is refused, as for every domain file.
    /// Every process reading the domain sees the change as one from another process.
    ///
    /// - Parameters:
    ///   - values: The domain's managed values; empty removes the file.
    ///   - name: The domain's name, checked as every domain name is.
    ///   - origin: Where the values came from: recorded with the file, and named by
    ///     ``PreferenceStore/sources(forKey:)`` (`defaults explain`).
    /// - Returns: Whether the file changed (values or origin); false when it already held them.
    /// - Throws: ``PreferencesError``: `invalidDomainName` before anything is touched, or why
    ///   the write failed (the file is then as it was).
    @discardableResult
    public func replaceManagedDomain(
        _ values: [String: PropertyListValue], named name: String, origin: CommitOrigin? = nil
    ) throws(PreferencesError) -> Bool {
        let stem = try DomainName(name).rawValue
        let file = DomainFile(directory: layout.locations.managedDirectory, fileName: DomainLocations.fileName(stem: stem))
        let policy = layout.managedWriterPolicy
        // The user's own directory may be a link (dotfiles kept elsewhere); the managed one,
        // written as root, must not be: a link there would send root's writes anywhere.
        if let status = try? FilePath(file.directory).stat(followTargetSymlink: false), status.type == .symbolicLink {
            throw PreferencesError(
                .notRegularFile, path: file.directory, "the managed directory is a symbolic link; nothing is written through it")
        }
        // A new origin with the same values is still written, so that the origin named is
        // always the one behind the file's values.
        let originChanged = managedOrigin(of: file) != origin
        let deadline = ContinuousClock.now.advanced(by: policy.lockTimeout)
        let outcome = try file.merge(policy: policy, recovering: [:], known: nil, lockDeadline: deadline, origin: origin) {
            current throws(PreferencesError) -> (result: Void, changed: Bool?) in
            let changed = current != values || (originChanged && !values.isEmpty)
            current = values
            return ((), changed)
        }
        guard outcome.changedDirectory else { return false }
        let logger = layout.logger
        if let problem = outcome.historyProblem { DomainHistory.warnOnce(problem, file: file, logger: logger) }
        DirectorySync.shared.requestSync(of: file.directory, logger: logger)
        try DirectorySync.shared.waitForRequestedSyncs(of: file.directory)
        logger.info(
            "wrote managed \(stem): \(values.count) key\(values.count == 1 ? "" : "s")\(origin.map { ", from \($0.summary)" } ?? "")",
            metadata: [
                "MESSAGE_ID": .string(PreferencesLogEvent.wrote.messageID),
                "PREFERENCES_DOMAIN": .string(stem),
                "PREFERENCES_KEYS": .array(values.keys.sorted().map { .string($0) }),
                "PREFERENCES_BYTES": .string(String(outcome.contents?.byteCount ?? 0)),
                "PREFERENCES_PATH": .string(file.path),
                "PREFERENCES_ORIGIN": .string(origin?.summary ?? ""),
            ])
        return true
    }

    /// Where the values of a domain's managed file came from, if its writer recorded it and
    /// the file was not rewritten in place since.
    public func managedOrigin(ofDomain name: String) -> CommitOrigin? {
        guard let stem = try? DomainName(name).rawValue else { return nil }
        return managedOrigin(of: DomainFile(directory: layout.locations.managedDirectory, fileName: DomainLocations.fileName(stem: stem)))
    }

    private func managedOrigin(of file: DomainFile) -> CommitOrigin? {
        CommitOrigin.recorded(atPath: file.path)
    }
}

extension CommitOrigin {
    /// The origin recorded with the file at `path`, if it names the file's modification time.
    static func recorded(atPath path: String) -> CommitOrigin? {
        guard let status = try? FilePath(path).stat(followTargetSymlink: false),
            let bytes = try? SystemCalls.extendedAttribute(attributeName, atPath: FilePath(path), limit: maximumSize)
        else { return nil }
        return CommitOrigin(decoding: bytes, modificationTime: FileIdentity(status).modificationTime)
    }
}

extension PreferenceFiles {
    /// The names of the domains with a file in the managed directory, sorted.
    public func managedDomainNames() -> [String] {
        let names = (try? SystemCalls.directoryEntries(FilePath(layout.locations.managedDirectory))) ?? []
        return names.filter { !$0.hasPrefix(".") && $0.hasSuffix(".plist") && $0.count > 6 }
            .map { String($0.dropLast(6)) }
            .filter { (try? DomainName($0)) != nil }
            .sorted()
    }
}
