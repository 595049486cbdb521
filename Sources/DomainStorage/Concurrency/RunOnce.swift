import Dispatch

/// Runs a job once per process, and makes every other thread that asks while it runs wait
/// for it to finish: for work whose result the callers read next (a domain's first-open
/// import, which must be in the file before a second thread's store reads it).
///
/// The job runs with no lock held; a waiter waits with none taken here either, so the job may
/// take any lock. It must not ask for the same `RunOnce` again (it would wait for itself).
package final class RunOnce: Sendable {
    private enum State: Sendable {
        case notRun
        case running(DispatchGroup)
        case done
    }

    private let state = ThreadLock<State>(.notRun, rank: .leaf)

    /// Makes a job that has not run.
    package init() {}

    /// Runs `job` if no thread has; waits for it if another thread is running it; returns at
    /// once if it has run.
    package func run(_ job: () -> Void) {
        let (runsHere, running) = state.withLock { state -> (Bool, DispatchGroup?) in
            switch state {
            case .notRun:
                let group = DispatchGroup()
                group.enter()
                state = .running(group)
                return (true, group)
            case .running(let group): return (false, group)
            case .done: return (false, nil)
            }
        }
        guard runsHere, let running else {
            running?.wait()
            return
        }
        job()
        state.withLock { $0 = .done }
        running.leave()
    }
}
