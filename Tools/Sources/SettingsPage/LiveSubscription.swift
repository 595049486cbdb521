import Synchronization

/// One open page's share of a domain's changes: the keys changed since it last looked, and
/// a wake-up each time one is added.
package final class LiveSubscription: Sendable {
    let number: Int
    let domain: String
    private let feeds: LiveFeeds
    private let pending = Mutex<Set<String>>([])
    private let continuation: AsyncStream<Void>.Continuation
    /// Yields once (or once for several) after keys were added; ends with ``end()``.
    package let wakeUps: AsyncStream<Void>

    init(number: Int, domain: String, feeds: LiveFeeds) {
        self.number = number
        self.domain = domain
        self.feeds = feeds
        // Only the newest wake-up matters: the keys themselves wait in `pending`.
        (wakeUps, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Adds a changed key and wakes the page.
    func add(_ key: String) {
        pending.withLock { _ = $0.insert(key) }
        continuation.yield()
    }

    /// The keys changed since the last call, sorted.
    package func take() -> [String] {
        pending.withLock { keys in
            defer { keys.removeAll() }
            return keys.sorted()
        }
    }

    /// Wakes the page with no keys: it writes a comment, which finds a page that went away.
    package func ping() {
        continuation.yield()
    }

    /// Stops the page's feed.
    package func end() {
        feeds.end(number, domain: domain)
        continuation.finish()
    }
}
