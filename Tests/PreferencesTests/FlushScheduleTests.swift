import Dispatch
@testable import Preferences
import Synchronization
import Testing

/// A background write stays scheduled while it runs, and queues the next itself when changes
/// came meanwhile: a set made during a write queues nothing (so wakes no thread), and its change
/// is still written (issue 37, item 5).
@Suite("Background writes are scheduled once and pick up what came meanwhile")
struct FlushScheduleTests {
    /// A write that blocks until released, counting its runs, and a pending flag standing for
    /// the domain's unwritten changes.
    final class Writes: Sendable {
        let runs = Atomic(0)
        let pending = Atomic(false)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)

        /// The write: takes what is pending, waits to be released, succeeds.
        func write() -> Bool {
            pending.store(false, ordering: .sequentiallyConsistent)
            runs.add(1, ordering: .sequentiallyConsistent)
            started.signal()
            release.wait()
            finished.signal()
            return true
        }

        /// A set: records its change, then asks for a write, as `PreferenceStore.trySet` does.
        func set(on schedule: FlushSchedule) {
            pending.store(true, ordering: .sequentiallyConsistent)
            schedule.schedule()
        }
    }

    @Test("sets made while a write runs queue nothing; the write queues one more for all their changes, then none")
    func setsDuringWriteJoinTheNext() {
        let writes = Writes()
        let schedule = FlushSchedule(write: { writes.write() }, hasWork: { writes.pending.load(ordering: .sequentiallyConsistent) })
        writes.set(on: schedule)
        writes.started.wait()
        #expect(schedule.queuedWrites == 1)
        // The first write runs. Three sets meanwhile: none queues a write of its own.
        for _ in 0..<3 { writes.set(on: schedule) }
        #expect(schedule.queuedWrites == 1)
        writes.release.signal()
        writes.finished.wait()
        // The first write, done, finds their changes and queues one write for all three.
        writes.started.wait()
        #expect(writes.runs.load(ordering: .sequentiallyConsistent) == 2)
        #expect(schedule.queuedWrites == 2)
        writes.release.signal()
        writes.finished.wait()
        // Nothing was pending after the second: a set now finds nothing queued and queues the
        // third write itself (had the second queued another, this set would have joined it).
        writes.set(on: schedule)
        writes.started.wait()
        #expect(schedule.queuedWrites == 3)
        writes.release.signal()
        writes.finished.wait()
        #expect(writes.runs.load(ordering: .sequentiallyConsistent) == 3)
        let stillPending = writes.pending.load(ordering: .sequentiallyConsistent)
        #expect(!stillPending)
    }
}
