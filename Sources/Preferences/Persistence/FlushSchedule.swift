import Dispatch

/// When one domain's background writes run: at most one queued at a time (sets that arrive
/// meanwhile join it), on the process's flush queue, and after a failure again later, backing
/// off from 250 ms to 30 s.
final class FlushSchedule: Sendable {
    private struct State {
        var isScheduled = false
        var retryDelay: Duration = .zero
    }

    private let state = ThreadLock(State(), rank: .leaf)

    /// Every domain's background writes run here, one at a time: a write holds the domain's
    /// lock files, and two at once would only contend for the disk.
    private static let queue = DispatchQueue(label: "swift-preferences.flush")

    /// Queues `write` unless a write is queued already. `write` returns whether it
    /// succeeded; after a failure it is queued again after the back-off delay.
    func schedule(after delay: Duration = .zero, _ write: @escaping @Sendable () -> Bool) {
        let shouldSchedule = state.withLock { state in
            if state.isScheduled { return false }
            state.isScheduled = true
            return true
        }
        guard shouldSchedule else { return }
        let work: @Sendable () -> Void = { [self] in
            state.withLock { $0.isScheduled = false }
            if write() {
                state.withLock { $0.retryDelay = .zero }
                return
            }
            let delay = state.withLock { state -> Duration in
                state.retryDelay = min(max(state.retryDelay * 2, .milliseconds(250)), .seconds(30))
                return state.retryDelay
            }
            schedule(after: delay, write)
        }
        if delay == .zero {
            Self.queue.async(execute: work)
        } else {
            Self.queue.asyncAfter(deadline: .now(after: delay), execute: work)
        }
    }
}
