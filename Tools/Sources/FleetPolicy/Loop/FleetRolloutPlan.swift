import Foundation

/// The decisions of a staged rollout, apart from etcd: how far each step reaches, and whether
/// the hosts it reached let it go on. `preferences-fleet rollout` asks these and writes the
/// answers into the rollout document (``FleetRollout``).
package enum FleetRolloutPlan {
    /// Reads a share such as `1%`, `0.5%` or `100%` as basis points (1% = 100).
    ///
    /// - Returns: nil for anything else, or a share outside 0%–100%.
    package static func basisPoints(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasSuffix("%"), let percent = Double(trimmed.dropLast()), percent.isFinite, (0...100).contains(percent) else { return nil }
        return Int((percent * 100).rounded())
    }

    /// Reads `--steps` (`1%,10%,100%`): rising shares, at least one below 100%, the last 100%.
    ///
    /// - Throws: ``FleetRolloutPlanError`` naming what is wrong.
    package static func steps(_ text: String) throws(FleetRolloutPlanError) -> [Int] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var steps: [Int] = []
        for part in parts {
            guard let share = basisPoints(part), share > 0 else {
                throw FleetRolloutPlanError("\(part.isEmpty ? "an empty step" : part) is not a share such as 1% or 100%")
            }
            guard share > (steps.last ?? 0) else { throw FleetRolloutPlanError("the steps must rise: \(part) does not follow \(Double(steps.last ?? 0) / 100)%") }
            steps.append(share)
        }
        guard steps.last == FleetCohort.buckets else { throw FleetRolloutPlanError("the last step must be 100%, so the rollout ends with every host") }
        // No policy reaches everyone before a few have shown it works.
        guard steps.count >= 2 else {
            throw FleetRolloutPlanError("a rollout needs a step before 100%, a canary; to give every host a policy at once, put it at fleet/DOMAIN")
        }
        return steps
    }

    /// The bucket threshold of a step: its share of the buckets, but never below the
    /// previous step's, and high enough that the step reaches at least one enrolled host the
    /// previous did not (on a small fleet, 1% of the buckets may hold no host at all, and a
    /// step that reaches nobody proves nothing). The last step reaches every bucket.
    ///
    /// - Parameters:
    ///   - share: The step's share, in basis points.
    ///   - previous: The previous step's threshold (0 before the first).
    ///   - buckets: The ``FleetCohort`` buckets of the enrolled hosts.
    package static func threshold(share: Int, previous: Int, buckets: [Int]) -> Int {
        if share >= FleetCohort.buckets { return FleetCohort.buckets }
        var threshold = max(share, previous)
        let added = buckets.filter { $0 >= previous && $0 < threshold }
        if added.isEmpty, let next = buckets.filter({ $0 >= previous }).min() {
            threshold = next + 1
        }
        return min(threshold, FleetCohort.buckets)
    }

    /// Where a step stands with the hosts it reached.
    package struct Verdict: Sendable, Hashable {
        /// The hosts reached, by name.
        package var reached: [String]
        /// Reached hosts that reported the step's revision (or later) as valid.
        package var applied: [String]
        /// Reached hosts that count against the step: those that refused values, and (once
        /// the step's time is up) those silent or still behind. Sorted by host.
        package var failures: [FleetRollout.Failure]
        /// Reached hosts not heard from at the step's revision yet (silent or behind).
        package var waiting: [FleetRollout.Failure]

        /// Whether the failures are over `maxInvalid` basis points of the hosts reached.
        package func exceeds(maxInvalid: Int) -> Bool {
            failures.count * FleetCohort.buckets > maxInvalid * max(reached.count, 1)
        }

        /// Whether the step lets the rollout go on: within `maxInvalid`, and at least one
        /// reached host applied it, so that no failure share (not even 100%) lets a step pass
        /// on silence alone.
        package func passes(maxInvalid: Int) -> Bool {
            !exceeds(maxInvalid: maxInvalid) && !applied.isEmpty
        }

        /// Whether every reached host has answered (applied or refused).
        package var isSettled: Bool { waiting.isEmpty }
    }

    /// Judges a step from the hosts' statuses.
    ///
    /// - Parameters:
    ///   - enrolled: The enrolled hosts.
    ///   - threshold: The step's bucket threshold: the hosts below it are reached.
    ///   - statuses: Each live host's status of the domain.
    ///   - revision: The revision the step was published at: a reached host has answered
    ///     when its status is at or after it.
    ///   - timedOut: Whether the step's time is up: hosts still waiting then count as failures.
    package static func verdict(
        enrolled: [String], threshold: Int, statuses: [String: FleetStatus], revision: Int64, timedOut: Bool
    ) -> Verdict {
        let reached = enrolled.filter { FleetCohort.bucket(of: $0) < threshold }.sorted()
        var verdict = Verdict(reached: reached, applied: [], failures: [], waiting: [])
        for host in reached {
            guard let status = statuses[host] else {
                verdict.waiting.append(FleetRollout.Failure(host: host, reason: "silent: no live status (its follower stopped or cannot reach etcd)"))
                continue
            }
            guard status.revision >= revision else {
                verdict.waiting.append(
                    FleetRollout.Failure(host: host, reason: "behind: still at revision \(status.revision), not \(revision), since \(status.time)"))
                continue
            }
            if status.valid {
                verdict.applied.append(host)
            } else {
                let reasons = status.reasons.map { $0.key.isEmpty ? $0.reason : "\($0.key): \($0.reason)" }
                verdict.failures.append(FleetRollout.Failure(host: host, reason: "refused " + reasons.joined(separator: "; ")))
            }
        }
        if timedOut {
            verdict.failures += verdict.waiting
            verdict.failures.sort { $0.host < $1.host }
        }
        return verdict
    }
}

/// A rollout's steps or shares cannot be used, and why.
package struct FleetRolloutPlanError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    package let description: String

    /// Creates the error.
    package init(_ description: String) {
        self.description = description
    }
}
