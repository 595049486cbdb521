import EtcdGateway
import FleetPolicy
import Foundation
import Preferences

/// One run of `preferences-fleet rollout` against etcd: starts, resumes or aborts the rollout
/// of one domain, and drives it step by step. Its only state is the rollout document in etcd
/// (``FleetRollout``), changed by compare-and-set on the document's revision, so a killed run
/// can be resumed by another and two runs never both drive one rollout.
struct FleetRolloutRun {
    let client: EtcdClient
    let layout: FleetLayout
    let domain: DomainName

    /// How often a step looks at the hosts' statuses.
    var pollInterval: Duration = .milliseconds(100)
    /// How long an etcd outage is ridden out (a member lost, an election) before giving up.
    var outageLimit: Duration = .seconds(120)

    private var documentKey: [UInt8] { Array(layout.rolloutKey(domain).utf8) }
    private var fleetKey: [UInt8] { Array(layout.fleetKey(domain).utf8) }

    /// Another process changed the rollout document between this run's read and its write.
    struct Conflict: Error, CustomStringConvertible {
        var description: String { "another process changed the rollout document; nothing more was done (see preferences-fleet status)" }
    }

    // MARK: Commands

    /// Starts a rollout of `policy`; returns the exit status.
    func start(policy: [UInt8], steps: [Int], maxInvalid: Int, stepTimeout: Double) async throws -> Int32 {
        let existing = try await document()
        if let (current, _) = existing, current.state == .running {
            FleetOutput.error(
                "a rollout of \(domain) (\(current.id)) is at step \(current.step + 1) of \(current.steps.count); use --resume or --abort")
            return 2
        }
        let fleet = try await hosts()
        guard !fleet.enrolled.isEmpty else {
            FleetOutput.error("no host is enrolled under \(layout.statusPrefix): no follower has started, so nobody could show the policy works")
            return 2
        }
        let now = Date()
        let fleetPolicy = try await riding { try await client.get(key: fleetKey) }
        var rollout = FleetRollout(
            id: UUID().uuidString.lowercased(), domain: domain.rawValue, policy: policy, steps: steps, maxInvalid: maxInvalid,
            stepTimeout: stepTimeout, previousRevision: fleetPolicy?.modRevision ?? 0, started: now, updated: now)
        rollout.threshold = FleetRolloutPlan.threshold(share: steps[0], previous: 0, buckets: fleet.enrolled.map(FleetCohort.bucket(of:)))
        let revision = try await publish(rollout, replacing: existing?.revision)
        announce(rollout, at: revision, enrolled: fleet.enrolled)
        return try await drive(rollout, publishedAt: revision)
    }

    /// Goes on with the rollout under way; returns the exit status.
    func resume() async throws -> Int32 {
        guard let (rollout, revision) = try await document(), rollout.state == .running else {
            FleetOutput.error("no rollout of \(domain) is under way to resume\(try await stateNote())")
            return 2
        }
        FleetOutput.line("resuming rollout \(rollout.id) of \(domain) at step \(rollout.step + 1) of \(rollout.steps.count) (revision \(revision))")
        return try await drive(rollout, publishedAt: revision)
    }

    /// Stops the rollout under way and puts the previous policy back; returns the exit status.
    func abort() async throws -> Int32 {
        guard var (rollout, revision) = try await document(), rollout.state == .running else {
            FleetOutput.error("no rollout of \(domain) is under way to abort\(try await stateNote())")
            return 2
        }
        let reached = try await hosts().enrolled.filter { FleetCohort.bucket(of: $0) < rollout.threshold }
        rollout.state = .aborted
        rollout.updated = FleetTime.string(Date())
        let aborted = try await publish(rollout, replacing: revision)
        revision = aborted
        FleetOutput.line("aborted rollout \(rollout.id) of \(domain) at revision \(aborted); the previous policy goes back to the \(Self.hosts(reached.count)) it reached")
        try await awaitReturn(of: reached, at: aborted, within: rollout.stepTimeout)
        return 0
    }

    // MARK: Steps

    /// Judges the current step, then publishes the next, until the rollout completes or stops.
    private func drive(_ initial: FleetRollout, publishedAt initialRevision: Int64) async throws -> Int32 {
        var rollout = initial
        var revision = initialRevision
        while true {
            let verdict = try await judge(rollout, publishedAt: revision)
            if !verdict.passes(maxInvalid: rollout.maxInvalid) {
                return try await stop(rollout, publishedAt: revision, verdict: verdict)
            }
            FleetOutput.line(
                "step \(rollout.step + 1) of \(rollout.steps.count): \(verdict.applied.count) of \(verdict.reached.count) reached hosts applied it"
                    + (verdict.failures.isEmpty ? "" : "; \(verdict.failures.count) within --max-invalid: " + Self.list(verdict.failures)))
            if rollout.step == rollout.steps.count - 1 {
                guard let completed = try await complete(rollout, replacing: revision) else {
                    return try await stopForChangedFleetPolicy(rollout, publishedAt: revision)
                }
                FleetOutput.line("completed rollout \(rollout.id): the policy is \(layout.fleetKey(domain)) at revision \(completed)")
                return 0
            }
            let fleet = try await hosts()
            rollout.step += 1
            rollout.threshold = FleetRolloutPlan.threshold(
                share: rollout.steps[rollout.step], previous: rollout.threshold, buckets: fleet.enrolled.map(FleetCohort.bucket(of:)))
            rollout.updated = FleetTime.string(Date())
            revision = try await publish(rollout, replacing: revision)
            announce(rollout, at: revision, enrolled: fleet.enrolled)
        }
    }

    /// Waits until every host the step reached answered at its revision, the failures are past
    /// the threshold, or the step's time is up.
    private func judge(_ rollout: FleetRollout, publishedAt revision: Int64) async throws -> FleetRolloutPlan.Verdict {
        let deadline = ContinuousClock.now + .milliseconds(Int64(rollout.stepTimeout * 1000))
        while true {
            let fleet = try await hosts()
            let timedOut = ContinuousClock.now >= deadline
            let verdict = FleetRolloutPlan.verdict(
                enrolled: fleet.enrolled, threshold: rollout.threshold, statuses: fleet.statuses, revision: revision, timedOut: timedOut)
            if verdict.isSettled || timedOut || verdict.exceeds(maxInvalid: rollout.maxInvalid) { return verdict }
            try await Task.sleep(for: pollInterval)
        }
    }

    /// Marks the rollout stopped (every host it reached goes back to the previous policy),
    /// says why, and waits for the reached hosts to report the return.
    private func stop(_ initial: FleetRollout, publishedAt revision: Int64, verdict: FleetRolloutPlan.Verdict) async throws -> Int32 {
        var rollout = initial
        rollout.state = .stopped
        rollout.failures = verdict.failures
        rollout.updated = FleetTime.string(Date())
        let stopped = try await publish(rollout, replacing: revision)
        FleetOutput.line(
            "stopped rollout \(rollout.id) of \(domain) at step \(rollout.step + 1) of \(rollout.steps.count) (revision \(stopped)): "
                + (verdict.exceeds(maxInvalid: rollout.maxInvalid)
                    ? "\(verdict.failures.count) of \(verdict.reached.count) reached hosts failed, more than --max-invalid \(Double(rollout.maxInvalid) / 100)%:"
                    : "none of the \(Self.hosts(verdict.reached.count)) it reached applied it:"))
        for failure in verdict.failures { FleetOutput.line("  \(failure.host): \(failure.reason)") }
        FleetOutput.line("the previous policy (\(layout.fleetKey(domain))) goes back to the \(Self.hosts(verdict.reached.count)) it reached")
        try await awaitReturn(of: verdict.reached, at: stopped, within: rollout.stepTimeout)
        return 1
    }

    /// Waits (up to `limit` seconds) for the `reached` hosts that are live to report `revision`,
    /// the previous policy's return, and says how many did; a silent host cannot, and is named.
    private func awaitReturn(of reached: [String], at revision: Int64, within limit: Double) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int64(limit * 1000))
        var back: [String] = []
        while true {
            let statuses = try await hosts().statuses
            back = reached.filter { (statuses[$0]?.revision ?? 0) >= revision }
            // A silent host (no live status) cannot report: it is named, not waited for.
            let waiting = reached.filter { statuses[$0] != nil && !back.contains($0) }
            if waiting.isEmpty || ContinuousClock.now >= deadline { break }
            try await Task.sleep(for: pollInterval)
        }
        let missing = reached.filter { !back.contains($0) }
        FleetOutput.line(
            "previous policy reported back by \(back.count) of \(reached.count) reached hosts"
                + (missing.isEmpty ? "" : "; not (yet) by " + missing.joined(separator: ", ")))
    }

    private func announce(_ rollout: FleetRollout, at revision: Int64, enrolled: [String]) {
        let reached = enrolled.filter { FleetCohort.bucket(of: $0) < rollout.threshold }.sorted()
        FleetOutput.line(
            "rollout \(rollout.id) of \(domain): step \(rollout.step + 1) of \(rollout.steps.count) (\(Double(rollout.steps[rollout.step]) / 100)%) "
                + "reaches \(reached.count) of \(enrolled.count) hosts at revision \(revision)"
                + (reached.count <= 10 ? ": " + reached.joined(separator: ", ") : ""))
    }

    /// "1 host", "3 hosts".
    private static func hosts(_ count: Int) -> String {
        count == 1 ? "1 host" : "\(count) hosts"
    }

    private static func list(_ failures: [FleetRollout.Failure]) -> String {
        failures.map { "\($0.host) (\($0.reason))" }.joined(separator: ", ")
    }

    // MARK: etcd

    /// The rollout document and its revision, nil when there is none.
    private func document() async throws -> (rollout: FleetRollout, revision: Int64)? {
        guard let stored = try await riding({ try await client.get(key: documentKey) }) else { return nil }
        do {
            return (try FleetJSON.decode(FleetRollout.self, from: stored.value), stored.modRevision)
        } catch {
            throw UnreadableDocument(key: layout.rolloutKey(domain), reason: "\(error)")
        }
    }

    /// The rollout document is not a rollout: neither resumed nor replaced, since what it says
    /// about the hosts it reached is unknown.
    struct UnreadableDocument: Error, CustomStringConvertible {
        var key: String
        var reason: String
        var description: String {
            "the rollout document \(key) is not a rollout (\(reason)); hosts refuse it and keep what they last took from it. Delete the key (etcdctl del \(key)) to start again"
        }
    }

    /// ", it is stopped" and the like, for an error about a rollout that is not running.
    private func stateNote() async throws -> String {
        guard let (rollout, _) = try await document() else { return "" }
        return " (rollout \(rollout.id) is \(rollout.state.rawValue))"
    }

    /// The enrolled hosts and each live host's status of the domain, from one read.
    private func hosts() async throws -> (enrolled: [String], statuses: [String: FleetStatus]) {
        let range = try await riding { try await client.range(prefix: Array(layout.statusPrefix.utf8)) }
        var enrolled: [String] = []
        var statuses: [String: FleetStatus] = [:]
        for keyValue in range.keyValues {
            guard let entry = layout.statusEntry(ofKey: String(decoding: keyValue.key, as: UTF8.self)) else { continue }
            switch entry.domain {
            case nil:
                enrolled.append(entry.host)
            case domain?:
                // A status that cannot be read counts as none: the host is silent, not valid.
                if let status = try? FleetJSON.decode(FleetStatus.self, from: keyValue.value) { statuses[entry.host] = status }
            default:
                continue
            }
        }
        return (enrolled.sorted(), statuses)
    }

    /// Puts the document if it is still at `revision` (absent, for nil); returns the put's
    /// revision. A put that etcd applied though its answer was lost (a member died) is found
    /// by reading the document back.
    private func publish(_ rollout: FleetRollout, replacing revision: Int64?) async throws -> Int64 {
        let bytes = try FleetJSON.encode(rollout)
        return try await compareAndSet(expecting: revision, then: [.put(key: documentKey, value: bytes)], document: bytes)
    }

    /// Puts the policy as the fleet's and marks the rollout completed, at one revision, if
    /// nobody changed the fleet's policy since the rollout began; nil if somebody did.
    private func complete(_ initial: FleetRollout, replacing revision: Int64) async throws -> Int64? {
        var rollout = initial
        rollout.state = .completed
        rollout.updated = FleetTime.string(Date())
        let bytes = try FleetJSON.encode(rollout)
        let policy = rollout.policyBytes ?? []
        // An administrator who changed fleet/DOMAIN by hand meanwhile (a fix of the old policy)
        // must not see the fix overwritten without a word.
        let unchanged: EtcdComparison =
            rollout.previousRevision == 0 ? .absent(key: fleetKey) : .modRevision(key: fleetKey, equals: rollout.previousRevision)
        do {
            return try await compareAndSet(
                expecting: revision, also: [unchanged], then: [.put(key: fleetKey, value: policy), .put(key: documentKey, value: bytes)],
                document: bytes)
        } catch is Conflict {
            let current = try await riding { try await client.get(key: fleetKey) }
            if (current?.modRevision ?? 0) != rollout.previousRevision { return nil }
            throw Conflict()
        }
    }

    /// Stops a rollout whose last step passed but whose fleet policy was changed by hand
    /// meanwhile: every host it reached goes back to that policy; exit status 2.
    private func stopForChangedFleetPolicy(_ initial: FleetRollout, publishedAt revision: Int64) async throws -> Int32 {
        var rollout = initial
        rollout.state = .stopped
        rollout.updated = FleetTime.string(Date())
        let stopped = try await publish(rollout, replacing: revision)
        FleetOutput.error(
            "\(layout.fleetKey(domain)) was changed by someone else during the rollout (it was at revision \(rollout.previousRevision)); "
                + "rollout \(rollout.id) is stopped at revision \(stopped) and every host has that policy. Start the rollout again to put this one")
        return 2
    }

    private func compareAndSet(
        expecting revision: Int64?, also conditions: [EtcdComparison] = [], then operations: [EtcdOperation], document bytes: [UInt8]
    ) async throws -> Int64 {
        let condition: EtcdComparison = revision.map { .modRevision(key: documentKey, equals: $0) } ?? .absent(key: documentKey)
        return try await riding {
            let result = try await client.transaction(if: [condition] + conditions, then: operations)
            if result.succeeded { return result.revision }
            // Ours already, from an attempt whose answer was lost on a member that died.
            if let stored = try await client.get(key: documentKey), stored.value == bytes { return stored.modRevision }
            throw Conflict()
        }
    }

    /// Runs `operation`, riding out etcd being unreachable (every endpoint failed: a member
    /// lost while the others elect) for up to ``outageLimit``.
    private func riding<Result>(_ operation: () async throws -> Result) async throws -> Result {
        let deadline = ContinuousClock.now + outageLimit
        var delay = Duration.milliseconds(200)
        while true {
            do {
                return try await operation()
            } catch EtcdError.unavailable(let reason) where ContinuousClock.now < deadline {
                FleetOutput.error("etcd is unavailable (\(reason)); trying again")
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(2))
            }
        }
    }
}
