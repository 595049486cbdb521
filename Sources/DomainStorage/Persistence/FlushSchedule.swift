import Dispatch

/// When one domain's background writes run: at most one queued or running at a time (sets
/// that arrive meanwhile join the next, which starts ``interval`` after it ended if they were
/// many), on the process's flush queue, and after a failure again later, backing off from
/// 250 ms to 30 s.
///
/// A write stays scheduled while it runs; a set made meanwhile only notes that another write
/// is wanted, and the write queues that one itself when it is done. So a program setting in a
/// loop queues work only when the queue is idle: a set that queues work wakes a queue thread,
/// which costs many times the set itself (Benchmarks/RESULTS.md, "`set` beside a background
/// flush").
///
/// A program setting in a loop (``burstSets`` sets or more while one write runs) has its sets
/// written together, each write starting ``interval`` after the last one ended: back to back,
/// every write (its encoding, its `fsync`'s interrupts, the watcher and directory-sync threads
/// it wakes) took the program's core from it now and then, and those were the slow tenth of a
/// percent of its sets. A set made while no write is queued or running is written at once, and
/// so are a few made while one runs, right after it: a change made, waited for by another
/// process, then made again, often lands while the last write is still finishing (after its
/// rename, which the other process saw), and must not wait out an interval.
package final class FlushSchedule: Sendable {
    private struct State {
        var isScheduled = false
        /// How many sets asked for a write since the running (or next) write started, while
        /// it was scheduled: any means another write is wanted, a burst's many an interval.
        var requestsSinceStart = 0
        var retryDelay: Duration = .zero
        /// Writes queued so far, for tests.
        var queued = 0
    }

    /// The least time between the end of one background write of a domain and the start of
    /// the next one, when that one was asked for by ``burstSets`` sets or more while it ran.
    package static let defaultInterval: Duration = .milliseconds(20)

    /// How many sets made while one write runs make a burst, written an interval later.
    package static let burstSets = 16

    private let state = ThreadLock(State(), rank: .leaf)
    /// The write; returns whether it succeeded. Made once, so scheduling on every set
    /// allocates nothing.
    private let write: @Sendable () -> Bool
    /// The least time between the end of one write and the start of the next, after a burst.
    package let interval: Duration

    /// Every domain's background writes run here, one at a time: a write holds the domain's
    /// lock files, and two at once would only contend for the disk.
    private static let queue = DispatchQueue(label: "swift-preferences.flush")

    /// Creates the schedule of `write`, which returns whether it succeeded, with a burst's
    /// write starting `interval` after the write it came during.
    package init(interval: Duration = defaultInterval, _ write: @escaping @Sendable () -> Bool) {
        self.interval = interval
        self.write = write
    }

    /// Queues the write unless one is queued or running already, in which case that one
    /// queues another when it ends (``interval`` later after a burst); a write queued here
    /// starts at once, or after `delay` (a failure's back-off).
    package func schedule(after delay: Duration = .zero) {
        let shouldSchedule = state.withLock { state in
            if state.isScheduled {
                state.requestsSinceStart += 1
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

    /// Returns once every write on the queue has run; a write still waiting out its interval
    /// is not on it yet (for tests).
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
        state.withLock { $0.requestsSinceStart = 0 }
        if write() {
            let next = state.withLock { state -> Duration? in
                state.retryDelay = .zero
                guard state.requestsSinceStart > 0 else {
                    state.isScheduled = false
                    return nil
                }
                // Stays scheduled: sets made until the next write starts join it (and are
                // counted for it only from its start).
                state.queued += 1
                return state.requestsSinceStart >= Self.burstSets ? interval : .zero
            }
            // Queued from the queue's own thread, so nothing is woken now. Asked for by a set,
            // not by what is left pending: a value that never compares equal to itself (a NaN)
            // stays pending after its write and must not make writes follow one another forever.
            switch next {
            case nil: break
            case .zero?: Self.queue.async(execute: run)
            case let wait?: Self.queue.asyncAfter(deadline: .now(after: wait), execute: run)
            }
            return
        }
        let delay = state.withLock { state -> Duration in
            state.isScheduled = false
            state.requestsSinceStart = 0
            state.retryDelay = min(max(state.retryDelay * 2, .milliseconds(250)), .seconds(30))
            return state.retryDelay
        }
        schedule(after: delay)
    }
}
