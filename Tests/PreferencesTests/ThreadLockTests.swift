import Dispatch
@testable import Preferences
import Testing

@Suite("ThreadLock")
struct ThreadLockTests {
    @Test("withLock serialises threads: 8 threads × 10,000 increments make 80,000")
    func serialises() {
        let counter = ThreadLock(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test("withLock returns the body's result and rethrows its typed error, releasing the lock")
    func resultsAndErrors() {
        struct Failure: Error, Equatable {}
        let lock = ThreadLock([1, 2])
        #expect(lock.withLock { $0.count } == 2)
        #expect(throws: Failure()) { try lock.withLock { _ throws(Failure) in throw Failure() } }
        // Released after the throw: taking it again does not block.
        #expect(lock.withLockIfAvailable { $0.append(3) } != nil)
        #expect(lock.withLock { $0 } == [1, 2, 3])
    }

    @Test("withLockIfAvailable returns nil without running the body while another thread holds the lock")
    func ifAvailable() {
        let lock = ThreadLock(0)
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            lock.withLock { _ in
                held.signal()
                release.wait()
            }
            done.signal()
        }
        held.wait()
        var ran = false
        #expect(lock.withLockIfAvailable { _ in ran = true } == nil)
        #expect(!ran)
        release.signal()
        done.wait()
        #expect(lock.withLockIfAvailable { $0 += 1 } != nil)
    }

    @Test("locking again on the holding thread traps in a debug build instead of hanging")
    func relockTraps() async {
        #if DEBUG
        await #expect(processExitsWith: .failure) {
            let lock = ThreadLock(0)
            lock.withLock { _ in lock.withLock { _ in } }
        }
        #endif
    }
}

@Suite("Lock order")
struct LockOrderTests {
    @Test("locks taken in their declared order nest, and each thread's held ranks are tracked")
    func declaredOrderNests() {
        let outer = ThreadLock(0, rank: .domainState)
        let inner = ThreadLock(0, rank: .storeSnapshot)
        outer.withLock { _ in
            inner.withLock { value in value += 1 }
            #if DEBUG
            #expect(HeldLocks.ranks == [.domainState])
            #endif
        }
        #expect(inner.withLock { $0 } == 1)
        #if DEBUG
        #expect(HeldLocks.ranks.isEmpty)
        #endif
    }

    @Test("taking two locks against their declared order traps in a debug build")
    func wrongOrderTraps() async {
        #if DEBUG
        await #expect(processExitsWith: .failure) {
            let outer = ThreadLock(0, rank: .storeSnapshot)
            let inner = ThreadLock(0, rank: .domainState)
            outer.withLock { _ in inner.withLock { _ in } }
        }
        #endif
    }

    @Test("two locks of one rank never nest: that traps in a debug build too")
    func sameRankTraps() async {
        #if DEBUG
        await #expect(processExitsWith: .failure) {
            let first = ThreadLock(0, rank: .storeSnapshot)
            let second = ThreadLock(0, rank: .storeSnapshot)
            first.withLock { _ in second.withLock { _ in } }
        }
        #endif
    }
}
