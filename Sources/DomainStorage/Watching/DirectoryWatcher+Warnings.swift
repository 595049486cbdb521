import Foundation
import Synchronization

extension DirectoryWatcher {
    /// Whether the process has already been told that watching fell back to polling.
    private static let hasWarnedOfPolling = Atomic(false)

    /// What runs when the process first falls back to polling (the commit waiter's start).
    private static let pollingFallbackAction = ThreadLock<(@Sendable () -> Void)?>(nil, rank: .leaf)

    /// Runs `action` once the process first falls back to polling some directory, or now if
    /// it already has. The layer above sets it (``CommitWaiter``), so the watcher names
    /// nothing above it.
    package static func onPollingFallback(_ action: @escaping @Sendable () -> Void) {
        pollingFallbackAction.withLock { $0 = action }
        if hasWarnedOfPolling.load(ordering: .relaxed) { action() }
    }

    /// Reports, once per process, that some preference files are polled rather than watched.
    ///
    /// One warning says what matters (changes by other processes now take up to two seconds
    /// to arrive, and cost a read every second); one per directory would flood a log when
    /// the watch limit is hit.
    package static func warnPollingFallback(because reason: String) {
        guard !hasWarnedOfPolling.exchange(true, ordering: .relaxed) else { return }
        // Library commits wake this process through their counters from now on.
        pollingFallbackAction.withLock { $0 }?()
        writeWarning(
            "\(reason); library writes by other processes still arrive at once (through their commit counters), other changes are found by checking every second")
    }

    /// Writes one warning line to standard error as `swift-preferences: warning: ...`.
    ///
    /// The one place the watcher's warnings leave the library, to be routed to journald with
    /// the rest of its diagnostics.
    package static func writeWarning(_ message: String) {
        FileHandle.standardError.write(Data("swift-preferences: warning: \(message)\n".utf8))
    }
}
