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
    /// Bad values already reported, so each distinct one is reported once. An array searched
    /// in full (at most ``reportLimit``, and only when a bad value is resolved): a set of a
    /// type of its own cost a scan of every loaded library's conformance records when the
    /// process's first store of a declared domain was opened.
    private let reported = ThreadLock([ReportedValue](), rank: .leaf)

    /// How many distinct bad values are remembered: a hostile file churning values cannot
    /// grow memory without bound (past it, further bad values are not reported again).
    static let reportLimit = 1024

    private struct ReportedValue: Equatable {
        let key: String
        let value: PropertyListValue
        let path: String?
    }

    /// The declarations by key, each behind one reference: a lookup on the write and
    /// resolution paths retains one object instead of copying a declaration's many fields.
    private let rules: [String: KeyRule]
    /// The declared defaults: the declared-defaults layer's values.
    let defaults: [String: PropertyListValue]

    init(_ schema: PreferenceSchema, domain: String, logger: Logger) {
        self.schema = schema
        self.domain = domain
        self.logger = logger
        let compiled = CompiledRules.of(schema)
        rules = compiled.rules
        defaults = compiled.defaults
    }

    /// The rule of `key`, if it is declared.
    @inline(__always)
    func rule(_ key: String) -> KeyRule? {
        rules[key]
    }

    /// The violation setting `value` for `key` would be, or nil.
    func violation(setting value: PropertyListValue, forKey key: String) -> SchemaViolation? {
        // The rule's precomputed check first: the declaration's own walks every rule through
        // `PropertyListValue` comparisons, and a set that keeps the rules is the common case.
        guard let rule = rules[key], !rule.admits(value), let (broken, path) = rule.declaration.firstViolation(of: value) else {
            return nil
        }
        return SchemaViolation(key: key, value: value, rule: broken, elementPath: path, schemaPath: schema.path)
    }

    /// Records that `value`, stored for `key` in the file at `path` (nil: a volatile layer),
    /// breaks the key's declaration; the first time, a warning is logged soon after.
    func noteInvalid(_ value: PropertyListValue, forKey key: String, path: String?) {
        let entry = ReportedValue(key: key, value: value, path: path)
        let isNew = reported.withLock { list -> Bool in
            guard list.count < Self.reportLimit, !list.contains(entry) else { return false }
            list.append(entry)
            return true
        }
        guard isNew, let violation = schema.violation(setting: value, forKey: key) else { return }
        let logger = logger, domain = domain
        // A private key's value stays out of the journal, valid or not.
        let isPrivate = schema[key]?.isPrivate == true
        DispatchQueue.global(qos: .utility).async {
            logger.warning(
                "\(domain): the stored value of \(violation.loggedDescription(isPrivate: isPrivate)); reads return the declared default, and the file is left as it is",
                metadata: [
                    PreferencesLogField.messageID: .string(PreferencesLogEvent.invalidStoredValue.messageID),
                    PreferencesLogField.domain: .string(domain),
                    PreferencesLogField.keys: .array([.string(key)]),
                    PreferencesLogField.value: .string(violation.loggedValue(isPrivate: isPrivate)),
                    PreferencesLogField.rule: .string(violation.rule.description),
                    PreferencesLogField.schema: .string(violation.schemaPath),
                    PreferencesLogField.path: .string(path ?? "(in memory)"),
                ])
        }
    }

    /// Whether a bad value of `key` has been reported (for tests).
    func hasReported(key: String) -> Bool {
        reported.withLock { list in list.contains { $0.key == key } }
    }
}

/// A schema's rules and defaults, built once per parse and shared by every store of the
/// process that uses that parse: building a rule object and copying a default for each of
/// hundreds of keys was a large share of opening a store of a declared domain.
final class CompiledRules: Sendable {
    let schema: PreferenceSchema
    let rules: [String: KeyRule]
    let defaults: [String: PropertyListValue]

    private init(_ schema: PreferenceSchema) {
        self.schema = schema
        var rules: [String: KeyRule] = [:]
        var defaults: [String: PropertyListValue] = [:]
        rules.reserveCapacity(schema.keys.count)
        defaults.reserveCapacity(schema.keys.count)
        for (name, key) in schema.keys {
            rules[name] = KeyRule(key)
            if let value = key.defaultValue { defaults[name] = value }
        }
        self.rules = rules
        self.defaults = defaults
    }

    /// The most schemas kept; past it the table starts again (a process uses a few).
    private static let limit = 64
    private static let compiled = ThreadLock([String: CompiledRules](), rank: .leaf)

    /// The rules of `schema`: those built for an equal schema from the same path if there
    /// are any, else new ones. A schema reused from the lookup's cache shares its tables
    /// with the one compiled, so the comparison is a check of identity, not of every key.
    static func of(_ schema: PreferenceSchema) -> CompiledRules {
        if let known = compiled.withLock({ $0[schema.path] }), known.schema == schema { return known }
        let made = CompiledRules(schema)
        compiled.withLock { table in
            if table.count >= limit { table.removeAll() }
            table[schema.path] = made
        }
        return made
    }
}

/// One declared key's rules, shared by reference, with the common checks precomputed.
///
/// Every set of a declared key is checked once by the store and once per copy of its
/// snapshot as the value is resolved, so the usual cases (a number within its bounds, a
/// scalar of the right type with no choices) are answered here without copying values or
/// comparing through `PropertyListValue`; anything else asks the declaration.
final class KeyRule: Sendable {
    let declaration: DeclaredKey
    /// The key's type, when it is a scalar with no choices: the fast path applies.
    private let scalar: DeclaredType?
    /// Integer bounds as integers, real bounds as reals (nil: unbounded on that side).
    private let lowerInteger: PropertyListInteger?, upperInteger: PropertyListInteger?
    private let lower: Double, upper: Double
    /// Whether a bound could not be precomputed exactly (an integer key with a real bound).
    private let needsSlowPath: Bool
    /// Whether the key has a bound at all: an unbounded real key accepts NaN, a bounded one
    /// does not (NaN is neither at least the minimum nor at most the maximum).
    private let isBounded: Bool

    init(_ declaration: DeclaredKey) {
        self.declaration = declaration
        switch declaration.type {
        case .array, .dictionary: scalar = nil
        default: scalar = declaration.choices == nil ? declaration.type : nil
        }
        func real(_ value: PropertyListValue?) -> Double? {
            switch value {
            case .integer(let integer)?: integer.doubleValue
            case .double(let double)?: double
            case .float(let float)?: Double(float)
            default: nil
            }
        }
        lower = real(declaration.minimum) ?? -.infinity
        upper = real(declaration.maximum) ?? .infinity
        lowerInteger = declaration.minimum?.integerValue
        upperInteger = declaration.maximum?.integerValue
        isBounded = declaration.minimum != nil || declaration.maximum != nil
        needsSlowPath = declaration.type == .integer
            && ((declaration.minimum != nil && lowerInteger == nil) || (declaration.maximum != nil && upperInteger == nil))
    }

    /// Whether `value` keeps every rule of the key.
    @inline(__always)
    func admits(_ value: PropertyListValue) -> Bool {
        guard let scalar, !needsSlowPath else { return declaration.firstViolation(of: value) == nil }
        switch (scalar, value) {
        case (.integer, .integer(let integer)):
            if let lowerInteger, integer < lowerInteger { return false }
            if let upperInteger, upperInteger < integer { return false }
            return true
        case (.real, .double(let real)):
            return !isBounded || (real >= lower && real <= upper)
        case (.real, .float(let real)):
            return !isBounded || (Double(real) >= lower && Double(real) <= upper)
        case (.string, .string), (.boolean, .bool), (.date, .date), (.data, .data):
            return true
        default:
            return declaration.firstViolation(of: value) == nil
        }
    }
}
