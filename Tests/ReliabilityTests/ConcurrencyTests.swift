import Foundation
import Glibc
import Synchronization
@testable import Preferences
import TestSupport
import Testing

/// Sixteen real processes writing one domain, and lock holders killed or stopped.
///
/// Serialized: the lock hand-off tests time a kill or a stop to the millisecond, and the
/// sixteen-process tests of this suite saturate both cores and the disk while they run; side
/// by side, a hand-off measured the scheduler and the disk queue (3.3 s once in a whole-suite
/// run, 13–16 ms alone).
@Suite("Concurrency across processes", .ownThread, .serialized)
struct ConcurrencyTests {
    /// Each flush re-reads and re-encodes the whole growing file, and every other worker's
    /// watcher re-reads it too, so 8,000 flushes of up to 8,000 keys take minutes in a debug
    /// build on 2 cores whatever the lock does (379 s polling the lock, 488 s blocking in
    /// `flock`): the test command runs 16 × 100, the soak (`RELIABILITY_SOAK=1`) the issue's
    /// 16 × 500. The longest single flush shows how long the lock kept a writer waiting.
    @Test("16 processes × 500 distinct keys (× 100 outside the soak), a flush after every set: all on disk")
    func distinctKeys() throws {
        let fixture = try ReliabilityFixture(inMemory: true)
        let perProcess = isSoak ? 500 : 100
        let start = ContinuousClock.now
        let workers = try (0..<16).map { try fixture.startWorker(["set-keys", "com.example.keys", "p\($0)-", String(perProcess)]) }
        var longestFlush = 0
        for worker in workers {
            let status = worker.wait()
            if status != 0 { throw WorkerFailure(description: "worker \(worker.arguments) exited \(status): \(worker.errorOutput)") }
            for line in worker.output.split(separator: "\n") where line.hasPrefix("longest-flush-ms ") {
                longestFlush = max(longestFlush, Int(line.dropFirst("longest-flush-ms ".count)) ?? 0)
            }
        }
        let elapsed = ContinuousClock.now - start
        let disk = try #require(try fixture.onDisk("com.example.keys"))
        #expect(disk.count == 16 * perProcess)
        for process in 0..<16 {
            for index in 0..<perProcess where disk["p\(process)-\(index)"] != .integer(index) {
                Issue.record("p\(process)-\(index) is \(String(describing: disk["p\(process)-\(index)"]))")
            }
        }
        figure(
            "16 × \(perProcess) distinct keys",
            "\(disk.count) of \(16 * perProcess) in \(milliseconds(elapsed)); longest single flush (lock wait included) \(longestFlush) ms")
    }

    /// Every process sets its keys while its background flush writes them (one write per
    /// batch set meanwhile), with an explicit flush after every 25th set and at the end, so 16
    /// processes read, merge and rename the same file continuously without a full re-encode
    /// per set. The soak runs the issue's 16 × 500; the test command 16 × 125 (2,000 keys),
    /// which keeps every process writing beside the others for most of the run.
    @Test("16 processes × 500 distinct keys (× 125 outside the soak), background flushes and a flush every 25 sets: all on disk")
    func distinctKeysBatched() throws {
        let fixture = try ReliabilityFixture(inMemory: true)
        let perProcess = soakCount(500, command: 125)
        let start = ContinuousClock.now
        let workers = try (0..<16).map {
            try fixture.startWorker(["set-keys", "com.example.batched", "p\($0)-", String(perProcess), "25"])
        }
        for worker in workers {
            let status = worker.wait()
            if status != 0 { throw WorkerFailure(description: "worker \(worker.arguments) exited \(status): \(worker.errorOutput)") }
        }
        let elapsed = ContinuousClock.now - start
        let disk = try #require(try fixture.onDisk("com.example.batched"))
        #expect(disk.count == 16 * perProcess)
        for process in 0..<16 {
            for index in 0..<perProcess where disk["p\(process)-\(index)"] != .integer(index) {
                Issue.record("p\(process)-\(index) is \(String(describing: disk["p\(process)-\(index)"]))")
            }
        }
        figure("16 × \(perProcess) distinct keys, batched", "\(disk.count) of \(16 * perProcess) in \(milliseconds(elapsed))")
    }

    /// Each increment reads the counter under the lock and commits it, while 15 other
    /// processes do the same: one lost update shows as a total short of 16 × the count. The
    /// soak runs the issue's 16 × 500; the test command 16 × 125. On the disk, not tmpfs, so
    /// many processes' commits meet real `fsync`s (the other 16-process tests run in memory).
    @Test("16 processes × 500 atomic increments (× 125 outside the soak) of one counter on disk: none lost")
    func increments() throws {
        let fixture = try ReliabilityFixture()
        let perProcess = soakCount(500, command: 125)
        let start = ContinuousClock.now
        try fixture.runWorkers(16) { _ in ["increment", "com.example.counter", "count", String(perProcess)] }
        let disk = try #require(try fixture.onDisk("com.example.counter"))
        #expect(disk["count"] == .integer(PropertyListInteger(16 * perProcess)))
        figure(
            "16 × \(perProcess) increments",
            "\(disk["count"]?.integerValue?.description ?? "nil") in \(milliseconds(ContinuousClock.now - start))")
    }

    @Test("keys removed by one process while another sets others are never resurrected")
    func removalsStayRemoved() throws {
        let fixture = try ReliabilityFixture()
        let domain = "com.example.removal"
        let seeder = try fixture.store(domain)
        for index in 0..<500 { seeder.set(index, forKey: "r\(index)") }
        try seeder.flush()
        // Both workers load the file with all 500 r-keys; the setter must never write them back.
        try fixture.runWorkers(2) { $0 == 0 ? ["remove-keys", domain, "r", "500"] : ["set-keys", domain, "s", "500"] }
        let disk = try #require(try fixture.onDisk(domain))
        #expect(disk.keys.filter { $0.hasPrefix("r") }.isEmpty, "resurrected: \(disk.keys.filter { $0.hasPrefix("r") }.count)")
        #expect(disk.keys.filter { $0.hasPrefix("s") }.count == 500)
    }

    @Test("a lock holder SIGKILLed: the waiting writer proceeds at once (the issue's bound is 100 ms)")
    func killedHolder() throws {
        let fixture = try ReliabilityFixture()
        let domain = "com.example.killed"
        let store = try fixture.store(domain)
        store.set(1, forKey: "before")
        try store.flush()
        var delays: [Duration] = []
        for _ in 0..<(isSoak ? 100 : 10) {
            let holder = try fixture.startWorker(["hold-lock", fixture.file(domain).lockPath, "60000"])
            try #require(holder.nextLine() == "locked")
            // The writer waits for the lock on another thread; the holder dies meanwhile.
            let writer = try fixture.store(domain)
            writer.set(Int.random(in: 0..<1000), forKey: "after")
            let done = DispatchSemaphore(value: 0)
            let finished = Mutex<ContinuousClock.Instant?>(nil)
            let failure = Mutex<PreferencesError?>(nil)
            Thread.detachNewThread {
                do throws(PreferencesError) { try writer.flush() } catch { failure.withLock { $0 = error } }
                finished.withLock { $0 = .now }
                done.signal()
            }
            usleep(100_000)
            let killedAt = ContinuousClock.now
            holder.signal(SIGKILL)
            holder.wait()
            done.wait()
            #expect(failure.withLock { $0 } == nil)
            delays.append(try #require(finished.withLock { $0 }) - killedAt)
        }
        let worst = try #require(delays.max())
        // The waiter blocks in flock, which the kernel wakes when the holder dies: had it not
        // been woken, its flush would have failed with a lock timeout (checked above). How
        // soon is a figure, compared with the issue's 100 ms in RELIABILITY.md, not asserted:
        // a unit test holds no timing threshold.
        figure("SIGKILLed lock holder → next writer done", "max \(milliseconds(worst)) over \(delays.count) kills")
    }

    @Test("timed-out waits for one busy lock leave one blocked thread, which lets go once the lock is free")
    func abandonedWaiters() throws {
        let fixture = try ReliabilityFixture()
        let lockPath = fixture.file("com.example.abandoned").lockPath
        let holder = try fixture.startWorker(["hold-lock", lockPath, "60000"])
        defer { holder.signal(SIGKILL); holder.wait() }
        try #require(holder.nextLine() == "locked")
        let policy = FilePolicy(lockTimeout: .milliseconds(50))
        for _ in 0..<5 {
            let error = #expect(throws: PreferencesError.self) { _ = try DomainFileLock(path: lockPath, policy: policy) }
            #expect(error?.code == .lockTimeout)
        }
        // Each attempt after the first adopted the abandoned waiter instead of adding one.
        #expect(LockWaiter.blockedThreads(path: lockPath) == 1)
        // The waiter names itself, so `top -H` and gdb show what the thread is. Its name was
        // once set through Foundation before `start()`, which never reaches the system.
        // (Present, not counted: other suites' waiters in this process bear the name too.)
        #expect(threadNamesOfThisProcess().contains("prefs-lock-wait"), "\(threadNamesOfThisProcess())")
        holder.signal(SIGKILL)
        holder.wait()
        // The abandoned waiter gets the lock, gives it back and ends; 10 s is a generous
        // bound for a loaded machine (it takes milliseconds).
        let deadline = ContinuousClock.now + .seconds(10)
        while LockWaiter.blockedThreads(path: lockPath) > 0 && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(LockWaiter.blockedThreads(path: lockPath) == 0)
        _ = try DomainFileLock(path: lockPath, policy: policy)
    }

    @Test("a lock holder SIGSTOPped: lock timeout after the configured bound, changes kept, written after SIGCONT")
    func stoppedHolder() throws {
        let fixture = try ReliabilityFixture()
        let domain = "com.example.stopped"
        let holder = try fixture.startWorker(["hold-lock", fixture.file(domain).lockPath, "1500"])
        defer { holder.signal(SIGCONT); holder.wait() }
        try #require(holder.nextLine() == "locked")
        holder.signal(SIGSTOP)
        let store = try fixture.store(domain, lockTimeout: .milliseconds(300))
        store.set("kept", forKey: "dirty")
        let start = ContinuousClock.now
        let error = #expect(throws: PreferencesError.self) { try store.flush() }
        let waited = ContinuousClock.now - start
        #expect(error?.code == .lockTimeout, "\(String(describing: error))")
        #expect(waited >= .milliseconds(300))
        #expect(store.string(forKey: "dirty") == "kept", "the change stays in memory")
        #expect(try fixture.onDisk(domain) == nil)
        holder.signal(SIGCONT)
        holder.wait()
        try store.flush()
        #expect(try fixture.onDisk(domain) == ["dirty": "kept"])
        figure("SIGSTOPped lock holder, timeout 300 ms", "lockTimeout after \(milliseconds(waited)); written after SIGCONT")
    }
}

/// The names of this process's threads, as `top -H` shows them (`/proc/self/task/*/comm`).
func threadNamesOfThisProcess() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { task in
        (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
