import Foundation
package import Preferences

/// The policy a fleet sets for one machine: what follows the etcd keys of the layout
/// (``FleetKey``) and merges them into each domain's managed values.
///
/// Per key of a domain, the host's value beats the groups', which beat the fleet's; among the
/// machine's groups, a later one in `groups` beats an earlier one. A domain none of whose
/// applicable etcd keys holds a value has no managed file.
///
/// An etcd value is accepted only if it is an XML or binary property-list dictionary within
/// the size limit; otherwise it is refused and the key keeps the value last accepted for it
/// (none, for a new key), so a bad put never takes policy away. Keys for other groups and
/// hosts are passed over without being decoded or kept: a machine holds its own policy, not
/// the fleet's.
package struct FleetPolicy: Sendable {
    /// One accepted etcd value.
    package struct Entry: Sendable, Hashable {
        /// The values it sets.
        package let values: [String: PropertyListValue]
        /// The etcd revision that last changed it (its `mod_revision`).
        package let revision: Int64
    }

    /// The etcd prefix of the layout, ending with `/`.
    package let prefix: String
    /// This machine's host groups, weakest first.
    package let groups: [String]
    /// This machine's host name.
    package let hostname: String
    /// The most bytes an etcd value may hold: the managed file it becomes is read within the
    /// same limit as any domain file.
    package let sizeLimit: Int

    /// The accepted value of each etcd key of the layout.
    package private(set) var entries: [FleetKey: Entry] = [:]

    /// A policy with nothing accepted yet.
    ///
    /// - Parameter prefix: The etcd prefix; a `/` is added if it does not end with one.
    /// - Parameter sizeLimit: The domain size limit, 1 MiB by default as for domain files.
    package init(prefix: String = "/preferences/", groups: [String] = [], hostname: String, sizeLimit: Int = 1 << 20) {
        self.prefix = prefix.hasSuffix("/") ? prefix : prefix + "/"
        self.groups = groups
        self.hostname = hostname
        self.sizeLimit = sizeLimit
    }

    /// Applies a put of `value` to the etcd key `key` at `revision`.
    ///
    /// - Returns: The domain whose policy the put may change; nil for a key outside the prefix
    ///   or for another machine's group or host, which is passed over.
    /// - Throws: ``FleetRefusal`` when the key or value cannot be used; the key then keeps
    ///   the value last accepted for it.
    @discardableResult
    package mutating func put(key: String, value: [UInt8], revision: Int64) throws(FleetRefusal) -> DomainName? {
        let fleetKey: FleetKey
        do {
            guard let parsed = try FleetKey(etcdKey: key, prefix: prefix) else { return nil }
            fleetKey = parsed
        } catch {
            throw FleetRefusal(key: key, revision: revision, reason: error.reason)
        }
        guard appliesHere(fleetKey.scope) else { return nil }
        let values: [String: PropertyListValue]
        do {
            values = try Self.policyValues(decoding: value, sizeLimit: sizeLimit)
        } catch {
            throw FleetRefusal(key: key, revision: revision, reason: error.reason)
        }
        entries[fleetKey] = Entry(values: values, revision: revision)
        return fleetKey.domain
    }

    /// The values a policy value sets: an XML or binary property-list dictionary of at most
    /// `sizeLimit` bytes, as a follower takes it from etcd and `preferences-fleet check` a file.
    ///
    /// - Throws: ``FleetValueError`` saying why the bytes are not a policy.
    package static func policyValues(decoding value: [UInt8], sizeLimit: Int) throws(FleetValueError) -> [String: PropertyListValue] {
        guard value.count <= sizeLimit else {
            throw FleetValueError(reason: "the value is \(value.count) bytes, over the \(sizeLimit)-byte limit of a domain")
        }
        // Told apart as every reader of any format does; old-style text is not a format the
        // fleet layout takes.
        guard PropertyListFormat.detect(value) != .openStep else {
            throw FleetValueError(reason: "the value is not an XML or binary property list")
        }
        let decoded: PropertyListValue
        do {
            decoded = try PropertyListValue(decodingAnyFormat: Data(value))
        } catch {
            throw FleetValueError(reason: "the value is not a valid property list: \(error)")
        }
        guard case .dictionary(let values) = decoded else {
            throw FleetValueError(reason: "the value is a property list but not a dictionary")
        }
        return values
    }

    /// Applies a delete of the etcd key `key`.
    ///
    /// - Returns: The domain whose policy the delete may change, nil for a key outside the
    ///   layout or another machine's.
    @discardableResult
    package mutating func delete(key: String) -> DomainName? {
        guard let fleetKey = try? FleetKey(etcdKey: key, prefix: prefix), appliesHere(fleetKey.scope) else { return nil }
        return entries.removeValue(forKey: fleetKey) == nil ? nil : fleetKey.domain
    }

    /// Replaces everything with a whole read of the prefix at `revision`, after a
    /// compaction lost the changes since the last one applied: keys absent are dropped, and
    /// a refused value keeps the key's previous value, as a refused put does.
    ///
    /// - Returns: The values refused.
    package mutating func resynchronize(with values: [(key: String, value: [UInt8], revision: Int64)]) -> [FleetRefusal] {
        var refusals: [FleetRefusal] = []
        var kept: [FleetKey: Entry] = [:]
        for (key, value, revision) in values {
            do {
                try put(key: key, value: value, revision: revision)
            } catch {
                refusals.append(error)
            }
            if let fleetKey = try? FleetKey(etcdKey: key, prefix: prefix), let entry = entries[fleetKey] {
                kept[fleetKey] = entry
            }
        }
        entries = kept
        return refusals
    }

    /// The scopes that apply to this machine, weakest first.
    package var applicableScopes: [FleetScope] {
        [.fleet] + groups.map(FleetScope.group) + [.host(hostname)]
    }

    /// Whether a key of `scope` sets policy on this machine.
    private func appliesHere(_ scope: FleetScope) -> Bool {
        switch scope {
        case .fleet: true
        case .group(let name): groups.contains(name)
        case .host(let name): name == hostname
        }
    }

    /// The managed values of `domain` on this machine, nil if no applicable key holds any.
    package func managedValues(of domain: DomainName) -> [String: PropertyListValue]? {
        var merged: [String: PropertyListValue]?
        for scope in applicableScopes {
            guard let entry = entries[FleetKey(scope: scope, domain: domain)] else { continue }
            merged = (merged ?? [:]).merging(entry.values) { _, stronger in stronger }
        }
        return merged
    }

    /// The etcd key and revision each managed key of `domain` comes from on this machine (the
    /// strongest scope that sets it), as ``managedValues(of:)`` merges them.
    package func keySources(of domain: DomainName) -> [String: (key: String, revision: Int64)] {
        var sources: [String: (key: String, revision: Int64)] = [:]
        for scope in applicableScopes {
            guard let entry = entries[FleetKey(scope: scope, domain: domain)] else { continue }
            for key in entry.values.keys { sources[key] = (prefix + "\(scope)/\(domain)", entry.revision) }
        }
        return sources
    }

    /// The etcd keys that feed `domain` on this machine and their revisions, weakest first:
    /// what `defaults explain` names as the source.
    package func sources(of domain: DomainName) -> [(key: String, revision: Int64)] {
        applicableScopes.compactMap { scope in
            entries[FleetKey(scope: scope, domain: domain)].map { (prefix + "\(scope)/\(domain)", $0.revision) }
        }
    }

    /// Every domain some applicable key sets policy for (only such keys are kept).
    package var managedDomains: Set<DomainName> {
        Set(entries.keys.map(\.domain))
    }
}

/// Why bytes are not a policy value.
package struct FleetValueError: Error, Sendable, Hashable {
    /// What is wrong, as a sentence part ("the value is …").
    package let reason: String
}

/// An etcd value the fleet policy refused, and why: logged as a warning, with the previous
/// policy kept.
package struct FleetRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The etcd key.
    package let key: String
    /// The revision of the refused put.
    package let revision: Int64
    /// What is wrong.
    package let reason: String

    /// The key, revision and reason, for a log message.
    package var description: String { "\(key) at revision \(revision): \(reason); the previous policy is kept" }
}
