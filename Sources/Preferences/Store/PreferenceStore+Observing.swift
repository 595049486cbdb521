public import Foundation
import Synchronization

// The observation family, one rule for all of it (ARCHITECTURE.md, "Where callbacks run"):
//
// | spelling | delivers | starts with the current value |
// |---|---|---|
// | `observe(_:options:handler:)`, `observe(options:handler:)` | each change to a handler | with `.initial` (opt-in, as KVO) |
// | `changes(of:initial:)` | a key's changes, as a sequence | yes, unless `initial: false` |
// | `values(of:initial:)` | a typed key's values, as a sequence | yes, unless `initial: false` |
// | `sizeLimitEvents()` | size-limit warnings and refusals, as values | no: events, not values |
// | `didChangeNotification` | "something changed", as `UserDefaults` posts it | no |
// | `ObservedPreference` | one key as an `Observable` property | it is the current value |
//
// The spellings these replaced are in `PreferenceStore+DeprecatedObservation.swift`.
extension PreferenceStore {
    /// Posted on `NotificationCenter.default` with the store as object after its effective
    /// values change, whether this process or another made the change. As on Apple's
    /// systems it carries no `userInfo`; use ``observe(options:handler:)`` to learn which
    /// keys changed. ``Configuration/postsDidChangeNotification`` turns it off.
    ///
    /// Posted synchronously (observers added with `queue: nil` run at once) on the thread
    /// that runs ``observe(_:options:handler:)-(String,_,_)``'s handlers, by the same rule:
    /// for a change this process made, the thread that made it (with the exceptions listed
    /// there); for a change from another process or a hand edit, the process's watcher
    /// thread, never a thread that only read.
    public static let didChangeNotification = Notification.Name("PreferenceStoreDidChangeNotification")

    /// Calls `handler` for every effective change of `key`, from this process or any other
    /// (including hand edits of the file), KVO-style.
    ///
    /// - Parameters:
    ///   - key: the key to observe, in the store's search list (any layer).
    ///   - options: `.old` and `.new` fill in the values (both by default); `.initial` calls
    ///     the handler once with the current value before this returns, on the calling
    ///     thread (opt-in, as in KVO); `.prior` also calls it before each change this process
    ///     makes with a setter (see ``PreferenceObservationOptions/prior``).
    ///   - handler: called with no lock held, so it may read and write preferences, one
    ///     change batch at a time and in commit order. Where it runs:
    ///     - a change this process made (a setter, `modify`, a transaction, a
    ///       ``PreferenceFiles`` write): on the thread that made it, before that call returns;
    ///       if another thread is delivering this store's changes at that moment (a set made
    ///       inside a handler included: it is delivered once that handler returns), or a
    ///       change from another process is queued ahead of it, that thread (or the watcher
    ///       thread) delivers it right after, so callbacks never overlap or go out of order;
    ///       `.prior` calls are made by the setting thread itself, before the change;
    ///     - a change from another process or a hand edit: on the process's watcher thread
    ///       (`prefs-watcher`), and only there, whichever thread noticed it first (debug
    ///       builds trap if that rule is ever broken). A getter never calls a handler, so a
    ///       read made under a lock that a handler also takes cannot deadlock.
    ///
    ///     See ARCHITECTURE.md, "Where callbacks run".
    /// - Returns: the observation; it ends when cancelled or released.
    public func observe(
        _ key: String, options: PreferenceObservationOptions = [.old, .new],
        handler: @escaping @Sendable (PreferenceChange) -> Void
    ) -> PreferenceObservation {
        addObserver(forKey: key, options: options, handler: handler)
    }

    /// Calls `handler` for every effective change of any key, KVO-style.
    ///
    /// The handler runs where ``observe(_:options:handler:)-(String,_,_)``'s does: on the
    /// thread that made a change this process made, on the watcher thread (`prefs-watcher`)
    /// for another process's change or a hand edit, with no lock held, one batch at a time
    /// in commit order.
    ///
    /// - Parameters:
    ///   - options: as for one key, except `.initial`, which has no one current value to
    ///     report here and is ignored: read ``dictionaryRepresentation()`` after registering.
    ///   - handler: called with each change.
    /// - Returns: the observation; it ends when cancelled or released.
    public func observe(
        options: PreferenceObservationOptions = [.old, .new],
        handler: @escaping @Sendable (PreferenceChange) -> Void
    ) -> PreferenceObservation {
        addObserver(forKey: nil, options: options, handler: handler)
    }

    /// Calls `handler` with typed old and new values (defaults applied) for every effective
    /// change of a typed key.
    ///
    /// The handler runs where ``observe(_:options:handler:)-(String,_,_)``'s does: the
    /// `.initial` call on the calling thread before this returns; a change this process made
    /// on the thread that made it; another process's change or a hand edit on the watcher
    /// thread (`prefs-watcher`); with no lock held, one batch at a time in commit order.
    ///
    /// - Parameters:
    ///   - key: the typed key to observe.
    ///   - options: as for a key by name; old and new values are always filled in.
    ///   - handler: called with each change.
    /// - Returns: the observation; it ends when cancelled or released.
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

    /// The changes of `key` as an asynchronous sequence, in commit order: with `initial` (the
    /// default, as for every sequence the store makes), a change from nil to the current
    /// value first.
    ///
    /// It is fed by an ``observe(_:options:handler:)-(String,_,_)`` handler, so from the
    /// threads that handler runs on (the thread that made a change this process made, the
    /// watcher thread for another process's; the initial change on the calling thread, before
    /// this returns), and consumed on the iterating task's executor.
    ///
    /// Like every sequence the store makes, it buffers without limit (`.unbounded`): no
    /// change is dropped, however slowly it is consumed. It ends when the task iterating it is
    /// cancelled.
    ///
    /// - Parameters:
    ///   - key: the key to follow, in the store's search list (any layer).
    ///   - initial: whether the sequence starts with the current value.
    /// - Returns: the sequence of ``PreferenceChange``s, old and new values filled in.
    public func changes(of key: String, initial: Bool = true) -> AsyncStream<PreferenceChange> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let options: PreferenceObservationOptions = initial ? [.initial, .old, .new] : [.old, .new]
            let observation = observe(key, options: options) { continuation.yield($0) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }

    /// The values of a typed key as an asynchronous sequence, in commit order: with `initial`
    /// (the default, as for every sequence the store makes), the current value first; then
    /// each new value.
    ///
    /// It is fed by an ``observe(_:options:handler:)-(PreferenceKey<Value>,_,_)`` handler, so
    /// from the threads that handler runs on (the thread that made a change this process
    /// made, the watcher thread for another process's; the initial value on the calling
    /// thread, before this returns), and consumed on the iterating task's executor.
    ///
    /// Buffers without limit, as ``changes(of:initial:)`` does; ends when the task iterating
    /// it is cancelled.
    ///
    /// - Parameters:
    ///   - key: the typed key to follow.
    ///   - initial: whether the sequence starts with the current value.
    /// - Returns: the sequence of values, the key's default where it has none.
    public func values<Value>(of key: PreferenceKey<Value>, initial: Bool = true) -> AsyncStream<Value> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let options: PreferenceObservationOptions = initial ? [.initial, .new] : [.new]
            let observation = observe(key, options: options) { continuation.yield($0.newValue) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }

    /// Calls `handler` for every commit that changes what this store's reads return, with the
    /// store's whole resolved values right after that commit and its commit number, in commit
    /// order (the configuration provider builds its snapshots from these).
    ///
    /// With `initial`, also calls it at once with the current values and commit number. A
    /// commit made while this registers may reach `handler` before that first call does;
    /// the commit numbers tell which view is newer.
    package func observeCommits(
        initial: Bool, handler: @escaping @Sendable (_ values: [String: PropertyListValue], _ commit: UInt64) -> Void
    ) -> PreferenceObservation {
        let id = observers.addCommitObserver { handler($0.values, $0.number) }
        startWatchingFiles()
        let observation = PreferenceObservation { [weak self] in self?.observers.removeCommitObserver(id: id) }
        if initial {
            let (values, commit) = current.read { ($0.pointee.allValues, $0.pointee.commit) }
            handler(values, commit)
        }
        return observation
    }

    private func addObserver(
        forKey key: String?, options: PreferenceObservationOptions,
        handler: @escaping @Sendable (PreferenceChange) -> Void
    ) -> PreferenceObservation {
        let id = observers.add(ObserverTable.Observer(options: options, handler: handler), forKey: key)
        startWatchingFiles()
        let observation = PreferenceObservation { [weak self] in self?.observers.remove(id: id, forKey: key) }
        if options.contains(.initial), let key {
            handler(PreferenceChange(key: key, oldValue: nil, newValue: value(forKey: key), origin: .thisProcess))
        }
        return observation
    }

    /// Starts watching every file of the search list and the schema, if the store does not
    /// yet (``FileWatching/whenObserved`` until its first observer); cheap once
    /// it does. Called with no lock held.
    func startWatchingFiles() {
        guard watchesFiles.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged else { return }
        for source in snapshot.read({ $0.layers.compactMap(\.source) }) { source.refresher.startWatching() }
        let (outcome, lookup) = withExtras { ($0.schemaOutcome, $0.schemaLookup) }
        followSchema(outcome, of: lookup, isNew: false)
    }

    /// Hands out this store's queued batches of this process's own changes on the calling
    /// thread, in commit order; the first batch from another process, and all after it, are
    /// left to the watcher thread (see ``ChangeDelivery``). For a thread that has just made a
    /// change; called with no lock held.
    package func deliverQueued() {
        delivery.drainOwn({ batch in deliver(batch) }, handToWatcher: { handToWatcher() })
    }

    /// Has changes found in a file (another process's commit, a hand edit) delivered on the
    /// watcher thread, as a job of its own, even when this is the watcher thread: a read made
    /// by a handler there must not run other handlers inside it. A read or a write that found
    /// the changes never runs a handler. Called with no lock held.
    package func deliverFoundChanges() {
        if delivery.needsWatcher() { handToWatcher() }
    }

    /// Asks the watcher thread to hand this store's queue out.
    private func handToWatcher() {
        DirectoryWatcher.shared.perform { [self] in deliverOnWatcher() }
    }

    /// Hands out every queued batch; on the watcher thread only (debug builds trap
    /// elsewhere: see ``ChangeDelivery/drainOnWatcher(_:)``).
    func deliverOnWatcher() {
        delivery.drainOnWatcher { batch in deliver(batch) }
    }

    /// Hands one batch to observers, commit observers and `NotificationCenter`.
    private func deliver(_ batch: ChangeDelivery.Batch) {
        if !observers.isEmpty || batch.values != nil {
            let changes = batch.changes.map { PreferenceChange(key: $0.key, oldValue: $0.old, newValue: $0.new, origin: batch.origin) }
            if !observers.isEmpty {
                observers.deliver(changes)
            }
            if let values = batch.values {
                observers.deliverCommit(ObserverTable.Commit(changes: changes, values: values, number: batch.commit))
            }
        }
        if batch.postsNotification && configuration.postsDidChangeNotification {
            changeNotification.post(for: self)
        }
    }

    /// Sends prior notifications for a change this process is about to make.
    func deliverPrior(_ change: ResolvedValues.Change) {
        observers.deliver([PreferenceChange(key: change.key, oldValue: change.old, newValue: nil, origin: .thisProcess, isPrior: true)])
    }
}
