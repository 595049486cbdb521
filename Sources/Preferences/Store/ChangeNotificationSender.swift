import Foundation

/// Posts a store's "something changed" notification: ``PreferenceStore/didChangeNotification``
/// with the store as object, or, for the store inside a ``PreferencesUserDefaults``,
/// `UserDefaults.didChangeNotification` with that `UserDefaults` as object, so code that only
/// sees a `UserDefaults` observes it as it would Foundation's.
///
/// A class of its own because the `UserDefaults` that redirects it exists only after its
/// store does, while the store may already be delivering another process's change on the
/// watcher thread: the redirect is published under a lock, and the object is held weakly
/// (the `UserDefaults` owns the store, not the other way round).
final class ChangeNotificationSender: @unchecked Sendable {
    private struct Target {
        var name: Notification.Name
        weak var object: AnyObject?
    }

    /// Where posts go once redirected; nil for a store that posts its own notification,
    /// which so takes no lock on the `set` path.
    private let redirect: ThreadLock<Target?>?

    /// A sender for a store of its own (`redirectable` false), or for the store inside a
    /// `UserDefaults`, which redirects it once it exists.
    init(redirectable: Bool = false) {
        redirect = redirectable ? ThreadLock<Target?>(nil, rank: .leaf) : nil
    }

    /// Posts the notification now, on this thread, for `store`, with no lock held.
    func post(for store: PreferenceStore) {
        guard let redirect else {
            NotificationCenter.default.post(name: PreferenceStore.didChangeNotification, object: store)
            return
        }
        // Nothing before the `UserDefaults` has redirected it: it is still being made.
        guard let target = redirect.withLock({ $0 }) else { return }
        // A `UserDefaults` being released posts nothing: nobody can observe it any more.
        guard let object = target.object else { return }
        NotificationCenter.default.post(name: target.name, object: object)
    }

    /// Posts `name` with `object` from now on, instead of the store's own notification.
    ///
    /// - Precondition: made `redirectable`.
    func redirect(to name: Notification.Name, object: AnyObject) {
        guard let redirect else { preconditionFailure("a store's own notification sender cannot be redirected") }
        redirect.withLock { $0 = Target(name: name, object: object) }
    }
}
