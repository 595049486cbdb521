// The worker's commands for the directory watcher's tests, which need a process of their own:
// one whose system calls strace can fail from the start, or whose descriptors and threads
// can be counted without other tests' running in the same process.
//
// The watcher is internal, hence the testable import; only debug builds allow it, and the
// worker is a test program that only debug test runs build and use.
import Foundation
#if DEBUG
@testable import Preferences
#endif

/// `watch-files PATH...`: watches each file, prints `ready` once all are watched, then
/// `fired PATH CONTENT` each time a handler runs (CONTENT is the file's text, or `(missing)`),
/// and exits when its standard input closes.
///
/// The test decides when it has seen enough, so a slow start on a loaded machine cannot end
/// the watch before the change it waits for.
func watchFiles(paths: [String]) {
    #if DEBUG
    guard !paths.isEmpty else { fail("watch-files PATH...") }
    let registrations = paths.map { path in
        let url = URL(fileURLWithPath: path)
        return DirectoryWatcher.shared.watch(
            directory: url.deletingLastPathComponent().path, fileName: url.lastPathComponent,
            handler: reportingHandler(for: path))
    }
    writeLine("ready")
    _ = FileHandle.standardInput.readDataToEndOfFile()
    withExtendedLifetime(registrations) {}
    #else
    fail("watch-files needs a debug build")
    #endif
}

/// `watch-churn DIRECTORY COUNT`: prints the process's descriptor and thread counts before any
/// watch (`before FDS THREADS`), after one registration was made and cancelled
/// (`after-first ...`), and after COUNT more (`after-all ...`).
///
/// Each round registers a file in DIRECTORY and one in a subdirectory that does not exist,
/// and ends one by `cancel()` and the other by release, so both ways out and both kinds of
/// directory are exercised.
func watchChurn(_ arguments: [String]) {
    #if DEBUG
    guard arguments.count == 2, let count = Int(arguments[1]) else { fail("watch-churn DIRECTORY COUNT") }
    let directory = arguments[0]
    let watcher = DirectoryWatcher.shared
    func round(_ index: Int) {
        let present = watcher.watch(directory: directory, fileName: "churn-\(index)", handler: {})
        var absent: DirectoryWatcher.Registration? = watcher.watch(
            directory: directory + "/absent", fileName: "churn-\(index)", handler: {})
        present.cancel()
        absent = nil
        withExtendedLifetime(absent) {}
    }
    // One thread made and ended first: a runtime that starts a helper thread with the
    // process's first new thread (the thread sanitizer's, under Tests/Scripts/tsan.sh) has it
    // running before the count, so the counts see only the watcher's own.
    let threads = { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1 }
    let first = Thread {}
    first.start()
    while !first.isFinished { usleep(1_000) }
    // Until the short thread has left /proc: the count holds still for 20 ms (a helper thread
    // started with it stays, and is counted from here on).
    var settled = 0, last = threads()
    while settled < 20 {
        usleep(1_000)
        let now = threads()
        settled = now == last ? settled + 1 : 0
        last = now
    }
    writeLine("before \(resourceCounts())")
    round(0)
    writeLine("after-first \(resourceCounts())")
    for index in 1...max(1, count) { round(index) }
    writeLine("after-all \(resourceCounts())")
    #else
    fail("watch-churn needs a debug build")
    #endif
}

/// A handler that prints the file's contents; built in a nonisolated function because a
/// closure written in top-level code is main-actor isolated and traps on the watcher thread.
nonisolated func reportingHandler(for path: String) -> @Sendable () -> Void {
    {
        let content = (try? String(contentsOfFile: path, encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "(missing)"
        writeLine("fired \(path) \(content)")
    }
}

/// Writes a line to standard output at once: `print` buffers when output is a pipe, and the
/// tests read lines as they come.
nonisolated func writeLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The number of open descriptors and of threads in this process, as `FDS THREADS`.
func resourceCounts() -> String {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
    return "\(descriptors) \(threads)"
}
