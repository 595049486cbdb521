import FleetPolicy
import Foundation
import Logging
import Preferences
import Synchronization
import TestSupport
import Testing

/// The follower's bookkeeping against a scripted source: replays, compactions and losses that a
/// real etcd produces only by chance (a reconnect whose first response repeats a revision) are
/// injected here; FleetServiceTests runs the real service against real clusters.
@Suite("Following fleet policy")
struct FleetFollowerTests {
    /// A source that plays one script per call: each `changes` call takes the next stream.
    final class ScriptedSource: FleetPolicySource, @unchecked Sendable {
        // Safety: every property is behind the mutex.
        struct Script {
            var snapshots: [FleetSnapshot]
            /// Each stream's batches, and the error it ends with (nil: it stays open).
            var streams: [(batches: [[FleetChange]], end: (any Error)?)]
            var snapshotCalls = 0
            var changeCalls: [Int64] = []
        }

        let script: Mutex<Script>

        init(snapshots: [FleetSnapshot], streams: [(batches: [[FleetChange]], end: (any Error)?)]) {
            script = Mutex(Script(snapshots: snapshots, streams: streams))
        }

        func snapshot(prefix: String) async throws -> FleetSnapshot {
            try script.withLock { script in
                guard !script.snapshots.isEmpty else { throw CancellationError() }
                script.snapshotCalls += 1
                return script.snapshots.removeFirst()
            }
        }

        func changes(prefix: String, from revision: Int64) -> AsyncThrowingStream<[FleetChange], any Error> {
            let next = script.withLock { script -> (batches: [[FleetChange]], end: (any Error)?)? in
                script.changeCalls.append(revision)
                return script.streams.isEmpty ? nil : script.streams.removeFirst()
            }
            return AsyncThrowingStream { continuation in
                guard let next else {
                    // Nothing left to play: the follower is done, as a cancelled service is.
                    continuation.finish(throwing: CancellationError())
                    return
                }
                for batch in next.batches { continuation.yield(batch) }
                if let end = next.end { continuation.finish(throwing: end) } else { continuation.finish() }
            }
        }
    }

    struct Lost: Error {}

    static func plist(_ values: [String: Int]) -> [UInt8] {
        let body = values.sorted { $0.key < $1.key }.map { "<key>\($0.key)</key><integer>\($0.value)</integer>" }.joined()
        return Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict>\(body)</dict></plist>".utf8)
    }

    static func put(_ key: String, _ values: [String: Int], at revision: Int64) -> FleetChange {
        FleetChange(key: key, kind: .put(plist(values)), revision: revision)
    }

    func run(_ source: ScriptedSource, home: PrivatePreferencesHome) async -> [FleetFollower.Event] {
        let files = PreferenceFiles(configuration: PreferenceStore.Configuration(environment: home.environment))
        var follower = FleetFollower(
            source: source, policy: FleetPolicy(hostname: "h"), files: files, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        follower.firstRetryDelay = .milliseconds(1)
        let events = Mutex<[FleetFollower.Event]>([])
        await follower.run { event in events.withLock { $0.append(event) } }
        return events.withLock { $0 }
    }

    /// The managed file's values as they are on disk now. Not through this process's shared
    /// instance of the file: the follower writes as the managed layer's own writer, which
    /// that instance hears of as another process's commit, on its watcher thread a moment
    /// later, so a read through it just after may still see the value before.
    static func managed(_ home: PrivatePreferencesHome, _ domain: String) -> [String: PropertyListValue]? {
        try? domainValuesOnDisk(atPath: "\(home.systemDirectory)/managed/\(domain).plist")
    }

    @Test("after a loss it follows on from the revision after the last applied, and a repeated revision is not applied again")
    func resumesWithoutReapplying() async throws {
        let home = try PrivatePreferencesHome()
        let a = "/preferences/fleet/com.example.a", b = "/preferences/fleet/com.example.b"
        let source = ScriptedSource(
            snapshots: [FleetSnapshot(revision: 1, entries: [])],
            streams: [
                ([[Self.put(a, ["n": 2], at: 2)], [Self.put(a, ["n": 3], at: 3)]], Lost()),
                // The reconnect's first response repeats revision 3 with another value: it must
                // not be applied a second time. Revision 5 is one transaction over two domains.
                ([[Self.put(a, ["n": 99], at: 3), Self.put(a, ["n": 4], at: 4)], [Self.put(a, ["n": 5], at: 5), Self.put(b, ["m": 5], at: 5)]], nil),
            ])
        let events = await run(source, home: home)
        let applied = events.compactMap { event -> (Int64, [String])? in
            if case .applied(let revision, let domains) = event { (revision, domains.map(\.rawValue)) } else { nil }
        }
        #expect(applied.map(\.0) == [2, 3, 4, 5])
        #expect(applied.last?.1 == ["com.example.a", "com.example.b"], "one revision's changes are written together")
        #expect(source.script.withLock { $0.changeCalls } == [2, 4, 6])
        #expect(Self.managed(home, "com.example.a") == ["n": 5])
        #expect(Self.managed(home, "com.example.b") == ["m": 5])
    }

    @Test("a compaction past the last applied revision reads the whole prefix again, dropping keys deleted meanwhile")
    func compactionResynchronizes() async throws {
        let home = try PrivatePreferencesHome()
        let a = "/preferences/fleet/com.example.a", b = "/preferences/fleet/com.example.b"
        let source = ScriptedSource(
            snapshots: [
                FleetSnapshot(revision: 2, entries: [(a, Self.plist(["n": 1]), 1), (b, Self.plist(["m": 1]), 2)]),
                // Meanwhile b was deleted and a changed, and the history was compacted.
                FleetSnapshot(revision: 9, entries: [(a, Self.plist(["n": 9]), 9)]),
            ],
            streams: [([], FleetCompaction(compactRevision: 8)), ([], CancellationError())])
        #expect(Self.managed(home, "com.example.b") == nil)
        let events = await run(source, home: home)
        let synchronized = events.compactMap { event -> Int64? in
            if case .synchronized(let revision) = event { revision } else { nil }
        }
        #expect(synchronized == [2, 9])
        #expect(source.script.withLock { $0.changeCalls } == [3, 10])
        #expect(Self.managed(home, "com.example.a") == ["n": 9])
        #expect(Self.managed(home, "com.example.b") == nil, "a domain whose keys were deleted during the gap loses its file")
    }

    @Test("a managed file this service wrote for a domain no longer in etcd is removed at start; one an administrator installed is kept")
    func staleFilesAtStart() async throws {
        let home = try PrivatePreferencesHome()
        let files = PreferenceFiles(configuration: PreferenceStore.Configuration(environment: home.environment))
        try files.replaceManagedDomain(["k": 1], named: "com.example.ours", origin: CommitOrigin(summary: "fleet policy /preferences/fleet/com.example.ours at revision 3"))
        try files.replaceManagedDomain(["k": 1], named: "com.example.admin")
        let source = ScriptedSource(snapshots: [FleetSnapshot(revision: 5, entries: [])], streams: [([], nil)])
        _ = await run(source, home: home)
        #expect(Self.managed(home, "com.example.ours") == nil)
        #expect(Self.managed(home, "com.example.admin") == ["k": 1])
    }

    /// A status store that keeps what it is given (the real one is etcd: FleetLoopProofTests).
    final class RecordingStore: FleetStatusStore {
        let statuses = Mutex<[String: FleetStatus]>([:])
        func grantLease(seconds: Int64) async throws -> Int64 { 1 }
        func keepAlive(lease: Int64) async throws -> Bool { true }
        func put(key: String, value: [UInt8], lease: Int64?) async throws {
            guard let status = try? FleetJSON.decode(FleetStatus.self, from: value) else { return }
            statuses.withLock { $0[key] = status }
        }
        func revoke(lease: Int64) async throws {}
    }

    /// Runs the follower over `source` with a reporter, and returns the status it last
    /// reported for `domain` once that status is at `revision`.
    func status(after source: ScriptedSource, home: PrivatePreferencesHome, domain: String, revision: Int64) async throws -> FleetStatus {
        let store = RecordingStore()
        let reporter = FleetStatusReporter(
            store: store, layout: FleetLayout(), enrolment: FleetEnrolment(host: "h", groups: [], started: Date()), leaseSeconds: 10,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let reporting = Task { await reporter.run() }
        defer { reporting.cancel() }
        let files = PreferenceFiles(configuration: PreferenceStore.Configuration(environment: home.environment))
        var follower = FleetFollower(
            source: source, policy: FleetPolicy(hostname: "h"), files: files, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        follower.firstRetryDelay = .milliseconds(1)
        follower.reporter = reporter
        await follower.run()
        let key = FleetLayout().statusKey(host: "h", domain: try DomainName(domain))
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let status = store.statuses.withLock({ $0[key] }), status.revision == revision { return status }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CancellationError()
    }

    @Test("the status names what was refused (an unusable etcd value, a value the schema refuses) and the digest of what was written")
    func statusSaysWhatWasApplied() async throws {
        let home = try PrivatePreferencesHome()
        try FileManager.default.createDirectory(atPath: home.schemaDirectory, withIntermediateDirectories: true)
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>Keys</key><dict>
            <key>n</key><dict><key>Type</key><string>integer</string><key>Maximum</key><integer>100</integer></dict>
            </dict></dict></plist>
            """.utf8
        ).write(to: URL(fileURLWithPath: home.schemaDirectory + "/com.example.a.plist"))
        let a = "/preferences/fleet/com.example.a"

        // A value that is not a property list: refused, named by its etcd key; the file keeps n = 1.
        let garbage = ScriptedSource(
            snapshots: [FleetSnapshot(revision: 1, entries: [(a, Self.plist(["n": 1]), 1)])],
            streams: [([[FleetChange(key: a, kind: .put(Array("junk".utf8)), revision: 2)]], CancellationError())])
        let refused = try await status(after: garbage, home: home, domain: "com.example.a", revision: 2)
        #expect(!refused.valid)
        #expect(refused.reasons.map(\.key) == [a])
        #expect(refused.reasons.first?.reason.contains("not an XML or binary property list") == true)
        #expect(Self.managed(home, "com.example.a") == ["n": 1])

        // A value over the schema's maximum: refused by key, in defaults' words; n keeps 1.
        let tooLarge = ScriptedSource(
            snapshots: [FleetSnapshot(revision: 3, entries: [(a, Self.plist(["n": 1, "m": 2]), 3)])],
            streams: [([[Self.put(a, ["n": 120, "m": 3], at: 4)]], CancellationError())])
        let invalid = try await status(after: tooLarge, home: home, domain: "com.example.a", revision: 4)
        #expect(!invalid.valid)
        #expect(invalid.reasons.map(\.key) == ["n"])
        #expect(invalid.reasons.first?.reason.hasPrefix("n ") == true && invalid.reasons.first?.reason.hasSuffix(", not 120") == true)
        #expect(Self.managed(home, "com.example.a") == ["n": 1, "m": 3])

        // A good value: valid, and the digest is the managed file's.
        let good = ScriptedSource(
            snapshots: [FleetSnapshot(revision: 5, entries: [(a, Self.plist(["n": 7]), 5)])], streams: [([], CancellationError())])
        let applied = try await status(after: good, home: home, domain: "com.example.a", revision: 5)
        #expect(applied.valid && applied.reasons.isEmpty)
        let bytes = try #require(FileManager.default.contents(atPath: home.systemDirectory + "/managed/com.example.a.plist"))
        #expect(applied.digest == FleetStatus.digest(of: bytes))
        #expect(applied.host == "h" && applied.domain == "com.example.a")
    }

    @Test("after a compaction, a domain whose only key was refused and then deleted in the gap reports valid again")
    func compactionClearsAStaleRefusal() async throws {
        let home = try PrivatePreferencesHome()
        let a = "/preferences/fleet/com.example.a", b = "/preferences/fleet/com.example.b"
        let source = ScriptedSource(
            snapshots: [
                FleetSnapshot(revision: 2, entries: [(a, Array("junk".utf8), 1), (b, Self.plist(["m": 1]), 2)]),
                // Meanwhile the refused key was deleted, and the history compacted.
                FleetSnapshot(revision: 9, entries: [(b, Self.plist(["m": 1]), 2)]),
            ],
            streams: [([], FleetCompaction(compactRevision: 8)), ([], CancellationError())])
        let status = try await status(after: source, home: home, domain: "com.example.a", revision: 9)
        #expect(status.valid, "\(status.reasons)")
    }

    /// A status store whose every call hangs until cancelled: an etcd that accepts the
    /// connection and never answers.
    final class HangingStore: FleetStatusStore {
        func hang() async throws -> Never {
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
        func grantLease(seconds: Int64) async throws -> Int64 { try await hang() }
        func keepAlive(lease: Int64) async throws -> Bool { try await hang() }
        func put(key: String, value: [UInt8], lease: Int64?) async throws { try await hang() }
        func revoke(lease: Int64) async throws { try await hang() }
    }

    @Test("a status store that never answers does not hold up applying policy")
    func statusNeverDelaysApplying() async throws {
        let home = try PrivatePreferencesHome()
        let reporter = FleetStatusReporter(
            store: HangingStore(), layout: FleetLayout(), enrolment: FleetEnrolment(host: "h", groups: [], started: Date()),
            leaseSeconds: 10, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let reporting = Task { await reporter.run() }
        defer { reporting.cancel() }
        let a = "/preferences/fleet/com.example.a"
        let source = ScriptedSource(
            snapshots: [FleetSnapshot(revision: 1, entries: [(a, Self.plist(["n": 1]), 1)])],
            streams: [((2...20).map { [Self.put(a, ["n": $0], at: Int64($0))] }, CancellationError())])
        let files = PreferenceFiles(configuration: PreferenceStore.Configuration(environment: home.environment))
        var follower = FleetFollower(
            source: source, policy: FleetPolicy(hostname: "h"), files: files, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        follower.reporter = reporter
        await follower.run()
        // Every revision applied while no status could be written; the newest waits.
        #expect(Self.managed(home, "com.example.a") == ["n": 20])
        #expect(reporter.unwrittenCount == 1)
    }
}

