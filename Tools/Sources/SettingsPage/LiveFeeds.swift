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

    /// A new subscription to the changes of domain `name`; the domain is observed from the
    /// first, by the observation `observe` makes of it with the handler it is given.
    func subscribe(
        named name: String, observe: (@escaping @Sendable (String) -> Void) throws(PageError) -> PreferenceObservation
    ) throws(PageError) -> LiveSubscription {
        let number = nextNumber.add(1, ordering: .relaxed).newValue
        let subscription = LiveSubscription(number: number, domain: name, feeds: self)
        // Observed outside the lock, which the handler takes. Two first pages may both
        // observe: the first kept wins, and the other observation ends as it is released.
        let observation = feeds.withLock { $0[name] == nil } ? try observe { [weak self] key in self?.publish(key, domain: name) } : nil
        feeds.withLock { feeds in
            if feeds[name] == nil, let observation { feeds[name] = Feed(observation: observation, pages: [:]) }
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
