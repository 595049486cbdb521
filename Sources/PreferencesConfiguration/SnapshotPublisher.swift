// With the package's Configuration trait only: it brings in swift-configuration.
#if Configuration
import Configuration
import Foundation
import Preferences

/// Holds a provider's current snapshot and hands each new one to the watchers, in order.
///
/// The store hands over one snapshot per commit, built from the store's values at that
/// commit (see `PreferenceStore.observeCommits`), in commit order; the commit number keeps
/// the provider's first snapshot, read while registering, from replacing a newer commit that
/// arrived first. Watchers therefore never see an older snapshot after a newer one.
final class SnapshotPublisher: Sendable {
    /// A `watchValue` subscriber: the key it follows and the last leaf it was sent, so it
    /// hears only about changes of its own key.
    struct ValueWatcher {
        let encodedKey: String
        let type: ConfigType
        let continuation: AsyncStream<Result<LookupResult, any Error>>.Continuation
        var lastLeaf: PropertyListValue?
    }

    struct State {
        var snapshot: PreferencesSnapshot
        /// The store's commit `snapshot` was built from; nil before the first.
        var commit: UInt64?
        var valueWatchers: [UUID: ValueWatcher] = [:]
        var snapshotWatchers: [UUID: AsyncStream<any ConfigSnapshot>.Continuation] = [:]
    }

    private let state: ThreadLock<State>

    init(initial: PreferencesSnapshot) {
        state = ThreadLock(State(snapshot: initial), rank: .leaf)
    }

    /// The current snapshot.
    var snapshot: PreferencesSnapshot {
        state.withLock { $0.snapshot }
    }

    /// Publishes the snapshot of the store's commit `commit`, unless a newer one is out
    /// already. Called with no lock held; the snapshot was built outside any lock.
    func publish(_ snapshot: PreferencesSnapshot, commit: UInt64) {
        state.withLock { state in
            if let current = state.commit, current >= commit { return }
            state.commit = commit
            publish(snapshot, in: &state)
        }
    }

    /// Swaps in `snapshot` and tells every watcher whose view changed. Runs under the lock
    /// so that registering a watcher (which yields the current state) and publishing can
    /// never interleave; yielding to an `AsyncStream` only enqueues, it runs no user code.
    private func publish(_ snapshot: PreferencesSnapshot, in state: inout State) {
        guard snapshot.source != state.snapshot.source else { return }
        state.snapshot = snapshot
        for (id, watcher) in state.valueWatchers {
            let leaf = snapshot.leaves[watcher.encodedKey]
            guard leaf != watcher.lastLeaf else { continue }
            state.valueWatchers[id]?.lastLeaf = leaf
            watcher.continuation.yield(snapshot.lookupResult(watcher.encodedKey, type: watcher.type))
        }
        for continuation in state.snapshotWatchers.values {
            continuation.yield(snapshot)
        }
    }

    /// Registers a value watcher and sends it the current value at once.
    func addValueWatcher(
        id: UUID, encodedKey: String, type: ConfigType,
        continuation: AsyncStream<Result<LookupResult, any Error>>.Continuation
    ) {
        state.withLock { state in
            let leaf = state.snapshot.leaves[encodedKey]
            state.valueWatchers[id] = ValueWatcher(
                encodedKey: encodedKey, type: type, continuation: continuation, lastLeaf: leaf)
            continuation.yield(state.snapshot.lookupResult(encodedKey, type: type))
        }
    }

    /// Registers a snapshot watcher and sends it the current snapshot at once.
    func addSnapshotWatcher(id: UUID, continuation: AsyncStream<any ConfigSnapshot>.Continuation) {
        state.withLock { state in
            state.snapshotWatchers[id] = continuation
            continuation.yield(state.snapshot)
        }
    }

    /// Unregisters a watcher of either kind and ends its stream.
    func removeWatcher(id: UUID) {
        let removed = state.withLock { state in
            (state.valueWatchers.removeValue(forKey: id)?.continuation, state.snapshotWatchers.removeValue(forKey: id))
        }
        removed.0?.finish()
        removed.1?.finish()
    }
}
#endif  // Configuration
