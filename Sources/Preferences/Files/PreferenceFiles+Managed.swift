import Foundation
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
        let stem = DomainLocations.fileStem(ofDomain: try DomainName(name).rawValue)
        let directory = layout.locations.managedDirectory
        // The user's own directory may be a link (dotfiles kept elsewhere); the managed one,
        // written as root, must not be: a link there would send root's writes anywhere.
        if let status = try? FilePath(directory).stat(followTargetSymlink: false), status.type == .symbolicLink {
            throw PreferencesError(
                .notRegularFile, path: directory, "the managed directory is a symbolic link; nothing is written through it")
        }
        // Through the library's one write path, as the managed layer's writer: the lock, the
        // commit, the directory sync before this returns, one journald entry naming the origin.
        return try layout.managedWriter(stem: stem).replace(with: values, origin: origin)
    }

    /// The path of a domain's managed file, `<system dir>/managed/<name>.plist`, whether or not
    /// it exists; nil for a name that is not a valid domain name. For the managed layer's
    /// writer, which reports a digest of what it wrote (`preferences-fleet`).
    public func managedFilePath(ofDomain name: String) -> String? {
        guard let name = try? DomainName(name) else { return nil }
        return layout.managedFilePath(stem: DomainLocations.fileStem(ofDomain: name.rawValue))
    }

    /// Where the values of a domain's managed file came from, if its writer recorded it and
    /// the file was not rewritten in place since.
    public func managedOrigin(ofDomain name: String) -> CommitOrigin? {
        guard let name = try? DomainName(name) else { return nil }
        return CommitOrigin.recorded(atPath: layout.managedFilePath(stem: DomainLocations.fileStem(ofDomain: name.rawValue)))
    }
}

extension PreferenceFiles {
    /// The names of the domains with a file in the managed directory, sorted;
    /// ``PreferenceStore/globalDomain`` for the global domain's.
    public func managedDomainNames() -> [String] {
        let directory = layout.locations.managedDirectory
        var names = DomainDirectory.stems(in: directory, suffix: ".plist").filter { (try? DomainName($0)) != nil && $0 != PreferenceStore.globalDomain }
        if FileManager.default.fileExists(atPath: layout.managedFilePath(stem: DomainLocations.globalFileStem)) {
            names.append(PreferenceStore.globalDomain)
        }
        return names.sorted()
    }
}
