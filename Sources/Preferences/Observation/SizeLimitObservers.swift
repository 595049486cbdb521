/// A store's observers of size-limit events: what feeds
/// ``PreferenceStore/sizeLimitEvents()``, value by value, with no `NotificationCenter` and no
/// `userInfo` in between.
///
/// Handlers are called with no lock held, on the thread whose set crossed the limit, in the
/// order they registered.
final class SizeLimitObservers: Sendable {
    private struct State {
        var nextID = 0
        var handlers: [Int: @Sendable (SizeLimitEvent) -> Void] = [:]
    }

    private let state = ThreadLock(State(), rank: .leaf)

    /// Adds a handler and returns its id.
    func add(_ handler: @escaping @Sendable (SizeLimitEvent) -> Void) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.handlers[state.nextID] = handler
            return state.nextID
        }
    }

    /// Removes a handler; it is not called for any event delivered after this returns.
    func remove(id: Int) {
        state.withLock { _ = $0.handlers.removeValue(forKey: id) }
    }

    /// Calls every handler with `event`, outside the lock.
    func deliver(_ event: SizeLimitEvent) {
        let handlers = state.withLock { state in
            state.handlers.sorted { $0.key < $1.key }.map(\.value)
        }
        for handler in handlers { handler(event) }
    }
}
