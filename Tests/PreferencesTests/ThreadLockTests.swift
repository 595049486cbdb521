import Dispatch
import Foundation
@testable import Preferences
import TestSupport
import Testing

@Suite("ThreadLock", .ownThread)
struct ThreadLockTests {
    @Test("withLock serialises threads: 8 threads × 10,000 increments make 80,000")
    func serialises() {
        let counter = ThreadLock(0)
        onThreads(8) { _ in
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

@Suite("Every lock of the module is ranked")
struct EveryLockRankedTests {
    @Test("the declared ranks are in strictly increasing order and name distinct locks")
    func declaredOrder() {
        let ranks = LockRank.declared
        #expect(ranks == ranks.sorted())
        #expect(Set(ranks).count == ranks.count)
        #expect(ranks.last == .leaf)
    }

    #if DEBUG
    @Test("the checker refuses every rank taken inside a lock of the same rank or inside a leaf lock", arguments: LockRank.declared)
    func everyRankChecked(rank: LockRank) {
        let same = ThreadLock(0, rank: rank)
        same.withLock { _ in
            #expect(HeldLocks.violation(taking: rank) != nil, "\(rank) may be taken twice")
        }
        if rank != .leaf {
            let leaf = ThreadLock(0, rank: .leaf)
            leaf.withLock { _ in
                #expect(HeldLocks.violation(taking: rank) != nil, "\(rank) may be taken inside a leaf lock")
            }
        }
        #expect(HeldLocks.violation(taking: rank) == nil, "nothing held, yet \(rank) is refused")
    }

    @Test("the view lock, taken inside the domain state lock, traps")
    func viewInsideStateTraps() async {
        await #expect(processExitsWith: .failure) {
            let state = ThreadLock(0, rank: .domainState)
            let view = ThreadLock(0, rank: .domainView)
            state.withLock { _ in view.withLock { _ in } }
        }
    }
    #endif

    /// Whether `code` names the type `Mutex` (not `initializeMutex(`, `ThreadMutex`).
    static func namesMutex(_ code: Substring) -> Bool {
        var rest = code[...]
        while let range = rest.range(of: "Mutex") {
            let before = rest[..<range.lowerBound].last
            let after = rest[range.upperBound...].first
            if !(before?.isLetter ?? false) && !(before?.isNumber ?? false) && (after == "<" || after == "(") { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }

    @Test(
        "no lock in the Preferences and DomainStorage modules escapes the checker: no Synchronization.Mutex, every ThreadLock ranked",
        arguments: ["Preferences", "DomainStorage"])
    func noUncheckedLocks(module: String) throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/\(module)").standardizedFileURL
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 40)
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                #expect(!Self.namesMutex(code), "\(file):\(number + 1) uses a Mutex, which the order checker does not see: \(line)")
                if code.contains("ThreadLock(") && !file.hasSuffix("ThreadLock.swift") {
                    #expect(code.contains("rank:"), "\(file):\(number + 1) makes a ThreadLock without naming its rank: \(line)")
                }
            }
        }
    }
}
