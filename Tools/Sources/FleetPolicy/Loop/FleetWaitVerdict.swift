/// Whether the fleet has taken a change, as `preferences-fleet status --wait REVISION` decides
/// it from one ``FleetStatusReport``.
///
/// A live host (one with a status) has **reported** the change at `REVISION` when its status's
/// revision is at least `REVISION`, or when it is current and the newest change that concerns
/// it is older than `REVISION` (the change did not concern it: another group's or host's key,
/// another domain). A host with an unreadable status has not reported. A silent host whose
/// lease is alive (it has a status for another domain) is late, not gone: it has not reported
/// either. Other silent hosts are not waited for (their lease is gone, or they never reported
/// at all; no status will come from a dead one) but are listed, so their silence is never
/// taken for success. With no live host at all, nothing has reported: the wait goes on.
package struct FleetWaitVerdict: Codable, Sendable, Hashable {
    /// What the wait can conclude.
    package enum Outcome: String, Codable, Sendable, Hashable {
        /// Every live host reported the change, and every one applied all its values.
        case reported
        /// Every live host reported the change, but some refused values.
        case invalid
        /// Some live host has not reported it yet, no host is live, or etcd has not reached
        /// the revision.
        case pending
    }

    /// A host the verdict names.
    package struct Host: Codable, Sendable, Hashable {
        /// The host.
        package var host: String
        /// The domain.
        package var domain: String
        /// Where it stands in the domain.
        package var state: FleetStatusReport.State
        /// The revision it reported; nil when silent or unreadable.
        package var revision: Int64?
        /// What it refused, and why.
        package var reasons: [FleetStatus.Reason]
        /// Why its status could not be read.
        package var problem: String?
    }

    /// The revision waited for.
    package var revision: Int64
    /// What the wait concludes.
    package var outcome: Outcome
    /// Whether etcd had reached ``revision`` when the report was read: a revision from the
    /// future is reported by no one, not trivially by everyone.
    package var reached: Bool
    /// How many live hosts were judged: those with a status, and silent ones whose lease is
    /// alive; each host counts once per domain.
    package var live: Int
    /// Live hosts that have not reported the revision, and silent ones whose lease is alive
    /// (they report other domains), by domain and host.
    package var pending: [Host]
    /// Live hosts that reported it but refused values, by domain and host.
    package var invalid: [Host]
    /// Enrolled hosts without a status, by domain and host: not waited for, never success.
    package var silent: [Host]
}

extension FleetStatusReport {
    /// Whether every live host of the report's domains has reported the change at `revision`.
    package func verdict(waitingFor revision: Int64) -> FleetWaitVerdict {
        let reached = self.revision >= revision
        var live = 0
        var pending: [FleetWaitVerdict.Host] = []
        var invalid: [FleetWaitVerdict.Host] = []
        var silent: [FleetWaitVerdict.Host] = []
        for domain in domains {
            for row in domain.hosts {
                let named = FleetWaitVerdict.Host(
                    host: row.host, domain: domain.domain, state: row.state, revision: row.revision, reasons: row.reasons,
                    problem: row.problem)
                if row.state == .silent {
                    // Alive, and yet to write its first status of this domain: wait for it.
                    if row.reportsElsewhere == true {
                        live += 1
                        pending.append(named)
                    } else {
                        silent.append(named)
                    }
                    continue
                }
                live += 1
                guard let applied = row.revision else {
                    pending.append(named)
                    continue
                }
                let unconcerned = row.state == .current && (row.expected ?? 0) < revision
                if reached && (applied >= revision || unconcerned) {
                    if row.isInvalid { invalid.append(named) }
                } else {
                    pending.append(named)
                }
            }
        }
        // No live host at all is no one having reported, not everyone: a fleet whose followers
        // have not started yet must not pass.
        let outcome: FleetWaitVerdict.Outcome =
            !reached || !pending.isEmpty || live == 0 ? .pending : invalid.isEmpty ? .reported : .invalid
        return FleetWaitVerdict(
            revision: revision, outcome: outcome, reached: reached, live: live, pending: pending, invalid: invalid, silent: silent)
    }
}
