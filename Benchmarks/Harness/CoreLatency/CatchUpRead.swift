// core-latency catch-up SAMPLES [OBSERVERS [after-flush|polling]]: the read right after another
// process's commit (the catch-up read).
//
// This process (B) opens the domain, and another process (A, `core-latency catch-up-writer
// HOME`) opens it too. Each round B asks A for a commit; A sets the key and `flush()`es
// (durable), then sends B the CLOCK_MONOTONIC time at which its flush returned (8 bytes).
//
//   after-flush (default)  B spins on the pipe (non-blocking reads, so it starts at once) and
//                          times its first `integer(forKey:)` after A's flush returned: the
//                          commit counter has moved, so that read must bring B's copy of the
//                          file up to date, unless B's watcher thread (woken by inotify at A's
//                          rename) got there first.
//   polling                B reads in a loop while A flushes, each read timed alone; the row is
//                          the first read that returns A's new value (the read that found the
//                          counter raised, or waited for the watcher's re-read).
//
// Rows ("row<TAB>name<TAB>p50<TAB>p99<TAB>p99.9<TAB>p99.99", nanoseconds): the catch-up read;
// the read after it (already caught up); after-flush: the gap from A's flush returning to the
// read starting. Counts: reads after A's flush returned that gave a value other than A's
// (stale); with observers, rounds whose change B's observers had been handed before the read
// began; polling: catch-up reads that ended before A's flush returned.
import Foundation
import Preferences
import Synchronization

private let catchUpDomain = "com.example.benchmark.catchup"
private let catchUpKey = "Probe"

private func openCatchUpStore(home: String) -> PreferenceStore {
    var environment = ProcessInfo.processInfo.environment
    environment["PREFERENCES_HOME"] = home
    environment["PREFERENCES_SYSTEM_DIR"] = home + "/system"
    do throws(PreferencesError) {
        return try PreferenceStore(domain: catchUpDomain, configuration: .init(environment: environment, arguments: ["core-latency"]))
    } catch {
        fail("cannot open \(catchUpDomain): \(error)")
    }
}

/// How many changes B's observers were handed.
private final class Deliveries: Sendable {
    let count = Atomic(0)
}

/// Process B of the catch-up row (see the top of this file): `samples` timed rounds after 100
/// untimed ones, with `observers` observers of the key in this process, reading after the
/// writer's flush returned or, with `polling`, while it runs.
func catchUpRead(samples: Int, observers: Int, polling: Bool) {
    let home = makeHome()
    defer { try? FileManager.default.removeItem(atPath: home) }
    let store = openCatchUpStore(home: home)
    store.set(0, forKey: catchUpKey)
    do { try store.flush() } catch { fail("flush: \(error)") }
    let deliveries = Deliveries()
    var observations: [PreferenceObservation] = []
    for _ in 0..<observers {
        observations.append(store.observe(catchUpKey) { _ in deliveries.count.add(1, ordering: .relaxed) })
    }

    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["catch-up-writer", home]
    let toChild = Pipe(), fromChild = Pipe()
    child.standardInput = toChild
    child.standardOutput = fromChild
    do { try child.run() } catch { fail("cannot start the writer: \(error)") }
    let requests = toChild.fileHandleForWriting.fileDescriptor
    let replies = fromChild.fileHandleForReading.fileDescriptor

    // "ready" (one byte) from the writer once its store is open, read blocking.
    var byte: UInt8 = 0
    guard read(replies, &byte, 1) == 1 else { fail("the writer did not start") }
    _ = fcntl(replies, F_SETFL, fcntl(replies, F_GETFL) | O_NONBLOCK)

    print("load\tcatch-up start\t\(loadAverage())")
    let warmUp = 100
    var firstReads: [Int64] = [], nextReads: [Int64] = [], gaps: [Int64] = []
    firstReads.reserveCapacity(samples)
    nextReads.reserveCapacity(samples)
    gaps.reserveCapacity(samples)
    var stale = 0, deliveredBefore = 0, endedBeforeFlushReturned = 0
    for round in 1...(warmUp + samples) {
        var request = UInt8(1)
        guard write(requests, &request, 1) == 1 else { fail("cannot ask the writer") }
        var flushReturned: Int64 = 0
        /// Reads the writer's reply if it has come; fails if the writer is gone.
        func replyArrived() -> Bool {
            let count = read(replies, &flushReturned, 8)
            if count == 8 { return true }
            if count == 0 { fail("the writer stopped") }
            if count > 0 { fail("a short reply from the writer") }
            if errno != EAGAIN && errno != EINTR { fail("read: errno \(errno)") }
            return false
        }
        let deliveredNow: Int, start: Int64, middle: Int64, value: Int
        if polling {
            // Reads until one returns the new value; after the reply, one more read must.
            var replied = false, last: (Int, Int64, Int64, Int) = (0, 0, 0, 0)
            while true {
                let delivered = deliveries.count.load(ordering: .relaxed)
                let before = monotonicNanoseconds()
                let seen = store.integer(forKey: catchUpKey)
                let after = monotonicNanoseconds()
                last = (delivered, before, after, seen)
                if seen == round || replied { break }
                replied = replyArrived()
            }
            (deliveredNow, start, middle, value) = last
        } else {
            // Spins until the writer's reply (its flush's return time) arrives.
            while !replyArrived() {}
            deliveredNow = deliveries.count.load(ordering: .relaxed)
            start = monotonicNanoseconds()
            value = store.integer(forKey: catchUpKey)
            middle = monotonicNanoseconds()
        }
        let again = store.integer(forKey: catchUpKey)
        let end = monotonicNanoseconds()
        // Polling: the reply may still be on its way (the new value seen before the flush returned).
        while polling && flushReturned == 0 { _ = replyArrived() }
        guard round > warmUp else { continue }
        firstReads.append(middle - start)
        nextReads.append(end - middle)
        gaps.append(start - flushReturned)
        if middle < flushReturned { endedBeforeFlushReturned += 1 }
        if value != round || again != round { stale += 1 }
        // Observers already handed this round's change before the read started (each round's
        // change reaches each observer once).
        if observers > 0 && deliveredNow >= round * observers { deliveredBefore += 1 }
    }
    print("load\tcatch-up end\t\(loadAverage())")
    toChild.fileHandleForWriting.closeFile()
    child.waitUntilExit()
    let condition = "\(polling ? "reader polling during the flush" : "read after flush() returned"), \(observers) observer\(observers == 1 ? "" : "s") in the reader"
    emit("catch-up", "first integer(forKey:) seeing another process's commit (\(condition))", percentiles(firstReads))
    emit("catch-up", "next integer(forKey:), already caught up (\(condition))", percentiles(nextReads))
    if !polling { emit("catch-up", "gap: writer's flush() returned → read started", percentiles(gaps)) }
    print("catch-up\tsamples\t\(samples)")
    print("catch-up\tstale values read after the flush returned\t\(stale)")
    if observers > 0 { print("catch-up\tchange already handed to the observers before the read\t\(deliveredBefore)") }
    if polling { print("catch-up\tcatch-up reads ended before the writer's flush() returned\t\(endedBeforeFlushReturned)") }
    withExtendedLifetime(observations) {}
}

/// Process A of ``catchUpRead(samples:observers:polling:)``: for every byte on standard input, one
/// set and durable flush, then the CLOCK_MONOTONIC time the flush returned (8 bytes).
func catchUpWriter(home: String) {
    let store = openCatchUpStore(home: home)
    var ready = UInt8(1)
    guard write(1, &ready, 1) == 1 else { exit(1) }
    var value = 0
    var request: UInt8 = 0
    while read(0, &request, 1) == 1 {
        value += 1
        store.set(value, forKey: catchUpKey)
        do { try store.flush() } catch { fail("catch-up-writer: flush: \(error)") }
        var returned = monotonicNanoseconds()
        guard write(1, &returned, 8) == 8 else { exit(1) }
    }
    exit(0)
}
