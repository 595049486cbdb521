// cross-process-latency: `set` in this process → change callback in other processes, with
// durable writes (every change reaches the watchers by a flush: fsync + rename).
//
//   cross-process-latency CHANGES WATCHERS [SAMPLES-FILE]
//
// Starts WATCHERS copies of itself that observe the domain, then makes CHANGES changes of
// one key, each holding the CLOCK_MONOTONIC time of its `set`, and waits for every watcher
// to report each change before making the next (so each is timed alone, not coalesced).
// Writes one latency in microseconds a line to SAMPLES-FILE and prints
// "latency-us p50 p99 p99.9 max count", the format of Benchmarks/Peers/dconf/dconf-probe.c.
// Files go to a fresh temporary directory, removed at the end.
import Foundation
import Glibc
import Preferences

let domain = "com.example.benchmark.latency"
let probe = "Probe"

func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("cross-process-latency: \(message)\n".utf8))
    exit(1)
}

func openStore(home: String) -> PreferenceStore {
    var environment = ProcessInfo.processInfo.environment
    environment["PREFERENCES_HOME"] = home
    do throws(PreferencesError) {
        return try PreferenceStore(domain: domain, configuration: .init(environment: environment, arguments: ["cross-process-latency"]))
    } catch {
        fail("cannot open \(domain): \(error)")
    }
}

/// Writes a whole line to a file descriptor.
func writeLine(_ fd: Int32, _ text: String) {
    var bytes = Array((text + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if written <= 0 { if errno == EINTR { continue }; exit(1) }
        offset += written
    }
}

/// Reads lines from a file descriptor, blocking.
struct LineReader {
    let fd: Int32
    var buffer: [UInt8] = []

    mutating func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}

/// The watching process: reports the latency of every change of `Probe` on standard output.
func watch(home: String) -> Never {
    let store = openStore(home: home)
    let observation = store.observe(probe) { change in
        let now = monotonicNanoseconds()
        guard let sent = change.newValue?.integerValue?.int64Value else { return }
        writeLine(1, String(now - sent))
    }
    writeLine(1, "ready")
    // Runs until the writer closes our standard input.
    var sink = [UInt8](repeating: 0, count: 64)
    while read(0, &sink, sink.count) != 0 {}
    observation.cancel()
    exit(0)
}

func measure(changes: Int, watcherCount: Int, samplesPath: String?) {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("cross-process-latency-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: home) }
    let store = openStore(home: home)
    // Create the domain before the watchers start, so the first change is timed like the rest.
    store.set(0, forKey: probe)
    do throws(PreferencesError) { try store.flush() } catch { fail("flush: \(error)") }

    var watchers: [(process: Process, output: LineReader, input: FileHandle)] = []
    for _ in 0..<watcherCount {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["watch", home]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        do { try process.run() } catch { fail("cannot start a watcher: \(error)") }
        watchers.append((process, LineReader(fd: output.fileHandleForReading.fileDescriptor), input.fileHandleForWriting))
    }
    for index in watchers.indices where watchers[index].output.next() != "ready" {
        fail("a watcher did not start")
    }
    // One untimed change first: a watcher's first delivery also pays its process's one-time
    // costs (the first reload's code paths faulted in, lazily built tables), which a process
    // that has been running has long paid. Its slowest delivery is reported on its own line.
    var coldest = 0.0
    store.set(Int(monotonicNanoseconds()), forKey: probe)
    for index in watchers.indices {
        guard let line = watchers[index].output.next(), let nanoseconds = Int64(line) else { fail("a watcher stopped") }
        coldest = max(coldest, Double(nanoseconds) / 1_000)
    }

    var samples: [Double] = []
    samples.reserveCapacity(changes * watcherCount)
    for _ in 0..<changes {
        store.set(Int(monotonicNanoseconds()), forKey: probe)
        for index in watchers.indices {
            guard let line = watchers[index].output.next(), let nanoseconds = Int64(line) else { fail("a watcher stopped") }
            samples.append(Double(nanoseconds) / 1_000)
        }
    }
    for watcher in watchers {
        watcher.input.closeFile()
        watcher.process.waitUntilExit()
    }
    if let samplesPath {
        let text = samples.map { String(format: "%.3f", $0) }.joined(separator: "\n") + "\n"
        // Written in place, not atomically: an atomic write renames a new file over the path,
        // which replaced /dev/null with a regular file once when it was given as the path.
        do { try text.write(toFile: samplesPath, atomically: false, encoding: .utf8) } catch { fail("cannot write \(samplesPath): \(error)") }
    }
    samples.sort()
    func percentile(_ p: Double) -> Double { samples[min(samples.count - 1, Int(Double(samples.count) * p))] }
    print(String(format: "latency-us %.1f %.1f %.1f %.1f %d", percentile(0.5), percentile(0.99), percentile(0.999), samples.last ?? 0, samples.count))
    print(String(format: "first-change-max-us %.1f", coldest))
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "watch" {
    watch(home: arguments[2])
}
guard arguments.count >= 3, let changes = Int(arguments[1]), let watcherCount = Int(arguments[2]), changes > 0, watcherCount > 0 else {
    fail("usage: cross-process-latency CHANGES WATCHERS [SAMPLES-FILE]")
}
measure(changes: changes, watcherCount: watcherCount, samplesPath: arguments.count > 3 ? arguments[3] : nil)
