import Dispatch
@testable import Preferences
import Synchronization
import Testing

/// A background write stays scheduled while it runs: a set made meanwhile queues nothing (so
/// wakes no thread) and is written by one write that the running one queues when it is done.
/// Only a set asks for that write, never what is left pending (issue 37, item 5).
@Suite("Background writes are scheduled once and pick up what came meanwhile")
struct FlushScheduleTests {
    /// A write that counts its runs and, if `blocks`, waits in its first run until released;
    /// and a flag standing for the domain's unwritten changes.
    final class Writes: Sendable {
        let blocks: Bool
        let runs = Atomic(0)
        let pending = Atomic(false)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)

        init(blocks: Bool) {
            self.blocks = blocks
        }

        /// The write: takes what is pending, waits to be released if it blocks, succeeds.
        func write() -> Bool {
            pending.store(false, ordering: .sequentiallyConsistent)
            runs.add(1, ordering: .sequentiallyConsistent)
            if blocks {
                started.signal()
                release.wait()
                finished.signal()
            }
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
        let writes = Writes(blocks: true)
        let schedule = FlushSchedule { writes.write() }
        writes.set(on: schedule)
        writes.started.wait()
        #expect(schedule.queuedWrites == 1)
        // The first write runs. Three sets meanwhile: none queues a write of its own.
        for _ in 0..<3 { writes.set(on: schedule) }
        #expect(schedule.queuedWrites == 1)
        writes.release.signal()
        writes.finished.wait()
        // The first write, done, queues one write for all three.
        writes.started.wait()
        #expect(writes.runs.load(ordering: .sequentiallyConsistent) == 2)
        #expect(schedule.queuedWrites == 2)
        writes.release.signal()
        writes.finished.wait()
        // No set came during the second: a set now finds nothing queued and queues the third
        // write itself (had the second queued another, this set would have joined it).
        writes.set(on: schedule)
        writes.started.wait()
        #expect(schedule.queuedWrites == 3)
        writes.release.signal()
        writes.finished.wait()
        FlushSchedule.waitForQueuedWrites()
        #expect(writes.runs.load(ordering: .sequentiallyConsistent) == 3)
        let stillPending = writes.pending.load(ordering: .sequentiallyConsistent)
        #expect(!stillPending)
    }

    @Test("a change still pending after its write (a NaN never equals itself) queues no other write without a set")
    func pendingAloneQueuesNothing() {
        let writes = Writes(blocks: false)
        let schedule = FlushSchedule {
            _ = writes.write()
            // The write leaves the change pending, as one of a NaN is left: `pending[key] ==
            // value` is never true for it.
            writes.pending.store(true, ordering: .sequentiallyConsistent)
            return true
        }
        writes.set(on: schedule)
        FlushSchedule.waitForQueuedWrites()
        FlushSchedule.waitForQueuedWrites()
        #expect(writes.runs.load(ordering: .sequentiallyConsistent) == 1)
        #expect(schedule.queuedWrites == 1)
    }
}
