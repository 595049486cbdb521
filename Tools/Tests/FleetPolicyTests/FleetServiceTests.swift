import Foundation
import Glibc
import Preferences
import PropertyList
import EtcdTestSupport
import TestSupport
import Testing

/// `preferences-fleet` end to end (issue 21): the real binary following a real etcd cluster
/// on loopback and writing a private system directory's managed layer, watched by another
/// process, through a leader's loss, members' restarts, a compaction, etcd going away, the
/// service's own restart, bad values, TLS and etcd authentication.
///
/// Every wait is a bounded wait for something to happen (liveness), never a timing threshold:
/// what is checked is what arrived, in which order, and what the service logged.
// Skipped where etcd or etcdctl is missing (Debian's etcd-server and etcd-client packages).
// The service logs to standard error (--log-to-standard-error), where journald listens too.
// Serialized: each test starts its own cluster, service and watcher, and several at once on a
// small, shared machine would make the elections and bounded waits compete for two cores.
@Suite(
    "preferences-fleet against a real etcd cluster", .ownThread, .serialized,
    .enabled(if: EtcdCluster.unavailableReason == nil))
struct FleetServiceTests {
    // MARK: a. Every put arrives, in order

    @Test("every put reaches a watching process in order, through a leader's loss and members' restarts")
    func everyPutArrivesInOrder() async throws {
        let cluster = try EtcdCluster(members: 3)
        defer { cluster.shutdown() }
        let home = try PrivatePreferencesHome()
        let domain = "com.example.fleet", key = "/preferences/fleet/com.example.fleet"
        let service = try FleetServiceRun(home: home, endpoints: cluster.endpoints)
        defer { service.end() }
        try await service.waitForSynchronization()
        // Started before the managed file exists: its first change is the file's creation.
        let watcher = try KeyWatcher(home: home, domain: domain, key: "n")
        defer { watcher.stop() }
        try #require(await eventually(within: .seconds(30)) { watcher.isReady }, "the watcher did not start: \(watcher.lines)")

        let count = 200
        var revisions: [Int64] = []
        var killedLeader: Int?
        for n in 1...count {
            if n == count / 3 {
                // Killed between two puts; the next ones go through the surviving members
                // (`put` retries while they elect a new leader).
                let leader = try cluster.leader()
                cluster.kill(member: leader)
                killedLeader = leader
            }
            if n == 2 * count / 3, let killed = killedLeader {
                try cluster.restart(member: killed)
            }
            // Then the other two, so that every member the service may be following is
            // lost once, whichever it is.
            if let killed = killedLeader, n == 5 * count / 6 || n == 11 * count / 12 {
                try cluster.restart(member: (killed + (n == 5 * count / 6 ? 1 : 2)) % 3)
            }
            revisions.append(try await put(cluster, key, counter(n)))
        }
        #expect(zip(revisions, revisions.dropFirst()).allSatisfy { $0 < $1 }, "etcd's revisions: \(revisions)")

        let arrived = await eventually(within: .seconds(60)) { watcher.values.last == count }
        let values = watcher.values
        #expect(arrived, "the watcher's last value is \(values.last.map(String.init) ?? "none"), not \(count)")
        #expect(!values.isEmpty && values.allSatisfy { (1...count).contains($0) }, "\(watcher.lines)")
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 }, "the watcher saw values out of order: \(values)")

        // Every put's revision applied exactly once, all in increasing order. The service logs
        // a revision after it has written it, so the watcher may see the last value before the
        // test has read that log line from the service's pipe: wait for the line.
        try await service.waitForApplied(try #require(revisions.last))
        let applied = service.applied.map(\.revision)
        #expect(zip(applied, applied.dropFirst()).allSatisfy { $0 < $1 }, "applied out of order or twice: \(applied)")
        let appliedCounts = Dictionary(applied.map { ($0, 1) }, uniquingKeysWith: +)
        let missing = revisions.filter { appliedCounts[$0] != 1 }
        #expect(missing.isEmpty, "revisions not applied exactly once: \(missing)\n\(service.log.suffix(4000))")
        #expect(service.applied.filter { revisions.contains($0.revision) }.allSatisfy { $0.domains == domain })
        #expect(managedValues(home, domain) == ["n": .integer(PropertyListInteger(count))])
        #expect(service.isRunning)
        // The premise: every member was lost once, so the stream the service followed dropped
        // and it followed again from the revision after its last (the order checks above are
        // about that resumption, not only about a quiet stream).
        #expect(service.log.contains("fleet policy: the source is unavailable"), "\(service.log.suffix(3000))")
    }

    // MARK: b. Precedence and deletion

    @Test("per key the host beats the group, which beats the fleet; other groups and hosts are ignored; deletes fall back")
    func precedenceAndDeletion() async throws {
        let cluster = try EtcdCluster(members: 1)
        defer { cluster.shutdown() }
        let home = try PrivatePreferencesHome()
        let service = try FleetServiceRun(home: home, endpoints: cluster.endpoints)
        defer { service.end() }
        try await service.waitForSynchronization()
        let domain = "com.example.precedence"
        func etcdKey(_ scope: String) -> String { "/preferences/\(scope)/\(domain)" }
        let files = PreferenceFiles(configuration: PreferenceStore.Configuration(environment: home.environment))
        /// Checks that each key's origin names the etcd key and revision it won from.
        func expectOrigins(_ expected: [String: (scope: String, revision: Int64)], sourceLocation: SourceLocation = #_sourceLocation) {
            guard let origin = files.managedOrigin(ofDomain: domain) else {
                Issue.record("the managed file records no origin", sourceLocation: sourceLocation)
                return
            }
            for (key, winner) in expected {
                let text = origin.origin(ofKey: key)
                #expect(text.hasSuffix("\(etcdKey(winner.scope)) at revision \(winner.revision)"), "\(key): \(text)", sourceLocation: sourceLocation)
            }
        }

        let fleet = try cluster.put(etcdKey("fleet"), strings(["A": "fleet", "B": "fleet", "C": "fleet"]))
        let lab = try cluster.put(etcdKey("groups/lab"), strings(["A": "lab", "B": "lab"]))
        let office = try cluster.put(etcdKey("groups/office"), strings(["A": "office", "D": "office"]))
        let host = try cluster.put(etcdKey("hosts/test-host"), strings(["A": "host"]))
        let otherHost = try cluster.put(etcdKey("hosts/other-host"), strings(["A": "other", "E": "other"]))
        try await service.waitForApplied(otherHost)
        #expect(managedValues(home, domain) == ["A": "host", "B": "lab", "C": "fleet"])
        expectOrigins(["A": ("hosts/test-host", host), "B": ("groups/lab", lab), "C": ("fleet", fleet)])
        // Another group's and another host's puts touch no domain here.
        #expect(service.domains(appliedAt: office) == "no domain")
        #expect(service.domains(appliedAt: otherHost) == "no domain")
        #expect(service.domains(appliedAt: host) == domain)

        // Deleting the host's key uncovers the group's value, then the group's the fleet's.
        let hostDeleted = try cluster.delete(etcdKey("hosts/test-host"))
        try await service.waitForApplied(hostDeleted)
        #expect(managedValues(home, domain) == ["A": "lab", "B": "lab", "C": "fleet"])
        expectOrigins(["A": ("groups/lab", lab), "B": ("groups/lab", lab), "C": ("fleet", fleet)])
        let labDeleted = try cluster.delete(etcdKey("groups/lab"))
        try await service.waitForApplied(labDeleted)
        #expect(managedValues(home, domain) == ["A": "fleet", "B": "fleet", "C": "fleet"])
        expectOrigins(["A": ("fleet", fleet), "B": ("fleet", fleet), "C": ("fleet", fleet)])

        // Deleting keys that never applied changes nothing here.
        let officeDeleted = try cluster.delete(etcdKey("groups/office"))
        try await service.waitForApplied(officeDeleted)
        #expect(service.domains(appliedAt: officeDeleted) == "no domain")
        #expect(managedValues(home, domain) == ["A": "fleet", "B": "fleet", "C": "fleet"])

        // The last applicable key gone, the managed file goes, though another host's key remains.
        let fleetDeleted = try cluster.delete(etcdKey("fleet"))
        try await service.waitForApplied(fleetDeleted)
        #expect(!FileManager.default.fileExists(atPath: managedPath(home, domain)))
        #expect(files.managedDomainNames().isEmpty)
        #expect(service.isRunning)
    }

    // MARK: c. Bad input

    @Test("a value that is not a property-list dictionary, too large, or under a bad domain is refused; the previous policy is kept")
    func badInputIsRefused() async throws {
        let cluster = try EtcdCluster(members: 1)
        defer { cluster.shutdown() }
        let home = try PrivatePreferencesHome()
        let service = try FleetServiceRun(home: home, endpoints: cluster.endpoints)
        defer { service.end() }
        try await service.waitForSynchronization()
        let domain = "com.example.bad", key = "/preferences/fleet/com.example.bad"
        try await service.waitForApplied(try cluster.put(key, strings(["Mode": "good"])))
        #expect(managedValues(home, domain) == ["Mode": "good"])

        // A value just over the 1 MiB limit, otherwise a valid dictionary.
        let large = plist("<key>Mode</key><string>\(String(repeating: "x", count: (1 << 20) + 16))</string>")
        let refusals: [(key: String, value: Data, reason: String)] = [
            (key, Data("Mode=bad".utf8), "not an XML or binary property list"),
            (key, Data("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>Mode".utf8), "not a valid property list"),
            (key, Data("<?xml version=\"1.0\"?><plist version=\"1.0\"><array><string>bad</string></array></plist>".utf8), "not a dictionary"),
            (key, large, "over the"),
            ("/preferences/fleet/..bad", strings(["Mode": "bad"]), ""),
            ("/preferences/fleet/bad domain", strings(["Mode": "bad"]), ""),
            ("/preferences/fleet/../../escaped", strings(["Mode": "bad"]), ""),
            ("/preferences/hosts/test-host/com.example.bad/extra", strings(["Mode": "bad"]), ""),
        ]
        for refusal in refusals {
            let revision = try cluster.put(refusal.key, refusal.value)
            let line = try await service.waitForLine(containing: "fleet policy: refused \(refusal.key) at revision \(revision): ")
            #expect(refusal.reason.isEmpty || line.contains(refusal.reason), "\(line)")
            #expect(line.hasSuffix("; the previous policy is kept"), "\(line)")
            #expect(managedValues(home, domain) == ["Mode": "good"], "after \(refusal.key) at revision \(revision)")
        }
        // Still following: a good value after them all arrives.
        try await service.waitForApplied(try cluster.put(key, strings(["Mode": "better"])))
        #expect(managedValues(home, domain) == ["Mode": "better"])

        // Nothing written anywhere but the managed directory, and there only this domain's file
        // (and the library's bookkeeping: the file's lock and history, named after it, and the
        // directory's staging folder).
        let written = try FileManager.default.subpathsOfDirectory(atPath: home.systemDirectory).sorted()
        #expect(written.allSatisfy { $0 == "managed" || $0.hasPrefix("managed/") }, "\(written)")
        let managed = try FileManager.default.contentsOfDirectory(atPath: home.systemDirectory + "/managed")
        #expect(managed.allSatisfy { $0.contains("com.example.bad.plist") || $0 == ".swift-preferences-staging" }, "\(managed)")
        #expect(!written.contains { $0.contains("escaped") || $0.contains(" ") || $0.contains("..bad") }, "\(written)")
        #expect(service.isRunning)
    }

    // MARK: d. Compaction, etcd away, the service's restart

    @Test("after a compaction, the whole prefix is read again, stopped or running")
    func compaction() async throws {
        let cluster = try EtcdCluster(members: 1)
        defer { cluster.shutdown() }
        let home = try PrivatePreferencesHome()
        let domain = "com.example.compact", key = "/preferences/fleet/com.example.compact"
        let other = "com.example.compact.other", gone = "com.example.compact.gone"
        let first = try FleetServiceRun(home: home, endpoints: cluster.endpoints)
        defer { first.end() }
        try await first.waitForSynchronization()
        try cluster.put(key, counter(1))
        try await first.waitForApplied(try cluster.put("/preferences/fleet/\(gone)", counter(1)))
        #expect(managedValues(home, gone) == ["n": 1])
        first.stop()

        // While it is stopped: puts, a new domain, a domain's last key deleted, then a
        // compaction past them all.
        for n in 2...4 { try cluster.put(key, counter(n)) }
        try cluster.put("/preferences/fleet/\(other)", counter(7))
        try cluster.delete("/preferences/fleet/\(gone)")
        let compacted = try cluster.currentRevision()
        try cluster.compact(compacted)

        let second = try FleetServiceRun(home: home, endpoints: cluster.endpoints)
        defer { second.end() }
        try await second.waitForSynchronization()
        // At or after it: the services' own status writes (issue 40) move etcd's revision too.
        try await second.waitForSynchronization(atLeast: compacted)
        #expect(managedValues(home, domain) == ["n": 4])
        #expect(managedValues(home, other) == ["n": 7])
        #expect(!FileManager.default.fileExists(atPath: managedPath(home, gone)), "the deleted domain's file is removed")

        // Running, but cut off (stopped, its connection lost with a member's restart) while
        // puts and a compaction pass: its watch from the next revision is refused as
        // compacted, and it reads the whole prefix again.
        second.signal(SIGSTOP)
        var continued = false
        defer { if !continued { second.signal(SIGCONT) } }
        cluster.kill(member: 0)
        try cluster.restart(member: 0)
        try cluster.put(key, counter(5))
        try cluster.put(key, counter(6))
        try cluster.delete("/preferences/fleet/\(other)")
        let compactedAgain = try cluster.currentRevision()
        try cluster.compact(compactedAgain)
        second.signal(SIGCONT)
        continued = true
        let resynchronized = try await second.waitForLine(containing: "reading the whole prefix again")
        #expect(resynchronized.contains("compact"), "\(resynchronized)")
        try await second.waitForSynchronization(atLeast: compactedAgain)
        #expect(managedValues(home, domain) == ["n": 6])
        #expect(!FileManager.default.fileExists(atPath: managedPath(home, other)), "deleted before the compaction")
        // Nothing from before the compaction applied one by one after it.
        #expect(second.applied.allSatisfy { $0.revision > compactedAgain }, "\(second.applied)")

        // And it follows on from there.
        let after = try cluster.put(key, counter(8))
        try await second.waitForApplied(after)
        #expect(managedValues(home, domain) == ["n": 8])
    }

    @Test("while etcd is away the managed file is kept; a restarted service resumes without applying anything twice")
    func etcdAwayAndRestart() async throws {
        let cluster = try EtcdCluster(members: 1)
        defer { cluster.shutdown() }
        let home = try PrivatePreferencesHome()
        let domain = "com.example.resume", key = "/preferences/fleet/com.example.resume"
        let first = try FleetServiceRun(home: home, endpoints: cluster.endpoints)
        defer { first.end() }
        try await first.waitForSynchronization()
        try cluster.put(key, counter(1))
        let lastOfFirst = try cluster.put(key, counter(2))
        try await first.waitForApplied(lastOfFirst)
        // systemd stops it with SIGTERM (and SIGKILLs it 15 s later): it exits, and cleanly.
        let status = first.stop()
        #expect(status == 0, "SIGTERM did not stop it cleanly (\(status)): \(first.log.suffix(2000))")

        let whileStopped = try cluster.put(key, counter(3))
        let second = try FleetServiceRun(home: home, endpoints: cluster.endpoints)
        defer { second.end() }
        try await second.waitForSynchronization()
        // Its whole read catches up; nothing at or below the first run's last revision (or the
        // read's) is applied again one by one.
        try await second.waitForSynchronization(atLeast: whileStopped)
        #expect(managedValues(home, domain) == ["n": 3])
        let next = try cluster.put(key, counter(4))
        try await second.waitForApplied(next)
        #expect(second.applied.map(\.revision) == [next], "\(second.applied)")

        // Every member gone: the file is kept as it is, the loss logged.
        let path = managedPath(home, domain)
        let before = try fileIdentity(path)
        cluster.kill(member: 0)
        try await second.waitForLine(containing: "fleet policy: the source is unavailable")
        #expect(second.isRunning)
        #expect(managedValues(home, domain) == ["n": 4])
        #expect(try fileIdentity(path) == before, "the managed file was rewritten while etcd was away")

        // Back: a new put arrives, and nothing before it is applied twice.
        try cluster.restart(member: 0)
        let afterReturn = try await put(cluster, key, counter(5))
        try await second.waitForApplied(afterReturn)
        #expect(managedValues(home, domain) == ["n": 5])
        let applied = second.applied.map(\.revision)
        #expect(applied == [next, afterReturn], "\(applied)")
        #expect(applied.allSatisfy { $0 > lastOfFirst })
    }

    // MARK: e. TLS and authentication

    @Test("over TLS with a client certificate, and with etcd authentication from a password file")
    func tlsAndAuthentication() async throws {
        let certificates = try TemporaryDirectory()
        let tls = try EtcdTLSFiles.generate(in: certificates.url.path)
        let cluster = try EtcdCluster(members: 1, tls: tls)
        defer { cluster.shutdown() }
        #expect(cluster.endpoints.hasPrefix("https://"))
        let tlsArguments = ["--cacert", tls.caFile, "--cert", tls.clientCertificateFile, "--key", tls.clientKeyFile]
        let domain = "com.example.secure", key = "/preferences/hosts/test-host/com.example.secure"

        let home = try PrivatePreferencesHome()
        let service = try FleetServiceRun(home: home, endpoints: cluster.endpoints, arguments: tlsArguments)
        defer { service.end() }
        try await service.waitForSynchronization()
        try await service.waitForApplied(try cluster.put(key, strings(["Transport": "tls"])))
        #expect(managedValues(home, domain) == ["Transport": "tls"])

        // With authentication on, etcd's JSON gateway refuses every request made with a client
        // certificate that has a common name (HTTP 400 "CommonName of client sending a request
        // against gateway will be ignored and not used as expected", etcd 3.4), so the service
        // authenticates by password with a certificate that has none, signed by the same CA.
        try cluster.enableAuthentication(rootPassword: "fleet-secret")
        let client = try clientCertificateWithoutCommonName(signedBy: tls, in: certificates.url.path)
        let authArguments = ["--cacert", tls.caFile, "--cert", client.certificate, "--key", client.key]
        let authenticated = try PrivatePreferencesHome()
        let passwordFile = authenticated.directory.file("password").path
        // The trailing newline an editor leaves is not part of the password.
        try "fleet-secret\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let withPassword = try FleetServiceRun(
            home: authenticated, endpoints: cluster.endpoints,
            arguments: authArguments + ["--user", "root", "--password-file", passwordFile])
        defer { withPassword.end() }
        try await withPassword.waitForSynchronization()
        #expect(managedValues(authenticated, domain) == ["Transport": "tls"], "the whole read, as root")
        try await withPassword.waitForApplied(try cluster.put(key, strings(["Transport": "tls+password"])))
        #expect(managedValues(authenticated, domain) == ["Transport": "tls+password"])

        // A wrong password reads nothing and writes nothing.
        let refused = try PrivatePreferencesHome()
        let wrongFile = refused.directory.file("password").path
        try "not-the-password".write(toFile: wrongFile, atomically: true, encoding: .utf8)
        let withWrongPassword = try FleetServiceRun(
            home: refused, endpoints: cluster.endpoints,
            arguments: authArguments + ["--user", "root", "--password-file", wrongFile])
        defer { withWrongPassword.end() }
        try await withWrongPassword.waitForLine(containing: "fleet policy: the source is unavailable")
        #expect(!withWrongPassword.log.contains("fleet policy: read "))
        #expect(managedValues(refused, domain) == nil)
    }
}

// MARK: - Helpers

/// An XML property list of a dictionary whose body is `body`.
private func plist(_ body: String) -> Data {
    Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>\(body)</dict></plist>
        """.utf8)
}

/// `{"n": n}` as an XML property list.
private func counter(_ n: Int) -> Data {
    plist("<key>n</key><integer>\(n)</integer>")
}

/// A dictionary of strings as an XML property list.
private func strings(_ values: [String: String]) -> Data {
    plist(values.sorted { $0.key < $1.key }.map { "<key>\($0.key)</key><string>\($0.value)</string>" }.joined())
}

private func managedPath(_ home: PrivatePreferencesHome, _ domain: String) -> String {
    home.systemDirectory + "/managed/\(domain).plist"
}

/// The managed file's values, nil when there is none (or it is not a dictionary).
private func managedValues(_ home: PrivatePreferencesHome, _ domain: String) -> [String: PropertyListValue]? {
    guard let data = FileManager.default.contents(atPath: managedPath(home, domain)) else { return nil }
    return (try? PropertyListValue(decodingAnyFormat: data))?.dictionaryValue
}

/// A client certificate and key with no common name (subject `O=swift-preferences fleet`),
/// signed by the CA of `tls` (whose key `EtcdTLSFiles.generate` leaves as `ca-key.pem`).
private func clientCertificateWithoutCommonName(signedBy tls: EtcdTLSFiles, in directory: String) throws -> (certificate: String, key: String) {
    let key = "\(directory)/fleet-key.pem", request = "\(directory)/fleet.csr", certificate = "\(directory)/fleet.pem"
    let extensions = "\(directory)/fleet.ext"
    try "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n"
        .write(toFile: extensions, atomically: true, encoding: .utf8)
    for arguments in [
        ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
        ["req", "-new", "-key", key, "-subj", "/O=swift-preferences fleet", "-out", request],
        [
            "x509", "-req", "-in", request, "-CA", tls.caFile, "-CAkey", "\(directory)/ca-key.pem", "-set_serial", "4242",
            "-days", "3", "-sha256", "-extfile", extensions, "-out", certificate,
        ],
    ] {
        let result = try run("openssl", arguments)
        guard result.status == 0 else { throw FleetServiceTestError("openssl \(arguments[0]) failed: \(result.output)") }
    }
    return (certificate, key)
}

/// A file's inode and modification time: what a rewrite would change.
private func fileIdentity(_ path: String) throws -> [String] {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return ["\(attributes[.systemFileNumber] ?? "")", "\((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"]
}

/// Polls `condition` until it holds or `limit` has passed: a bound for liveness, not a
/// timing expectation.
private func eventually(within limit: Duration = .seconds(30), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while try !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return true
}

/// Puts through the running members, retrying while they elect a leader (a killed leader's
/// puts fail until then). A put etcdctl gave up on may still have been committed: the key's
/// value is checked before trying again, so a value is not put twice.
private func put(_ cluster: EtcdCluster, _ key: String, _ value: Data) async throws -> Int64 {
    let deadline = ContinuousClock.now + .seconds(30)
    while true {
        do {
            return try cluster.put(key, value)
        } catch {
            if let current = try? currentValue(cluster, key), current.value == value { return current.modRevision }
            if ContinuousClock.now >= deadline { throw error }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

/// The value and mod revision of `key`, nil if it has none.
private func currentValue(_ cluster: EtcdCluster, _ key: String) throws -> (value: Data, modRevision: Int64)? {
    struct Response: Decodable {
        struct KeyValue: Decodable {
            var value: String?
            var mod_revision: Int64
        }
        var kvs: [KeyValue]?
    }
    let output = try cluster.etcdctl(["get", "-w", "json", "--", key])
    guard let first = try JSONDecoder().decode(Response.self, from: Data(output.utf8)).kvs?.first else { return nil }
    return (Data(base64Encoded: first.value ?? "") ?? Data(), first.mod_revision)
}

/// A `preferences-fleet` process with the private home's environment, `--prefix /preferences/
/// --group lab --hostname test-host`, its log (standard output and error) collected.
private final class FleetServiceRun {
    let process: Subprocess

    init(home: PrivatePreferencesHome, endpoints: String, arguments: [String] = []) throws {
        process = try Subprocess(
            builtProductsDirectory.appendingPathComponent("preferences-fleet").path,
            ["--endpoints", endpoints, "--prefix", "/preferences/", "--group", "lab", "--hostname", "test-host", "--log-to-standard-error"]
                + arguments,
            environment: home.processEnvironment, errors: .mergedWithOutput)
    }

    var isRunning: Bool { process.isRunning }

    /// Sends it `signal` (unless it has exited).
    func signal(_ signal: Int32) { process.signal(signal) }

    /// Everything it logged so far.
    var log: String { process.output }

    /// Its "applied revision R to DOMAINS" lines, in order.
    var applied: [(revision: Int64, domains: String)] {
        process.lines.compactMap { line in
            guard let marker = line.range(of: "fleet policy: applied revision ") else { return nil }
            let rest = line[marker.upperBound...]
            guard let to = rest.range(of: " to "), let revision = Int64(rest[..<to.lowerBound]) else { return nil }
            return (revision, String(rest[to.upperBound...]))
        }
    }

    /// The domains it named when applying `revision`, nil if it did not.
    func domains(appliedAt revision: Int64) -> String? {
        applied.first { $0.revision == revision }?.domains
    }

    /// Waits for its first log line containing `text` and returns it; throws if it exits
    /// first or none comes within `limit`.
    @discardableResult
    func waitForLine(containing text: String, within limit: Duration = .seconds(30)) async throws -> String {
        guard let found = await process.waitForLine(within: limit, where: { $0.contains(text) }) else {
            throw FleetServiceTestError(
                "preferences-fleet \(process.isRunning ? "logged nothing" : "exited") with \"\(text)\"; its log:\n\(log.suffix(4000))")
        }
        return found.text
    }

    /// Waits until its first whole read of the prefix is applied.
    func waitForSynchronization() async throws {
        try await waitForLine(containing: "fleet policy: read ")
    }

    /// Waits until it applied a whole read at `revision` or later. Not at exactly a revision
    /// the test read: the service's own status writes (and another's lease expiring) move
    /// etcd's revision between the test's read and the service's.
    func waitForSynchronization(atLeast revision: Int64) async throws {
        let found = await process.waitForLine(within: .seconds(30)) { line in
            guard let marker = line.range(of: "fleet policy: read "), let at = line.range(of: " at revision ", range: marker.upperBound..<line.endIndex),
                let end = line[at.upperBound...].firstIndex(of: ";"), let read = Int64(line[at.upperBound..<end])
            else { return false }
            return read >= revision
        }
        guard found != nil else {
            throw FleetServiceTestError("preferences-fleet applied no whole read at revision \(revision) or later; its log:\n\(log.suffix(4000))")
        }
    }

    /// Waits until it logged applying `revision` (the managed files are written before).
    func waitForApplied(_ revision: Int64) async throws {
        try await waitForLine(containing: "fleet policy: applied revision \(revision) to ")
    }

    /// Stops it with SIGTERM, as systemd does, and returns its exit status: SIGKILL (status 9)
    /// if it has not exited after 10 s. Does nothing more if it already exited.
    @discardableResult
    func stop() -> Int32 {
        process.signal(SIGCONT)
        process.signal(SIGTERM)
        return process.wait(timeout: .seconds(10))
    }

    /// Ends it at once with SIGKILL, for clean-up (how it stops is checked where it matters).
    func end() {
        process.signal(SIGKILL)
        process.wait()
    }
}

/// `defaults watch DOMAIN KEY` with the private home's environment: another process that
/// sees the managed layer as its store's forced layer.
private final class KeyWatcher {
    private let process: Subprocess
    private let key: String

    init(home: PrivatePreferencesHome, domain: String, key: String) throws {
        self.key = key
        process = try Subprocess(
            builtProductsDirectory.appendingPathComponent("defaults").path, ["watch", domain, key],
            environment: home.processEnvironment, errors: .mergedWithOutput)
    }

    var lines: [String] { process.lines }
    /// `defaults watch` says "Watching DOMAIN key KEY ..." on standard error once it observes.
    var isReady: Bool { lines.contains { $0.hasPrefix("Watching ") } }

    /// The integer values reported, in order ("KEY: OLD → NEW"); any other value (a removal,
    /// another type) as -1, which no check accepts.
    var values: [Int] {
        lines.filter { $0.hasPrefix("\(key): ") }.map { line in
            guard let arrow = line.range(of: " → ") else { return -1 }
            return Int(line[arrow.upperBound...]) ?? -1
        }
    }

    /// Ends it with SIGTERM, as an interrupted watch ends, and waits (SIGKILL after 10 s).
    func stop() {
        process.signal(SIGTERM)
        process.wait(timeout: .seconds(10))
    }

    deinit { if process.isRunning { stop() } }
}

private struct FleetServiceTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
