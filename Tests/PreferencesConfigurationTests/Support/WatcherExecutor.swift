import Dispatch

/// A task executor with a thread of its own, for the tasks that consume watch updates.
///
/// The whole test run shares one small cooperative pool (2 threads on a 2-core machine),
/// and other suites block pool threads while they wait for child processes. A watcher
/// task on that pool could then be scheduled seconds late, and the test would time the
/// pool instead of the provider. Running the consumer here keeps the recorded arrival
/// times honest.
final class WatcherExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "PreferencesConfigurationTests.watcher")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// One for the whole run: the queue is serial, and each test's consumers only wait.
    static let shared = WatcherExecutor()
}
