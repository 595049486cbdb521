import Foundation
package import PropertyList

/// Any property-list value as the page edits it: a typed tree, as dconf-editor shows keys.
///
/// On the page each value is a `.node` element whose `data-type` names its type; a leaf holds
/// one input, a dictionary a list of named entries, an array a list of items. The page sends
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

    /// The tree of `value` for the key `key`: `label` names its inputs for screen readers.
    static func html(_ value: PropertyListValue, label: String, disabled: Bool) -> String {
        let type = type(of: value)
        let off = HTML.flag("disabled", disabled)
        let named = HTML.attribute("aria-label", label)
        var html = "<div class=\"node\" data-type=\"\(type)\">"
        switch value {
        case .string(let text):
            html += "<input type=\"text\" data-leaf\(HTML.attribute("value", text))\(named)\(off)>"
        case .integer(let integer):
            html += "<input type=\"number\" step=\"1\" data-leaf\(HTML.attribute("value", integer.description))\(named)\(off)>"
        case .double, .float:
            html += "<input type=\"number\" step=\"any\" data-leaf\(HTML.attribute("value", SettingRow.text(value)))\(named)\(off)>"
        case .bool(let flag):
            html += "<input type=\"checkbox\" data-leaf\(HTML.flag("checked", flag))\(named)\(off)>"
        case .date(let date):
            html += "<input type=\"datetime-local\" step=\"1\" data-leaf\(HTML.attribute("value", DateText.text(of: date)))\(named)\(off)> <span class=\"unit\">UTC</span>"
        case .data(let data):
            html += "<input type=\"text\" class=\"mono\" data-leaf\(HTML.attribute("value", data.base64EncodedString()))\(named)\(off)> <span class=\"unit\">base64</span>"
        case .array(let items):
            html += "<ol class=\"entries\" start=\"0\">"
            for (index, item) in items.enumerated() {
                html += "<li class=\"entry\"><span class=\"entry-name\">\(index)</span> <span class=\"type\">\(Self.type(of: item))</span> "
                html += Self.html(item, label: "\(label) [\(index)]", disabled: disabled)
                html += removeButton("\(label) [\(index)]", disabled) + "</li>"
            }
            html += "</ol>" + addControls(label, named: false, disabled)
        case .dictionary(let entries):
            html += "<ul class=\"entries\">"
            for name in entries.keys.sorted() {
                let item = entries[name]!
                html += "<li class=\"entry\"\(HTML.attribute("data-name", name))><span class=\"entry-name\">\(HTML.escape(name))</span> <span class=\"type\">\(Self.type(of: item))</span> "
                html += Self.html(item, label: "\(label) → \(name)", disabled: disabled)
                html += removeButton("\(label) → \(name)", disabled) + "</li>"
            }
            html += "</ul>" + addControls(label, named: true, disabled)
        }
        return html + "</div>"
    }

    /// The button that takes an element out of its container.
    private static func removeButton(_ label: String, _ disabled: Bool) -> String {
        "<button type=\"button\" class=\"small\" data-remove\(HTML.attribute("aria-label", "Remove " + label))\(HTML.flag("disabled", disabled))>Remove</button>"
    }

    /// The controls that add an element of a chosen type (with a name, in a dictionary).
    private static func addControls(_ label: String, named: Bool, _ disabled: Bool) -> String {
        guard !disabled else { return "" }
        var html = "<div class=\"add\">"
        if named { html += "<input type=\"text\" data-add-name placeholder=\"name\"\(HTML.attribute("aria-label", "Name of the new entry of " + label))> " }
        html += "<select data-add-type\(HTML.attribute("aria-label", "Type of the new entry of " + label))>"
        for type in types { html += "<option>\(type)</option>" }
        return html + "</select> <button type=\"button\" class=\"small\" data-add>Add</button></div>"
    }

    /// One empty node of each type, which the page copies when an element is added.
    static var templates: String {
        let empty: [PropertyListValue] = [.string(""), .integer(0), .double(0), .bool(false), .date(Date(timeIntervalSince1970: 0)), .data(Data()), .array([]), .dictionary([:])]
        return "<template id=\"tree-templates\">" + empty.map { html($0, label: "new entry", disabled: false) }.joined() + "</template>"
    }
}

/// A change the page asked for that cannot be made, and why, for the message beside its control.
package struct SettingRefusal: Error, Sendable, Equatable {
    /// The key (or the element of it) refused.
    package var key: String
    /// Why, in words.
    package var message: String

    /// Creates a refusal; `message` follows the key's name ("must be at most 10, not 11").
    package init(_ key: String, _ message: String) {
        self.key = key
        self.message = message
    }
}

/// Dates as the page's `datetime-local` inputs show them: UTC, to the second.
enum DateText {
    /// `2026-01-31T12:00:00`, in UTC.
    static func text(of date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let fields = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func pad(_ value: Int?, _ width: Int) -> String { String(value ?? 0).leftPadded(to: width) }
        return "\(pad(fields.year, 4))-\(pad(fields.month, 2))-\(pad(fields.day, 2))T\(pad(fields.hour, 2)):\(pad(fields.minute, 2)):\(pad(fields.second, 2))"
    }

    /// The date `text` names: `YYYY-MM-DDTHH:MM[:SS]` as UTC, or ISO 8601 with its zone.
    static func date(from text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var candidates = [trimmed]
        if trimmed.count == 16 { candidates.append(trimmed + ":00Z") }
        if trimmed.count == 19 { candidates.append(trimmed + "Z") }
        for candidate in candidates {
            if let date = try? Date.ISO8601FormatStyle().parse(candidate) { return date }
            if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(candidate) { return date }
        }
        return nil
    }
}
