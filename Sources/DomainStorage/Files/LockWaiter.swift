import Dispatch
import Foundation
package import SystemPackage

/// A thread blocked in `flock(LOCK_EX)` on a busy lock file for a caller that waits for it
/// with a deadline.
///
/// Why a thread: a blocking `flock` is woken by the kernel the moment the holder releases
/// the lock (or dies), so a waiter competes for a released lock at once; the polling it
/// replaces slept up to 50 ms between attempts, and a writer that unlocked and relocked
/// in the meantime almost always won, so a waiter could starve past its timeout. But a
/// blocking `flock` has no timeout, and only a signal interrupts one
/// (closing the descriptor does not), which would mean installing a signal handler in
/// the host program; the same holds for `F_OFD_SETLKW`. So the blocking call runs here,
/// on a thread of its own, and the caller waits on a semaphore with its deadline.
///
/// This is fairer than polling, not first-come-first-served: the kernel wakes the blocked
/// waiters on release, but grants the lock to whoever asks first after that, which may
/// be a newcomer or the process that just released it.
///
/// A caller that times out abandons the waiter, which stays blocked; when it finally gets
/// the lock it releases it at once and closes its descriptor, so an abandoned wait never
/// holds the lock for longer than an instant. To keep a long-stopped holder from piling up
/// one blocked thread per retry, an abandoned waiter is kept in a table by lock file path,
/// and the next caller for the same lock file adopts it instead of starting another: there
/// is at most one abandoned waiter per lock file and process.
package final class LockWaiter: Sendable {
    /// Where the wait stands; guarded by `state`.
    private enum Phase {
        /// The thread is blocked in `flock`.
        case waiting
        /// The thread took the lock for its caller, who now owns the descriptor.
        case locked
        /// `flock` failed with this error; the caller owns (and closes) the descriptor.
        case failed(Errno)
        /// The thread took the lock after its caller gave up, and released it.
        case released
    }

    private struct State {
        var phase = Phase.waiting
        /// True while no caller waits for the lock: whoever finishes the wait then
        /// releases the lock and closes the descriptor.
        var isAbandoned = false
    }

    /// The lock file's open descriptor, locked by the thread.
    private let descriptor: FileDescriptor
    /// The lock file, to find the waiter again after it was abandoned.
    private let path: String
    /// The lock file's inode, so an adopting caller knows it is the file it opened.
    private let inode: (device: UInt64, number: UInt64)
    private let state = ThreadLock(State(), rank: .lockWaiter)
    /// Signalled once, when `flock` returns for a caller still waiting.
    private let finished = DispatchSemaphore(value: 0)

    /// This process's waiters, by lock file path.
    private struct Table {
        /// Abandoned waiters still blocked: at most one per lock file.
        var abandoned: [String: LockWaiter] = [:]
        /// How many threads are blocked in `flock` on each lock file.
        var blocked: [String: Int] = [:]
    }

    private static let table = ThreadLock(Table(), rank: .lockWaiterTable)

    private init(descriptor: FileDescriptor, path: String, inode: (device: UInt64, number: UInt64)) {
        self.descriptor = descriptor
        self.path = path
        self.inode = inode
    }

    /// Waits until `descriptor` (an open, busy lock file) is exclusively locked, or the
    /// deadline passes.
    ///
    /// Takes ownership of `descriptor` in every case: the caller must not use or close it
    /// after the call, only the descriptor returned.
    ///
    /// - Parameter inode: The lock file's device and inode numbers, from `fstat` of
    ///   `descriptor`.
    /// - Returns: `.locked` with the locked descriptor: `descriptor`, or the descriptor of
    ///   an abandoned waiter on the same lock file that this call adopted (closing
    ///   `descriptor`);
    ///   `.timedOut` if the deadline passed first, `.failed` with `flock`'s error.
    package static func lock(
        _ descriptor: FileDescriptor, path: String, inode: (device: UInt64, number: UInt64),
        deadline: ContinuousClock.Instant
    ) -> Outcome {
        if let adopted = adopt(path: path, inode: inode) {
            try? descriptor.close()
            return adopted.wait(until: deadline)
        }
        let waiter = LockWaiter(descriptor: descriptor, path: path, inode: inode)
        table.withLock { $0.blocked[path, default: 0] += 1 }
        let thread = Thread {
            // Set from outside before start(), Foundation's name never reached the system.
            SystemCalls.nameCurrentThread("prefs-lock-wait")
            waiter.block()
        }
        // The thread only calls flock and a few bookkeeping lines.
        thread.stackSize = 256 * 1024
        thread.start()
        return waiter.wait(until: deadline)
    }

    /// What a wait came to.
    package enum Outcome {
        /// The lock is held through this descriptor, which the caller now owns.
        case locked(FileDescriptor)
        /// The deadline passed; the lock is still busy.
        case timedOut
        /// `flock` failed.
        case failed(Errno)
    }

    /// How many threads of this process are blocked in `flock` on the lock file at `path`,
    /// for callers waiting now or abandoned.
    package static func blockedThreads(path: String) -> Int {
        table.withLock { $0.blocked[path] ?? 0 }
    }

    /// Takes the abandoned waiter on this lock file out of the table, if there is one still
    /// blocked, and makes it wait for the calling thread again.
    private static func adopt(path: String, inode: (device: UInt64, number: UInt64)) -> LockWaiter? {
        guard let waiter = table.withLock({ $0.abandoned.removeValue(forKey: path) }) else { return nil }
        guard waiter.inode == inode else {
            // The lock file was replaced (it never should be); that waiter releases what
            // it gets by itself, and this caller locks the file it opened.
            return nil
        }
        let adopted = waiter.state.withLock { state -> Bool in
            guard case .waiting = state.phase else { return false }
            state.isAbandoned = false
            return true
        }
        return adopted ? waiter : nil
    }

    /// The thread's work: block in `flock`, then hand the lock over or give it back.
    private func block() {
        let phase: Phase
        do {
            try SystemCalls.lockExclusively(descriptor)
            phase = .locked
        } catch {
            phase = .failed(error)
        }
        Self.table.withLock { table in
            table.blocked[path, default: 1] -= 1
            if table.blocked[path] == 0 { table.blocked[path] = nil }
        }
        let isAbandoned = state.withLock { state -> Bool in
            if state.isAbandoned {
                state.phase = .released
            } else {
                state.phase = phase
            }
            return state.isAbandoned
        }
        guard isAbandoned else {
            finished.signal()
            return
        }
        // Nobody waits: give the lock back at once and forget the waiter.
        try? SystemCalls.unlock(descriptor)
        try? descriptor.close()
        Self.table.withLock { table in
            if table.abandoned[path] === self { table.abandoned[path] = nil }
        }
    }

    /// Waits for the thread's `flock` until the deadline; abandons the waiter if it passes.
    private func wait(until deadline: ContinuousClock.Instant) -> Outcome {
        // Capped at a day per wait (`now(after:)`); an hour-long lock timeout is already absurd.
        _ = finished.wait(timeout: .now(after: ContinuousClock.now.duration(to: deadline)))
        // Whether or not the semaphore said so, the state decides: the thread may have
        // taken the lock just as the wait timed out.
        let outcome = state.withLock { state -> Outcome in
            switch state.phase {
            case .locked: return .locked(descriptor)
            case .failed(let error): return .failed(error)
            case .waiting, .released:
                state.isAbandoned = true
                // Registered while the state is locked, so the thread, which takes the
                // state first and the table after, cannot finish in between and leave a
                // finished waiter in the table. (The table's lock is never held while
                // taking a waiter's state, so this nesting cannot deadlock.) A second
                // abandoned waiter on the same file (two callers of this process timing
                // out together) is not registered; it finishes by itself all the same.
                Self.table.withLock { table in
                    if table.abandoned[path] == nil { table.abandoned[path] = self }
                }
                return .timedOut
            }
        }
        if case .failed = outcome { try? descriptor.close() }
        return outcome
    }
}
