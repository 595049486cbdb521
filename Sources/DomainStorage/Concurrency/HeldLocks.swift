/// The ranks of the ``ThreadLock``s the calling thread holds, innermost last: what
/// ``LockRank``'s order is checked against in debug builds.
///
/// One small array per thread behind a `pthread_key_t`, freed when the thread ends. Only
/// debug builds call it (``ThreadLock`` compiles the calls out of release builds).
@usableFromInline
package enum HeldLocks {
    /// The per-thread storage: a growable array of ranks.
    private final class Stack {
        var ranks: [LockRank] = []
    }

    /// The key under which each thread keeps its stack.
    private static let key = SystemCalls.makeThreadLocalKey { pointer in
        guard let pointer else { return }
        Unmanaged<Stack>.fromOpaque(pointer).release()
    }

    /// The calling thread's stack, made on first use.
    private static var current: Stack {
        if let pointer = SystemCalls.threadLocal(key) {
            return Unmanaged<Stack>.fromOpaque(pointer).takeUnretainedValue()
        }
        let stack = Stack()
        SystemCalls.setThreadLocal(key, Unmanaged.passRetained(stack).toOpaque())
        return stack
    }

    /// Checks that a lock of `rank` may be taken now, before waiting for it: it must rank
    /// above every lock this thread holds. Traps naming both locks otherwise.
    @usableFromInline
    package static func willAcquire(_ rank: LockRank) {
        if let violation = violation(taking: rank) { preconditionFailure(violation) }
    }

    /// Why taking a lock of `rank` now would break the order, or nil if it may be taken.
    package static func violation(taking rank: LockRank) -> String? {
        guard let innermost = current.ranks.max(), innermost >= rank else { return nil }
        return "lock order violated: taking \(rank) while holding \(innermost); see LockRank and ARCHITECTURE.md"
    }

    /// Records that this thread now holds a lock of `rank`.
    @usableFromInline
    package static func didAcquire(_ rank: LockRank) {
        current.ranks.append(rank)
    }

    /// Records that this thread released its most recent lock of `rank`.
    @usableFromInline
    package static func didRelease(_ rank: LockRank) {
        let stack = current
        if let index = stack.ranks.lastIndex(of: rank) { stack.ranks.remove(at: index) }
    }

    /// The ranks this thread holds, outermost first (for tests and invariant checks).
    package static var ranks: [LockRank] { current.ranks }
}
