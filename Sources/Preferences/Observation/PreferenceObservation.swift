
/// A live observation; the handler stops being called after ``cancel()`` or when this token
/// is released.
///
/// Keep the token for as long as you want changes (`let observation = store.observe(...)`).
public final class PreferenceObservation: Sendable {
    private let cancellation: ThreadLock<(@Sendable () -> Void)?>

    init(cancel: @escaping @Sendable () -> Void) {
        cancellation = ThreadLock(cancel, rank: .leaf)
    }

    /// Stops the observation: the handler is not called for any change delivered after this
    /// returns. A call that another thread had already begun may still finish, and a
    /// delivery that thread is in the middle of may still reach the handler once.
    /// Cancelling twice does nothing.
    public func cancel() {
        let action = cancellation.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit {
        cancel()
    }
}
