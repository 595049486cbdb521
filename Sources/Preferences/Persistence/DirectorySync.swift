import Dispatch
import Logging
import Synchronization
import SystemPackage

/// Makes renames and removals in preferences directories durable (`fsync` of the
/// directory) on a thread of its own, so the next write need not wait for it.
///
/// A flush's file is durable once it is synced and renamed, but the rename itself is only
/// durable once its directory is synced: a second journal commit, as long as the first on
/// ext4. Done by the flushing thread, it held up the next flush (on this machine, sets in a
/// loop waited ~0.3 ms each for the previous flush's directory sync). Here every write
/// requests a sync and goes on; requests that arrive while a sync is queued share it; and
/// whoever promises durability (an explicit `flush()`, `modify`, the exit flush) waits for
/// the syncs requested up to that moment. A sync that fails is logged, retried by the next
/// request, and thrown to every waiter it covered.
final class DirectorySync: Sendable {
    /// The process's one syncer.
    static let shared = DirectorySync()

    /// Per directory: what has been asked for and what is done.
    private struct Progress {
        /// Incremented by every request; a sync started after request N covers it.
        var requested: UInt64 = 0
        /// The newest request the last finished sync covered.
        var completed: UInt64 = 0
        /// Whether a sync of the directory is queued and has not started.
        var isQueued = false
        /// The last sync's failure, and the newest request it covered.
        var failure: (error: PreferencesError, covering: UInt64)?
        var waiters: [(request: UInt64, semaphore: DispatchSemaphore)] = []
        /// The logger of the newest request, for a sync at exit.
        var logger: Logger?
    }

    private let progress = Mutex([String: Progress]())
    private let queue = DispatchQueue(label: "swift-preferences.directory-sync")
    /// Syncs an open directory: `fsync`, or a fault injected by a test.
    private let syncDescriptor: @Sendable (FileDescriptor) throws(Errno) -> Void

    /// A syncer that calls `syncDescriptor` instead of `fsync` (tests inject faults and
    /// delays with it).
    init(syncDescriptor: @escaping @Sendable (FileDescriptor) throws(Errno) -> Void = { descriptor throws(Errno) in
        try SystemCalls.fsync(descriptor)
    }) {
        self.syncDescriptor = syncDescriptor
    }

    /// Whether a sync of `directory` was requested that no finished sync covers.
    func hasOutstandingSync(of directory: String) -> Bool {
        progress.withLock { progress in progress[directory].map { $0.completed < $0.requested } ?? false }
    }

    /// Asks for `directory` to be synced after a domain file in it was replaced or removed,
    /// and returns at once; a failure is logged to `logger`.
    func requestSync(of directory: String, logger: Logger) {
        let mustQueue = progress.withLock { progress in
            progress[directory, default: Progress()].requested += 1
            progress[directory]!.logger = logger
            if progress[directory]!.isQueued { return false }
            progress[directory]!.isQueued = true
            return true
        }
        guard mustQueue else { return }
        queue.async { self.sync(directory, logger: logger) }
    }

    /// Waits until every sync of `directory` requested so far has been done; if the last
    /// one failed and nothing has retried it, retries it first.
    ///
    /// - Throws: The error of the sync that covered the newest request, if it failed: a
    ///   rename in the directory may not survive a crash.
    func waitForRequestedSyncs(of directory: String) throws(PreferencesError) {
        let (request, semaphore, retry) = progress.withLock { progress -> (UInt64, DispatchSemaphore?, Logger?) in
            guard var entry = progress[directory] else { return (0, nil, nil) }
            var retry: Logger? = nil
            if entry.completed >= entry.requested, let failure = entry.failure, failure.covering >= entry.requested {
                // A flush retried after a failed sync: sync again rather than fail for good
                // (a new descriptor; the failed one is never synced again).
                entry.requested += 1
                if !entry.isQueued {
                    entry.isQueued = true
                    retry = entry.logger ?? PreferencesLogger.default
                }
            }
            let request = entry.requested
            if entry.completed >= request { return (request, nil, nil) }
            let semaphore = DispatchSemaphore(value: 0)
            entry.waiters.append((request, semaphore))
            progress[directory] = entry
            return (request, semaphore, retry)
        }
        if let retry { queue.async { self.sync(directory, logger: retry) } }
        semaphore?.wait()
        // Syncs run one at a time and a success clears the failure: if the newest finished
        // sync failed and started after our request, no sync since has made it durable.
        // (One that succeeded later covers our rename too.)
        if let failure = progress.withLock({ $0[directory]?.failure }), failure.covering >= request {
            throw failure.error
        }
    }

    /// Syncs, on the calling thread, every directory with a request no sync has covered
    /// yet (at exit); failures are logged to the logger of the directory's last request.
    func syncRequestedNow() {
        let outstanding = progress.withLock { progress in
            progress.compactMap { directory, entry in entry.completed < entry.requested ? (directory, entry.logger) : nil }
        }
        for (directory, logger) in outstanding { sync(directory, logger: logger ?? PreferencesLogger.default) }
    }

    /// Syncs `directory`, covering every request made before the `fsync` started.
    private func sync(_ directory: String, logger: Logger) {
        let covering = progress.withLock { progress -> UInt64 in
            progress[directory]!.isQueued = false
            return progress[directory]!.requested
        }
        var failure: PreferencesError?
        do {
            let descriptor = try Errno.typed {
                try FileDescriptor.open(FilePath(directory), .readOnly, options: [.directory, .closeOnExec])
            }
            defer { try? descriptor.close() }
            try syncDescriptor(descriptor)
        } catch {
            failure = PreferencesError(
                .io, path: directory, errno: error.rawValue,
                "a domain file in the directory was replaced or removed, but the directory could not be synced to disk (\(error)), so the change may not survive a crash")
        }
        if let failure { PreferencesLogger.report(failure, event: .writeFailed, to: logger) }
        let woken = progress.withLock { progress -> [DispatchSemaphore] in
            var entry = progress[directory]!
            entry.completed = max(entry.completed, covering)
            entry.failure = failure.map { ($0, covering) }
            let (done, waiting) = (entry.waiters.filter { $0.request <= covering }, entry.waiters.filter { $0.request > covering })
            entry.waiters = waiting
            progress[directory] = entry
            return done.map(\.semaphore)
        }
        for semaphore in woken { semaphore.signal() }
    }
}
