package import PropertyList
/// What this process knows of one domain file: its values as last read or written, the
/// changes this process has made and not yet written, and who uses it. Pure data, kept under
/// the domain's state lock (``PersistentDomain``).
package struct DomainState {
    /// Where this process stands with the file: one of four states, never a mix of them.
    package enum Status {
        /// Not read (or written) yet.
        case unread
        /// Read or written: `disk` holds its values. The version `disk` came from, while the
        /// file still is that version as far as this process knows; nil if there is no file,
        /// or this process no longer knows which version it is.
        case current(known: DomainContents?)
        /// The file is corrupt and `disk` holds the newest generation that decodes instead,
        /// until the file changes or this process writes the domain. The corrupt file's
        /// identity, if it had settled, so that it is not read again until it changes.
        case recovered(DomainRecovery, failedIdentity: FileIdentity?)
        /// The file could not be used (unsafe, unreadable) or the last write failed: `disk`
        /// keeps the last good values. The identity of a file refused for its contents or
        /// ownership, not read again until it changes; the recovery still in force, if a
        /// write failed on a recovered domain.
        case unusable(PreferencesError, failedIdentity: FileIdentity?, recovery: DomainRecovery?)
    }

    /// Where this process stands with the file.
    package var status = Status.unread
    /// The file's values as last read or written.
    package var disk: [String: PropertyListValue] = [:]

    /// Whether the file has been read (or written) once.
    package var isLoaded: Bool {
        if case .unread = status { return false }
        return true
    }
    /// The version of the file `disk` came from, while the file still is that version as far
    /// as this process knows; nil otherwise.
    package var known: DomainContents? {
        if case .current(let known) = status { return known }
        return nil
    }
    /// The identity of a file that could not be used for its contents or ownership, so it is
    /// not read again until it changes.
    package var knownFailure: FileIdentity? {
        switch status {
        case .recovered(_, let identity), .unusable(_, let identity, _): identity
        case .unread, .current: nil
        }
    }
    /// Why the file could not be read or written last time, if it could not.
    package var problem: PreferencesError? {
        if case .unusable(let error, _, _) = status { return error }
        return nil
    }
    /// The generation `disk` holds because the file is corrupt, if it is.
    package var recovery: DomainRecovery? {
        switch status {
        case .recovered(let recovery, _): recovery
        case .unusable(_, _, let recovery): recovery
        case .unread, .current: nil
        }
    }

    /// What the file's status and values were before a new version is installed, held by
    /// the installer until it has released the state lock: the last references to a large
    /// domain's old values may be these, and freeing thousands of entries under the lock
    /// would keep every set of the domain waiting.
    package struct Retired {
        let status: Status
        let disk: [String: PropertyListValue]
    }

    /// The current status and values, for the caller to hold past the lock (see ``Retired``).
    package func retire() -> Retired {
        Retired(status: status, disk: disk)
    }

    /// Records a failed write: the file is as it was, and the next write reads it again.
    package mutating func writeFailed(_ error: PreferencesError) {
        status = .unusable(error, failedIdentity: knownFailure, recovery: recovery)
    }

    /// Replace the whole file with this before applying `pending` (setPersistentDomain).
    package var replacement: [String: PropertyListValue]?
    /// The keys the stores on this file declare private (their schemas' private keys), which
    /// every commit keeps out of the history.
    package var privateKeys: Set<String> = []
    /// This process's unwritten changes; nil removes the key.
    package var pending: [String: PropertyListValue?] = [:]
    /// The thread of a write that holds the file lock and has not yet raised the commit
    /// counter: its changes may have left `pending` already, so a flush on another thread that
    /// finds nothing pending waits for it (``PersistentDomain/hasUnfinishedWrites``).
    package var writingThread: UInt?
    /// The stores whose search lists include this file.
    package var subscribers: [ObjectIdentifier: WeakSubscriber] = [:]
    /// Keeps the directory watch on this file alive (and on its commit counter's name, when
    /// the counter lives beside the file).
    package var watch: [DirectoryWatcher.Registration]?
    /// How many key changes have been published to stores, in all: lets tests check that a
    /// write or a re-read hands back nothing the stores already hold.
    package var publishedKeyCount = 0
    /// How many changes have been published: a store that took the values at one version
    /// and published its layers later compares it to know whether it missed one.
    package var version: UInt64 = 0

    /// A store, held weakly: a store unsubscribes when it goes, and must not be kept alive
    /// by the files it reads.
    package struct WeakSubscriber {
        package weak var subscriber: (any DomainSubscriber)?
    }

    /// Whether this process has changes not yet on disk.
    package var hasPendingChanges: Bool { replacement != nil || !pending.isEmpty }

    /// What stores see of this file: its values with this process's pending changes on top.
    package var overlay: [String: PropertyListValue] {
        var values = replacement ?? disk
        for (key, value) in pending {
            values[key] = value
        }
        return values
    }

    /// The value stores see for one key.
    package func overlayValue(forKey key: String) -> PropertyListValue? {
        if let pendingValue = pending[key] { return pendingValue }
        return (replacement ?? disk)[key]
    }

    /// The stores still alive.
    package var liveSubscribers: [any DomainSubscriber] {
        subscribers.values.compactMap(\.subscriber)
    }

    /// What stores must be told when the file's values change from `disk` to `newDisk`:
    /// each key whose disk value changed and which neither a pending change nor a
    /// replacement hides, with its new value.
    ///
    /// `changedKeys` are the keys whose disk values differ (computed by the caller outside
    /// the lock, where it may take time); this only filters them.
    package func visibleChanges(
        of changedKeys: [String], in newDisk: [String: PropertyListValue]
    ) -> [(key: String, value: PropertyListValue?)] {
        guard replacement == nil else { return [] }
        return changedKeys.filter { pending[$0] == nil }.map { ($0, newDisk[$0]) }
    }

    /// The keys whose values differ between two versions of a file (in no particular order:
    /// sorting thousands of keys on the watcher thread, for every reload, would cost more than
    /// the comparison itself).
    package static func changedKeys(from old: [String: PropertyListValue], to new: [String: PropertyListValue]) -> [String] {
        var keys: [String] = []
        for (key, value) in new where old[key] != value { keys.append(key) }
        for key in old.keys where new[key] == nil { keys.append(key) }
        return keys
    }

    /// The changes between two overlays, as (key, new value) pairs.
    package static func delta(from old: [String: PropertyListValue], to new: [String: PropertyListValue]) -> [(key: String, value: PropertyListValue?)] {
        changedKeys(from: old, to: new).map { ($0, new[$0]) }
    }
}
