package import Synchronization

/// The commit counters one store's reads compare before answering (fresh reads; see
/// ``CommitCounter``): a fixed array of pointer pairs that readers walk without a lock.
///
/// An entry is added once per domain file the store reads, when the file's counter is
/// available, and never removed (a suite removed later costs one extra comparison). The
/// array holds ``capacity`` entries; a store with more domain files than that has fresh reads
/// for the first ones only, and relies on the watcher for the rest.
package final class FreshnessChecks: @unchecked Sendable {
    // Safety: entries are written once, under `domains`'s lock, before `count` publishes them
    // with a releasing store; readers load `count` acquiring and read only entries below it.
    // The pointers reach counters, which live as long as the process.

    /// The most domain files a store checks.
    package static let capacity = 16

    @usableFromInline let words = UnsafeMutablePointer<UnsafeMutablePointer<UInt32>>.allocate(capacity: FreshnessChecks.capacity)
    @usableFromInline let seen = UnsafeMutablePointer<UnsafeMutablePointer<UInt32>>.allocate(capacity: FreshnessChecks.capacity)
    @usableFromInline let count = Atomic<Int>(0)
    /// The domains behind the entries, in the same order, for the slow path.
    private let domains = ThreadLock([PersistentDomain](), rank: .leaf)

    /// An empty set of checks: reads compare nothing until a domain is added.
    package init() {}

    deinit {
        words.deallocate()
        seen.deallocate()
    }

    /// Whether reads check `domain`'s counter.
    package func checks(_ domain: PersistentDomain) -> Bool {
        domains.withLock { $0.contains { $0 === domain } }
    }

    /// Adds `domain`'s counter unless it is checked already or the array is full.
    package func add(_ domain: PersistentDomain, counter: CommitCounter) {
        domains.withLock { domains in
            guard domains.count < Self.capacity, !domains.contains(where: { $0 === domain }) else { return }
            (words + domains.count).initialize(to: counter.word)
            (seen + domains.count).initialize(to: counter.seen)
            domains.append(domain)
            count.store(domains.count, ordering: .releasing)
        }
    }

    /// Whether any checked file had a commit this process has not caught up with: two loads
    /// per domain file, no lock, no allocation.
    /// Inlinable: it is on every read of the store, in the module above.
    @inlinable
    package var isStale: Bool {
        let count = count.load(ordering: .acquiring)
        var index = 0
        while index < count {
            if SystemCalls.loadShared(words[index]) != SystemCalls.loadShared(seen[index]) { return true }
            index += 1
        }
        return false
    }

    /// How many times a read re-read a file another process had committed.
    private static let rereads = Atomic(0)

    /// How many times, in this process, a read found another process's commit and re-read
    /// the file itself (before the watcher did): tells a test that the path was taken.
    package static var rereadsByReads: Int { rereads.load(ordering: .relaxed) }

    /// Counts one re-read made by a read.
    package static func countReread() {
        rereads.add(1, ordering: .relaxed)
    }

    /// Brings every stale file up to date (see ``PersistentDomain/catchUp()``).
    package func catchUp() {
        for domain in domains.withLock({ $0 }) where domain.commitCounter?.isStale == true {
            domain.catchUp()
        }
    }
}
