import Dispatch

/// When one domain's background writes run: at most one queued at a time (sets that arrive
/// meanwhile join it), on the process's flush queue, and after a failure again later, backing
/// off from 250 ms to 30 s.
package final class FlushSchedule: Sendable {
    private struct State {
        var isScheduled = false
        var retryDelay: Duration = .zero
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

    /// Queues the write unless one is queued already; after a failure it is queued again
    /// after the back-off delay.
    package func schedule(after delay: Duration = .zero) {
        let shouldSchedule = state.withLock { state in
            if state.isScheduled { return false }
            state.isScheduled = true
            return true
        }
        guard shouldSchedule else { return }
        if delay == .zero {
            Self.queue.async(execute: run)
        } else {
            Self.queue.asyncAfter(deadline: .now(after: delay), execute: run)
        }
    }

    /// Runs the write on the queue and schedules a retry if it failed.
    private func run() {
        state.withLock { $0.isScheduled = false }
        if write() {
            state.withLock { $0.retryDelay = .zero }
            return
        }
        let delay = state.withLock { state -> Duration in
            state.retryDelay = min(max(state.retryDelay * 2, .milliseconds(250)), .seconds(30))
            return state.retryDelay
        }
        schedule(after: delay)
    }
}
