import Dispatch

/// When one domain's background writes run: at most one queued or running at a time (sets
/// that arrive meanwhile join the next), on the process's flush queue, and after a failure
/// again later, backing off from 250 ms to 30 s.
///
/// A write stays scheduled while it runs and, when it is done, queues the next itself if sets
/// came meanwhile. So a program setting in a loop queues work only when the queue is idle:
/// a set that queues work wakes a queue thread, which costs many times the set itself
/// (Benchmarks/RESULTS.md, "`set` beside a background flush").
package final class FlushSchedule: Sendable {
    private struct State {
        var isScheduled = false
        var retryDelay: Duration = .zero
        /// Writes queued so far, for tests.
        var queued = 0
    }

    private let state = ThreadLock(State(), rank: .leaf)
    /// The write; returns whether it succeeded. Made once, so scheduling on every set
    /// allocates nothing.
    private let write: @Sendable () -> Bool
    /// Whether there is anything left to write, asked after each write.
    private let hasWork: @Sendable () -> Bool

    /// Every domain's background writes run here, one at a time: a write holds the domain's
    /// lock files, and two at once would only contend for the disk.
    private static let queue = DispatchQueue(label: "swift-preferences.flush")

    /// Creates the schedule of `write`, which returns whether it succeeded; `hasWork` says
    /// whether changes wait to be written.
    package init(write: @escaping @Sendable () -> Bool, hasWork: @escaping @Sendable () -> Bool) {
        self.write = write
        self.hasWork = hasWork
    }

    /// Queues the write unless one is queued already; after a failure it is queued again
    /// after the back-off delay.
    package func schedule(after delay: Duration = .zero) {
        let shouldSchedule = state.withLock { state in
            if state.isScheduled { return false }
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

    /// How many writes were queued so far (a write that stays scheduled is counted once).
    package var queuedWrites: Int {
        state.withLock { $0.queued }
    }

    /// Runs the write on the queue, then queues the next if changes came meanwhile, or a
    /// retry if it failed.
    private func run() {
        // Still scheduled while it writes: a set made now records its change and returns.
        if write() {
            state.withLock { state in
                state.isScheduled = false
                state.retryDelay = .zero
            }
            // Asked after clearing the flag: a set records its change before it looks at the
            // flag, so a change this misses found the flag clear and queued a write itself.
            // Queued from the queue's own thread, so nothing is woken.
            if hasWork() { schedule() }
            return
        }
        let delay = state.withLock { state -> Duration in
            state.isScheduled = false
            state.retryDelay = min(max(state.retryDelay * 2, .milliseconds(250)), .seconds(30))
            return state.retryDelay
        }
        schedule(after: delay)
    }
}
