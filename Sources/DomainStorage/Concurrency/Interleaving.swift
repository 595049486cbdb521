#if DEBUG
import Synchronization

/// A seam for tests, compiled into debug builds only: runs a test's code at a chosen point of
/// a read or a write of one file, so that another thread's step can be put exactly inside a
/// window that is otherwise microseconds wide.
///
/// Keyed by point and path and run once, so a test's step never fires in another test's work.
package enum Interleaving {
    /// Where a step can run.
    package enum Point: Hashable {
        /// A file has been opened and checked, and its bytes are not read yet: a commit put
        /// here writes over a generation while it is read.
        case afterOpening
        /// A write has renamed its file and not yet installed it in this process's view: a
        /// re-read started here (the watcher, a read catching up) must not publish the write's
        /// own keys as another process's.
        case beforeInstallingWrite
        /// A write has renamed its file and told this process's stores, and has not yet
        /// raised the commit counter: a flush put here must not return before the raise.
        case beforeRaisingCounter
    }

    private struct Site: Hashable {
        let point: Point
        let path: String
    }

    private static let steps = ThreadLock<[Site: @Sendable () -> Void]>([:], rank: .leaf)

    /// Runs `step` the next time a read or write of the file at `path` reaches `point`.
    package static func run(_ step: @escaping @Sendable () -> Void, once point: Point, at path: String) {
        steps.withLock { $0[Site(point: point, path: path)] = step }
    }

    /// Called by the reader or writer of the file at `path` when it reaches `point`.
    package static func reached(_ point: Point, at path: String) {
        if let step = steps.withLock({ $0.removeValue(forKey: Site(point: point, path: path)) }) { step() }
    }
}
#endif
