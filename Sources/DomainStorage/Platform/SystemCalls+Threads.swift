import CLinux
// Public because the lock and unlock of `ThreadLock` are inlinable into the module's callers
// and name pthread's types and calls.
public import Glibc
import SystemPackage

extension SystemCalls {
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

    // MARK: Thread mutexes

    /// A POSIX thread mutex (`pthread_mutex_t`), the storage of a ``ThreadLock``.
    @usableFromInline package typealias ThreadMutex = pthread_mutex_t

    /// Initialises a mutex (`pthread_mutex_init`): in debug builds one that reports a relock
    /// by its holder instead of deadlocking (`PTHREAD_MUTEX_ERRORCHECK`), in release builds
    /// glibc's adaptive kind (`PTHREAD_MUTEX_ADAPTIVE_NP`), which spins briefly on a busy
    /// lock before it sleeps.
    ///
    /// Why adaptive: the package's locks are held for microseconds (a background flush
    /// installs what it wrote under the domain's state lock while a `set` waits for it). A
    /// waiter that sleeps in the kernel for such a hold is woken tens of microseconds after
    /// the lock is free; one that spins a little takes it as it is released (issue 37).
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
        let kind = Int32(PTHREAD_MUTEX_ADAPTIVE_NP)
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
}
