import Foundation
package import Preferences
package import PropertyList

/// Reading command-line text as the type a schema declares: `defaults write D Volume 5`
/// stores the integer 5 when `Volume` is declared an integer, as `gsettings set` parses by
/// the key's type, where without a schema an untyped word is a string.
package enum DeclaredValueText {
    /// `value` read as `type` when it is untyped text (a string, or an array of strings for
    /// an array type) that spells a value of that type; otherwise `value` unchanged, for
    /// the schema check to judge.
    package static func coerce(_ value: PropertyListValue, to type: DeclaredType) -> PropertyListValue {
        switch (type, value) {
        case (.string, _): return value
        case (.array(let element?), .array(let elements)):
            return .array(elements.map { coerce($0, to: element) })
        case (_, .string(let text)):
            return scalar(text, as: type) ?? value
        default:
            return value
        }
    }

    /// Text as a scalar of `type`, or nil if it does not spell one.
    static func scalar(_ text: String, as type: DeclaredType) -> PropertyListValue? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer:
            if let integer = Int64(trimmed) { return .integer(PropertyListInteger(integer)) }
            if let integer = UInt64(trimmed) { return .integer(PropertyListInteger(integer)) }
            return nil
        case .real:
            guard let real = Double(trimmed), real.isFinite else { return nil }
            return .double(real)
        case .boolean:
            switch trimmed.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: return nil
            }
        case .date:
            return ScalarType.date(trimmed).map(PropertyListValue.date)
        case .data:
            return (try? ScalarType.hexBytes(trimmed)).map(PropertyListValue.data)
        default:
            return nil
        }
    }

    /// Coerces every declared key of `values` (see ``coerce(_:to:)``) and returns the first
    /// violation left, checking keys in sorted order so the message is stable.
    package static func check(_ values: inout [String: PropertyListValue], against schema: PreferenceSchema) -> SchemaViolation? {
        for key in values.keys.sorted() {
            guard let declaration = schema[key], let value = values[key] else { continue }
            let coerced = coerce(value, to: declaration.type)
            values[key] = coerced
            if let violation = schema.violation(setting: coerced, forKey: key) { return violation }
        }
        return nil
    }

    /// A refused value as a message shows it: `<private>` for a key `schema` declares private
    /// (a refusal on standard error ends up in terminals, scripts' logs and, for a service,
    /// the journal, as the library's own refusal log says `<private>` too).
    package static func shown(_ violation: SchemaViolation, in schema: PreferenceSchema?) -> String {
        schema?[violation.key]?.isPrivate == true ? DeclaredKey.privateValuePlaceholder : SchemaViolation.render(violation.value)
    }

    /// The tool's message for a refused write: the rule in words, and that nothing changed.
    /// The value is named (``shown(_:in:)``) unless `schema` declares the key private.
    package static func refusal(_ violation: SchemaViolation, domain: String, schema: PreferenceSchema?) -> DefaultsFailure {
        DefaultsFailure(
            "\(domain): \(violation.key) \(violation.rule), not \(shown(violation, in: schema)); nothing was changed",
            usage: "Hint: the schema \(violation.schemaPath) declares \(violation.key); see defaults describe \(domain) \(violation.key)")
    }
}
