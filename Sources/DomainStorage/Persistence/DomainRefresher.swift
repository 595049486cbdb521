import Logging
import PropertyList

/// How a domain's view of its file is brought up to date: re-reads the file when it is no
/// longer the version this process last read or wrote, and publishes what changed.
///
/// Its own writes are recognised by identity (``DomainContents/isSettled``) and not read
/// again. Re-reads are serialised with each other and with a write's install by the domain's
/// view lock, which no thread holds while waiting for another process, so the watcher and a
/// read that catches up may both wait for it. Whoever re-reads, what changed is delivered on
/// the watcher thread (``DomainSubscriber/deliverFoundChanges()``).
package struct DomainRefresher {
    /// The domain whose file this re-reads.
    package let domain: PersistentDomain

    /// Watches the file's directory, once: another process's write, a hand edit or a deletion
    /// then reaches every store within milliseconds, with no call.
    package func startWatching() {
        let needsWatch = domain.state.withLock { $0.watch == nil }
        guard needsWatch else { return }
        CommitWaiter.startOnPollingFallback()
        // Strong: a PersistentDomain lives as long as the process (the table keeps it), and a
        // weak reference would give it a side table, which slows every retain and release of
        // it on the set path.
        var registrations = [
            DirectoryWatcher.shared.watch(directory: domain.file.directory, fileName: domain.file.fileName) {
                [domain] in domain.refresher.refreshFromDisk()
            }
        ]
        // A commit counter beside the file (no runtime directory) is mapped, and a mapped
        // file keeps its directory alive in the kernel: removed with the directory, it holds
        // back the directory's own removal event, so the watch would never learn that the
        // directory is gone and never watch the new one. Its removal is heard here instead,
        // and the refresh lets the mapping go (``PersistentDomain/openCommitCounterWhileLocked()``).
        if domain.isWritable {
            let counter = CommitCounterLocation(for: domain.file, runtimeDirectory: domain.runtimeDirectory)
            if counter.directory == domain.file.directory {
                registrations.append(
                    DirectoryWatcher.shared.watch(directory: domain.file.directory, fileName: counter.name) {
                        [domain] in domain.refresher.refreshFromDisk()
                    })
            }
        }
        let redundant = domain.state.withLock { state -> [DirectoryWatcher.Registration] in
            if state.watch == nil {
                state.watch = registrations
                return []
            }
            return registrations
        }
        for registration in redundant { registration.cancel() }
    }

    /// Called by the watcher: re-reads the file if it is not the one this process last read
    /// or wrote, and delivers what changed (on the watcher thread, which this is).
    ///
    /// Waits for the view lock, which is never held while waiting for another process: at
    /// worst for a read decoding the same new file, or a write installing what it renamed.
    package func refreshFromDisk() {
        let outcome = domain.view.withLock { _ -> ReloadOutcome? in
            // A counter beside the file waits for its directory, which the watcher reports
            // when another process makes it.
            domain.openCommitCounterWhileLocked()
            let counter = domain.commitCounter
            // Loaded before the file is looked at: a commit racing this refresh keeps the
            // counter ahead of what is noted, so the next read catches it up.
            let value = counter?.current
            defer { if let value { counter?.noteSeen(value) } }
            return isCurrent() ? nil : reloadWhileLocked()
        }
        outcome?.finish(domain: domain)
    }

    /// Brings the file up to date for a read that found `counter` raised
    /// (``PersistentDomain/catchUp()``): one `lstat` if the file is still the version known,
    /// else a read and decode of the new file, installed and published, whose changes are
    /// handed to the watcher thread to deliver. Never takes the `flock` and never waits for
    /// another process: the file is replaced by rename, so it is whole without the lock.
    package func catchUp(with counter: CommitCounter) {
        let outcome = domain.view.withLock { _ -> ReloadOutcome? in
            let value = counter.current
            // Noted even if the file cannot be read: the failure is logged once, and reads
            // must not try again until the next commit.
            defer { counter.noteSeen(value) }
            if isCurrent() { return nil }
            FreshnessChecks.countReread()
            return reloadWhileLocked()
        }
        outcome?.finish(domain: domain)
    }

    /// Re-reads the file and publishes what differs; what differs came from outside this
    /// process, and is delivered on the watcher thread.
    package func reload() {
        let outcome = domain.view.withLock { _ in
            let counter = domain.commitCounter
            let value = counter?.current
            defer { if let value { counter?.noteSeen(value) } }
            return reloadWhileLocked()
        }
        outcome.finish(domain: domain, logsHere: true)
    }

    /// What a re-read leaves to do once the view lock is released.
    package struct ReloadOutcome {
        /// Why the file could not be used, to log.
        package var failure: PreferencesError?
        /// The corrupt file's values were recovered from a generation: to log.
        package var recovery: DomainRecovery?
        /// The stores whose queued changes must be delivered.
        package var stores: PendingDeliveries

        /// Logs the failure or the recovery and has the changes delivered on the watcher
        /// thread, as jobs of their own. A read that found them (`logsHere` false) runs no
        /// handler and no logging back end, even on the watcher thread (a handler's read).
        /// Opening a domain and `synchronize()` log on the calling thread, which asked for
        /// the file.
        package func finish(domain: PersistentDomain, logsHere: Bool = false) {
            if failure != nil || recovery != nil {
                let logger = domain.logger
                let report: @Sendable () -> Void = { [failure, recovery] in
                    if let failure { PreferencesLogger.report(failure, event: .unreadable, to: logger) }
                    if let recovery { PreferencesLogger.report(recovery, to: logger) }
                }
                if logsHere { report() } else { DirectoryWatcher.shared.perform(report) }
            }
            stores.deliverFoundChanges()
        }
    }

    /// Whether the file on disk is still the version this process last read or wrote; the
    /// caller holds the view lock.
    private func isCurrent() -> Bool {
        let (isLoaded, known, knownFailure) = domain.state.withLock { ($0.isLoaded, $0.known, $0.knownFailure) }
        guard isLoaded else { return false }
        if let known {
            guard let confirmed = domain.file.stillHolds(known, policy: domain.policy) else { return false }
            // Only holders of the view lock change `known`, and the caller is one.
            domain.state.withLock { $0.status = .current(known: confirmed) }
            return true
        }
        return domain.file.identity() == knownFailure
    }

    /// Reads the file and publishes what changed; the caller holds the view lock.
    private func reloadWhileLocked() -> ReloadOutcome {
        let file = domain.file
        let identityBefore = file.identity()
        let outcome: Result<DomainContents?, PreferencesError>
        do throws(PreferencesError) {
            // A file damaged a moment ago may be another program's rewrite in place, caught
            // halfway: waiting for it to settle (a few clock ticks at most) keeps that moment
            // from being taken for corruption and recovered from.
            outcome = .success(try file.readWaitingForWriter(policy: domain.policy))
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
        switch outcome {
        case .success(let contents):
            let stores = install(contents?.values ?? [:], status: .current(known: contents))
            return ReloadOutcome(failure: nil, stores: stores)
        case .failure(let error):
            // A corrupt file (not an unsafe one, which stays refused) is read from the newest
            // generation that decodes: the last good state every process agrees on, and the
            // one the next write commits on top of (it becomes `disk`, the write's fallback).
            if error.code == .corrupt || error.code == .notADictionary {
                let history = DomainHistory(file: file)
                if let good = history.newestGoodGeneration(policy: domain.policy) {
                    let recovery = DomainRecovery(
                        path: file.path, reason: error, generation: Int(good.number), generationPath: history.path(ofGeneration: good.number))
                    let stores = install(good.values, status: .recovered(recovery, failedIdentity: failedIdentity))
                    return ReloadOutcome(failure: nil, recovery: recovery, stores: stores)
                }
            }
            domain.state.withLock { state in
                // Keep the last good values: a damaged file must not wipe settings. A file
                // refused for its contents or its ownership is remembered by identity, so it
                // is not parsed again until it changes; after an I/O error the next event
                // tries again.
                state.status = .unusable(error, failedIdentity: error.code == .io ? nil : failedIdentity, recovery: nil)
            }
            return ReloadOutcome(failure: error, stores: PendingDeliveries())
        }
    }

    /// Installs values read from the file (or recovered from a generation) as the domain's
    /// disk values and publishes what changed; the caller holds the view lock.
    private func install(_ newDisk: [String: PropertyListValue], status: DomainState.Status) -> PendingDeliveries {
        // Only holders of the view lock change `disk`, so it can be compared outside the
        // state lock: a large domain's comparison holds up no set. With no store on the
        // file yet (the first read, as a store opens), there is nobody to tell.
        let (oldDisk, hasSubscribers) = domain.state.withLock { ($0.disk, !$0.subscribers.isEmpty) }
        let changed = hasSubscribers ? DomainState.changedKeys(from: oldDisk, to: newDisk) : []
        // The values replaced, released after the state lock, as a write's install does.
        var retired: DomainState.Retired?
        defer { withExtendedLifetime(retired) {} }
        return domain.state.withLock { state -> PendingDeliveries in
            retired = state.retire()
            state.status = status
            state.disk = newDisk
            // A store subscribed meanwhile took the old values: compare after all.
            let changedKeys = hasSubscribers || state.subscribers.isEmpty ? changed : DomainState.changedKeys(from: oldDisk, to: newDisk)
            let visible = state.visibleChanges(of: changedKeys, in: newDisk)
            return domain.publish(visible, origin: .anotherProcess, postsNotification: true, in: &state)
        }
    }
}
