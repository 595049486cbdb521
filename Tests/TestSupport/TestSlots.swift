import Foundation
import Synchronization

/// A counting semaphore for tests that waits without holding a thread: ``OwnThreadTrait``
/// takes a slot for each test it runs, so only so many blocking tests run at once.
///
/// Waiters suspend (their continuation is kept) and are let in first come, first served.
/// A wait is not cancelled with its task: a test runner's tasks are not cancelled while
/// tests are waiting for a slot, and a waiter that gave up would hand its slot to no one.
package final class TestSlots: Sendable {
    private struct State {
        var free: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// Slots for `count` holders at once.
    package init(count: Int) {
        precondition(count > 0, "a semaphore without slots would never let anyone in")
        state = Mutex(State(free: count))
    }

    /// How many callers are waiting for a slot.
    package var waiting: Int { state.withLock { $0.waiters.count } }

    /// Takes a slot, suspending until one is free.
    package func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state in
                guard state.free > 0 else {
                    state.waiters.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    /// Gives a slot back: to the longest waiter, if any.
    package func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }

    /// Runs `body` holding a slot.
    package func withSlot<Value>(_ body: () async throws -> Value) async rethrows -> Value {
        await acquire()
        defer { release() }
        return try await body()
    }
}
