import Foundation
import Logging

/// One domain file as this process shares it: its last known contents, the changes this
/// process has made and not yet written, and the background flush that writes them.
///
/// There is one per file per process, however many stores use it, so two stores of the
/// same suite see each other's sets at once and their changes go out in one write. A
/// flush takes the file's lock, re-reads it, applies only this process's pending changes
/// (so another process's keys are never lost or resurrected), and writes atomically.
final class PersistentDomain: Sendable {
    /// The file.
    let file: DomainFile
    /// How the file is read and written.
    let policy: FilePolicy
    /// False for the managed and system layers, which this library never writes.
    let isWritable: Bool
    /// Where writes and problems are logged (the first opener's logger).
    let logger: Logger

    private struct State {
        var isLoaded = false
        /// The file's values as last read or written.
        var disk: [String: PropertyListValue] = [:]
        /// The version of the file `disk` came from, while the file still is that version
        /// as far as this process knows; nil if there is no file or it could not be read.
        var known: DomainContents?
        /// The identity of a file that could not be used for its contents or ownership, so
        /// it is not read again until it changes.
        var knownFailure: FileIdentity?
        /// Why the file could not be read or written last time, if it could not.
        var problem: PreferencesError?
        /// Replace the whole file with this before applying `pending` (setPersistentDomain).
        var replacement: [String: PropertyListValue]?
        /// This process's unwritten changes; nil removes the key.
        var pending: [String: PropertyListValue?] = [:]
        var isFlushScheduled = false
        var retryDelay: Duration = .zero
        var subscribers: [ObjectIdentifier: WeakStore] = [:]
        /// Keeps the directory watch on this file alive.
        var watch: DirectoryWatcher.Registration?
        /// What stores still have to be told, in the order the state changed.
        var deliveries: [Delivery] = []
        /// True while some thread is handing `deliveries` to the stores.
        var isDelivering = false
        /// That thread, so it never waits for itself.
        var deliveringThread: UInt?
        /// Deliveries queued and handed out so far, to know when a caller's has been made.
        var queuedCount: UInt64 = 0
        var deliveredCount: UInt64 = 0
        /// Callers waiting for the delivering thread to reach their delivery.
        var deliveryWaiters: [(ticket: UInt64, semaphore: DispatchSemaphore)] = []
        /// The watcher saw a change; honoured by whoever holds the flush lock next, or
        /// after releasing it (see `refreshIfRequested()`).
        var needsRefresh = false
    }

    /// A change the stores must hear of.
    private enum Delivery {
        /// A store in this process set or removed a key; the value handed out is the key's
        /// value when the delivery is made.
        case change(key: String)
        /// The domain's values as a whole changed (a read, a write or a replacement); the
        /// values handed out are the state's when the delivery is made, never older.
        case reload(origin: PreferenceChange.Origin)
    }

    private struct WeakStore {
        weak var store: PreferenceStore?
    }

    private let state = ThreadLock(State())
    /// Serialises flushes of this file, so two never interleave their lock-read-write.
    private let flushing = ThreadLock(())

    private init(file: DomainFile, policy: FilePolicy, isWritable: Bool, logger: Logger) {
        self.file = file
        self.policy = policy
        self.isWritable = isWritable
        self.logger = logger
    }

    // MARK: The process-wide table

    private static let table = ThreadLock([String: PersistentDomain]())

    /// The process's one instance for `file`; the first caller's policy and logger apply.
    static func shared(
        _ file: DomainFile, policy: FilePolicy, isWritable: Bool, logger: Logger = PreferencesLogger.default
    ) -> PersistentDomain {
        let domain = table.withLock { table in
            if let existing = table[file.path] { return existing }
            let created = PersistentDomain(file: file, policy: policy, isWritable: isWritable, logger: logger)
            table[file.path] = created
            return created
        }
        domain.startWatching()
        ProcessExit.ensureFlushAtExit()
        return domain
    }

    /// Every domain this process has opened.
    static var all: [PersistentDomain] {
        table.withLock { Array($0.values) }
    }

    // MARK: Reading

    /// The values stores should see: the file's, with this process's pending changes on
    /// top. Reads the file the first time.
    func currentValues() -> [String: PropertyListValue] {
        loadIfNeeded()
        return state.withLock { Self.overlay($0) }
    }

    /// Why the file is unusable, if it is (corrupt, unsafe, unreadable).
    var problem: PreferencesError? {
        state.withLock { $0.problem }
    }

    /// Whether this process has changes not yet on disk.
    var hasPendingChanges: Bool {
        state.withLock { $0.replacement != nil || !$0.pending.isEmpty }
    }

    private func loadIfNeeded() {
        guard !state.withLock({ $0.isLoaded }) else { return }
        reload()
    }

    /// Watches the file's directory, once: another process's write, a hand edit or a
    /// deletion then reaches every store within milliseconds, with no call.
    private func startWatching() {
        let needsWatch = state.withLock { $0.watch == nil }
        guard needsWatch else { return }
        let registration = DirectoryWatcher.shared.watch(directory: file.directory, fileName: file.fileName) { [weak self] in
            self?.refreshFromDisk()
        }
        let redundant = state.withLock { state -> DirectoryWatcher.Registration? in
            if state.watch == nil {
                state.watch = registration
                return nil
            }
            return registration
        }
        redundant?.cancel()
    }

    /// Called by the watcher: re-reads the file if it is not the one this process last read
    /// or wrote (its own writes are recognised and not parsed again).
    ///
    /// Serialised with flushes and reloads by the flush lock, so a read racing a write never
    /// installs stale values. The watcher thread never waits for that lock (a flush may be
    /// waiting for another process's): it leaves a request that whoever holds the lock
    /// honours after releasing it (see ``refreshIfRequested()``).
    func refreshFromDisk() {
        state.withLock { $0.needsRefresh = true }
        refreshIfRequested()
    }

    /// Honours refresh requests until none is left or another thread holds the flush lock.
    ///
    /// The request is set before the lock is tried, and every holder calls this after
    /// releasing it, so a request that found the lock taken is always seen by its holder.
    private func refreshIfRequested() {
        while state.withLock({ $0.needsRefresh }) {
            let outcome = flushing.withLockIfAvailable { _ -> (shouldDeliver: Bool, failure: PreferencesError?)? in
                state.withLock { $0.needsRefresh = false }
                return isCurrent() ? nil : reloadWhileLocked()
            }
            // Taken: its holder refreshes after releasing it.
            guard let outcome else { return }
            if let outcome { finishReload(outcome) }
        }
    }

    /// Whether the file on disk is still the version this process last read or wrote; the
    /// caller holds the flush lock.
    private func isCurrent() -> Bool {
        let (isLoaded, known, knownFailure) = state.withLock { ($0.isLoaded, $0.known, $0.knownFailure) }
        guard isLoaded else { return false }
        if let known {
            guard let confirmed = file.stillHolds(known, policy: policy) else { return false }
            // Only holders of the flush lock change `known`, and the caller is one.
            state.withLock { $0.known = confirmed }
            return true
        }
        return file.identity() == knownFailure
    }

    /// Re-reads the file and hands its values (with pending changes on top) to every store;
    /// what differs came from outside this process.
    func reload() {
        // Under the flush lock, so a write cannot land between this read and installing
        // what it read.
        let outcome = flushing.withLock { _ in reloadWhileLocked() }
        finishReload(outcome)
        refreshIfRequested()
    }

    /// Reads the file and installs what it read; the caller holds the flush lock and then
    /// calls ``finishReload(_:)``.
    private func reloadWhileLocked() -> (shouldDeliver: Bool, failure: PreferencesError?) {
        let identityBefore = file.identity()
        let outcome: Result<DomainContents?, PreferencesError>
        do throws(PreferencesError) {
            outcome = .success(try file.read(policy: policy))
        } catch {
            outcome = .failure(error)
        }
        // Remember a failed file only if it did not change while it was read and had not
        // changed within a clock tick before: a file being written in place reads as
        // damaged until the writer is done, and its finished version (which may have the
        // same identity) must not be mistaken for the damaged one.
        var failedIdentity: FileIdentity? = nil
        if case .failure = outcome, let identityBefore, file.identity() == identityBefore,
            identityBefore.isSettled(at: SystemCalls.wallClockNanoseconds())
        {
            failedIdentity = identityBefore
        }
        return state.withLock { state -> (Bool, PreferencesError?) in
            state.isLoaded = true
            switch outcome {
            case .success(let contents):
                state.disk = contents?.values ?? [:]
                state.known = contents
                state.knownFailure = nil
                state.problem = nil
                return (Self.enqueue(.reload(origin: .anotherProcess), in: &state), nil)
            case .failure(let error):
                // Keep the last good values: a damaged file must not wipe settings. A file
                // refused for its contents or its ownership is remembered by identity, so it
                // is not parsed again until it changes; after an I/O error the next event
                // tries again.
                state.known = nil
                state.knownFailure = error.code == .io ? nil : failedIdentity
                state.problem = error
                return (false, error)
            }
        }
    }

    /// Reports a reload's failure and delivers its result, outside the flush lock.
    private func finishReload(_ outcome: (shouldDeliver: Bool, failure: PreferencesError?)) {
        if let failure = outcome.failure {
            PreferencesLogger.report(failure, event: .unreadable, to: logger)
        }
        finishDeliveries(mustDeliver: outcome.shouldDeliver)
    }

    /// Queues a delivery; true if the caller must deliver the queue (nobody else is).
    ///
    /// Deliveries are queued in the same critical section that changed the state, and one
    /// thread at a time hands them out in order, so a store can never be handed an older
    /// state after a newer one (a write's result after a deletion seen meanwhile).
    private static func enqueue(_ delivery: Delivery, in state: inout State) -> Bool {
        state.deliveries.append(delivery)
        state.queuedCount += 1
        if state.isDelivering { return false }
        state.isDelivering = true
        state.deliveringThread = SystemCalls.currentThread()
        return true
    }

    /// Makes sure what the caller queued has reached the stores when this returns: hands
    /// the queue out if the caller must, else waits for the thread that is doing so —
    /// unless that is this thread, further up the stack (a handler), which will.
    func finishDeliveries(mustDeliver: Bool) {
        if mustDeliver {
            deliverQueued()
            return
        }
        let waiter = state.withLock { state -> DispatchSemaphore? in
            guard state.isDelivering, state.deliveringThread != SystemCalls.currentThread(),
                state.deliveredCount < state.queuedCount
            else { return nil }
            let semaphore = DispatchSemaphore(value: 0)
            state.deliveryWaiters.append((state.queuedCount, semaphore))
            return semaphore
        }
        waiter?.wait()
    }

    private func deliverQueued() {
        var hasDelivered = false
        while true {
            let next = state.withLock { state -> (Delivery, [PreferenceStore], [String: PropertyListValue]?, PropertyListValue?)? in
                if hasDelivered {
                    state.deliveredCount += 1
                }
                guard !state.deliveries.isEmpty else {
                    state.isDelivering = false
                    state.deliveringThread = nil
                    for waiter in state.deliveryWaiters { waiter.semaphore.signal() }
                    state.deliveryWaiters = []
                    return nil
                }
                let delivered = state.deliveredCount
                state.deliveryWaiters.removeAll { waiter in
                    guard waiter.ticket <= delivered else { return false }
                    waiter.semaphore.signal()
                    return true
                }
                let delivery = state.deliveries.removeFirst()
                let stores = state.subscribers.values.compactMap(\.store)
                switch delivery {
                case .change(let key):
                    let value = state.pending[key] ?? (state.replacement ?? state.disk)[key]
                    return (delivery, stores, nil, value)
                case .reload:
                    return (delivery, stores, Self.overlay(state), nil)
                }
            }
            guard let (delivery, stores, values, value) = next else { return }
            hasDelivered = true
            switch delivery {
            case .change(let key):
                // Every store, the one that made the change too: a no-op for it unless an
                // older state reached it meanwhile, which this puts right.
                for store in stores {
                    store.domainDidChange(self, key: key, value: value)
                }
            case .reload(let origin):
                for store in stores {
                    store.domainDidReload(self, values: values ?? [:], origin: origin)
                }
            }
        }
    }

    private static func overlay(_ state: State) -> [String: PropertyListValue] {
        var values = state.replacement ?? state.disk
        for (key, value) in state.pending {
            values[key] = value
        }
        return values
    }

    // MARK: Subscribers

    func subscribe(_ store: PreferenceStore) {
        state.withLock { $0.subscribers[ObjectIdentifier(store)] = WeakStore(store: store) }
    }

    func unsubscribe(_ store: PreferenceStore) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: ObjectIdentifier(store)) }
    }

    // MARK: Writing

    /// Records a change made by `origin` as pending and queues it for the other stores on
    /// this file. Called inside the store's lock, so it only changes state: unless this
    /// returns nil (nothing queued), the caller then calls
    /// ``finishDeliveries(mustDeliver:)`` with the result, and ``scheduleFlush(after:)``.
    func record(_ value: PropertyListValue?, forKey key: String, from origin: PreferenceStore) -> Bool? {
        state.withLock { state in
            state.pending[key] = .some(value)
            // With no other store on this file there is no one to tell: the caller has the
            // value already, and any later delivery carries the pending value.
            guard state.subscribers.count > 1 else { return nil }
            return Self.enqueue(.change(key: key), in: &state)
        }
    }

    /// Replaces the whole domain (setPersistentDomain / removePersistentDomain).
    func replaceAll(with values: [String: PropertyListValue]) {
        let shouldDeliver = state.withLock { state in
            state.replacement = values
            state.pending = [:]
            return Self.enqueue(.reload(origin: .thisProcess), in: &state)
        }
        finishDeliveries(mustDeliver: shouldDeliver)
        scheduleFlush()
    }

    private static let queue = DispatchQueue(label: "swift-preferences.flush")

    /// Queues a background flush unless one is already queued: sets that arrive while a
    /// flush runs join the next one.
    func scheduleFlush(after delay: Duration = .zero) {
        let shouldSchedule = state.withLock { state in
            if state.isFlushScheduled { return false }
            state.isFlushScheduled = true
            return true
        }
        guard shouldSchedule else { return }
        let work: @Sendable () -> Void = { [self] in
            state.withLock { $0.isFlushScheduled = false }
            // An explicit flush may have written everything since this was queued.
            guard hasPendingChanges else { return }
            do throws(PreferencesError) {
                // Not waiting for the directory sync: the next flush need not wait for it,
                // and whoever promises durability waits (see DirectorySync).
                try flush(durably: false)
                state.withLock { $0.retryDelay = .zero }
            } catch {
                // Keep the changes and try again later, backing off to 30 s.
                let delay = state.withLock { state -> Duration in
                    state.retryDelay = min(max(state.retryDelay * 2, .milliseconds(250)), .seconds(30))
                    return state.retryDelay
                }
                scheduleFlush(after: delay)
            }
        }
        if delay == .zero {
            Self.queue.async(execute: work)
        } else {
            Self.queue.asyncAfter(deadline: .now(after: delay), execute: work)
        }
    }

    /// Writes this process's pending changes now.
    ///
    /// Takes the file's lock, re-reads it, applies only the pending changes, writes a new
    /// file and renames it into place. On failure the changes stay pending.
    ///
    /// - Parameter durably: Return only once the rename (this one, or an earlier flush's
    ///   with nothing left to write now) is synced to disk: a crash after the return
    ///   loses nothing. A background flush passes false and lets ``DirectorySync`` finish.
    func flush(durably: Bool = true) throws(PreferencesError) {
        guard hasPendingChanges else {
            if durably { try DirectorySync.shared.waitForRequestedSyncs(of: file.directory) }
            return
        }
        _ = try write(onlyIfPending: true, durably: durably) { _ in }
    }

    /// Flushes, and runs `body` on the file's values under the same lock: the atomic
    /// read-modify-write. `body` sees the file's current values with this process's
    /// pending changes applied.
    func modify<Result: Sendable>(
        changing changedKeys: [String] = [],
        _ body: (inout [String: PropertyListValue]) throws(PreferencesError) -> Result
    ) throws(PreferencesError) -> Result {
        // Never nil: the write is unconditional.
        try write(changing: changedKeys, onlyIfPending: false, body)!
    }

    /// The locked read-modify-write behind ``flush()`` and ``modify(changing:_:)``.
    ///
    /// - Parameter onlyIfPending: Do nothing, and return nil, if no change is pending once
    ///   the lock is held (another flush wrote them meanwhile). A flush with nothing to
    ///   write must not touch the file, least of all replace one that reads as damaged,
    ///   which may be another program's in-place rewrite caught halfway.
    private func write<Result: Sendable>(
        changing changedKeys: [String] = [],
        onlyIfPending: Bool,
        durably: Bool = true,
        _ body: (inout [String: PropertyListValue]) throws(PreferencesError) -> Result
    ) throws(PreferencesError) -> Result? {
        guard isWritable else {
            throw PreferencesError(.readOnly, path: file.path, "this layer is read-only")
        }
        // A refresh requested while this holds the lock is honoured afterwards, on every path.
        defer { refreshIfRequested() }
        // The lock timeout counts from now, not from when another thread's flush (perhaps
        // itself waiting out the timeout on a stopped holder) lets go of `flushing`: a
        // flush gives up after the configured bound, not twice it.
        let lockDeadline = ContinuousClock.now.advanced(by: policy.lockTimeout)
        let written = try flushing.withLock { _ throws(PreferencesError) -> (Result, Bool)? in
            let (batch, replacement, fallback, known) = state.withLock { state in
                (state.pending, state.replacement, state.disk, state.problem == nil ? state.known : nil)
            }
            let hasChanges = !batch.isEmpty || replacement != nil
            if onlyIfPending && !hasChanges { return nil }
            let outcome: (result: Result, contents: DomainContents?, changedDirectory: Bool)
            do throws(PreferencesError) {
                outcome = try file.update(policy: policy, recovering: fallback, known: known, lockDeadline: lockDeadline) { values throws(PreferencesError) -> Result in
                    if let replacement { values = replacement }
                    for (key, value) in batch { values[key] = value }
                    return try body(&values)
                }
            } catch {
                state.withLock { $0.problem = error }
                if hasChanges { PreferencesLogger.report(error, event: .writeFailed, to: logger) }
                throw error
            }
            if outcome.changedDirectory { DirectorySync.shared.requestSync(of: file.directory, logger: logger) }
            let identityBefore = state.withLock { $0.known?.identity ?? $0.knownFailure }
            if outcome.contents?.identity != identityBefore {
                var keys = Set(batch.keys).union(replacement?.keys ?? [:].keys)
                keys.formUnion(changedKeys)
                logWrite(keys: keys.sorted(), bytes: outcome.contents?.byteCount ?? 0)
            }
            let shouldDeliver = state.withLock { state -> Bool in
                state.isLoaded = true
                state.problem = nil
                state.disk = outcome.contents?.values ?? [:]
                state.known = outcome.contents
                state.knownFailure = nil
                if let written = replacement, state.replacement == written { state.replacement = nil }
                // Drop only the changes that were written; a set made during the write
                // changed the value and stays pending for the next flush.
                for (key, value) in batch where state.pending[key] == value {
                    state.pending[key] = nil
                }
                // What differs from the stores' view now came from other processes: this
                // process's own changes reached the stores when they were made.
                return Self.enqueue(.reload(origin: .anotherProcess), in: &state)
            }
            return (outcome.result, shouldDeliver)
        }
        // A first write may have created the directory: have it watched at once, so even
        // its removal a moment later is seen. Also when this flush found nothing left to
        // write: the flush that wrote it may not have got this far yet.
        DirectoryWatcher.shared.directoryMayHaveAppeared(file.directory)
        guard let (result, shouldDeliver) = written else {
            // Whoever wrote the changes meanwhile may still be handing the result to the
            // stores; a flush returns only once they have it.
            finishDeliveries(mustDeliver: false)
            if durably { try DirectorySync.shared.waitForRequestedSyncs(of: file.directory) }
            return nil
        }
        // Outside the flush lock: a store's observers may set or flush again.
        finishDeliveries(mustDeliver: shouldDeliver)
        // Last, with no lock held: the next writer need not wait for this sync.
        if durably { try DirectorySync.shared.waitForRequestedSyncs(of: file.directory) }
        return result
    }

    /// Logs one entry for a write: the domain, the keys this process changed, the size.
    private func logWrite(keys: [String], bytes: Int) {
        let domain = file.fileName.hasSuffix(".plist") ? String(file.fileName.dropLast(6)) : file.fileName
        logger.info(
            "wrote \(domain): \(keys.count) key\(keys.count == 1 ? "" : "s") changed, \(bytes) bytes",
            metadata: [
                "MESSAGE_ID": .string(PreferencesLogEvent.wrote.messageID),
                "PREFERENCES_DOMAIN": .string(domain),
                "PREFERENCES_KEYS": .array(keys.map { .string($0) }),
                "PREFERENCES_BYTES": .string(String(bytes)),
                "PREFERENCES_PATH": .string(file.path),
            ])
    }
}
