import Foundation
import Synchronization

/// Flushes every domain's pending changes when the process exits normally, so a value
/// set just before `exit()` is not lost (a known pitfall of Apple's implementation).
package enum ProcessExit {
    private static let isRegistered = Atomic(false)

    /// Registers the exit handler, once per process.
    package static func ensureFlushAtExit() {
        guard isRegistered.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        atexit {
            ProcessExit.flushAll()
        }
    }

    /// Writes every domain with pending changes and syncs every directory a background
    /// flush changed; errors are reported, not thrown.
    package static func flushAll() {
        for domain in PersistentDomain.all where domain.isWritable && domain.hasPendingChanges {
            do throws(PreferencesError) {
                try domain.flush()
            } catch {
                PreferencesLogger.report(error, event: .writeFailed, to: domain.logger)
            }
        }
        // On this thread: the process is exiting, and its queues may not run again.
        DirectorySync.shared.syncRequestedNow()
    }
}
