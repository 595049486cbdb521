import Logging
import SystemPackage

extension DomainHistory {
    /// One commit's part in the history: the generation it keeps of the file it replaces, and
    /// the sequence number of the version it writes.
    ///
    /// Made by ``beginCommit(replacing:currentIsCorrupt:policy:)`` under the domain's lock,
    /// before the new file is written. ``keep()`` links the file being replaced into the
    /// history at the last moment, once the new file is written and synced and only the
    /// rename is left, so a write that fails before it leaves the old file untouched, status
    /// included. Then ``finish(policy:)`` once the new file is in place (which prunes the
    /// history to its bounds), or ``abandon()`` if the commit failed (which takes the
    /// generation back, so a retried commit does not keep the same file twice). Either
    /// closes the directory. Used by one thread, under the domain's lock.
    final class Commit {
        /// The sequence number of the version being written.
        let sequence: UInt64
        /// Why the history could not be used for this commit, if it could not: for a warning.
        private(set) var problem: PreferencesError?
        /// The open history directory, if it is used; nil once closed.
        private var directory: FileDescriptor?
        /// The generation number the replaced file is kept as, if it is to be kept.
        private let number: UInt64?
        /// The domain file being replaced.
        private let filePath: String
        /// The history directory's path, for messages.
        private let directoryPath: String
        /// The generation kept, once ``keep()`` has linked it.
        private var kept: UInt64?

        init(
            sequence: UInt64, problem: PreferencesError?, directory: FileDescriptor?, number: UInt64?, filePath: String,
            directoryPath: String
        ) {
            self.sequence = sequence
            self.problem = problem
            self.directory = directory
            self.number = number
            self.filePath = filePath
            self.directoryPath = directoryPath
        }

        deinit {
            try? directory?.close()
        }

        /// Links the file being replaced into the history as its generation; the caller is
        /// about to rename the new file over it (or remove it). A failure is only recorded.
        func keep() {
            guard let directory, let number else { return }
            do {
                try SystemCalls.link(FilePath(filePath), into: directory, as: DomainHistory.fileName(ofGeneration: number))
                kept = number
            } catch {
                // A name taken can only be a file put there by hand: the generation is not kept
                // rather than renumbered, since the new file's sequence already follows it.
                problem = PreferencesError(
                    .io, path: directoryPath + "/" + DomainHistory.fileName(ofGeneration: number), errno: error.rawValue,
                    "the replaced domain file \(filePath) could not be kept as generation \(number): \(error); the write goes on without it")
            }
        }

        /// The new version is in place: removes generations past the bounds, oldest first,
        /// never the one just kept (the newest, and known to decode).
        func finish(policy: FilePolicy) {
            guard let directory else { return }
            if let kept { DomainHistory.prune(directory, keeping: kept, policy: policy) }
            try? directory.close()
            self.directory = nil
        }

        /// The commit failed: the replaced file is still the domain's file, so its generation
        /// is taken back.
        func abandon() {
            guard let directory else { return }
            if let kept { try? SystemCalls.unlink(DomainHistory.fileName(ofGeneration: kept), in: directory) }
            try? directory.close()
            self.directory = nil
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
    func beginCommit(replacing current: DomainContents?, currentIsCorrupt: Bool, policy: FilePolicy) -> Commit {
        let filePath = file.path
        let exists = current != nil || currentIsCorrupt
        var recordedSequence: UInt64 = 0
        if exists, let record = Self.record(atPath: filePath),
            record.modificationTime == (current?.identity ?? file.identity())?.modificationTime
        {
            recordedSequence = record.sequence
        }
        func without(_ problem: PreferencesError? = nil, _ highest: UInt64 = 0, _ directory: FileDescriptor? = nil) -> Commit {
            Commit(sequence: max(highest, recordedSequence) + 1, problem: problem, directory: directory, number: nil, filePath: filePath,
                directoryPath: directoryPath)
        }
        guard policy.generationLimit > 0 else { return without() }
        let directory: FileDescriptor
        do throws(PreferencesError) {
            // Created only when there is a file to keep: a domain's first write leaves none.
            guard let opened = try openDirectory(policy: policy, creating: current != nil) else { return without() }
            directory = opened
        } catch {
            return without(error)
        }
        let highest = Self.generationNumbers(in: directory).max() ?? 0
        guard current != nil else { return without(nil, highest, directory) }
        let number = recordedSequence > highest ? recordedSequence : highest + 1
        return Commit(sequence: number + 1, problem: nil, directory: directory, number: number, filePath: filePath, directoryPath: directoryPath)
    }

    /// Removes the generations past the bounds, oldest first: the newest are kept for as
    /// long as both the count and their bytes stay within the policy's limits, and `newest`
    /// always.
    static func prune(_ directory: FileDescriptor, keeping newest: UInt64, policy: FilePolicy) {
        let numbers = generationNumbers(in: directory).sorted(by: >)
        // The cheap common case: under the count and, by the size limit, surely under the bytes.
        if numbers.count <= policy.generationLimit && numbers.count * policy.sizeLimit <= policy.generationByteLimit { return }
        var count = 0
        var bytes: Int64 = 0
        var over = false
        for number in numbers {
            let name = fileName(ofGeneration: number)
            if !over {
                let size = (try? Stat(FilePath(name), relativeTo: directory, flags: .symlinkNoFollow).size) ?? 0
                count += 1
                bytes += size
                over = number != newest && (count > policy.generationLimit || bytes > Int64(policy.generationByteLimit))
                if !over { continue }
            }
            // A name that cannot be removed (a directory planted by hand) is left alone.
            try? SystemCalls.unlink(name, in: directory)
        }
    }

    // MARK: Warnings

    /// The history directories this process has warned about, so each is reported once.
    private static let warned = ThreadLock(Set<String>(), rank: .leaf)

    /// Logs, once per directory per process, that generations of the domain are not kept.
    static func warnOnce(_ problem: PreferencesError, file: DomainFile, logger: Logger) {
        let key = problem.path ?? file.path
        let isNew = warned.withLock { $0.insert(key).inserted }
        guard isNew else { return }
        var metadata: Logger.Metadata = [
            "MESSAGE_ID": .string(PreferencesLogEvent.historyUnusable.messageID),
            "PREFERENCES_ERROR": .string(problem.code.description),
            "PREFERENCES_PATH": .string(file.path),
            "PREFERENCES_HISTORY_PATH": .string(key),
        ]
        if let errno = problem.errno { metadata["ERRNO"] = .string(String(errno)) }
        logger.warning("no generation of \(file.path) is kept: \(problem.description)", metadata: metadata)
    }
}
