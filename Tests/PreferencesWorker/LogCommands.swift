// The worker's command for the journald handler's tests, which need a process of their own:
// one started in a mount namespace without a live journal socket, whose standard error the
// test captures to see the fallback.
import Foundation
import JournaldLogging
import Preferences
import Logging

/// `log factory|direct MESSAGE [KEY=VALUE...]`: logs MESSAGE once at `error` with the pairs as
/// metadata, through `JournaldLogHandler.makeHandler` (`factory`, which checks the socket
/// first) or a `JournaldLogHandler` made directly (`direct`, which only falls back when a send
/// fails), then exits.
func logMessage(_ arguments: [String]) {
    guard arguments.count >= 2, ["factory", "direct"].contains(arguments[0]) else {
        fail("log factory|direct MESSAGE [KEY=VALUE...]")
    }
    var metadata: Logger.Metadata = [:]
    for pair in arguments.dropFirst(2) {
        guard let equals = pair.firstIndex(of: "=") else { fail("not KEY=VALUE: \(pair)") }
        metadata[String(pair[..<equals])] = .string(String(pair[pair.index(after: equals)...]))
    }
    let logger =
        arguments[0] == "factory"
        ? Logger(label: "preferences.worker") { JournaldLogHandler.makeHandler(label: $0) }
        : Logger(label: "preferences.worker") { JournaldLogHandler(label: $0) }
    logger.error("\(arguments[1])", metadata: metadata)
}

/// `size-storm DOMAIN COUNT`: with a soft limit of 1,000 bytes and a hard one of 5,000, makes
/// one set that crosses the soft limit and COUNT sets that the hard limit refuses, checks
/// that `trySet` throws, flushes, and prints what happened and how long the sets took. Then
/// it stays until the rate limiter's 10-second window has ended, so its "suppressed N"
/// summary is logged by the window's timer, with no later entry to trigger it.
func sizeStorm(domain: String, count: Int) {
    let preferences: PreferenceStore
    do throws(PreferencesError) {
        preferences = try PreferenceStore(domain: domain, configuration: .init(sizeLimit: 5_000, softSizeLimit: 1_000))
    } catch {
        fail("cannot open \(domain): \(error)")
    }
    print("pid \(getpid())")
    let clock = ContinuousClock()
    let start = clock.now
    preferences.set(Data(count: 2_000), forKey: "big")
    for _ in 0..<count {
        preferences.set(Data(count: 10_000), forKey: "huge")
    }
    print("sets took \(clock.now - start)")
    do throws(PreferencesError) {
        try preferences.trySet(.data(Data(count: 10_000)), forKey: "huge")
        fail("trySet over the hard limit did not throw")
    } catch {
        print("trySet threw \(error.code)")
    }
    do throws(PreferencesError) { try preferences.flush() } catch { fail("flush: \(error)") }
    print("flushed; huge is \(preferences.value(forKey: "huge") == nil ? "absent" : "present")")
    Thread.sleep(forTimeInterval: 10.5)
    print("done")
}
