import Configuration
import Foundation
import Preferences

/// Holds a provider's current snapshot and hands each new one to the watchers, in order.
///
/// The store tells us that a key changed (on the changing thread, or the inotify watcher
/// thread for other processes' writes); we then re-read the whole resolved domain once,
/// never patch one key in, because patching would publish half of a multi-key write.
/// Bursts coalesce twice over: a reload that changes N keys notifies N times in a row, and
/// after the first rebuild the others find their new value already in the snapshot and
/// cost a dictionary lookup, not a rebuild; and one thread at a time rebuilds, so a change
/// that arrives meanwhile only marks the snapshot stale and that thread goes round again.
/// Watchers therefore never see an older snapshot after a newer one.
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
        var valueWatchers: [UUID: ValueWatcher] = [:]
        var snapshotWatchers: [UUID: AsyncStream<any ConfigSnapshot>.Continuation] = [:]
        /// A thread is rebuilding the snapshot now.
        var isRefreshing = false
        /// A change arrived while rebuilding: the rebuilt snapshot may already be stale.
        var isStale = false
    }

    private let state: ThreadLock<State>

    init(initial: PreferencesSnapshot) {
        state = ThreadLock(State(snapshot: initial))
    }

    /// The current snapshot.
    var snapshot: PreferencesSnapshot {
        state.withLock { $0.snapshot }
    }

    /// Handles the store's notice that `key` now resolves to `newValue`: nothing if the
    /// current snapshot already holds it, else a ``refresh(_:)``. Called with no lock held.
    func keyDidChange(_ key: String, to newValue: PropertyListValue?, rebuild build: () -> PreferencesSnapshot) {
        let included = state.withLock { !$0.isRefreshing && $0.snapshot.source[key] == newValue }
        if !included { refresh(build) }
    }

    /// Rebuilds the snapshot with `build` and publishes it if it differs; see the type's
    /// comment for why only one thread builds at a time. Called with no lock held.
    func refresh(_ build: () -> PreferencesSnapshot) {
        let mustBuild = state.withLock { state -> Bool in
            if state.isRefreshing {
                state.isStale = true
                return false
            }
            state.isRefreshing = true
            return true
        }
        guard mustBuild else { return }
        var again = true
        while again {
            // Built outside our lock: flattening a large domain must not stall readers.
            let snapshot = build()
            again = state.withLock { state -> Bool in
                publish(snapshot, in: &state)
                if state.isStale {
                    state.isStale = false
                    return true
                }
                state.isRefreshing = false
                return false
            }
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
