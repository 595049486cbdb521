package import Foundation

/// A staged rollout of a domain's fleet-wide policy, at `<prefix>rollouts/DOMAIN`
/// (``FleetLayout/rolloutKey(_:)``), in JSON: the rollout's whole progress lives here, so it
/// survives its own process and any etcd member.
///
/// While ``state`` is ``State/running``, a host whose ``FleetCohort`` bucket is below
/// ``threshold`` takes ``policy`` in place of the domain's `fleet/DOMAIN` value; every other
/// host, and every host once the rollout stopped or was aborted, keeps `fleet/DOMAIN` (the
/// previous policy, which the rollout never touches until it completes). Completing puts
/// ``policy`` at `fleet/DOMAIN` and marks the rollout ``State/completed`` in one etcd
/// transaction. Group and host keys still beat either, as they beat the fleet's.
package struct FleetRollout: Codable, Sendable, Hashable {
    /// Where a rollout is.
    package enum State: String, Codable, Sendable, Hashable {
        /// Going on: hosts below the threshold take the new policy.
        case running
        /// Stopped by too many invalid or silent hosts: every host has the previous policy.
        case stopped
        /// Stopped by the administrator: every host has the previous policy.
        case aborted
        /// Every step passed: the new policy is the domain's fleet policy.
        case completed
    }

    /// A host that counted against a step, and why.
    package struct Failure: Codable, Sendable, Hashable {
        /// The host.
        package var host: String
        /// Why: the reasons it reported, or that it was silent or behind.
        package var reason: String

        /// Creates a failure.
        package init(host: String, reason: String) {
            self.host = host
            self.reason = reason
        }
    }

    /// A random id, so a resumed rollout is known as the same one.
    package var id: String
    /// The domain.
    package var domain: String
    /// The new policy: the bytes of the policy file, base64.
    package var policy: String
    /// The steps, as the share of the fleet each reaches in basis points (100 = 1%), rising,
    /// the last 10,000.
    package var steps: [Int]
    /// The most invalid or silent hosts a step may have, in basis points of the hosts it reached.
    package var maxInvalid: Int
    /// How long a step waits for its hosts' status, in seconds.
    package var stepTimeout: Double
    /// The mod revision of `<prefix>fleet/DOMAIN` when the rollout began (0: it did not
    /// exist): completing puts the policy there only if it is still the same.
    package var previousRevision: Int64
    /// The index in ``steps`` of the step under way (or the last one, once finished).
    package var step: Int
    /// The hosts whose bucket is below this take ``policy``: at least the step's share, and
    /// at least one more enrolled host than the step before.
    package var threshold: Int
    /// Where the rollout is.
    package var state: State
    /// The hosts that stopped it, and why; empty otherwise.
    package var failures: [Failure]
    /// When it began (RFC 3339).
    package var started: String
    /// When it last changed (RFC 3339).
    package var updated: String

    /// The policy's bytes; nil when ``policy`` is not base64.
    package var policyBytes: [UInt8]? { Data(base64Encoded: policy).map(Array.init) }

    /// Whether `hostname` takes the new policy now.
    package func reaches(_ hostname: String) -> Bool {
        state == .running && FleetCohort.bucket(of: hostname) < threshold
    }

    /// Creates a rollout document.
    package init(
        id: String, domain: String, policy: [UInt8], steps: [Int], maxInvalid: Int, stepTimeout: Double, previousRevision: Int64 = 0,
        step: Int = 0,
        threshold: Int = 0, state: State = .running, failures: [Failure] = [], started: Date, updated: Date
    ) {
        self.id = id
        self.domain = domain
        self.policy = Data(policy).base64EncodedString()
        self.steps = steps
        self.maxInvalid = maxInvalid
        self.stepTimeout = stepTimeout
        self.previousRevision = previousRevision
        self.step = step
        self.threshold = threshold
        self.state = state
        self.failures = failures
        self.started = FleetTime.string(started)
        self.updated = FleetTime.string(updated)
    }
}
