import FleetPolicy
import Foundation
import Testing

/// The administrator's view of the fleet loop (issue 40, item 2), without etcd: which hosts are
/// current, behind, invalid, silent or unreadable from the keys of one read, and the verdict of
/// `status --wait`.
@Suite("Fleet status report")
struct FleetStatusReportTests {
    /// A key, its value and its mod revision, as one read gives them.
    typealias Entry = (key: String, value: [UInt8], revision: Int64)

    /// The default layout, under `/preferences/`.
    static let layout = FleetLayout()
    /// The domain most tests report.
    static let app = "com.example.app"
    /// The moment of every report: statuses are dated before it.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A policy key's entry (its value is never read by the report, only its mod revision).
    static func policy(_ path: String, _ revision: Int64) -> Entry {
        ("/preferences/" + path, Array("<plist/>".utf8), revision)
    }

    /// A host's enrolment.
    static func enrolment(_ host: String, groups: [String] = []) throws -> Entry {
        (layout.enrolmentKey(host: host), try FleetJSON.encode(FleetEnrolment(host: host, groups: groups, started: now)), 1)
    }

    /// A host's status of `domain`, applied `ago` seconds before ``now``.
    static func status(
        _ host: String, _ domain: String = app, revision: Int64, reasons: [FleetStatus.Reason] = [], ago: TimeInterval = 10
    ) throws -> Entry {
        let status = FleetStatus(
            host: host, domain: domain, revision: revision, digest: "sha256:00", reasons: reasons, time: now - ago)
        return ("/preferences/status/\(host)/\(domain)", try FleetJSON.encode(status), revision + 1)
    }

    /// The report of `entries`, read at `revision`.
    static func report(_ entries: [Entry], revision: Int64 = 100, domain: String? = nil) -> FleetStatusReport {
        FleetStatusReport(layout: layout, revision: revision, entries: entries, domain: domain, now: now)
    }

    @Test("a host is current or behind against the newest key that applies to it, not the domain's newest")
    func currentAndBehind() throws {
        let report = Self.report([
            Self.policy("fleet/\(Self.app)", 10),
            Self.policy("groups/lab/\(Self.app)", 20),
            Self.policy("groups/office/\(Self.app)", 40),
            Self.policy("hosts/ws-3/\(Self.app)", 30),
            try Self.enrolment("ws-1"), try Self.enrolment("ws-2", groups: ["lab"]), try Self.enrolment("ws-3", groups: ["lab"]),
            try Self.enrolment("ws-4", groups: ["lab"]),
            // ws-1 follows no group: the fleet's key is all it should have.
            try Self.status("ws-1", revision: 10),
            // ws-2 follows lab: 20, not office's 40.
            try Self.status("ws-2", revision: 25),
            // ws-3 has its own key at 30.
            try Self.status("ws-3", revision: 20, ago: 200),
            try Self.status("ws-4", revision: 15),
        ])
        let domain = try #require(report[domain: Self.app])
        #expect(domain.newestRevision == 40)
        #expect((domain.live, domain.current, domain.behind, domain.invalid, domain.silent, domain.unreadable) == (4, 2, 2, 0, 0, 0))
        #expect(domain.hosts.map(\.host) == ["ws-1", "ws-2", "ws-3", "ws-4"])
        #expect(domain.hosts.map(\.state) == [.current, .current, .behind, .behind])
        #expect(domain.hosts.map(\.expected) == [10, 20, 30, 20])
        let behind = domain.hosts[2]
        #expect(behind.revision == 20 && behind.since == FleetTime.string(Self.now - 200) && behind.digest == "sha256:00")
        #expect(report.enrolled == 4 && report.revision == 100 && report.time == FleetTime.string(Self.now))
    }

    @Test("a rollout's key is applied by every host, as the fleet's is")
    func rolloutConcernsEveryone() throws {
        let report = Self.report([
            Self.policy("fleet/\(Self.app)", 10), Self.policy("rollouts/\(Self.app)", 50),
            try Self.status("a", revision: 50), try Self.status("b", revision: 10),
        ])
        let domain = try #require(report[domain: Self.app])
        #expect(domain.hosts.map(\.state) == [.current, .behind])
        #expect(domain.hosts.map(\.expected) == [50, 50])
    }

    @Test("invalid hosts are counted whether current or behind, with their reasons")
    func invalid() throws {
        let refused = [FleetStatus.Reason(key: "Volume", reason: "Volume must be at most 100, not 120")]
        let report = Self.report([
            Self.policy("fleet/\(Self.app)", 10),
            try Self.status("a", revision: 10, reasons: refused), try Self.status("b", revision: 9, reasons: refused),
            try Self.status("c", revision: 10),
        ])
        let domain = try #require(report[domain: Self.app])
        #expect((domain.current, domain.behind, domain.invalid) == (2, 1, 2))
        #expect(domain.hosts[0].valid == false && domain.hosts[0].reasons == refused && domain.hosts[0].needsAttention)
        #expect(domain.hosts[2].valid == true && !domain.hosts[2].needsAttention)
    }

    @Test("an enrolled host without a status is silent only where some key of the domain applies to it")
    func silent() throws {
        let other = "com.example.other"
        let report = Self.report([
            Self.policy("fleet/\(Self.app)", 10),
            Self.policy("groups/lab/\(other)", 12),
            Self.policy("hosts/ws-9/\(other)", 13),
            try Self.enrolment("ws-1"), try Self.enrolment("ws-2", groups: ["lab"]), try Self.enrolment("ws-3"),
            try Self.status("ws-3", revision: 10),
        ])
        let app = try #require(report[domain: Self.app])
        #expect(app.hosts.map(\.host) == ["ws-1", "ws-2", "ws-3"])
        #expect(app.hosts.map(\.state) == [.silent, .silent, .current])
        #expect((app.live, app.silent) == (1, 2))
        #expect(app.hosts[0].revision == nil && app.hosts[0].valid == nil && app.hosts[0].expected == 10)
        // Only ws-2 follows lab; nobody enrolled is ws-9.
        let otherDomain = try #require(report[domain: other])
        #expect(otherDomain.hosts.map(\.host) == ["ws-2"] && otherDomain.silent == 1 && otherDomain.newestRevision == 13)
    }

    @Test("a status from a host that is not enrolled is live, judged as following no group")
    func statusWithoutEnrolment() throws {
        let report = Self.report([
            Self.policy("fleet/\(Self.app)", 10), Self.policy("groups/lab/\(Self.app)", 20), try Self.status("stray", revision: 10),
        ])
        let domain = try #require(report[domain: Self.app])
        #expect(domain.hosts.map(\.state) == [.current] && domain.hosts[0].expected == 10 && report.enrolled == 0)
    }

    @Test("the groups a status names win over a missing or older enrolment: a group's change concerns the host")
    func statusNamesItsGroups() throws {
        let status = FleetStatus(
            host: "ws-9", domain: Self.app, revision: 10, digest: "sha256:00", reasons: [], time: Self.now - 5, groups: ["lab"])
        let entry: Entry = ("/preferences/status/ws-9/\(Self.app)", try FleetJSON.encode(status), 11)
        for entries in [[entry], [entry, try Self.enrolment("ws-9")]] {
            let report = Self.report([Self.policy("fleet/\(Self.app)", 10), Self.policy("groups/lab/\(Self.app)", 20)] + entries)
            let host = try #require(report[domain: Self.app]?.hosts.first)
            #expect(host.state == .behind && host.expected == 20, "\(entries.count) entries")
            // So --wait for the group's change waits for it.
            #expect(report.verdict(waitingFor: 20).outcome == .pending, "\(entries.count) entries")
        }
    }

    @Test("malformed statuses, enrolments and keys under status/ are listed as unreadable, never a crash")
    func unreadable() throws {
        let report = Self.report([
            Self.policy("fleet/\(Self.app)", 10),
            ("/preferences/status/ws-1/\(Self.app)", Array("{not json".utf8), 11),
            ("/preferences/status/ws-2/\(Self.app)", Array(#"{"host":"ws-2"}"#.utf8), 12),
            ("/preferences/status/ws-3/\(Self.app)", Array(#"{"host":"ws-3","domain":"x","revision":"ten","valid":true,"reasons":[],"time":""}"#.utf8), 13),
            ("/preferences/status/ws-4", [0xFF, 0x00], 14),
            ("/preferences/status/ws-5/bad domain", Array("{}".utf8), 15),
            ("/preferences/status/ws-6/a/b", Array("{}".utf8), 16),
            ("/preferences/status/", [], 17),
            try Self.status("ws-7", revision: 10),
        ])
        let domain = try #require(report[domain: Self.app])
        // ws-4's enrolment cannot be read, but it is enrolled: silent about the fleet's key.
        #expect(domain.hosts.map(\.host) == ["ws-1", "ws-2", "ws-3", "ws-4", "ws-7"])
        #expect(domain.hosts.map(\.state) == [.unreadable, .unreadable, .unreadable, .silent, .current])
        #expect((domain.live, domain.current, domain.unreadable, domain.silent) == (4, 1, 3, 1))
        #expect(domain.hosts[1].problem?.contains("missing") == true, "\(domain.hosts[1])")
        #expect(domain.hosts[2].problem?.contains("revision") == true, "\(domain.hosts[2])")
        #expect(report.enrolled == 1)
        #expect(
            report.unreadable.map(\.key) == [
                "/preferences/status/", "/preferences/status/ws-1/\(Self.app)", "/preferences/status/ws-2/\(Self.app)",
                "/preferences/status/ws-3/\(Self.app)", "/preferences/status/ws-4", "/preferences/status/ws-5/bad domain",
                "/preferences/status/ws-6/a/b",
            ])
        #expect(report.unreadable[4].reason.hasPrefix("not an enrolment"))
    }

    @Test("keys outside the layout, other prefixes and invalid domains are ignored")
    func foreignKeys() throws {
        let report = Self.report([
            ("/other/fleet/\(Self.app)", [], 90), Self.policy("fleet/.hidden", 91), Self.policy("users/me/\(Self.app)", 92),
            Self.policy("fleet/\(Self.app)/extra", 93), Self.policy("fleet/\(Self.app)", 10),
        ])
        #expect(report.domains.map(\.domain) == [Self.app])
        #expect(report[domain: Self.app]?.newestRevision == 10)
    }

    @Test("one domain asked for is the only one, listed even when nothing of it exists")
    func oneDomain() throws {
        let entries = [Self.policy("fleet/\(Self.app)", 10), Self.policy("fleet/com.example.b", 11), try Self.status("a", revision: 10)]
        #expect(Self.report(entries).domains.map(\.domain) == [Self.app, "com.example.b"])
        #expect(Self.report(entries, domain: "com.example.b").domains.map(\.domain) == ["com.example.b"])
        let none = try #require(Self.report(entries, domain: "com.example.none").domains.first)
        #expect(none.domain == "com.example.none" && none.hosts.isEmpty && none.newestRevision == 0 && none.live == 0)
    }

    // MARK: --wait

    @Test("every live host reported when at or past the revision, or current and unconcerned by it")
    func waitReported() throws {
        // The change at 30 is lab's; ws-1 follows no group and stays at 10, unconcerned.
        let report = Self.report(
            [
                Self.policy("fleet/\(Self.app)", 10), Self.policy("groups/lab/\(Self.app)", 30),
                try Self.enrolment("ws-1"), try Self.enrolment("ws-2", groups: ["lab"]),
                try Self.status("ws-1", revision: 10), try Self.status("ws-2", revision: 30),
            ], revision: 31)
        let verdict = report.verdict(waitingFor: 30)
        #expect(verdict.outcome == .reported && verdict.live == 2 && verdict.pending.isEmpty && verdict.reached)
        // Before ws-2 has applied it, ws-2 is pending; ws-1 is not.
        let before = Self.report(
            [
                Self.policy("fleet/\(Self.app)", 10), Self.policy("groups/lab/\(Self.app)", 30),
                try Self.enrolment("ws-1"), try Self.enrolment("ws-2", groups: ["lab"]),
                try Self.status("ws-1", revision: 10), try Self.status("ws-2", revision: 10),
            ], revision: 31
        ).verdict(waitingFor: 30)
        #expect(before.outcome == .pending && before.pending.map(\.host) == ["ws-2"] && before.pending[0].revision == 10)
    }

    @Test("a behind host has not reported an older revision it has not reached either")
    func waitBehind() throws {
        // ws-1 is at 5: behind the fleet's 10, so it has not reported 8 even though 8 < 10.
        let verdict = Self.report([Self.policy("fleet/\(Self.app)", 10), try Self.status("ws-1", revision: 5)]).verdict(waitingFor: 8)
        #expect(verdict.outcome == .pending && verdict.pending.map(\.host) == ["ws-1"])
        let reached = Self.report([Self.policy("fleet/\(Self.app)", 10), try Self.status("ws-1", revision: 9)]).verdict(waitingFor: 8)
        #expect(reached.outcome == .reported)
    }

    @Test("all reported but some refused values: invalid, naming them and their reasons")
    func waitInvalid() throws {
        let refused = [FleetStatus.Reason(key: "Volume", reason: "Volume must be at most 100, not 120")]
        let verdict = Self.report([
            Self.policy("fleet/\(Self.app)", 10), try Self.status("a", revision: 10, reasons: refused), try Self.status("b", revision: 10),
        ]).verdict(waitingFor: 10)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.invalid.map(\.host) == ["a"] && verdict.invalid[0].reasons == refused && verdict.invalid[0].domain == Self.app)
        #expect(verdict.text(timedOut: false).contains("Volume: Volume must be at most 100, not 120"))
    }

    @Test("silent hosts are listed, not waited for; unreadable ones are waited for")
    func waitSilentAndUnreadable() throws {
        let entries = [
            Self.policy("fleet/\(Self.app)", 10), try Self.enrolment("gone"), try Self.status("a", revision: 10),
        ]
        let verdict = Self.report(entries).verdict(waitingFor: 10)
        #expect(verdict.outcome == .reported && verdict.silent.map(\.host) == ["gone"] && verdict.live == 1)
        #expect(verdict.text(timedOut: false).contains("silent, not waited for"))
        let garbled = Self.report(entries + [("/preferences/status/b/\(Self.app)", Array("garbage".utf8), 12)]).verdict(waitingFor: 10)
        #expect(garbled.outcome == .pending && garbled.pending.map(\.host) == ["b"] && garbled.pending[0].state == .unreadable)
    }

    @Test("a silent host that reports other domains is alive: it is waited for, not passed over")
    func waitSilentButAlive() throws {
        let other = "com.example.other"
        let entries = [
            Self.policy("fleet/\(Self.app)", 10), Self.policy("fleet/\(other)", 5),
            try Self.enrolment("new"), try Self.enrolment("gone"), try Self.enrolment("a"),
            try Self.status("a", revision: 10), try Self.status("new", other, revision: 5),
        ]
        let report = Self.report(entries, domain: Self.app)
        let rows = try #require(report[domain: Self.app]).hosts
        #expect(rows.map(\.host) == ["a", "gone", "new"] && rows.map(\.state) == [.current, .silent, .silent])
        #expect(rows.map(\.reportsElsewhere) == [nil, false, true])
        #expect(report.text.contains("  new   silent           no status yet, though it reports other domains; should be at 10"))
        let verdict = report.verdict(waitingFor: 10)
        #expect(verdict.outcome == .pending && verdict.live == 2)
        #expect(verdict.pending.map(\.host) == ["new"] && verdict.silent.map(\.host) == ["gone"])
        #expect(verdict.text(timedOut: true).contains("  new (\(Self.app)): no status yet, though it reports other domains"))
        // Once it reports, the wait is over; the dead host stays listed.
        let after = Self.report(entries + [try Self.status("new", revision: 10)], domain: Self.app).verdict(waitingFor: 10)
        #expect(after.outcome == .reported && after.silent.map(\.host) == ["gone"])
    }

    @Test("with no live host, nothing has reported: pending, not passed by everyone")
    func waitNobody() throws {
        let empty = Self.report([Self.policy("fleet/\(Self.app)", 10)]).verdict(waitingFor: 10)
        #expect(empty.outcome == .pending && empty.live == 0 && empty.pending.isEmpty)
        #expect(empty.text(timedOut: true).hasPrefix("no live host reports the domain before the timeout"))
        let dead = Self.report([Self.policy("fleet/\(Self.app)", 10), try Self.enrolment("gone")]).verdict(waitingFor: 10)
        #expect(dead.outcome == .pending && dead.silent.map(\.host) == ["gone"])
    }

    @Test("a revision etcd has not reached is pending for everyone, not reported by everyone")
    func waitFuture() throws {
        let verdict = Self.report([Self.policy("fleet/\(Self.app)", 10), try Self.status("a", revision: 10)], revision: 20)
            .verdict(waitingFor: 500)
        #expect(verdict.outcome == .pending && !verdict.reached)
        #expect(verdict.text(timedOut: true).contains("etcd has not reached revision 500"))
    }

    @Test("a wait over every domain needs every domain's live hosts")
    func waitEveryDomain() throws {
        let other = "com.example.other"
        let entries = [
            Self.policy("fleet/\(Self.app)", 10), Self.policy("fleet/\(other)", 11),
            try Self.status("a", revision: 11), try Self.status("a", other, revision: 9),
        ]
        let all = Self.report(entries).verdict(waitingFor: 11)
        #expect(all.outcome == .pending && all.pending.map(\.domain) == [other])
        #expect(Self.report(entries, domain: Self.app).verdict(waitingFor: 11).outcome == .reported)
    }

    // MARK: Output

    @Test("the JSON has the documented field names, and reads back as the same report")
    func json() throws {
        let refused = [FleetStatus.Reason(key: "Volume", reason: "too loud")]
        let report = Self.report([
            Self.policy("fleet/\(Self.app)", 10), try Self.enrolment("gone"), try Self.status("a", revision: 10, reasons: refused),
            ("/preferences/status/b/\(Self.app)", Array("x".utf8), 12),
        ])
        let bytes = try FleetJSON.encode(report)
        #expect(try FleetJSON.decode(FleetStatusReport.self, from: bytes) == report)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(Set(object.keys) == ["revision", "time", "enrolled", "domains", "unreadable"])
        let domain = try #require((object["domains"] as? [[String: Any]])?.first)
        #expect(
            Set(domain.keys) == ["domain", "newestRevision", "live", "current", "behind", "invalid", "silent", "unreadable", "hosts"])
        let hosts = try #require(domain["hosts"] as? [[String: Any]])
        #expect(Set(hosts[0].keys) == ["host", "state", "revision", "expected", "valid", "since", "digest", "reasons"])
        #expect(hosts.map { $0["state"] as? String } == ["current", "unreadable", "silent"])
        #expect(Set(hosts[1].keys) == ["host", "state", "expected", "reasons", "problem"])
        #expect(Set(hosts[2].keys) == ["host", "state", "expected", "reasons", "reportsElsewhere"])
        let verdict = try #require(
            try JSONSerialization.jsonObject(with: Data(FleetJSON.encode(report.verdict(waitingFor: 10)))) as? [String: Any])
        #expect(Set(verdict.keys) == ["revision", "outcome", "reached", "live", "pending", "invalid", "silent"])
    }

    @Test("the text is a table per domain, then the hosts that need attention")
    func text() throws {
        let refused = [FleetStatus.Reason(key: "Volume", reason: "Volume must be at most 100, not 120")]
        let report = Self.report([
            Self.policy("fleet/\(Self.app)", 10), Self.policy("fleet/com.example.quiet", 11),
            try Self.enrolment("ws-9"),
            try Self.status("ws-1", revision: 10), try Self.status("ws-2", revision: 7, ago: 192),
            try Self.status("ws-3", revision: 10, reasons: refused),
            try Self.status("ws-1", "com.example.quiet", revision: 11),
        ])
        let lines = report.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "etcd revision 100, \(FleetTime.string(Self.now)); 1 host enrolled")
        #expect(lines[1] == "DOMAIN             NEWEST  LIVE  CURRENT  BEHIND  INVALID  SILENT  UNREADABLE")
        #expect(lines[2] == "com.example.app        10     3        2       1        1       1           0")
        #expect(lines[3] == "com.example.quiet      11     1        1       0        0       1           0")
        #expect(lines.contains("com.example.app: 3 hosts need attention"))
        #expect(lines.contains("  ws-2  behind           at 7 of 10, since \(FleetTime.string(Self.now - 192)) (3m12s)"))
        #expect(lines.contains { $0.hasPrefix("  ws-3  invalid          at 10, since ") && $0.hasSuffix("refused 1 value:") })
        #expect(lines.contains("            Volume: Volume must be at most 100, not 120"))
        #expect(lines.contains { $0.hasPrefix("  ws-9  silent           no status") })
        #expect(!lines.contains { $0.hasPrefix("  ws-1") })
    }

    @Test("durations read as a person says them")
    func durations() {
        #expect(FleetStatusReport.duration(0.4) == "0s")
        #expect(FleetStatusReport.duration(45) == "45s")
        #expect(FleetStatusReport.duration(192) == "3m12s")
        #expect(FleetStatusReport.duration(2 * 3600 + 5 * 60 + 9) == "2h05m")
        #expect(FleetStatusReport.duration(3 * 86_400 + 4 * 3600) == "3d04h")
        #expect(FleetStatusReport.duration(-3) == "0s")
    }
}
