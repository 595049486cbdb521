/// A store's one ordered path from commits to everything that hears of them: observers,
/// async sequences, `didChangeNotification` and commit observers (the configuration
/// provider).
///
/// A commit queues its batch while it still holds the store's snapshot writer, so batches
/// queue in commit order, whichever thread or process made them. One thread at a time hands
/// the queue out, with no lock held, and which thread that is follows one rule (ARCHITECTURE.md,
/// "Where callbacks run"):
/// - a batch this process made is handed out by the thread that made it, before its call
///   returns, when the queue was idle (so a process's own change reaches its observers
///   synchronously, as on Apple's systems);
/// - a batch found in a file (another process's commit, found by the watcher, a read or a
///   write) is handed out by the watcher thread only, and so is every batch queued behind it;
/// - a batch queued while a thread is handing out (a handler that sets, another thread's
///   set) is handed out by that thread, after the one in hand, except that a thread other
///   than the watcher stops at the first batch from another process and leaves the rest to
///   the watcher.
///
/// No observer ever sees an older commit after a newer one, a store's handlers never run at
/// the same time, and no handler runs while a lock is held or on a thread that only read.
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
        /// True while the watcher thread has been asked to hand this queue out and has not
        /// started yet.
        var isHandedToWatcher = false
    }

    private let state = ThreadLock(State(), rank: .delivery)

    /// The rule ``drainOnWatcher(_:)`` checks in debug builds, as its trap states it.
    static let watcherRule =
        "other processes' changes are delivered on the watcher thread only (ARCHITECTURE.md, \"Where callbacks run\")"

    /// Queues a batch; true if nobody is handing batches out now, so the caller must, once it
    /// holds no lock, call ``drainOwn(_:handToWatcher:)`` (for a change this process made) or
    /// ``needsWatcher()`` (for one found in a file).
    ///
    /// Call it in the critical section that published the commit, so queue order is commit
    /// order.
    func enqueue(_ batch: Batch) -> Bool {
        state.withLock { state in
            state.queue.append(batch)
            return !state.isDelivering && !state.isHandedToWatcher
        }
    }

    /// Hands this process's own batches out on the calling thread, in commit order, until
    /// the queue is empty or the next batch came from another process; that one, and every
    /// batch after it, is left to the watcher thread (`handToWatcher` is called once, with no
    /// lock held). Does nothing if another thread is handing batches out: it takes these too.
    func drainOwn(_ deliver: (Batch) -> Void, handToWatcher: () -> Void) {
        guard begin(asWatcher: false) else { return }
        while true {
            switch next(ownOnly: true) {
            case .batch(let batch): deliver(batch)
            case .done: return
            case .leftForWatcher:
                handToWatcher()
                return
            }
        }
    }

    /// Asks the watcher thread to hand the queue out, unless a thread already is or it has
    /// been asked: true if the caller must now hand the work over (with no lock held).
    ///
    /// Not while the next batch is this process's own: its committer was told to hand it out
    /// (``enqueue(_:)`` returned true) and is about to, on its own thread; it stops at the
    /// first batch from another process and asks the watcher then.
    func needsWatcher() -> Bool {
        state.withLock { state in
            guard !state.isDelivering, !state.isHandedToWatcher, state.head < state.queue.count,
                state.queue[state.head].origin != .thisProcess
            else { return false }
            state.isHandedToWatcher = true
            return true
        }
    }

    /// Hands every queued batch out, on the watcher thread: other processes' batches and any
    /// of this process's queued behind them. If another thread is handing out this store's
    /// own batches just now, it leaves the rest to the watcher again when it reaches them.
    ///
    /// Debug builds trap when this runs on any other thread, as swift-nio's
    /// `preconditionInEventLoop` does: the one rule for other processes' changes would be
    /// broken silently otherwise.
    func drainOnWatcher(_ deliver: (Batch) -> Void) {
        #if DEBUG
        DirectoryWatcher.shared.preconditionOnWatcherThread(Self.watcherRule)
        #endif
        guard begin(asWatcher: true) else { return }
        while case .batch(let batch) = next(ownOnly: false) {
            deliver(batch)
        }
    }

    /// Takes the role of the one thread handing batches out, if nobody has it.
    private func begin(asWatcher: Bool) -> Bool {
        state.withLock { state in
            if asWatcher { state.isHandedToWatcher = false }
            // The watcher has been asked to take the queue: it delivers this batch too, after
            // the ones ahead of it.
            guard !state.isDelivering, asWatcher || !state.isHandedToWatcher else { return false }
            state.isDelivering = true
            return true
        }
    }

    private enum Next {
        case batch(Batch)
        case done
        case leftForWatcher
    }

    /// The next batch; `done` when none is left (or the watcher was asked already), and the
    /// role released.
    private func next(ownOnly: Bool) -> Next {
        state.withLock { state in
            guard state.head < state.queue.count else {
                state.queue.removeAll(keepingCapacity: state.queue.count <= 16)
                state.head = 0
                state.isDelivering = false
                return .done
            }
            let batch = state.queue[state.head]
            if ownOnly && batch.origin != .thisProcess {
                state.isDelivering = false
                if state.isHandedToWatcher { return .done }
                state.isHandedToWatcher = true
                return .leftForWatcher
            }
            state.head += 1
            return .batch(batch)
        }
    }
}
