public import PropertyList

/// One key a schema declares: its type, default, allowed values and words for people.
public struct DeclaredKey: Sendable, Hashable {
    /// The key's name in the domain.
    public var name: String
    /// The type every value must have.
    public var type: DeclaredType
    /// What reads return when no layer holds a valid value; nil declares no default.
    public var defaultValue: PropertyListValue?
    /// The smallest allowed value (numbers only).
    public var minimum: PropertyListValue?
    /// The largest allowed value (numbers only).
    public var maximum: PropertyListValue?
    /// The only allowed values, if the key has a fixed set.
    public var choices: [PropertyListValue]?
    /// Display titles for ``choices``, in the same order (Settings.bundle `Titles`).
    public var choiceTitles: [String]?
    /// One line saying what the key is for: the generated key's doc comment.
    public var summary: String?
    /// More words, for `defaults describe`.
    public var details: String?
    /// Names this key had before: a stored value under one of them is moved to this name
    /// once (see the store's migrations).
    public var renamedFrom: [String]
    /// The group the key is shown in (a Settings.bundle `PSGroupSpecifier` title).
    public var group: String?
    /// The Swift name the key generator gives the key; nil derives one from ``name``.
    public var swiftName: String?
    /// A key whose values are secrets (a token, an address): they are never kept in a
    /// generation of the domain's history, an export, a log record or history output, and
    /// deleting one removes it from every kept copy. Declared with `Private` in a native
    /// schema, `IsSecure` on a Settings.bundle text field.
    public var isPrivate: Bool = false

    /// What is shown instead of the value of a key declared private (``isPrivate``) wherever
    /// values are printed for people or logs: `<private>`, as Apple's unified logging shows a
    /// value it keeps out of the log.
    ///
    /// One spelling for the library's log entries and every tool built on it, so a search of
    /// the journal or of a tool's output for redacted values finds them all.
    public static let privateValuePlaceholder = "<private>"

    /// Declares a key.
    public init(
        name: String, type: DeclaredType, defaultValue: PropertyListValue? = nil,
        minimum: PropertyListValue? = nil, maximum: PropertyListValue? = nil,
        choices: [PropertyListValue]? = nil, choiceTitles: [String]? = nil,
        summary: String? = nil, details: String? = nil, renamedFrom: [String] = [],
        group: String? = nil, swiftName: String? = nil
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.minimum = minimum
        self.maximum = maximum
        self.choices = choices
        self.choiceTitles = choiceTitles
        self.summary = summary
        self.details = details
        self.renamedFrom = renamedFrom
        self.group = group
        self.swiftName = swiftName
    }

    /// The first rule `value` breaks, or nil if it is allowed.
    ///
    /// Type first (with the index path of a wrong array element), then range, then choices.
    /// Numbers compare by value across integer and real representations, so `5` and `5.0`
    /// are the same choice and 100 is within a maximum of `100.0`.
    public func firstViolation(of value: PropertyListValue) -> (rule: SchemaViolation.Rule, elementPath: [Int])? {
        if let mismatch = type.firstMismatch(in: value) {
            // The rule is the type expected at the element the path names: for an array of
            // arrays of integers and element [1][0], "integer" (it was "array of integer").
            var expected = type
            for _ in mismatch.path {
                guard case .array(let element?) = expected else { break }
                expected = element
            }
            return (.type(expected), mismatch.path)
        }
        // NaN compares with nothing, so it slipped past both bounds: a key with a range
        // refuses it, since NaN is neither at least the minimum nor at most the maximum.
        let isNaN = NumericOrder.real(value)?.isNaN == true
        if let minimum, isNaN || NumericOrder(value, minimum) == .below {
            return (.minimum(minimum), [])
        }
        if let maximum, isNaN || NumericOrder(value, maximum) == .above {
            return (.maximum(maximum), [])
        }
        if let choices, !choices.contains(where: { Self.same(value, $0) }) {
            return (.choices(choices), [])
        }
        return nil
    }

    /// Whether `value` keeps every rule: the cheap question the resolver asks.
    @inlinable
    public func admits(_ value: PropertyListValue) -> Bool {
        firstViolation(of: value) == nil
    }

    /// Whether two values are the same choice: equal, or equal numbers.
    static func same(_ lhs: PropertyListValue, _ rhs: PropertyListValue) -> Bool {
        if lhs == rhs { return true }
        return NumericOrder(lhs, rhs) == .equal
    }
}

/// How a number compares with a bound, across integer and real representations.
enum NumericOrder: Equatable {
    case below, equal, above

    /// Nil when either side is not a number (or is NaN).
    init?(_ value: PropertyListValue, _ bound: PropertyListValue) {
        switch (value, bound) {
        case (.integer(let lhs), .integer(let rhs)):
            self = lhs < rhs ? .below : (lhs == rhs ? .equal : .above)
        default:
            guard let lhs = Self.real(value), let rhs = Self.real(bound), !lhs.isNaN, !rhs.isNaN else { return nil }
            self = lhs < rhs ? .below : (lhs == rhs ? .equal : .above)
        }
    }

    static func real(_ value: PropertyListValue) -> Double? {
        switch value {
        case .integer(let integer): integer.doubleValue
        case .double(let double): double
        case .float(let float): Double(float)
        default: nil
        }
    }
}
