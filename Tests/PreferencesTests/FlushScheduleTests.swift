import Dispatch
@testable import Preferences
import Synchronization
import TestSupport
import Testing

/// A background write stays scheduled while it runs: a set made meanwhile queues nothing (so
/// wakes no thread) and is written by one write that the running one queues when it is done.
/// Only a set asks for that write, never what is left pending (issue 37, item 5).
@Suite("Background writes are scheduled once and pick up what came meanwhile", .ownThread)
struct FlushScheduleTests {
    /// A write that counts its runs and holds the first `blockingRuns` of them until released;
    /// and a flag standing for the domain's unwritten changes. Later runs never block, and no
    /// wait here is unbounded: a broken schedule fails the test instead of hanging it and the
    /// process's one flush queue.
    final class Writes: Sendable {
        let blockingRuns: Int
        let runs = Atomic(0)
        let pending = Atomic(false)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        /// When each run started and ended.
        let times = ThreadLock<[(start: ContinuousClock.Instant, end: ContinuousClock.Instant)]>([], rank: .leaf)

        init(blockingRuns: Int) {
            self.blockingRuns = blockingRuns
        }

        /// The write: takes what is pending, waits to be released if it is one of the first
        /// `blockingRuns`, succeeds. Signals `started` and `finished` on every run.
        func write() -> Bool {
            let start = ContinuousClock.now
            pending.store(false, ordering: .sequentiallyConsistent)
            let run = runs.add(1, ordering: .sequentiallyConsistent).newValue
            started.signal()
            if run <= blockingRuns { _ = release.wait(timeout: .now() + 60) }
            times.withLock { $0.append((start, ContinuousClock.now)) }
            finished.signal()
            return true
        }

        /// Whether a run starts within a minute (a generous bound, not a measurement: the
        /// runs expected start at once).
        func runStarts() -> Bool { started.wait(timeout: .now() + 60) == .success }

        /// Lets the running write finish and waits (at most a minute) until it has.
        func finishRun() -> Bool {
            release.signal()
            return finished.wait(timeout: .now() + 60) == .success
        }

        /// A set: records its change, then asks for a write, as `PreferenceStore.trySet` does.
        func set(on schedule: FlushSchedule) {
            pending.store(true, ordering: .sequentiallyConsistent)
            schedule.schedule()
        }
    }

    @Test("sets made while a write runs queue nothing; the write queues one more for all their changes, then none")
    func setsDuringWriteJoinTheNext() throws {
        let writes = Writes(blockingRuns: 3)
        let schedule = FlushSchedule { writes.write() }
        writes.set(on: schedule)
        try #require(writes.runStarts())
        #expect(schedule.queuedWrites == 1)
        // The first write runs. Three sets meanwhile: none queues a write of its own.
        for _ in 0..<3 { writes.set(on: schedule) }
        #expect(schedule.queuedWrites == 1)
        try #require(writes.finishRun())
        // The first write, done, queues one write for all three.
        try #require(writes.runStarts())
        #expect(writes.runs.load(ordering: .sequentiallyConsistent) == 2)
        #expect(schedule.queuedWrites == 2)
        try #require(writes.finishRun())
        // No set came during the second: a set now finds nothing queued and queues the third
        // write itself (had the second queued another, this set would have joined it).
        writes.set(on: schedule)
        try #require(writes.runStarts())
        #expect(schedule.queuedWrites == 3)
        try #require(writes.finishRun())
        FlushSchedule.waitForQueuedWrites()
        #expect(writes.runs.load(ordering: .sequentiallyConsistent) == 3)
        let stillPending = writes.pending.load(ordering: .sequentiallyConsistent)
        #expect(!stillPending)
    }

    /// Back to back, every write took the setting program's core from it now and then; a
    /// program setting in a loop gets a write at most every interval after the last ended
    /// (issue 37, item 5). The bound checked is a lower one: a loaded machine only makes the
    /// second write later.
    @Test("a write asked for by a burst of sets during a write starts no sooner than the interval after that write ended")
    func writesInABurstAreSpaced() throws {
        let writes = Writes(blockingRuns: 1)
        let schedule = FlushSchedule(interval: .milliseconds(200)) { writes.write() }
        writes.set(on: schedule)
        try #require(writes.runStarts())
        for _ in 0..<FlushSchedule.burstSets { writes.set(on: schedule) }
        try #require(writes.finishRun())
        try #require(writes.runStarts())
        try #require(writes.finished.wait(timeout: .now() + 60) == .success)
        let times = writes.times.withLock { $0 }
        try #require(times.count == 2)
        #expect(times[1].start - times[0].end >= .milliseconds(200), "\(times[1].start - times[0].end)")
        #expect(schedule.queuedWrites == 2)
    }

    /// A change made, waited for by another process, then made again (a settings page, the
    /// cross-process benchmark) must not wait out an interval: only a burst of sets made while
    /// a write runs is deferred.
    @Test("a set made while no write is queued or running is written at once, however recently the last write ended")
    func idleScheduleWritesAtOnce() {
        let writes = Writes(blockingRuns: 0)
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
    func fewSetsAreNotABurst() throws {
        let writes = Writes(blockingRuns: 2)
        // An interval no test run outlasts: a write made to wait for it never runs here (and
        // would not block if it did).
        let schedule = FlushSchedule(interval: .seconds(3_600)) { writes.write() }
        writes.set(on: schedule)
        try #require(writes.runStarts())
        for _ in 0..<(FlushSchedule.burstSets - 1) { writes.set(on: schedule) }
        try #require(writes.finishRun())
        #expect(writes.runStarts(), "the write after a few sets waited for the interval")
        for _ in 0..<FlushSchedule.burstSets { writes.set(on: schedule) }
        try #require(writes.finishRun())
        // Absent for half a second, where it would have started at once: a slow machine can
        // only make this pass wrongly, never fail wrongly.
        #expect(writes.started.wait(timeout: .now() + 0.5) == .timedOut, "the write after a burst did not wait")
        #expect(writes.runs.load(ordering: .sequentiallyConsistent) == 2)
        #expect(schedule.queuedWrites == 3)
    }

    @Test("a change still pending after its write (a NaN never equals itself) queues no other write without a set")
    func pendingAloneQueuesNothing() {
        let writes = Writes(blockingRuns: 0)
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
