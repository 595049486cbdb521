import Foundation

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
}
