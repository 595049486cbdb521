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

        /// When each run started and ended.
        let times = ThreadLock<[(start: ContinuousClock.Instant, end: ContinuousClock.Instant)]>([], rank: .leaf)

        /// The write: takes what is pending, waits to be released if it blocks, succeeds.
        func write() -> Bool {
            let start = ContinuousClock.now
            pending.store(false, ordering: .sequentiallyConsistent)
            runs.add(1, ordering: .sequentiallyConsistent)
            if blocks {
                started.signal()
                release.wait()
            }
            times.withLock { $0.append((start, ContinuousClock.now)) }
            if blocks { finished.signal() }
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

    /// Back to back, every write took the setting program's core from it now and then; a
    /// program setting in a loop gets one write per interval (issue 37, item 5). The bound
    /// checked is a lower one: a loaded machine only makes the second write later.
    @Test("a write asked for by a burst of sets during a write starts no sooner than the interval after that write ended")
    func writesInABurstAreSpaced() {
        let writes = Writes(blocks: true)
        let schedule = FlushSchedule(interval: .milliseconds(200)) { writes.write() }
        writes.set(on: schedule)
        writes.started.wait()
        for _ in 0..<FlushSchedule.burstSets { writes.set(on: schedule) }
        writes.release.signal()
        writes.finished.wait()
        writes.started.wait()
        writes.release.signal()
        writes.finished.wait()
        let times = writes.times.withLock { $0 }
        #expect(times.count == 2)
        if times.count == 2 {
            #expect(times[1].start - times[0].end >= .milliseconds(200), "\(times[1].start - times[0].end)")
        }
        #expect(schedule.queuedWrites == 2)
    }

    /// A change made, waited for by another process, then made again (a settings page, the
    /// cross-process benchmark) must not wait out an interval: only sets that find a write
    /// running are deferred.
    @Test("a set made while no write is queued or running is written at once, however recently the last write ended")
    func idleScheduleWritesAtOnce() {
        let writes = Writes(blocks: false)
        // An interval no test run outlasts: a write made to wait for it would never run here.
        let schedule = FlushSchedule(interval: .seconds(3_600)) { writes.write() }
        for round in 1...3 {
            writes.set(on: schedule)
            FlushSchedule.waitForQueuedWrites()
            // A write made to wait for the interval would not be on the queue yet.
            #expect(writes.runs.load(ordering: .sequentiallyConsistent) == round, "write \(round) waited")
        }
        #expect(schedule.queuedWrites == 3)
    }

    /// The cross-process benchmark's pattern: a change, waited for by another process, which
    /// sees it at the rename, then the next change, while the last write is still finishing.
    @Test("a few sets made while a write runs are written right after it; a burst waits for the interval")
    func fewSetsAreNotABurst() {
        let writes = Writes(blocks: true)
        // An interval no test run outlasts: a write made to wait for it never runs here.
        let schedule = FlushSchedule(interval: .seconds(3_600)) { writes.write() }
        writes.set(on: schedule)
        writes.started.wait()
        for _ in 0..<(FlushSchedule.burstSets - 1) { writes.set(on: schedule) }
        writes.release.signal()
        writes.finished.wait()
        #expect(writes.started.wait(timeout: .now() + 60) == .success, "the write after a few sets waited for the interval")
        for _ in 0..<FlushSchedule.burstSets { writes.set(on: schedule) }
        writes.release.signal()
        writes.finished.wait()
        FlushSchedule.waitForQueuedWrites()
        #expect(writes.runs.load(ordering: .sequentiallyConsistent) == 2, "the write after a burst did not wait")
        #expect(schedule.queuedWrites == 3)
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
