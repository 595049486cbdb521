package import DeclaredSettings
package import Preferences

/// A domain's policy checked against its schema, as a host applies it and as
/// `preferences-fleet check` checks a file before it is put: one function, so the
/// administrator's check and the host's status say the same words.
package struct FleetValidation: Sendable, Hashable {
    /// The values to write: the policy's, but a refused key keeps the value it had before
    /// (`previous`), or is left out when it had none. A bad value never takes policy away.
    package var values: [String: PropertyListValue]
    /// Each refused key and why, in key order.
    package var reasons: [FleetStatus.Reason]

    /// Checks `policy` against `schema` (nil: nothing is declared, every value is taken).
    ///
    /// - Parameters:
    ///   - policy: The merged policy values of the domain.
    ///   - schema: The domain's schema on this host.
    ///   - previous: The values the host applied before, which a refused key keeps.
    package init(policy: [String: PropertyListValue], schema: PreferenceSchema?, previous: [String: PropertyListValue] = [:]) {
        values = policy
        reasons = []
        guard let schema else { return }
        for key in policy.keys.sorted() {
            guard let value = policy[key], let violation = schema.violation(setting: value, forKey: key) else { continue }
            reasons.append(FleetStatus.Reason(key: key, reason: Self.reason(violation, in: schema)))
            if let old = previous[key], schema.violation(setting: old, forKey: key) == nil {
                values[key] = old
            } else {
                values[key] = nil
            }
        }
    }

    /// Whether every value was taken.
    package var isValid: Bool { reasons.isEmpty }

    /// The refusal in `defaults`' words ("Volume must be at most 100, not 120"), with
    /// `<private>` for the value of a key the schema declares private: a status is read by
    /// anyone who may read the fleet's keys.
    package static func reason(_ violation: SchemaViolation, in schema: PreferenceSchema) -> String {
        let shown = schema[violation.key]?.isPrivate == true ? DeclaredKey.privateValuePlaceholder : SchemaViolation.render(violation.value)
        return "\(violation.key) \(violation.rule), not \(shown)"
    }
}
