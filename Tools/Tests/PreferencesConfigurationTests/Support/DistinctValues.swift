import Synchronization

/// The distinct values a thread has seen, for a poller that may record millions of reads.
final class DistinctValues<Value: Hashable & Sendable>: Sendable {
    private let seen = Mutex<Set<Value>>([])

    func insert(_ value: Value) {
        _ = seen.withLock { $0.insert(value) }
    }

    var count: Int {
        seen.withLock { $0.count }
    }
}
