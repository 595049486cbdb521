import DeclaredSettings
import FleetPolicy
import Foundation
import Logging
import Preferences
import PropertyList
import Synchronization
import Testing

/// The fleet loop's decisions apart from etcd (issue 40): cohorts, rollouts in the merge,
/// refusals a status reports, schema validation, step thresholds and verdicts, and the status
/// reporter's handling of a store that goes away or forgets its lease.
@Suite("Fleet loop")
struct FleetLoopTests {
    static let domain = try! DomainName("com.example.loop")

    static func xml(_ body: String) -> [UInt8] {
        Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict>\(body)</dict></plist>".utf8)
    }

    static func rollout(_ body: String, threshold: Int, state: FleetRollout.State = .running) throws -> [UInt8] {
        var rollout = FleetRollout(
            id: "r1", domain: domain.rawValue, policy: xml(body), steps: [100, 10_000], maxInvalid: 0, stepTimeout: 10, started: Date(),
            updated: Date())
        rollout.threshold = threshold
        rollout.state = state
        return try FleetJSON.encode(rollout)
    }

    /// A schema with a range, a choice and a private key, from a native schema file.
    static func schema() throws -> PreferenceSchema {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-loop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("\(domain).plist").path
        let text = """
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>Keys</key><dict>
            <key>Volume</key><dict><key>Type</key><string>integer</string><key>Minimum</key><integer>0</integer><key>Maximum</key><integer>100</integer></dict>
            <key>Theme</key><dict><key>Type</key><string>string</string><key>Choices</key><array><string>light</string><string>dark</string></array></dict>
            <key>Token</key><dict><key>Type</key><string>string</string><key>Private</key><true/><key>Choices</key><array><string>a</string></array></dict>
            </dict></dict></plist>
            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return try PreferenceSchema(contentsOf: path)
    }

    @Test("a host's cohort is the first 8 bytes of the SHA-256 of its name modulo 10,000, as any language computes it")
    func cohorts() {
        // Computed with Python's hashlib: int.from_bytes(sha256(name).digest()[:8], "big") % 10000.
        #expect(FleetCohort.bucket(of: "web-1") == 4123)
        #expect(FleetCohort.bucket(of: "host-00") == 9736)
        #expect(FleetCohort.bucket(of: "a") == 2250)
        #expect(FleetStatus.digest(of: Array("abc".utf8)) == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("every journald message id of the fleet service has an entry in the catalog, with a subject")
    func catalog() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("systemd/swift-preferences.catalog"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for event in FleetLogEvent.allCases {
            let header = try #require(lines.firstIndex(of: "-- \(event.messageID)"), "\(event) has no catalog entry")
            #expect(lines[header + 1].hasPrefix("Subject: "), "\(event)")
        }
    }

    @Test("the digest is SHA-256: FIPS 180-4's examples and Python's hashlib on block edges and several blocks")
    func digests() {
        let cases: [([UInt8], String)] = [
            ([], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            (Array(repeating: UInt8(ascii: "a"), count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
            (Array(repeating: UInt8(ascii: "a"), count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
            (Array(repeating: UInt8(ascii: "a"), count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
            (Array(repeating: (0...255).map { UInt8($0) }, count: 5).flatMap { $0 }, "d414b085826eb06778483ba35564dc849e643359f69ed9747878ba6e54985bed"),
        ]
        for (bytes, hex) in cases {
            #expect(FleetStatus.digest(of: bytes) == "sha256:" + hex, "\(bytes.count) bytes")
        }
    }

    @Test("a running rollout replaces the fleet's value on the hosts it reaches; others, and every host once it stops, keep the fleet's")
    func rolloutInTheMerge() throws {
        // web-1's bucket is 4123.
        var reached = FleetPolicy(hostname: "web-1")
        var other = FleetPolicy(hostname: "host-00")
        let fleetKey = "/preferences/fleet/\(Self.domain)", rolloutKey = "/preferences/rollouts/\(Self.domain)"
        try reached.put(key: fleetKey, value: Self.xml("<key>Theme</key><string>light</string><key>Font</key><integer>12</integer>"), revision: 5)
        try other.put(key: fleetKey, value: Self.xml("<key>Theme</key><string>light</string><key>Font</key><integer>12</integer>"), revision: 5)
        let document = try Self.rollout("<key>Theme</key><string>dark</string>", threshold: 5000)
        #expect(try reached.put(key: rolloutKey, value: document, revision: 6) == Self.domain)
        // Not reached, but told: every host reports the rollout's revision.
        #expect(try other.put(key: rolloutKey, value: document, revision: 6) == Self.domain)
        // Replaced, not merged: Font is gone where the rollout reaches.
        #expect(reached.managedValues(of: Self.domain) == ["Theme": "dark"])
        #expect(reached.sources(of: Self.domain).map(\.key) == [rolloutKey])
        #expect(other.managedValues(of: Self.domain) == ["Theme": "light", "Font": 12])
        #expect(other.reportedDomains == [Self.domain])

        // A refused fleet value does not make the reached host invalid while the rollout stands in.
        #expect(throws: FleetRefusal.self) { try reached.put(key: fleetKey, value: Array("junk".utf8), revision: 7) }
        #expect(throws: FleetRefusal.self) { try other.put(key: fleetKey, value: Array("junk".utf8), revision: 7) }
        #expect(reached.refusals(of: Self.domain).isEmpty)
        #expect(other.refusals(of: Self.domain).map(\.key) == [fleetKey])
        try reached.put(key: fleetKey, value: Self.xml("<key>Theme</key><string>light</string><key>Font</key><integer>12</integer>"), revision: 7)
        let stopped = try Self.rollout("<key>Theme</key><string>dark</string>", threshold: 5000, state: .stopped)
        #expect(try reached.put(key: rolloutKey, value: stopped, revision: 7) == Self.domain)
        #expect(reached.managedValues(of: Self.domain) == ["Theme": "light", "Font": 12])
        #expect(reached.delete(key: rolloutKey) == Self.domain)
        #expect(other.delete(key: rolloutKey) == Self.domain)
    }

    @Test("a refused value is kept as a reason of its domain until the key is put with a good value or deleted")
    func refusalsAreReported() throws {
        var policy = FleetPolicy(hostname: "web-1")
        let key = "/preferences/fleet/\(Self.domain)"
        try policy.put(key: key, value: Self.xml("<key>A</key><integer>1</integer>"), revision: 3)
        #expect(throws: FleetRefusal.self) { try policy.put(key: key, value: Array("junk".utf8), revision: 4) }
        do {
            try policy.put(key: key, value: Array("junk".utf8), revision: 4)
        } catch {
            #expect(error.domain == Self.domain)
        }
        #expect(policy.refusals(of: Self.domain).map(\.key) == [key])
        #expect(policy.managedValues(of: Self.domain) == ["A": 1])
        try policy.put(key: key, value: Self.xml("<key>A</key><integer>2</integer>"), revision: 5)
        #expect(policy.refusals(of: Self.domain).isEmpty)
        #expect(throws: FleetRefusal.self) {
            try policy.put(key: "/preferences/rollouts/\(Self.domain)", value: Array("{not json".utf8), revision: 6)
        }
        #expect(policy.refusals(of: Self.domain).count == 1)
        #expect(policy.delete(key: "/preferences/rollouts/\(Self.domain)") == Self.domain)
        #expect(policy.refusals(of: Self.domain).isEmpty)
    }

    @Test("validation refuses what the schema refuses, in defaults' words, keeping the previous value and hiding private ones")
    func validation() throws {
        let schema = try Self.schema()
        let checked = FleetValidation(
            policy: ["Volume": 120, "Theme": "blue", "Token": "secret-value", "Other": true], schema: schema,
            previous: ["Volume": 40, "Theme": "purple"])
        #expect(!checked.isValid)
        #expect(checked.reasons.map(\.key) == ["Theme", "Token", "Volume"])
        // The previous Volume was valid and is kept; the previous Theme was not, so it goes.
        #expect(checked.values == ["Volume": 40, "Other": true])
        let volume = try #require(schema.violation(setting: 120, forKey: "Volume"))
        #expect(checked.reasons.last?.reason == "Volume \(volume.rule), not 120")
        #expect(checked.reasons.first { $0.key == "Token" }?.reason.contains("secret-value") == false)
        #expect(checked.reasons.first { $0.key == "Token" }?.reason.contains(DeclaredKey.privateValuePlaceholder) == true)
        #expect(FleetValidation(policy: ["Volume": 120], schema: nil).isValid)
    }

    @Test("steps are rising shares ending at 100%; each reaches at least one more enrolled host")
    func stepsAndThresholds() throws {
        #expect(try FleetRolloutPlan.steps("1%,10%,100%") == [100, 1000, 10_000])
        #expect(try FleetRolloutPlan.steps("0.5%, 100%") == [50, 10_000])
        for bad in ["10%,1%,100%", "1%,10%", "", "1%,,100%", "abc,100%", "0%,100%", "1%,101%", "100%"] {
            #expect(throws: FleetRolloutPlanError.self, "\(bad)") { try FleetRolloutPlan.steps(bad) }
        }
        #expect(FleetRolloutPlan.basisPoints("2%") == 200)
        #expect(FleetRolloutPlan.basisPoints("2") == nil)
        // 1% of the buckets holds no host of these: the step reaches the lowest one instead.
        let buckets = [4123, 9736, 2250]
        #expect(FleetRolloutPlan.threshold(share: 100, previous: 0, buckets: buckets) == 2251)
        #expect(FleetRolloutPlan.threshold(share: 5000, previous: 2251, buckets: buckets) == 5000)
        #expect(FleetRolloutPlan.threshold(share: 1000, previous: 2251, buckets: buckets) == 4124)
        #expect(FleetRolloutPlan.threshold(share: 10_000, previous: 4124, buckets: buckets) == 10_000)
        #expect(FleetRolloutPlan.threshold(share: 100, previous: 0, buckets: []) == 100)
    }

    @Test("a step's verdict: valid at the revision applies, refusals fail, silence and lag fail only when time is up")
    func verdicts() {
        let hosts = ["web-1", "a", "host-00"]  // buckets 4123, 2250, 9736
        func status(_ host: String, _ revision: Int64, _ reasons: [FleetStatus.Reason] = []) -> FleetStatus {
            FleetStatus(host: host, domain: Self.domain.rawValue, revision: revision, digest: nil, reasons: reasons, time: Date())
        }
        let waiting = FleetRolloutPlan.verdict(
            enrolled: hosts, threshold: 5000, statuses: ["web-1": status("web-1", 10)], revision: 10, timedOut: false)
        #expect(waiting.reached == ["a", "web-1"])
        #expect(waiting.applied == ["web-1"])
        #expect(waiting.failures.isEmpty && !waiting.isSettled)
        #expect(!waiting.exceeds(maxInvalid: 0))
        let late = FleetRolloutPlan.verdict(
            enrolled: hosts, threshold: 5000, statuses: ["web-1": status("web-1", 10), "a": status("a", 9)], revision: 10, timedOut: true)
        #expect(late.failures.map(\.host) == ["a"])
        #expect(late.failures[0].reason.hasPrefix("behind"))
        #expect(late.exceeds(maxInvalid: 4999) && !late.exceeds(maxInvalid: 5000))
        let refused = FleetRolloutPlan.verdict(
            enrolled: hosts, threshold: 5000,
            statuses: ["web-1": status("web-1", 11, [.init(key: "Volume", reason: "Volume must be at most 100, not 120")]), "a": status("a", 11)],
            revision: 10, timedOut: false)
        #expect(refused.isSettled)
        #expect(refused.failures == [.init(host: "web-1", reason: "refused Volume: Volume must be at most 100, not 120")])
        #expect(refused.exceeds(maxInvalid: 200))
    }

    @Test("a step passes only when some reached host applied it, whatever --max-invalid allows")
    func silenceNeverPassesAStep() {
        let silent = FleetRolloutPlan.verdict(enrolled: ["web-1"], threshold: 10_000, statuses: [:], revision: 10, timedOut: true)
        #expect(!silent.exceeds(maxInvalid: 10_000))
        #expect(!silent.passes(maxInvalid: 10_000))
        let nobody = FleetRolloutPlan.verdict(enrolled: [], threshold: 10_000, statuses: [:], revision: 10, timedOut: true)
        #expect(!nobody.passes(maxInvalid: 0))
        let one = FleetRolloutPlan.verdict(
            enrolled: ["web-1", "a"], threshold: 10_000,
            statuses: ["web-1": FleetStatus(host: "web-1", domain: Self.domain.rawValue, revision: 10, digest: nil, reasons: [], time: Date())],
            revision: 10, timedOut: true)
        #expect(one.passes(maxInvalid: 5_000) && !one.passes(maxInvalid: 4_999))
    }

    /// A store that refuses everything while `away`, and forgets leases on demand: the two
    /// faults a real etcd gives only by being killed for longer than a lease.
    final class FaultyStore: FleetStatusStore {
        struct State {
            var away = false
            var leases: Set<Int64> = []
            var nextLease: Int64 = 1
            var keys: [String: (value: [UInt8], lease: Int64?)] = [:]
            var puts = 0
        }
        let state = Mutex(State())

        struct Away: Error {}

        func grantLease(seconds: Int64) async throws -> Int64 {
            try state.withLock { state in
                if state.away { throw Away() }
                defer { state.nextLease += 1 }
                state.leases.insert(state.nextLease)
                return state.nextLease
            }
        }

        func keepAlive(lease: Int64) async throws -> Bool {
            try state.withLock { state in
                if state.away { throw Away() }
                return state.leases.contains(lease)
            }
        }

        func put(key: String, value: [UInt8], lease: Int64?) async throws {
            try state.withLock { state in
                if state.away { throw Away() }
                if let lease, !state.leases.contains(lease) { throw FleetLeaseGone() }
                state.keys[key] = (value, lease)
                state.puts += 1
            }
        }

        func revoke(lease: Int64) async throws {
            // As an HTTP client does: a cancelled task's request is never sent.
            try Task.checkCancellation()
            state.withLock { state in
                state.leases.remove(lease)
                state.keys = state.keys.filter { $0.value.lease != lease }
            }
        }

        /// Expires every lease, with its keys, as etcd does for a holder it has not heard from.
        func expireLeases() {
            state.withLock { state in
                state.keys = state.keys.filter { $0.value.lease == nil }
                state.leases = []
            }
        }

        func status(_ key: String) -> FleetStatus? {
            state.withLock { $0.keys[key] }.flatMap { try? FleetJSON.decode(FleetStatus.self, from: $0.value) }
        }
    }

    /// Waits (bounded) for `condition`; liveness only.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    @Test("the reporter keeps the newest status through an outage and an expired lease, writes it when the store answers, and revokes on stop")
    func reporterSurvivesOutagesAndExpiry() async throws {
        let store = FaultyStore()
        let layout = FleetLayout()
        let reporter = FleetStatusReporter(
            store: store, layout: layout, enrolment: FleetEnrolment(host: "web-1", groups: ["lab"], started: Date()), leaseSeconds: 1,
            logger: Logger(label: "FleetLoopTests"))
        let task = Task { await reporter.run() }
        let key = layout.statusKey(host: "web-1", domain: Self.domain)
        func status(_ revision: Int64) -> FleetStatus {
            FleetStatus(host: "web-1", domain: Self.domain.rawValue, revision: revision, digest: nil, reasons: [], time: Date())
        }
        reporter.record(status(1))
        #expect(await Self.eventually { store.status(key)?.revision == 1 })
        #expect(store.state.withLock { $0.keys[layout.enrolmentKey(host: "web-1")]?.lease } == .some(nil))

        // Away: newer statuses replace older ones and wait; none is lost when it answers.
        store.state.withLock { $0.away = true }
        reporter.record(status(2))
        reporter.record(status(3))
        #expect(store.status(key)?.revision == 1)
        store.expireLeases()
        store.state.withLock { $0.away = false }
        #expect(await Self.eventually { store.status(key)?.revision == 3 })

        // The lease expired with the store present (etcd forgot it), and an administrator
        // deleted the enrolment meanwhile: the status and the enrolment come back.
        store.state.withLock { _ = $0.keys.removeValue(forKey: layout.enrolmentKey(host: "web-1")) }
        store.expireLeases()
        #expect(store.status(key) == nil)
        #expect(await Self.eventually { store.status(key)?.revision == 3 })
        #expect(await Self.eventually { store.state.withLock { $0.keys[layout.enrolmentKey(host: "web-1")] } != nil })

        task.cancel()
        await task.value
        #expect(store.status(key) == nil, "the lease was not revoked on stop")
        #expect(store.state.withLock { $0.keys[layout.enrolmentKey(host: "web-1")] } != nil)
    }
}
