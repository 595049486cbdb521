package import Logging
package import PropertyList

/// One domain file as this process shares it: what the process knows of it, and the one
/// place from which its changes reach the stores that use it.
///
/// There is one per file per process, however many stores use it, so two stores of the same
/// suite see each other's sets at once and their changes go out in one write. Its other jobs
/// are separate types: ``DomainWriter`` writes pending changes (lock, re-read, merge,
/// replace), ``FlushSchedule`` decides when a background write runs, and ``DomainRefresher``
/// reacts to the watcher. Every change of the values stores see (a set, a replacement, a
/// re-read, a write that merged in another process's keys) goes through
/// ``publish(_:origin:postsNotification:by:in:)`` under the state lock, so all stores see one
/// file's changes in one order.
package final class PersistentDomain: Sendable {
    /// The file.
    package let file: DomainFile
    /// How the file is read and written.
    package let policy: FilePolicy
    /// False for the managed and system layers, which this library never writes.
    package let isWritable: Bool
    /// Where writes and problems are logged (the first opener's logger).
    package let logger: Logger
    /// The session's runtime directory, where the commit counter lives (the first opener's).
    package let runtimeDirectory: String?

    /// What the process knows of the file, and its subscribers.
    package let state = ThreadLock(DomainState(), rank: .domainState)
    /// One writer of the file at a time in this process, so two writes never interleave their
    /// lock-read-write. Held across the cross-process `flock` and the write's I/O: nothing
    /// that must not wait for another process takes it.
    package let fileAccess = ThreadLock((), rank: .domainFile)
    /// One thread at a time brings this process's view of the file up to date: the watcher
    /// thread, a read that found the commit counter raised, and a write once its rename is
    /// done (still under the `flock`, so no newer version can exist while it installs its own).
    /// Held only while the file is read and decoded and its values installed, never while
    /// waiting for another process, so reads may wait for it. Changes `disk`, `known` and the
    /// counter's `seen` value; taken after ``fileAccess`` when both are held.
    package let view = ThreadLock((), rank: .domainView)
    /// When background writes run.
    private let flushes: FlushSchedule
    /// The file's commit counter once it is open, or why it cannot be (see
    /// ``CommitCounter``); opened under the file lock.
    package let commits = ThreadLock(CommitCounterState(), rank: .leaf)
    /// The first-open import of corelibs-Foundation's file
    /// (``importFoundationSettingsOnFirstOpen(from:)``): once per file per process, and a
    /// second thread opening the domain meanwhile waits for it.
    package let foundationImport = RunOnce()

    private init(file: DomainFile, policy: FilePolicy, isWritable: Bool, runtimeDirectory: String?, logger: Logger) {
        self.file = file
        self.runtimeDirectory = runtimeDirectory
        self.policy = policy
        self.isWritable = isWritable
        self.logger = logger
        // Unowned: the schedule belongs to this domain, which the process's table keeps for
        // as long as the process runs.
        let domain = Unowned()
        flushes = FlushSchedule { domain.value?.writeInBackground() ?? true }
        domain.value = self
    }

    /// A reference to a domain filled in once it exists; see the initialiser.
    private final class Unowned: @unchecked Sendable {
        // Safety: written once, in the initialiser, before the schedule can run.
        unowned(unsafe) var value: PersistentDomain?
    }

    /// Writes this file's pending changes.
    package var writer: DomainWriter { DomainWriter(domain: self) }
    /// Re-reads this file when the watcher says it may have changed.
    package var refresher: DomainRefresher { DomainRefresher(domain: self) }

    // MARK: The process-wide table

    private static let table = ThreadLock([String: PersistentDomain](), rank: .domainTable)

    /// The process's one instance for `file`; the first caller's policy and logger apply.
    ///
    /// - Parameter watching: Watch the file's directory for other processes' changes now
    ///   (``DomainRefresher/startWatching()``, idempotent); false leaves that to the first
    ///   caller that needs it, so a program that only reads starts no watcher thread and no
    ///   inotify instance (its reads stay fresh through the commit counter).
    package static func shared(
        _ file: DomainFile, policy: FilePolicy, isWritable: Bool,
        runtimeDirectory: String? = CommitCounterLocation.processRuntimeDirectory,
        logger: Logger = PreferencesLogger.default, watching: Bool = true
    ) -> PersistentDomain {
        let domain = table.withLock { table in
            if let existing = table[file.path] { return existing }
            let created = PersistentDomain(
                file: file, policy: policy, isWritable: isWritable, runtimeDirectory: runtimeDirectory, logger: logger)
            table[file.path] = created
            return created
        }
        // The counter first: a watcher that falls back to polling sleeps on it at once.
        domain.openCommitCounterIfNeeded()
        if watching { domain.refresher.startWatching() }
        ProcessExit.ensureFlushAtExit()
        return domain
    }

    /// A writable instance for a file no store of this process subscribes to or writes: the
    /// managed layer as its one writer (a fleet-policy service, as root) writes it, under the
    /// writer's own policy (modes 0644 and 0755). It is not the process's shared instance,
    /// which reads the layer under the system policy and never writes; it is not watched, and
    /// stores of this process see its commits as another process's, as every other process does.
    package static func writer(
        for file: DomainFile, policy: FilePolicy, runtimeDirectory: String? = CommitCounterLocation.processRuntimeDirectory,
        logger: Logger = PreferencesLogger.default
    ) -> PersistentDomain {
        PersistentDomain(file: file, policy: policy, isWritable: true, runtimeDirectory: runtimeDirectory, logger: logger)
    }

    /// Every domain this process has opened.
    package static var all: [PersistentDomain] {
        table.withLock { Array($0.values) }
    }

    // MARK: Reading

    /// The values stores should see: the file's, with this process's pending changes on
    /// top. Reads the file the first time.
    package func currentValues() -> [String: PropertyListValue] {
        loadIfNeeded()
        return state.withLock { $0.overlay }
    }

    /// Why the file is unusable, if it is (corrupt, unsafe, unreadable).
    package var problem: PreferencesError? {
        state.withLock { $0.problem }
    }

    /// The generation the values come from, when the file is corrupt and one decodes.
    package var recovery: DomainRecovery? {
        state.withLock { $0.recovery }
    }

    /// Declares keys private for every later commit of this file (a store's schema's private
    /// keys): their values are never kept in a generation, and removing one purges it from
    /// every kept copy. Keys stay declared while the process lives; more are added, none
    /// taken back, so a schema reloaded without them keeps the caution of the old one.
    package func declarePrivate(_ keys: Set<String>) {
        guard !keys.isEmpty else { return }
        state.withLock { $0.privateKeys.formUnion(keys) }
    }

    /// The keys declared private for this file (``declarePrivate(_:)``).
    package var privateKeys: Set<String> {
        state.withLock { $0.privateKeys }
    }

    /// Whether this process has changes not yet on disk.
    package var hasPendingChanges: Bool {
        state.withLock { $0.hasPendingChanges }
    }

    /// Whether this process has changes not yet on disk, or a write of them is still
    /// finishing: a write clears its changes from `pending` after its rename but raises the
    /// commit counter a moment later, and a flush that returned in between would let a
    /// reader elsewhere, told the flush is done, read before the counter says so. A write on
    /// the calling thread itself does not count: a flush from inside a transaction's body,
    /// with nothing pending, returns at once as it always did instead of waiting for the lock
    /// its own thread holds.
    package var hasUnfinishedWrites: Bool {
        let thread = SystemCalls.currentThread()
        return state.withLock { state in
            state.hasPendingChanges || (state.writingThread != nil && state.writingThread != thread)
        }
    }

    /// Reads the file if it has never been read.
    package func loadIfNeeded() {
        guard !state.withLock({ $0.isLoaded }) else { return }
        refresher.reload()
    }

    // MARK: Subscribers

    /// Adds `store` to the stores told of this file's changes and returns the values it
    /// should start from and their version, in one step, so no change can fall between the
    /// two.
    ///
    /// A store publishes the layer some time later; a change published in between finds no
    /// layer of this file in the store yet, so the store then calls
    /// ``resynchronize(_:ifChangedSince:)`` with the version.
    package func subscribe(_ store: any DomainSubscriber) -> (values: [String: PropertyListValue], version: UInt64) {
        loadIfNeeded()
        return state.withLock { state in
            state.subscribers[ObjectIdentifier(store)] = DomainState.WeakSubscriber(subscriber: store)
            return (state.overlay, state.version)
        }
    }

    /// Brings `store`'s layers of this file up to date with what the file holds now, if a
    /// change was published since `version`: for a store whose layers were made from values
    /// taken at that version (a new store, a suite added or removed).
    package func resynchronize(_ store: any DomainSubscriber, ifChangedSince version: UInt64) {
        let mustDeliver = state.withLock { state in
            guard state.version != version else { return false }
            return store.replaceLayerValues(from: self, with: state.overlay, origin: .anotherProcess)
        }
        if mustDeliver { store.deliverFoundChanges() }
    }

    /// Stops telling `store` of changes.
    package func unsubscribe(_ store: any DomainSubscriber) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: ObjectIdentifier(store)) }
    }

    // MARK: Changes

    /// What a store's set did, decided under the state lock.
    package enum SetOutcome {
        /// The key already had this value: nothing was changed and no one is told.
        case unchanged
        /// The set would take the domain to `size` bytes, over the hard limit; nothing changed.
        case refused(size: Int)
        /// Applied; the domain is now about `size` bytes, up from `previousSize`.
        case applied(previousSize: Int, size: Int)
    }

    /// Records this process's change of one key as pending and applies it to every store
    /// that uses the file, in one step; `decide` (called under the lock with the setting
    /// store's view of the key) may refuse it.
    ///
    /// - Returns: the outcome, and the stores whose deliveries the caller must then run
    ///   (``DomainSubscriber/deliverQueued()``), with no lock held.
    package func set(
        _ value: PropertyListValue?, forKey key: String, by caller: any DomainSubscriber, decide: () -> SetOutcome
    ) -> (SetOutcome, PendingDeliveries) {
        state.withLock { state in
            let outcome = decide()
            guard case .applied = outcome else { return (outcome, PendingDeliveries()) }
            state.pending[key] = .some(value)
            return (outcome, publish([(key, value)], origin: .thisProcess, postsNotification: true, by: caller, in: &state))
        }
    }

    /// Replaces the whole domain with `values` as this process's pending change
    /// (setPersistentDomain / removePersistentDomain) and applies it to every store.
    ///
    /// - Parameter caller: the store whose call this is: its batch posts no
    ///   `didChangeNotification`, because the call posts once itself; other stores' do.
    /// - Returns: the stores whose queued deliveries the caller must run with no lock held.
    package func replaceAll(with values: [String: PropertyListValue], notifying caller: any DomainSubscriber) -> PendingDeliveries {
        state.withLock { state in
            let delta = DomainState.delta(from: state.overlay, to: values)
            state.replacement = values
            state.pending = [:]
            guard !delta.isEmpty else { return PendingDeliveries() }
            state.publishedKeyCount += delta.count
            state.version &+= 1
            var stores = PendingDeliveries()
            for store in state.liveSubscribers
            where store.applyLayerChange(from: self, delta, origin: .thisProcess, postsNotification: store !== caller) {
                stores.append(store)
            }
            return stores
        }
    }

    /// Applies a change of the values stores see to every subscribed store, and returns the
    /// stores whose queued deliveries the caller must run once it has released every lock.
    ///
    /// Called under the state lock, and for every such change: the one path by which a file's
    /// changes reach stores, so all of them see the same changes in the same order. Each
    /// store resolves the change once (``DomainSubscriber/applyLayerChange(from:_:origin:postsNotification:)``).
    ///
    /// - Parameter caller: the store making the change, if a store is: it is used as it is,
    ///   where the others are reached through their weak references (whose loads cost).
    package func publish(
        _ delta: [(key: String, value: PropertyListValue?)], origin: ChangeOrigin,
        postsNotification: Bool, by caller: (any DomainSubscriber)? = nil, in state: inout DomainState
    ) -> PendingDeliveries {
        guard !delta.isEmpty else { return PendingDeliveries() }
        state.publishedKeyCount += delta.count
        state.version &+= 1
        var stores = PendingDeliveries()
        // The common case, one store on the file and it made the change: no weak reference
        // is loaded (each load and copy of one goes through the store's side table).
        if let caller, state.subscribers.count == 1, state.subscribers.index(forKey: ObjectIdentifier(caller)) != nil {
            if caller.applyLayerChange(from: self, delta, origin: origin, postsNotification: postsNotification) {
                stores.append(caller)
            }
            return stores
        }
        for store in state.liveSubscribers
        where store.applyLayerChange(from: self, delta, origin: origin, postsNotification: postsNotification) {
            stores.append(store)
        }
        return stores
    }

    // MARK: Writing

    /// Queues a background write unless one is queued already: sets that arrive while a
    /// write runs join the next one.
    package func scheduleFlush() {
        flushes.schedule()
    }

    /// The background write: returns whether it succeeded.
    private func writeInBackground() -> Bool {
        // An explicit flush may have written everything since this was queued.
        guard hasPendingChanges else { return true }
        do throws(PreferencesError) {
            // Not waiting for the directory sync: the next flush need not wait for it, and
            // whoever promises durability waits (see DirectorySync).
            try writer.flush(durably: false)
            return true
        } catch {
            return false
        }
    }

    /// Writes this process's pending changes now and durably (see ``DomainWriter/flush(durably:)``).
    package func flush() throws(PreferencesError) {
        try writer.flush(durably: true)
    }

    /// The atomic read-modify-write under the domain's lock (see ``DomainWriter/modify(changing:_:)``).
    package func modify<Result: Sendable>(
        changing changedKeys: () -> [String] = { [] },
        _ body: (inout [String: PropertyListValue]) throws(PreferencesError) -> Result
    ) throws(PreferencesError) -> Result {
        try writer.modify(changing: changedKeys, body)
    }

    /// Replaces the values and records their origin, as one durable commit (see
    /// ``DomainWriter/replace(with:origin:)``); returns whether the file changed.
    package func replace(with values: [String: PropertyListValue], origin: CommitOrigin?) throws(PreferencesError) -> Bool {
        try writer.replace(with: values, origin: origin)
    }

    /// Removes keys' values from every kept copy of the file (see ``DomainWriter/purge(keys:known:)``).
    package func purgeCopies(of keys: Set<String>?, known: [PropertyListValue]) throws(PreferencesError) -> DomainFile.PurgeOutcome {
        try writer.purge(keys: keys, known: known)
    }

    /// Re-reads the file now (see ``DomainRefresher/reload()``).
    package func reload() {
        refresher.reload()
    }
}
