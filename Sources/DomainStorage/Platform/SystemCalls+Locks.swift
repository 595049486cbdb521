import Glibc
package import SystemPackage

extension SystemCalls {
    /// Tries to take an exclusive `flock` on an open file without waiting
    /// (`flock(LOCK_EX | LOCK_NB)`).
    ///
    /// - Returns: `true` if the lock is now held, `false` if another open file description
    ///   holds it (`EWOULDBLOCK`).
    package static func tryLockExclusively(_ descriptor: FileDescriptor) throws(Errno) -> Bool {
        while true {
            if flock(descriptor.rawValue, LOCK_EX | LOCK_NB) == 0 { return true }
            let error = currentErrno()
            if error == .interrupted { continue }
            if error == .wouldBlock { return false }
            throw error
        }
    }

    /// Blocks until an exclusive `flock` on an open file is held (`flock(LOCK_EX)`),
    /// resuming after signals.
    ///
    /// There is no timeout: the kernel wakes the caller when the holder releases the lock or
    /// exits. Call it on a thread that may block indefinitely (see ``LockWaiter``).
    package static func lockExclusively(_ descriptor: FileDescriptor) throws(Errno) {
        while flock(descriptor.rawValue, LOCK_EX) != 0 {
            let error = currentErrno()
            if error != .interrupted { throw error }
        }
    }

    /// Releases a `flock` held on an open file (`flock(LOCK_UN)`).
    package static func unlock(_ descriptor: FileDescriptor) throws(Errno) {
        while flock(descriptor.rawValue, LOCK_UN) != 0 {
            let error = currentErrno()
            if error != .interrupted { throw error }
        }
    }
}
