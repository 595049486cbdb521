
import Synchronization

/// A store's observers, by key, and the delivery of changes to them.
///
/// Handlers are called with no lock held, so a handler may read, write, observe or cancel.
final class ObserverTable: Sendable {
    /// A commit as a commit observer receives it: every change and the store's whole
    /// resolved values right after it.
    struct Commit: Sendable {
        let changes: [PreferenceChange]
        let values: [String: PropertyListValue]
        /// The store's commit number after it: increasing, so an observer can tell an older
        /// view from a newer one.
        let number: UInt64
    }
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
        /// Observers of whole commits, by id.
        var commits: [Int: @Sendable (Commit) -> Void] = [:]
        /// How many observers asked for `.prior`.
        var priorCount = 0
    }

    private let state = ThreadLock(State(), rank: .leaf)
    /// How many key and all-key observers there are: read on every delivery, so kept outside
    /// the lock.
    private let observerCount = Atomic(0)
    /// Whether anyone asked for `.prior`: read on every set, so kept outside the lock.
    private let hasPriorObservers = Atomic(false)
    /// Whether anyone observes whole commits: read on every commit, so kept outside the lock.
    private let hasCommitObservers = Atomic(false)

    /// Adds an observer of `key` (nil: every key) and returns its id.
    func add(_ observer: Observer, forKey key: String?) -> Int {
        state.withLock { state in
            state.nextID += 1
            observerCount.add(1, ordering: .releasing)
            if observer.options.contains(.prior) {
                state.priorCount += 1
                hasPriorObservers.store(true, ordering: .releasing)
            }
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
            let removed: Observer?
            if let key {
                removed = state.byKey[key]?.removeValue(forKey: id)
                if state.byKey[key]?.isEmpty == true { state.byKey[key] = nil }
            } else {
                removed = state.everyKey.removeValue(forKey: id)
            }
            if removed != nil { observerCount.subtract(1, ordering: .releasing) }
            if removed?.options.contains(.prior) == true {
                state.priorCount -= 1
                hasPriorObservers.store(state.priorCount > 0, ordering: .releasing)
            }
        }
    }

    /// Adds an observer of whole commits and returns its id.
    func addCommitObserver(_ handler: @escaping @Sendable (Commit) -> Void) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.commits[state.nextID] = handler
            hasCommitObservers.store(true, ordering: .releasing)
            return state.nextID
        }
    }

    /// Removes an observer of whole commits.
    func removeCommitObserver(id: Int) {
        state.withLock { state in
            state.commits[id] = nil
            hasCommitObservers.store(!state.commits.isEmpty, ordering: .releasing)
        }
    }

    /// Whether anyone observes whole commits: commits then take the store's values along.
    var wantsCommits: Bool {
        hasCommitObservers.load(ordering: .acquiring)
    }

    /// Calls every commit observer with `commit`, outside the lock.
    func deliverCommit(_ commit: Commit) {
        let handlers = state.withLock { Array($0.commits.values) }
        for handler in handlers { handler(commit) }
    }

    /// Whether anyone asked for prior notifications of `key`.
    func wantsPrior(_ key: String) -> Bool {
        guard hasPriorObservers.load(ordering: .acquiring) else { return false }
        return state.withLock { state in
            (state.byKey[key]?.values.contains { $0.options.contains(.prior) } ?? false)
                || state.everyKey.values.contains { $0.options.contains(.prior) }
        }
    }

    /// Whether anyone observes anything (skips building changes when no one listens).
    var isEmpty: Bool {
        observerCount.load(ordering: .acquiring) == 0
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
