#if DEBUG
import Synchronization

/// A seam for tests, compiled into debug builds only: runs a test's code between the open of
/// a file and the read of its bytes, so that a commit can be put exactly inside a read that
/// is under way (a generation written over while it is read, say).
///
/// Keyed by path and run once, so a test's step never fires in another test's reads.
enum ReadInterleaving {
    private static let steps = Mutex<[String: @Sendable () -> Void]>([:])

    /// Runs `step` the next time a file at `path` has been opened and checked, before its
    /// bytes are read.
    static func run(_ step: @escaping @Sendable () -> Void, onceAfterOpening path: String) {
        steps.withLock { $0[path] = step }
    }

    /// Called by the reader once the file at `path` is open and checked.
    static func opened(_ path: String) {
        if let step = steps.withLock({ $0.removeValue(forKey: path) }) { step() }
    }
}
#endif
