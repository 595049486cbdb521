import Dispatch
import Foundation
import Glibc
package import Testing

/// A task executor for tests that block their thread (waiting for a program to exit,
/// running `etcdctl`, sleeping between polls): each job it is given runs on a thread that
/// may block without holding up any other test.
///
/// The test runner's tasks share Swift's cooperative pool, which has one thread per core
/// (on Linux these are the threads of `DispatchQueue.global()` too). A synchronous test runs
/// on one of them, and so does an `async` test that calls a blocking function; while as many
/// tests block as there are cores, every other test in the process waits, however little it
/// has to do: long enough, once, for etcd to expire a lease a test had just renewed
/// (RELIABILITY.md, bug 12). Under ``OwnThreadTrait`` a test's jobs run here instead.
///
/// Each job goes to a serial dispatch queue of its own. Serial queues overcommit: libdispatch
/// gives one a thread whenever it has work, from a pool of its own that grows while threads
/// block (up to its limit of 255) and keeps idle threads for the next. So the jobs of a
/// test's child tasks still run side by side, as on the pool: one child blocking never stops
/// another from running. A task's jobs never overlap: the runtime enqueues its next job only
/// once the last one has returned.
package final class OwnThreadExecutor: TaskExecutor {
    /// An executor for one test.
    package init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        DispatchQueue(label: "swift-preferences.test-job").async {
            // Marked on the thread, not the queue: a `sync` on another queue inside the job
            // still runs on this thread, and may block as freely.
            pthread_setspecific(Self.marker, Self.markerValue)
            defer { pthread_setspecific(Self.marker, nil) }
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }

    /// Whether the calling code runs on one of this type's threads, inside a job.
    package static var isCurrent: Bool { pthread_getspecific(marker) != nil }

    private static let marker: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()
    private static var markerValue: UnsafeRawPointer? { UnsafeRawPointer(bitPattern: 1) }
}

/// Runs `body` on a new thread of its own and returns what it returns, suspending meanwhile:
/// for blocking work in code that serves many tests (starting and stopping an etcd cluster
/// for a suite), which has no test of its own to put under ``OwnThreadTrait``.
/// `DispatchQueue.global()` would not do: on Linux its threads are the cooperative pool's.
package func onThreadOfItsOwn<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Runs each test of a suite (or one test) with an ``OwnThreadExecutor`` as its task executor
/// preference, so what it blocks is a thread of its own, never the cooperative pool.
///
/// The test's own code and every child task it starts (`async let`, task groups) run there;
/// an unstructured `Task {}` does not inherit the preference and runs on the pool as usual.
/// ``BlockingWait/check(_:)`` fails a test that blocks without it.
///
/// At most ``concurrentTests`` test cases run under it at once; the rest wait for a slot
/// without holding a thread. The test runner starts every test at once, and unbounded,
/// the suites that block (most run programs: writer processes, etcd, strace) ran so many
/// programs and threads at once that tests waiting a bounded time for a watcher or a lock
/// timed out (RELIABILITY.md, bug 13). Tests without the trait are not held back: they
/// run on the cooperative pool as before. The runner starts a test's clock, and any
/// `.timeLimit`, before the trait's scope, so time spent waiting for a slot counts in both.
package struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    package var isRecursive: Bool { true }

    /// The slots this trait's tests take.
    private let slots: TestSlots

    /// The trait (``Trait/ownThread`` in a test's traits), with the process's slots.
    package init() { slots = Self.sharedSlots }

    /// The trait with slots of its own: for tests of the trait itself, whose bound then
    /// does not depend on what other tests hold.
    package init(slots: TestSlots) { self.slots = slots }

    /// How many test cases run under the trait at once in a test process: three per core,
    /// at least six. Blocking tests spend most of their time waiting for other processes, so
    /// more than one per core keeps the cores busy; the cooperative pool, which ran them
    /// before the trait, allowed one per core and starved every other test meanwhile.
    package static let concurrentTests = max(6, 3 * ProcessInfo.processInfo.activeProcessorCount)

    /// The process's slots, shared by every suite with the trait.
    private static let sharedSlots = TestSlots(count: concurrentTests)

    /// Whether the current task already holds a slot: a test whose suite and enclosing
    /// suite both carry the trait is asked for a scope by each, and must take one slot, not
    /// wait for a second while holding the first.
    @TaskLocal private static var holdsSlot = false

    /// Swift Testing asks a recursive suite trait for each test case's scope, never the
    /// suite's, so this runs once per test case (per trait that applies to it).
    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @concurrent @Sendable () async throws -> Void
    ) async throws {
        guard !Self.holdsSlot else {
            try await function()
            return
        }
        try await slots.withSlot {
            try await Self.$holdsSlot.withValue(true) {
                try await withTaskExecutorPreference(OwnThreadExecutor()) {
                    try await function()
                }
            }
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
    /// Records an issue naming `what` when a test blocks a thread of the cooperative pool:
    /// the caller runs inside a test's task and not on an ``OwnThreadExecutor``. Code outside
    /// any task (a thread a test started) may block as it likes; so may the runner's planning
    /// (an `.enabled(if:)` condition that probes once), which has no test to fail.
    package static func check(_ what: @autoclosure () -> String) {
        guard !OwnThreadExecutor.isCurrent, Test.current != nil, withUnsafeCurrentTask(body: { $0 != nil }) else { return }
        Issue.record(
            "\(what()) blocks a thread the test runner's tasks share; give the suite the .ownThread trait, or await the async form")
    }
}
