import Logging
import SystemPackage
package import PropertyList

/// Writes one domain's pending changes: takes the file's lock, re-reads it unless it is
/// still the version this process knows, applies only this process's changes (so another
/// process's keys are never lost or resurrected), writes atomically, and publishes to the
/// stores only what the file held that they did not know.
///
/// A write that starts from the version this process last read or wrote hands nothing back:
/// the stores already hold every value it wrote, each resolved once when it was set.
package struct DomainWriter {
    /// The domain whose file this writes.
    package let domain: PersistentDomain

    /// Writes this process's pending changes now.
    ///
    /// - Parameter durably: Return only once the rename (this one, or an earlier flush's
    ///   with nothing left to write now) is synced to disk: a crash after the return
    ///   loses nothing. A background flush passes false and lets ``DirectorySync`` finish.
    package func flush(durably: Bool) throws(PreferencesError) {
        guard domain.hasUnfinishedWrites else {
            if durably { try DirectorySync.shared.waitForRequestedSyncs(of: domain.file.directory) }
            return
        }
        _ = try write(onlyIfPending: true, durably: durably, hasBody: false) { (_: inout [String: PropertyListValue]) throws(PreferencesError) in }
    }

    /// Flushes, and runs `body` on the file's values under the same lock: the atomic
    /// read-modify-write. `body` sees the file's current values with this process's
    /// pending changes applied; what it changes reaches the stores after the write as this
    /// process's change, in one batch delivered on the calling thread. Keys another process
    /// had put in the file arrive as another process's, on the watcher thread.
    ///
    /// - Parameter changedKeys: The keys `body` changed, for the journal, asked once it has run.
    package func modify<Result: Sendable>(
        changing changedKeys: () -> [String] = { [] },
        _ body: (inout [String: PropertyListValue]) throws(PreferencesError) -> Result
    ) throws(PreferencesError) -> Result {
        // Never nil: the write is unconditional.
        try write(changing: changedKeys, onlyIfPending: false, durably: true, hasBody: true, body)!.result
    }

    /// Replaces the file's values with `values` and records `origin` with the new file, as
    /// one commit, durably: the managed layer's writer (a fleet-policy service) says where its
    /// values came from. Empty values remove the file.
    ///
    /// - Returns: Whether the file changed: false when it already held `values` with the same
    ///   origin recorded (a new origin with the same values is still written, so that the
    ///   origin named is always the one behind the file's values).
    package func replace(with values: [String: PropertyListValue], origin: CommitOrigin?) throws(PreferencesError) -> Bool {
        let file = domain.file
        let keys = { values.keys.sorted() }
        let written = try commit(changing: keys, onlyIfPending: false, durably: true, hasBody: true, origin: origin) {
            current throws(PreferencesError) -> (Void, changed: Bool?) in
            // Read under the lock, so it is the origin of the file this commit replaces.
            let originChanged = CommitOrigin.recorded(atPath: file.path) != origin
            let changed = current != values || (originChanged && !values.isEmpty)
            current = values
            return ((), changed)
        }
        return written?.changedDirectory ?? false
    }

    /// Adds `values` to the file as one durable commit recording `origin`: each key the file
    /// does not hold takes its value, and a key it holds keeps its own (an import never
    /// overwrites a setting made here).
    ///
    /// This process's pending changes are written first, in a commit of their own, so the
    /// import's commit holds (and its origin names) the imported keys alone, as far as no set
    /// lands in between; one that does is written with it, never dropped.
    ///
    /// - Parameters:
    ///   - intoNewDomainOnly: Import only if, under the lock, the domain has never been
    ///     written: no file, no `marker`, no history, and no lock file before this call
    ///     (`lockExisted`, looked at before the lock was taken, which creates it). So the
    ///     first opener of a new domain imports, a second process opening it at the same
    ///     moment waits for the lock, finds the file and imports nothing, and a domain that
    ///     existed here and was emptied is never filled from Foundation's file again.
    ///   - marker: The file that says the domain needs no import (any more), made once the
    ///     commit is done: a reader that finds it without the lock must find the file too.
    /// - Returns: The keys imported and the keys kept, or nil if `intoNewDomainOnly` found the
    ///   domain already there (the marker is then made, so later opens need no lock).
    package func importValues(
        _ values: [String: PropertyListValue], origin: CommitOrigin, intoNewDomainOnly: Bool, lockExisted: Bool, marker: String
    ) throws(PreferencesError) -> (imported: [String], kept: [String])? {
        try flush(durably: true)
        let file = domain.file
        let history = DomainHistory(file: file).directoryPath
        var outcome: (imported: [String], kept: [String])?
        _ = try commit(changing: { outcome?.imported ?? [] }, onlyIfPending: false, durably: true, hasBody: true, origin: origin) {
            current throws(PreferencesError) -> (Void, changed: Bool?) in
            // nil: the merge compares, so a set that landed since the flush is written, not lost.
            let existed = lockExisted || SystemCalls.entryExists(marker) || SystemCalls.entryExists(history) || file.identity() != nil
            if intoNewDomainOnly && existed { return ((), changed: nil) }
            let imported = values.keys.filter { current[$0] == nil }.sorted()
            for key in imported { current[key] = values[key] }
            outcome = (imported, values.keys.filter { current[$0] != values[$0] }.sorted())
            return ((), changed: nil)
        }
        Self.makeMarker(marker)
        return outcome
    }


    /// Creates the empty file at `path` (0600, no links followed), unless it exists; a marker
    /// that cannot be made only costs a later open the lock.
    private static func makeMarker(_ path: String) {
        let descriptor = try? FileDescriptor.open(
            FilePath(path), .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec], permissions: .ownerReadWrite)
        try? descriptor?.close()
    }

    /// Removes `keys`' values from every copy of the file kept (the generations and the
    /// copies set aside as corrupt), or with `keys` nil the copies themselves, under the
    /// file's lock (see ``DomainFile/purgeWhileLocked(keys:known:policy:)``). The file itself
    /// is not changed: the caller removes the keys from it with a commit first.
    ///
    /// - Parameter known: Values the keys had that a copy which does not decode may hold.
    package func purge(keys: Set<String>?, known: [PropertyListValue]) throws(PreferencesError) -> DomainFile.PurgeOutcome {
        var policy = domain.policy
        policy.privateKeys.formUnion(domain.privateKeys)
        let outcome = try withFileLock(creatingDirectory: false) { () throws(PreferencesError) -> DomainFile.PurgeOutcome in
            try domain.file.purgeWhileLocked(keys: keys, known: known, policy: policy)
        }
        return outcome ?? DomainFile.PurgeOutcome()
    }

    /// The one way into the domain's file, for every writer in this process: this process's
    /// write lock (one writer per file here), the directory (created if the policy allows),
    /// then the cross-process `flock` on the hidden lock file, held while `body` runs.
    ///
    /// The lock timeout counts from when this is called, not from when another thread's
    /// write (perhaps itself waiting out the timeout on a stopped holder) lets go of the
    /// write lock: a writer gives up after the configured bound, not twice it.
    ///
    /// - Returns: `body`'s result; nil, without calling `body`, when `proceed` says no or the
    ///   directory does not exist and `creatingDirectory` is false.
    private func withFileLock<Result>(
        creatingDirectory: Bool = true, proceeding proceed: () -> Bool = { true }, _ body: () throws(PreferencesError) -> Result
    ) throws(PreferencesError) -> Result? {
        let file = domain.file
        let deadline = ContinuousClock.now.advanced(by: domain.policy.lockTimeout)
        return try domain.fileAccess.withLock { _ throws(PreferencesError) -> Result? in
            // Asked under the write lock, before the `flock` is waited for: a flush that finds
            // another thread's flush wrote its changes meanwhile touches nothing.
            guard proceed() else { return nil }
            // Before anything is made there, the lock file included: a directory of a newer
            // protocol version is read, never written.
            try ProtocolVersion.checkWritable(file)
            if creatingDirectory {
                try file.ensureDirectory(policy: domain.policy)
            } else if !file.directoryExists {
                return nil
            }
            let lock = try DomainFileLock(path: file.lockPath, policy: domain.policy, deadline: deadline)
            // Held until `body` is done, whichever way it returns.
            defer { withExtendedLifetime(lock) {} }
            // Again under the lock: a newer implementation may have marked the directory while
            // this one waited, and written the file in its newer form under this lock.
            try ProtocolVersion.checkWritable(file)
            DurabilityFaults.reached(.locked)
            return try body()
        }
    }

    /// The locked read-modify-write behind ``flush(durably:)`` and ``modify(changing:_:)``.
    ///
    /// - Parameter hasBody: `body` may change values beyond the pending changes (a modify).
    /// - Parameter onlyIfPending: Do nothing, and return nil, if no change is pending once
    ///   the lock is held (another flush wrote them meanwhile). A flush with nothing to
    ///   write must not touch the file, least of all replace one that reads as damaged,
    ///   which may be another program's in-place rewrite caught halfway.
    private func write<Result: Sendable>(
        changing changedKeys: () -> [String] = { [] },
        onlyIfPending: Bool,
        durably: Bool,
        hasBody: Bool,
        origin: CommitOrigin? = nil,
        _ body: (inout [String: PropertyListValue]) throws(PreferencesError) -> Result
    ) throws(PreferencesError) -> (result: Result, changedDirectory: Bool)? {
        try commit(changing: changedKeys, onlyIfPending: onlyIfPending, durably: durably, hasBody: hasBody, origin: origin) {
            values throws(PreferencesError) -> (Result, changed: Bool?) in
            (try body(&values), nil)
        }
    }

    /// ``write(changing:onlyIfPending:durably:hasBody:origin:_:)`` with a body that may say
    /// whether it changed the values (nil: compare them), as ``replace(with:origin:)``'s does.
    private func commit<Result: Sendable>(
        changing changedKeys: () -> [String] = { [] },
        onlyIfPending: Bool,
        durably: Bool,
        hasBody: Bool,
        origin: CommitOrigin?,
        _ body: (inout [String: PropertyListValue]) throws(PreferencesError) -> (Result, changed: Bool?)
    ) throws(PreferencesError) -> (result: Result, changedDirectory: Bool)? {
        let file = domain.file
        guard domain.isWritable else {
            throw PreferencesError(.readOnly, path: file.path, "this layer is read-only")
        }
        // Whether the file's lock was taken: a failure before that (a lock held too long, a
        // directory refused) is a failed write to record and log here; one after it the body
        // below records itself.
        var isLocked = false
        let locked: (Result?, Published, Bool)??
        do throws(PreferencesError) {
            locked = try withFileLock(proceeding: { !onlyIfPending || domain.hasPendingChanges }) {
                () throws(PreferencesError) -> (Result?, Published, Bool)? in
                isLocked = true
                return try commitWhileLocked(changing: changedKeys, onlyIfPending: onlyIfPending, hasBody: hasBody, origin: origin, body)
            }
        } catch {
            if !isLocked {
                // A directory of a newer protocol version holds a file that is fine to read:
                // the write is refused, the file not marked unusable.
                if error.code != .unsupportedProtocolVersion { domain.state.withLock { $0.writeFailed(error) } }
                if domain.hasPendingChanges { PreferencesLogger.report(error, event: .writeFailed, to: domain.logger) }
            }
            throw error
        }
        let written = locked ?? nil
        // A first write may have created the directory: have it watched at once, so even
        // its removal a moment later is seen. Also when this flush found nothing left to
        // write: the flush that wrote it may not have got this far yet.
        DirectoryWatcher.shared.directoryMayHaveAppeared(file.directory)
        guard let (result, published, changedDirectory) = written else {
            if durably { try DirectorySync.shared.waitForRequestedSyncs(of: file.directory) }
            return nil
        }
        // Outside the file lock: a store's observers may set or flush again. This process's
        // own changes (a transaction's) here; keys another process had put in the file, on
        // the watcher thread.
        published.own.deliver()
        published.found.deliverFoundChanges()
        // Last, with no lock held: the next writer need not wait for this sync.
        if durably { try DirectorySync.shared.waitForRequestedSyncs(of: file.directory) }
        // Set whenever a body ran, which it did unless the write returned early above.
        return result.map { ($0, changedDirectory) }
    }

    /// The commit once the file's lock is held: the pending changes and `body` applied, the
    /// file replaced, the new version installed, the epilogue run.
    private func commitWhileLocked<Result: Sendable>(
        changing changedKeys: () -> [String],
        onlyIfPending: Bool,
        hasBody: Bool,
        origin: CommitOrigin?,
        _ body: (inout [String: PropertyListValue]) throws(PreferencesError) -> (Result, changed: Bool?)
    ) throws(PreferencesError) -> (Result?, Published, Bool)? {
        let file = domain.file
        let (batch, replacement, disk, known, privateKeys) = domain.state.withLock { state in
            state.writingThread = SystemCalls.currentThread()
            return (state.pending, state.replacement, state.disk, state.known, state.privateKeys)
        }
        // The keys the domain's stores declare private, as the commit must treat them.
        var policy = domain.policy
        policy.privateKeys.formUnion(privateKeys)
        // Cleared on every path, after the counter is raised (see `hasUnfinishedWrites`).
        defer { domain.state.withLock { $0.writingThread = nil } }
        let hasChanges = !batch.isEmpty || replacement != nil
        if onlyIfPending && !hasChanges { return nil }
        var result: Result?
        var base: [String: PropertyListValue] = [:]
        var bodyThrew = false
        var published = Published()
        // Taken just before the rename (or removal) and released once the install is done:
        // this process's watcher, or a read catching up, would otherwise read the new file
        // first and publish this write's own keys as another process's.
        var holdsView = false
        let outcome: (result: Void, contents: DomainContents?, changedDirectory: Bool, startedFromKnown: Bool, historyProblem: PreferencesError?)
        do throws(PreferencesError) {
            outcome = try file.merge(
                policy: policy, recovering: disk, known: known, origin: origin
            ) { values throws(PreferencesError) -> (result: Void, changed: Bool?) in
                base = values
                // Whether the pending changes change anything, found while applying them.
                var changed = false
                if let replacement {
                    changed = values != replacement
                    values = replacement
                }
                for (key, value) in batch where values[key] != value {
                    values[key] = value
                    changed = true
                }
                var bodyChanged: Bool?
                do throws(PreferencesError) {
                    let (bodyResult, changed) = try body(&values)
                    result = bodyResult
                    bodyChanged = changed
                } catch {
                    bodyThrew = true
                    throw error
                }
                // A modify's body may have changed anything: then compare, unless it knows.
                return ((), hasBody ? bodyChanged : changed)
            } beforeCommit: {
                domain.view.lock()
                holdsView = true
            } whileLocked: { contents, changedDirectory, startedFromKnown in
                #if DEBUG
                if changedDirectory { Interleaving.reached(.beforeInstallingWrite, at: file.path) }
                #endif
                let install = {
                    published = self.install(
                        contents, changedDirectory: changedDirectory, startedFromKnown: startedFromKnown,
                        base: base, batch: batch, replacement: replacement, knownAtStart: known, hasBody: hasBody)
                }
                if holdsView {
                    install()
                    holdsView = false
                    domain.view.unlock()
                } else {
                    domain.view.withLock { _ in install() }
                }
            }
        } catch {
            // A rename or removal that failed after the view lock was taken.
            if holdsView {
                holdsView = false
                domain.view.unlock()
            }
            // Only what is wrong with the file makes it a problem (what a store reports as its file problems):
            // a body that threw (a cancelled transaction, a refused `trySet`) or new values
            // too large to write leave the file as good as it was. Nor is a body's own error
            // a failed write to log: the caller has it, and the pending changes it held back
            // are written by the next flush.
            if !bodyThrew && error.code != .tooLarge { domain.state.withLock { $0.writeFailed(error) } }
            if hasChanges && !bodyThrew { PreferencesLogger.report(error, event: .writeFailed, to: domain.logger) }
            throw error
        }
        // The one epilogue of every commit: the directory sync requested, a history
        // problem warned of, the write logged.
        if outcome.changedDirectory { DirectorySync.shared.requestSync(of: file.directory, logger: domain.logger) }
        if let problem = outcome.historyProblem { DomainHistory.warnOnce(problem, file: file, logger: domain.logger) }
        if outcome.changedDirectory {
            var keys = Set(batch.keys).union(replacement?.keys ?? [:].keys)
            keys.formUnion(changedKeys())
            logWrite(keys: keys.sorted(), bytes: outcome.contents?.byteCount ?? 0, origin: origin)
        }
        return (result, published, outcome.changedDirectory)
    }

    /// The stores a write published to, by whose changes they got.
    private struct Published {
        /// Stores with this process's changes (a transaction's own keys) to deliver.
        var own = PendingDeliveries()
        /// Stores with changes found in the file (another process's keys) to deliver.
        var found = PendingDeliveries()
    }

    /// Installs what the write left on disk as the domain's view, publishes what the stores
    /// did not know, and raises the commit counter: under the `flock` (so no newer version
    /// exists yet) and the view lock, which the caller holds (so no re-read installs an older
    /// one over it, or reads this one first).
    private func install(
        _ contents: DomainContents?, changedDirectory: Bool, startedFromKnown: Bool,
        base: [String: PropertyListValue], batch: [String: PropertyListValue?],
        replacement: [String: PropertyListValue]?, knownAtStart: DomainContents?, hasBody: Bool
    ) -> Published {
        do {
            let newDisk = contents?.values ?? [:]
            // A re-read may have installed a newer view since the write began (a read that
            // caught up, the watcher): what the stores hold now is the reference.
            let (disk, known) = domain.state.withLock { ($0.disk, $0.known) }
            let isUnchangedSinceStart = known?.identity == knownAtStart?.identity
            // What the stores do not know yet, compared here, outside the state lock (only
            // holders of the view lock change `disk`):
            let changed: [String]
            if hasBody {
                // A modify: `body` may have changed any key, pending ones too (a transaction
                // may remove a key this process set but had not written): compare with what
                // the stores hold, the file as known with the pending changes on top.
                var held = replacement ?? disk
                for (key, value) in batch { held[key] = value }
                changed = DomainState.changedKeys(from: held, to: newDisk)
            } else if replacement != nil || (startedFromKnown && isUnchangedSinceStart) {
                // The file now holds exactly what the stores hold: the replacement or the
                // version this process knew, with its own pending changes.
                changed = []
            } else {
                // The file was read again: what another process put there meanwhile, except
                // the keys this write set (the stores hold those already).
                changed = DomainState.changedKeys(from: disk, to: base).filter { batch[$0] == nil }
            }
            // A modify's own keys, among those: what its body (and the pending changes it
            // wrote) changed in the file it read. They are this process's changes, delivered by
            // the thread that made them; the rest came from another process. A key both changed
            // is this process's: its value is the one written. Checked per changed key, not by
            // comparing the whole domain a second time.
            let ownKeys = hasBody ? Set(changed.filter { base[$0] != newDisk[$0] }) : []
            // The values replaced, released after the state lock: freeing a large domain's
            // dictionary under it kept sets waiting on that lock (issue 37, item 5).
            var retired: DomainState.Retired?
            let published = domain.state.withLock { state -> Published in
                retired = state.retire()
                // A recovered domain's corrupt file is now kept aside and replaced.
                state.status = .current(known: contents)
                state.disk = newDisk
                if let written = replacement, state.replacement == written { state.replacement = nil }
                // Drop only the changes that were written; a set made during the write
                // changed the value and stays pending for the next flush.
                for (key, value) in batch where state.pending[key] == value {
                    state.pending[key] = nil
                }
                let visible = state.visibleChanges(of: changed, in: newDisk)
                // This process's own keys (a transaction's) first, in a batch of their own,
                // so the thread that made them delivers them even when keys another process
                // put in the file go out too: the two sets of keys are disjoint.
                var published = Published()
                if !ownKeys.isEmpty {
                    published.own = domain.publish(
                        visible.filter { ownKeys.contains($0.key) }, origin: .thisProcess, postsNotification: true, in: &state)
                }
                published.found = domain.publish(
                    visible.filter { !ownKeys.contains($0.key) }, origin: .anotherProcess, postsNotification: true, in: &state)
                return published
            }
            withExtendedLifetime(retired) {}
            if changedDirectory {
                // After the rename and after every store here holds what the file now holds
                // (so a reader that sees the raised value and skips catching up reads it all),
                // and before flush() returns: a read anywhere that starts after the return
                // finds the counter raised (see CommitCounter).
                domain.openCommitCounterWhileLocked()
                #if DEBUG
                Interleaving.reached(.beforeRaisingCounter, at: domain.file.path)
                #endif
                domain.commitCounter?.raise()
            }
            return published
        }
    }

    /// Logs one entry for a write: the domain, the keys this process changed, the size, and
    /// where the values came from when the writer said (the managed layer's).
    private func logWrite(keys: [String], bytes: Int, origin: CommitOrigin?) {
        let file = domain.file
        let name = file.fileName.hasSuffix(".plist") ? String(file.fileName.dropLast(6)) : file.fileName
        var metadata: Logger.Metadata = [
            PreferencesLogField.messageID: .string(PreferencesLogEvent.wrote.messageID),
            PreferencesLogField.domain: .string(name),
            PreferencesLogField.keys: .array(keys.map { .string($0) }),
            PreferencesLogField.bytes: .string(String(bytes)),
            PreferencesLogField.path: .string(file.path),
        ]
        if let origin { metadata[PreferencesLogField.origin] = .string(origin.summary) }
        domain.logger.info(
            "wrote \(name): \(keys.count) key\(keys.count == 1 ? "" : "s") changed, \(bytes) bytes\(origin.map { ", from \($0.summary)" } ?? "")",
            metadata: metadata)
    }
}
