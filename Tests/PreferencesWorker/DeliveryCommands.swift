import Foundation
import Glibc
import Preferences
import Synchronization

/// The operating system's name of the calling thread (what `top -H` shows), as the library
/// sets it with `prctl`; Foundation's `Thread.name` is not always told.
func osThreadName() -> String {
    // The kernel's record of the name, as `top -H` reads it.
    let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
    return name?.trimmingCharacters(in: .newlines) ?? "?"
}

/// `observe-order DOMAIN KEY READERS`: observes KEY while READERS threads read it in a loop
/// (so reads find other processes' commits and re-read the file themselves); prints "ready",
/// then "change OLD NEW THREAD" for every change heard (THREAD: the OS name of the thread the
/// handler ran on, "reader" if it ran on one of the reading threads), and when stdin closes
/// "rereads N wakeups W" (re-reads made by reads, counter wake-ups of the watcher).
func observeOrder(_ arguments: [String]) {
    guard arguments.count == 3, let readers = Int(arguments[2]) else { fail("observe-order DOMAIN KEY READERS") }
    let preferences = store(arguments[0])
    let key = arguments[1]
    @Sendable func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    // The reading threads mark themselves, so a handler that ran on one says so.
    let readerThreads = Mutex<Set<pthread_t>>([])
    let observation = preferences.observe(key) { change in
        let onReader = readerThreads.withLock { $0.contains(pthread_self()) }
        let old = change.oldValue.map { String($0.coercedInteger) } ?? "nil"
        let new = change.newValue.map { String($0.coercedInteger) } ?? "nil"
        say("change \(old) \(new) \(onReader ? "reader" : osThreadName())")
    }
    let stop = Atomic(false)
    let finished = DispatchGroup()
    for _ in 0..<readers {
        finished.enter()
        Thread {
            readerThreads.withLock { _ = $0.insert(pthread_self()) }
            while !stop.load(ordering: .relaxed) {
                _ = preferences.integer(forKey: key)
                // A pause, so two reading threads per worker do not take both cores from the
                // rest of a test run; reads still find most commits before the watcher does.
                usleep(50)
            }
            finished.leave()
        }.start()
    }
    say("ready")
    _ = FileHandle.standardInput.readDataToEndOfFile()
    stop.store(true, ordering: .relaxed)
    finished.wait()
    observation.cancel()
    say("rereads \(FreshnessChecks.rereadsByReads) wakeups \(CommitWaiter.wakeUpCount)")
}
