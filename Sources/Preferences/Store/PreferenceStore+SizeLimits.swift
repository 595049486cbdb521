extension PreferenceStore {
    /// The size-limit warnings and refusals of this store's sets, as an asynchronous
    /// sequence of ``SizeLimitEvent`` values, starting with the next one (an event has no
    /// current value to start with).
    ///
    /// Each event is fed on the thread whose set (or `trySet`) crossed the limit, before that
    /// call returns or throws, with no lock held; it is consumed on the iterating task's
    /// executor. Every event is delivered, unlike the journal entries, which are
    /// rate-limited: the sequence buffers without limit (`.unbounded`), as every sequence
    /// the store makes. It ends when the task iterating it is cancelled.
    ///
    /// - Returns: the sequence of events.
    public func sizeLimitEvents() -> AsyncStream<SizeLimitEvent> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let observers = sizeLimitObservers
            let id = observers.add { continuation.yield($0) }
            continuation.onTermination = { _ in observers.remove(id: id) }
        }
    }
}
