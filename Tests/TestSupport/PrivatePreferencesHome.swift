import Foundation

/// A private preferences home for one test: a fresh temporary directory holding the user
/// preferences directory, the system directory, a home directory and a schema directory,
/// and the environment that points a store or a child process at them.
///
/// A store or program given ``environment`` in place of the test process's own reads and
/// writes only inside ``directory``: tests run in parallel, and as any user, without
/// touching the real `~/.config/preferences`, `/etc/preferences` or an installed schema.
/// Everything is removed when the fixture goes away.
///
/// Each test target subclasses it with what its tests do there (stores, providers, the
/// `defaults` tool, planting files); the directories and their environment are the same in
/// all of them.
open class PrivatePreferencesHome {
    /// The temporary directory everything lives in.
    package let directory: TemporaryDirectory
    /// The user preferences directory, `PREFERENCES_HOME`: `preferences` in ``directory``
    /// unless given, and not created, so a store makes it as on first use.
    package let userDirectory: String
    /// The system directory, `PREFERENCES_SYSTEM_DIR`: `system` in ``directory``, not created.
    package let systemDirectory: String
    /// `HOME`: `home` in ``directory``, created empty, so nothing falls back to the user's
    /// real home (the `defaults` tool's paths, `~` in stored URLs).
    package let homeDirectory: String
    /// The only schema directory searched, `PREFERENCES_SCHEMA_PATH`: `schemas` in
    /// ``directory``, not created, so no schema installed on the machine applies.
    package let schemaDirectory: String

    /// The user directory made on /dev/shm by `init(onTmpfs: true)`, removed with the fixture.
    private let tmpfsUserDirectory: String?

    /// Creates the temporary directory and the home directory in it.
    ///
    /// - Parameters:
    ///   - userDirectory: A `PREFERENCES_HOME` elsewhere; the caller creates and removes it.
    ///   - onTmpfs: Put the user directory on /dev/shm (tmpfs), created here (mode 0700) and
    ///     removed with the fixture, where fsync costs nothing: for tests of locking, merging,
    ///     threads and delivery that commit thousands of times, not of the disk (the power-loss
    ///     and fault tests cover that).
    package init(userDirectory: String? = nil, onTmpfs: Bool = false) throws {
        directory = try TemporaryDirectory()
        let tmpfs = onTmpfs ? "/dev/shm/swift-preferences-tests-\(UUID().uuidString)" : nil
        if let tmpfs {
            try FileManager.default.createDirectory(atPath: tmpfs, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        tmpfsUserDirectory = tmpfs
        self.userDirectory = tmpfs ?? userDirectory ?? directory.file("preferences").path
        systemDirectory = directory.file("system").path
        homeDirectory = directory.file("home").path
        schemaDirectory = directory.file("schemas").path
        try FileManager.default.createDirectory(atPath: homeDirectory, withIntermediateDirectories: true)
    }

    deinit {
        if let tmpfsUserDirectory { try? FileManager.default.removeItem(atPath: tmpfsUserDirectory) }
    }

    /// `PREFERENCES_HOME`, `PREFERENCES_SYSTEM_DIR`, `HOME` and `PREFERENCES_SCHEMA_PATH`
    /// pointing into ``directory``: a store's whole environment. Subclasses add what their
    /// stores or programs also need.
    open var environment: [String: String] {
        [
            "PREFERENCES_HOME": userDirectory, "PREFERENCES_SYSTEM_DIR": systemDirectory, "HOME": homeDirectory,
            "PREFERENCES_SCHEMA_PATH": schemaDirectory,
        ]
    }

    /// The environment for a child process: ``environment`` and the test process's `PATH`,
    /// so it can run programs by name.
    package var processEnvironment: [String: String] {
        environment.merging(["PATH": Self.searchPath]) { _, path in path }
    }

    /// The test process's `PATH`, or the usual directories when it has none.
    package static var searchPath: String {
        ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    }
}
