import Dispatch

/// When one domain's background writes run: at most one queued or running at a time (sets
/// that arrive meanwhile join the next), on the process's flush queue, and after a failure
/// again later, backing off from 250 ms to 30 s.
///
/// A write stays scheduled while it runs; a set made meanwhile only notes that another write
/// is wanted, and the write queues that one itself when it is done. So a program setting in a
/// loop queues work only when the queue is idle: a set that queues work wakes a queue thread,
/// which costs many times the set itself (Benchmarks/RESULTS.md, "`set` beside a background
/// flush").
package final class FlushSchedule: Sendable {
    private struct State {
        var isScheduled = false
        /// A set asked for a write while one was scheduled or running.
        var isRequestedAgain = false
        var retryDelay: Duration = .zero
        /// Writes queued so far, for tests.
        var queued = 0
    }

    private let state = ThreadLock(State(), rank: .leaf)
    /// The write; returns whether it succeeded. Made once, so scheduling on every set
    /// allocates nothing.
    private let write: @Sendable () -> Bool

    /// Every domain's background writes run here, one at a time: a write holds the domain's
    /// lock files, and two at once would only contend for the disk.
    private static let queue = DispatchQueue(label: "swift-preferences.flush")

    /// Creates the schedule of `write`, which returns whether it succeeded.
    package init(_ write: @escaping @Sendable () -> Bool) {
        self.write = write
    }

    /// Queues the write unless one is queued or running already, in which case that one
    /// queues another when it is done; after a failure it is queued again after the back-off
    /// delay.
    package func schedule(after delay: Duration = .zero) {
        let shouldSchedule = state.withLock { state in
            if state.isScheduled {
                state.isRequestedAgain = true
                return false
            }
            state.isScheduled = true
            state.queued += 1
            return true
        }
        guard shouldSchedule else { return }
        if delay == .zero {
            Self.queue.async(execute: run)
        } else {
            Self.queue.asyncAfter(deadline: .now(after: delay), execute: run)
        }
    }

    /// Returns once every write queued so far has run (for tests).
    package static func waitForQueuedWrites() {
        queue.sync {}
    }

    /// How many writes were queued so far (a write that stays scheduled is counted once).
    package var queuedWrites: Int {
        state.withLock { $0.queued }
    }

    /// Runs the write on the queue, then queues the next if a set asked for one meanwhile, or
    /// a retry if it failed.
    private func run() {
        // A set that asked before this point recorded its change before asking, so this
        // write takes it; one that asks from here on is written by the next.
        state.withLock { $0.isRequestedAgain = false }
        if write() {
            let again = state.withLock { state -> Bool in
                state.retryDelay = .zero
                guard state.isRequestedAgain else {
                    state.isScheduled = false
                    return false
                }
                // Stays scheduled: sets made until the next write starts join it.
                state.isRequestedAgain = false
                state.queued += 1
                return true
            }
            // Queued from the queue's own thread, so nothing is woken. Asked for by a set, not
            // by what is left pending: a value that never compares equal to itself (a NaN)
            // stays pending after its write and must not make writes follow one another forever.
            if again { Self.queue.async(execute: run) }
            return
        }
        let delay = state.withLock { state -> Duration in
            state.isScheduled = false
            state.isRequestedAgain = false
            state.retryDelay = min(max(state.retryDelay * 2, .milliseconds(250)), .seconds(30))
            return state.retryDelay
        }
        schedule(after: delay)
    }
}
