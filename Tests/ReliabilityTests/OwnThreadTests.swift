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
    func slotsAdmitInTurn() async {
        let slots = TestSlots(count: 2)
        await slots.acquire()
        await slots.acquire()
        let admitted = Admissions()
        // Each waiter is queued before the next starts, so the order they wait in is known.
        let first = Task {
            await slots.acquire()
            admitted.append("first")
        }
        #expect(await waitingFor { slots.waiting == 1 })
        let second = Task {
            await slots.acquire()
            admitted.append("second")
        }
        #expect(await waitingFor { slots.waiting == 2 })
        #expect(admitted.names.isEmpty, "both slots are held")

        // Waited for by what they record, not by awaiting the tasks: a waiter left waiting
        // would hang the test instead of failing it.
        slots.release()
        #expect(await waitingFor { admitted.names.count == 1 })
        #expect(admitted.names == ["first"])
        #expect(slots.waiting == 1)
        slots.release()
        #expect(await waitingFor { admitted.names.count == 2 })
        #expect(admitted.names == ["first", "second"])
        guard admitted.names.count == 2 else { return }
        await first.value
        await second.value

        // With no one waiting, a release frees a slot for the next to come.
        slots.release()
        let third = Task {
            await slots.acquire()
            admitted.append("third")
        }
        #expect(await waitingFor { admitted.names.count == 3 })
        #expect(slots.waiting == 0)
        if admitted.names.count == 3 { await third.value }
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

/// Who got a slot, in order.
private final class Admissions: Sendable {
    private let admitted = Mutex<[String]>([])

    var names: [String] { admitted.withLock { $0 } }

    func append(_ name: String) { admitted.withLock { $0.append(name) } }
}

/// Polls `condition` without holding a thread until it holds; false after a minute, a bound
/// for a hang only.
private func waitingFor(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(60)
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
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
