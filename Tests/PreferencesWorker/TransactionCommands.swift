import Foundation
import Preferences

/// `transact-pairs DOMAIN COUNT`: COUNT transactions, the i-th setting `width` to i,
/// `height` to i and `area` to i*i, so a reader that ever sees them disagree saw part of one.
func transactPairs(_ arguments: [String]) {
    guard arguments.count == 2, let count = Int(arguments[1]) else { fail("transact-pairs DOMAIN COUNT") }
    let preferences = store(arguments[0])
    for index in 1...max(count, 1) {
        do {
            try preferences.transaction { t in
                t.set(index, forKey: "width")
                t.set(index, forKey: "height")
                t.set(index * index, forKey: "area")
            }
        } catch {
            fail("transaction \(index): \(error)")
        }
    }
}

/// `write-on-request DOMAIN KEY`: for each line N read from stdin, sets KEY to N, flushes,
/// and only then prints N: whoever reads the line knows the write is on disk.
func writeOnRequest(_ arguments: [String]) {
    guard arguments.count == 2 else { fail("write-on-request DOMAIN KEY") }
    let preferences = store(arguments[0])
    // The domain's directory exists before the first request: a reader whose counter lives
    // beside the file (no runtime directory) can only open it once the directory is there.
    preferences.set(0, forKey: arguments[1])
    do throws(PreferencesError) { try preferences.flush() } catch { fail("flush: \(error)") }
    // Unbuffered, straight to the pipe: the reader waits for each line.
    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    say("ready")
    while let line = Swift.readLine(), let value = Int(line) {
        preferences.set(value, forKey: arguments[1])
        do throws(PreferencesError) { try preferences.flush() } catch { fail("flush: \(error)") }
        say(String(value))
    }
}

/// `transact-increment DOMAIN KEY COUNT [KEY...]`: COUNT transactions that each read KEY (and
/// every further KEY) and write it back plus one: atomic only if the body reads under the lock.
/// The further keys let several writers share one key while each also has one of its own (the
/// mixed-language test, Tests/Mixed).
func transactIncrement(_ arguments: [String]) {
    guard arguments.count >= 3, let count = Int(arguments[2]) else { fail("transact-increment DOMAIN KEY COUNT [KEY...]") }
    let preferences = store(arguments[0])
    let keys = [arguments[1]] + arguments.dropFirst(3)
    for _ in 0..<count {
        do {
            try preferences.transaction { t in
                for key in keys { t.set(t.integer(forKey: key) + 1, forKey: key) }
            }
        } catch {
            fail("transaction: \(error)")
        }
    }
}

/// `observe-key DOMAIN KEY`: prints "ready", then "changed VALUE THREAD WAKEUPS" for every
/// change of KEY (THREAD: the name of the thread that delivered it; WAKEUPS: how many times
/// so far a commit counter woke the watcher), until stdin closes.
func observeKey(_ arguments: [String]) {
    guard arguments.count == 2 else { fail("observe-key DOMAIN KEY") }
    let preferences = store(arguments[0])
    @Sendable func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    let observation = preferences.observe(arguments[1]) { change in
        say("changed \(change.newValue.map { "\($0)" } ?? "nil") \(Thread.current.name ?? "?") \(CommitWaiter.wakeUpCount)")
    }
    say("ready")
    _ = FileHandle.standardInput.readDataToEndOfFile()
    observation.cancel()
}
