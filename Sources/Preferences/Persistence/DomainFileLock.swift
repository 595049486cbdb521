import SystemPackage

/// An exclusive `flock` on a domain's hidden lock file, held until this value is dropped.
///
/// Every writer of a domain, in this process or another, takes this lock around its
/// read-modify-write, so no writer replaces the file between another's read and rename.
/// Each lock opens its own descriptor: `flock` belongs to the open file description, so two
/// threads of one process exclude each other just like two processes do. The lock file is
/// never removed; deleting a lock file lets a waiter lock an unlinked inode while a newcomer
/// locks a fresh one.
struct DomainFileLock: ~Copyable {
    /// The shortest pause between attempts to take a busy lock.
    static let firstBackoff = Duration.milliseconds(1)
    /// The longest pause between attempts, so a released lock is noticed soon.
    static let longestBackoff = Duration.milliseconds(50)

    /// The open lock file.
    private let descriptor: FileDescriptor

    /// Opens (creating it, mode 0600) and exclusively locks a lock file, waiting up to the
    /// policy's lock timeout for another holder to release it.
    ///
    /// The lock file must pass the same trust checks as a domain file: a link, FIFO or file
    /// of another user there is reported, not used.
    ///
    /// - Throws: ``PreferencesError`` `lockTimeout` if the lock stays busy, or the trust
    ///   check's or system call's error.
    init(path: String, policy: FilePolicy) throws(PreferencesError) {
        let descriptor: FileDescriptor
        do {
            descriptor = try Errno.typed {
                try FileDescriptor.open(
                    FilePath(path), .readOnly, options: [.create, .noFollow, .closeOnExec, .nonBlocking],
                    permissions: .ownerReadWrite)
            }
        } catch {
            if error == .tooManySymbolicLinkLevels {
                throw PreferencesError(
                    .symbolicLink, path: path, errno: error.rawValue,
                    "the domain's lock file is a symbolic link; links are never followed, so remove it")
            }
            throw PreferencesError(.io, path: path, errno: error.rawValue, "the domain's lock file could not be opened: \(error)")
        }
        do throws(PreferencesError) {
            let status: Stat
            do {
                status = try descriptor.stat()
            } catch {
                throw PreferencesError(.io, path: path, errno: error.rawValue, "the lock file's status could not be read: \(error)")
            }
            try policy.check(status, path: path, role: "the domain's lock file")
            try Self.lock(descriptor, path: path, timeout: policy.lockTimeout)
        } catch {
            // Nothing was locked or written through this descriptor.
            try? descriptor.close()
            throw error
        }
        self.descriptor = descriptor
    }

    /// Takes the lock without blocking, pausing with growing backoff between attempts until
    /// it is taken or `timeout` has passed.
    ///
    /// Polling with `LOCK_NB` rather than blocking in `flock` keeps the wait bounded without
    /// signals or a helper thread.
    private static func lock(_ descriptor: FileDescriptor, path: String, timeout: Duration) throws(PreferencesError) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var backoff = firstBackoff
        while true {
            let taken: Bool
            do {
                taken = try SystemCalls.tryLockExclusively(descriptor)
            } catch {
                throw PreferencesError(.io, path: path, errno: error.rawValue, "the domain's lock could not be taken: \(error)")
            }
            if taken { return }
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else {
                throw PreferencesError(
                    .lockTimeout, path: path,
                    "another writer held the domain's lock for longer than \(timeout); nothing was written")
            }
            SystemCalls.sleep(for: min(backoff, remaining))
            backoff = min(backoff * 2, longestBackoff)
        }
    }

    deinit {
        // Closing alone would release the lock; unlocking first releases it even if a child
        // process inherited the descriptor despite close-on-exec (a fork without exec).
        try? SystemCalls.unlock(descriptor)
        try? descriptor.close()
    }
}
