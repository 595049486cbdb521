// fleet-latency: a put to etcd → the change callback of a program's store, through
// `preferences-fleet`, and how long a leader's loss interrupts that.
//
//   fleet-latency PREFERENCES-FLEET [--puts M] [--kills K] [--samples FILE]
//                 [--heartbeat-ms 50] [--election-ms 500] [--retry-ms 100]
//
// Starts a 3-member etcd cluster on loopback (its own launcher: etcd on PATH or /usr/bin),
// the given `preferences-fleet` binary following it with PREFERENCES_SYSTEM_DIR in a fresh
// temporary directory, and a `PreferenceStore` in this process observing a key of the domain
// the service manages. Then:
//
// - M puts (default 500), one at a time with a short random gap, each `{"n": i}` put through
//   etcd's JSON gateway (POST /v3/kv/put) over a plain socket, timed from just before the request
//   to the store's change callback for n == i; each waits for its callback, so none is
//   coalesced with the next.
// - K leader losses (default 5): SIGKILL the leader, put again and again (on the surviving
//   members in turn, a fresh value each attempt, an attempt unanswered after --retry-ms
//   abandoned for the next, as etcd clients retry) until a put is accepted, and time from the
//   kill to the first callback for any post-kill put; then restart the killed member and let
//   the cluster settle before the next round. The figure's resolution is the retry interval.
//
// Prints a Markdown block (a table, the load average and the set-up) to standard output;
// with --samples, the raw samples to FILE (`put-callback-us`, `put-response-us` and
// `recovery-ms` lines). Everything it starts is stopped, and its directory removed, at exit.
import Foundation
import Glibc
import Preferences
import Synchronization

let domain = "com.example.fleet.latency"
let observedKey = "n"

// MARK: Clock, failure, clean-up

func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// What must be stopped or removed when the harness ends, however it ends.
enum Cleanup {
    static let processes = Mutex<[Int32: String]>([:])
    static let directory = Mutex<String?>(nil)

    static func run() {
        let running = processes.withLock { processes in
            defer { processes.removeAll() }
            return processes
        }
        for pid in running.keys { kill(pid, SIGTERM) }
        for pid in running.keys {
            // Reaped by the `Process` that started it, or here for a member killed by hand.
            var waited = 0
            while kill(pid, 0) == 0 && waited < 500 {
                usleep(10_000)
                waited += 1
            }
            if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
        }
        if let directory = directory.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: directory) }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fleet-latency: \(message)\n".utf8))
    Cleanup.run()
    exit(1)
}

func note(_ message: String) {
    FileHandle.standardError.write(Data("fleet-latency: \(message)\n".utf8))
}

// MARK: Options

struct Options {
    var fleetBinary = ""
    var puts = 500
    var kills = 5
    var samplesPath: String?
    var heartbeat = 50
    var election = 500
    var retry = 100

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        func value(_ name: String) -> String {
            guard let next = rest.popFirst() else { fail("\(name) needs a value") }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--puts": puts = Int(value(argument)) ?? -1
            case "--kills": kills = Int(value(argument)) ?? -1
            case "--samples": samplesPath = value(argument)
            case "--heartbeat-ms": heartbeat = Int(value(argument)) ?? -1
            case "--election-ms": election = Int(value(argument)) ?? -1
            case "--retry-ms": retry = Int(value(argument)) ?? -1
            case let path where !path.hasPrefix("-") && fleetBinary.isEmpty: fleetBinary = path
            default: fail("unknown argument \(argument)")
            }
        }
        guard !fleetBinary.isEmpty, puts > 0, kills >= 0, heartbeat > 0, election > heartbeat, retry > 0 else {
            fail(
                "usage: fleet-latency PREFERENCES-FLEET [--puts M] [--kills K] [--samples FILE] [--heartbeat-ms MS] [--election-ms MS] [--retry-ms MS]"
            )
        }
        guard FileManager.default.isExecutableFile(atPath: fleetBinary) else { fail("\(fleetBinary) is not an executable") }
    }
}

// MARK: etcd

func program(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return (path.split(separator: ":").map { "\($0)/\(name)" } + ["/usr/bin/\(name)"])
        .first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// `count` distinct free ports on 127.0.0.1: all stay bound until the last is chosen.
func freePorts(_ count: Int) -> [Int] {
    var sockets: [Int32] = []
    defer { for descriptor in sockets { close(descriptor) } }
    var ports: [Int] = []
    for _ in 0..<count {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { fail("socket: errno \(errno)") }
        sockets.append(descriptor)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { fail("bind: errno \(errno)") }
        ports.append(Int(UInt16(bigEndian: address.sin_port)))
    }
    return ports
}

/// A 3-member etcd cluster on loopback, members started and killed by index.
final class Cluster {
    struct Member {
        var name: String
        var clientURL: String
        var peerURL: String
        var dataDirectory: String
        var logFile: String
    }

    let etcd: String
    let members: [Member]
    let initialCluster: String
    let token = "fleet-latency-\(UUID().uuidString)"
    let heartbeat: Int
    let election: Int
    private(set) var processes: [Process?]

    init(etcd: String, directory: String, count: Int, heartbeat: Int, election: Int) {
        self.etcd = etcd
        self.heartbeat = heartbeat
        self.election = election
        let ports = freePorts(2 * count)
        members = (0..<count).map { index in
            Member(
                name: "m\(index)", clientURL: "http://127.0.0.1:\(ports[2 * index])",
                peerURL: "http://127.0.0.1:\(ports[2 * index + 1])", dataDirectory: "\(directory)/m\(index).etcd",
                logFile: "\(directory)/member-\(index).log")
        }
        initialCluster = members.map { "\($0.name)=\($0.peerURL)" }.joined(separator: ",")
        processes = Array(repeating: nil, count: count)
        for index in members.indices { start(index, state: "new") }
    }

    var clientURLs: [String] { members.map(\.clientURL) }

    func isRunning(_ index: Int) -> Bool { processes[index]?.isRunning ?? false }

    func start(_ index: Int, state: String) {
        let member = members[index]
        if !FileManager.default.fileExists(atPath: member.logFile) {
            _ = FileManager.default.createFile(atPath: member.logFile, contents: nil)
        }
        guard let log = FileHandle(forWritingAtPath: member.logFile) else { fail("cannot open \(member.logFile)") }
        defer { try? log.close() }
        log.seekToEndOfFile()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: etcd)
        process.arguments = [
            "--name", member.name, "--data-dir", member.dataDirectory,
            "--listen-client-urls", member.clientURL, "--advertise-client-urls", member.clientURL,
            "--listen-peer-urls", member.peerURL, "--initial-advertise-peer-urls", member.peerURL,
            "--initial-cluster", initialCluster, "--initial-cluster-token", token, "--initial-cluster-state", state,
            "--heartbeat-interval", String(heartbeat), "--election-timeout", String(election),
            "--logger", "zap", "--log-outputs", "stderr",
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        do { try process.run() } catch { fail("cannot start etcd: \(error)") }
        processes[index] = process
        Cleanup.processes.withLock { $0[process.processIdentifier] = "etcd \(member.name)" }
    }

    /// SIGKILL, as a crash would; the data directory stays for ``start(_:state:)``.
    func kill(_ index: Int) {
        guard let process = processes[index] else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        processes[index] = nil
        Cleanup.processes.withLock { _ = $0.removeValue(forKey: process.processIdentifier) }
    }

    func logTail(_ index: Int) -> String {
        let text = (try? String(contentsOfFile: members[index].logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(5).joined(separator: "\n")
    }
}

// MARK: The JSON gateway

/// Synchronous requests to etcd's JSON gateway: HTTP/1.1 over a plain socket, one connection
/// per request (loopback, so it costs tens of microseconds).
///
/// Not URLSession: on Linux, FoundationNetworking traps ("Transfer completed, but there's no
/// response", swift-corelibs-foundation issue 5285) when a transfer ends without a response,
/// which a put caught by a leader's loss did here, and it took the whole harness down in a
/// report run even with its own timeout set far away.
final class Gateway: Sendable {
    /// POSTs `body` as JSON to `endpoint + path`; the parsed JSON object of a 200 answer, or nil
    /// when there is none within `timeout` seconds (the socket's send and receive timeouts).
    func post(_ endpoint: String, _ path: String, _ body: [String: String], timeout: TimeInterval) -> [String: Any]? {
        guard let url = URL(string: endpoint), let host = url.host, let port = url.port,
            let payload = try? JSONSerialization.data(withJSONObject: body)
        else { return nil }
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let head = "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\nContent-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
        let request = Array(head.utf8) + Array(payload)
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return nil }
            sent += count
        }
        // Read to the end: the server closes the connection after its answer.
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else { return nil }
            response += buffer[..<count]
        }
        return Self.parse(response)
    }

    /// The JSON body of a 200 response, de-chunked if need be.
    static func parse(_ response: [UInt8]) -> [String: Any]? {
        let separator = Array("\r\n\r\n".utf8)
        guard let split = (0...max(0, response.count - 4)).first(where: { Array(response[$0..<min($0 + 4, response.count)]) == separator })
        else { return nil }
        let head = String(decoding: response[..<split], as: UTF8.self).lowercased()
        guard head.hasPrefix("http/1.1 200") || head.hasPrefix("http/1.0 200") else { return nil }
        var body = Array(response[(split + 4)...])
        if head.contains("transfer-encoding: chunked") {
            var decoded: [UInt8] = []
            var index = 0
            while let lineEnd = (index..<max(index, body.count - 1)).first(where: { body[$0] == 13 && body[$0 + 1] == 10 }),
                let size = Int(String(decoding: body[index..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16), size > 0,
                lineEnd + 2 + size <= body.count
            {
                decoded += body[(lineEnd + 2)..<(lineEnd + 2 + size)]
                index = lineEnd + 2 + size + 2
            }
            body = decoded
        }
        return (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }

    /// Puts `value` under `key`; true when etcd answered with a header (the put is committed).
    func put(_ endpoint: String, key: String, value: Data, timeout: TimeInterval = 2) -> Bool {
        let body = ["key": Data(key.utf8).base64EncodedString(), "value": value.base64EncodedString()]
        return post(endpoint, "/v3/kv/put", body, timeout: timeout)?["header"] != nil
    }

    /// The member's id and the leader's id it knows, from /v3/maintenance/status.
    func status(_ endpoint: String) -> (member: String, leader: String)? {
        guard let answer = post(endpoint, "/v3/maintenance/status", [:], timeout: 1),
            let header = answer["header"] as? [String: Any], let member = header["member_id"].map({ "\($0)" }),
            let leader = answer["leader"].map({ "\($0)" })
        else { return nil }
        return (member, leader)
    }
}

/// The index of the leader, once every running member answers and all name the same one.
func agreedLeader(_ cluster: Cluster, _ gateway: Gateway) -> Int? {
    var ids: [Int: String] = [:]
    var leaders: Set<String> = []
    for index in cluster.members.indices where cluster.isRunning(index) {
        guard let status = gateway.status(cluster.members[index].clientURL) else { return nil }
        ids[index] = status.member
        leaders.insert(status.leader)
    }
    guard leaders.count == 1, let leader = leaders.first, leader != "0" else { return nil }
    return ids.first { $0.value == leader }?.key
}

func waitForLeader(_ cluster: Cluster, _ gateway: Gateway, within seconds: Double = 30) -> Int {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if let leader = agreedLeader(cluster, gateway) { return leader }
        for index in cluster.members.indices where cluster.processes[index] != nil && !cluster.isRunning(index) {
            fail("etcd member \(index) exited:\n\(cluster.logTail(index))")
        }
        usleep(50_000)
    }
    fail("the etcd members did not agree on a leader within \(Int(seconds)) s")
}

// MARK: The observing store

/// The values of the observed key as the store's callback delivered them, with when.
final class Arrivals: Sendable {
    private let arrived = Mutex<[(value: Int, time: UInt64)]>([])
    private let signal = DispatchSemaphore(value: 0)

    func record(_ value: Int) {
        let now = monotonicNanoseconds()
        arrived.withLock { $0.append((value, now)) }
        signal.signal()
    }

    /// When the first value at least `value` arrived, waiting up to `seconds`; nil if none did.
    func time(ofFirstAtLeast value: Int, within seconds: Double) -> UInt64? {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        while true {
            if let hit = arrived.withLock({ $0.first { $0.value >= value }?.time }) { return hit }
            let now = monotonicNanoseconds()
            if now >= deadline { return nil }
            _ = signal.wait(timeout: .now() + .nanoseconds(Int(min(deadline - now, 100_000_000))))
        }
    }
}

/// Observes the key; a nonisolated function, so the handler is not main-actor isolated (it
/// runs on the store's watcher thread).
func observe(_ store: PreferenceStore, into arrivals: Arrivals) -> PreferenceObservation {
    store.observe(observedKey) { change in
        if let value = change.newValue?.integerValue?.int64Value { arrivals.record(Int(value)) }
    }
}

// MARK: Measuring

func counter(_ n: Int) -> Data {
    Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>\(observedKey)</key><integer>\(n)</integer></dict></plist>
        """.utf8)
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

func loadAverage() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}

func format(_ milliseconds: Double) -> String {
    milliseconds >= 100 ? String(format: "%.0f", milliseconds) : String(format: "%.1f", milliseconds)
}

func measure(_ options: Options) {
    guard let etcd = program("etcd") else { fail("needs etcd (Debian's etcd-server package) on PATH or in /usr/bin") }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-latency-\(UUID().uuidString)").path
    do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
        fail("cannot create \(directory): \(error)")
    }
    Cleanup.directory.withLock { $0 = directory }
    let environment = [
        "PREFERENCES_HOME": "\(directory)/preferences", "PREFERENCES_SYSTEM_DIR": "\(directory)/system",
        "HOME": "\(directory)/home", "PREFERENCES_SCHEMA_PATH": "\(directory)/schemas",
        "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
    ]
    try? FileManager.default.createDirectory(atPath: "\(directory)/home", withIntermediateDirectories: true)
    let etcdVersion = (try? runOutput(etcd, ["--version"]))?.split(separator: "\n").first.map(String.init) ?? "etcd"

    let gateway = Gateway()
    let cluster = Cluster(etcd: etcd, directory: directory, count: 3, heartbeat: options.heartbeat, election: options.election)
    _ = waitForLeader(cluster, gateway)

    // The service, following the whole cluster.
    let serviceLog = "\(directory)/preferences-fleet.log"
    _ = FileManager.default.createFile(atPath: serviceLog, contents: nil)
    guard let logHandle = FileHandle(forWritingAtPath: serviceLog) else { fail("cannot open \(serviceLog)") }
    let service = Process()
    service.executableURL = URL(fileURLWithPath: options.fleetBinary)
    service.arguments = ["--endpoints", cluster.clientURLs.joined(separator: ","), "--prefix", "/preferences/", "--hostname", "bench-host"]
    service.environment = environment
    service.standardInput = FileHandle.nullDevice
    service.standardOutput = logHandle
    service.standardError = logHandle
    do { try service.run() } catch { fail("cannot start \(options.fleetBinary): \(error)") }
    try? logHandle.close()
    Cleanup.processes.withLock { $0[service.processIdentifier] = "preferences-fleet" }
    func serviceTail() -> String {
        ((try? String(contentsOfFile: serviceLog, encoding: .utf8)) ?? "").split(separator: "\n").suffix(8).joined(separator: "\n")
    }

    // The observing store, in this process.
    let store: PreferenceStore
    do throws(PreferencesError) {
        store = try PreferenceStore(
            domain: domain, configuration: .init(environment: environment, arguments: ["fleet-latency"], postsDidChangeNotification: false))
    } catch {
        fail("cannot open \(domain): \(error)")
    }
    let arrivals = Arrivals()
    let observation = observe(store, into: arrivals)
    defer { withExtendedLifetime((store, observation)) {} }

    let key = "/preferences/fleet/\(domain)"
    var value = 0
    /// Puts the next value on the first running member that accepts it, trying the others in
    /// turn until `seconds` have passed; returns the first value put after the call began.
    func putNext(within seconds: Double, timeout: TimeInterval = 2) -> Int {
        let first = value + 1
        let deadline = Date().addingTimeInterval(seconds)
        var attempt = 0
        while Date() < deadline {
            let running = cluster.members.indices.filter(cluster.isRunning)
            guard !running.isEmpty else { fail("no etcd member is running") }
            value += 1
            if gateway.put(cluster.members[running[attempt % running.count]].clientURL, key: key, value: counter(value), timeout: timeout) {
                return first
            }
            attempt += 1
        }
        fail("no put was accepted within \(Int(seconds)) s")
    }

    // Untimed first change: the service's first whole read, the managed file's creation and
    // this store's first reload of it.
    let warmUp = putNext(within: 30)
    guard arrivals.time(ofFirstAtLeast: warmUp, within: 60) != nil else {
        fail("the first put never reached the store; preferences-fleet's log ends:\n\(serviceTail())")
    }

    let loadBefore = loadAverage()
    var latencies: [Double] = []
    var responses: [Double] = []
    for _ in 0..<options.puts {
        usleep(UInt32.random(in: 2_000...20_000))
        let start = monotonicNanoseconds()
        let put = putNext(within: 30)
        responses.append(Double(monotonicNanoseconds() - start) / 1_000)
        guard let arrived = arrivals.time(ofFirstAtLeast: put, within: 30) else {
            fail("put \(put) never reached the store; preferences-fleet's log ends:\n\(serviceTail())")
        }
        latencies.append(Double(arrived - start) / 1_000)
    }
    let loadAfterPuts = loadAverage()

    var recoveries: [Double] = []
    for round in 0..<options.kills {
        let leader = waitForLeader(cluster, gateway)
        let killedAt = monotonicNanoseconds()
        cluster.kill(leader)
        // Short request timeouts: a put that hangs on a member still waiting for the dead
        // leader is abandoned for the next member (and may still be committed later: any
        // post-kill value counts).
        let firstAfter = putNext(within: 60, timeout: Double(options.retry) / 1_000)
        guard let arrived = arrivals.time(ofFirstAtLeast: firstAfter, within: 60) else {
            fail("after killing the leader (round \(round + 1)), no put reached the store; preferences-fleet's log ends:\n\(serviceTail())")
        }
        recoveries.append(Double(arrived - killedAt) / 1_000_000)
        cluster.start(leader, state: "existing")
        _ = waitForLeader(cluster, gateway)
        // A few untimed puts, so the next round starts from a service that follows again.
        for _ in 0..<3 {
            let put = putNext(within: 30)
            guard arrivals.time(ofFirstAtLeast: put, within: 30) != nil else { fail("the service did not follow again:\n\(serviceTail())") }
        }
    }
    let loadAfter = loadAverage()

    if let path = options.samplesPath {
        var lines: [String] = []
        lines += latencies.map { String(format: "put-callback-us %.1f", $0) }
        lines += responses.map { String(format: "put-response-us %.1f", $0) }
        lines += recoveries.map { String(format: "recovery-ms %.1f", $0) }
        do { try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8) } catch {
            fail("cannot write \(path): \(error)")
        }
    }

    let sortedLatencies = latencies.sorted().map { $0 / 1_000 }
    let sortedResponses = responses.sorted().map { $0 / 1_000 }
    func row(_ name: String, _ sorted: [Double], _ note: String) -> String {
        "| \(name) | \(format(percentile(sorted, 0.5))) | \(format(percentile(sorted, 0.9))) | \(format(percentile(sorted, 0.99))) | \(format(sorted.last ?? .nan)) | \(sorted.count) | \(note) |"
    }
    var lines = [
        "| preferences-fleet, ms | p50 | p90 | p99 | max | n | |",
        "|---|---:|---:|---:|---:|---:|---|",
        row(
            "etcd put → change callback in a program's store", sortedLatencies,
            "one put at a time through the JSON gateway, each awaited; the service in its own process writes the managed file, the store sees its forced layer change"),
        row("etcd put request → response (part of the above)", sortedResponses, "the gateway's round trip, commit included"),
    ]
    if !recoveries.isEmpty {
        let sorted = recoveries.sorted()
        let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        lines.append(
            "| leader SIGKILL → first callback of a post-kill put | \(format(median)) (median) | | | \(format(sorted.last!)) | \(sorted.count) | each: \(recoveries.map(format).joined(separator: ", ")) ms; a put unanswered after \(options.retry) ms is retried on the next surviving member |"
        )
    }
    lines.append(
        "| Chrome on Linux, for scale: policy file change → applied | 5000 (settle) | | | 900000 (poll) | | Chrome reads policy files with a 5-second settle after a change, and polls every 15 minutes |")
    let text = """
        #### preferences-fleet: etcd → managed layer → callback

        \(lines.joined(separator: "\n"))

        Load average (1, 5, 15 min): \(loadBefore) before the puts, \(loadAfterPuts) after them, \(loadAfter) after the leader losses. \
        \(etcdVersion), 3 members on loopback, heartbeat \(options.heartbeat) ms, election timeout \(options.election) ms; \
        `\(options.fleetBinary)`; gaps of 2 to 20 ms between puts.

        """
    print(text)

    Glibc.kill(service.processIdentifier, SIGTERM)
    service.waitUntilExit()
    Cleanup.processes.withLock { _ = $0.removeValue(forKey: service.processIdentifier) }
    for index in cluster.members.indices { cluster.kill(index) }
    Cleanup.run()
}

func runOutput(_ path: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

measure(Options(CommandLine.arguments))
