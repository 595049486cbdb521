import DeclaredSettings
import Foundation
import PropertyList

/// The policy file `preferences-fleet template` prints for a domain: an XML property-list
/// dictionary with every declared key at its default, each under a comment giving its type,
/// default, range or choices and description, for an administrator to fill in and put.
///
/// Keys are left out of the dictionary, and shown in their comment as an entry to add,
/// when the schema gives them no default (there is nothing true to write) or declares them
/// private: a secret in a policy is readable by whoever may read the fleet's etcd keys and
/// forced onto every machine the policy reaches, so it is added only on purpose. Everything
/// written in the dictionary keeps its key's rules, so the file passes `check` unchanged.
///
/// The values are written by the library's XML encoder, so they read back exactly; the
/// comments are made legal XML (``comment(_:indent:)``), so strict parsers (Apple's,
/// Python's `plistlib`) read the file as well as this library's.
struct PolicyTemplate {
    /// The domain the policy is for.
    let domain: String
    /// Its schema.
    let schema: PreferenceSchema

    /// The whole file.
    var text: String {
        let keys = schema.sortedKeys
        let set = keys.filter(Self.isSet)
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#,
        ]
        lines += Self.comment(
            """
            Fleet policy for \(domain), from the schema \(schema.path)
            (\(keys.count) key\(keys.count == 1 ? "" : "s") declared, \(set.count) set here).

            Every key in this dictionary is forced on each machine the policy reaches, over
            what its users set. Each declared key is set to its default: change the values to
            force, and delete the keys to leave to users. Keys with no default, and private
            keys, are described but left out: add them as their comment shows.

            Check the file before it is put: preferences-fleet check \(domain) FILE
            """, indent: "")
        lines += [#"<plist version="1.0">"#, "<dict>"]
        for key in keys {
            lines += Self.comment(Self.description(of: key), indent: "\t")
            if Self.isSet(key), let value = key.defaultValue {
                lines += Self.entry(key.name, value)
            }
        }
        lines += ["</dict>", "</plist>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether the key is written in the dictionary: it has a default and is not private.
    static func isSet(_ key: DeclaredKey) -> Bool {
        key.defaultValue != nil && !key.isPrivate
    }

    /// The words above a key: its name, then one field a line as `defaults describe` lays
    /// them out, values as ``shown(_:)`` shows them.
    static func description(of key: DeclaredKey) -> String {
        var lines = [key.name]
        func field(_ name: String, _ value: String) {
            let label = "  " + (name + ":").padding(toLength: 10, withPad: " ", startingAt: 0)
            let continuation = String(repeating: " ", count: label.count)
            for (index, line) in value.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                lines.append((index == 0 ? label : continuation) + line)
            }
        }
        field("type", key.type.description)
        if let value = key.defaultValue {
            // A private key's value is never printed, its default included: one rule for
            // every output, which a reviewer can check without knowing where a value came from.
            field("default", key.isPrivate ? "\(DeclaredKey.privateValuePlaceholder) (declared, not shown)" : shown(value))
        } else {
            field("default", "none")
        }
        switch (key.minimum, key.maximum) {
        case (let minimum?, let maximum?): field("range", "\(shown(minimum)) to \(shown(maximum))")
        case (let minimum?, nil): field("range", "at least \(shown(minimum))")
        case (nil, let maximum?): field("range", "at most \(shown(maximum))")
        case (nil, nil): break
        }
        if let choices = key.choices {
            let titles = key.choiceTitles.flatMap { $0.count == choices.count ? $0 : nil }
            field("choices", choices.enumerated().map { index, choice in
                shown(choice) + (titles.map { " (\($0[index]))" } ?? "")
            }.joined(separator: ", "))
        }
        if let summary = key.summary { field("summary", summary) }
        if let details = key.details { field("details", details) }
        if key.isPrivate {
            field(
                "private",
                """
                yes: its values are secrets. Left out: a policy is readable by whoever may
                read the fleet's etcd keys; hosts report a refused value as \(DeclaredKey.privateValuePlaceholder).
                """)
        }
        if !isSet(key) {
            let lines = entry(key.name, example(for: key)).map { $0.replacingOccurrences(of: "\t", with: "  ") }
            field("to set", (["add to the dictionary:"] + lines).joined(separator: "\n"))
        }
        return lines.joined(separator: "\n")
    }

    /// A value in a comment as refusal messages show it (``SchemaViolation/render(_:)``), so
    /// "range: 0 to 100" here reads against "must be at most 100" in a host's status; but a
    /// date as the XML below it spells it, not as seconds since 2001.
    static func shown(_ value: PropertyListValue) -> String {
        guard case .date(let date) = value else { return SchemaViolation.render(value) }
        return date.formatted(Date.ISO8601FormatStyle())
    }

    /// `name` and `value` as the encoder writes a dictionary entry one level deep: a tab, the
    /// `<key>`, then the value's lines.
    static func entry(_ name: String, _ value: PropertyListValue) -> [String] {
        let document = String(decoding: XMLPropertyListEncoder().encode(.dictionary([name: value])), as: UTF8.self)
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let open = lines.firstIndex(of: "<dict>"), let close = lines.lastIndex(of: "</dict>"), open < close else { return [] }
        return Array(lines[(open + 1)..<close])
    }

    /// A value to show in a left-out key's comment that keeps the key's rules, so adding it
    /// as shown passes `check`: the first choice, else the lower (or upper) bound, else the
    /// type's empty value. Never the default of a private key: it is shown as a placeholder
    /// to fill, not as a value to force.
    static func example(for key: DeclaredKey) -> PropertyListValue {
        if let first = key.choices?.first { return first }
        if let bound = key.minimum ?? key.maximum { return bound }
        switch key.type {
        case .string: return .string("")
        case .integer: return .integer(0)
        case .real: return .double(0)
        case .boolean: return .bool(false)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: 0))
        case .data: return .data(Data())
        case .array: return .array([])
        case .dictionary: return .dictionary([:])
        }
    }

    /// `text` as an XML comment, each line indented by `indent`: `--` cannot appear inside a
    /// comment, so a hyphen after a hyphen is followed by a space; characters XML forbids
    /// anywhere (controls but tab and newline) are shown as `\u{…}`, as refusal messages
    /// show them. `<!--` and `-->` stand on lines of their own, so the text's first or last
    /// hyphen never touches them (`<!---` and `--->` are not allowed either).
    static func comment(_ text: String, indent: String) -> [String] {
        var safe = ""
        for scalar in text.unicodeScalars {
            if scalar == "\r" { continue }
            if scalar == "-", safe.unicodeScalars.last == "-" { safe += " " }
            let forbidden = (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || scalar.value == 0xFFFE || scalar.value == 0xFFFF
            if forbidden {
                safe += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                safe.unicodeScalars.append(scalar)
            }
        }
        let body = safe.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : indent + $0 }
        return [indent + "<!--"] + body + [indent + "-->"]
    }
}
