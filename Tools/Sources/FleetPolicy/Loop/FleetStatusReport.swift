package import Foundation
import Preferences

/// The administrator's view of the fleet loop: per domain, which hosts applied the newest
/// policy that concerns them, which are behind and since when, which refused values and why,
/// and which are silent; built from one read of the etcd layout (``FleetLayout``), with no
/// etcd client, so it is tested without a cluster.
///
/// **What a host should have.** A host applies changes to `fleet/DOMAIN` and `rollouts/DOMAIN`,
/// to `groups/GROUP/DOMAIN` for the groups its status (else its enrolment) names, and to `hosts/HOST/DOMAIN` for
/// itself; its status's revision is the etcd revision of the last such change it applied. So
/// the revision a host should have reached, its ``Host/expected``, is the highest mod revision
/// among those keys that exist now. A host with a status is ``State/current`` when its revision
/// is at least that, ``State/behind`` otherwise; an enrolled host that some key of the domain
/// applies to but that has no status for it is ``State/silent`` (its lease expired, or it never
/// reported): silence never reads as success.
///
/// **Known limit.** A range read does not show deleted keys, so a delete leaves nothing whose
/// revision a host could be compared with: a host that has not applied a delete yet still
/// looks current.
///
/// **Malformed keys.** A status or enrolment that is not the JSON of ``FleetStatus`` or
/// ``FleetEnrolment``, and a key under `status/` that is neither, never stop the report: each
/// is listed in ``unreadable``, and an unreadable status makes its host ``State/unreadable``,
/// neither current nor behind.
///
/// Its JSON (``FleetJSON``, keys sorted) is what `preferences-fleet status --json` prints; a
/// field whose value is not known (the revision of a silent host) is left out.
package struct FleetStatusReport: Codable, Sendable, Hashable {
    /// Where one host stands with one domain.
    package enum State: String, Codable, Sendable, Hashable, CaseIterable {
        /// It reported a revision at least as new as the newest change that concerns it.
        case current
        /// It reported an older revision than the newest change that concerns it.
        case behind
        /// Enrolled, concerned by the domain, but without a status for it.
        case silent
        /// Its status key holds something that is not a status.
        case unreadable
    }

    /// One host's row of a domain.
    package struct Host: Codable, Sendable, Hashable {
        /// The host's name, from its status or enrolment key.
        package var host: String
        /// Where it stands.
        package var state: State
        /// The revision it reported; nil when silent or unreadable.
        package var revision: Int64?
        /// The revision it should have reached: the newest mod revision of the domain's keys
        /// that apply to it; nil when none does.
        package var expected: Int64?
        /// Whether it applied every value; nil when silent or unreadable.
        package var valid: Bool?
        /// When it applied ``revision`` (its status's time, RFC 3339): it has been on that
        /// revision since then. Nil when silent or unreadable.
        package var since: String?
        /// The digest of the managed file it wrote (``FleetStatus/digest``).
        package var digest: String?
        /// What it refused, and why; empty when valid.
        package var reasons: [FleetStatus.Reason]
        /// Why its status could not be read; nil otherwise.
        package var problem: String?
        /// For a silent host: whether it has a status for another domain, so its lease is
        /// alive and it is only late with this one (a domain new to it); nil otherwise.
        package var reportsElsewhere: Bool?

        /// Creates a row.
        package init(
            host: String, state: State, revision: Int64? = nil, expected: Int64? = nil, valid: Bool? = nil, since: String? = nil,
            digest: String? = nil, reasons: [FleetStatus.Reason] = [], problem: String? = nil, reportsElsewhere: Bool? = nil
        ) {
            self.host = host
            self.state = state
            self.revision = revision
            self.expected = expected
            self.valid = valid
            self.since = since
            self.digest = digest
            self.reasons = reasons
            self.problem = problem
            self.reportsElsewhere = reportsElsewhere
        }

        /// Whether it refused values (``valid`` is false).
        package var isInvalid: Bool { valid == false }

        /// Whether an administrator should look at it: behind, invalid, silent or unreadable.
        package var needsAttention: Bool { state != .current || isInvalid }
    }

    /// One domain: its counts and its hosts.
    package struct Domain: Codable, Sendable, Hashable {
        /// The domain.
        package var domain: String
        /// The newest mod revision among all its policy keys (every scope, every group and
        /// host), 0 when it has none left.
        package var newestRevision: Int64
        /// Hosts with a status for it (``current`` + ``behind`` + ``unreadable``): their lease
        /// is alive.
        package var live: Int
        /// Live hosts that applied the newest change concerning them.
        package var current: Int
        /// Live hosts that did not.
        package var behind: Int
        /// Live hosts that refused values, current or behind.
        package var invalid: Int
        /// Enrolled hosts it concerns that have no status for it.
        package var silent: Int
        /// Hosts whose status for it cannot be read.
        package var unreadable: Int
        /// Every host with a status for it or silent about it, by name.
        package var hosts: [Host]
    }

    /// A key under `status/` that is not a readable enrolment or status.
    package struct Unreadable: Codable, Sendable, Hashable {
        /// The etcd key.
        package var key: String
        /// What is wrong with it.
        package var reason: String
    }

    /// The etcd revision the report was read at.
    package var revision: Int64
    /// When it was made (RFC 3339): the moment "behind since" durations run to.
    package var time: String
    /// How many hosts are enrolled (have `status/HOST`, readable or not).
    package var enrolled: Int
    /// The domains, by name: each domain with a policy key or a status, or only the one asked for.
    package var domains: [Domain]
    /// Keys under `status/` that could not be read, by key.
    package var unreadable: [Unreadable]

    /// What the policy keys of one domain say about who should have which revision.
    private struct Revisions {
        /// The newest of `fleet/DOMAIN` and `rollouts/DOMAIN`: changes every host applies.
        var everyone: Int64?
        /// Per group, its key's mod revision.
        var groups: [String: Int64] = [:]
        /// Per host, its key's mod revision.
        var hosts: [String: Int64] = [:]
        /// The newest of them all.
        var newest: Int64 = 0

        /// Counts `revision` toward ``newest``.
        mutating func note(_ revision: Int64) { newest = max(newest, revision) }

        /// The revision `host`, following `groups`, should have reached; nil when no key applies.
        func expected(host: String, groups followed: [String]) -> Int64? {
            var result = everyone
            for group in followed {
                if let revision = groups[group] { result = max(result ?? revision, revision) }
            }
            if let revision = hosts[host] { result = max(result ?? revision, revision) }
            return result
        }
    }

    /// A host's status of one domain, read or not.
    private enum Reported {
        /// The status it wrote.
        case status(FleetStatus)
        /// Why what it wrote is not a status.
        case unreadable(String)
    }

    /// Builds the report from the keys of the layout and their mod revisions.
    ///
    /// - Parameters:
    ///   - layout: The layout the keys are in.
    ///   - revision: The etcd revision of the read.
    ///   - entries: The keys under the prefix: one read of the whole prefix, or a read of the
    ///     policy part (``FleetLayout/policyRangeEnd``) and one of ``FleetLayout/statusPrefix``
    ///     together; others are ignored.
    ///   - domain: Only this domain, listed even when nothing of it exists; nil for every domain.
    ///   - now: The moment of the report.
    package init(
        layout: FleetLayout, revision: Int64, entries: [(key: String, value: [UInt8], revision: Int64)], domain only: String? = nil,
        now: Date
    ) {
        var policy: [String: Revisions] = [:]
        var groupsOf: [String: [String]] = [:]
        var reported: [String: [String: Reported]] = [:]
        // Hosts with a status key of any domain: their lease is alive.
        var alive: Set<String> = []
        var unreadable: [Unreadable] = []
        for entry in entries {
            if entry.key.hasPrefix(layout.statusPrefix) {
                guard let (host, domain) = layout.statusEntry(ofKey: entry.key) else {
                    unreadable.append(Unreadable(key: entry.key, reason: "neither status/HOST nor status/HOST/DOMAIN with a valid domain"))
                    continue
                }
                if let domain {
                    alive.insert(host)
                    let name = domain.description
                    if let only, name != only { continue }
                    do {
                        reported[name, default: [:]][host] = .status(try FleetJSON.decode(FleetStatus.self, from: entry.value))
                    } catch {
                        let reason = "not a status: \(Self.describe(error))"
                        reported[name, default: [:]][host] = .unreadable(reason)
                        unreadable.append(Unreadable(key: entry.key, reason: reason))
                    }
                } else {
                    do {
                        groupsOf[host] = try FleetJSON.decode(FleetEnrolment.self, from: entry.value).groups
                    } catch {
                        // Still enrolled: silence about the fleet's and its own keys shows.
                        groupsOf[host] = []
                        unreadable.append(Unreadable(key: entry.key, reason: "not an enrolment: \(Self.describe(error))"))
                    }
                }
            } else if let key = try? FleetKey(etcdKey: entry.key, prefix: layout.prefix) {
                // As the followers read it, so a key they refuse (no valid domain) concerns no host.
                let domain = key.domain.description
                if let only, domain != only { continue }
                var revisions = policy[domain, default: Revisions()]
                revisions.note(entry.revision)
                switch key.scope {
                // A rollout's document changes every host's merge, as the fleet's key does.
                case .fleet, .rollout: revisions.everyone = max(revisions.everyone ?? entry.revision, entry.revision)
                case .group(let group): revisions.groups[group] = entry.revision
                case .host(let host): revisions.hosts[host] = entry.revision
                }
                policy[domain] = revisions
            }
        }

        var names = Set(policy.keys).union(reported.keys)
        if let only { names.insert(only) }
        domains = names.sorted().map { name in
            let revisions = policy[name] ?? Revisions()
            let statuses = reported[name] ?? [:]
            var rows: [Host] = []
            rows.reserveCapacity(statuses.count)
            for (host, report) in statuses {
                let enrolledGroups = groupsOf[host] ?? []
                switch report {
                case .status(let status):
                    // The groups the host says it follows in the status itself win: its
                    // enrolment may be gone or unreadable while it still reports.
                    let expected = revisions.expected(host: host, groups: status.groups ?? enrolledGroups)
                    rows.append(
                        Host(
                            host: host, state: status.revision >= (expected ?? 0) ? .current : .behind, revision: status.revision,
                            expected: expected, valid: status.valid, since: status.time, digest: status.digest,
                            reasons: status.reasons))
                case .unreadable(let problem):
                    let expected = revisions.expected(host: host, groups: enrolledGroups)
                    rows.append(Host(host: host, state: .unreadable, expected: expected, problem: problem))
                }
            }
            for (host, groups) in groupsOf where statuses[host] == nil {
                guard let expected = revisions.expected(host: host, groups: groups) else { continue }
                rows.append(Host(host: host, state: .silent, expected: expected, reportsElsewhere: alive.contains(host)))
            }
            rows.sort { $0.host < $1.host }
            let count = { (state: State) in rows.count { $0.state == state } }
            return Domain(
                domain: name, newestRevision: revisions.newest, live: statuses.count, current: count(.current),
                behind: count(.behind), invalid: rows.count(where: \.isInvalid), silent: count(.silent),
                unreadable: count(.unreadable), hosts: rows)
        }
        self.revision = revision
        time = FleetTime.string(now)
        enrolled = groupsOf.count
        self.unreadable = unreadable.sorted { $0.key < $1.key }
    }

    /// A decoding error in a line: JSONDecoder's descriptions run to several.
    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): "the JSON is malformed (\(context.debugDescription))"
        case DecodingError.keyNotFound(let key, _): "the field \(key.stringValue) is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "the field \(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
        default: "\(error)"
        }
    }

    /// The domain named `name`, if the report has it.
    package subscript(domain name: String) -> Domain? {
        domains.first { $0.domain == name }
    }
}
