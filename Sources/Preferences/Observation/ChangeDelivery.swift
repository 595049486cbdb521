/// A store's one ordered path from commits to everything that hears of them: observers,
/// async sequences, `didChangeNotification` and commit observers (the configuration
/// provider).
///
/// A commit queues its batch while it still holds the store's snapshot writer, so batches
/// queue in commit order, whichever thread or process made them. One thread at a time hands
/// the queue out, with no lock held: the thread that queued into an idle queue does it before
/// its `set` returns (so a process's own change reaches its observers synchronously, as on
/// Apple's systems), and a batch queued while another thread is handing out (a handler that
/// sets, or a change from another process arriving on the watcher thread) is handed out by
/// that thread, after the batch in hand. No observer ever sees an older commit after a newer
/// one, and no handler runs while a lock is held.
final class ChangeDelivery: Sendable {
    /// What one commit changed for one store.
    struct Batch: Sendable {
        /// The keys whose effective values changed, in the order they changed.
        var changes: [ResolvedValues.Change]
        /// Who made the commit.
        var origin: PreferenceChange.Origin
        /// Whether the batch posts `didChangeNotification` (false when the call that made it
        /// posts once itself, as `setPersistentDomain` does).
        var postsNotification: Bool
        /// The store's whole resolved values after the commit, when a commit observer needs
        /// them; taken at commit time so each observer sees exactly that commit.
        var values: [String: PropertyListValue]?
        /// The snapshot's commit number after the commit.
        var commit: UInt64
    }

    private struct State {
        var queue: [Batch] = []
        /// The index of the next batch to hand out; the queue is compacted when drained.
        var head = 0
        /// True while some thread is handing batches out.
        var isDelivering = false
    }

    private let state = ThreadLock(State(), rank: .delivery)

    /// Queues a batch; true if the caller must now call ``drain(_:)`` (nobody else is).
    ///
    /// Call it in the critical section that published the commit, so queue order is commit
    /// order.
    func enqueue(_ batch: Batch) -> Bool {
        state.withLock { state in
            state.queue.append(batch)
            if state.isDelivering { return false }
            state.isDelivering = true
            return true
        }
    }

    /// Hands queued batches to `deliver`, one at a time and with no lock held, until the queue
    /// is empty; batches queued meanwhile are handed out by this same loop.
    func drain(_ deliver: (Batch) -> Void) {
        while let batch = next() {
            deliver(batch)
        }
    }

    /// The next batch, or nil when none is left (and the queue released).
    private func next() -> Batch? {
        state.withLock { state in
            guard state.head < state.queue.count else {
                state.queue.removeAll(keepingCapacity: state.queue.count <= 16)
                state.head = 0
                state.isDelivering = false
                return nil
            }
            defer { state.head += 1 }
            return state.queue[state.head]
        }
    }
}
