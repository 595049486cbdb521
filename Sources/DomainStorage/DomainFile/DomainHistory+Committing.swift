package import Logging
package import PropertyList
package import SystemPackage

extension DomainHistory {
    /// One commit's part in the history: the generation it keeps of the file it replaces, and
    /// the sequence number of the version it writes.
    ///
    /// Made by ``beginCommit(replacing:currentIsCorrupt:policy:)`` under the domain's lock,
    /// before the new file is written. If keeping a generation puts the oldest past the
    /// bounds, ``recycle(as:)`` hands that oldest generation's file to the commit as its
    /// temporary file, to be written over. ``keep()`` links the file being replaced into the
    /// history at the last moment, once the new file is written and synced and only the
    /// rename is left, so a write that fails before it leaves the old file untouched, status
    /// included. Then ``finish(policy:)`` once the new file is in place (which prunes the
    /// history to its bounds), or ``abandon()`` if the commit failed (which takes the
    /// generation back, so a retried commit does not keep the same file twice). Either
    /// closes the directory. Used by one thread, under the domain's lock.
    ///
    /// Why recycle: removing a file frees its data blocks, and on a file system mounted with
    /// `discard` (this project's machines) that is a large part of the whole durable flush
    /// (`Benchmarks/RESULTS.md`, "Generations", has the figures). Without a history the
    /// rename frees the replaced file's blocks; with one, the replaced file lives on as a
    /// generation and pruning the oldest would free blocks on top. Writing the new version
    /// into the pruned generation's blocks frees none, as databases recycle their log files
    /// for the same reason.
    package final class Commit {
        /// The sequence number of the version being written.
        package let sequence: UInt64
        /// Why the history could not be used for this commit, if it could not: for a warning.
        package private(set) var problem: PreferencesError?
        /// The open history directory, if it is used; nil once closed.
        private var directory: FileDescriptor?
        /// The generation number the replaced file is kept as, if it is to be kept.
        private let number: UInt64?
        /// The replaced file's size, for the byte bound.
        private let size: Int64
        /// The domain file being replaced.
        private let filePath: String
        /// The history directory's path: for messages, and the listing cache's key.
        private let directoryPath: String
        /// The kept generations and their sizes, as listed (or cached) before this commit.
        private var generations: [UInt64: Int64]
        /// The generation kept, once ``keep()`` has linked it.
        private var kept: UInt64?
        /// The oldest generation that keeping this one puts past the bounds, while it can
        /// still be recycled as the new file (see ``recycle(as:)``).
        private var recyclable: UInt64?
        /// The private keys this commit removes, with the values they had: once committed,
        /// they are purged from every copy kept (see ``DomainFile/purgeWhileLocked(keys:known:policy:)``).
        package var removedPrivateValues: [String: PropertyListValue] = [:]
        /// The replaced file's values without its private keys, encoded, when it holds any:
        /// the generation is then this copy, written afresh, instead of a link to the file.
        private let redacted: [UInt8]?

        package init(
            sequence: UInt64, problem: PreferencesError? = nil, directory: FileDescriptor? = nil, number: UInt64? = nil,
            size: Int64 = 0, filePath: String, directoryPath: String, generations: [UInt64: Int64] = [:], recyclable: UInt64? = nil,
            redacted: [UInt8]? = nil
        ) {
            self.sequence = sequence
            self.problem = problem
            self.directory = directory
            self.number = number
            self.size = size
            self.filePath = filePath
            self.directoryPath = directoryPath
            self.generations = generations
            self.recyclable = recyclable
            self.redacted = redacted
        }

        deinit {
            try? directory?.close()
        }

        /// Moves the oldest generation past the bounds to `temporaryPath` and opens it for
        /// writing, so the commit writes its new version over that file instead of a new one;
        /// nil if there is none, or it is not safe to write over.
        ///
        /// Once moved it is no generation: whatever follows, it becomes the new version or is
        /// removed as a temporary file. It is written over only if it is still what this
        /// library made: a regular file of this user's with no other name (a hard link made
        /// by hand elsewhere keeps its contents). A reader that opened it as a generation
        /// before the move finds its name gone after reading and drops what it read
        /// (``DomainFile/readCheckedBytes(policy:role:confirmingName:)``).
        package func recycle(as temporaryPath: FilePath) -> FileDescriptor? {
            guard let directory, let number = recyclable else { return nil }
            recyclable = nil
            do {
                try SystemCalls.move(DomainHistory.fileName(ofGeneration: number), in: directory, to: temporaryPath)
            } catch {
                // Removed by hand, say: the listing is stale, and the pruning lists again.
                return nil
            }
            generations[number] = nil
            guard
                let descriptor = try? Errno.typed({
                    try FileDescriptor.open(temporaryPath, .writeOnly, options: [.noFollow, .closeOnExec, .nonBlocking])
                })
            else {
                try? SystemCalls.unlink(temporaryPath)
                return nil
            }
            guard let status = try? descriptor.stat(), status.type == .regular, status.linkCount == 1,
                status.userID.rawValue == SystemCalls.effectiveUserID()
            else {
                try? descriptor.close()
                try? SystemCalls.unlink(temporaryPath)
                return nil
            }
            return descriptor
        }

        /// Links the file being replaced into the history as its generation; the caller is
        /// about to rename the new file over it (or remove it). A failure is only recorded.
        package func keep() {
            guard let directory, let number else { return }
            do {
                if let redacted {
                    try DomainHistory.writeCopy(of: FilePath(filePath), holding: redacted, into: directory, as: DomainHistory.fileName(ofGeneration: number))
                    generations[number] = Int64(redacted.count)
                } else {
                    try SystemCalls.link(FilePath(filePath), into: directory, as: DomainHistory.fileName(ofGeneration: number))
                    generations[number] = size
                }
                kept = number
            } catch {
                // A name taken can only be a file put there by hand: the generation is not kept
                // rather than renumbered, since the new file's sequence already follows it.
                problem = PreferencesError(
                    .io, path: directoryPath + "/" + DomainHistory.fileName(ofGeneration: number), errno: error.rawValue,
                    "the replaced domain file \(filePath) could not be kept as generation \(number): \(error); the write goes on without it")
                DomainHistory.forgetListing(of: directoryPath)
            }
        }

        /// The new version is in place: removes generations past the bounds, oldest first,
        /// never the one just kept (the newest, and known to decode), and remembers what the
        /// directory now holds for the next commit.
        package func finish(policy: FilePolicy) {
            guard let directory else { return }
            defer {
                try? directory.close()
                self.directory = nil
            }
            guard let kept else { return }
            for number in DomainHistory.generationsPastBounds(generations, keeping: kept, policy: policy) {
                // A name that cannot be removed (a directory planted by hand) is left alone,
                // and the next commit lists the directory again.
                do {
                    try SystemCalls.unlink(DomainHistory.fileName(ofGeneration: number), in: directory)
                    generations[number] = nil
                } catch {
                    DomainHistory.forgetListing(of: directoryPath)
                    return
                }
            }
            guard let status = try? directory.stat() else { return }
            DomainHistory.remember(
                Listing(directory: FileIdentity(status), sequence: sequence, generations: generations), of: directoryPath)
        }

        /// The commit failed: the replaced file is still the domain's file, so its generation
        /// is taken back.
        package func abandon() {
            guard let directory else { return }
            if let kept { try? SystemCalls.unlink(DomainHistory.fileName(ofGeneration: kept), in: directory) }
            try? directory.close()
            self.directory = nil
            DomainHistory.forgetListing(of: directoryPath)
        }
    }

    /// Prepares keeping the current file as a generation, before a commit replaces or removes
    /// it; the caller holds the domain's lock.
    ///
    /// The generation's number is the file's recorded sequence if its record is valid (its
    /// modification time still the one its writer stamped) and higher than every kept
    /// number, else one more than the highest kept; the new version's sequence is one more
    /// than that. A corrupt file is not kept (it is kept aside under its own name by the
    /// commit), and neither is anything when the bounds allow no generation at all.
    ///
    /// - Parameters:
    ///   - current: The file being replaced, as read or confirmed under the lock; nil if there
    ///     is none or it is corrupt.
    ///   - currentIsCorrupt: The file at the path could not be decoded.
    package func beginCommit(replacing current: DomainContents?, currentIsCorrupt: Bool, policy: FilePolicy) -> Commit {
        let filePath = file.path
        let exists = current != nil || currentIsCorrupt
        var recordedSequence: UInt64 = 0
        if exists, let record = Self.record(atPath: filePath),
            record.modificationTime == (current?.identity ?? file.identity())?.modificationTime
        {
            recordedSequence = record.sequence
        }
        guard policy.generationLimit > 0 else {
            return Commit(sequence: recordedSequence + 1, filePath: filePath, directoryPath: directoryPath)
        }
        let directory: FileDescriptor
        let status: Stat
        do throws(PreferencesError) {
            // Created only when there is a file to keep: a domain's first write leaves none.
            guard let opened = try openDirectoryWithStatus(policy: policy, creating: current != nil) else {
                return Commit(sequence: recordedSequence + 1, filePath: filePath, directoryPath: directoryPath)
            }
            (directory, status) = opened
        } catch {
            return Commit(sequence: recordedSequence + 1, problem: error, filePath: filePath, directoryPath: directoryPath)
        }
        let generations = listing(of: directory, status: status, replacing: recordedSequence)
        let highest = generations.keys.max() ?? 0
        guard let current else {
            return Commit(
                sequence: max(highest, recordedSequence) + 1, directory: directory, filePath: filePath, directoryPath: directoryPath,
                generations: generations)
        }
        let number = recordedSequence > highest ? recordedSequence : highest + 1
        var afterKeeping = generations
        afterKeeping[number] = current.identity.size
        // Never the newest kept before this commit: the rename that replaced it, the last
        // commit's, may not be durable yet (a flush without waiting returns before its
        // directory is synced), and after a power cut the domain's name could still be that
        // file's, half written over. Every older one was replaced before the last commit
        // synced its own new file, which on ext4 makes every earlier rename durable too.
        let recyclable = Self.generationsPastBounds(afterKeeping, keeping: number, policy: policy).first.flatMap {
            $0 < highest ? $0 : nil
        }
        // A file holding private values is kept without them: a copy, not a link. The copy
        // is written only for such a file, so a domain whose file holds no secret commits as
        // cheaply as ever.
        var redacted: [UInt8]?
        // Asked per private key, not per key of the domain: a large domain's commit pays nothing.
        if policy.privateKeys.contains(where: { current.values[$0] != nil }) {
            let kept = current.values.filter { !policy.privateKeys.contains($0.key) }
            // Encoding values just decoded cannot fail; if it ever did, an empty domain is
            // kept rather than the secret.
            redacted = (try? BinaryPropertyListEncoder().encode(.dictionary(kept))) ?? (try? BinaryPropertyListEncoder().encode(.dictionary([:]))) ?? []
        }
        return Commit(
            sequence: number + 1, directory: directory, number: number, size: current.identity.size, filePath: filePath,
            directoryPath: directoryPath, generations: generations, recyclable: recyclable, redacted: redacted)
    }

    /// The generations kept past the bounds, oldest first to go: the newest are kept for as
    /// long as both the count and their bytes stay within the policy's limits, and `newest`
    /// always.
    package static func generationsPastBounds(_ generations: [UInt64: Int64], keeping newest: UInt64, policy: FilePolicy) -> [UInt64] {
        var count = 0
        var bytes: Int64 = 0
        var past: [UInt64] = []
        for (number, size) in generations.sorted(by: { $0.key > $1.key }) {
            count += 1
            bytes += size
            if number != newest && (!past.isEmpty || count > policy.generationLimit || bytes > Int64(policy.generationByteLimit)) {
                past.append(number)
            }
        }
        return past.reversed()
    }

    // MARK: The listing cache

    /// What this process left in a history directory after its last commit there.
    ///
    /// Listing the directory and examining every generation costs more than the rest of
    /// keeping one, so a commit that finds the domain file still the version this process
    /// wrote (its record names the sequence remembered here), in a directory whose status is
    /// unchanged, uses this instead: no other writer has committed since, and nobody has
    /// added or removed a name there.
    package struct Listing {
        /// The directory's status after the commit.
        package let directory: FileIdentity
        /// The sequence number of the version the commit wrote.
        package let sequence: UInt64
        /// The generations and their sizes.
        package let generations: [UInt64: Int64]
    }

    /// The last listing per history directory path.
    private static let listings = ThreadLock([String: Listing](), rank: .leaf)

    /// Remembers what a commit left in the history directory at `path`.
    package static func remember(_ listing: Listing, of path: String) {
        listings.withLock { $0[path] = listing }
    }

    /// Forgets the directory's listing: the next commit lists it again.
    package static func forgetListing(of path: String) {
        _ = listings.withLock { $0.removeValue(forKey: path) }
    }

    /// The generations in the open directory and their sizes: remembered, if still true (see
    /// ``Listing``), else listed and examined.
    ///
    /// A listing also removes the temporary files of copies whose writer died before renaming
    /// them (``isTemporaryCopyName(_:)``): the caller holds the domain's lock, so none is being
    /// written, and nothing else would ever remove them. A remembered listing skips this for
    /// free: it is used only while nobody has added a name to the directory since this process
    /// listed it or committed there last.
    private func listing(of directory: FileDescriptor, status: Stat, replacing recordedSequence: UInt64) -> [UInt64: Int64] {
        let path = directoryPath
        if recordedSequence > 0, let remembered = Self.listings.withLock({ $0[path] }), remembered.sequence == recordedSequence,
            FileIdentity(status) == remembered.directory
        {
            return remembered.generations
        }
        var generations: [UInt64: Int64] = [:]
        for name in (try? SystemCalls.directoryEntries(in: directory)) ?? [] {
            if let number = Self.generationNumber(ofFileName: name) {
                generations[number] = (try? Stat(FilePath(name), relativeTo: directory, flags: .symlinkNoFollow).size) ?? 0
            } else if Self.isTemporaryCopyName(name) {
                // A failure only leaves the orphan for the next listing.
                try? SystemCalls.unlink(name, in: directory)
            }
        }
        return generations
    }

    // MARK: Warnings

    /// The history directories this process has warned about, so each is reported once.
    private static let warned = ThreadLock(Set<String>(), rank: .leaf)

    /// Logs, once per directory per process, that generations of the domain are not kept.
    package static func warnOnce(_ problem: PreferencesError, file: DomainFile, logger: Logger) {
        let key = problem.path ?? file.path
        let isNew = warned.withLock { $0.insert(key).inserted }
        guard isNew else { return }
        var metadata: Logger.Metadata = [
            PreferencesLogField.messageID: .string(PreferencesLogEvent.historyUnusable.messageID),
            PreferencesLogField.error: .string(problem.code.description),
            PreferencesLogField.path: .string(file.path),
            PreferencesLogField.historyPath: .string(key),
        ]
        if let errno = problem.errno { metadata[PreferencesLogField.errno] = .string(String(errno)) }
        logger.warning("no generation of \(file.path) is kept: \(problem.description)", metadata: metadata)
    }
}
