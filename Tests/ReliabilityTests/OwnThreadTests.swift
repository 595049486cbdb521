import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// The rule that keeps the test suite itself reliable: a test that blocks its thread does so
/// on threads of its own (`.ownThread`), never on the cooperative pool every test's tasks
/// share, and test support's blocking waits say so when a test breaks the rule.
@Suite("Tests that block run on threads of their own")
struct OwnThreadTests {
    /// More child tasks than the cooperative pool has threads, each blocked until all have
    /// started: on the pool, or on any one thread, the last could never start, so the wait
    /// would end at its bound with the barrier unmet. On ``OwnThreadExecutor`` each blocked
    /// job has a thread.
    @Test("under .ownThread, more blocking child tasks than there are cores all run at once", .ownThread)
    func blockingChildrenRunSideBySide() async {
        #expect(OwnThreadExecutor.isCurrent)
        let parties = ProcessInfo.processInfo.activeProcessorCount + 2
        let barrier = Barrier(parties: parties)
        // One bound for all (a deadlock would otherwise hang the run), not a timing check.
        let deadline = Date().addingTimeInterval(60)
        let met = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<parties {
                group.addTask { OwnThreadExecutor.isCurrent && barrier.arriveAndWait(until: deadline) }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(met, "every child ran on a thread of its own and all \(parties) met")
        // Blocking here is allowed, so the check records nothing (an issue would fail the test).
        BlockingWait.check("a wait under .ownThread")
    }

    @Test("without it, a blocking wait inside a task is an issue naming what blocked")
    func blockingOnThePoolIsAnIssue() {
        #expect(!OwnThreadExecutor.isCurrent)
        withKnownIssue {
            BlockingWait.check("waiting for a program to exit")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("waiting for a program to exit blocks a thread") }
        }
    }

    /// What bounds how many tests run under `.ownThread` at once.
    @Test("test slots: a waiter gets in only when a holder lets go, the longest waiter first")
    func slotsAdmitInTurn() async throws {
        let slots = TestSlots(count: 2)
        try await slots.acquire()
        try await slots.acquire()
        let admitted = Admissions()
        // Each waiter is queued before the next starts, so the order they wait in is known.
        let first = Task {
            try await slots.acquire()
            admitted.append("first")
        }
        #expect(await eventually { slots.waiting == 1 })
        let second = Task {
            try await slots.acquire()
            admitted.append("second")
        }
        #expect(await eventually { slots.waiting == 2 })
        #expect(admitted.names.isEmpty, "both slots are held")

        // Waited for by what they record, not by awaiting the tasks: a waiter left waiting
        // would hang the test instead of failing it.
        slots.release()
        #expect(await eventually { admitted.names.count == 1 })
        #expect(admitted.names == ["first"])
        #expect(slots.waiting == 1)
        slots.release()
        #expect(await eventually { admitted.names.count == 2 })
        #expect(admitted.names == ["first", "second"])
        guard admitted.names.count == 2 else { return }
        try await first.value
        try await second.value

        // With no one waiting, a release frees a slot for the next to come.
        slots.release()
        let third = Task {
            try await slots.acquire()
            admitted.append("third")
        }
        #expect(await eventually { admitted.names.count == 3 })
        #expect(slots.waiting == 0)
        if admitted.names.count == 3 { try await third.value }
    }

    @Test("a test slot's waiter whose task is cancelled stops waiting, throws, and holds no slot")
    func cancelledWaiter() async throws {
        let slots = TestSlots(count: 1)
        try await slots.acquire()
        let outcomes = Admissions()
        /// Takes a slot and records what came of it, as `name` or `name cancelled`.
        @Sendable func take(_ name: String) async {
            do {
                try await slots.acquire()
                outcomes.append(name)
            } catch {
                outcomes.append("\(name) \(error is CancellationError ? "cancelled" : "failed: \(error)")")
            }
        }
        // Waited for by what they record: a waiter left waiting would hang the test.
        let waiter = Task { await take("waiter") }
        #expect(await eventually { slots.waiting == 1 })
        waiter.cancel()
        #expect(await eventually { outcomes.names == ["waiter cancelled"] }, "\(outcomes.names)")
        #expect(slots.waiting == 0)
        // The slot is still the first holder's: given back, the next caller gets it.
        slots.release()
        let next = Task { await take("next") }
        #expect(await eventually { outcomes.names.count == 2 })
        #expect(outcomes.names == ["waiter cancelled", "next"])
        // The cancelled waiter left no slot behind: the one after next waits for next's.
        let later = Task { await take("later") }
        #expect(await eventually { slots.waiting == 1 })
        #expect(outcomes.names.count == 2)
        slots.release()
        #expect(await eventually { outcomes.names.count == 3 })
        // A task cancelled before it asks does not wait either.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await take("early")
        }
        #expect(await eventually { outcomes.names.count == 4 })
        #expect(outcomes.names == ["waiter cancelled", "next", "later", "early cancelled"])
        if outcomes.names.count == 4 {
            await waiter.value
            await next.value
            await later.value
            await early.value
        }
    }

    /// Five scopes of a trait with two slots, started at once by this test (not by the test
    /// runner, whose parallelism may be limited): each stays until more than two are inside
    /// (which only a missing bound allows) or half a second has passed, so that they overlap.
    @Test("the trait runs no more tests at once than it has slots, and gives each slot back")
    func boundedBySlots() async throws {
        let test = try #require(Test.current)
        let slots = TestSlots(count: 2)
        let occupancy = Occupancy()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    try await OwnThreadTrait(slots: slots).provideScope(for: test, testCase: nil) {
                        occupancy.enter()
                        _ = await eventually(within: .milliseconds(500)) { occupancy.now > 2 }
                        occupancy.leave()
                    }
                }
            }
            // A slot never given back would leave the later scopes waiting for ever: bounded,
            // then cancelled.
            let finished = await eventually { occupancy.left == 5 }
            #expect(finished, "\(occupancy.left) of 5 scopes ran")
            if !finished { group.cancelAll() }
            try await group.waitForAll()
        }
        #expect(occupancy.most <= 2, "\(occupancy.most) scopes ran at once")
        #expect(slots.free == 2 && slots.waiting == 0)
    }

    /// Nested deeper than there are slots: a scope that took a slot of its own at each level
    /// would wait for itself for ever. The wait is bounded from here, once the test holds its
    /// slot (a `.timeLimit` would count the time it queued for it), and then cancelled.
    @Test("a test given the trait's scope more than once takes one slot", .ownThread)
    func nestedScopesTakeOneSlot() async throws {
        let test = try #require(Test.current)
        let finished = Admissions()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await Self.nest(OwnThreadTrait.concurrentTests + 1, in: test)
                    finished.append("nested")
                } catch {
                    finished.append("failed: \(error)")
                }
            }
            let ended = await eventually { !finished.names.isEmpty }
            #expect(finished.names == ["nested"], "a nested scope waited for a slot of its own, or failed")
            if !ended { group.cancelAll() }
            try await group.waitForAll()
        }
    }

    private static func nest(_ depth: Int, in test: Test) async throws {
        guard depth > 0 else { return }
        try await OwnThreadTrait().provideScope(for: test, testCase: nil) {
            #expect(OwnThreadExecutor.isCurrent)
            try await nest(depth - 1, in: test)
        }
    }

    @Test("code outside any task may block: a dispatch queue's callback records nothing")
    func outsideTasksMayBlock() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                BlockingWait.check("a wait on a dispatch queue")
                continuation.resume()
            }
        }
    }
}

/// How many scopes are inside now, the most at once, and how many have left.
private final class Occupancy: Sendable {
    private let state = Mutex<(now: Int, most: Int, left: Int)>((0, 0, 0))

    var now: Int { state.withLock { $0.now } }
    var most: Int { state.withLock { $0.most } }
    var left: Int { state.withLock { $0.left } }

    func enter() { state.withLock { $0.now += 1; $0.most = max($0.most, $0.now) } }
    func leave() { state.withLock { $0.now -= 1; $0.left += 1 } }
}

/// Who got a slot, in order.
private final class Admissions: Sendable {
    private let admitted = Mutex<[String]>([])

    var names: [String] { admitted.withLock { $0 } }

    func append(_ name: String) { admitted.withLock { $0.append(name) } }
}

/// Waits until `parties` callers have arrived.
private final class Barrier: @unchecked Sendable {
    // `arrived` is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var arrived = 0
    private let parties: Int

    init(parties: Int) { self.parties = parties }

    /// Arrives and blocks until every party has; false if `deadline` passed first.
    func arriveAndWait(until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        while arrived < parties {
            if !condition.wait(until: deadline) { return arrived >= parties }
        }
        return true
    }
}
