/// Where a ``ThreadLock`` stands in the one order in which this package's locks may nest.
///
/// Every lock in the package is made with one of the ranks below, and a thread may only take
/// a lock whose rank is higher than that of every lock it already holds. Keeping the order in
/// one table, in the spirit of swift-nio's `preconditionInEventLoop`, makes it something the
/// code states and a debug build checks on every acquire, rather than something each type's
/// comments promise: a lock taken out of order traps at once, with both names, on the first
/// run that takes that path, instead of deadlocking one day under load.
///
/// The check costs a thread-local lookup per lock and unlock, so it is compiled into debug
/// builds only (the tests run those). ARCHITECTURE.md lists the same order with what each lock
/// guards.
@usableFromInline
package struct LockRank: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The position in the order: outer locks have lower values.
    @usableFromInline
    package let value: Int
    /// The lock's name, for the trap message.
    @usableFromInline
    package let name: String

    private init(_ value: Int, _ name: String) {
        self.value = value
        self.name = name
    }

    @usableFromInline
    package static func < (lhs: LockRank, rhs: LockRank) -> Bool { lhs.value < rhs.value }

    @usableFromInline
    package var description: String { "\(name) (rank \(value))" }

    // The order, outermost first. Gaps leave room for locks added later.

    /// `PersistentDomain`'s write lock: one writer of a domain file at a time in this process
    /// (held across the cross-process `flock`, the merge and the write's I/O).
    package static let domainFile = LockRank(10, "domain file")
    /// `PersistentDomain`'s view lock: one thread at a time reads the file into this process's
    /// view and installs it (the watcher, a read catching up, a write from just before its
    /// rename to its install). Never held while waiting for another process's lock (at most a
    /// few clock ticks for a file another program is rewriting in place): a read may wait for it.
    package static let domainView = LockRank(15, "domain view")
    /// `PersistentDomain`'s state: the file's values as last read or written, this process's
    /// pending changes and the stores subscribed to it. Held while a change is applied to
    /// every subscribed store, so all of them see one domain's changes in one order.
    package static let domainState = LockRank(20, "domain state")
    /// A store's suites and volatile domains.
    package static let storeExtras = LockRank(30, "store extras")
    /// A store's snapshot writer: one writer of the store's resolved values at a time
    /// (readers take no lock).
    package static let storeSnapshot = LockRank(40, "store snapshot writer")
    /// A store's delivery queue: entered under the snapshot writer, so batches queue in
    /// commit order.
    package static let delivery = LockRank(50, "change delivery")
    /// The process's table of typed-key slots (looked up while resolving values).
    package static let keySlots = LockRank(60, "typed key slots")
    /// The process's table of shared domains, by path.
    package static let domainTable = LockRank(70, "domain table")
    /// The inotify watcher's table and descriptors.
    package static let watcher = LockRank(80, "directory watcher")
    /// The directory syncer's turn: one directory `fsync` at a time, progress taken inside.
    package static let directorySyncing = LockRank(85, "directory syncing")
    /// Directory-sync progress per directory.
    package static let directorySync = LockRank(90, "directory sync progress")
    /// A domain lock file's blocking waiter (the process's waiter table is taken inside).
    package static let lockWaiter = LockRank(100, "domain lock waiter")
    /// The process's table of blocked and abandoned lock waiters.
    package static let lockWaiterTable = LockRank(105, "domain lock waiter table")
    /// A lock under which no other lock is taken: observer tables, observation tokens, log
    /// rate limits, and any lock made without a rank (tests, other modules' small state).
    package static let leaf = LockRank(1000, "leaf")

    /// Every rank above, outermost first: the lock table ARCHITECTURE.md mirrors.
    package static let declared: [LockRank] = [
        .domainFile, .domainView, .domainState, .storeExtras, .storeSnapshot, .delivery, .keySlots, .domainTable,
        .watcher, .directorySyncing, .directorySync, .lockWaiter, .lockWaiterTable, .leaf,
    ]
}
