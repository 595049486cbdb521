// config-latency: a change to a service's settings → the service's handler seeing it, through
// our PreferencesProvider and through swift-configuration's own ReloadingFileProvider over a
// JSON file, at its guide's poll interval (15 s) and at 1 s, all in one run; and, given the
// example server, the same change → the answer of `preferences-config-server` over HTTP.
//
//   config-latency [--ours N] [--json-15s N] [--json-1s N] [--server PATH [--http N]]
//
// Each sample is one change, made only after the last one was seen (so none is coalesced
// with the next) and after a random pause (so changes fall at random points of a poll
// interval), timed from just before the change to the moment it is seen:
// - ours: a child process (this program, `writer`) sets `greeting` to "t" and its
//   CLOCK_MONOTONIC time through `PreferenceStore`, whose flush is durable (fsync + rename);
//   a ConfigReader over PreferencesProvider in this process sees it.
// - JSON: this process writes {"greeting": "t<time>"} to the file atomically (a new file
//   renamed over it, no fsync); a ConfigReader over ReloadingFileProvider<JSONSnapshot>, run
//   as its guide says, sees it at its next poll.
// - HTTP (with --server): the same child's change, seen in the answer to `GET /` that the
//   server's handler builds from `config.snapshot()`; asked again and again on one kept-alive
//   connection, 100 µs apart, until the answer changes.
//
// "Seen" for the first three is the ConfigReader's `watchSnapshot` handing over the new
// snapshot. Both providers put a new snapshot in place and hand it to their watchers in one
// step (ours under one lock, theirs just after its lock), and the server's handler reads
// `config.snapshot()`, the provider's current one: so from the moment a watcher has it, every
// request is answered with it. The watch is the handler's view without an HTTP round trip,
// for all three alike; the HTTP row shows what a client of the real server sees, for ours.
//
// Ours and the JSON providers run side by side (three tasks, one process); the HTTP samples
// follow ours in its task, while the JSON providers still wait out their intervals. Prints
// a Markdown block: the table, the load average at start and end, and the set-up. Files go to
// a fresh temporary directory, removed at the end; the run stops itself if it overruns.
import Configuration
import Foundation
import Glibc
import Preferences
import PreferencesConfiguration
import SystemPackage

let domain = "com.example.server"
let key = "greeting"
/// The same key as swift-configuration names it.
let configKey: ConfigKey = "greeting"

/// Now by CLOCK_MONOTONIC (Dispatch's uptime clock on Linux), which the writer child shares.
func monotonicNanoseconds() -> Int64 {
    Int64(DispatchTime.now().uptimeNanoseconds)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("config-latency: \(message)\n".utf8))
    exit(1)
}

/// The environment that confines a store, or the server, to `home`.
func environment(home: String) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["PREFERENCES_HOME"] = home + "/preferences"
    environment["PREFERENCES_SYSTEM_DIR"] = home + "/system"
    return environment
}

/// When a greeting "t<nanoseconds>" was written, by the monotonic clock; nil for any other.
func changeTime(_ greeting: String?) -> Int64? {
    guard let greeting, greeting.first == "t" else { return nil }
    return Int64(greeting.dropFirst().prefix { $0.isNumber })
}

// MARK: The writer process

/// The other process of the "ours" rows: one change of the greeting for each line it reads.
func runWriter(home: String) -> Never {
    let store: PreferenceStore
    do throws(PreferencesError) {
        store = try PreferenceStore(domain: domain, configuration: .init(environment: environment(home: home), arguments: []))
    } catch {
        fail("writer: \(error)")
    }
    // The store flushes each set by itself, as a service's would.
    while readLine() != nil {
        store.set("t\(monotonicNanoseconds())", forKey: key)
    }
    do throws(PreferencesError) { try store.flush() } catch { fail("writer: \(error)") }
    exit(0)
}

/// The writer child, started with the same program. Used by one task, then one thread, at a
/// time (never two at once), so it may cross from one to the other.
final class Writer: @unchecked Sendable {
    let process = Process()
    let input = Pipe()

    init(home: String) {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["writer", home]
        process.standardInput = input
        do { try process.run() } catch { fail("cannot start the writer: \(error)") }
    }

    func change() {
        input.fileHandleForWriting.write(Data("\n".utf8))
    }

    func stop() {
        input.fileHandleForWriting.closeFile()
        process.waitUntilExit()
    }
}

// MARK: Through a watch

/// Times `count` changes made by `change` as `config`'s `watchSnapshot` hands them over:
/// the first change after the first snapshot, each next one a random `pause` (in seconds)
/// after the last was seen. Milliseconds.
func measure(_ config: ConfigReader, count: Int, pause: ClosedRange<Double>, change: () -> Void) async throws -> [Double] {
    try await config.watchSnapshot { snapshots in
        var samples: [Double] = []
        var last: String?? = .none
        for await snapshot in snapshots {
            let seen = monotonicNanoseconds()
            let greeting = snapshot.string(forKey: configKey)
            if case .some(let previous) = last {
                guard greeting != previous else { continue }
                guard let began = changeTime(greeting) else { fail("unexpected greeting \(greeting ?? "nil")") }
                samples.append(Double(seen - began) / 1e6)
            }
            last = .some(greeting)
            if samples.count == count { break }
            try await Task.sleep(for: .seconds(Double.random(in: pause)))
            change()
        }
        return samples
    }
}

/// Writes `{"greeting": greeting}` to `path` as a new file renamed over the old one.
func writeJSON(_ greeting: String, to path: String) {
    do {
        let data = try JSONSerialization.data(withJSONObject: [key: greeting])
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        fail("cannot write \(path): \(error)")
    }
}

/// swift-configuration's reloading JSON provider polling every `interval` seconds, run as its
/// guide runs it (`run()` is what a ServiceGroup would call), timed over `count` changes.
func measureJSON(interval: Int, count: Int, directory: String) async throws -> [Double] {
    let path = "\(directory)/config-\(interval)s.json"
    writeJSON("start", to: path)
    let provider = try await ReloadingFileProvider<JSONSnapshot>(filePath: FilePath(path), pollInterval: .seconds(interval))
    let config = ConfigReader(provider: provider)
    return try await withThrowingTaskGroup(of: [Double].self) { group in
        group.addTask {
            try await provider.run()
            return []
        }
        let samples = try await measure(config, count: count, pause: 0...Double(interval)) {
            writeJSON("t\(monotonicNanoseconds())", to: path)
        }
        group.cancelAll()
        return samples
    }
}

// MARK: Over HTTP

/// One kept-alive HTTP/1.1 connection to the server on 127.0.0.1, asking `GET /`.
struct Connection {
    let descriptor: Int32
    var buffer: [UInt8] = []

    init(port: Int) {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, connected == 0 else { fail("cannot connect to port \(port): errno \(errno)") }
        var on: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The body of the answer to `GET /`.
    mutating func get() -> String {
        let request = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { fail("send: errno \(errno)") }
        let separator = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while true {
            if headerEnd == nil, let range = buffer.firstRange(of: separator) { headerEnd = range.upperBound }
            if let headerEnd {
                let head = String(decoding: buffer[..<headerEnd], as: UTF8.self).lowercased()
                guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                    let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                else { fail("an answer without Content-Length: \(head)") }
                if buffer.count >= headerEnd + length {
                    let body = String(decoding: buffer[headerEnd..<headerEnd + length], as: UTF8.self)
                    buffer.removeFirst(headerEnd + length)
                    return body
                }
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { fail("the server closed the connection") }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}

/// Starts `preferences-config-server` on `home` and returns it with the port it printed.
func startServer(_ path: String, home: String) -> (Process, port: Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = ["--domain", domain]
    process.environment = environment(home: home)
    let output = Pipe()
    process.standardOutput = output
    do { try process.run() } catch { fail("cannot start \(path): \(error)") }
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while read(output.fileHandleForReading.fileDescriptor, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
    let address = String(decoding: line, as: UTF8.self)
    guard address.hasPrefix("http://127.0.0.1:"), let port = Int(address.dropFirst("http://127.0.0.1:".count)) else {
        fail("\(path) printed \"\(address)\", not its address")
    }
    return (process, port)
}

/// Times `count` changes by `writer` as answers of the server at `port`. Milliseconds.
func measureHTTP(port: Int, writer: Writer, count: Int) -> [Double] {
    var connection = Connection(port: port)
    var last = connection.get()
    var samples: [Double] = []
    for _ in 0..<count {
        usleep(UInt32.random(in: 5_000...20_000))
        writer.change()
        while true {
            let answer = connection.get()
            let seen = monotonicNanoseconds()
            if answer != last {
                guard let began = changeTime(answer) else { fail("unexpected answer \(answer)") }
                samples.append(Double(seen - began) / 1e6)
                last = answer
                break
            }
            usleep(100)
        }
    }
    close(connection.descriptor)
    return samples
}

// MARK: Ours

/// The "ours" rows: PreferencesProvider in this process, a writer child, then the server.
func measureOurs(count: Int, server: String?, httpCount: Int, directory: String) async throws -> (watch: [Double], http: [Double]) {
    let home = directory + "/ours"
    // The domain exists before anything watches it, so the first change is timed like the rest.
    let writer = Writer(home: home)
    writer.change()
    let provider = try PreferencesProvider(domain: domain, configuration: .init(environment: environment(home: home), arguments: []))
    let config = ConfigReader(provider: provider)
    while changeTime(config.string(forKey: configKey)) == nil { try await Task.sleep(for: .milliseconds(10)) }
    let watch = try await measure(config, count: count, pause: 0.005...0.020) { writer.change() }
    var http: [Double] = []
    if let server {
        let (process, port) = startServer(server, home: home)
        // Blocking socket reads: on a thread of its own, not one of the few the tasks share.
        http = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: measureHTTP(port: port, writer: writer, count: httpCount)) }.start()
        }
        process.terminate()
        process.waitUntilExit()
    }
    writer.stop()
    return (watch, http)
}

// MARK: Report

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func loadAverage() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}

/// Milliseconds as the table shows them: µs below 1 ms, s from 1 s.
func format(_ milliseconds: Double) -> String {
    if milliseconds < 1 { return String(format: "%.0f µs", milliseconds * 1000) }
    if milliseconds < 1000 { return String(format: "%.2f ms", milliseconds) }
    return String(format: "%.2f s", milliseconds / 1000)
}

func row(_ name: String, _ samples: [Double]) -> String {
    let sorted = samples.sorted()
    guard !sorted.isEmpty else { return "| \(name) | 0 | — | — | — | — |" }
    return "| \(name) | \(sorted.count) | \(format(percentile(sorted, 0.5))) | \(format(percentile(sorted, 0.99))) | \(format(sorted[0])) | \(format(sorted[sorted.count - 1])) |"
}

// MARK: Main

struct Options {
    var ours = 1000
    var json15 = 20
    var json1 = 100
    var http = 300
    var server: String?

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        func count(_ name: String) -> Int {
            guard let next = rest.popFirst(), let value = Int(next), value > 0 else { fail("\(name) needs a count above 0") }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--ours": ours = count(argument)
            case "--json-15s": json15 = count(argument)
            case "--json-1s": json1 = count(argument)
            case "--http": http = count(argument)
            case "--server": server = rest.popFirst()
            default: fail("usage: config-latency [--ours N] [--json-15s N] [--json-1s N] [--server PATH [--http N]]")
            }
        }
        if let server, !FileManager.default.isExecutableFile(atPath: server) { fail("\(server) is not an executable") }
    }
}

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "writer" { runWriter(home: CommandLine.arguments[2]) }

/// The run: the three watches side by side, then the report.
func main(_ options: Options) async {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-latency-\(getpid())").path
    do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch { fail("\(error)") }
    // Bounded: each JSON sample takes at most two intervals (the pause, then the wait for a poll).
    let bound = 120 + 30 * options.json15 + 2 * options.json1 + (options.ours + options.http) / 10
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(bound)) {
        try? FileManager.default.removeItem(atPath: directory)
        fail("no result after \(bound) s")
    }
    let loadAtStart = loadAverage()
    let started = Date()
    async let ours = measureOurs(count: options.ours, server: options.server, httpCount: options.http, directory: directory)
    async let json15 = measureJSON(interval: 15, count: options.json15, directory: directory)
    async let json1 = measureJSON(interval: 1, count: options.json1, directory: directory)
    let results: (ours: (watch: [Double], http: [Double]), json15: [Double], json1: [Double])
    do { results = try await (ours, json15, json1) } catch { fail("\(error)") }
    try? FileManager.default.removeItem(atPath: directory)

    let oursP50 = percentile(results.ours.watch.sorted(), 0.5)
    let httpP50 = results.ours.http.isEmpty ? nil : percentile(results.ours.http.sorted(), 0.5)
    let goalMet = oursP50 <= 5 && (httpP50 ?? 0) <= 5
    print(
        """
        | a change → the handler's ConfigReader sees it | samples | p50 | p99 | min | max |
        |---|---|---|---|---|---|
        \(row("ours: `PreferencesProvider`, set in another process → `watchSnapshot`", results.ours.watch))
        \(options.server == nil ? "" : row("ours over HTTP: set in another process → `GET /` of `preferences-config-server` answers it", results.ours.http) + "\n")\
        \(row("`ReloadingFileProvider<JSONSnapshot>`, poll interval 15 s (its guide's) → `watchSnapshot`", results.json15))
        \(row("`ReloadingFileProvider<JSONSnapshot>`, poll interval 1 s → `watchSnapshot`", results.json1))

        Goal: p50 ≤ 5 ms for ours: **\(goalMet ? "met" : "missed")**. Load average (1, 5, 15 min): \(loadAtStart) at the \
        start, \(loadAverage()) at the end (2 cores); \(Int(Date().timeIntervalSince(started))) s in all.
        """)
}

await main(Options(CommandLine.arguments))
