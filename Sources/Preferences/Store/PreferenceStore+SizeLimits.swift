import Foundation

extension PreferenceStore {
    /// The size-limit warnings and refusals of this store's sets, as an asynchronous
    /// sequence starting with the next one. The sequence ends when the task iterating it is
    /// cancelled.
    ///
    /// Every event is delivered, unlike the journal entries, which are rate-limited.
    public func sizeLimitEvents() -> AsyncStream<SizeLimitEvent> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            // Delivered on the posting thread (no queue), so no event waits for a run loop.
            let token = NotificationCenter.default.addObserver(
                forName: Self.sizeLimitExceededNotification, object: self, queue: nil
            ) { notification in
                guard let event = Self.sizeLimitEvent(from: notification.userInfo) else { return }
                continuation.yield(event)
            }
            let registration = ObserverRegistration(token: token)
            continuation.onTermination = { _ in registration.remove() }
        }
    }

    /// The event a ``sizeLimitExceededNotification``'s `userInfo` describes.
    static func sizeLimitEvent(from userInfo: [AnyHashable: Any]?) -> SizeLimitEvent? {
        guard let userInfo, let key = userInfo["key"] as? String, let size = userInfo["size"] as? Int,
            let limit = userInfo["limit"] as? Int, let refused = userInfo["refused"] as? Bool
        else { return nil }
        return SizeLimitEvent(key: key, size: size, limit: limit, wasRefused: refused)
    }
}

/// A `NotificationCenter` observer token that can be removed from any thread.
///
/// The token is an opaque, immutable object that `NotificationCenter` only compares by
/// identity, and removing it is thread-safe, so sharing it across threads is sound even
/// though its type does not say so.
private final class ObserverRegistration: @unchecked Sendable {
    private let token: any NSObjectProtocol

    init(token: any NSObjectProtocol) {
        self.token = token
    }

    func remove() {
        NotificationCenter.default.removeObserver(token)
    }
}
