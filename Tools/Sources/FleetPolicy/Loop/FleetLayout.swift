package import Preferences

/// Where the fleet loop keeps what it shares in etcd, under the prefix (default `/preferences/`):
///
/// | Key | Holds | Written by |
/// |---|---|---|
/// | `fleet/DOMAIN`, `groups/GROUP/DOMAIN`, `hosts/HOST/DOMAIN` | a property-list dictionary: policy | the administrator |
/// | `rollouts/DOMAIN` | JSON ``FleetRollout``: a staged rollout of the fleet policy | `preferences-fleet rollout` |
/// | `status/HOST` | JSON ``FleetEnrolment``: the host follows the fleet (no lease) | the host's follower, at start |
/// | `status/HOST/DOMAIN` | JSON ``FleetStatus``: what the host applied (on the host's lease) | the host's follower |
///
/// Followers read and watch only the policy part, the keys before `status/`
/// (``policyRangeEnd``): a host hears policy, never the fleet's thousands of status writes.
package struct FleetLayout: Sendable, Hashable {
    /// The etcd prefix, ending with `/`.
    package let prefix: String

    /// A layout under `prefix` (a `/` is added if it does not end with one).
    package init(prefix: String = "/preferences/") {
        self.prefix = prefix.hasSuffix("/") ? prefix : prefix + "/"
    }

    /// The first key after the policy part: `<prefix>status/`. Policy keys sort before it
    /// (`fleet/`, `groups/`, `hosts/`, `rollouts/`).
    package var policyRangeEnd: String { prefix + "status/" }

    /// Every host's enrolment and statuses: the range `<prefix>status/`.
    package var statusPrefix: String { prefix + "status/" }

    /// The fleet-wide policy key of `domain`.
    package func fleetKey(_ domain: DomainName) -> String { prefix + "fleet/\(domain)" }

    /// The rollout document of `domain`.
    package func rolloutKey(_ domain: DomainName) -> String { prefix + "rollouts/\(domain)" }

    /// Where `host` says it follows the fleet.
    package func enrolmentKey(host: String) -> String { statusPrefix + host }

    /// Where `host` reports what it applied to `domain`.
    package func statusKey(host: String, domain: DomainName) -> String { statusPrefix + "\(host)/\(domain)" }

    /// What a key under ``statusPrefix`` is: a host's enrolment, a host's status of a domain,
    /// or nil for a key that is neither (outside the prefix, or not in this layout).
    package func statusEntry(ofKey key: String) -> (host: String, domain: DomainName?)? {
        guard key.hasPrefix(statusPrefix) else { return nil }
        let parts = key.dropFirst(statusPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1 where !parts[0].isEmpty:
            return (String(parts[0]), nil)
        case 2 where !parts[0].isEmpty:
            guard let domain = try? DomainName(String(parts[1])) else { return nil }
            return (String(parts[0]), domain)
        default:
            return nil
        }
    }

    /// Whether `name` can be a host in this layout: not empty, no `/`, no control characters,
    /// at most 253 bytes (a DNS name's limit).
    package static func isValidHostname(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 253 && !name.contains("/") && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
