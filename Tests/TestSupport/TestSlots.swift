import Foundation
import Synchronization

/// A counting semaphore for tests that waits without holding a thread: ``OwnThreadTrait``
/// takes a slot for each test it runs, so only so many blocking tests run at once.
///
/// Waiters suspend (their continuation is kept) and are let in first come, first served. A
/// waiter whose task is cancelled (a test's `.timeLimit` passed, say) stops waiting and
/// throws `CancellationError`, so a test that can never get a slot fails instead of hanging
/// the run.
package final class TestSlots: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var free: Int
        var waiters: [Waiter] = []
        var lastID: UInt64 = 0
    }

    private let state: Mutex<State>

    /// Slots for `count` holders at once.
    package init(count: Int) {
        precondition(count > 0, "a semaphore without slots would never let anyone in")
        state = Mutex(State(free: count))
    }

    /// How many callers are waiting for a slot.
    package var waiting: Int { state.withLock { $0.waiters.count } }

    /// How many slots no one holds.
    package var free: Int { state.withLock { $0.free } }

    /// Takes a slot, suspending until one is free.
    ///
    /// - Throws: `CancellationError` if the task is cancelled before it gets one; it then
    ///   holds none.
    package func acquire() async throws {
        let id = state.withLock { state in
            state.lastID += 1
            return state.lastID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case admitted, waiting, cancelled }
                // Under the lock the cancellation handler takes too: the task is marked
                // cancelled before its handler runs, so either the handler finds this waiter
                // queued or this check sees the mark.
                let outcome = state.withLock { state -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    guard state.free > 0 else {
                        state.waiters.append(Waiter(id: id, continuation: continuation))
                        return .waiting
                    }
                    state.free -= 1
                    return .admitted
                }
                switch outcome {
                case .admitted: continuation.resume()
                case .waiting: break
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Gives a slot back: to the longest waiter, if any.
    package func release() {
        let next = state.withLock { state -> Waiter? in
            guard !state.waiters.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.continuation.resume()
    }

    /// Runs `body` holding a slot.
    ///
    /// - Throws: `CancellationError` if cancelled while waiting for the slot; otherwise what
    ///   `body` throws.
    package func withSlot<Value>(_ body: () async throws -> Value) async throws -> Value {
        try await acquire()
        defer { release() }
        return try await body()
    }
}
