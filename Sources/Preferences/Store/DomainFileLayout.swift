import Logging
import SystemPackage

/// Which file each user, by-host and system domain of a configuration is, and the policy it
/// is read and written under.
///
/// Stores and ``PreferenceFiles`` both open domains through this, so a tool writing a
/// domain by location reaches the very file, under the very rules, that a program of the
/// domain reads: the same `PersistentDomain`, when both are in one process.
struct DomainFileLayout: Sendable {
    /// The directories and machine id, from the configuration's environment.
    let locations: DomainLocations
    /// The user's own files: trusted only if the user owns them; a write creates the
    /// directory, because a new user has none yet.
    let userPolicy: FilePolicy
    /// System and managed files: root's or the user's (an administrator installs them, a
    /// test or a container may own them); never created by us, since we only read them.
    let systemPolicy: FilePolicy
    /// The managed layer as its one writer (a fleet-policy service, as root) writes it: its
    /// own files only, the directory made if missing, and modes 0644 and 0755, since every
    /// user's programs read it.
    let managedWriterPolicy: FilePolicy
    /// Where writes and problems of files opened here are logged.
    let logger: Logger
    /// Whether a file starts being watched when it is opened here (``PreferenceStore/Configuration/fileWatching``).
    let watchesAtOpen: Bool

    /// The layout `configuration` describes: its environment locates the directories, its
    /// size limit, lock timeout and history bounds go into both policies.
    init(configuration: PreferenceStore.Configuration) {
        locations = DomainLocations(environment: configuration.environment)
        userPolicy = FilePolicy(
            sizeLimit: configuration.sizeLimit, lockTimeout: configuration.lockTimeout,
            trustedOwners: [geteuidValue], createsDirectory: true,
            generationLimit: configuration.generationLimit, generationByteLimit: configuration.generationByteLimit)
        systemPolicy = FilePolicy(
            sizeLimit: configuration.sizeLimit, lockTimeout: configuration.lockTimeout,
            trustedOwners: Array(Set([0, geteuidValue])), createsDirectory: false,
            generationLimit: configuration.generationLimit, generationByteLimit: configuration.generationByteLimit)
        managedWriterPolicy = FilePolicy(
            sizeLimit: configuration.sizeLimit, lockTimeout: configuration.lockTimeout,
            trustedOwners: [geteuidValue], createsDirectory: true,
            generationLimit: configuration.generationLimit, generationByteLimit: configuration.generationByteLimit,
            fileMode: [.ownerReadWrite, .groupRead, .otherRead], directoryMode: [.ownerReadWriteExecute, .groupRead, .groupExecute, .otherRead, .otherExecute])
        logger = configuration.logger ?? PreferencesLogger.default
        watchesAtOpen = configuration.fileWatching == .atOpen
    }

    /// The writable domain `<user dir>/<stem>.plist`.
    ///
    /// The first time this process opens a domain (not the global one) that has no file
    /// here and was never imported, while corelibs-Foundation's file for it exists, that
    /// file's values are imported first (see ``foundationFile(stem:)``), so a program moving
    /// from Foundation's `UserDefaults` keeps its users' settings.
    func userDomain(stem: String) -> PersistentDomain {
        let domain = userFile(directory: locations.userDirectory, fileName: DomainLocations.fileName(stem: stem))
        if stem != DomainLocations.globalFileStem {
            domain.importFoundationSettingsOnFirstOpen(from: foundationFile(stem: stem))
        }
        return domain
    }

    /// corelibs-Foundation's file for the domain `stem`: `<$XDG_CONFIG_HOME or ~/.config>/<stem>.plist`.
    func foundationFile(stem: String) -> DomainFile {
        DomainFile(directory: locations.foundationDirectory, fileName: DomainLocations.fileName(stem: stem))
    }

    /// The writable domain `<user dir>/ByHost/<stem>.<machine-id>.plist`, or nil on a
    /// machine without `/etc/machine-id`, which has no by-host domains.
    func byHostDomain(stem: String) -> PersistentDomain? {
        guard let machineID = locations.machineID else { return nil }
        return userFile(directory: locations.byHostDirectory, fileName: DomainLocations.fileName(stem: stem, machineID: machineID))
    }

    /// The read-only domain `<directory>/<stem>.plist`, where `directory` is the system or
    /// the managed directory.
    func systemDomain(directory: String, stem: String) -> PersistentDomain {
        PersistentDomain.shared(
            DomainFile(directory: directory, fileName: DomainLocations.fileName(stem: stem)),
            policy: systemPolicy, isWritable: false, runtimeDirectory: locations.runtimeDirectory, logger: logger,
            watching: watchesAtOpen)
    }

    /// The managed layer's file of `stem` as its one writer writes it (see
    /// ``PersistentDomain/writer(for:policy:runtimeDirectory:logger:)``).
    func managedWriter(stem: String) -> PersistentDomain {
        PersistentDomain.writer(
            for: DomainFile(directory: locations.managedDirectory, fileName: DomainLocations.fileName(stem: stem)),
            policy: managedWriterPolicy, runtimeDirectory: locations.runtimeDirectory, logger: logger)
    }

    /// The path of the managed layer's file of `stem`.
    func managedFilePath(stem: String) -> String {
        locations.managedDirectory + "/" + DomainLocations.fileName(stem: stem)
    }

    /// A writable file in any directory, under the user's policy: a domain file, or a
    /// property-list file a tool names by path.
    func userFile(directory: String, fileName: String) -> PersistentDomain {
        PersistentDomain.shared(
            DomainFile(directory: directory, fileName: fileName), policy: userPolicy, isWritable: true,
            runtimeDirectory: locations.runtimeDirectory, logger: logger, watching: watchesAtOpen)
    }
}
