public import Synchronization

/// A value that many threads read and few change, kept as two copies so that a reader never
/// waits: the store's resolved values.
///
/// Readers use the copy `side` names. A writer changes the other copy, publishes it with one
/// atomic store of `side`, waits until the readers that were still on the old copy have left,
/// and then makes the same change to the old copy, which becomes the spare for the next write
/// (the Left-Right technique of Ramalhete and Correia). A reader therefore only ever sees a
/// whole commit: the copy it reads is never written while it reads, and a write becomes
/// visible in the single step that flips `side`.
///
/// Why two copies rather than a new immutable snapshot per commit: a set changes one key, and
/// a fresh snapshot would copy the whole table (a 1,000-key domain's resolved values) on every
/// set, where Left-Right changes two tables in place. Why not the previous read-mostly lock:
/// its readers stepped back and spun while a writer held the flag, so a read could wait for a
/// writer (ARCHITECTURE.md, "Locks and their order").
///
/// Readers announce themselves on a counter of their CPU's, one cache line per CPU and side,
/// so readers on different cores never write the same line. A reader that finds `side`
/// flipped between announcing itself and checking retries on the new side: it never waits
/// for a writer, it only starts over, and only when a commit was published in those few
/// nanoseconds.
///
/// Writes run their change twice, once per copy, so a change must be deterministic: it may
/// depend only on the value and on what it captured before the write began.
///
/// Safety (`@unchecked Sendable`): a copy is written only by the writer holding `writers`,
/// and only while no reader can be reading it: the spare copy has had no readers since the
/// previous write drained them, and the old copy is written only after its counters were
/// seen at zero after `side` moved away from it. Both orders rely on sequentially consistent
/// counter increments and `side` accesses (a reader's increment and a writer's flip cannot
/// both miss each other), and the readers' releasing decrements make their reads happen
/// before the writer's change. `counters` is only used through atomics.
@usableFromInline
final class LeftRight<Value: Sendable>: @unchecked Sendable {
    /// The bytes each reader counter occupies: a cache line, so no two CPUs share one.
    @usableFromInline static var counterStride: Int { 64 }

    /// Two runs of counters (one per copy), each with one counter per CPU (a power of two, at
    /// least the number of CPUs): how many reads of that copy started on that CPU and are
    /// still running.
    @usableFromInline let counters: UnsafeMutableRawPointer
    /// CPUs per side minus one; a CPU number masked with it picks the counter.
    @usableFromInline let counterMask: Int
    /// The copy readers use: 0 or 1.
    @usableFromInline let side = Atomic<Int>(0)
    /// The two copies; see the type's safety note.
    @usableFromInline let copies: UnsafeMutablePointer<Value>
    /// Writers take turns; `rank` places it in the package's lock order.
    private let writers: ThreadLock<Void>

    /// Creates the pair, both copies `value`.
    init(_ value: Value, rank: LockRank) {
        let count = max(1, SystemCalls.processorCount()).nextPowerOfTwo
        counterMask = count - 1
        counters = UnsafeMutableRawPointer.allocate(byteCount: 2 * count * Self.counterStride, alignment: Self.counterStride)
        for index in 0..<(2 * count) {
            (counters + index * Self.counterStride).bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
        }
        copies = .allocate(capacity: 2)
        copies.initialize(to: value)
        (copies + 1).initialize(to: value)
        writers = ThreadLock((), rank: rank)
    }

    deinit {
        copies.deinitialize(count: 2)
        copies.deallocate()
        counters.deallocate()
    }

    /// The reader counter of `side` for `cpu`.
    @usableFromInline @inline(__always)
    func counter(side: Int, cpu: Int) -> UnsafeMutablePointer<Atomic<Int>> {
        (counters + ((side &* (counterMask &+ 1)) &+ (cpu & counterMask)) &* Self.counterStride)
            .assumingMemoryBound(to: Atomic<Int>.self)
    }

    /// Runs `body` with the published copy. Never waits for a writer.
    ///
    /// `body` gets the copy's address, must only read through it and must not keep it: a
    /// pointer rather than the value, because passing the value would copy it (retaining
    /// every collection in it, reference counts that all readers share) and an in-out
    /// access counts as a write to the thread sanitizer.
    @inlinable
    func read<Result>(_ body: (UnsafePointer<Value>) throws -> Result) rethrows -> Result {
        let cpu = Self.currentProcessor()
        var current = side.load(ordering: .relaxed)
        while true {
            let counter = counter(side: current, cpu: cpu)
            counter.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
            let published = side.load(ordering: .sequentiallyConsistent)
            if published == current {
                defer { counter.pointee.wrappingSubtract(1, ordering: .releasing) }
                return try body(copies + current)
            }
            // A commit was published meanwhile: read it instead (no waiting).
            counter.pointee.wrappingSubtract(1, ordering: .releasing)
            current = published
        }
    }

    /// The processor this thread runs on, to pick a counter (not inlined: it calls into the
    /// C library).
    @usableFromInline
    static func currentProcessor() -> Int {
        SystemCalls.currentProcessor()
    }

    /// Changes the value: `change` runs on the spare copy, which is then published in one
    /// step, and again on the other copy once its readers have left. `afterPublish` runs once,
    /// still in the writer's turn, with the first run's result and the copy just published
    /// (read-only): what must happen in commit order (queueing the change for observers)
    /// goes there.
    ///
    /// `change` must be deterministic (see the type's comment); its second result is dropped.
    @discardableResult
    func write<Result>(
        _ change: (inout Value) -> Result, afterPublish: (Result, UnsafePointer<Value>) -> Void = { _, _ in }
    ) -> Result {
        write({ value, _ in change(&value) }, afterPublish: afterPublish)
    }

    /// ``write(_:afterPublish:)`` for a change that is told whether it runs the second time
    /// (`isReplay`), when its result is dropped: it must change the value exactly as the first
    /// time, but may skip building a result nobody reads.
    @discardableResult
    func write<Result>(
        _ change: (inout Value, _ isReplay: Bool) -> Result, afterPublish: (Result, UnsafePointer<Value>) -> Void
    ) -> Result {
        writers.withLock { _ in
            let old = side.load(ordering: .relaxed)
            let spare = old ^ 1
            let result = change(&copies[spare], false)
            side.store(spare, ordering: .sequentiallyConsistent)
            afterPublish(result, UnsafePointer(copies + spare))
            waitForReaders(of: old)
            _ = change(&copies[old], true)
            return result
        }
    }

    /// Waits until no reader is on `side`'s copy. Only readers that started before the flip
    /// can be there, so this is a short wait (longer only if such a reader was preempted).
    private func waitForReaders(of side: Int) {
        // A plain loop: a `0...counterMask` range is iterated through unspecialised generic
        // code here, a few hundred instructions on every write.
        var cpu = 0
        while cpu <= counterMask {
            var spins = 0
            while counter(side: side, cpu: cpu).pointee.load(ordering: .sequentiallyConsistent) != 0 {
                spins += 1
                // A reader preempted mid-read keeps its count until it runs again: spin a
                // little, then yield, then sleep, so a writer never burns a core waiting.
                if spins > 1_024 {
                    SystemCalls.sleep(for: .microseconds(50))
                } else if spins > 64 {
                    SystemCalls.yieldProcessor()
                }
            }
            cpu += 1
        }
    }
}

extension Int {
    /// The smallest power of two at least this large (1 for 0 and 1).
    fileprivate var nextPowerOfTwo: Int {
        self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount)
    }
}
