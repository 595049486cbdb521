import FleetPolicy
import Foundation
import Glibc
import EtcdTestSupport
import TestSupport
import Testing

/// `preferences-fleet status` end to end (issue 40, item 2): the real binary reading statuses
/// and enrolments that the tests write into a real etcd (what the followers write is tested
/// with the followers), its table, its JSON, `--wait` and its exit codes.
///
/// Every wait is bounded and only bounds a failure; nothing here is a timing threshold.
// Skipped where etcd or etcdctl is missing. Serialized: each test starts its own cluster.
@Suite(
    "preferences-fleet status against a real etcd cluster", .ownThread, .serialized,
    .enabled(if: EtcdCluster.unavailableReason == nil))
struct FleetStatusCommandTests {
    /// The domain every test reports.
    static let app = "com.example.app"
    /// What an invalid host says it refused.
    static let refused = [FleetStatus.Reason(key: "Volume", reason: "Volume must be at most 100, not 120")]

    /// A one-member cluster with `fleet/app` and `groups/lab/app`, and three enrolled hosts:
    /// `ws-1` (no group), `ws-2` (lab), `ws-3` (lab).
    struct Fleet {
        /// The cluster.
        let cluster: EtcdCluster
        /// The revision of the put of `fleet/app`.
        let fleetRevision: Int64
        /// The revision of the put of `groups/lab/app`.
        let labRevision: Int64

        /// Starts the cluster and puts the policy and the enrolments.
        init() throws {
            cluster = try EtcdCluster(members: 1)
            fleetRevision = try cluster.put("/preferences/fleet/\(app)", Data("<plist/>".utf8))
            labRevision = try cluster.put("/preferences/groups/lab/\(app)", Data("<plist/>".utf8))
            for (host, groups) in [("ws-1", [String]()), ("ws-2", ["lab"]), ("ws-3", ["lab"])] {
                try cluster.put(
                    "/preferences/status/\(host)", Data(try FleetJSON.encode(FleetEnrolment(host: host, groups: groups, started: Date()))))
            }
        }

        /// Writes `host`'s status of the app at `revision`, as its follower would (without a
        /// lease unless `lease`, hexadecimal as etcdctl takes it).
        @discardableResult
        func report(_ host: String, revision: Int64, reasons: [FleetStatus.Reason] = [], lease: String? = nil) throws -> Int64 {
            let status = FleetStatus(host: host, domain: app, revision: revision, digest: "sha256:ab", reasons: reasons, time: Date())
            let key = "/preferences/status/\(host)/\(app)"
            guard let lease else { return try cluster.put(key, Data(try FleetJSON.encode(status))) }
            try cluster.etcdctl(["put", "--lease=\(lease)", "--", key], input: Data(try FleetJSON.encode(status)))
            return try cluster.currentRevision()
        }

        /// Runs `preferences-fleet status` with `arguments` against the cluster, to its end.
        func status(_ arguments: [String]) throws -> Subprocess {
            try Subprocess.run(Self.binary, ["status"] + arguments + ["--endpoints", cluster.endpoints], timeout: .seconds(120))
        }

        /// Starts `preferences-fleet status` with `arguments` against the cluster.
        func start(_ arguments: [String]) throws -> Subprocess {
            try Subprocess(Self.binary, ["status"] + arguments + ["--endpoints", cluster.endpoints])
        }

        /// The `preferences-fleet` built beside the tests.
        static let binary = builtProductsDirectory.appendingPathComponent("preferences-fleet").path
    }

    /// What `--json` prints with `--wait`: the report's fields and the verdict.
    struct WaitOutput: Decodable {
        /// The verdict.
        var wait: FleetWaitVerdict
    }

    @Test("the table counts each state per domain and lists behind, invalid and silent hosts; --json says the same")
    func tableAndJSON() throws {
        let fleet = try Fleet()
        defer { fleet.cluster.shutdown() }
        // ws-1 has the fleet's key; ws-2 has only the fleet's, not lab's (behind); ws-3 says nothing.
        try fleet.report("ws-1", revision: fleet.fleetRevision)
        try fleet.report("ws-2", revision: fleet.fleetRevision, reasons: Self.refused)
        try fleet.cluster.put("/preferences/status/ws-4", Data("{broken".utf8))

        let text = try fleet.status([Self.app])
        #expect(text.terminationStatus == 0, "\(text.output)\(text.errorOutput)")
        let lines = text.lines
        #expect(lines.first?.hasPrefix("etcd revision ") == true && lines.first?.hasSuffix("; 4 hosts enrolled") == true, "\(text.output)")
        #expect(lines.count > 2 && lines[1].hasPrefix("DOMAIN ") && lines[2].hasPrefix(Self.app), "\(text.output)")
        #expect(
            lines[2].split(separator: " ").dropFirst().map(String.init)
                == ["\(fleet.labRevision)", "2", "1", "1", "1", "2", "0"], "\(text.output)")
        #expect(lines.contains { $0.hasPrefix("  ws-2  behind, invalid") && $0.contains("at \(fleet.fleetRevision) of \(fleet.labRevision)") }, "\(text.output)")
        #expect(lines.contains { $0.contains("Volume: Volume must be at most 100, not 120") }, "\(text.output)")
        #expect(lines.contains { $0.hasPrefix("  ws-3  silent") }, "\(text.output)")
        // ws-4's enrolment is garbage: listed, and ws-4 is still enrolled, so silent too.
        #expect(lines.contains { $0.hasPrefix("  ws-4  silent") }, "\(text.output)")
        #expect(lines.contains { $0.hasPrefix("  /preferences/status/ws-4: not an enrolment") }, "\(text.output)")
        #expect(!lines.contains { $0.hasPrefix("  ws-1") }, "\(text.output)")

        let json = try fleet.status([Self.app, "--json"])
        #expect(json.terminationStatus == 0, "\(json.errorOutput)")
        let report = try FleetJSON.decode(FleetStatusReport.self, from: Array(json.output.utf8))
        let domain = try #require(report[domain: Self.app])
        #expect(report.domains.count == 1 && report.enrolled == 4 && report.unreadable.map(\.key) == ["/preferences/status/ws-4"])
        #expect(domain.newestRevision == fleet.labRevision)
        #expect((domain.live, domain.current, domain.behind, domain.invalid, domain.silent) == (2, 1, 1, 1, 2))
        #expect(domain.hosts.map(\.host) == ["ws-1", "ws-2", "ws-3", "ws-4"])
        #expect(domain.hosts.map(\.state) == [.current, .behind, .silent, .silent])
        #expect(domain.hosts[1].reasons == Self.refused && domain.hosts[1].expected == fleet.labRevision)
    }

    @Test("a host whose lease ends goes from current to silent")
    func leaseExpiry() throws {
        let fleet = try Fleet()
        defer { fleet.cluster.shutdown() }
        /// etcdctl's answer to `lease grant`: the lease id, in decimal.
        struct Grant: Decodable { var ID: Int64 }
        let grant = try JSONDecoder().decode(Grant.self, from: Data(try fleet.cluster.etcdctl(["lease", "grant", "60", "-w", "json"]).utf8))
        let lease = String(grant.ID, radix: 16)
        try fleet.report("ws-1", revision: fleet.fleetRevision, lease: lease)
        let before = try FleetJSON.decode(FleetStatusReport.self, from: Array(try fleet.status([Self.app, "--json"]).output.utf8))
        #expect(before[domain: Self.app]?.hosts.first?.state == .current)
        // What etcd does when the follower stops keeping its lease alive, without waiting for it.
        try fleet.cluster.etcdctl(["lease", "revoke", lease])
        let after = try FleetJSON.decode(FleetStatusReport.self, from: Array(try fleet.status([Self.app, "--json"]).output.utf8))
        #expect(after[domain: Self.app]?.hosts.first?.state == .silent)
        #expect(after[domain: Self.app]?.live == 0)
    }

    @Test("--wait exits 0 once every live host has reported the revision, waiting for the last")
    func waitSucceeds() async throws {
        let fleet = try Fleet()
        defer { fleet.cluster.shutdown() }
        try fleet.report("ws-1", revision: fleet.fleetRevision)
        try fleet.report("ws-2", revision: fleet.fleetRevision)
        let change = try fleet.cluster.put("/preferences/groups/lab/\(Self.app)", Data("<plist><dict/></plist>".utf8))
        // Before ws-2 applies the change it is not reported (ws-1 follows no group: unconcerned):
        // a short wait runs out naming ws-2 only.
        let early = try fleet.start([Self.app, "--wait", String(change), "--timeout", "1"])
        #expect(await early.wait(timeout: .seconds(120)) == 3, "\(early.output)\(early.errorOutput)")
        #expect(early.output.contains("ws-2") && !early.lines.contains { $0.contains("ws-1") && !$0.contains("ws-2") }, "\(early.output)")
        // A wait started before ws-2 reports polls until it does.
        let waiting = try fleet.start([Self.app, "--wait", String(change), "--timeout", "120"])
        try fleet.report("ws-2", revision: change)
        let status = await waiting.wait(timeout: .seconds(120))
        #expect(status == 0, "\(waiting.output)\(waiting.errorOutput)")
        #expect(waiting.output.contains("every live host (2) reported revision \(change), all valid"), "\(waiting.output)")
        #expect(waiting.output.contains("silent, not waited for"), "\(waiting.output)")
        #expect(waiting.lines.contains("  ws-3 (\(Self.app))"), "\(waiting.output)")
    }

    @Test("--wait names the hosts that have not reported when the timeout passes, and exits 3")
    func waitTimesOut() throws {
        let fleet = try Fleet()
        defer { fleet.cluster.shutdown() }
        try fleet.report("ws-1", revision: fleet.fleetRevision)
        try fleet.report("ws-2", revision: fleet.fleetRevision)
        let text = try fleet.status([Self.app, "--wait", String(fleet.labRevision), "--timeout", "0.5"])
        #expect(text.terminationStatus == 3, "\(text.output)\(text.errorOutput)")
        #expect(text.output.contains("1 of 2 live hosts have not reported revision \(fleet.labRevision) before the timeout:"), "\(text.output)")
        #expect(text.lines.contains("  ws-2 (\(Self.app)): at \(fleet.fleetRevision), behind"), "\(text.output)")
        #expect(text.lines.contains("  ws-3 (\(Self.app))"), "\(text.output)")

        let json = try fleet.status([Self.app, "--wait", String(fleet.labRevision), "--timeout", "0.5", "--json"])
        #expect(json.terminationStatus == 3)
        let verdict = try FleetJSON.decode(WaitOutput.self, from: Array(json.output.utf8)).wait
        #expect(verdict.outcome == .pending && verdict.pending.map(\.host) == ["ws-2"] && verdict.silent.map(\.host) == ["ws-3"])
    }

    @Test("--wait exits 2 when every live host reported but some refused values, naming them and why")
    func waitInvalid() throws {
        let fleet = try Fleet()
        defer { fleet.cluster.shutdown() }
        try fleet.report("ws-1", revision: fleet.fleetRevision)
        try fleet.report("ws-2", revision: fleet.labRevision, reasons: Self.refused)
        try fleet.report("ws-3", revision: fleet.labRevision)
        let text = try fleet.status(["--wait", String(fleet.labRevision)])
        #expect(text.terminationStatus == 2, "\(text.output)\(text.errorOutput)")
        #expect(text.output.contains("every live host (3) reported revision \(fleet.labRevision); 1 refused values"), "\(text.output)")
        #expect(text.lines.contains("  ws-2 (\(Self.app)) at \(fleet.labRevision):"), "\(text.output)")
        #expect(text.lines.contains("    Volume: Volume must be at most 100, not 120"), "\(text.output)")
    }

    @Test("real followers: --wait sees a valid policy everywhere, a refusal by the host whose schema forbids it, and a killed follower silent")
    func realFollowers() async throws {
        let cluster = try EtcdCluster(members: 1)
        defer { cluster.shutdown() }
        // A policy file: Volume, which f-3's schema allows only up to 100.
        func policy(volume: Int) -> Data {
            Data(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>Volume</key><integer>\#(volume)</integer></dict></plist>"#.utf8)
        }
        // A policy to report before the app's exists, so every follower's lease is
        // seen alive: the app is then new to them, and --wait waits for their first status of it.
        try cluster.put("/preferences/fleet/com.example.warm-up", policy(volume: 1))
        var followers: [(name: String, home: PrivatePreferencesHome, process: Subprocess)] = []
        defer { for follower in followers { Self.kill(follower.process) } }
        for name in ["f-1", "f-2", "f-3"] {
            let home = try PrivatePreferencesHome()
            if name == "f-3" {
                try FileManager.default.createDirectory(atPath: home.schemaDirectory, withIntermediateDirectories: true)
                let schema = """
                    <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>Keys</key><dict>
                    <key>Volume</key><dict><key>Type</key><string>integer</string><key>Maximum</key><integer>100</integer></dict>
                    </dict></dict></plist>
                    """
                try Data(schema.utf8).write(to: URL(fileURLWithPath: home.schemaDirectory + "/\(Self.app).plist"))
            }
            let process = try Subprocess(
                Fleet.binary,
                ["follow", "--endpoints", cluster.endpoints, "--hostname", name, "--status-lease", "2", "--log-to-standard-error"],
                environment: home.processEnvironment, errors: .mergedWithOutput)
            followers.append((name, home, process))
        }
        // Until all three are enrolled and report the warm-up (--wait passes as soon as the
        // hosts that started report, and a follower may not have started yet).
        let started = try await eventually {
            let json = try fleet(cluster, ["com.example.warm-up", "--json"])
            let report = try? FleetJSON.decode(FleetStatusReport.self, from: Array(json.output.utf8))
            return report?.enrolled == 3 && report?[domain: "com.example.warm-up"]?.current == 3
        }
        try #require(started, "the followers did not all report: \(followers.map { $0.process.output.suffix(1000) })")

        let valid = try cluster.put("/preferences/fleet/\(Self.app)", policy(volume: 50))
        let applied = try Subprocess.run(
            Fleet.binary, ["status", Self.app, "--wait", String(valid), "--endpoints", cluster.endpoints], timeout: .seconds(120))
        #expect(applied.terminationStatus == 0, "\(applied.output)\(applied.errorOutput)")
        #expect(applied.output.contains("every live host (3) reported revision \(valid), all valid"), "\(applied.output)")

        let loud = try cluster.put("/preferences/fleet/\(Self.app)", policy(volume: 120))
        let refused = try Subprocess.run(
            Fleet.binary, ["status", Self.app, "--wait", String(loud), "--endpoints", cluster.endpoints], timeout: .seconds(120))
        #expect(refused.terminationStatus == 2, "\(refused.output)\(refused.errorOutput)")
        #expect(refused.lines.contains("  f-3 (\(Self.app)) at \(loud):"), "\(refused.output)")
        #expect(refused.lines.contains { $0.hasPrefix("    Volume: ") && $0.contains("120") }, "\(refused.output)")

        // Killed, its lease runs out (2 s) and its status goes with it: silent, not applied.
        Self.kill(followers[0].process)
        var report: FleetStatusReport?
        _ = try await eventually {
            let json = try fleet(cluster, [Self.app, "--json"])
            report = try? FleetJSON.decode(FleetStatusReport.self, from: Array(json.output.utf8))
            return report?[domain: Self.app]?.hosts.first?.state == .silent
        }
        let domain = try #require(report?[domain: Self.app])
        #expect(domain.hosts.map(\.state) == [.silent, .current, .current], "\(domain)")
        #expect((domain.live, domain.silent, domain.invalid) == (2, 1, 1), "\(domain)")
    }

    /// Whether `condition` holds within 60 s, asked every 200 ms; the limit only bounds a failure.
    func eventually(_ condition: () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while try !condition() {
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: .milliseconds(200))
        }
        return true
    }

    /// Kills `process` with SIGKILL, as a crash would, and reaps it.
    static func kill(_ process: Subprocess) {
        process.signal(SIGKILL)
        _ = process.wait(timeout: .seconds(10))
    }

    /// Runs `preferences-fleet status` with `arguments` against `cluster`, to its end.
    private func fleet(_ cluster: EtcdCluster, _ arguments: [String]) throws -> Subprocess {
        try Subprocess.run(Fleet.binary, ["status"] + arguments + ["--endpoints", cluster.endpoints], timeout: .seconds(120))
    }

    @Test("an etcd that cannot be reached fails with status 1 and says so")
    func unreachable() throws {
        let fleet = try Fleet()
        let endpoints = fleet.cluster.endpoints
        fleet.cluster.shutdown()
        let text = try Subprocess.run(Fleet.binary, ["status", "--endpoints", endpoints], timeout: .seconds(120))
        #expect(text.terminationStatus == 1, "\(text.output)\(text.errorOutput)")
        #expect(text.errorOutput.contains("etcd is unavailable"), "\(text.errorOutput)")
    }
}
