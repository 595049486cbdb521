import Dispatch
package import Logging
package import SystemPackage

/// Makes renames and removals in preferences directories durable (`fsync` of the
/// directory) off the writing thread, one sync for a burst of writes.
///
/// A flush's file is durable once it is synced and renamed, but the rename itself is only
/// durable once its directory is synced: a second journal commit, as long as the first on
/// ext4. Done by the flushing thread, it held up the next flush (sets in a loop each waited
/// for the previous flush's directory sync), and a sync running
/// while the next flush syncs its file makes that one wait for two commits. So a write
/// only requests a sync, which runs a few milliseconds later on a queue of its own,
/// covering every request made by then (group commit); whoever promises durability (an
/// explicit `flush()`, `modify`, the exit flush) syncs at once, on its own thread, unless a
/// sync that started after its request has finished. A failed sync is logged, thrown to
/// the waiters it covered, and retried by the next wait with a new descriptor.
package final class DirectorySync: Sendable {
    /// The process's one syncer.
    package static let shared = DirectorySync()

    /// Per directory: what has been asked for and what is done.
    private struct Progress {
        /// Incremented by every request; a sync started after request N covers it.
        var requested: UInt64 = 0
        /// The newest request a finished sync covered (whether it succeeded or not).
        var completed: UInt64 = 0
        /// Whether a delayed sync is scheduled and has not started.
        var isScheduled = false
        /// The failure of a sync no successful sync has followed, and the newest request
        /// it covered.
        var failure: (error: PreferencesError, covering: UInt64)?
        /// The logger of the newest request: a failure is logged there.
        var logger: Logger?
    }

    private let progress = ThreadLock([String: Progress](), rank: .directorySync)
    /// Held while syncing, so a second sync of the same requests waits for the first and
    /// then finds nothing to do.
    private let syncing = ThreadLock((), rank: .directorySyncing)
    private let queue = DispatchQueue(label: "swift-preferences.directory-sync")
    /// How long a requested sync waits for more requests to share it.
    private let gatheringDelay: Duration
    /// Syncs an open directory: `fsync`, or a fault injected by a test.
    private let syncDescriptor: @Sendable (FileDescriptor) throws(Errno) -> Void

    /// A syncer whose requested syncs wait `gatheringDelay` for company and that syncs with
    /// `syncDescriptor` (tests inject faults and delays with it).
    package init(
        gatheringDelay: Duration = .milliseconds(5),
        syncDescriptor: @escaping @Sendable (FileDescriptor) throws(Errno) -> Void = { descriptor throws(Errno) in
            if !DurabilityFaults.omitsDirectorySync { try SystemCalls.fsync(descriptor) }
            DurabilityFaults.reached(.directorySynced)
        }
    ) {
        self.gatheringDelay = gatheringDelay
        self.syncDescriptor = syncDescriptor
    }

    /// Whether a sync of `directory` was requested that no finished sync covers.
    package func hasOutstandingSync(of directory: String) -> Bool {
        progress.withLock { progress in progress[directory].map { $0.completed < $0.requested } ?? false }
    }

    /// Asks for `directory` to be synced after a domain file in it was replaced or removed,
    /// and returns at once; a failure is logged to `logger`.
    package func requestSync(of directory: String, logger: Logger) {
        let mustSchedule = progress.withLock { progress in
            progress[directory, default: Progress()].requested += 1
            progress[directory]!.logger = logger
            if progress[directory]!.isScheduled { return false }
            progress[directory]!.isScheduled = true
            return true
        }
        guard mustSchedule else { return }
        queue.asyncAfter(deadline: .now(after: gatheringDelay)) {
            self.sync(directory, isScheduled: true)
        }
    }

    /// Returns once every sync of `directory` requested so far is done, syncing now on this
    /// thread if needed; if the last sync failed and nothing has retried it, retries it.
    ///
    /// - Throws: The error of the sync that covered the newest request, if it failed: a
    ///   rename in the directory may not survive a crash.
    package func waitForRequestedSyncs(of directory: String) throws(PreferencesError) {
        let request = progress.withLock { progress -> UInt64? in
            guard var entry = progress[directory] else { return nil }
            if entry.completed >= entry.requested {
                guard let failure = entry.failure, failure.covering >= entry.requested else { return nil }
                // A flush retried after a failed sync: sync again rather than fail for good.
                entry.requested += 1
                progress[directory] = entry
            }
            return entry.requested
        }
        guard let request else { return }
        sync(directory, isScheduled: false)
        // A success clears the failure: if one is left that covers our request, no sync
        // since has made the rename durable.
        if let failure = progress.withLock({ $0[directory]?.failure }), failure.covering >= request {
            throw failure.error
        }
    }

    /// Syncs, on the calling thread, every directory with a request no sync has covered
    /// yet (at exit, when the queue may not run again).
    package func syncRequestedNow() {
        let outstanding = progress.withLock { progress in
            progress.compactMap { directory, entry in entry.completed < entry.requested ? directory : nil }
        }
        for directory in outstanding { sync(directory, isScheduled: false) }
    }

    /// Syncs `directory` if a request is not yet covered, covering every request made
    /// before the `fsync` starts. `isScheduled`: called by the delayed sync.
    private func sync(_ directory: String, isScheduled: Bool) {
        syncing.withLock { _ in
            let start = progress.withLock { progress -> (covering: UInt64, logger: Logger)? in
                guard var entry = progress[directory] else { return nil }
                if isScheduled { entry.isScheduled = false }
                progress[directory] = entry
                guard entry.completed < entry.requested else { return nil }
                return (entry.requested, entry.logger ?? PreferencesLogger.default)
            }
            guard let start else { return }
            var failure: PreferencesError?
            do throws(Errno) {
                // A new descriptor every time: one whose fsync failed is never synced again.
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
            if let failure { PreferencesLogger.report(failure, event: .writeFailed, to: start.logger) }
            progress.withLock { progress in
                progress[directory]!.completed = max(progress[directory]!.completed, start.covering)
                if let failure {
                    progress[directory]!.failure = (failure, start.covering)
                } else if let previous = progress[directory]!.failure, previous.covering <= start.covering {
                    progress[directory]!.failure = nil
                }
            }
        }
    }
}
