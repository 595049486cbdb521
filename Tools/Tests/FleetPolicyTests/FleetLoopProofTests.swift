import EtcdGateway
import EtcdTestSupport
import FleetPolicy
import Foundation
import Glibc
import Logging
import Preferences
import PropertyList
import TestSupport
import Testing

/// The fleet loop on the real 3-member cluster (issue 40, item 5): twenty real
/// `preferences-fleet follow` processes, eight of them with a schema that refuses a value,
/// each with its own system directory; real `preferences-fleet rollout` runs.
///
/// - A valid policy reaches verified status on every host, through the loss of the etcd leader
///   in the middle of its rollout.
/// - An invalid one stops its rollout at the first step, and the host it reached reports the
///   previous policy again; no other host ever took it.
/// - A follower killed mid-rollout shows as silent, not as applied, and stops the rollout,
///   which is resumed by a second process after the first was killed.
/// - A rollout whose process was killed cannot be started twice, and `--abort` puts the
///   previous policy back.
/// - A fleet policy fixed by hand during a rollout is not overwritten when the rollout would
///   complete: it stops instead.
///
/// Every wait is a bounded wait for something to happen, never a timing threshold.
// Skipped where etcd or etcdctl is missing (Debian's etcd-server and etcd-client packages).
@Suite("The fleet loop on a real cluster", .ownThread, .serialized, .enabled(if: EtcdCluster.unavailableReason == nil))
struct FleetLoopProofTests {
    static let domain = "com.example.proof"
    static let hostCount = 20
    static let schemaHostCount = 8

    /// A follower process and its private directories.
    final class Follower {
        let name: String
        let home: PrivatePreferencesHome
        let hasSchema: Bool
        var process: Subprocess

        init(name: String, endpoints: String, hasSchema: Bool) throws {
            self.name = name
            self.hasSchema = hasSchema
            home = try PrivatePreferencesHome()
            if hasSchema {
                try FileManager.default.createDirectory(atPath: home.schemaDirectory, withIntermediateDirectories: true)
                let schema = """
                    <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>Keys</key><dict>
                    <key>Volume</key><dict><key>Type</key><string>integer</string><key>Minimum</key><integer>0</integer><key>Maximum</key><integer>100</integer></dict>
                    <key>Theme</key><dict><key>Type</key><string>string</string></dict>
                    </dict></dict></plist>
                    """
                try Data(schema.utf8).write(to: URL(fileURLWithPath: home.schemaDirectory + "/\(FleetLoopProofTests.domain).plist"))
            }
            process = try Subprocess(
                builtProductsDirectory.appendingPathComponent("preferences-fleet").path,
                ["follow", "--endpoints", endpoints, "--hostname", name, "--status-lease", "2", "--log-to-standard-error"],
                environment: home.processEnvironment, errors: .mergedWithOutput)
        }

        var managedFile: String { home.systemDirectory + "/managed/\(FleetLoopProofTests.domain).plist" }

        var managedValues: [String: PropertyListValue]? {
            FileManager.default.contents(atPath: managedFile).flatMap { try? PropertyListValue(decodingAnyFormat: $0) }?.dictionaryValue
        }

        func end() {
            process.signal(SIGKILL)
            _ = process.wait(timeout: .seconds(10))
        }
    }

    static func policy(_ volume: Int, _ theme: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>\
            <key>Theme</key><string>\(theme)</string><key>Volume</key><integer>\(volume)</integer></dict></plist>
            """.utf8)
    }

    /// Every host's live status of the domain, and the enrolled hosts.
    static func fleet(_ client: EtcdClient) async throws -> (enrolled: Set<String>, statuses: [String: FleetStatus]) {
        let layout = FleetLayout()
        let range = try await client.range(prefix: Array(layout.statusPrefix.utf8))
        var enrolled: Set<String> = []
        var statuses: [String: FleetStatus] = [:]
        for keyValue in range.keyValues {
            guard let entry = layout.statusEntry(ofKey: String(decoding: keyValue.key, as: UTF8.self)) else { continue }
            if entry.domain == nil {
                enrolled.insert(entry.host)
            } else if entry.domain?.rawValue == domain {
                statuses[entry.host] = try FleetJSON.decode(FleetStatus.self, from: keyValue.value)
            }
        }
        return (enrolled, statuses)
    }

    /// Waits (bounded) until `condition` holds of the fleet; returns the last look.
    static func waitForFleet(
        _ client: EtcdClient, _ condition: ((enrolled: Set<String>, statuses: [String: FleetStatus])) -> Bool
    ) async throws -> (enrolled: Set<String>, statuses: [String: FleetStatus]) {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let look = try await fleet(client)
            if condition(look) || ContinuousClock.now >= deadline { return look }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    static func rollout(_ arguments: [String], endpoints: String, home: PrivatePreferencesHome) throws -> Subprocess {
        try fleetCommand(["rollout", domain] + arguments, endpoints: endpoints, home: home)
    }

    /// An administrator's `preferences-fleet` subcommand against the cluster.
    static func fleetCommand(_ arguments: [String], endpoints: String, home: PrivatePreferencesHome) throws -> Subprocess {
        try Subprocess(
            builtProductsDirectory.appendingPathComponent("preferences-fleet").path, arguments + ["--endpoints", endpoints],
            environment: home.processEnvironment)
    }

    /// The revision in "... at revision N" of the first line containing `marker`.
    static func revision(in output: String, after marker: String) -> Int64? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains(marker) }),
            let at = line.range(of: "revision ")
        else { return nil }
        return Int64(line[at.upperBound...].prefix { $0.isNumber })
    }

    @Test("twenty followers: a valid policy is verified everywhere, an invalid one stops at its first step, a killed follower is silent")
    func fleetLoop() async throws {
        let cluster = try EtcdCluster(members: 3)
        defer { cluster.shutdown() }
        // The hosts in cohort order: the lowest buckets are the first a rollout reaches, and
        // they are the ones with the schema, so the first step of a bad policy meets it.
        let names = (0..<Self.hostCount).map { String(format: "host-%02d", $0) }.sorted { FleetCohort.bucket(of: $0) < FleetCohort.bucket(of: $1) }
        var followers: [Follower] = []
        defer { for follower in followers { follower.end() } }
        for (index, name) in names.enumerated() {
            followers.append(try Follower(name: name, endpoints: cluster.endpoints, hasSchema: index < Self.schemaHostCount))
        }
        let admin = try PrivatePreferencesHome()
        let files = admin.directory.file("valid.plist").path, invalid = admin.directory.file("invalid.plist").path
        let third = admin.directory.file("third.plist").path
        try Self.policy(50, "dark").write(to: URL(fileURLWithPath: files))
        try Self.policy(150, "dark").write(to: URL(fileURLWithPath: invalid))
        try Self.policy(60, "light").write(to: URL(fileURLWithPath: third))

        let client = try EtcdClient(configuration: EtcdConfiguration(endpoints: cluster.clientURLs), logger: Logger(label: "FleetLoopProofTests"))
        defer { Task { try? await client.shutdown() } }
        let enrolled = try await Self.waitForFleet(client) { $0.enrolled.count == Self.hostCount }
        try #require(enrolled.enrolled == Set(names), "enrolled: \(enrolled.enrolled.sorted())\n\(followers.map { $0.process.output.suffix(800) }.joined(separator: "\n"))")

        // 1. A valid policy, with the etcd leader killed in the middle of it. The second-lowest
        // cohort's host is stopped (SIGSTOP) first, so the rollout is surely waiting in its second
        // step when the leader dies, whatever the machine's load; it goes on once the host does.
        let held = followers[1]
        held.process.signal(SIGSTOP)
        var heldStopped = true
        defer { if heldStopped { held.process.signal(SIGCONT) } }
        let valid = try Self.rollout([files, "--steps", "1%,25%,100%", "--max-invalid", "0%", "--step-timeout", "60"], endpoints: cluster.endpoints, home: admin)
        let secondStep = await valid.waitForLine(within: .seconds(60)) { $0.contains("step 2 of 3") }
        try #require(secondStep?.text.contains(held.name) == true, "\(valid.output)")
        let leader = try cluster.leader()
        cluster.kill(member: leader)
        held.process.signal(SIGCONT)
        heldStopped = false
        let validExit = await valid.wait(timeout: .seconds(120))
        #expect(validExit == 0, "\(valid.output)\n\(valid.errorOutput)")
        let completed = try #require(Self.revision(in: valid.output, after: "completed rollout"), "\(valid.output)")
        try cluster.restart(member: leader)
        let verified = try await Self.waitForFleet(client) { look in
            look.statuses.count == Self.hostCount && look.statuses.values.allSatisfy { $0.revision >= completed && $0.valid }
        }
        #expect(verified.statuses.count == Self.hostCount)
        #expect(verified.statuses.values.allSatisfy { $0.revision >= completed && $0.valid }, "\(verified.statuses.values.filter { $0.revision < completed || !$0.valid })")
        let digests = Set(verified.statuses.values.map(\.digest))
        #expect(digests.count == 1, "hosts disagree on what they wrote: \(digests)")
        for follower in followers {
            #expect(follower.managedValues == ["Volume": 50, "Theme": "dark"], "\(follower.name)")
            let bytes = try #require(FileManager.default.contents(atPath: follower.managedFile))
            #expect(verified.statuses[follower.name]?.digest == FleetStatus.digest(of: bytes), "\(follower.name)")
        }
        let validDigest = digests.first ?? nil
        // The administrator's view agrees: --wait for the completing revision returns at once.
        let waited = try Self.fleetCommand(["status", Self.domain, "--wait", String(completed), "--timeout", "30"], endpoints: cluster.endpoints, home: admin)
        #expect(await waited.wait(timeout: .seconds(60)) == 0, "\(waited.output)\n\(waited.errorOutput)")

        // 2. An invalid policy: the first step reaches the lowest bucket, which has the schema.
        let bad = try Self.rollout([invalid, "--steps", "1%,25%,100%", "--max-invalid", "2%", "--step-timeout", "30"], endpoints: cluster.endpoints, home: admin)
        let badExit = await bad.wait(timeout: .seconds(120))
        #expect(badExit == 1, "\(bad.output)\n\(bad.errorOutput)")
        let first = names[0]
        #expect(bad.output.contains("step 1 of 3") && !bad.output.contains("step 2 of 3"), "\(bad.output)")
        #expect(bad.output.contains("\(first): refused Volume: Volume"), "\(bad.output)")
        let stoppedAt = try #require(Self.revision(in: bad.output, after: "stopped rollout"), "\(bad.output)")
        #expect(bad.output.contains("previous policy reported back by 1 of 1 reached hosts"), "\(bad.output)")
        let document = try #require(try await client.get(key: Array(FleetLayout().rolloutKey(try DomainName(Self.domain)).utf8)))
        let stopped = try FleetJSON.decode(FleetRollout.self, from: document.value)
        #expect(stopped.state == .stopped && stopped.step == 0)
        #expect(stopped.failures.map(\.host) == [first])
        let afterStop = try await Self.fleet(client)
        #expect(afterStop.statuses[first].map { $0.revision >= stoppedAt && $0.valid && $0.digest == validDigest } == true, "\(String(describing: afterStop.statuses[first]))")
        // Nobody ever wrote 150: the reached host refused it, the others never got it.
        for follower in followers { #expect(follower.managedValues == ["Volume": 50, "Theme": "dark"], "\(follower.name)") }

        // 3. A follower killed mid-rollout, and the rollout's own process killed and resumed. The
        // first cohort's host is stopped first, so the rollout is surely still in its first step
        // when it is killed; it continues (its lease expired meanwhile: it reports again).
        let victim = followers[followers.count - 1]
        let canary = followers[0]
        canary.process.signal(SIGSTOP)
        var canaryStopped = true
        defer { if canaryStopped { canary.process.signal(SIGCONT) } }
        let third3 = try Self.rollout([third, "--steps", "1%,100%", "--max-invalid", "0%", "--step-timeout", "6"], endpoints: cluster.endpoints, home: admin)
        try #require(await third3.waitForLine(within: .seconds(60)) { $0.contains("step 1 of 2") } != nil, "\(third3.output)")
        third3.signal(SIGKILL)
        _ = await third3.wait(timeout: .seconds(30))
        #expect(!third3.output.contains("step 2 of 2"), "\(third3.output)")
        victim.process.signal(SIGKILL)
        canary.process.signal(SIGCONT)
        canaryStopped = false
        let silent = try await Self.waitForFleet(client) { $0.statuses[victim.name] == nil }
        #expect(silent.statuses[victim.name] == nil, "the killed follower's status outlived its lease")
        #expect(silent.enrolled.contains(victim.name))
        let resumed = try Self.rollout(["--resume"], endpoints: cluster.endpoints, home: admin)
        let resumedExit = await resumed.wait(timeout: .seconds(120))
        #expect(resumedExit == 1, "\(resumed.output)\n\(resumed.errorOutput)")
        #expect(resumed.output.contains("resuming rollout"), "\(resumed.output)")
        #expect(resumed.output.contains("\(victim.name): silent"), "\(resumed.output)")
        let back = try await Self.waitForFleet(client) { look in
            look.statuses.count == Self.hostCount - 1 && look.statuses.values.allSatisfy { $0.digest == validDigest }
        }
        #expect(back.statuses.count == Self.hostCount - 1 && back.statuses.values.allSatisfy { $0.digest == validDigest })
        for follower in followers.dropLast() { #expect(follower.managedValues == ["Volume": 50, "Theme": "dark"], "\(follower.name)") }
        // And `status` shows the killed follower as silent, never as applied.
        let report = try Self.fleetCommand(["status", Self.domain, "--json"], endpoints: cluster.endpoints, home: admin)
        #expect(await report.wait(timeout: .seconds(60)) == 0, "\(report.output)\n\(report.errorOutput)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.output.utf8)) as? [String: Any])
        let proof = try #require((json["domains"] as? [[String: Any]])?.first { $0["domain"] as? String == Self.domain })
        #expect(proof["silent"] as? Int == 1 && proof["current"] as? Int == Self.hostCount - 1, "\(proof)")
        let rows = (proof["hosts"] as? [[String: Any]]) ?? []
        #expect(rows.first { $0["host"] as? String == victim.name }?["state"] as? String == "silent", "\(rows)")

        // 4. A rollout whose process is killed while it waits (on the dead host) is not
        // doubled by a second start, and --abort puts the previous policy back everywhere.
        // Its last step reaches the dead host too, and waits for it; killed there, it stays running in etcd.
        let fourth = try Self.rollout([third, "--steps", "50%,100%", "--step-timeout", "600"], endpoints: cluster.endpoints, home: admin)
        try #require(await fourth.waitForLine(within: .seconds(60)) { $0.contains("step 2 of 2") } != nil, "\(fourth.output)")
        let took = try await Self.waitForFleet(client) { look in look.statuses.values.allSatisfy { $0.digest != validDigest } }
        #expect(took.statuses.count == Self.hostCount - 1 && took.statuses.values.allSatisfy { $0.digest != validDigest })
        fourth.signal(SIGKILL)
        let second = try Self.rollout([files], endpoints: cluster.endpoints, home: admin)
        #expect(await second.wait(timeout: .seconds(60)) == 2)
        #expect(second.errorOutput.contains("use --resume or --abort"), "\(second.errorOutput)")
        let aborted = try Self.rollout(["--abort"], endpoints: cluster.endpoints, home: admin)
        #expect(await aborted.wait(timeout: .seconds(120)) == 0, "\(aborted.output)\n\(aborted.errorOutput)")
        #expect(aborted.output.contains("previous policy reported back by 19 of 20 reached hosts; not (yet) by \(victim.name)"), "\(aborted.output)")
        let abortedDocument = try #require(try await client.get(key: Array(FleetLayout().rolloutKey(try DomainName(Self.domain)).utf8)))
        #expect(try FleetJSON.decode(FleetRollout.self, from: abortedDocument.value).state == .aborted)
        for follower in followers.dropLast() { #expect(follower.managedValues == ["Volume": 50, "Theme": "dark"], "\(follower.name)") }

        // 5. An administrator fixes the fleet's policy by hand while a rollout waits on the dead
        // host (within --max-invalid): the rollout does not overwrite the fix when it would
        // complete; it stops, and every host takes the fix.
        let fifth = try Self.rollout(
            [third, "--steps", "50%,100%", "--max-invalid", "10%", "--step-timeout", "5"], endpoints: cluster.endpoints, home: admin)
        try #require(await fifth.waitForLine(within: .seconds(60)) { $0.contains("step 2 of 2") } != nil, "\(fifth.output)")
        let fix = Self.policy(40, "dark")
        let fixedAt = try cluster.put("/preferences/fleet/\(Self.domain)", fix)
        #expect(await fifth.wait(timeout: .seconds(120)) == 2, "\(fifth.output)\n\(fifth.errorOutput)")
        #expect(fifth.errorOutput.contains("was changed by someone else during the rollout"), "\(fifth.errorOutput)")
        let kept = try #require(try await client.get(key: Array("/preferences/fleet/\(Self.domain)".utf8)))
        #expect(kept.value == Array(fix) && kept.modRevision == fixedAt)
        let fifthDocument = try #require(try await client.get(key: Array(FleetLayout().rolloutKey(try DomainName(Self.domain)).utf8)))
        #expect(try FleetJSON.decode(FleetRollout.self, from: fifthDocument.value).state == .stopped)
        let fixed = try await Self.waitForFleet(client) { look in
            look.statuses.count == Self.hostCount - 1 && look.statuses.values.allSatisfy { $0.revision > fixedAt }
        }
        #expect(fixed.statuses.values.allSatisfy { $0.revision > fixedAt && $0.valid })
        for follower in followers.dropLast() { #expect(follower.managedValues == ["Volume": 40, "Theme": "dark"], "\(follower.name)") }
    }
}
