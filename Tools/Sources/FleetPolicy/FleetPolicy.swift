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

    /// The accepted value of each etcd key of the layout that applies here (for a rollout,
    /// only while it reaches this machine).
    package private(set) var entries: [FleetKey: Entry] = [:]
    /// The last value refused for each etcd key that applies here, until the key is put with
    /// a good value or deleted.
    package private(set) var refusals: [FleetKey: FleetRefusal] = [:]
    /// The domains with a rollout document, whether or not it reaches this machine.
    package private(set) var rolloutDomains: Set<DomainName> = []

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
            throw FleetRefusal(key: key, revision: revision, reason: error.reason, domain: nil)
        }
        guard appliesHere(fleetKey.scope) else { return nil }
        let values: [String: PropertyListValue]?
        do {
            values = try fleetKey.scope == .rollout
                ? rolloutValues(decoding: value) : Self.policyValues(decoding: value, sizeLimit: sizeLimit)
        } catch {
            let refusal = FleetRefusal(key: key, revision: revision, reason: error.reason, domain: fleetKey.domain)
            refusals[fleetKey] = refusal
            throw refusal
        }
        refusals[fleetKey] = nil
        if fleetKey.scope == .rollout { rolloutDomains.insert(fleetKey.domain) }
        // A rollout that does not reach this machine (or no longer runs) leaves the fleet's
        // value in force here; the domain is still named, so the machine reports that it saw it.
        entries[fleetKey] = values.map { Entry(values: $0, revision: revision) }
        return fleetKey.domain
    }

    /// The values a rollout document gives this machine: its policy while it runs and reaches
    /// this machine's cohort, nil otherwise.
    private func rolloutValues(decoding value: [UInt8]) throws(FleetValueError) -> [String: PropertyListValue]? {
        // The policy travels in base64 inside the JSON, a third larger than the file.
        guard value.count <= sizeLimit / 3 * 4 + 65_536 else {
            throw FleetValueError(reason: "the rollout document is \(value.count) bytes, too large for a policy within the \(sizeLimit)-byte limit")
        }
        let rollout: FleetRollout
        do {
            rollout = try FleetJSON.decode(FleetRollout.self, from: value)
        } catch {
            throw FleetValueError(reason: "the rollout document is not valid JSON of a rollout: \(error)")
        }
        guard rollout.reaches(hostname) else { return nil }
        guard let policy = rollout.policyBytes else { throw FleetValueError(reason: "the rollout's policy is not base64") }
        return try Self.policyValues(decoding: policy, sizeLimit: sizeLimit)
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
        let removed = entries.removeValue(forKey: fleetKey) != nil
        let wasRefused = refusals.removeValue(forKey: fleetKey) != nil
        if fleetKey.scope == .rollout { rolloutDomains.remove(fleetKey.domain) }
        // A rollout's end concerns every machine, reached or not: each reports that it saw it.
        return removed || wasRefused || fleetKey.scope == .rollout ? fleetKey.domain : nil
    }

    /// Replaces everything with a whole read of the prefix at `revision`, after a
    /// compaction lost the changes since the last one applied: keys absent are dropped, and
    /// a refused value keeps the key's previous value, as a refused put does.
    ///
    /// - Returns: The values refused.
    package mutating func resynchronize(with values: [(key: String, value: [UInt8], revision: Int64)]) -> [FleetRefusal] {
        var refused: [FleetRefusal] = []
        var kept: [FleetKey: Entry] = [:]
        var keptRefusals: [FleetKey: FleetRefusal] = [:]
        rolloutDomains = []
        for (key, value, revision) in values {
            do {
                try put(key: key, value: value, revision: revision)
            } catch {
                refused.append(error)
            }
            if let fleetKey = try? FleetKey(etcdKey: key, prefix: prefix) {
                if let entry = entries[fleetKey] { kept[fleetKey] = entry }
                if let refusal = refusals[fleetKey] { keptRefusals[fleetKey] = refusal }
            }
        }
        entries = kept
        refusals = keptRefusals
        return refused
    }

    /// The scopes that apply to this machine, weakest first (a rollout stands in for the fleet).
    package var applicableScopes: [FleetScope] {
        [.fleet, .rollout] + groups.map(FleetScope.group) + [.host(hostname)]
    }

    /// The accepted entries that feed `domain` here, weakest first: a rollout that reaches this
    /// machine replaces the fleet's value rather than merging over it, so the machines it
    /// reaches have exactly the new fleet policy.
    private func effectiveEntries(of domain: DomainName) -> [(scope: FleetScope, entry: Entry)] {
        let rolling = entries[FleetKey(scope: .rollout, domain: domain)] != nil
        return applicableScopes.compactMap { scope in
            if scope == .fleet && rolling { return nil }
            return entries[FleetKey(scope: scope, domain: domain)].map { (scope, $0) }
        }
    }

    /// The values refused for the keys that feed `domain` here, which keep their previous
    /// value: what a status reports as not applied.
    package func refusals(of domain: DomainName) -> [FleetRefusal] {
        // A refused fleet value does not count while a rollout's value stands in for it here.
        let rolling = entries[FleetKey(scope: .rollout, domain: domain)] != nil
        return applicableScopes.compactMap { scope in
            scope == .fleet && rolling ? nil : refusals[FleetKey(scope: scope, domain: domain)]
        }
    }

    /// Whether a key of `scope` sets policy on this machine.
    private func appliesHere(_ scope: FleetScope) -> Bool {
        switch scope {
        case .fleet: true
        case .group(let name): groups.contains(name)
        case .host(let name): name == hostname
        case .rollout: true
        }
    }

    /// The managed values of `domain` on this machine, nil if no applicable key holds any.
    package func managedValues(of domain: DomainName) -> [String: PropertyListValue]? {
        var merged: [String: PropertyListValue]?
        for (_, entry) in effectiveEntries(of: domain) {
            merged = (merged ?? [:]).merging(entry.values) { _, stronger in stronger }
        }
        return merged
    }

    /// The etcd key and revision each managed key of `domain` comes from on this machine (the
    /// strongest scope that sets it), as ``managedValues(of:)`` merges them.
    package func keySources(of domain: DomainName) -> [String: (key: String, revision: Int64)] {
        var sources: [String: (key: String, revision: Int64)] = [:]
        for (scope, entry) in effectiveEntries(of: domain) {
            for key in entry.values.keys { sources[key] = (prefix + "\(scope)/\(domain)", entry.revision) }
        }
        return sources
    }

    /// The etcd keys that feed `domain` on this machine and their revisions, weakest first:
    /// what `defaults explain` names as the source.
    package func sources(of domain: DomainName) -> [(key: String, revision: Int64)] {
        effectiveEntries(of: domain).map { (prefix + "\($0.scope)/\(domain)", $0.entry.revision) }
    }

    /// Every domain a status is reported for: those with policy here, with a refused value,
    /// or with a rollout (which concerns every machine, reached or not).
    package var reportedDomains: Set<DomainName> {
        managedDomains.union(refusals.keys.map(\.domain)).union(rolloutDomains)
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
    /// The domain the key feeds, nil for a key outside the layout.
    package let domain: DomainName?

    /// The key, revision and reason, for a log message.
    package var description: String { "\(key) at revision \(revision): \(reason); the previous policy is kept" }
}
