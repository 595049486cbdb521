package import Foundation
import Glibc
import TestSupport

/// A real etcd cluster of a few members on the loopback interface, for tests of code that
/// talks to etcd: started in a fresh temporary directory, stopped and removed by
/// ``shutdown()`` or when the value goes away.
///
/// Members bootstrap statically (`--initial-cluster`) on free ports, with elections ten times
/// faster than etcd's defaults so a test that kills the leader waits half a second, not five,
/// for the next. Each member's output goes to `member-N.log` in the temporary directory;
/// errors from startup quote its end.
///
/// `etcdctl` (API v3) does what tests set up or check: ``etcdctl(_:input:)`` runs it against
/// the live members with the cluster's TLS files and, once ``enableAuthentication(rootPassword:)``
/// ran, as root.
///
/// Safe to share between tasks (`@unchecked Sendable`): every mutable field (the member
/// processes, the root password, whether it was shut down) is read and written only with
/// `lock` held, and nothing blocks while holding it but signalling and reaping a member.
/// `etcdctl` runs outside the lock on a copy of what it needs.
package final class EtcdCluster: @unchecked Sendable {
    /// Why etcd tests cannot run here, naming the missing programs, or nil when they can;
    /// for `.enabled(if: EtcdCluster.unavailableReason == nil)`.
    package static var unavailableReason: String? {
        var missing: [String] = []
        if etcdPath == nil { missing.append("etcd") }
        if etcdctlPath == nil { missing.append("etcdctl") }
        if missing.isEmpty { return nil }
        return "needs \(missing.joined(separator: " and ")) (Debian's etcd-server and etcd-client packages) in /usr/bin or on PATH"
    }

    /// The members' client URLs, in member order: `http://127.0.0.1:PORT`, or `https://` with TLS.
    package var clientURLs: [String] { members.map(\.clientURL) }

    /// ``clientURLs`` joined by commas, as etcdctl's `--endpoints` and most clients take them.
    package var endpoints: String { clientURLs.joined(separator: ",") }

    /// The TLS files the members and ``etcdctl(_:input:)`` use, or nil for plain HTTP.
    package let tls: EtcdTLSFiles?

    /// The temporary directory holding the data directories and logs.
    package let directory: URL

    private struct Member {
        var name: String
        var clientURL: String
        var peerURL: String
        var dataDirectory: String
        var logFile: String
    }

    // Written only by `init` (a failed start tries fresh ports), before the value is shared.
    private var members: [Member] = []
    private var initialCluster = ""
    private let clusterToken: String
    private let extraArguments: [String]
    private let lock = NSLock()
    // Guarded by `lock`.
    private var processes: [Subprocess?] = []
    private var rootPassword: String?
    private var isShutDown = false

    /// Starts a cluster of `members` members and waits (up to 30 s) until every one answers
    /// and all agree on a leader.
    ///
    /// - Parameters:
    ///   - members: How many members; 1 is cheapest, 3 survives losing one.
    ///   - tls: Serve clients over HTTPS with these files and require a client certificate
    ///     signed by their CA (peers still talk plain HTTP).
    ///   - arguments: More `etcd` flags for every member (such as `--auth-token-ttl 2`).
    package init(members count: Int = 3, tls: EtcdTLSFiles? = nil, arguments: [String] = []) throws {
        precondition(count >= 1, "an etcd cluster needs a member")
        guard let etcd = Self.etcdPath, Self.etcdctlPath != nil else {
            throw EtcdClusterError(Self.unavailableReason ?? "etcd is missing")
        }
        let temporary = FileManager.default.temporaryDirectory
            .appendingPathComponent("swift-preferences-etcd-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        directory = temporary
        self.tls = tls
        extraArguments = arguments
        clusterToken = "test-\(UUID().uuidString)"
        // Another test process may take a port between our probe and etcd's bind; such a start
        // fails fast (the member exits), and a fresh set of ports is tried.
        var attempt = 0
        while true {
            attempt += 1
            let ports = try Self.freePorts(2 * count)
            let scheme = tls == nil ? "http" : "https"
            let built = (0..<count).map { index in
                Member(
                    name: "m\(index)",
                    clientURL: "\(scheme)://127.0.0.1:\(ports[2 * index])",
                    peerURL: "http://127.0.0.1:\(ports[2 * index + 1])",
                    dataDirectory: temporary.appendingPathComponent("m\(index).etcd").path,
                    logFile: temporary.appendingPathComponent("member-\(index).log").path
                )
            }
            let cluster = built.map { "\($0.name)=\($0.peerURL)" }.joined(separator: ",")
            var started: [Subprocess?] = []
            do {
                for member in built {
                    started.append(
                        try Self.launch(
                            etcd, member: member, initialCluster: cluster, token: clusterToken, state: "new", tls: tls,
                            extra: arguments))
                }
            } catch {
                for process in started { Self.stop(process, signal: SIGKILL) }
                try? FileManager.default.removeItem(at: temporary)
                throw error
            }
            // Stored before waiting so `leader()` sees the members; on a retry they are replaced.
            members = built
            initialCluster = cluster
            lock.withLock { processes = started }
            do {
                _ = try waitForLeader(within: .seconds(30))
                return
            } catch {
                let exited = started.contains { $0?.isRunning == false }
                for process in started { Self.stop(process, signal: SIGKILL) }
                let logs = built.map { "\($0.name): \(Self.tail(of: $0.logFile))" }.joined(separator: "\n")
                for member in built { try? FileManager.default.removeItem(atPath: member.dataDirectory) }
                if exited && attempt < 3 && logs.contains("address already in use") { continue }
                try? FileManager.default.removeItem(at: temporary)
                throw EtcdClusterError("etcd cluster did not start: \(error)\n\(logs)")
            }
        }
    }

    /// ``init(members:tls:arguments:)`` on a thread of its own: starting etcd blocks until
    /// the members agree on a leader, which should not hold one of the few threads of Swift's
    /// cooperative pool that every running test shares (`onThreadOfItsOwn`).
    package static func start(members count: Int = 3, tls: EtcdTLSFiles? = nil, arguments: [String] = []) async throws
        -> EtcdCluster
    {
        try await onThreadOfItsOwn { try EtcdCluster(members: count, tls: tls, arguments: arguments) }
    }

    deinit {
        shutdown()
    }

    /// ``shutdown()`` on a thread of its own, for the same reason as ``start(members:tls:arguments:)``:
    /// it waits for each member to exit.
    package func stop() async {
        // shutdown() throws nothing, so neither does this.
        _ = try? await onThreadOfItsOwn { self.shutdown() }
    }

    /// Stops every member (SIGTERM, then SIGKILL after 5 s) and removes the temporary directory.
    /// Calling it again does nothing.
    package func shutdown() {
        let running: [Subprocess?] = lock.withLock {
            if isShutDown { return [] }
            isShutDown = true
            defer { processes = processes.map { _ in nil } }
            return processes
        }
        for process in running { process?.signal(SIGTERM) }
        // Each is killed with SIGKILL if it has not exited 5 s after its wait began.
        for process in running { process?.wait(timeout: .seconds(5)) }
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: Members

    /// Whether member `member` (an index into ``clientURLs``) is running.
    package func isRunning(member: Int) -> Bool {
        lock.withLock { processes[member]?.isRunning ?? false }
    }

    /// Kills member `member` with SIGKILL, as a crash or power loss would, and waits until it
    /// has exited. Its data directory stays for ``restart(member:)``.
    package func kill(member: Int) {
        let process = lock.withLock {
            defer { processes[member] = nil }
            return processes[member]
        }
        Self.stop(process, signal: SIGKILL)
    }

    /// Starts member `member` again on its data directory, ports and flags (joining the
    /// existing cluster), and waits (up to 30 s) until it answers and agrees on the leader.
    package func restart(member: Int) throws {
        guard let etcd = Self.etcdPath else { throw EtcdClusterError("etcd is missing") }
        let old = lock.withLock {
            defer { processes[member] = nil }
            return processes[member]
        }
        Self.stop(old, signal: SIGKILL)
        let process = try Self.launch(
            etcd, member: members[member], initialCluster: initialCluster, token: clusterToken, state: "existing", tls: tls,
            extra: extraArguments)
        lock.withLock { processes[member] = process }
        do {
            _ = try waitForLeader(within: .seconds(30))
        } catch {
            throw EtcdClusterError("member \(member) did not come back: \(error)\n\(Self.tail(of: members[member].logFile))")
        }
    }

    /// The index of the current leader. Throws unless every running member answers
    /// `etcdctl endpoint status` and all name the same leader, which is one of them.
    package func leader() throws -> Int {
        let live = liveMembers()
        guard !live.isEmpty else { throw EtcdClusterError("no member is running") }
        let output = try etcdctl(["endpoint", "status", "-w", "json"], input: nil, members: live, commandTimeout: "5s")
        struct Entry: Decodable {
            struct Status: Decodable {
                struct Header: Decodable { var member_id: UInt64 }
                var header: Header
                var leader: UInt64?
            }
            var Endpoint: String
            var Status: Status
        }
        let entries = try JSONDecoder().decode([Entry].self, from: Data(output.utf8))
        let leaders = Set(entries.map { $0.Status.leader ?? 0 })
        guard entries.count == live.count, leaders.count == 1, let leaderID = leaders.first, leaderID != 0,
            let entry = entries.first(where: { $0.Status.header.member_id == leaderID }),
            let index = members.firstIndex(where: { $0.clientURL == entry.Endpoint })
        else { throw EtcdClusterError("the running members do not agree on a leader: \(output)") }
        return index
    }

    /// Waits until ``leader()`` answers, polling, and returns it; throws its last error when
    /// `within` has passed.
    package func waitForLeader(within timeout: Duration) throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                return try leader()
            } catch {
                if ContinuousClock.now >= deadline { throw error }
                // A member that exited will not come back by waiting.
                if let dead = lock.withLock({ processes.firstIndex { $0 != nil && $0?.isRunning == false } }) {
                    throw EtcdClusterError("member \(dead) exited: \(Self.tail(of: members[dead].logFile))")
                }
                usleep(150_000)
            }
        }
    }

    // MARK: etcdctl

    /// Runs `etcdctl` (API v3) with `arguments` against the running members, with the TLS
    /// files and, after ``enableAuthentication(rootPassword:)``, `--user root:PASSWORD`.
    ///
    /// - Parameter input: Standard input: `etcdctl put KEY` reads the value from it, which
    ///   keeps every byte (NUL and trailing newlines too).
    /// - Returns: Standard output.
    /// - Throws: ``EtcdClusterError`` with standard output and error when etcdctl fails.
    @discardableResult
    package func etcdctl(_ arguments: [String], input: Data? = nil) throws -> String {
        try etcdctl(arguments, input: input, members: nil)
    }

    /// ``etcdctl(_:input:)`` against `members` (indices), or the running ones when nil.
    /// etcdctl appends repeated `--endpoints` flags rather than taking the last, so the
    /// endpoints are chosen here, not overridden in the arguments.
    ///
    /// etcdctl sets a test up and checks it, so its command timeout only bounds a failure and
    /// is long (30 s): a `user add` hashes with bcrypt in etcd's apply loop, slow while every
    /// test starts its programs at once. ``leader()`` polls, and asks with 5 s so a member
    /// that is not up yet is asked again soon.
    private func etcdctl(_ arguments: [String], input: Data?, members chosen: [Int]?, commandTimeout: String = "30s") throws -> String {
        guard let etcdctl = Self.etcdctlPath else { throw EtcdClusterError("etcdctl is missing") }
        let live = chosen ?? liveMembers()
        let password = lock.withLock { rootPassword }
        var global = [
            "--endpoints", (live.isEmpty ? Array(members.indices) : live).map { members[$0].clientURL }.joined(separator: ","),
            "--dial-timeout", "2s", "--command-timeout", commandTimeout,
        ]
        if let tls {
            global += ["--cacert", tls.caFile, "--cert", tls.clientCertificateFile, "--key", tls.clientKeyFile]
        }
        if let password { global += ["--user", "root:\(password)"] }
        var environment = ProcessInfo.processInfo.environment
        environment["ETCDCTL_API"] = "3"
        // Standard output and error apart: etcdctl logs warnings to standard error beside its JSON.
        let result = try Subprocess.run(etcdctl, global + arguments, environment: environment, input: input.map { .data($0) } ?? .nullDevice)
        guard result.terminationStatus == 0 else {
            throw EtcdClusterError(
                "etcdctl \(arguments.joined(separator: " ")) exited with status \(result.terminationStatus): \(result.output)\(result.errorOutput)")
        }
        return result.output
    }

    /// Puts `value` under `key` (the value through standard input, so any bytes survive) and
    /// returns the revision of the put.
    @discardableResult
    package func put(_ key: String, _ value: Data) throws -> Int64 {
        // etcdctl reads the value from standard input only when there is some: an empty one
        // goes as an argument.
        if value.isEmpty { return try revision(of: etcdctl(["put", "-w", "json", "--", key, ""])) }
        return try revision(of: etcdctl(["put", "-w", "json", "--", key], input: value))
    }

    /// Deletes `key` and returns the cluster's revision afterwards (the delete's own revision
    /// when the key existed).
    @discardableResult
    package func delete(_ key: String) throws -> Int64 {
        try revision(of: etcdctl(["del", "-w", "json", "--", key]))
    }

    /// The cluster's current revision.
    package func currentRevision() throws -> Int64 {
        // A linearizable read of a key no test uses: its header carries the revision.
        try revision(of: etcdctl(["get", "-w", "json", "--", "swift-preferences-tests/revision-probe"]))
    }

    /// Compacts the history up to `revision` and waits until the old revisions are gone, so
    /// a watch from before it is refused at once.
    package func compact(_ revision: Int64) throws {
        try etcdctl(["compaction", "--physical", String(revision)])
    }

    /// Turns on etcd authentication: adds `root` with `rootPassword` and the root role, then
    /// enables it. Later ``etcdctl(_:input:)`` calls run as root.
    package func enableAuthentication(rootPassword password: String) throws {
        try etcdctl(["user", "add", "root", "--new-user-password", password])
        try etcdctl(["user", "grant-role", "root", "root"])
        try etcdctl(["auth", "enable"])
        lock.withLock { rootPassword = password }
    }

    /// Adds user `name` with `password`; with `readPrefix`, a role `name-reader` that may read
    /// (range and watch) every key with that prefix, granted to the user.
    package func addUser(_ name: String, password: String, readPrefix: String? = nil) throws {
        try etcdctl(["user", "add", name, "--new-user-password", password])
        if let readPrefix {
            try etcdctl(["role", "add", "\(name)-reader"])
            try etcdctl(["role", "grant-permission", "\(name)-reader", "--prefix=true", "read", "--", readPrefix])
            try etcdctl(["user", "grant-role", name, "\(name)-reader"])
        }
    }

    /// Makes etcd forget every authentication token it gave out (`auth disable`, then
    /// `auth enable`), as a token expiring would: a client must authenticate again.
    package func invalidateAuthenticationTokens() throws {
        try etcdctl(["auth", "disable"])
        try etcdctl(["auth", "enable"])
    }

    // MARK: Internals

    private func liveMembers() -> [Int] {
        lock.withLock { processes.indices.filter { processes[$0]?.isRunning == true } }
    }

    private func revision(of output: String) throws -> Int64 {
        struct Response: Decodable {
            struct Header: Decodable { var revision: Int64 }
            var header: Header
        }
        do {
            return try JSONDecoder().decode(Response.self, from: Data(output.utf8)).header.revision
        } catch {
            throw EtcdClusterError("no revision in etcdctl's output \(output): \(error)")
        }
    }

    static let etcdPath = program("etcd")
    static let etcdctlPath = program("etcdctl")

    private static func program(_ name: String) -> String? {
        let standard = "/usr/bin/\(name)"
        if FileManager.default.isExecutableFile(atPath: standard) { return standard }
        return installedProgram(name)
    }

    private static func launch(
        _ etcd: String, member: Member, initialCluster: String, token: String, state: String, tls: EtcdTLSFiles?,
        extra: [String]
    ) throws -> Subprocess {
        var arguments = [
            "--name", member.name, "--data-dir", member.dataDirectory,
            "--listen-client-urls", member.clientURL, "--advertise-client-urls", member.clientURL,
            "--listen-peer-urls", member.peerURL, "--initial-advertise-peer-urls", member.peerURL,
            "--initial-cluster", initialCluster, "--initial-cluster-token", token, "--initial-cluster-state", state,
            "--heartbeat-interval", "50", "--election-timeout", "500",
            "--logger", "zap", "--log-outputs", "stderr",
        ]
        if let tls {
            arguments += [
                "--client-cert-auth", "--trusted-ca-file", tls.caFile,
                "--cert-file", tls.serverCertificateFile, "--key-file", tls.serverKeyFile,
            ]
        }
        arguments += extra
        // Appended to, so a restarted member's log follows its first life's.
        if !FileManager.default.fileExists(atPath: member.logFile) {
            _ = FileManager.default.createFile(atPath: member.logFile, contents: nil)
        }
        guard let log = FileHandle(forWritingAtPath: member.logFile) else {
            throw EtcdClusterError("cannot open \(member.logFile)")
        }
        defer { try? log.close() }
        log.seekToEndOfFile()
        return try Subprocess(etcd, arguments, output: .handle(log), errors: .mergedWithOutput)
    }

    private static func stop(_ process: Subprocess?, signal: Int32) {
        process?.signal(signal)
        process?.wait()
    }

    private static func tail(of file: String) -> String {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return "(no log)" }
        return text.split(separator: "\n").suffix(8).joined(separator: "\n")
    }

    /// `count` distinct ports the kernel picked as free on 127.0.0.1: all sockets stay bound
    /// until the last is chosen, so none repeats.
    private static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw EtcdClusterError("socket: errno \(errno)") }
            sockets.append(descriptor)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
                }
            }
            guard bound else { throw EtcdClusterError("bind: errno \(errno)") }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }
}

/// A failure of ``EtcdCluster``: etcd did not start, or etcdctl failed; the message says which
/// and quotes its output.
package struct EtcdClusterError: Error, CustomStringConvertible {
    /// What failed.
    package var description: String

    init(_ description: String) { self.description = description }
}

/// The certificates and keys of a TLS-secured test cluster: a CA, a server certificate for
/// 127.0.0.1 and localhost, and a client certificate, all PEM files signed by the CA.
package struct EtcdTLSFiles: Sendable {
    /// The CA certificate both sides trust.
    package var caFile: String
    /// The members' certificate (subjectAltName IP:127.0.0.1, DNS:localhost; server and client
    /// use, since etcd's gateway dials its own gRPC port with it).
    package var serverCertificateFile: String
    /// The members' private key.
    package var serverKeyFile: String
    /// A client certificate (CN `client`) that the members accept.
    package var clientCertificateFile: String
    /// The client certificate's private key.
    package var clientKeyFile: String

    /// Creates the files with the `openssl` command: EC P-256 keys, valid for three days.
    ///
    /// - Parameter directory: An existing directory; the files are `ca.pem`, `server.pem`,
    ///   `server-key.pem`, `client.pem`, `client-key.pem` (and the CA's key).
    package static func generate(in directory: String) throws -> EtcdTLSFiles {
        let standard = FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") ? "/usr/bin/openssl" : nil
        guard let openssl = standard ?? installedProgram("openssl") else { throw EtcdClusterError("needs the openssl command (Debian's openssl package)") }
        func run(_ arguments: [String]) throws {
            let result = try Subprocess.run(openssl, arguments, currentDirectory: directory)
            guard result.terminationStatus == 0 else {
                throw EtcdClusterError("openssl \(arguments.joined(separator: " ")) failed: \(result.output)\(result.errorOutput)")
            }
        }
        func key(_ name: String) throws {
            try run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", name])
        }
        func sign(_ name: String, subject: String, extensions: String) throws {
            try key("\(name)-key.pem")
            try run(["req", "-new", "-key", "\(name)-key.pem", "-subj", subject, "-out", "\(name).csr"])
            try extensions.write(toFile: "\(directory)/\(name).ext", atomically: true, encoding: .utf8)
            try run([
                "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem",
                "-set_serial", String(UInt32.random(in: 1...UInt32.max)), "-days", "3", "-sha256",
                "-extfile", "\(name).ext", "-out", "\(name).pem",
            ])
        }
        try key("ca-key.pem")
        try run([
            "req", "-x509", "-new", "-key", "ca-key.pem", "-subj", "/CN=swift-preferences test CA", "-days", "3", "-sha256",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            "-out", "ca.pem",
        ])
        try sign(
            "server", subject: "/CN=localhost",
            extensions: """
                subjectAltName=IP:127.0.0.1,DNS:localhost
                keyUsage=critical,digitalSignature,keyEncipherment
                extendedKeyUsage=serverAuth,clientAuth
                """)
        try sign(
            "client", subject: "/CN=client",
            extensions: """
                keyUsage=critical,digitalSignature,keyEncipherment
                extendedKeyUsage=clientAuth
                """)
        return EtcdTLSFiles(
            caFile: "\(directory)/ca.pem", serverCertificateFile: "\(directory)/server.pem",
            serverKeyFile: "\(directory)/server-key.pem", clientCertificateFile: "\(directory)/client.pem",
            clientKeyFile: "\(directory)/client-key.pem")
    }
}
