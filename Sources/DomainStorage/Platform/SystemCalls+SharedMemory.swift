// Public for `loadShared`, inlined into every read of a store in the module above.
public import CLinux
import Glibc
package import SystemPackage

extension SystemCalls {
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
