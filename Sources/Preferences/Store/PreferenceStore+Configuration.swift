public import Foundation
public import Logging

extension PreferenceStore {
    /// Where a store finds its files and how it treats them.
    ///
    /// The defaults read the process's environment and arguments, so
    /// `PREFERENCES_HOME`, `XDG_CONFIG_HOME`, `PREFERENCES_SYSTEM_DIR` and `-Key value`
    /// launch arguments work with no code. Tests and services can pass their own.
    ///
    /// A process opens each domain file once and shares it between its stores (one writer,
    /// one watch, one cache), so the file's own rules, ``sizeLimit`` as the file is read and
    /// written, ``lockTimeout``, ``generationLimit``, ``generationByteLimit`` and ``logger``,
    /// are decided by the first store or ``PreferenceFiles`` to open that file in the
    /// process; a later store's values for them apply to files it opens first. Give every
    /// store of a domain the same configuration.
    public struct Configuration: Sendable {
        /// Environment variables that locate the domain directories.
        public var environment: [String: String]
        /// The command line whose `-Key value` pairs form the argument domain.
        public var arguments: [String]
        /// The hard size limit, in bytes (default 1 MiB): no larger domain file is read or
        /// written, and a set that would make the domain larger is refused.
        public var sizeLimit: Int
        /// The soft size limit, in bytes (default 256 KiB): a set that makes the domain
        /// larger logs a warning and delivers a ``SizeLimitEvent`` to
        /// ``PreferenceStore/sizeLimitEvents()``.
        public var softSizeLimit: Int
        /// How long a write waits for another process's lock on the domain file.
        public var lockTimeout: Duration
        /// Where writes and problems are logged; nil uses journald when it is reachable,
        /// else standard error for warnings and errors only. The first store to open a
        /// domain file in a process decides its logger (see ``Configuration``).
        public var logger: Logger?
        /// Whether every change is also posted as `didChangeNotification` on
        /// `NotificationCenter.default` (default true, as `UserDefaults` does).
        ///
        /// On Linux a post costs even when nobody observes it (corelibs-Foundation bridges
        /// the notification's object on every post), and it is a large part of a `set`: the
        /// `set` rows of Benchmarks/RESULTS.md, with and without it, give the figures. A
        /// program that observes with `observe(_:options:handler:)` or `changes(of:initial:)`
        /// only can turn it off.
        public var postsDidChangeNotification: Bool
        /// How many earlier versions of each domain file are kept as generations (default 32):
        /// every commit links the file it replaces into `.<file>.history/` beside it, for
        /// `defaults history`, undo, restore, and recovery from a corrupt file. 0 keeps none.
        public var generationLimit: Int
        /// How many bytes one domain's generations may take together (default 8 MiB); the
        /// oldest go first, and the newest is kept even if it alone is larger.
        public var generationByteLimit: Int
        /// When the process starts watching the files for other processes' changes (default
        /// ``FileWatching/atOpen``).
        public var fileWatching: FileWatching

        /// Creates a configuration; every parameter defaults to the process's own.
        public init(
            environment: [String: String] = ProcessInfo.processInfo.environment,
            arguments: [String] = ProcessInfo.processInfo.arguments,
            sizeLimit: Int = 1 << 20,
            softSizeLimit: Int = 256 << 10,
            lockTimeout: Duration = .seconds(10),
            logger: Logger? = nil,
            postsDidChangeNotification: Bool = true,
            generationLimit: Int = 32,
            generationByteLimit: Int = 8 << 20,
            fileWatching: FileWatching = .atOpen
        ) {
            self.environment = environment
            self.arguments = arguments
            self.sizeLimit = sizeLimit
            self.softSizeLimit = softSizeLimit
            self.lockTimeout = lockTimeout
            self.logger = logger
            self.postsDidChangeNotification = postsDidChangeNotification
            self.generationLimit = max(0, generationLimit)
            self.generationByteLimit = max(0, generationByteLimit)
            self.fileWatching = fileWatching
        }
    }

    /// When a process starts watching a store's files (its one watcher thread and inotify
    /// instance, see ARCHITECTURE.md) for other processes' changes and hand edits.
    public enum FileWatching: Sendable, Hashable {
        /// When the store (or ``PreferenceFiles``) opens the file: every change reaches
        /// `didChangeNotification` observers and a ``PreferencesUserDefaults``, whose
        /// `NotificationCenter` observers the library cannot see. The default.
        case atOpen
        /// When the store's first observer registers (``PreferenceStore/observe(_:options:handler:)-(String,_,_)``,
        /// ``PreferenceStore/changes(of:initial:)``, ``PreferenceStore/values(of:initial:)``,
        /// ``ObservedPreference``, a configuration provider's watch). Until then the process
        /// starts no thread and no inotify instance, and reads still see every commit a
        /// program of this library makes to a user file whose commit counter could be opened
        /// (always with `XDG_RUNTIME_DIR` set, as in a login session; else once the file's
        /// directory exists). Not seen until the store watches: a hand edit made after the
        /// file was read, a change of the system or managed layer, and `didChangeNotification`
        /// for another process's change. For one-shot programs: a command-line tool, a script.
        case whenObserved
    }
}
