import Foundation
import Synchronization

/// Values a watcher received, each with the wall-clock time it arrived, for a test to wait
/// on and time without blocking a thread.
final class Arrivals<Value: Sendable & Equatable>: Sendable {
    private let received = Mutex<[(value: Value, at: Date)]>([])

    func append(_ value: Value) {
        let now = Date()
        received.withLock { $0.append((value, now)) }
    }

    var values: [Value] {
        received.withLock { $0.map(\.value) }
    }

    /// When `value` first arrived, waiting for it until `deadline`; nil if it did not.
    func arrival(of value: Value, before deadline: Date) async -> Date? {
        await arrival(before: deadline) { $0 == value }
    }

    /// When the first value matching `predicate` arrived, waiting until `deadline`; nil if
    /// none arrived by then. Judged by the recorded arrival time, so a waiter that itself
    /// runs late neither fails a prompt arrival nor excuses a late one.
    func arrival(before deadline: Date, where predicate: (Value) -> Bool) async -> Date? {
        while true {
            if let found = received.withLock({ $0.first { predicate($0.value) }?.at }) { return found <= deadline ? found : nil }
            if Date() >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}
