// Public for `loadShared`, inlined into every read of a store in the module above.
public import CLinux
// Public because the lock and unlock of `ThreadLock` are inlinable into the module's callers
// and name pthread's types and calls.
public import Glibc
package import SystemPackage

/// The system calls swift-system does not wrap, as thin typed wrappers.
///
/// Every call into the C library goes through this file, so it is in one place to audit;
/// `Files/FileIdentity.swift` also imports Glibc, only to read the C `stat` fields a
/// `Stat` holds. Each wrapper takes and returns swift-system types
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
        Int(max(0, glibcSchedGetCPU()))
    }

    /// Gives the processor to another thread (`sched_yield`).
    package static func yieldProcessor() {
        _ = Glibc.sched_yield()
    }

    /// Flushes a file's data and metadata to its storage device (`fsync`).
    ///
    /// Not retried on `EINTR` or anything else: after a failed `fsync` the kernel may already
    /// have dropped the dirty pages, so a second call can succeed without the data being safe.
    /// A caller that sees an error must treat the file's contents as lost.
    package static func fsync(_ descriptor: FileDescriptor) throws(Errno) {
        if Glibc.fsync(descriptor.rawValue) != 0 { throw currentErrno() }
    }

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

    /// Sets an open file's permission bits exactly (`fchmod`).
    ///
    /// `open` and `mkdir` filter the requested mode through the umask; this sets it as given.
    package static func fchmod(_ descriptor: FileDescriptor, _ permissions: FilePermissions) throws(Errno) {
        while Glibc.fchmod(descriptor.rawValue, permissions.rawValue) != 0 {
            let error = currentErrno()
            if error != .interrupted { throw error }
        }
    }

    /// Sets an open file's modification time to `nanoseconds` since 1970 and its access time
    /// to the same (`futimens`).
    package static func setModificationTime(_ descriptor: FileDescriptor, nanoseconds: Int64) throws(Errno) {
        let time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        let times = [time, time]
        while Glibc.futimens(descriptor.rawValue, times) != 0 {
            let error = currentErrno()
            if error != .interrupted { throw error }
        }
    }

    /// Atomically gives a file a new name, replacing any file already there (`rename`).
    package static func rename(_ source: FilePath, to destination: FilePath) throws(Errno) {
        let result = source.withPlatformString { source in
            destination.withPlatformString { destination in Glibc.rename(source, destination) }
        }
        if result != 0 { throw currentErrno() }
    }

    /// Gives an existing file a second name, failing with `EEXIST` if that name is taken
    /// (`link`).
    ///
    /// Unlike `rename`, this never replaces anything and leaves the original name in place.
    package static func link(_ existing: FilePath, as newName: FilePath) throws(Errno) {
        let result = existing.withPlatformString { existing in
            newName.withPlatformString { newName in Glibc.link(existing, newName) }
        }
        if result != 0 { throw currentErrno() }
    }

    /// Gives an existing file a second name inside an open directory, failing with `EEXIST`
    /// if that name is taken (`linkat`, without following a link at `existing`).
    ///
    /// The directory is named by its descriptor, so the name lands in the very directory that
    /// was opened and checked, even if its path is replaced in between.
    package static func link(_ existing: FilePath, into directory: FileDescriptor, as name: String) throws(Errno) {
        let result = existing.withPlatformString { existing in
            name.withCString { name in Glibc.linkat(AT_FDCWD, existing, directory.rawValue, name, 0) }
        }
        if result != 0 { throw currentErrno() }
    }

    /// Moves a name out of an open directory to `destination`, failing with `EEXIST` rather
    /// than replacing a file there (`renameat2` with `RENAME_NOREPLACE`).
    package static func move(_ name: String, in directory: FileDescriptor, to destination: FilePath) throws(Errno) {
        let result = name.withCString { name in
            destination.withPlatformString { destination in
                glibcRenameAt2(directory.rawValue, name, AT_FDCWD, destination, renameNoReplace)
            }
        }
        if result != 0 { throw currentErrno() }
    }

    /// Removes a name from an open directory (`unlinkat`).
    package static func unlink(_ name: String, in directory: FileDescriptor) throws(Errno) {
        if name.withCString({ Glibc.unlinkat(directory.rawValue, $0, 0) }) != 0 { throw currentErrno() }
    }

    /// Opens a file in an open directory for reading, without following a link, without
    /// blocking on a FIFO, and close-on-exec (`openat(O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
    /// O_CLOEXEC)`), retrying `EINTR`.
    package static func openForReading(_ name: String, in directory: FileDescriptor) throws(Errno) -> FileDescriptor {
        while true {
            let descriptor = name.withCString {
                Glibc.openat(directory.rawValue, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            }
            if descriptor >= 0 { return FileDescriptor(rawValue: descriptor) }
            let error = currentErrno()
            if error != .interrupted { throw error }
        }
    }

    /// The names in an open directory, without `.` and `..` (`dup`, `fdopendir`, `readdir`,
    /// `closedir`); the descriptor stays open and is not moved.
    package static func directoryEntries(in directory: FileDescriptor) throws(Errno) -> [String] {
        // fdopendir takes over the descriptor it is given and closedir closes it: give it a copy.
        let copy = Glibc.dup(directory.rawValue)
        guard copy >= 0 else { throw currentErrno() }
        guard let stream = Glibc.fdopendir(copy) else {
            let error = currentErrno()
            Glibc.close(copy)
            throw error
        }
        defer { Glibc.closedir(stream) }
        // A duplicate shares the original's position: start from the beginning whatever an
        // earlier listing left.
        Glibc.rewinddir(stream)
        var names: [String] = []
        while true {
            Glibc.errno = 0
            guard let entry = Glibc.readdir(stream) else {
                if Glibc.errno != 0 { throw currentErrno() }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// Sets an extended attribute of an open file (`fsetxattr`), creating or replacing it.
    ///
    /// Fails with `ENOTSUP` (`EOPNOTSUPP`) on file systems without user extended attributes.
    package static func setExtendedAttribute(_ name: String, to value: [UInt8], of descriptor: FileDescriptor) throws(Errno) {
        let result = name.withCString { name in
            value.withUnsafeBytes { bytes in glibcSetExtendedAttribute(descriptor.rawValue, name, bytes.baseAddress, bytes.count, 0) }
        }
        if result != 0 { throw currentErrno() }
    }

    /// An extended attribute of an open file, at most `limit` bytes (`fgetxattr`); nil if the
    /// file has none of that name (`ENODATA`).
    ///
    /// Throws `ERANGE` for a longer value, `ENOTSUP` where the file system has none.
    package static func extendedAttribute(_ name: String, of descriptor: FileDescriptor, limit: Int) throws(Errno) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = name.withCString { name in
            buffer.withUnsafeMutableBytes { bytes in glibcGetExtendedAttribute(descriptor.rawValue, name, bytes.baseAddress, bytes.count) }
        }
        if count < 0 {
            let error = currentErrno()
            if error == .noData { return nil }
            throw error
        }
        return Array(buffer.prefix(count))
    }

    /// An extended attribute of the file at a path, not following a link there, at most
    /// `limit` bytes (`lgetxattr`); nil if it has none of that name (`ENODATA`).
    package static func extendedAttribute(_ name: String, atPath path: FilePath, limit: Int) throws(Errno) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = path.withPlatformString { path in
            name.withCString { name in
                buffer.withUnsafeMutableBytes { bytes in glibcGetLinkExtendedAttribute(path, name, bytes.baseAddress, bytes.count) }
            }
        }
        if count < 0 {
            let error = currentErrno()
            if error == .noData { return nil }
            throw error
        }
        return Array(buffer.prefix(count))
    }

    /// Removes a name from the file system (`unlink`).
    package static func unlink(_ path: FilePath) throws(Errno) {
        if path.withPlatformString({ Glibc.unlink($0) }) != 0 { throw currentErrno() }
    }

    /// Creates one directory with the given permissions, less the umask (`mkdir`).
    package static func mkdir(_ path: FilePath, _ permissions: FilePermissions) throws(Errno) {
        if path.withPlatformString({ Glibc.mkdir($0, permissions.rawValue) }) != 0 { throw currentErrno() }
    }

    /// Sets a path's permissions exactly, whatever the umask (`chmod`).
    package static func chmod(_ path: FilePath, _ permissions: FilePermissions) throws(Errno) {
        if path.withPlatformString({ Glibc.chmod($0, permissions.rawValue) }) != 0 { throw currentErrno() }
    }

    /// The names in a directory, without `.` and `..` (`opendir`, `readdir`, `closedir`).
    package static func directoryEntries(_ path: FilePath) throws(Errno) -> [String] {
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
    package static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds > 0 || attoseconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while Glibc.nanosleep(&request, &remaining) != 0 && Glibc.errno == EINTR {
            request = remaining
        }
    }

    /// The current wall-clock time in nanoseconds since 1970 (`clock_gettime(CLOCK_REALTIME)`),
    /// the clock file timestamps come from.
    package static func wallClockNanoseconds() -> Int64 {
        var now = timespec()
        _ = Glibc.clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// The resolution of the coarse wall clock (`clock_getres(CLOCK_REALTIME_COARSE)`), in
    /// nanoseconds: how far apart two file timestamps taken from it can be and still be equal.
    package static func coarseClockResolution() -> Int64 {
        var resolution = timespec()
        guard Glibc.clock_getres(CLOCK_REALTIME_COARSE, &resolution) == 0 else { return 10_000_000 }
        return Int64(resolution.tv_sec) * 1_000_000_000 + Int64(resolution.tv_nsec)
    }

    /// The current wall-clock time in UTC, as calendar fields (`time`, `gmtime_r`).
    package static func utcNow() -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        var now = Glibc.time(nil)
        var fields = tm()
        _ = Glibc.gmtime_r(&now, &fields)
        return (
            Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday),
            Int(fields.tm_hour), Int(fields.tm_min), Int(fields.tm_sec)
        )
    }

    /// An identifier for the calling thread (`pthread_self`).
    ///
    /// Compared only against the identifier of a thread that is still running, because the
    /// system may hand a finished thread's identifier to a new one.
    package static func currentThread() -> UInt {
        UInt(Glibc.pthread_self())
    }

    /// Names the calling thread for `top -H`, gdb and `/proc/self/task/*/comm`
    /// (`prctl(PR_SET_NAME)`), cut to the 15 bytes Linux keeps.
    ///
    /// Not `Thread.current.name = …`: corelibs Foundation passes that name to the system only
    /// once `Thread.start()` has recorded the new thread's handle, and a new thread that runs
    /// before its parent gets there keeps the name it inherited (the process's), silently.
    package static func nameCurrentThread(_ name: String) {
        _ = CLinux.name_current_thread(String(decoding: name.utf8.prefix(15), as: UTF8.self))
    }

    /// Splits a device number into its major and minor numbers, as glibc's `major()` and
    /// `minor()` do (macros over inline functions, which Swift does not import).
    ///
    /// `/proc/self/mountinfo` names each mount's device as `major:minor`.
    package static func deviceNumbers(_ device: DeviceID) -> (major: UInt32, minor: UInt32) {
        let raw = UInt64(device.rawValue)
        let major = (raw & 0x0000_0000_000f_ff00) >> 8 | (raw & 0xffff_f000_0000_0000) >> 32
        let minor = (raw & 0x0000_0000_0000_00ff) | (raw & 0x0000_0fff_fff0_0000) >> 12
        return (UInt32(truncatingIfNeeded: major), UInt32(truncatingIfNeeded: minor))
    }

    // MARK: Thread mutexes

    /// A POSIX thread mutex (`pthread_mutex_t`), the storage of a ``ThreadLock``.
    @usableFromInline package typealias ThreadMutex = pthread_mutex_t

    /// Initialises a mutex (`pthread_mutex_init`): in debug builds one that reports a relock
    /// by its holder instead of deadlocking (`PTHREAD_MUTEX_ERRORCHECK`), in release builds
    /// the default kind.
    ///
    /// The error check makes an uncontended lock and unlock dearer, which the store's
    /// typed-key reads would feel (their cost is in Benchmarks/RESULTS.md); the tests run
    /// debug builds, so a relock still traps there.
    /// Traps if the system cannot make a mutex: there is no way to go on without the lock.
    package static func initializeMutex(_ mutex: UnsafeMutablePointer<ThreadMutex>) {
        var attributes = pthread_mutexattr_t()
        precondition(pthread_mutexattr_init(&attributes) == 0, "pthread_mutexattr_init failed")
        defer { pthread_mutexattr_destroy(&attributes) }
        #if DEBUG
        let kind = Int32(PTHREAD_MUTEX_ERRORCHECK)
        #else
        let kind = Int32(PTHREAD_MUTEX_NORMAL)
        #endif
        precondition(pthread_mutexattr_settype(&attributes, kind) == 0, "pthread_mutexattr_settype failed")
        let result = pthread_mutex_init(mutex, &attributes)
        precondition(result == 0, "pthread_mutex_init failed: \(Errno(rawValue: result))")
    }

    /// Destroys a mutex no thread holds (`pthread_mutex_destroy`).
    package static func destroyMutex(_ mutex: UnsafeMutablePointer<ThreadMutex>) {
        let result = pthread_mutex_destroy(mutex)
        precondition(result == 0, "pthread_mutex_destroy failed: \(Errno(rawValue: result))")
    }

    /// Blocks until the calling thread holds the mutex (`pthread_mutex_lock`).
    ///
    /// In debug builds, traps on a relock by the holder (`EDEADLK`), a programming error
    /// that hangs the thread in release builds.
    @inlinable
    package static func lockMutex(_ mutex: UnsafeMutablePointer<ThreadMutex>) {
        let result = pthread_mutex_lock(mutex)
        precondition(result == 0, "a ThreadLock was locked again by the thread holding it, or could not be locked")
    }

    /// Takes the mutex if no thread holds it (`pthread_mutex_trylock`).
    ///
    /// - Returns: `true` if the calling thread now holds it, `false` if a thread (possibly
    ///   the calling one) already does (`EBUSY`).
    @inlinable
    package static func tryLockMutex(_ mutex: UnsafeMutablePointer<ThreadMutex>) -> Bool {
        let result = pthread_mutex_trylock(mutex)
        precondition(result == 0 || result == EBUSY, "a ThreadLock could not be tried")
        return result == 0
    }

    /// Releases a mutex the calling thread holds (`pthread_mutex_unlock`).
    @inlinable
    package static func unlockMutex(_ mutex: UnsafeMutablePointer<ThreadMutex>) {
        let result = pthread_mutex_unlock(mutex)
        precondition(result == 0, "a ThreadLock was unlocked by a thread not holding it")
    }

    // MARK: Thread-local storage

    /// A key for one pointer per thread (`pthread_key_create`); the pointer a thread set is
    /// passed to `destructor` when that thread ends. Traps if the system has no key left:
    /// only debug checks use these, made once per process.
    package static func makeThreadLocalKey(
        destructor: @convention(c) (UnsafeMutableRawPointer?) -> Void
    ) -> pthread_key_t {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, destructor)
        precondition(result == 0, "pthread_key_create failed: \(Errno(rawValue: result))")
        return key
    }

    /// The calling thread's pointer for `key` (`pthread_getspecific`), nil until it sets one.
    package static func threadLocal(_ key: pthread_key_t) -> UnsafeMutableRawPointer? {
        pthread_getspecific(key)
    }

    /// Sets the calling thread's pointer for `key` (`pthread_setspecific`).
    package static func setThreadLocal(_ key: pthread_key_t, _ value: UnsafeMutableRawPointer?) {
        let result = pthread_setspecific(key, value)
        precondition(result == 0, "pthread_setspecific failed: \(Errno(rawValue: result))")
    }

    // MARK: inotify

    /// Creates an inotify instance whose reads never block and which no child program
    /// inherits (`inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`).
    ///
    /// Fails with `EMFILE`/`ENFILE` when descriptors or instances run out
    /// (`fs.inotify.max_user_instances`) and `ENOSYS` on kernels built without inotify.
    package static func makeInotifyInstance() throws(Errno) -> FileDescriptor {
        let descriptor = Glibc.inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        if descriptor < 0 { throw currentErrno() }
        return FileDescriptor(rawValue: descriptor)
    }

    /// Whether `path` leads (following links) to a directory this user can read: an
    /// `open(O_RDONLY | O_DIRECTORY)` and a `close` on the string as it is, without building a
    /// `FilePath`. False for a missing path and for one this user cannot search.
    package static func isSearchableDirectory(_ path: String) -> Bool {
        let descriptor = path.withCString { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK) }
        guard descriptor >= 0 else { return false }
        Glibc.close(descriptor)
        return true
    }

    /// The `f_type` magic number `statfs(2)` reports for the file system holding `path`;
    /// nil if it cannot be examined.
    package static func fileSystemMagic(_ path: String) -> Int? {
        let magic = path.withCString { CLinux.file_system_magic($0) }
        return magic < 0 ? nil : Int(magic)
    }

    /// Starts watching a path for `events`, or updates the events of the existing watch on
    /// the same inode (`inotify_add_watch`).
    ///
    /// The kernel keeps one watch per inode and instance, so two paths to one directory
    /// (through a symbolic link, say) return the same descriptor.
    ///
    /// - Throws: `ENOENT`/`ENOTDIR`/`EACCES` when the path cannot be reached or (with
    ///   ``WatchEvents/onlyDirectory``) is not a directory, `ENOSPC` when the watch limit
    ///   (`fs.inotify.max_user_watches`) is reached.
    package static func addWatch(
        _ path: FilePath, for events: WatchEvents, to inotify: FileDescriptor
    ) throws(Errno) -> WatchDescriptor {
        let watch = path.withPlatformString { Glibc.inotify_add_watch(inotify.rawValue, $0, events.rawValue) }
        if watch < 0 { throw currentErrno() }
        return WatchDescriptor(rawValue: watch)
    }

    /// Stops a watch (`inotify_rm_watch`); the kernel then queues a ``WatchEvents/watchRemoved``
    /// event for it.
    ///
    /// - Throws: `EINVAL` if the watch is already gone, for instance because its directory
    ///   was deleted.
    package static func removeWatch(_ watch: WatchDescriptor, from inotify: FileDescriptor) throws(Errno) {
        if Glibc.inotify_rm_watch(inotify.rawValue, watch.rawValue) != 0 { throw currentErrno() }
    }

    /// Reads the queued inotify events that fit in `buffer` (`read`), without blocking.
    ///
    /// - Returns: The events in the order the kernel queued them; empty when none are queued
    ///   (`EAGAIN` on the non-blocking instance).
    package static func readWatchEvents(
        from inotify: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer
    ) throws(Errno) -> [WatchEvent] {
        while true {
            let count = Glibc.read(inotify.rawValue, buffer.baseAddress, buffer.count)
            if count >= 0 { return parseWatchEvents(UnsafeRawBufferPointer(rebasing: buffer[..<count])) }
            let error = currentErrno()
            if error == .interrupted { continue }
            if error == .wouldBlock { return [] }
            throw error
        }
    }

    /// Splits the bytes of an inotify read into events (`struct inotify_event` records).
    ///
    /// Each record is a fixed header (watch descriptor, mask, cookie, name length) followed
    /// by `len` bytes holding the name, NUL-padded. Every field is loaded unaligned and every
    /// length is checked against the bytes actually present, so a short or malformed buffer
    /// ends the parse instead of reading past it. A name that is not valid UTF-8 cannot be any
    /// watched file's name (those are Swift strings), so such an event is dropped.
    package static func parseWatchEvents(_ bytes: UnsafeRawBufferPointer) -> [WatchEvent] {
        let headerSize = MemoryLayout<inotify_event>.size
        let maskOffset = MemoryLayout<inotify_event>.offset(of: \.mask)!
        let lengthOffset = MemoryLayout<inotify_event>.offset(of: \.len)!
        var events: [WatchEvent] = []
        var offset = 0
        while bytes.count - offset >= headerSize {
            let descriptor = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + maskOffset, as: UInt32.self)
            let nameLength = Int(bytes.loadUnaligned(fromByteOffset: offset + lengthOffset, as: UInt32.self))
            let nameStart = offset + headerSize
            guard nameLength <= bytes.count - nameStart else { break }
            offset = nameStart + nameLength
            var name: String?
            if nameLength > 0 {
                let nameBytes = bytes[nameStart..<offset].prefix { $0 != 0 }
                guard let decoded = String(validating: nameBytes, as: UTF8.self) else { continue }
                name = decoded
            }
            events.append(
                WatchEvent(watch: WatchDescriptor(rawValue: descriptor), events: WatchEvents(rawValue: mask), name: name))
        }
        return events
    }

    // MARK: poll

    /// Waits until at least one of `descriptors` can be read without blocking, or the timeout
    /// passes (`poll` with `POLLIN`).
    ///
    /// A descriptor whose other end was closed, or that reports an error, counts as readable:
    /// the read that follows says what happened. A signal ends the wait early with nothing
    /// ready, which callers that loop treat like a timeout.
    ///
    /// - Parameter timeout: How long to wait at most, rounded up to whole milliseconds so a
    ///   short wait never becomes a busy loop; nil waits without limit.
    /// - Returns: For each descriptor, in order, whether it is ready.
    package static func waitForInput(_ descriptors: [FileDescriptor], timeout: Duration?) throws(Errno) -> [Bool] {
        var entries = descriptors.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
        var milliseconds: Int32 = -1
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            let total = max(0, seconds) * 1000 + (max(0, attoseconds) + 999_999_999_999_999) / 1_000_000_000_000_000
            milliseconds = Int32(clamping: total)
        }
        let result = Glibc.poll(&entries, nfds_t(entries.count), milliseconds)
        if result < 0 {
            let error = currentErrno()
            if error == .interrupted { return Array(repeating: false, count: descriptors.count) }
            throw error
        }
        let readiness = Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
        return entries.map { $0.revents & readiness != 0 }
    }

    /// The error of the system call that just failed on this thread.
    private static func currentErrno() -> Errno {
        Errno(rawValue: Glibc.errno)
    }
}

extension SystemCalls {
    /// One inotify watch, as `inotify_add_watch` numbers it within its instance.
    package struct WatchDescriptor: RawRepresentable, Hashable, Sendable {
        /// The kernel's watch descriptor.
        package let rawValue: Int32
        /// The descriptor the kernel returned.
        package init(rawValue: Int32) { self.rawValue = rawValue }
    }

    /// What an inotify watch reports, or what happened in one event (the `IN_*` mask bits).
    ///
    /// The names say what happened to the entry an event names, or, for the `watched...`
    /// members, to the watched directory itself.
    package struct WatchEvents: OptionSet, Hashable, Sendable {
        package let rawValue: UInt32
        /// The events of an inotify mask.
        package init(rawValue: UInt32) { self.rawValue = rawValue }

        /// A file opened for writing was closed (`IN_CLOSE_WRITE`).
        package static let closedAfterWriting = WatchEvents(rawValue: UInt32(IN_CLOSE_WRITE))
        /// An entry was renamed into the directory, possibly over another (`IN_MOVED_TO`).
        package static let movedIn = WatchEvents(rawValue: UInt32(IN_MOVED_TO))
        /// An entry was renamed out of the directory, or to another name (`IN_MOVED_FROM`).
        package static let movedOut = WatchEvents(rawValue: UInt32(IN_MOVED_FROM))
        /// An entry was deleted (`IN_DELETE`).
        package static let deleted = WatchEvents(rawValue: UInt32(IN_DELETE))
        /// An entry's permissions, owner, timestamps or link count changed (`IN_ATTRIB`).
        package static let attributesChanged = WatchEvents(rawValue: UInt32(IN_ATTRIB))
        /// The watched directory itself was deleted (`IN_DELETE_SELF`).
        package static let watchedDeleted = WatchEvents(rawValue: UInt32(IN_DELETE_SELF))
        /// The watched directory itself was renamed or moved (`IN_MOVE_SELF`).
        package static let watchedMoved = WatchEvents(rawValue: UInt32(IN_MOVE_SELF))
        /// The file system holding the watched directory was unmounted (`IN_UNMOUNT`).
        package static let watchedUnmounted = WatchEvents(rawValue: UInt32(IN_UNMOUNT))
        /// The watch is gone, removed explicitly or because its directory is (`IN_IGNORED`).
        package static let watchRemoved = WatchEvents(rawValue: UInt32(IN_IGNORED))
        /// The event queue overflowed and events were lost (`IN_Q_OVERFLOW`).
        package static let queueOverflowed = WatchEvents(rawValue: UInt32(IN_Q_OVERFLOW))
        /// A request flag: watch the path only if it is a directory (`IN_ONLYDIR`).
        package static let onlyDirectory = WatchEvents(rawValue: UInt32(IN_ONLYDIR))
    }

    /// One event read from an inotify instance.
    package struct WatchEvent: Hashable, Sendable {
        /// The watch that reported it; meaningless for ``WatchEvents/queueOverflowed``.
        package let watch: WatchDescriptor
        /// What happened.
        package let events: WatchEvents
        /// The entry in the watched directory it concerns; nil for events about the
        /// directory itself or the queue.
        package let name: String?

        /// An event as the kernel reported it.
        package init(watch: WatchDescriptor, events: WatchEvents, name: String?) {
            self.watch = watch
            self.events = events
            self.name = name
        }
    }
}

extension SystemCalls {
    // MARK: Shared memory

    /// Maps `length` bytes of an open file, readable and writable and shared with every
    /// other process that maps it (`mmap(MAP_SHARED)`). The mapping is never unmapped: the
    /// words in it are read for as long as the process runs.
    package static func mapShared(_ descriptor: FileDescriptor, length: Int) throws(Errno) -> UnsafeMutableRawPointer {
        let address = Glibc.mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor.rawValue, 0)
        guard let address, address != MAP_FAILED else { throw currentErrno() }
        return address
    }

    /// Replaces the mapping at `address` with `length` bytes of another open file, or with
    /// zeroed memory of this process's own when `descriptor` is nil (`mmap(MAP_FIXED)`).
    ///
    /// The kernel swaps the pages in one step: a thread reading the words meanwhile sees the
    /// old file or the new one, never a hole, so pointers into the mapping stay valid. The old
    /// file's mapping is dropped, and with it the hold it had on the file and its directory.
    package static func remapShared(at address: UnsafeMutableRawPointer, length: Int, to descriptor: FileDescriptor?) throws(Errno) {
        let flags = MAP_SHARED | MAP_FIXED | (descriptor == nil ? MAP_ANONYMOUS : 0)
        let mapped = Glibc.mmap(address, length, PROT_READ | PROT_WRITE, flags, descriptor?.rawValue ?? -1, 0)
        guard let mapped, mapped != MAP_FAILED else { throw currentErrno() }
        precondition(mapped == address, "mmap(MAP_FIXED) moved a mapping")
    }

    /// Loads a word another process may write (sequentially consistent).
    @inlinable
    package static func loadShared(_ word: UnsafeMutablePointer<UInt32>) -> UInt32 {
        shared_memory_load(word)
    }

    /// Stores a word (sequentially consistent).
    @inline(__always)
    package static func storeShared(_ word: UnsafeMutablePointer<UInt32>, _ value: UInt32) {
        shared_memory_store(word, value)
    }

    /// Adds one to a shared word and returns the new value (sequentially consistent).
    package static func incrementShared(_ word: UnsafeMutablePointer<UInt32>) -> UInt32 {
        shared_memory_add(word, 1)
    }

    /// Subtracts one from a shared word (sequentially consistent).
    package static func decrementShared(_ word: UnsafeMutablePointer<UInt32>) {
        _ = shared_memory_subtract(word, 1)
    }

    /// Wakes every thread of every process waiting on `word` (`FUTEX_WAKE`, not private).
    package static func wakeAll(_ word: UnsafeMutablePointer<UInt32>) {
        _ = shared_memory_wake_all(word)
    }

    /// How a wait on shared words ended.
    package enum SharedWaitOutcome: Equatable {
        /// A word changed, or was woken (it may be unchanged: wake-ups are hints).
        case changed
        /// The timeout passed.
        case timedOut
        /// The kernel has no `futex_waitv` (before Linux 5.16), or refuses it.
        case unsupported
    }

    /// Waits until any word no longer holds its expected value or is woken, or `timeout`
    /// passes (`futex_waitv`); at most 128 words.
    package static func waitForChange(
        of words: [UnsafeMutablePointer<UInt32>], from expected: [UInt32], timeout: Duration
    ) -> SharedWaitOutcome {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let result = words.withUnsafeBufferPointer { words in
            expected.withUnsafeBufferPointer { expected in
                shared_memory_wait_any(
                    UnsafePointer(OpaquePointer(words.baseAddress)), expected.baseAddress, UInt32(words.count), nanoseconds)
            }
        }
        if result >= 0 || result == -Int(EAGAIN) || result == -Int(EINTR) { return .changed }
        if result == -Int(ETIMEDOUT) { return .timedOut }
        return .unsupported
    }
}

/// glibc's `int sched_getcpu(void)`, which Glibc's module hides behind `_GNU_SOURCE`.
/// Declared by symbol: it takes nothing and returns a C int, which Swift's calling
/// convention passes as C does.
@_silgen_name("sched_getcpu")
private func glibcSchedGetCPU() -> CInt

/// `int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
/// unsigned int flags)`, which the Glibc module hides behind `_GNU_SOURCE`.
@_silgen_name("renameat2")
private func glibcRenameAt2(
    _ sourceDirectory: CInt, _ source: UnsafePointer<CChar>, _ destinationDirectory: CInt, _ destination: UnsafePointer<CChar>,
    _ flags: CUnsignedInt
) -> CInt

/// `RENAME_NOREPLACE` from `<linux/fs.h>`.
private let renameNoReplace: CUnsignedInt = 1

// glibc's extended-attribute calls (`<sys/xattr.h>`), which the Glibc module does not
// import. Declared by symbol, as `sched_getcpu` above: they take C ints, pointers and sizes
// and return a C int or ssize_t, which Swift's calling convention passes as C does.

/// `int fsetxattr(int fd, const char *name, const void *value, size_t size, int flags)`.
@_silgen_name("fsetxattr")
private func glibcSetExtendedAttribute(
    _ descriptor: CInt, _ name: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ size: Int, _ flags: CInt
) -> CInt

/// `ssize_t fgetxattr(int fd, const char *name, void *value, size_t size)`.
@_silgen_name("fgetxattr")
private func glibcGetExtendedAttribute(
    _ descriptor: CInt, _ name: UnsafePointer<CChar>, _ value: UnsafeMutableRawPointer?, _ size: Int
) -> Int

/// `ssize_t lgetxattr(const char *path, const char *name, void *value, size_t size)`.
@_silgen_name("lgetxattr")
private func glibcGetLinkExtendedAttribute(
    _ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>, _ value: UnsafeMutableRawPointer?, _ size: Int
) -> Int
