/// A value shared by the threads of this process, reached only while holding a POSIX
/// thread mutex: the package's replacement for `Synchronization.Mutex`.
///
/// Use it like `Mutex`: `let state = ThreadLock(State())`, then
/// `state.withLock { state in … }`. The closure runs with the lock held and must not call
/// out (observers, logging, I/O) or lock the same `ThreadLock` again. In debug builds a
/// relock by the holding thread traps, as `Mutex` does, instead of deadlocking silently
/// (the mutex is `PTHREAD_MUTEX_ERRORCHECK` there; see `SystemCalls.initializeMutex`).
///
/// Why not `Synchronization.Mutex`: on Linux it is a priority-inheritance futex
/// (`FUTEX_LOCK_PI`/`FUTEX_UNLOCK_PI`). When the lock is contended, its slow paths run
/// in the uninstrumented standard library and the kernel hands the lock from the releasing
/// thread to a waiter, so the thread sanitizer sees no release and acquire pair and reports
/// every contended access to the protected value as a data race (RELIABILITY.md, the
/// thread stress test under the sanitizer). `pthread_mutex_lock` and
/// `pthread_mutex_unlock` are intercepted by the sanitizer, so races it reports with this
/// lock are real ones. Uncontended it costs a little more than `Mutex`; the reads it
/// guards are timed in Benchmarks/RESULTS.md.
///
/// A final class, so the mutex and the value have a stable address and every copy of a
/// reference shares them; `package`, so every module of this package uses this one type.
/// Its lock and unlock are inlinable: the store's read paths are inlined into callers.
@usableFromInline
package final class ThreadLock<Value> {
    /// The mutex, allocated once and never moved (a `pthread_mutex_t` must not be).
    @usableFromInline package let mutex: UnsafeMutablePointer<SystemCalls.ThreadMutex>
    /// Where this lock stands in the package's lock order (``LockRank``), checked on every
    /// acquire in debug builds.
    @usableFromInline package let rank: LockRank
    /// The protected value, reached only while `mutex` is held. Kept behind a pointer
    /// rather than in a stored property so `withLock` can pass it `inout` without Swift's
    /// dynamic exclusivity check: the mutex already guarantees exclusive access.
    @usableFromInline package let value: UnsafeMutablePointer<Value>

    /// Makes a lock protecting `initialValue` at `rank` in the lock order.
    ///
    /// The package's own locks name their rank (``LockRank`` lists them all, in order); a lock
    /// made without one is a leaf, under which no other lock may be taken.
    @usableFromInline
    package convenience init(_ initialValue: Value) {
        self.init(initialValue, rank: .leaf)
    }

    /// Makes a lock protecting `initialValue` at `rank` in the lock order.
    @usableFromInline
    package init(_ initialValue: Value, rank: LockRank) {
        self.rank = rank
        mutex = .allocate(capacity: 1)
        SystemCalls.initializeMutex(mutex)
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        SystemCalls.destroyMutex(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value, holding the lock, and returns what
    /// it returns; the lock is released even if `body` throws.
    @inlinable
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body(&value.pointee)
    }

    /// Takes the lock for a critical section that begins in one call and ends in another: a
    /// write holds its domain's view lock from just before its rename until it has installed
    /// what it wrote. Pair it with ``unlock()`` on the same thread; the value is not reached
    /// this way. Checked against the order like ``withLock(_:)``.
    @inlinable
    package func lock() {
        #if DEBUG
        HeldLocks.willAcquire(rank)
        #endif
        SystemCalls.lockMutex(mutex)
        #if DEBUG
        HeldLocks.didAcquire(rank)
        #endif
    }

    /// Releases a lock taken with ``lock()``.
    @inlinable
    package func unlock() {
        #if DEBUG
        HeldLocks.didRelease(rank)
        #endif
        SystemCalls.unlockMutex(mutex)
    }

    /// Runs `body` as ``withLock(_:)`` does if the lock is free, and returns nil at once,
    /// without running it, if another thread holds the lock.
    @inlinable
    package func withLockIfAvailable<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        // Not checked against the order: a try never waits, so it cannot deadlock.
        guard SystemCalls.tryLockMutex(mutex) else { return nil }
        #if DEBUG
        HeldLocks.didAcquire(rank)
        defer { HeldLocks.didRelease(rank) }
        #endif
        defer { SystemCalls.unlockMutex(mutex) }
        return try body(&value.pointee)
    }
}

// Safety: the value is only reached inside `withLock`, with the mutex held, so at most
// one thread at a time touches it; handing the lock to another thread therefore hands
// over nothing but a `Value`, which must be `Sendable` itself.
extension ThreadLock: @unchecked Sendable where Value: Sendable {}
