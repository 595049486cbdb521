// Commands for Benchmarks/mixed-language-latency.sh: a writer and a watcher that carry a
// CLOCK_MONOTONIC timestamp in the value, so a process in another language (Python's
// `time.monotonic_ns()` reads the same clock) can be either end of a timed change.
import Foundation
import Glibc
import Preferences

/// CLOCK_MONOTONIC in nanoseconds: the clock Python's `time.monotonic_ns()` reads on Linux.
func monotonicNanoseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int(time.tv_sec) * 1_000_000_000 + Int(time.tv_nsec)
}

/// `timed-write DOMAIN KEY`: prints "ready" once the domain's file exists; then for each line
/// on stdin takes the monotonic time T, sets KEY to T and flushes (durable), and prints T.
/// The time is taken just before the call that commits, so a watcher's reception time minus
/// the value is the whole change latency.
func timedWrite(_ arguments: [String]) {
    guard arguments.count == 2 else { fail("timed-write DOMAIN KEY") }
    let preferences = store(arguments[0])
    let key = arguments[1]
    preferences.set(0, forKey: key)
    do throws(PreferencesError) { try preferences.flush() } catch { fail("flush: \(error)") }
    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    say("ready")
    while Swift.readLine() != nil {
        let sent = monotonicNanoseconds()
        preferences.set(sent, forKey: key)
        do throws(PreferencesError) { try preferences.flush() } catch { fail("flush: \(error)") }
        say(String(sent))
    }
}

/// `timed-watch DOMAIN KEY`: prints "ready", then "seen VALUE NOW" for every change of KEY
/// heard (VALUE the integer value, NOW the monotonic time the handler started), until stdin
/// closes.
func timedWatch(_ arguments: [String]) {
    guard arguments.count == 2 else { fail("timed-watch DOMAIN KEY") }
    let preferences = store(arguments[0])
    @Sendable func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    let observation = preferences.observe(arguments[1]) { change in
        let now = monotonicNanoseconds()
        let value = change.newValue.map { String($0.coercedInteger) } ?? "nil"
        say("seen \(value) \(now)")
    }
    say("ready")
    _ = FileHandle.standardInput.readDataToEndOfFile()
    observation.cancel()
}
