import Foundation
package import PropertyList

/// Any property-list value as the page edits it: a typed tree, as dconf-editor shows keys.
///
/// On the page each value is a `.node` element whose `data-type` names its type; a leaf holds
/// one input, a dictionary a list of named entries, an array a list of items (drawn from
/// ``TreeNodeMarkup`` by `node.mustache`). The page sends
/// a tree back as JSON of the same shape: `{"type": "integer", "value": "5"}`,
/// `{"type": "array", "items": [...]}`, `{"type": "dictionary", "entries": [{"name": "a",
/// "node": {...}}]}`; numbers travel as text so that no digit is lost to a JavaScript double.
package enum ValueTree {
    /// The types a node may have, in the order the page offers them.
    static let types = ["string", "integer", "real", "boolean", "date", "data", "array", "dictionary"]

    /// The deepest tree accepted: far beyond any preference, and a bound on recursion.
    static let depthLimit = 64

    /// The value a JSON tree describes; `path` names the node in errors (`Dict.a[2]`).
    package static func value(from json: Any, at path: String, depth: Int = 0) throws(SettingRefusal) -> PropertyListValue {
        guard depth < depthLimit else { throw SettingRefusal(path, "nests more than \(depthLimit) deep") }
        guard let node = json as? [String: Any], let type = node["type"] as? String else {
            throw SettingRefusal(path, "is not a typed value")
        }
        let text = node["value"] as? String
        switch type {
        case "string":
            guard let text else { throw SettingRefusal(path, "has no text") }
            return .string(text)
        case "integer":
            guard let text, let integer = integer(text) else { throw SettingRefusal(path, "must be an integer, not \(quoted(node["value"]))") }
            return .integer(integer)
        case "real":
            guard let text, let real = Double(text.trimmingCharacters(in: .whitespaces)), real.isFinite else {
                throw SettingRefusal(path, "must be a number, not \(quoted(node["value"]))")
            }
            return .double(real)
        case "boolean":
            guard let flag = node["value"] as? Bool else { throw SettingRefusal(path, "must be true or false") }
            return .bool(flag)
        case "date":
            guard let text, let date = DateText.date(from: text) else {
                throw SettingRefusal(path, "must be a date and time such as 2026-01-31T12:00:00, not \(quoted(node["value"]))")
            }
            return .date(date)
        case "data":
            guard let text, let data = Data(base64Encoded: text.filter { !$0.isWhitespace }) else {
                throw SettingRefusal(path, "must be base64, not \(quoted(node["value"]))")
            }
            return .data(data)
        case "array":
            guard let items = node["items"] as? [Any] else { throw SettingRefusal(path, "has no items") }
            var values: [PropertyListValue] = []
            for (index, item) in items.enumerated() {
                values.append(try value(from: item, at: "\(path)[\(index)]", depth: depth + 1))
            }
            return .array(values)
        case "dictionary":
            guard let entries = node["entries"] as? [Any] else { throw SettingRefusal(path, "has no entries") }
            var values: [String: PropertyListValue] = [:]
            for entry in entries {
                guard let entry = entry as? [String: Any], let name = entry["name"] as? String, let child = entry["node"] else {
                    throw SettingRefusal(path, "has an entry without a name")
                }
                guard values[name] == nil else { throw SettingRefusal(path, "has two entries named \(quoted(name))") }
                values[name] = try value(from: child, at: "\(path).\(name)", depth: depth + 1)
            }
            return .dictionary(values)
        default:
            throw SettingRefusal(path, "has an unknown type \(quoted(type))")
        }
    }

    /// An integer from its text, signed 64-bit or unsigned up to 2^64 − 1.
    static func integer(_ text: String) -> PropertyListInteger? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let signed = Int64(trimmed) { return PropertyListInteger(signed) }
        if let unsigned = UInt64(trimmed) { return PropertyListInteger(unsigned) }
        return nil
    }

    /// A submitted value in a message, quoted and cut short.
    static func quoted(_ value: Any?) -> String {
        let text = value.map { "\($0)" } ?? "nothing"
        return "\"" + (text.count > 40 ? text.prefix(40) + "…" : text) + "\""
    }

    /// The type name of a value, as the page shows it.
    static func type(of value: PropertyListValue) -> String {
        switch value {
        case .string: "string"
        case .integer: "integer"
        case .double, .float: "real"
        case .bool: "boolean"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }
}
