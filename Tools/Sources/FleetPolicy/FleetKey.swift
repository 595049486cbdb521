package import Preferences

/// Where a fleet policy key applies, and so how strongly: a host's policy beats its groups',
/// which beat the fleet's.
package enum FleetScope: Sendable, Hashable, CustomStringConvertible {
    /// Every machine: `<prefix>fleet/<domain>`.
    case fleet
    /// Machines in a host group: `<prefix>groups/<group>/<domain>`.
    case group(String)
    /// One machine, by host name: `<prefix>hosts/<hostname>/<domain>`.
    case host(String)
    /// A staged rollout of the fleet-wide policy, `<prefix>rollouts/<domain>` (JSON
    /// ``FleetRollout``): in place of the fleet's value on the machines it reaches.
    case rollout

    /// The scope as the key layout spells it.
    package var description: String {
        switch self {
        case .fleet: "fleet"
        case .group(let name): "groups/\(name)"
        case .host(let name): "hosts/\(name)"
        case .rollout: "rollouts"
        }
    }
}

/// One etcd key of the fleet layout: the scope it applies to and the domain whose managed
/// file it feeds. A domain's policy at one scope is one key holding a property list, so one
/// put is one atomic change of that domain's policy.
package struct FleetKey: Sendable, Hashable, CustomStringConvertible {
    /// Where the key applies.
    package let scope: FleetScope
    /// The domain it sets policy for, checked as every domain name is.
    package let domain: DomainName

    /// Makes a key.
    package init(scope: FleetScope, domain: DomainName) {
        self.scope = scope
        self.domain = domain
    }

    /// Reads an etcd key under `prefix` (which ends with `/`).
    ///
    /// - Returns: nil for a key outside the prefix.
    /// - Throws: ``FleetKeyError`` for a key under the prefix that the layout does not know, or
    ///   whose domain is not a valid domain name: such a key is refused, never written.
    package init?(etcdKey: String, prefix: String) throws(FleetKeyError) {
        guard etcdKey.hasPrefix(prefix) else { return nil }
        let parts = etcdKey.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let scope: FleetScope
        let domainPart: String
        switch (parts.first, parts.count) {
        case ("fleet", 2):
            (scope, domainPart) = (.fleet, parts[1])
        case ("groups", 3) where !parts[1].isEmpty:
            (scope, domainPart) = (.group(parts[1]), parts[2])
        case ("hosts", 3) where !parts[1].isEmpty:
            (scope, domainPart) = (.host(parts[1]), parts[2])
        case ("rollouts", 2):
            (scope, domainPart) = (.rollout, parts[1])
        default:
            throw FleetKeyError(
                key: etcdKey,
                reason: "not in the layout: expected \(prefix)fleet/DOMAIN, \(prefix)groups/GROUP/DOMAIN, \(prefix)hosts/HOSTNAME/DOMAIN or \(prefix)rollouts/DOMAIN")
        }
        do {
            domain = try DomainName(domainPart)
        } catch {
            throw FleetKeyError(key: etcdKey, reason: error.reason)
        }
        self.scope = scope
    }

    /// The key's path below the prefix, as the layout spells it.
    package var description: String { "\(scope)/\(domain)" }
}

/// An etcd key under the fleet prefix that cannot be used, and why.
package struct FleetKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The etcd key.
    package let key: String
    /// What is wrong with it.
    package let reason: String

    /// The key and the reason, for a log message.
    package var description: String { "\(key): \(reason)" }
}
