import Foundation
import Synchronization
@testable import Preferences
import TestSupport
import Testing

@Suite("Left-Right snapshot", .ownThread)
struct LeftRightTests {
    /// Two fields every write changes together: a read that overlapped a write would see
    /// them differ.
    struct Pair: Sendable {
        var first = 0
        var second = 0
        var history: [Int] = []
    }

    @Test("reads never overlap a write: 4 writer threads × 5,000 writes beside 4 reader threads")
    func readsAndWritesExclude() {
        let lock = LeftRight(Pair(), rank: .leaf)
        let writers = 4, writesEach = 5_000, readers = 4
        let tornReads = Atomic<Int>(0)
        let backwardsReads = Atomic<Int>(0)
        let readsDone = Atomic<Int>(0)
        let writersLeft = Atomic<Int>(writers)
        let finished = DispatchGroup()
        // Threads of their own: a concurrentPerform on 2 cores would run the writers
        // before the readers, and nothing would overlap.
        func spawn(_ body: @escaping @Sendable () -> Void) {
            finished.enter()
            Thread.detachNewThread {
                body()
                finished.leave()
            }
        }
        for _ in 0..<readers {
            spawn {
                var last = 0
                // Until every writer is done, and at least 10,000 reads.
                var count = 0
                while writersLeft.load(ordering: .acquiring) > 0 || count < 10_000 {
                    let (first, second, newest) = lock.read { pair in (pair.pointee.first, pair.pointee.second, pair.pointee.history.last ?? 0) }
                    if first != second || newest != first { tornReads.add(1, ordering: .relaxed) }
                    if first < last { backwardsReads.add(1, ordering: .relaxed) }
                    last = first
                    count += 1
                }
                readsDone.add(count, ordering: .relaxed)
            }
        }
        for _ in 0..<writers {
            spawn {
                for _ in 0..<writesEach {
                    lock.write { pair in
                        pair.first += 1
                        // Something that reallocates, so a torn read would touch freed memory.
                        pair.history.append(pair.first)
                        if pair.history.count > 64 { pair.history.removeFirst(32) }
                        pair.second += 1
                    }
                }
                writersLeft.subtract(1, ordering: .releasing)
            }
        }
        finished.wait()
        #expect(tornReads.load(ordering: .relaxed) == 0)
        #expect(backwardsReads.load(ordering: .relaxed) == 0)
        #expect(readsDone.load(ordering: .relaxed) >= readers * 10_000)
        #expect(lock.read { $0.pointee.first } == writers * writesEach)
        #expect(lock.read { $0.pointee.second } == writers * writesEach)
    }

    @Test("a read while a writer is in the middle of its change returns the last commit at once")
    func readersNeverWait() {
        let lock = LeftRight(Pair(first: 1, second: 1), rank: .leaf)
        let inChange = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let written = DispatchSemaphore(value: 0)
        let runs = Atomic<Int>(0)
        Thread.detachNewThread {
            lock.write { pair in
                // The first run holds the writer inside its change; the second (the old
                // copy, after publishing) runs straight through.
                if runs.add(1, ordering: .relaxed).newValue == 1 {
                    inChange.signal()
                    release.wait()
                }
                pair.first = 2
                pair.second = 2
            }
            written.signal()
        }
        inChange.wait()
        // The writer is stopped halfway through its change: a read sees the previous
        // commit, whole, without waiting (a read that waited would never return, and the
        // bounded wait below would fail instead of hanging).
        let read = DispatchSemaphore(value: 0)
        let seen = Mutex((0, 0))
        Thread.detachNewThread {
            seen.withLock { $0 = lock.read { ($0.pointee.first, $0.pointee.second) } }
            read.signal()
        }
        #expect(read.wait(timeout: .now() + 10) == .success, "a read waited for a writer")
        #expect(seen.withLock { $0 } == (1, 1))
        release.signal()
        written.wait()
        #expect(lock.read { ($0.pointee.first, $0.pointee.second) } == (2, 2))
        #expect(runs.load(ordering: .relaxed) == 2, "the change ran once per copy")
    }

    @Test("a read inside a read does not wait")
    func nestedRead() {
        let lock = LeftRight(Pair(first: 7, second: 7), rank: .leaf)
        let sum = lock.read { outer in outer.pointee.first + lock.read { $0.pointee.second } }
        #expect(sum == 14)
    }
}
