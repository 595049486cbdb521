import Dispatch
package import Testing

/// A task executor for tests that block their thread (waiting for a program to exit,
/// running `etcdctl`, sleeping between polls): each job it is given runs on a thread that
/// may block without holding up any other test.
///
/// The test runner's tasks share Swift's cooperative pool, which has one thread per core:
/// two on the machines CI uses. A synchronous test runs on one of them, and so does an
/// `async` test that calls a blocking function; while two tests block, every other test in
/// the process waits, however little it has to do. In the tools' tests that held most tests
/// up for seconds, once long enough between renewing an etcd lease and reading the key it
/// kept that etcd expired the lease, as it should (RELIABILITY.md, bug 12). Under
/// ``OwnThreadTrait`` a test's jobs run here instead.
///
/// Each job goes to a serial dispatch queue of its own: libdispatch gives such a queue a
/// thread whenever it has work, however many others are blocked (serial queues overcommit),
/// and keeps idle threads for the next. So the jobs of a test's child tasks still run side
/// by side, as on the pool: one child blocking never stops another from running.
package final class OwnThreadExecutor: TaskExecutor {
    /// An executor for one test.
    package init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queue = DispatchQueue(label: "swift-preferences.test-job")
        queue.setSpecific(key: Self.marker, value: ())
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Whether the calling code runs on one of this type's threads.
    package static var isCurrent: Bool { DispatchQueue.getSpecific(key: marker) != nil }

    private static let marker = DispatchSpecificKey<Void>()
}

/// Runs each test of a suite (or one test) with an ``OwnThreadExecutor`` as its task executor
/// preference, so what it blocks is a thread of its own, never the cooperative pool.
///
/// The test's own code and every child task it starts (`async let`, task groups) run there;
/// an unstructured `Task {}` does not inherit the preference and runs on the pool as usual.
/// ``BlockingWait/check(_:)`` fails a test that blocks without it.
package struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @concurrent @Sendable () async throws -> Void
    ) async throws {
        // A suite's scope holds its tests, which would all inherit one preference; each test
        // gets its own instead.
        guard !test.isSuite else { return try await function() }
        try await withTaskExecutorPreference(OwnThreadExecutor()) {
            try await function()
        }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Runs each test on threads of its own (``OwnThreadTrait``): for suites whose tests
    /// block a thread, such as those that run a program and wait for it.
    package static var ownThread: Self { OwnThreadTrait() }
}

/// The rule every blocking wait in test support checks: inside a task, it runs on an
/// ``OwnThreadExecutor``.
package enum BlockingWait {
    /// Records an issue naming `what` when the caller blocks a thread of the cooperative
    /// pool: it runs inside a task that is not on an ``OwnThreadExecutor``. Code outside any
    /// task (a thread a test started, a dispatch queue's callback) may block as it likes.
    package static func check(_ what: @autoclosure () -> String) {
        guard !OwnThreadExecutor.isCurrent, withUnsafeCurrentTask(body: { $0 != nil }) else { return }
        Issue.record(
            "\(what()) blocks a thread the test runner's tasks share; give the suite the .ownThread trait, or await the async form")
    }
}
