/// What ``PreferenceFiles/importFoundationSettings(ofDomain:)`` did for one domain.
public struct FoundationImport: Sendable, Hashable {
    /// The domain imported into.
    public let domain: String
    /// corelibs-Foundation's file the values came from, left as it was.
    public let sourcePath: String
    /// The keys that took the file's values, sorted.
    public let importedKeys: [String]
    /// The file's keys the domain already had a different value for, which kept the
    /// domain's own, sorted.
    public let keptKeys: [String]
}

extension PreferenceFiles {
    /// The file where corelibs-Foundation's `UserDefaults` keeps `domain`:
    /// `$XDG_CONFIG_HOME/<domain>.plist` (an absolute `XDG_CONFIG_HOME` only), else
    /// `~/.config/<domain>.plist`, from this configuration's environment.
    public func foundationFilePath(ofDomain domain: String) -> String {
        layout.foundationFile(stem: domain).path
    }

    /// The domains corelibs-Foundation's `UserDefaults` has files for (`<name>.plist` in
    /// ``foundationFilePath(ofDomain:)``'s directory with a valid domain name), sorted.
    public func foundationDomainNames() -> [String] {
        DomainDirectory.stems(in: layout.locations.foundationDirectory, suffix: ".plist")
            .filter { (try? DomainName($0)) != nil && $0 != PreferenceStore.globalDomain }
    }

    /// Imports corelibs-Foundation's settings for `domain` now, as one commit whose history
    /// says where the values came from: each key the domain does not have takes the file's
    /// value, and each key it has keeps its own. The file is left as it was.
    ///
    /// A program of this library does the same by itself the first time it opens a domain
    /// that has no file yet while Foundation's exists (once, however many processes open it
    /// at the same moment); this is for a domain that already had a file then, or whose
    /// Foundation file was refused and has since been fixed.
    ///
    /// - Returns: What was imported, or nil if Foundation has no file for `domain`.
    /// - Throws: ``PreferencesError`` with code `invalidDomainName` for a bad name or the
    ///   global domain (corelibs-Foundation keeps no file for it); naming Foundation's file
    ///   if it is refused (a link, another user's, writable by others, over the size limit,
    ///   not a property list), with nothing written; or the write's error.
    public func importFoundationSettings(ofDomain domain: String) throws(PreferencesError) -> FoundationImport? {
        let name = try DomainName(domain).rawValue
        guard name != PreferenceStore.globalDomain else {
            throw PreferencesError(
                .invalidDomainName, path: nil, "corelibs-Foundation keeps no file for the global domain, so there is nothing of it to import")
        }
        let source = layout.foundationFile(stem: name)
        // The domain's file without the first-open import: this call is the import, and it
        // reports all it did.
        let target = layout.userFile(directory: layout.locations.userDirectory, fileName: DomainLocations.fileName(stem: name))
        // As every write here: the file this commit replaces keeps no private value in history.
        if let schema = try? schema(for: .named(name)) { target.declarePrivate(schema.privateKeys) }
        guard let outcome = try target.importFoundationSettings(from: source, intoNewDomainOnly: false) else { return nil }
        return FoundationImport(domain: name, sourcePath: source.path, importedKeys: outcome.imported, keptKeys: outcome.kept)
    }
}
