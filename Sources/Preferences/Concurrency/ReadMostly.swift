import Synchronization

/// A value that many threads read at once and few threads change: a store's resolved
/// values.
///
/// With a mutex, two threads reading the same store take turns owning the mutex's cache
/// line, and a read that costs 40 ns alone costs 150 ns when another core reads too.
/// Here a reader only writes a counter of its own CPU's, on a cache line of its own, so
/// readers on different cores never touch the same line; a writer raises a flag, waits
/// for the counters to drain and changes the value in place. Readers never wait for disk
/// I/O: writers hold the lock only to change memory (a set, or applying values already
/// read from a file). Readers that find the flag raised step back and retry, so a reader
/// never blocks a writer for longer than one read.
///
/// A read must not write the value or take this lock again (a read inside a read is fine;
/// a write inside a read waits for itself).
///
/// Safety (`@unchecked Sendable`): `storage` is read only between a reader counter's
/// increment and decrement with `isWriting` seen false in between, and written only by a
/// writer that raised `isWriting` and then saw every counter at zero; the sequentially
/// consistent increment-then-check and raise-then-check make the two exclusive, and the
/// release decrements and the flag's release store order the accesses. `counters` is
/// only used through atomics.
@usableFromInline
final class ReadMostly<Value: Sendable>: @unchecked Sendable {
    /// The bytes each reader counter occupies: a cache line, so no two CPUs' counters
    /// share one.
    @usableFromInline static var counterStride: Int { 64 }

    /// One counter per CPU (a power of two, at least the number of CPUs), each on its own
    /// cache line: how many reads are running that started on that CPU.
    @usableFromInline let counters: UnsafeMutablePointer<Atomic<Int>>
    /// `counters.count - 1`; a CPU number masked with it picks the counter.
    @usableFromInline let counterMask: Int
    /// Raised by a writer before it waits for readers to leave.
    @usableFromInline let isWriting = Atomic<Bool>(false)
    /// Writers take turns.
    private let writers = ThreadLock(())
    /// The value; see the type's safety note.
    @usableFromInline let storage: UnsafeMutablePointer<Value>

    /// Creates the lock around `value`.
    init(_ value: Value) {
        let count = max(1, SystemCalls.processorCount()).nextPowerOfTwo
        counterMask = count - 1
        let raw = UnsafeMutableRawPointer.allocate(byteCount: count * Self.counterStride, alignment: Self.counterStride)
        for index in 0..<count {
            (raw + index * Self.counterStride).bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
        }
        counters = raw.assumingMemoryBound(to: Atomic<Int>.self)
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
        UnsafeMutableRawPointer(counters).deallocate()
    }

    /// The counter of reads that started on `cpu`.
    @usableFromInline @inline(__always)
    func counter(_ cpu: Int) -> UnsafeMutablePointer<Atomic<Int>> {
        UnsafeMutableRawPointer(counters).advanced(by: (cpu & counterMask) * Self.counterStride)
            .assumingMemoryBound(to: Atomic<Int>.self)
    }

    /// Runs `body` with the value, concurrently with other reads and never during a write.
    ///
    /// `body` gets the value's address, must only read through it and must not keep it.
    @inlinable
    func read<Result>(_ body: (UnsafePointer<Value>) throws -> Result) rethrows -> Result {
        let counter = counter(Self.currentProcessor())
        while true {
            counter.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
            if !isWriting.load(ordering: .sequentiallyConsistent) { break }
            // A writer is waiting for readers or writing: step back so it can finish.
            counter.pointee.wrappingSubtract(1, ordering: .releasing)
            waitForWriter()
        }
        defer { counter.pointee.wrappingSubtract(1, ordering: .releasing) }
        // A pointer, neither the value nor in-out: passing the value copies it (retaining
        // every collection in it, and those reference counts are cache lines all readers
        // share), and an in-out access is a write to the thread sanitizer, so two readers
        // would be reported as a race. Readers project the fields they need from the
        // pointer (`pointer.pointee.field[key]`), which the compiler borrows.
        return try body(storage)
    }

    /// The processor this thread runs on, to pick a counter (not inlined: it calls into
    /// the C library).
    @usableFromInline
    static func currentProcessor() -> Int {
        SystemCalls.currentProcessor()
    }

    /// Waits (spinning a little, then yielding the processor) until no writer holds the
    /// flag.
    @usableFromInline
    func waitForWriter() {
        var spins = 0
        while isWriting.load(ordering: .acquiring) {
            spins += 1
            if spins > 64 { SystemCalls.yieldProcessor() }
        }
    }

    /// Runs `body` with exclusive, mutable access to the value: no read or other write
    /// runs meanwhile. The name matches `Mutex` so callers read the same.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try writers.withLock { _ throws(Failure) -> Result in
            isWriting.store(true, ordering: .sequentiallyConsistent)
            defer { isWriting.store(false, ordering: .releasing) }
            for cpu in 0...counterMask {
                var spins = 0
                while counter(cpu).pointee.load(ordering: .sequentiallyConsistent) != 0 {
                    spins += 1
                    if spins > 64 { SystemCalls.yieldProcessor() }
                }
            }
            return try body(&storage.pointee)
        }
    }
}

extension Int {
    /// The smallest power of two at least this large (1 for 0 and 1).
    fileprivate var nextPowerOfTwo: Int {
        self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount)
    }
}
