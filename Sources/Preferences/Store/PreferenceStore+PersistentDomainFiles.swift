import Foundation

/// Reading and writing any persistent domain by location, for tools such as `defaults`:
/// every write takes the domain's lock, merges with what other processes wrote, replaces
/// the file atomically, logs to journald and reaches every process watching the domain,
/// exactly as a store's own `set` and `flush()` do.
extension PreferenceStore {
    /// The file a location names, or nil for a by-host location on a machine without
    /// `/etc/machine-id`.
    public func filePath(of location: PersistentDomainLocation) -> String? {
        try? persistentDomainFile(at: location).file.path
    }

    /// The values stored in a domain's file (this process's unwritten changes included),
    /// or nil when the domain has no values (or no file).
    ///
    /// A file given by path may be in any property-list format (binary, XML or old-style
    /// text) for reading; domain files proper are binary.
    ///
    /// - Throws: ``PreferencesError`` if the file is unusable: corrupt, not a dictionary, a
    ///   link, someone else's, writable by others, too large or unreadable.
    public func persistentDomainValues(at location: PersistentDomainLocation) throws(PreferencesError) -> [String: PropertyListValue]? {
        // A plist named by path is often XML or text (written by another tool): read it as
        // such directly, so the domain-file reader does not log it as a damaged binary file.
        if location.isFile, let path = filePath(of: location), Self.isRegularNonBinaryFile(path) {
            let entries = try PropertyListFile.readDictionary(at: URL(fileURLWithPath: path))
            return entries.isEmpty ? nil : entries
        }
        let source = try persistentDomainFile(at: location)
        let values = source.currentValues()
        if let problem = source.problem {
            // A plist named by path is often XML (written by another tool): read it as such.
            // Writing it still requires a binary file, so the check below stays for writes.
            guard location.isFile, problem.code == .corrupt,
                let entries = try? PropertyListFile.readDictionary(at: URL(fileURLWithPath: source.file.path))
            else { throw problem }
            return entries.isEmpty ? nil : entries
        }
        return values.isEmpty ? nil : values
    }

    /// Sets and removes keys of a domain's file (nil removes) and writes them durably now,
    /// merged under the domain's lock with whatever other processes wrote meanwhile.
    ///
    /// - Throws: ``PreferencesError`` without touching the file if it is unusable (a corrupt
    ///   file is not replaced, unlike a store's background write), or if the write failed.
    public func setValues(_ changes: [String: PropertyListValue?], at location: PersistentDomainLocation) throws(PreferencesError) {
        let source = try usableFile(at: location)
        // Applied inside the locked write, never left pending: a write that fails (a lock
        // held too long, a full disk) must not be retried behind the caller's back, at exit,
        // after the caller was told nothing was written.
        try source.modify(changing: changes.keys.sorted()) { values throws(PreferencesError) in
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
        let source = try usableFile(at: location)
        return try source.modify(changing: changedKeys) { values throws(PreferencesError) -> Result in body(&values) }
    }

    /// Replaces a domain's whole contents and writes them durably now; empty values remove
    /// the file.
    ///
    /// - Throws: ``PreferencesError`` without touching the file if it is unusable, or if the
    ///   write failed.
    public func replacePersistentDomain(_ values: [String: PropertyListValue], at location: PersistentDomainLocation) throws(PreferencesError) {
        let source = try usableFile(at: location)
        // In the locked write, not pending: see setValues(_:at:).
        try source.modify(changing: Array(Set(values.keys).union(source.currentValues().keys)).sorted()) { current in
            current = values
        }
    }

    /// The names of the domains in the user directory (or its `ByHost` directory, for this
    /// machine), sorted; the global domain and hidden files are not among them.
    public func persistentDomainNames(currentHost: Bool = false) -> [String] {
        let directory = currentHost ? locations.byHostDirectory : locations.userDirectory
        let suffix: String
        if currentHost {
            guard let machineID = locations.machineID else { return [] }
            suffix = ".\(machineID).plist"
        } else {
            suffix = ".plist"
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0.hasSuffix(suffix) && $0.count > suffix.count }
            .map { String($0.dropLast(suffix.count)) }
            .filter { (try? DomainName($0)) != nil }
            .sorted()
    }

    /// Every layer of this store's search list that holds `key`, first (winning) first.
    public func sources(forKey key: String) -> [PreferenceSource] {
        snapshot.read { state in
            state.pointee.layers.compactMap { layer in
                layer.values[key].map {
                    PreferenceSource(layer: PreferenceSource.Layer(layer.kind), path: layer.source?.file.path, value: $0)
                }
            }
        }
    }

    // MARK: Files

    /// Whether `path` is a regular file (not a link, FIFO or device, which the domain-file
    /// reader refuses safely) whose first bytes are not a binary property list's.
    private static func isRegularNonBinaryFile(_ path: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let handle = FileHandle(forReadingAtPath: path)
        else { return false }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: 6)) ?? Data()
        return !start.isEmpty && start != Data("bplist".utf8)
    }

    /// The process's shared persistent domain for a location.
    func persistentDomainFile(at location: PersistentDomainLocation) throws(PreferencesError) -> PersistentDomain {
        let stem: String
        switch location.kind {
        case .file(let directory, let fileName):
            return PersistentDomain.shared(
                DomainFile(directory: directory, fileName: fileName), policy: appDomain.policy, isWritable: true, logger: logger)
        case .named(let name): stem = name
        case .global: stem = DomainLocations.globalFileStem
        }
        guard let source = userDomain(stem: stem, byHost: location.isCurrentHost) else {
            throw PreferencesError(
                .missingFile, path: "/etc/machine-id", "this machine has no machine id, so it has no by-host (-currentHost) domains")
        }
        return source
    }

    /// The location's domain, loaded, if its file can be used; its problem otherwise.
    private func usableFile(at location: PersistentDomainLocation) throws(PreferencesError) -> PersistentDomain {
        let source = try persistentDomainFile(at: location)
        _ = source.currentValues()
        if let problem = source.problem { throw problem }
        return source
    }
}
