import Foundation
import Synchronization

/// Faults that break the write path's durability on purpose, so the power-loss harness
/// (`Tests/Scripts/power-loss.sh`) can show that it catches a missing `fsync`: with
/// `PREFERENCES_TEST_OMIT_SYNC=file` the new file is not synced before its rename, with
/// `directory` the directory is not synced after it. A purge's rewritten copies
/// (``DomainHistory/writeCopy(of:holding:into:as:replacing:)``) and its syncs of the history
/// and domain directories are covered too.
///
/// Debug builds only, read once per process: a release build has no such switch, and its
/// syncs cannot be turned off by the environment.
package enum DurabilityFaults {
    #if DEBUG
    private static let omitted: Set<String> = {
        let value = ProcessInfo.processInfo.environment["PREFERENCES_TEST_OMIT_SYNC"] ?? ""
        return Set(value.split(separator: ",").map(String.init))
    }()
    #endif

    /// Whether the new file's `fsync` before the rename is skipped.
    package static var omitsFileSync: Bool {
        #if DEBUG
        omitted.contains("file")
        #else
        false
        #endif
    }

    /// Whether the directory's `fsync` after a rename or removal is skipped.
    package static var omitsDirectorySync: Bool {
        #if DEBUG
        omitted.contains("directory")
        #else
        false
        #endif
    }

    /// The points of a commit at which a test may have this process die at once, as a power
    /// cut or `kill -9` would stop it there (the conformance suite's `crash` request, PROTOCOL.md).
    package enum CrashPoint: String, Sendable, CaseIterable {
        /// The domain's lock is held; nothing is written yet.
        case locked
        /// The temporary file holds the new bytes, not yet synced.
        case temporaryWritten = "temporary-written"
        /// The temporary file is synced, not yet renamed.
        case temporarySynced = "temporary-synced"
        /// The replaced file is kept as a generation; the rename is next.
        case generationKept = "generation-kept"
        /// The new file is renamed into place; the counter, pruning and unlock are next.
        case renamed
        /// The directory holding the file is synced.
        case directorySynced = "directory-synced"
    }

    #if DEBUG
    /// The chosen point's index in ``CrashPoint/allCases``, or -1 for none: an atomic, not a
    /// lock, so no write path takes a lock the rank checker does not know.
    private static let crashPoint = Atomic<Int>(-1)
    #endif

    /// Debug builds only: the next time this process reaches `point`, it exits at once with
    /// status 137, running nothing else (`_exit`). A release build ignores it.
    package static func crash(at point: CrashPoint) {
        #if DEBUG
        crashPoint.store(CrashPoint.allCases.firstIndex(of: point) ?? -1, ordering: .sequentiallyConsistent)
        #endif
    }

    /// Called at each crash point of the write path; exits if a test chose this one.
    @inline(__always)
    package static func reached(_ point: CrashPoint) {
        #if DEBUG
        let chosen = crashPoint.load(ordering: .relaxed)
        if chosen >= 0 && CrashPoint.allCases[chosen] == point { _exit(137) }
        #endif
    }
}
