import CLinux
import Glibc
import SystemPackage

/// The system calls swift-system does not wrap, as thin typed wrappers.
///
/// Every call into the C library goes through these files, `Platform/SystemCalls*.swift`
/// (this one for the process and its processors, then one per concern: files, locks,
/// extended attributes, threads, clocks, inotify, poll and shared memory), so it is in
/// one place to audit; `Files/FileIdentity.swift` also imports Glibc, only to read the C
/// `stat` fields a `Stat` holds. Each wrapper takes and returns swift-system types
/// (`FileDescriptor`, `FilePath`, `FilePermissions`), throws the call's `Errno`, retries
/// `EINTR` where the call is safe to repeat, and adds no policy of its own: deciding what an
/// error means belongs to the caller. The thread-mutex wrappers are inlinable, and the
/// enum usable from inlinable code, because ``ThreadLock`` is on the store's inlined read
/// path.
@usableFromInline
package enum SystemCalls {
    /// The effective user ID of this process (`geteuid`).
    ///
    /// Files this process may trust are the ones owned by this user.
    package static func effectiveUserID() -> UInt32 {
        Glibc.geteuid()
    }

    /// This process's ID (`getpid`).
    ///
    /// Temporary file names carry it so that two processes never pick the same name.
    package static func processID() -> Int32 {
        Glibc.getpid()
    }

    /// The number of processors configured (`sysconf(_SC_NPROCESSORS_CONF)`), at least 1.
    package static func processorCount() -> Int {
        max(1, Glibc.sysconf(Int32(Glibc._SC_NPROCESSORS_CONF)))
    }

    /// The processor this thread is running on now (`sched_getcpu`: a read of the thread's
    /// rseq area, a few nanoseconds), or 0 if the system cannot tell. The thread may move
    /// at any moment: callers use it only to spread work, never for correctness.
    package static func currentProcessor() -> Int {
        Int(max(0, CLinux.sched_getcpu()))
    }

    /// Gives the processor to another thread (`sched_yield`).
    package static func yieldProcessor() {
        _ = Glibc.sched_yield()
    }

    /// The error of the system call that just failed on this thread.
    ///
    /// Not private: every `SystemCalls+*.swift` file throws it.
    static func currentErrno() -> Errno {
        Errno(rawValue: Glibc.errno)
    }
}
