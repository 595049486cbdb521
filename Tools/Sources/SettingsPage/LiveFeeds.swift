import DefaultsCommand
import Foundation
import Preferences
import Synchronization

/// The open pages of each domain, and the store observation that tells them of changes.
///
/// A store calls its observers on the thread the library documents (this process's changes
/// on the writing thread, other processes' on the watcher), so the handler here does no
/// work there: it adds the key to each page's pending set and wakes the page's task, which
/// renders the rows in its own time. Keys pile up while a page is busy and go out together.
final class LiveFeeds: Sendable {
    /// One domain's observation and its pages, by subscription number.
    private struct Feed {
        var observation: PreferenceObservation
        var pages: [Int: LiveSubscription]
    }

    private let feeds = Mutex<[String: Feed]>([:])
    private let nextNumber = Atomic<Int>(0)

    /// A new subscription to `store`'s changes; the store is observed from the first.
    func subscribe(to store: PreferenceStore, named name: String) -> LiveSubscription {
        let number = nextNumber.add(1, ordering: .relaxed).newValue
        let subscription = LiveSubscription(number: number, domain: name, feeds: self)
        feeds.withLock { feeds in
            if feeds[name] == nil {
                let observation = store.observe(options: [.new]) { [weak self] change in
                    self?.publish(change.key, domain: name)
                }
                feeds[name] = Feed(observation: observation, pages: [:])
            }
            feeds[name]?.pages[number] = subscription
        }
        return subscription
    }

    /// Ends a subscription; the domain stays observed for the next page.
    func end(_ number: Int, domain name: String) {
        feeds.withLock { _ = $0[name]?.pages.removeValue(forKey: number) }
    }

    /// How many pages follow a domain now.
    func pageCount(domain name: String) -> Int {
        feeds.withLock { $0[name]?.pages.count ?? 0 }
    }

    /// Tells every page of `name` that `key` changed.
    private func publish(_ key: String, domain name: String) {
        let pages = feeds.withLock { $0[name].map { Array($0.pages.values) } ?? [] }
        for page in pages { page.add(key) }
    }
}

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

extension SettingsSite {
    /// Follows a domain's changes for one open page.
    package func subscribe(domain word: String) throws(PageError) -> LiveSubscription {
        let location = try location(word)
        return feeds.subscribe(to: try store(for: location), named: location.description)
    }

    /// How many pages follow a domain now.
    package func livePageCount(domain word: String) -> Int {
        guard let location = try? location(word) else { return 0 }
        return feeds.pageCount(domain: location.description)
    }

    /// One Server-Sent Event telling a page of `keys`: `event: change` with the JSON
    /// `{"rows": [...], "history": "..."}` (the history changes with every commit).
    package func changeEvent(keys: [String], domain word: String, pane: String) -> String {
        guard let location = try? location(word) else { return ": unknown domain\n\n" }
        let rows = rowsJSON(keys: keys, location: location, pane: pane)
        let data = "{\"rows\":\(rows),\"history\":\(JSONText.string(historySection(location)))}"
        // A data line ends at a newline; JSON text from JSONText has none outside strings,
        // where they are escaped.
        return "event: change\ndata: \(data)\n\n"
    }
}
