import Glibc
import SystemPackage

/// The system calls swift-system does not wrap, as thin typed wrappers.
///
/// This is the only file in `Preferences` that imports Glibc, so every direct use of the C
/// library is in one place to audit. Each wrapper takes and returns swift-system types
/// (`FileDescriptor`, `FilePath`, `FilePermissions`), throws the call's `Errno`, retries
/// `EINTR` where the call is safe to repeat, and adds no policy of its own: deciding what an
/// error means belongs to the caller.
enum SystemCalls {
    /// The effective user ID of this process (`geteuid`).
    ///
    /// Files this process may trust are the ones owned by this user.
    static func effectiveUserID() -> UInt32 {
        Glibc.geteuid()
    }

    /// This process's ID (`getpid`).
    ///
    /// Temporary file names carry it so that two processes never pick the same name.
    static func processID() -> Int32 {
        Glibc.getpid()
    }

    /// Flushes a file's data and metadata to its storage device (`fsync`).
    ///
    /// Not retried on `EINTR` or anything else: after a failed `fsync` the kernel may already
    /// have dropped the dirty pages, so a second call can succeed without the data being safe.
    /// A caller that sees an error must treat the file's contents as lost.
    static func fsync(_ descriptor: FileDescriptor) throws(Errno) {
        if Glibc.fsync(descriptor.rawValue) != 0 { throw currentErrno() }
    }

    /// Tries to take an exclusive `flock` on an open file without waiting
    /// (`flock(LOCK_EX | LOCK_NB)`).
    ///
    /// - Returns: `true` if the lock is now held, `false` if another open file description
    ///   holds it (`EWOULDBLOCK`).
    static func tryLockExclusively(_ descriptor: FileDescriptor) throws(Errno) -> Bool {
        while true {
            if flock(descriptor.rawValue, LOCK_EX | LOCK_NB) == 0 { return true }
            let error = currentErrno()
            if error == .interrupted { continue }
            if error == .wouldBlock { return false }
            throw error
        }
    }

    /// Releases a `flock` held on an open file (`flock(LOCK_UN)`).
    static func unlock(_ descriptor: FileDescriptor) throws(Errno) {
        while flock(descriptor.rawValue, LOCK_UN) != 0 {
            let error = currentErrno()
            if error != .interrupted { throw error }
        }
    }

    /// Sets an open file's permission bits exactly (`fchmod`).
    ///
    /// `open` and `mkdir` filter the requested mode through the umask; this sets it as given.
    static func fchmod(_ descriptor: FileDescriptor, _ permissions: FilePermissions) throws(Errno) {
        while Glibc.fchmod(descriptor.rawValue, permissions.rawValue) != 0 {
            let error = currentErrno()
            if error != .interrupted { throw error }
        }
    }

    /// Atomically gives a file a new name, replacing any file already there (`rename`).
    static func rename(_ source: FilePath, to destination: FilePath) throws(Errno) {
        let result = source.withPlatformString { source in
            destination.withPlatformString { destination in Glibc.rename(source, destination) }
        }
        if result != 0 { throw currentErrno() }
    }

    /// Gives an existing file a second name, failing with `EEXIST` if that name is taken
    /// (`link`).
    ///
    /// Unlike `rename`, this never replaces anything and leaves the original name in place.
    static func link(_ existing: FilePath, as newName: FilePath) throws(Errno) {
        let result = existing.withPlatformString { existing in
            newName.withPlatformString { newName in Glibc.link(existing, newName) }
        }
        if result != 0 { throw currentErrno() }
    }

    /// Removes a name from the file system (`unlink`).
    static func unlink(_ path: FilePath) throws(Errno) {
        if path.withPlatformString({ Glibc.unlink($0) }) != 0 { throw currentErrno() }
    }

    /// Creates one directory with the given permissions, less the umask (`mkdir`).
    static func mkdir(_ path: FilePath, _ permissions: FilePermissions) throws(Errno) {
        if path.withPlatformString({ Glibc.mkdir($0, permissions.rawValue) }) != 0 { throw currentErrno() }
    }

    /// The names in a directory, without `.` and `..` (`opendir`, `readdir`, `closedir`).
    static func directoryEntries(_ path: FilePath) throws(Errno) -> [String] {
        guard let directory = path.withPlatformString({ Glibc.opendir($0) }) else { throw currentErrno() }
        defer { Glibc.closedir(directory) }
        var names: [String] = []
        while true {
            // readdir returns nil both at the end and on error; only errno tells them apart.
            Glibc.errno = 0
            guard let entry = Glibc.readdir(directory) else {
                if Glibc.errno != 0 { throw currentErrno() }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// Blocks the calling thread for a duration (`nanosleep`), resuming after signals.
    static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds > 0 || attoseconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while Glibc.nanosleep(&request, &remaining) != 0 && Glibc.errno == EINTR {
            request = remaining
        }
    }

    /// The current wall-clock time in UTC, as calendar fields (`time`, `gmtime_r`).
    static func utcNow() -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        var now = Glibc.time(nil)
        var fields = tm()
        _ = Glibc.gmtime_r(&now, &fields)
        return (
            Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday),
            Int(fields.tm_hour), Int(fields.tm_min), Int(fields.tm_sec)
        )
    }

    /// The error of the system call that just failed on this thread.
    private static func currentErrno() -> Errno {
        Errno(rawValue: Glibc.errno)
    }
}
