import SystemPackage
package import PropertyList

extension DomainFile {
    /// The commit, under the domain's lock, which the caller holds (``DomainWriter`` is the one
    /// caller that takes it): re-reads the current file, lets `body` change the values, and
    /// writes the result atomically.
    ///
    /// The steps, all under the lock so that writers in any process serialise:
    /// 1. Temporary files of this domain left by a killed writer are removed.
    /// 2. The file is re-read (waiting briefly if it is damaged while another program is
    ///    still rewriting it in place). A missing file starts from no values. A corrupt file, or one
    ///    whose top value is not a dictionary, starts from `fallback` (the caller's last good
    ///    values) and is kept aside as `<fileName>.corrupt-<UTC time>` once something is
    ///    written. An unsafe file (link, other owner, group- or world-writable, not regular,
    ///    too large) is an error and is left alone.
    /// 3. `body` changes the values. If they equal what is on disk, nothing is written; if they
    ///    are empty, the file is removed rather than written empty; otherwise they are written
    ///    to a fresh temporary file, synced, and renamed over the file. The directory is not
    ///    synced: the caller requests that (``DirectorySync``) when `changedDirectory` is true.
    ///    Before either, the file being replaced is linked into the history as a generation
    ///    (unless it is corrupt), and the new file carries a ``CommitRecord``.
    ///
    /// On any failure the temporary file is removed and the old file is left byte-identical.
    ///
    /// - Parameters:
    ///   - policy: The trust rules, size limit and lock timeout.
    ///   - fallback: The values to start from when the file on disk is corrupt.
    ///   - known: What the caller last read or wrote; if the file is still that version
    ///     (see ``stillHolds(_:policy:)``), it is not decoded again.
    ///   - body: Changes the values; it runs while the lock is held, so it must not block or
    ///     call out to observers. If it throws, nothing is written.
    /// - Returns: `body`'s result, what is on disk afterwards (nil if there is no file), and
    ///   whether the file was replaced or removed. The returned identity equals a later
    ///   ``identity()`` until someone else writes.
    /// - Throws: ``PreferencesError``: the read errors of ``read(policy:)`` for unsafe files,
    ///   `tooLarge` when the new values encode to more than the size limit, or
    ///   `io` with the errno of the call that failed.
    ///
    /// It also says whether `body` started from `known` (or, for a corrupt file, from
    /// `fallback`): then the file held nothing the caller did not already know, and the caller
    /// need not compare what it had with what is on disk now.
    ///
    /// `body` also says, if it knows, whether it changed the values (nil: it does not know,
    /// and they are compared with what was read): comparing a large domain key by key costs
    /// milliseconds, and a body that applies a few changes knows the answer for free.
    ///
    /// `origin` is recorded with the new file (the managed layer's writer says where its values
    /// came from; other writes have none).
    ///
    /// `beforeCommit` runs just before the file is renamed into place or removed (not when
    /// nothing changed), so a caller can take a lock that keeps its own readers from seeing
    /// the new file before `whileLocked` has run. `whileLocked` runs last, once the file is
    /// written (or found unchanged), still under the lock: no other writer can have committed
    /// a newer version while it runs, so a caller that installs what it wrote there never
    /// installs it over a newer one. It gets what is on disk, whether the file was replaced
    /// and whether `body` started from `known`.
    package func merge<Result>(
        policy: FilePolicy,
        recovering fallback: [String: PropertyListValue],
        known: DomainContents?,
        origin: CommitOrigin? = nil,
        _ body: (inout [String: PropertyListValue]) throws(PreferencesError) -> (result: Result, changed: Bool?),
        beforeCommit: () -> Void = {},
        whileLocked: (_ contents: DomainContents?, _ changedDirectory: Bool, _ startedFromKnown: Bool) -> Void = { _, _, _ in }
    ) throws(PreferencesError) -> (
        result: Result, contents: DomainContents?, changedDirectory: Bool, startedFromKnown: Bool, historyProblem: PreferencesError?
    ) {
        let (outcome, commit) = try mergeWhileLocked(
            policy: policy, recovering: fallback, known: known, origin: origin, body, beforeCommit: beforeCommit)
        whileLocked(outcome.contents, outcome.changedDirectory, outcome.startedFromKnown)
        // Pruning old generations comes last, after `whileLocked`: a caller holding a lock
        // from `beforeCommit` until then (readers waiting on it) does not wait for the unlinks.
        commit?.finish(policy: policy)
        // A private value removed is removed from every copy kept: generations written before
        // the key was declared private, and copies kept aside as corrupt.
        if let removed = commit?.removedPrivateValues, !removed.isEmpty {
            do throws(PreferencesError) {
                _ = try purgeWhileLocked(keys: Set(removed.keys), known: Array(removed.values), policy: policy)
            } catch {
                return (outcome.result, outcome.contents, outcome.changedDirectory, outcome.startedFromKnown, error)
            }
        }
        return outcome
    }

    /// The steps of ``merge(policy:recovering:known:origin:_:beforeCommit:whileLocked:)``, up to the commit's pruning of old generations, which is left to
    /// the caller (the returned commit's `finish`).
    private func mergeWhileLocked<Result>(
        policy: FilePolicy,
        recovering fallback: [String: PropertyListValue],
        known: DomainContents?,
        origin: CommitOrigin?,
        _ body: (inout [String: PropertyListValue]) throws(PreferencesError) -> (result: Result, changed: Bool?),
        beforeCommit: () -> Void
    ) throws(PreferencesError) -> (
        (result: Result, contents: DomainContents?, changedDirectory: Bool, startedFromKnown: Bool, historyProblem: PreferencesError?),
        DomainHistory.Commit?
    ) {
        // Writers only create temporary files while holding the lock, so any found now
        // belongs to a writer that died before it could remove its own.
        removeOrphanedTemporaryFiles()

        var current: DomainContents?
        var isCorrupt = false
        var startedFromKnown = false
        var values: [String: PropertyListValue]
        do {
            // The common case, a process writing again what it wrote last: the file is the
            // one it knows, so decoding it again would only cost time.
            if let known, let confirmed = stillHolds(known, policy: policy) {
                current = confirmed
                startedFromKnown = true
            } else {
                current = try readWaitingForWriter(policy: policy)
            }
            values = current?.values ?? [:]
        } catch {
            guard error.code == .corrupt || error.code == .notADictionary else { throw error }
            current = nil
            isCorrupt = true
            startedFromKnown = true
            values = fallback
        }

        let (result, changed) = try body(&values)

        // A corrupt file is never "unchanged": its replacement (or removal) is due.
        if !isCorrupt && !(changed ?? (values != (current?.values ?? [:]))) {
            return ((result, current, false, startedFromKnown, nil), nil)
        }
        // Refused before the history is touched: a too-large write keeps no generation.
        let bytes: [UInt8] = try values.isEmpty ? [] : encode(values, limit: policy.sizeLimit)
        // The file about to be replaced (or removed) becomes a generation first: once the
        // rename is done, its inode has no name left to link.
        let commit = DomainHistory(file: self).beginCommit(replacing: current, currentIsCorrupt: isCorrupt, policy: policy)
        if let old = current?.values {
            for key in policy.privateKeys where values[key] == nil {
                if let value = old[key] { commit.removedPrivateValues[key] = value }
            }
        }
        if values.isEmpty {
            do {
                commit.keep()
                beforeCommit()
                try remove(keepingCorruptFileAside: isCorrupt)
            } catch {
                commit.abandon()
                throw error
            }
            return ((result, nil, true, startedFromKnown, commit.problem), commit)
        }
        let identity: FileIdentity
        do {
            identity = try replace(
                with: bytes, keepingCorruptFileAside: isCorrupt, mode: policy.fileMode, origin: origin,
                sequence: commit.sequence, recycling: commit.recycle(as:),
                beforeRename: {
                    commit.keep()
                    beforeCommit()
                })
        } catch {
            commit.abandon()
            throw error
        }
        return (
            (
                result, DomainContents(written: values, identity: identity, digest: ContentDigest(of: bytes)), true, startedFromKnown,
                commit.problem
            ), commit
        )
    }

    /// The most times a damaged read is retried while the file is still changing.
    private static let maximumTornReadRetries = 5

    /// Reads the file; if it is damaged but changed within the last clock tick, waits a tick
    /// and reads again, a few times.
    ///
    /// Writers that ignore the lock and rewrite the file in place (an editor, `cat >`, a
    /// script) leave it empty or half-written for a moment. Taking that moment's bytes for a
    /// corrupt file would set the file aside and write over it, and the writer's finished
    /// edit would land in the file set aside instead of in the domain. A file that is
    /// damaged and has not changed for a full tick is taken to be really corrupt.
    package func readWaitingForWriter(policy: FilePolicy) throws(PreferencesError) -> DomainContents? {
        var attempt = 0
        while true {
            do {
                return try read(policy: policy)
            } catch {
                guard error.code == .corrupt || error.code == .notADictionary,
                    attempt < Self.maximumTornReadRetries,
                    let changed = identity(), !changed.isSettled(at: SystemCalls.wallClockNanoseconds())
                else { throw error }
                attempt += 1
                SystemCalls.sleep(for: .nanoseconds(FileIdentity.timestampGranularity))
            }
        }
    }

    /// Creates the directory and any missing parents, mode 0700, unless it exists; an
    /// existing one must pass ``FilePolicy/checkDirectory(_:path:)``.
    ///
    /// `mkdir` filters 0700 through the umask, which can only remove bits, so a created
    /// directory is never more open than 0700.
    package func ensureDirectory(policy: FilePolicy) throws(PreferencesError) {
        let status: Stat
        do {
            status = try FilePath(directory).stat()
        } catch {
            guard error == .noSuchFileOrDirectory else {
                throw PreferencesError(
                    .io, path: directory, errno: error.rawValue, "the preferences directory could not be examined: \(error)")
            }
            try createDirectory(policy: policy)
            return
        }
        guard status.type == .directory else {
            throw PreferencesError(
                .io, path: directory, errno: Errno.notDirectory.rawValue, "the preferences directory is not a directory")
        }
        try policy.checkDirectory(status, path: directory)
    }

    /// Whether the directory exists and can be searched (a purge has nothing to do without it).
    package var directoryExists: Bool {
        SystemCalls.isSearchableDirectory(directory)
    }

    /// Creates the missing directory and its missing parents, if the policy allows.
    private func createDirectory(policy: FilePolicy) throws(PreferencesError) {
        guard policy.createsDirectory else {
            throw PreferencesError(
                .io, path: directory, errno: Errno.noSuchFileOrDirectory.rawValue,
                "the preferences directory does not exist and this store is configured not to create it")
        }
        var prefix = FilePath("/")
        var created: [FilePath] = []
        for component in FilePath(directory).components {
            prefix.append(component)
            do {
                try SystemCalls.mkdir(prefix, policy.directoryMode)
                // The umask may have taken bits a reader needs (the managed layer's 0755).
                if policy.directoryMode != .ownerReadWriteExecute { try SystemCalls.chmod(prefix, policy.directoryMode) }
                created.append(prefix)
            } catch {
                // Existing parents are expected; one that is not a directory makes the next
                // mkdir (or the lock file's open) fail with ENOTDIR.
                if error == .fileExists { continue }
                throw PreferencesError(
                    .io, path: prefix.string, errno: error.rawValue, "the preferences directory could not be created: \(error)")
            }
        }
        // A new directory's name is durable only once the directory holding it is synced:
        // without this a power cut after the first flush returned could take the preferences
        // directory away, and every file in it (the power-loss harness found it, strict model).
        // The new directory's own entries are synced after each rename, as for any commit.
        for path in created {
            let parent = path.removingLastComponent()
            // A parent this user may write but not read (mode -wx) cannot be opened to be
            // synced: nothing more can be done for it, and the write goes on.
            guard let descriptor = try? FileDescriptor.open(parent, .readOnly, options: [.directory, .closeOnExec]) else { continue }
            defer { try? descriptor.close() }
            do {
                try SystemCalls.fsync(descriptor)
            } catch {
                throw PreferencesError(
                    .io, path: parent.string, errno: error.rawValue,
                    "could not sync \(parent.string) after creating \(path.string) in it: \(error)")
            }
        }
    }

    /// Removes this domain's temporary files, which only an interrupted writer leaves behind.
    ///
    /// Only names of exactly this domain's form, `.<fileName>.tmp-<digits>-<digits>`, are
    /// removed: the prefix alone could also begin another domain's temporary file name.
    /// Failures are ignored: an orphan that cannot be removed costs only space, and the
    /// next update tries again.
    private func removeOrphanedTemporaryFiles() {
        // Both places a writer may have used: the staging directory, and beside the file
        // (where it cannot use that directory, and where earlier versions wrote).
        for folder in [stagingDirectory, directory] {
            guard let names = try? SystemCalls.directoryEntries(FilePath(folder)) else { continue }
            let prefix = temporaryFilePrefix
            for name in names where name.hasPrefix(prefix) {
                let suffix = name.utf8.dropFirst(prefix.utf8.count)
                let parts = suffix.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
                let isOurs =
                    parts.count == 2
                    && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
                if isOurs { try? SystemCalls.unlink(FilePath(folder + "/" + name)) }
            }
        }
    }

    /// Encodes the values, refusing an encoding larger than the size limit.
    private func encode(_ values: [String: PropertyListValue], limit: Int) throws(PreferencesError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try BinaryPropertyListEncoder().encode(.dictionary(values))
        } catch {
            throw PreferencesError(
                .tooLarge, path: path, "the new values exceed the property-list limits: \(error.description); nothing was written")
        }
        guard bytes.count <= limit else {
            throw PreferencesError(
                .tooLarge, path: path,
                "the new values encode to \(bytes.count) bytes, over the limit of \(limit) bytes; nothing was written")
        }
        return bytes
    }
}
