import Logging
import SystemPackage

/// One domain file's commit counter: a 32-bit word in a small file mapped into every
/// process that uses the domain, raised by every library write after its rename.
///
/// It serves two jobs no inotify event can do alone. A read compares the word with the value
/// this process last brought its copy of the file up to date at (``seen``), one load each,
/// and re-reads the file when they differ, so a read that starts after another process's
/// `flush()` returned sees that write (*fresh reads*). And a process that could get no
/// inotify instance sleeps on the words with a futex instead of polling, so library writes
/// reach it as fast as an inotify event would (``CommitWaiter``).
///
/// The file (``Layout``) is 64 bytes: a magic string, a format version, the counter and a
/// count of sleeping waiters. It lives under `$XDG_RUNTIME_DIR` (``CommitCounterLocation``)
/// and is trusted like a domain file: regular, ours, not writable by group or others, and
/// exactly the right size and magic; anything else is refused and the domain relies on the
/// watcher alone.
package final class CommitCounter: @unchecked Sendable {
    // Safety: the pointers reach a mapping whose address is never unmapped (its pages may be
    // swapped for another file's in one step, see ``follow(policy:)``) and a private word
    // that is never freed (counters live as long as the process); every access is atomic.

    /// The layout of the file.
    package enum Layout {
        /// Bytes 0..<8.
        package static let magic: [UInt8] = Array("SPCOMMIT".utf8)
        /// Bytes 8..<12, little-endian.
        package static let version: UInt32 = 1
        /// The counter, raised after every rename.
        package static let counterOffset = 16
        /// How many threads sleep on the counter, so a writer can skip the wake-up call.
        package static let waitersOffset = 20
        /// The whole file.
        package static let size = 64
    }

    /// The file's path.
    package let path: String
    /// `path` as the system calls take it, made once: ``follow(policy:)`` runs for every change
    /// the watcher sees, and parsing a `FilePath` from a string each time was a quarter of the
    /// watcher thread's time in debug builds.
    private let systemPath: FilePath
    /// The directory the file is in.
    package let directory: String
    /// The shared counter.
    package let word: UnsafeMutablePointer<UInt32>
    /// The shared count of sleepers.
    package let waiters: UnsafeMutablePointer<UInt32>
    /// The counter's value when this process's copy of the file was last known current.
    package let seen: UnsafeMutablePointer<UInt32>
    /// Where the file is mapped, for the life of the process.
    private let mapping: UnsafeMutableRawPointer
    /// The file mapped there (device and inode), or nil once it was let go.
    private let mapped: ThreadLock<(device: UInt64, inode: UInt64)?>

    private init(path: String, directory: String, mapping: UnsafeMutableRawPointer, file: (device: UInt64, inode: UInt64)) {
        self.path = path
        systemPath = FilePath(path)
        self.directory = directory
        self.mapping = mapping
        mapped = ThreadLock(file, rank: .leaf)
        word = (mapping + Layout.counterOffset).assumingMemoryBound(to: UInt32.self)
        waiters = (mapping + Layout.waitersOffset).assumingMemoryBound(to: UInt32.self)
        seen = .allocate(capacity: 1)
        // Never equal to a real value at first sight: the first read brings the file in anyway.
        seen.initialize(to: SystemCalls.loadShared(word) &- 1)
    }

    /// The counter now.
    package var current: UInt32 { SystemCalls.loadShared(word) }

    /// Whether a commit happened since this process's copy was last known current.
    @inline(__always)
    package var isStale: Bool { SystemCalls.loadShared(word) != SystemCalls.loadShared(seen) }

    /// Records that this process's copy reflects every commit up to `value`: a value loaded
    /// *before* the file was confirmed or read, so a commit racing the read stays visible.
    package func noteSeen(_ value: UInt32) {
        SystemCalls.storeShared(seen, value)
    }

    /// Raises the counter after a rename, and wakes sleepers if there are any.
    ///
    /// The writer's own copy holds what it wrote, which includes every earlier commit (writers
    /// take turns under the domain's lock file and re-read the file first), so the raised value
    /// is seen at once.
    package func raise() {
        let value = SystemCalls.incrementShared(word)
        noteSeen(value)
        if SystemCalls.loadShared(waiters) != 0 { SystemCalls.wakeAll(word) }
    }

    // MARK: Opening

    /// Opens (creating it if needed) and maps the counter at `path` in `directory`, checking
    /// both as domain files are checked.
    package static func open(path: String, directory: String, policy: FilePolicy) throws(PreferencesError) -> CommitCounter {
        let (descriptor, file) = try openChecked(path: path, directory: directory, policy: policy)
        // The mapping outlives the descriptor.
        defer { try? descriptor.close() }
        do {
            let mapping = try SystemCalls.mapShared(descriptor, length: Layout.size)
            return CommitCounter(path: path, directory: directory, mapping: mapping, file: file)
        } catch {
            throw PreferencesError(.io, path: path, errno: error.rawValue, "the commit counter could not be mapped: \(error)")
        }
    }

    /// Keeps the mapping on the file at ``path``, which another process may have removed or
    /// replaced (a domain directory removed and made again, say): a counter nobody else maps
    /// any more would miss every other process's commits, and a removed file's mapping keeps
    /// its directory from being reported gone to the watcher. One `lstat` when nothing
    /// changed. Otherwise the pages are swapped for the file now at the path, or, when there
    /// is none or it is refused, for zeroed memory of this process's own until a later call
    /// finds one; the address stays the same, so stores' pointers stay valid.
    ///
    /// The caller holds the domain's view lock.
    ///
    /// - Returns: Whether the mapping changed, so sleepers take their words again.
    package func follow(policy: FilePolicy) -> Bool {
        let current = (try? systemPath.stat(followTargetSymlink: false)).map { (device: UInt64($0.deviceID.rawValue), inode: UInt64($0.inode.rawValue)) }
        let known = mapped.withLock { $0 }
        if let current, let known, current == known { return false }
        // A missing directory is waited for, as beside a domain file the first open waits:
        // the process that makes the directory again makes the counter too.
        var replacement: (descriptor: FileDescriptor, file: (device: UInt64, inode: UInt64))?
        if current != nil || SystemCalls.isSearchableDirectory(directory) {
            replacement = try? Self.openChecked(path: path, directory: directory, policy: policy)
        }
        defer { try? replacement?.descriptor.close() }
        if replacement == nil && known == nil { return false }
        do {
            try SystemCalls.remapShared(at: mapping, length: Layout.size, to: replacement?.descriptor)
        } catch {
            // The old mapping stays (the kernel changes nothing when mmap fails): tried again
            // at the next event.
            return false
        }
        mapped.withLock { $0 = replacement?.file }
        return true
    }

    /// Opens the counter file (creating it if needed) and checks it.
    private static func openChecked(
        path: String, directory: String, policy: FilePolicy
    ) throws(PreferencesError) -> (descriptor: FileDescriptor, file: (device: UInt64, inode: UInt64)) {
        try checkDirectory(directory, policy: policy)
        let descriptor = try openOrCreate(path: path, directory: directory)
        do {
            let status = try Errno.typed { try descriptor.stat() }
            // The domain files' rules, with this file's own size instead of the size limit.
            var exact = policy
            exact.sizeLimit = Layout.size
            try exact.check(status, path: path, role: "the commit counter")
            guard status.size == Int64(Layout.size) else {
                throw PreferencesError(
                    .corrupt, path: path, "the commit counter is \(status.size) bytes, not \(Layout.size); remove it and it is made again")
            }
            var header = [UInt8](repeating: 0, count: 12)
            let count = try Errno.typed { try header.withUnsafeMutableBytes { try descriptor.read(fromAbsoluteOffset: 0, into: $0) } }
            let version = header[8...].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard count == 12, Array(header[..<8]) == Layout.magic, version == Layout.version else {
                throw PreferencesError(
                    .corrupt, path: path, "the commit counter does not start with this library's header; remove it and it is made again")
            }
            return (descriptor, (UInt64(status.deviceID.rawValue), UInt64(status.inode.rawValue)))
        } catch let error as PreferencesError {
            try? descriptor.close()
            throw error
        } catch {
            try? descriptor.close()
            let errno = (error as? Errno) ?? .ioError
            throw PreferencesError(.io, path: path, errno: errno.rawValue, "the commit counter could not be read: \(errno)")
        }
    }

    /// The counters' directory must be ours and private: whoever can write it can swap a
    /// counter for one that never moves.
    private static func checkDirectory(_ directory: String, policy: FilePolicy) throws(PreferencesError) {
        do {
            try SystemCalls.mkdir(FilePath(directory), .ownerReadWriteExecute)
        } catch {
            guard error == .fileExists else {
                throw PreferencesError(
                    .io, path: directory, errno: error.rawValue, "the commit counters' directory could not be created: \(error)")
            }
        }
        let status: Stat
        do {
            status = try FilePath(directory).stat(followTargetSymlink: false)
        } catch {
            throw PreferencesError(.io, path: directory, errno: error.rawValue, "the commit counters' directory could not be examined: \(error)")
        }
        guard status.type == .directory else {
            throw PreferencesError(
                .notRegularFile, path: directory, "the commit counters' directory is not a directory (a link or a file was planted there)")
        }
        try policy.checkDirectory(status, path: directory)
    }

    /// Opens the counter file for reading and writing, creating it whole if it is missing:
    /// written under a temporary name and linked into place, so no process ever maps a
    /// half-made counter, and of two processes creating it at once one link wins.
    private static func openOrCreate(path: String, directory: String) throws(PreferencesError) -> FileDescriptor {
        for _ in 0..<3 {
            do {
                return try Errno.typed {
                    try FileDescriptor.open(FilePath(path), .readWrite, options: [.noFollow, .closeOnExec, .nonBlocking])
                }
            } catch {
                switch error {
                case .noSuchFileOrDirectory:
                    try create(path: path, directory: directory)
                case .tooManySymbolicLinkLevels:
                    throw PreferencesError(.symbolicLink, path: path, errno: error.rawValue, "the commit counter is a symbolic link")
                case .isDirectory, .noSuchAddressOrDevice:
                    throw PreferencesError(.notRegularFile, path: path, errno: error.rawValue, "the commit counter is not a regular file")
                default:
                    throw PreferencesError(.io, path: path, errno: error.rawValue, "the commit counter could not be opened: \(error)")
                }
            }
        }
        throw PreferencesError(.io, path: path, "the commit counter kept disappearing while it was opened")
    }

    /// Writes a new counter under a temporary name and links it to `path` unless a counter
    /// is there already.
    private static func create(path: String, directory: String) throws(PreferencesError) {
        let temporary = FilePath(path + ".tmp-\(SystemCalls.processID())-\(SystemCalls.currentThread())")
        var bytes = [UInt8](repeating: 0, count: Layout.size)
        bytes.replaceSubrange(0..<8, with: Layout.magic)
        bytes[8] = UInt8(Layout.version & 0xff)
        do {
            let descriptor = try Errno.typed {
                try FileDescriptor.open(
                    temporary, .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                    permissions: .ownerReadWrite)
            }
            defer { try? descriptor.close() }
            try SystemCalls.fchmod(descriptor, .ownerReadWrite)
            _ = try Errno.typed { try descriptor.writeAll(bytes) }
            // Synced before it gets its name: after a power cut the name could otherwise
            // survive with the bytes lost, and a counter of the wrong size is refused (fresh
            // reads off for the domain) until someone removes it.
            try SystemCalls.fsync(descriptor)
        } catch {
            try? SystemCalls.unlink(temporary)
            throw PreferencesError(.io, path: path, errno: error.rawValue, "the commit counter could not be created: \(error)")
        }
        defer { try? SystemCalls.unlink(temporary) }
        do {
            try SystemCalls.link(temporary, as: FilePath(path))
        } catch {
            guard error == .fileExists else {
                throw PreferencesError(.io, path: path, errno: error.rawValue, "the commit counter could not be created: \(error)")
            }
        }
    }
}
