import Foundation
import Synchronization

/// A task executor with a thread of its own, for the tasks that consume watch updates.
///
/// The whole test run shares one small cooperative pool (a thread per core), busy with
/// every other test's work. A watcher task on that pool could be scheduled late, and the
/// test would time the pool instead of the provider. So this is a plain thread running
/// jobs in order, as soon as they come.
final class WatcherExecutor: TaskExecutor {
    private let jobs = Mutex<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in
            while true {
                available.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
        thread.name = "PreferencesConfigurationTests.watcher"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    /// One for the whole run: each test's consumers mostly wait, so one thread serves all.
    static let shared = WatcherExecutor()
}
