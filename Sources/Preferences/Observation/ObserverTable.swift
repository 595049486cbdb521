
/// A store's observers, by key, and the delivery of changes to them.
///
/// Handlers are called with no lock held, so a handler may read, write, observe or cancel.
final class ObserverTable: Sendable {
    /// One registered handler.
    struct Observer: Sendable {
        let options: PreferenceObservationOptions
        let handler: @Sendable (PreferenceChange) -> Void
    }

    private struct State {
        var nextID = 0
        /// Observers of one key, by id.
        var byKey: [String: [Int: Observer]] = [:]
        /// Observers of every key, by id.
        var everyKey: [Int: Observer] = [:]
    }

    private let state = ThreadLock(State())

    /// Adds an observer of `key` (nil: every key) and returns its id.
    func add(_ observer: Observer, forKey key: String?) -> Int {
        state.withLock { state in
            state.nextID += 1
            if let key {
                state.byKey[key, default: [:]][state.nextID] = observer
            } else {
                state.everyKey[state.nextID] = observer
            }
            return state.nextID
        }
    }

    /// Removes an observer.
    func remove(id: Int, forKey key: String?) {
        state.withLock { state in
            if let key {
                state.byKey[key]?[id] = nil
                if state.byKey[key]?.isEmpty == true { state.byKey[key] = nil }
            } else {
                state.everyKey[id] = nil
            }
        }
    }

    /// Whether anyone asked for prior notifications of `key`.
    func wantsPrior(_ key: String) -> Bool {
        state.withLock { state in
            (state.byKey[key]?.values.contains { $0.options.contains(.prior) } ?? false)
                || state.everyKey.values.contains { $0.options.contains(.prior) }
        }
    }

    /// Whether anyone observes anything (skips building changes when no one listens).
    var isEmpty: Bool {
        state.withLock { $0.byKey.isEmpty && $0.everyKey.isEmpty }
    }

    /// Calls the observers of each change, in order, outside the lock. An observer
    /// cancelled meanwhile (even by an earlier handler of the same change) is skipped.
    func deliver(_ changes: [PreferenceChange]) {
        for change in changes {
            let observers = state.withLock { state in
                (state.byKey[change.key] ?? [:]).map { ($0.key, change.key as String?, $0.value) }
                    + state.everyKey.map { ($0.key, nil as String?, $0.value) }
            }
            for (id, key, observer) in observers {
                if change.isPrior && !observer.options.contains(.prior) { continue }
                let isRegistered = state.withLock { state in
                    key.map { state.byKey[$0]?[id] != nil } ?? (state.everyKey[id] != nil)
                }
                guard isRegistered else { continue }
                observer.handler(
                    PreferenceChange(
                        key: change.key,
                        oldValue: observer.options.contains(.old) ? change.oldValue : nil,
                        newValue: observer.options.contains(.new) ? change.newValue : nil,
                        origin: change.origin, isPrior: change.isPrior))
            }
        }
    }
}
