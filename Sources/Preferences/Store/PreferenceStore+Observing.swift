import Foundation

extension PreferenceStore {
    /// Posted on `NotificationCenter.default` with the store as object after its effective
    /// values change, whether this process or another made the change. As on Apple's
    /// systems it carries no `userInfo`; use ``observeAllKeys(options:handler:)`` to learn
    /// which keys changed. ``Configuration/postsDidChangeNotification`` turns it off.
    public static let didChangeNotification = Notification.Name("PreferenceStoreDidChangeNotification")
    /// Posted when a set takes the domain over its soft size limit, or is refused at its hard
    /// limit, with the store as object and `userInfo` `key` (String), `size` and `limit`
    /// (Int, bytes) and `refused` (Bool). ``sizeLimitEvents()`` delivers the same as values.
    public static let sizeLimitExceededNotification = Notification.Name("PreferenceStoreSizeLimitExceededNotification")

    /// Calls `handler` for every effective change of `key`, from this process or any other
    /// (including hand edits of the file), KVO-style.
    ///
    /// - Parameters:
    ///   - options: `.old` and `.new` fill in the values (both by default); `.initial` calls
    ///     the handler at once with the current value; `.prior` also calls it before each
    ///     change this process makes.
    ///   - handler: called on the thread that made the change, or on the watcher thread for
    ///     changes from other processes; with no lock held, so it may read and write
    ///     preferences.
    /// - Returns: the observation; it ends when cancelled or released.
    public func observe(
        _ key: String, options: PreferenceObservationOptions = [.old, .new],
        handler: @escaping @Sendable (PreferenceChange) -> Void
    ) -> PreferenceObservation {
        addObserver(forKey: key, options: options, handler: handler)
    }

    /// Calls `handler` for every effective change of any key.
    public func observeAllKeys(
        options: PreferenceObservationOptions = [.old, .new],
        handler: @escaping @Sendable (PreferenceChange) -> Void
    ) -> PreferenceObservation {
        addObserver(forKey: nil, options: options, handler: handler)
    }

    /// Calls `handler` with typed old and new values (defaults applied) for every effective
    /// change of a typed key.
    public func observe<Value>(
        _ key: PreferenceKey<Value>, options: PreferenceObservationOptions = [.old, .new],
        handler: @escaping @Sendable (TypedPreferenceChange<Value>) -> Void
    ) -> PreferenceObservation {
        addObserver(forKey: key.name, options: options.union([.old, .new])) { change in
            handler(
                TypedPreferenceChange(
                    key: key,
                    oldValue: change.oldValue.flatMap { Value(propertyListValue: $0) } ?? key.defaultValue,
                    newValue: change.newValue.flatMap { Value(propertyListValue: $0) } ?? key.defaultValue,
                    origin: change.origin, isPrior: change.isPrior))
        }
    }

    /// The changes of `key` as an asynchronous sequence, starting with the next change.
    /// The sequence ends when the task iterating it is cancelled.
    public func changes(forKey key: String) -> AsyncStream<PreferenceChange> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let observation = observe(key) { continuation.yield($0) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }

    /// The values of a typed key as an asynchronous sequence: the current value first, then
    /// each new value.
    public func values<Value>(for key: PreferenceKey<Value>) -> AsyncStream<Value> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let observation = observe(key, options: [.initial, .new]) { continuation.yield($0.newValue) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }

    private func addObserver(
        forKey key: String?, options: PreferenceObservationOptions,
        handler: @escaping @Sendable (PreferenceChange) -> Void
    ) -> PreferenceObservation {
        let id = observers.add(ObserverTable.Observer(options: options, handler: handler), forKey: key)
        let observation = PreferenceObservation { [weak self] in self?.observers.remove(id: id, forKey: key) }
        if options.contains(.initial), let key {
            handler(PreferenceChange(key: key, oldValue: nil, newValue: value(forKey: key), origin: .thisProcess))
        }
        return observation
    }

    /// Changes the resolved values and tells observers what changed, in order: `body`
    /// runs under the lock and returns the changes; they are queued there and handed out
    /// with no lock held.
    func update(origin: PreferenceChange.Origin, _ body: (inout ResolvedValues) -> [ResolvedValues.Change]) {
        let mustNotify = values.withLock { state in state.queueNotification(body(&state), origin: origin) }
        if mustNotify { notifyQueued() }
    }

    /// Hands queued changes to observers until none is left; changes queued meanwhile (by
    /// another thread, or by a handler) are handed out by this same loop.
    func notifyQueued() {
        while let (changes, origin) = values.withLock({ $0.nextNotification() }) {
            deliver(changes, origin: origin)
        }
    }

    /// Hands changes to observers and posts ``didChangeNotification``; called with no lock
    /// held.
    private func deliver(_ changes: [ResolvedValues.Change], origin: PreferenceChange.Origin) {
        guard !changes.isEmpty else { return }
        if !observers.isEmpty {
            observers.deliver(changes.map { PreferenceChange(key: $0.key, oldValue: $0.old, newValue: $0.new, origin: origin) })
        }
        if configuration.postsDidChangeNotification {
            NotificationCenter.default.post(name: Self.didChangeNotification, object: self)
        }
    }

    /// Sends prior notifications for a change this process is about to make.
    func deliverPrior(_ change: ResolvedValues.Change) {
        observers.deliver([PreferenceChange(key: change.key, oldValue: change.old, newValue: nil, origin: .thisProcess, isPrior: true)])
    }
}
