import Foundation

/// Any persistent domain's file, read and written by location, for tools such as
/// `defaults`.
///
/// ```swift
/// let files = PreferenceFiles()
/// try files.setValues(["Interval": 60], at: .named("com.example.editor"))
/// let values = try files.persistentDomainValues(at: .global())
/// ```
///
/// A ``PreferenceStore`` is one program's view of its domain through the whole search list;
/// this is the other side, what a tool needs: one domain's file as it is on disk, named by a
/// ``PersistentDomainLocation``, with no search list, launch arguments or registered
/// defaults. Files are found exactly as a store made from the same configuration finds them
/// (`PREFERENCES_HOME`, `XDG_CONFIG_HOME`, `HOME`, `PREFERENCES_SYSTEM_DIR`).
///
/// Every write takes the domain's lock, merges with what other processes wrote, replaces
/// the file atomically and durably before it returns, logs to journald and reaches every
/// process watching the domain, this one's stores included, exactly as a store's own `set`
/// and `flush()` do. Unlike a store's background write, a write here never replaces a file
/// it cannot use (corrupt, unsafe, unreadable): it throws and leaves the file as it is.
///
/// Safe to use from any thread.
public struct PreferenceFiles: Sendable {
    /// The configuration the files are located with.
    public let configuration: PreferenceStore.Configuration

    /// Where each domain's file is, shared with stores so both find the same one.
    let layout: DomainFileLayout

    /// Locates files with `configuration`, as a store made from it does; only its
    /// environment, size limit, lock timeout and logger matter here.
    public init(configuration: PreferenceStore.Configuration = PreferenceStore.Configuration()) {
        self.configuration = configuration
        layout = DomainFileLayout(configuration: configuration)
    }

    /// The file a location names, or nil for a by-host location on a machine without
    /// `/etc/machine-id`.
    public func filePath(of location: PersistentDomainLocation) -> String? {
        try? persistentDomain(at: location).file.path
    }

    /// The names of the domains in the user directory (or its `ByHost` directory, for this
    /// machine), sorted; the global domain and hidden files are not among them (nor a file
    /// named `NSGlobalDomain.plist`, which older versions wrote for the global domain's store
    /// and no search list reads).
    public func persistentDomainNames(currentHost: Bool = false) -> [String] {
        let locations = layout.locations
        let directory = currentHost ? locations.byHostDirectory : locations.userDirectory
        let suffix: String
        if currentHost {
            guard let machineID = locations.machineID else { return [] }
            suffix = ".\(machineID).plist"
        } else {
            suffix = ".plist"
        }
        return DomainDirectory.stems(in: directory, suffix: suffix).filter { (try? DomainName($0)) != nil && $0 != PreferenceStore.globalDomain }
    }

    /// The process's shared persistent domain for a location: the one this process's
    /// stores of the domain use too, so they see every write made here at once.
    func persistentDomain(at location: PersistentDomainLocation) throws(PreferencesError) -> PersistentDomain {
        let stem: String
        switch location.kind {
        case .file(let directory, let fileName): return layout.userFile(directory: directory, fileName: fileName)
        case .named(let name): stem = name
        case .global: stem = DomainLocations.globalFileStem
        }
        let domain: PersistentDomain
        if location.isCurrentHost {
            guard let byHost = layout.byHostDomain(stem: stem) else {
                throw PreferencesError(
                    .missingFile, path: "/etc/machine-id", "this machine has no machine id, so it has no by-host (-currentHost) domains")
            }
            domain = byHost
        } else {
            domain = layout.userDomain(stem: stem)
        }
        return domain
    }

    /// ``persistentDomain(at:)`` with the private keys of the domain's schema declared, for
    /// writes (which keep private values out of the history, as a store's writes do) and the
    /// history listing. Reads skip the schema lookup. A schema that cannot be used declares
    /// nothing (its store would not use it either).
    func persistentDomain(declaringPrivateKeysAt location: PersistentDomainLocation) throws(PreferencesError) -> PersistentDomain {
        let domain = try persistentDomain(at: location)
        if let schema = try? schema(for: location) { domain.declarePrivate(schema.privateKeys) }
        return domain
    }
}
