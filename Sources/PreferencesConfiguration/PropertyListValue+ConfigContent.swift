// With the package's Configuration trait only: it brings in swift-configuration.
#if Configuration
import Configuration
import Foundation
import Preferences

// The type mapping lives here, in one place; the Preferences DocC article
// ReadingThroughSwiftConfiguration.md and `PreferencesProvider`'s doc comment describe it for
// users and must change with it.

extension PropertyListValue {
    /// This value as content of `type`, or nil when it has no such representation.
    ///
    /// Conversions follow swift-configuration's own property-list provider (numbers and
    /// booleans convert into each other when exact), plus what a preferences domain needs:
    /// strings parse as numbers and booleans, because `defaults write DOMAIN KEY 30` without
    /// a type flag stores the string "30"; dates read as ISO 8601 strings.
    func configContent(as type: ConfigType) -> ConfigContent? {
        switch type {
        case .string: configString.map(ConfigContent.string)
        case .int: configInt.map(ConfigContent.int)
        case .double: configDouble.map(ConfigContent.double)
        case .bool: configBool.map(ConfigContent.bool)
        case .bytes: dataValue.map { .bytes([UInt8]($0)) }
        case .stringArray: elements(\.configString).map(ConfigContent.stringArray)
        case .intArray: elements(\.configInt).map(ConfigContent.intArray)
        case .doubleArray: elements(\.configDouble).map(ConfigContent.doubleArray)
        case .boolArray: elements(\.configBool).map(ConfigContent.boolArray)
        case .byteChunkArray: elements { $0.dataValue.map { [UInt8]($0) } }.map(ConfigContent.byteChunkArray)
        }
    }

    /// Every element converted, or nil if this is not an array or any element fails: a
    /// partly converted list would silently drop settings.
    private func elements<Element>(_ convert: (PropertyListValue) -> Element?) -> [Element]? {
        guard case .array(let values) = self else { return nil }
        var result: [Element] = []
        result.reserveCapacity(values.count)
        for value in values {
            guard let element = convert(value) else { return nil }
            result.append(element)
        }
        return result
    }

    /// Strings as they are; dates as ISO 8601 in UTC, with fractional seconds only when the
    /// date has them (`2026-11-22T11:30:00Z`, `2026-11-22T11:30:00.250Z`).
    var configString: String? {
        switch self {
        case .string(let value): value
        case .date(let date):
            date.formatted(
                Date.ISO8601FormatStyle(includingFractionalSeconds: date.timeIntervalSince1970.rounded(.down) != date.timeIntervalSince1970))
        default: nil
        }
    }

    /// Integers within `Int`'s range, booleans as 1 or 0, reals without a fraction, and
    /// strings that are decimal integers.
    var configInt: Int? {
        switch self {
        case .integer(let value): value.intValue
        case .bool(let value): value ? 1 : 0
        case .double(let value): Int(exactly: value)
        case .float(let value): Int(exactly: value)
        case .string(let value): Int(value.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }

    /// Reals, integers (exactly representable ones), booleans as 1 or 0, and numeric
    /// strings. A 32-bit real converts through its shortest decimal form, so a `-float 0.1`
    /// written by `defaults` reads as 0.1, not 0.10000000149011612.
    var configDouble: Double? {
        switch self {
        case .double(let value): value
        case .float(let value): Double(value.description)
        case .integer(let value): value.intValue.flatMap { Double(exactly: $0) }
        case .bool(let value): value ? 1 : 0
        case .string(let value): Double(value.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }

    /// Booleans, numbers (non-zero is true), and the strings true/false, yes/no and 1/0 in
    /// any case.
    var configBool: Bool? {
        switch self {
        case .bool(let value): value
        case .integer(let value): value != PropertyListInteger(0)
        case .double(let value): value != 0
        case .float(let value): value != 0
        case .string(let value):
            switch value.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "yes", "1": true
            case "false", "no", "0": false
            default: nil
            }
        default: nil
        }
    }
}
#endif  // Configuration
