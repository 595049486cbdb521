import Foundation
import Logging

/// A domain's schema as a store uses it: the declarations its resolution consults, and the
/// record of which bad stored values have been reported.
///
/// Held by both copies of the store's resolved values; resolution (under the store's
/// snapshot lock) only records a bad value here, and the journal entry is written later on
/// a global queue, so no log handler ever runs while a preferences lock is held.
final class DeclaredSchema: Sendable {
    /// The declarations.
    let schema: PreferenceSchema
    /// The domain, for log entries.
    let domain: String
    private let logger: Logger
    /// Bad values already reported, so each distinct one is reported once.
    private let reported = ThreadLock(Set<ReportedValue>(), rank: .leaf)

    /// How many distinct bad values are remembered: a hostile file churning values cannot
    /// grow memory without bound (past it, further bad values are not reported again).
    static let reportLimit = 1024

    private struct ReportedValue: Hashable {
        let key: String
        let value: PropertyListValue
        let path: String?
    }

    init(_ schema: PreferenceSchema, domain: String, logger: Logger) {
        self.schema = schema
        self.domain = domain
        self.logger = logger
    }

    /// The declaration of `key`, if any.
    @inline(__always)
    func declaration(_ key: String) -> DeclaredKey? {
        schema.keys[key]
    }

    /// Records that `value`, stored for `key` in the file at `path` (nil: a volatile layer),
    /// breaks the key's declaration; the first time, a warning is logged soon after.
    func noteInvalid(_ value: PropertyListValue, forKey key: String, path: String?) {
        let entry = ReportedValue(key: key, value: value, path: path)
        let isNew = reported.withLock { set -> Bool in
            guard set.count < Self.reportLimit else { return false }
            return set.insert(entry).inserted
        }
        guard isNew, let violation = schema.violation(setting: value, forKey: key) else { return }
        let logger = logger, domain = domain
        DispatchQueue.global(qos: .utility).async {
            logger.warning(
                "\(domain): the stored value of \(violation.description); reads return the declared default, and the file is left as it is",
                metadata: [
                    "MESSAGE_ID": .string(PreferencesLogEvent.invalidStoredValue.messageID),
                    "PREFERENCES_DOMAIN": .string(domain),
                    "PREFERENCES_KEYS": .array([.string(key)]),
                    "PREFERENCES_VALUE": .string(SchemaViolation.render(value)),
                    "PREFERENCES_RULE": .string(violation.rule.description),
                    "PREFERENCES_SCHEMA": .string(violation.schemaPath),
                    "PREFERENCES_PATH": .string(path ?? "(in memory)"),
                ])
        }
    }

    /// Whether a bad value of `key` has been reported (for tests).
    func hasReported(key: String) -> Bool {
        reported.withLock { set in set.contains { $0.key == key } }
    }
}
