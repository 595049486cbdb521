import SystemPackage

/// An exclusive `flock` on a domain's hidden lock file, held until this value is dropped.
///
/// Every writer of a domain, in this process or another, takes this lock around its
/// read-modify-write, so no writer replaces the file between another's read and rename.
/// Each lock opens its own descriptor: `flock` belongs to the open file description, so two
/// threads of one process exclude each other just like two processes do. The lock file is
/// never removed; deleting a lock file lets a waiter lock an unlinked inode while a newcomer
/// locks a fresh one.
///
/// A free lock is taken at once (`LOCK_NB`). A busy one is waited for in a blocking
/// `flock` on a thread of its own (``LockWaiter``), so the kernel wakes the waiter as soon
/// as the holder releases the lock or dies, while the caller still gives up after the
/// policy's lock timeout.
package struct DomainFileLock: ~Copyable {
    /// The open lock file.
    private let descriptor: FileDescriptor

    /// Opens (creating it, mode 0600) and exclusively locks a lock file, waiting until the
    /// deadline (by default the policy's lock timeout from now) for another holder to
    /// release it.
    ///
    /// The lock file must pass the same trust checks as a domain file: a link, FIFO or file
    /// of another user there is reported, not used.
    ///
    /// A deadline already past still takes a free lock; only a busy one then fails at once.
    ///
    /// - Throws: ``PreferencesError`` `lockTimeout` if the lock stays busy, or the trust
    ///   check's or system call's error.
    package init(path: String, policy: FilePolicy, deadline: ContinuousClock.Instant? = nil) throws(PreferencesError) {
        let deadline = deadline ?? ContinuousClock.now.advanced(by: policy.lockTimeout)
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
        let status: Stat
        do throws(PreferencesError) {
            do {
                status = try descriptor.stat()
            } catch {
                throw PreferencesError(.io, path: path, errno: error.rawValue, "the lock file's status could not be read: \(error)")
            }
            try policy.check(status, path: path, role: "the domain's lock file")
            if try Self.tryLock(descriptor, path: path) {
                self.descriptor = descriptor
                return
            }
        } catch {
            // Nothing was locked or written through this descriptor.
            try? descriptor.close()
            throw error
        }
        guard ContinuousClock.now < deadline else {
            try? descriptor.close()
            throw Self.timeout(path: path, policy: policy)
        }
        // Busy: wait in the kernel's queue, not by polling (see LockWaiter). From here on
        // the waiter owns `descriptor`.
        let inode = (device: UInt64(status.deviceID.rawValue), number: UInt64(status.inode.rawValue))
        switch LockWaiter.lock(descriptor, path: path, inode: inode, deadline: deadline) {
        case .locked(let locked):
            self.descriptor = locked
        case .timedOut:
            throw Self.timeout(path: path, policy: policy)
        case .failed(let error):
            throw PreferencesError(.io, path: path, errno: error.rawValue, "the domain's lock could not be taken: \(error)")
        }
    }

    /// The error of a lock that stayed busy until the deadline.
    private static func timeout(path: String, policy: FilePolicy) -> PreferencesError {
        PreferencesError(
            .lockTimeout, path: path,
            "another writer held the domain's lock for longer than \(policy.lockTimeout); nothing was written")
    }

    /// Takes the lock if it is free, without waiting.
    private static func tryLock(_ descriptor: FileDescriptor, path: String) throws(PreferencesError) -> Bool {
        do {
            return try SystemCalls.tryLockExclusively(descriptor)
        } catch {
            throw PreferencesError(.io, path: path, errno: error.rawValue, "the domain's lock could not be taken: \(error)")
        }
    }

    deinit {
        // Closing alone would release the lock; unlocking first releases it even if a child
        // process inherited the descriptor despite close-on-exec (a fork without exec).
        try? SystemCalls.unlock(descriptor)
        try? descriptor.close()
    }
}
