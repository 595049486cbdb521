import PropertyList
import Synchronization
package import SystemPackage

extension DomainFile {
    /// Numbers this process's temporary files, so concurrent writers in one process never
    /// pick the same name (the process ID separates processes).
    private static let temporaryFileCounter = Atomic<UInt64>(0)

    /// The most names tried when one is taken: for a temporary file (left by an earlier
    /// process with the same ID) or for a corrupt file kept aside (several in one second).
    private static let maximumNameAttempts = 1000

    /// Atomically replaces the file with `bytes`; the caller holds the domain's lock.
    ///
    /// The bytes go to a fresh temporary file in the same directory, which is synced and
    /// renamed over the file. The rename is durable once the directory is synced, which is
    /// the caller's to request (``DirectorySync``), so the next write need not wait for it. Until the rename, the old file is untouched: any failure before it removes
    /// the temporary file (and the corrupt file's second name) and throws.
    ///
    /// - Parameter keepingCorruptFileAside: The current file is corrupt: give it a
    ///   `.corrupt-<time>` name first, so its bytes survive the replacement.
    /// The new file's modification time is set to the wall clock's fine-grained time before
    /// it is synced. The kernel stamps any later write to the file with the file system's own
    /// clock, which would have to hit that nanosecond exactly to leave it as it is, so the
    /// returned identity tells this version apart from every later one without reading it
    /// again, even within one tick of the file system's clock (``DomainContents/isSettled``).
    ///
    /// - Parameter origin: Where the values came from, recorded with the file (``CommitOrigin``).
    /// - Parameter sequence: The new version's sequence number in the domain's history: the
    ///   file then carries a ``CommitRecord`` naming it, this process and the time stamped.
    /// - Parameter recycling: Given the temporary file's path, moves a file there to be
    ///   written over and opens it for writing, or returns nil for a new file (the commit
    ///   recycles a generation past the history's bounds there; see
    ///   ``DomainHistory/Commit/recycle(as:)``).
    /// - Parameter beforeRename: Runs once the new file is written and synced, just before
    ///   the rename (the commit keeps the file being replaced as a generation there).
    /// - Returns: The identity of the new file, from its own descriptor after the rename.
    package func replace(
        with bytes: [UInt8], keepingCorruptFileAside: Bool, mode: FilePermissions = .ownerReadWrite, origin: CommitOrigin? = nil,
        sequence: UInt64? = nil,
        recycling: (FilePath) -> FileDescriptor? = { _ in nil }, beforeRename: () -> Void = {}
    ) throws(PreferencesError) -> FileIdentity {
        let (temporaryPath, writer) = try createTemporaryFile(recycling: recycling)
        var descriptor = writer
        var asidePath: FilePath?
        do throws(PreferencesError) {
            let modificationTime = SystemCalls.wallClockNanoseconds()
            let record = sequence.map {
                CommitRecord(sequence: $0, processID: SystemCalls.processID(), unit: ProcessUnit.current, modificationTime: modificationTime)
            }
            try fill(writer, with: bytes, mode: mode, record: record, origin: origin, modificationTime: modificationTime)
            // The writing descriptor is closed before the rename, through a read-only one kept
            // for the status: closing a file opened for writing raises IN_CLOSE_WRITE under
            // the name it has then, and after the rename that is the domain's name, which would
            // wake every watching process to check the file a second time. Synced already, the
            // data cannot be lost by the close.
            if let reader = try? Errno.typed({
                try FileDescriptor.open(temporaryPath, .readOnly, options: [.noFollow, .closeOnExec])
            }) {
                descriptor = reader
                try? writer.close()
            }
            if keepingCorruptFileAside { asidePath = try keepCorruptFileAside() }
            beforeRename()
            DurabilityFaults.reached(.generationKept)
            do {
                try SystemCalls.rename(temporaryPath, to: systemPath)
                DurabilityFaults.reached(.renamed)
            } catch {
                throw PreferencesError(
                    .io, path: path, errno: error.rawValue,
                    "the new domain file could not be renamed into place: \(error); the old file is unchanged")
            }
        } catch {
            // The descriptor is only written, never synced again: its data no longer matters.
            // The writing descriptor, or the read-only one that replaced it (the writing one is
            // closed by then).
            try? descriptor.close()
            try? SystemCalls.unlink(temporaryPath)
            // The aside name is a second link to the unchanged original, so dropping it loses nothing.
            if let asidePath { try? SystemCalls.unlink(asidePath) }
            throw error
        }

        // The new file is in place. Its status is read through its descriptor, which still
        // names exactly this inode whatever happens at the path, and after the rename,
        // because rename changes the status-change time.
        let status = Result { () throws(Errno) in try descriptor.stat() }
        // The data is already synced, so a failed close cannot lose it.
        try? descriptor.close()
        switch status {
        case .success(let status):
            return FileIdentity(status)
        case .failure(let error):
            throw PreferencesError(
                .io, path: path, errno: error.rawValue, "the new domain file was written but its status could not be read: \(error)")
        }
    }

    /// Removes the file instead of writing an empty one; the caller holds the domain's lock.
    ///
    /// - Parameter keepingCorruptFileAside: The current file is corrupt: give it a
    ///   `.corrupt-<time>` name first, so its bytes survive.
    package func remove(keepingCorruptFileAside: Bool) throws(PreferencesError) {
        let asidePath = keepingCorruptFileAside ? try keepCorruptFileAside() : nil
        do {
            try SystemCalls.unlink(systemPath)
        } catch {
            if let asidePath { try? SystemCalls.unlink(asidePath) }
            // Already gone is what was wanted (only a writer ignoring the lock can do that).
            guard error == .noSuchFileOrDirectory else {
                throw PreferencesError(.io, path: path, errno: error.rawValue, "the domain file could not be removed: \(error)")
            }
        }
    }

    /// Creates the temporary file `.<fileName>.tmp-<pid>-<n>`, in the staging directory if it
    /// can be used, else beside the domain file: the file `recycling` moves to that name, or
    /// else a new, empty one, mode 0600.
    ///
    /// `O_EXCL` and `O_NOFOLLOW` make a new file certainly new and ours: a name that is
    /// taken, even by a link, is skipped rather than reused.
    private func createTemporaryFile(recycling: (FilePath) -> FileDescriptor?) throws(PreferencesError) -> (FilePath, FileDescriptor) {
        let processID = SystemCalls.processID()
        let folder = usableStagingDirectory() ?? directory
        var offerRecycling = true
        for _ in 0..<Self.maximumNameAttempts {
            let number = Self.temporaryFileCounter.wrappingAdd(1, ordering: .relaxed).oldValue
            let candidate = FilePath(folder + "/\(temporaryFilePrefix)\(processID)-\(number)")
            if offerRecycling {
                offerRecycling = false
                if let recycled = recycling(candidate) { return (candidate, recycled) }
            }
            do {
                let descriptor = try Errno.typed {
                    try FileDescriptor.open(
                        candidate, .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                        permissions: .ownerReadWrite)
                }
                return (candidate, descriptor)
            } catch {
                if error == .fileExists { continue }
                // The error names the domain file, not the temporary file: a temporary name
                // is new on every attempt, and the log's rate limit keys on the description.
                throw PreferencesError(
                    .io, path: path, errno: error.rawValue,
                    "a temporary file for the new domain file could not be created in \(directory): \(error); the old file is unchanged")
            }
        }
        throw PreferencesError(
            .io, path: directory, errno: Errno.fileExists.rawValue,
            "no free temporary file name was found for \(fileName); the old file is unchanged")
    }

    /// The staging directory (``DomainFile/stagingDirectory``), made if missing, when it is
    /// safe to write in: a real directory (not a link), this user's, writable by nobody else.
    /// Nil otherwise (another user's, say, after a `sudo defaults write`): the temporary file
    /// then goes beside the domain file, as before there was a staging directory, which
    /// costs the watchers wake-ups but never the write.
    package func usableStagingDirectory() -> String? {
        let staging = stagingDirectory
        var status = try? FilePath(staging).stat(followTargetSymlink: false)
        if status == nil {
            // Made by whichever writer comes first; one that loses the race finds it made.
            do {
                try SystemCalls.mkdir(FilePath(staging), .ownerReadWriteExecute)
            } catch {
                guard error == .fileExists else { return nil }
            }
            status = try? FilePath(staging).stat(followTargetSymlink: false)
        }
        guard let status, status.type == .directory, status.userID.rawValue == SystemCalls.effectiveUserID(),
            status.permissions.isDisjoint(with: [.groupWrite, .otherWrite])
        else { return nil }
        return staging
    }

    /// Makes the mode exactly `mode` (0600 unless the policy says otherwise), writes every
    /// byte and syncs the temporary file.
    ///
    /// A recycled file is written over from its start and cut to the new length if it was
    /// longer; its old commit record, if a new one cannot be set, no longer names its
    /// modification time and so is ignored (``CommitRecord``).
    ///
    /// The mode is set explicitly because `open` filters it through the umask.
    /// `writeAll` loops over short writes and retries `EINTR`. A failed `fsync` is never
    /// retried: the caller discards the file.
    ///
    /// The commit record is set before the sync, so it is as durable as the data. Setting it
    /// may fail (`ENOTSUP` where the file system has no user attributes, `ENOSPC`, a quota):
    /// the version's writer is then unknown, which is no reason to refuse the write.
    private func fill(
        _ descriptor: FileDescriptor, with bytes: [UInt8], mode: FilePermissions, record: CommitRecord?, origin: CommitOrigin?,
        modificationTime: Int64
    ) throws(PreferencesError) {
        let previousSize: Int64
        do {
            // `open` filtered 0600 through the umask, which leaves it as it is unless the umask
            // is unusual. A chmod raises IN_ATTRIB, one more wake-up of every process watching
            // the directory, so it runs only when the mode needs it.
            let status = try Errno.typed { try descriptor.stat() }
            previousSize = status.size
            if status.permissions != mode { try SystemCalls.fchmod(descriptor, mode) }
        } catch {
            throw failure(error, "could not set the mode of the temporary file")
        }
        do {
            _ = try Errno.typed { try descriptor.writeAll(bytes) }
            if previousSize > Int64(bytes.count) { try Errno.typed { try descriptor.resize(to: Int64(bytes.count)) } }
            DurabilityFaults.reached(.temporaryWritten)
        } catch {
            throw failure(error, "could not write the temporary file")
        }
        if let record {
            try? SystemCalls.setExtendedAttribute(CommitRecord.attributeName, to: record.encoded, of: descriptor)
        }
        // A recycled file may carry an earlier version's origin: it names that version's
        // modification time, never this one's, so it is ignored when read, and no write pays a
        // system call to remove it.
        if let encoded = origin?.encoded(modificationTime: modificationTime) {
            try? SystemCalls.setExtendedAttribute(CommitOrigin.attributeName, to: encoded, of: descriptor)
        }
        do {
            try SystemCalls.setModificationTime(descriptor, nanoseconds: modificationTime)
        } catch {
            throw failure(error, "could not set the modification time of the temporary file")
        }
        do {
            if !DurabilityFaults.omitsFileSync { try SystemCalls.fsync(descriptor) }
        } catch {
            throw failure(error, "could not sync the temporary file to disk")
        }
        DurabilityFaults.reached(.temporarySynced)
    }

    /// An `io` error about the new file that says the old file is unchanged.
    ///
    /// It names the domain file, not the temporary file: the temporary name is new on every
    /// attempt, and a description that changed with it would defeat the log's rate limit
    /// (keyed on the description), logging every retry against a full disk.
    private func failure(_ error: Errno, _ what: String) -> PreferencesError {
        PreferencesError(.io, path: path, errno: error.rawValue, "\(what): \(error); the old domain file is unchanged")
    }

    /// Gives the corrupt current file a second name, `<fileName>.corrupt-<yyyyMMdd'T'HHmmss>`
    /// in UTC (with `-2`, `-3`, … if taken), and returns it.
    ///
    /// A hard link rather than a rename keeps the file at its own name until the replacement
    /// is renamed over it, so a failure in between leaves everything as it was; `link` never
    /// replaces an existing name, so an earlier corrupt file is never overwritten.
    private func keepCorruptFileAside() throws(PreferencesError) -> FilePath {
        let base = "\(fileName).corrupt-\(Self.utcTimestamp())"
        for attempt in 1...Self.maximumNameAttempts {
            let candidate = FilePath(siblingPath(attempt == 1 ? base : "\(base)-\(attempt)"))
            do {
                try SystemCalls.link(systemPath, as: candidate)
                return candidate
            } catch {
                if error == .fileExists { continue }
                throw PreferencesError(
                    .io, path: path, errno: error.rawValue,
                    "the corrupt domain file could not be kept aside as \(candidate): \(error); nothing was written")
            }
        }
        throw PreferencesError(
            .io, path: path, errno: Errno.fileExists.rawValue,
            "no free name was found to keep the corrupt domain file aside; nothing was written")
    }

    /// The current UTC time as `yyyyMMdd'T'HHmmss`.
    private static func utcTimestamp() -> String {
        let now = SystemCalls.utcNow()
        func pad(_ value: Int, _ width: Int) -> String { String(value).zeroPadded(to: width) }
        return pad(now.year, 4) + pad(now.month, 2) + pad(now.day, 2) + "T" + pad(now.hour, 2) + pad(now.minute, 2)
            + pad(now.second, 2)
    }
}
