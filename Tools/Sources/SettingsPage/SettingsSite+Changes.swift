import DefaultsCommand
package import Foundation
package import Preferences

/// A reply to a change: its HTTP status and JSON body.
package struct ChangeReply: Sendable, Equatable {
    /// 200 when done; 400, 404, 409, 422 or 500 when nothing was written.
    package var status: Int
    /// `{"ok": true, "rows": [{"key", "html"}], "history": "..."}`, or `{"ok": false,
    /// "error": "...", "errors": {key: message}}`.
    package var json: String

    /// Creates a reply.
    package init(status: Int, json: String) {
        self.status = status
        self.json = json
    }
}

extension SettingsSite {
    /// The largest change request read: far more than a form of settings needs.
    package static let requestLimit = 1 << 20

    /// Applies a form's changes as one transaction, after checking each against its control,
    /// its lock and the declared rules: one refused change and nothing is written.
    ///
    /// The body is `{"changes": [{"key": K, "value": V} or {"key": K, "reset": true}]}`, where
    /// V is `{"toggle": bool}`, `{"choice": index}`, `{"number": text}`, `{"string": text}`,
    /// `{"date": text}`, `{"data": base64}` or `{"plist": tree}` (see ``ValueTree``).
    package func applyChanges(domain word: String, pane: String?, body: Data) -> ChangeReply {
        let location: PersistentDomainLocation
        let declaration: Declaration
        do throws(PageError) {
            location = try data.location(word)
            declaration = try data.declaration(of: location)
        } catch {
            return Self.failure(error)
        }
        guard let json = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let changes = json["changes"] as? [Any], !changes.isEmpty else {
            return Self.failure(PageError(status: 400, "the request is not {\"changes\": [...]} with at least one change"))
        }
        var resolved: [(key: String, value: PropertyListValue?)] = []
        var refusals: [String: String] = [:]
        for change in changes {
            guard let change = change as? [String: Any], let key = change["key"] as? String, !key.isEmpty else {
                return Self.failure(PageError(status: 400, "each change names a key"))
            }
            guard !resolved.contains(where: { $0.key == key }), refusals[key] == nil else {
                return Self.failure(PageError(status: 400, "\(key) is changed twice in one request"))
            }
            let row = model(ofKey: key, declaration: declaration)
            let layers = (try? data.sources(forKey: key, at: location)) ?? []
            if layers.first(where: { $0.violation == nil })?.layer == .forced {
                refusals[key] = "\(row.title) is set by policy: a change here would not take effect"
                continue
            }
            do throws(SettingRefusal) {
                let value = try Self.value(of: change, for: row)
                if let value, let violation = declaration.schema?.violation(setting: value, forKey: key) {
                    let element = violation.elementPath.isEmpty ? "" : " (element " + violation.elementPath.map { "[\($0)]" }.joined() + ")"
                    // A private value is not echoed back: the page's reply may end up in a log.
                    let shown = declaration.schema?[key]?.isPrivate == true ? DeclaredKey.privateValuePlaceholder : SchemaViolation.render(value)
                    throw SettingRefusal(key, "\(row.title) \(violation.rule), not \(shown)\(element)")
                }
                resolved.append((key, value))
            } catch {
                refusals[key] = error.key == key ? error.message : "\(error.key) \(error.message)"
            }
        }
        guard refusals.isEmpty else {
            return ChangeReply(status: 422, json: JSONText.object([
                ("ok", "false"),
                ("error", JSONText.string("nothing was written: " + refusals.keys.sorted().map { refusals[$0]! }.joined(separator: "; "))),
                ("errors", JSONText.object(refusals.keys.sorted().map { ($0, JSONText.string(refusals[$0]!)) })),
            ]))
        }
        do {
            try data.commit(resolved, at: location)
        } catch let error as PreferencesError {
            if let violation = error.violation {
                return ChangeReply(status: 422, json: JSONText.object([
                    ("ok", "false"), ("error", JSONText.string(violation.description)),
                    ("errors", JSONText.object([(violation.key, JSONText.string(violation.description))])),
                ]))
            }
            return Self.failure(PageError(status: 500, error.description))
        } catch {
            return Self.failure(PageError(status: 500, "\(error)"))
        }
        return success(location: location, pane: pane ?? "Root", keys: resolved.map(\.key))
    }

    /// Undoes the domain's last change (`defaults undo`), as a new commit.
    package func undo(domain word: String, pane: String?) -> ChangeReply {
        do throws(PageError) {
            let location = try data.location(word)
            let shown = try keys(onPane: pane ?? "Root", location: location)
            do throws(PreferencesError) {
                try data.undo(at: location)
            } catch {
                throw PageError(status: error.code == .missingFile ? 404 : 409, data.message(for: error, at: location))
            }
            return success(location: location, pane: pane ?? "Root", keys: try keys(onPane: pane ?? "Root", location: location, andThen: shown))
        } catch {
            return Self.failure(error)
        }
    }

    /// Restores a kept generation (`defaults restore`), as a new commit; the body is
    /// `{"generation": N}`.
    package func restore(domain word: String, pane: String?, body: Data) -> ChangeReply {
        do throws(PageError) {
            let location = try data.location(word)
            guard let json = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let number = json["generation"] as? Int else {
                throw PageError(status: 400, "the request is not {\"generation\": N}")
            }
            let shown = try keys(onPane: pane ?? "Root", location: location)
            do throws(PreferencesError) {
                try data.restore(generation: number, at: location)
            } catch {
                throw PageError(status: error.code == .missingFile ? 404 : 409, data.message(for: error, at: location))
            }
            return success(location: location, pane: pane ?? "Root", keys: try keys(onPane: pane ?? "Root", location: location, andThen: shown))
        } catch {
            return Self.failure(error)
        }
    }

    /// The reply to a change that was made: the rows of `keys` on `pane` as they are now, and
    /// the history.
    func success(location: PersistentDomainLocation, pane: String, keys: [String]) -> ChangeReply {
        ChangeReply(status: 200, json: JSONText.object([
            ("ok", "true"),
            ("rows", rowsJSON(keys: keys, location: location, pane: pane)),
            ("history", JSONText.string(historySection(location))),
        ]))
    }

    /// `[{"key": K, "html": H}]` for the keys `pane` shows; `html` is "" for a row to remove.
    package func rowsJSON(keys: [String], location: PersistentDomainLocation, pane: String) -> String {
        guard let declaration = try? data.declaration(of: location) else { return "[]" }
        var rows: [String] = []
        for key in keys {
            guard let html = try? currentRow(key: key, declaration: declaration, location: location, pane: pane) else { continue }
            rows.append(JSONText.object([("key", JSONText.string(key)), ("html", JSONText.string(html))]))
        }
        return "[" + rows.joined(separator: ",") + "]"
    }

    /// A failure as a reply.
    package static func failure(_ error: PageError) -> ChangeReply {
        ChangeReply(status: error.status, json: JSONText.object([("ok", "false"), ("error", JSONText.string(error.message))]))
    }

    /// How a key is shown, without its value: what a change to it is read by.
    func model(ofKey key: String, declaration: Declaration) -> SettingRow {
        if let place = declaration.layout?.place(ofKey: key) {
            return SettingRow(specifier: place.specifier, declaration: declaration.schema?[key])
        }
        if let declared = declaration.schema?[key] { return SettingRow(declaration: declared) }
        return SettingRow(undeclared: key)
    }

    /// The value a change asks for, read by the key's control; nil removes the key.
    static func value(of change: [String: Any], for row: SettingRow) throws(SettingRefusal) -> PropertyListValue? {
        let key = row.key
        if change["reset"] as? Bool == true { return nil }
        guard let value = change["value"] as? [String: Any], value.count == 1, let (kind, payload) = value.first else {
            throw SettingRefusal(key, "has no value: a change is {\"key\", \"value\": {kind: payload}} or {\"key\", \"reset\": true}")
        }
        if case .titleValue = row.control { throw SettingRefusal(key, "is shown, not changed") }
        switch kind {
        case "toggle":
            guard let isOn = payload as? Bool else { throw SettingRefusal(key, "must be on or off") }
            if case .toggle(let on, let off) = row.control { return isOn ? on : off }
            return .bool(isOn)
        case "choice":
            guard case .choice(let values, let titles, _) = row.control else { throw SettingRefusal(key, "is not a choice") }
            guard let index = payload as? Int, values.indices.contains(index) else {
                throw SettingRefusal(key, "must be one of " + titles.joined(separator: ", ") + ", not choice \(ValueTree.quoted(payload))")
            }
            return values[index]
        case "number":
            guard let text = payload as? String else { throw SettingRefusal(key, "must be a number") }
            var isInteger = false
            switch row.control {
            case .slider(_, _, let integer), .number(let integer, _, _): isInteger = integer
            default: break
            }
            if isInteger {
                guard let integer = ValueTree.integer(text) else { throw SettingRefusal(key, "must be an integer, not \(ValueTree.quoted(text))") }
                return .integer(integer)
            }
            guard let real = Double(text.trimmingCharacters(in: .whitespaces)), real.isFinite else {
                throw SettingRefusal(key, "must be a number, not \(ValueTree.quoted(text))")
            }
            return .double(real)
        case "string":
            guard let text = payload as? String else { throw SettingRefusal(key, "must be text") }
            return .string(text)
        case "date":
            return try ValueTree.value(from: ["type": "date", "value": payload], at: key)
        case "data":
            return try ValueTree.value(from: ["type": "data", "value": payload], at: key)
        case "plist":
            return try ValueTree.value(from: payload, at: key)
        default:
            throw SettingRefusal(key, "has a value of unknown kind \(ValueTree.quoted(kind))")
        }
    }
}
