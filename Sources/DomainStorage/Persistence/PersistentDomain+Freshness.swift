import Logging

/// A domain file's commit counter as its ``PersistentDomain`` holds it.
package struct CommitCounterState {
    /// The mapped counter, once opened.
    package var counter: CommitCounter?
    /// Why it was refused (a planted or damaged file, an unsafe directory): the domain then
    /// relies on its watcher, and the counter is not tried again.
    package var refusal: PreferencesError?
}

extension PersistentDomain {
    /// The file's commit counter, if it is open.
    package var commitCounter: CommitCounter? {
        commits.withLock { $0.counter }
    }

    /// Opens the commit counter unless it is open or refused; takes the view lock.
    ///
    /// Beside the domain file (no runtime directory), the counter waits for the directory to
    /// exist: a store only reading a domain nobody has written creates nothing, and the first
    /// write, which makes the directory, opens it (``openCommitCounterWhileLocked()``).
    package func openCommitCounterIfNeeded() {
        guard isWritable, commits.withLock({ $0.counter == nil && $0.refusal == nil }) else { return }
        view.withLock { _ in openCommitCounterWhileLocked() }
    }

    /// ``openCommitCounterIfNeeded()`` for a caller that holds the view lock; an open counter
    /// is kept on the file now at its path (``CommitCounter/follow(policy:)``).
    package func openCommitCounterWhileLocked() {
        guard isWritable else { return }
        let (open, refused) = commits.withLock { ($0.counter, $0.refusal != nil) }
        if let open {
            // The sleeping thread waits on the words by file: it takes them again.
            if open.follow(policy: policy) { CommitWaiter.counterOpened() }
            return
        }
        guard !refused else { return }
        let location = CommitCounterLocation(for: file, runtimeDirectory: runtimeDirectory)
        if location.directory == file.directory {
            guard SystemCalls.isSearchableDirectory(file.directory) else { return }
            // Beside the file, the counter would be a new file in a directory this version
            // may not write (PROTOCOL.md): fresh reads there rely on the watcher alone.
            guard (try? ProtocolVersion.checkWritable(file)) != nil else { return }
        }
        let opened: Result<CommitCounter, PreferencesError>
        do throws(PreferencesError) {
            opened = .success(try CommitCounter.open(path: location.path, directory: location.directory, policy: policy))
        } catch {
            opened = .failure(error)
        }
        switch opened {
        case .success(let counter):
            commits.withLock { $0.counter = counter }
            CommitWaiter.counterOpened()
            // Stores that subscribed before the counter existed check it from now on.
            for store in state.withLock({ $0.liveSubscribers }) {
                store.commitCounterOpened(counter, of: self)
            }
        case .failure(let error):
            commits.withLock { $0.refusal = error }
            // A file system that cannot hold the counter (read-only, full, no permission)
            // says nothing new: writes there fail and report it themselves. A planted or
            // damaged counter is news, and is refused as a domain file would be.
            guard error.code != .io else { return }
            logger.warning(
                "fresh reads are off for \(file.path): \(error); reads rely on the watcher",
                metadata: [
                    PreferencesLogField.messageID: .string(PreferencesLogEvent.freshReadsUnavailable.messageID),
                    PreferencesLogField.path: .string(file.path),
                    PreferencesLogField.counter: .string(location.path),
                    PreferencesLogField.error: .string(error.code.description),
                ])
        }
    }

    /// Brings this process's copy of the file up to date after a read found the counter
    /// raised: one `lstat` if the file is still the version known, else a re-read whose
    /// changes reach every store's snapshot before the read goes on, and their observers
    /// later, on the watcher thread (``DomainRefresher/catchUp(with:)``). Runs no handler.
    package func catchUp() {
        guard let counter = commitCounter else { return }
        refresher.catchUp(with: counter)
    }
}
