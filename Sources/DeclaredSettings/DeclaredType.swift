public import PropertyList

/// The type a declared key's values must have.
///
/// The names are the ones a schema file spells (`"Type": "integer"`), which are also the
/// names `defaults read-type` prints, except that reals are `real` (a stored value may be a
/// 32- or 64-bit real, or an integer: every integer is a real number).
public indirect enum DeclaredType: Sendable, Hashable, CustomStringConvertible {
    /// A Unicode string.
    case string
    /// A whole number (`.integer` only: a real with no fraction is still a real).
    case integer
    /// A real number: a stored `.double`, `.float` or `.integer`.
    case real
    /// A boolean.
    case boolean
    /// A point in time.
    case date
    /// Raw bytes.
    case data
    /// An ordered list; `element`, when given, is the type every element must have.
    case array(element: DeclaredType?)
    /// A map from string keys to values.
    case dictionary

    /// Parses a schema's spelling of a type: `string`, `integer`, `real`, `boolean`, `date`,
    /// `data`, `array` or `dictionary` (`float` and `bool` are accepted for `real` and
    /// `boolean`, as `defaults` spells them). Array element types are given separately.
    public init?(name: String) {
        switch name {
        case "string": self = .string
        case "integer", "int": self = .integer
        case "real", "float", "double": self = .real
        case "boolean", "bool": self = .boolean
        case "date": self = .date
        case "data": self = .data
        case "array": self = .array(element: nil)
        case "dictionary", "dict": self = .dictionary
        default: return nil
        }
    }

    /// The type's name as a schema spells it; arrays with an element type read
    /// `array of <element>`.
    public var description: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .boolean: "boolean"
        case .date: "date"
        case .data: "data"
        case .array(let element?): "array of \(element)"
        case .array(nil): "array"
        case .dictionary: "dictionary"
        }
    }

    /// The type with its article, for messages: "an integer", "a string".
    var withArticle: String {
        switch self {
        case .integer, .array: "an \(self)"
        default: "a \(self)"
        }
    }

    /// Whether ranges (minimum, maximum) apply: numbers only.
    public var isNumeric: Bool { self == .integer || self == .real }

    /// The type a value has, as a declaration would name it (used when a Settings.bundle
    /// states none); an array's element type when all its elements share one.
    public init(of value: PropertyListValue) {
        switch value {
        case .string: self = .string
        case .integer: self = .integer
        case .float, .double: self = .real
        case .bool: self = .boolean
        case .date: self = .date
        case .data: self = .data
        case .dictionary: self = .dictionary
        case .array(let elements):
            let types = Set(elements.map(DeclaredType.init(of:)))
            self = .array(element: types.count == 1 ? types.first : nil)
        }
    }

    /// Whether `value` has this type (element types included), ignoring ranges and choices.
    public func admits(_ value: PropertyListValue) -> Bool {
        firstMismatch(in: value) == nil
    }

    /// Where `value` fails to have this type: nil if it has it, else the index path of the
    /// first element of the wrong type (empty for the value itself) and that element.
    func firstMismatch(in value: PropertyListValue) -> (path: [Int], value: PropertyListValue)? {
        switch (self, value) {
        case (.string, .string), (.integer, .integer), (.boolean, .bool), (.date, .date), (.data, .data),
            (.dictionary, .dictionary):
            return nil
        case (.real, .double), (.real, .float), (.real, .integer):
            return nil
        case (.array(let element), .array(let elements)):
            guard let element else { return nil }
            for (index, item) in elements.enumerated() {
                if let inner = element.firstMismatch(in: item) { return ([index] + inner.path, inner.value) }
            }
            return nil
        default:
            return ([], value)
        }
    }
}
