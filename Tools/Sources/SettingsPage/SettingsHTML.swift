import DefaultsCommand
import Foundation
package import Preferences

/// The pages' markup: one function per part, every word from outside escaped.
///
/// What scripts and tests may rely on (see the settings page article): each row is
/// `[data-row=KEY]`, each control carries `data-key`, the origin label `data-origin-for` with
/// `data-layer`, the message `data-message-for`, the reset button `data-reset-for`; a locked
/// row has `data-locked` and its controls are `disabled`.
package enum SettingsHTML {
    /// A whole page: head with the CSRF token, the style sheet and the script, then `body`.
    static func document(title: String, csrfToken: String, bodyAttributes: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="csrf-token"\(HTML.attribute("content", csrfToken))>
        <title>\(HTML.escape(title))</title>
        <link rel="stylesheet" href="/assets/settings.css">
        <script src="/assets/settings.js" defer></script>
        </head>
        <body\(bodyAttributes)>
        \(body)
        </body>
        </html>
        """
    }

    /// The words for the layer a value comes from.
    static func originText(_ row: SettingRow) -> String {
        guard let layer = row.layer else { return "Not set" }
        switch layer {
        case .forced: return "Set by policy" + (row.layerOrigin.map { " (\($0))" } ?? "")
        case .argument: return "Launch argument"
        case .byHost: return "This domain, this machine only"
        case .app: return "This domain"
        case .suite: return "Suite"
        case .globalByHost: return "Global domain, this machine only"
        case .global: return "Global domain"
        case .system: return "System default"
        case .systemGlobal: return "System-wide global default"
        case .registration: return "Registered default"
        case .declared: return "Default"
        }
    }

    /// One setting's row: its words, its control, where its value comes from, its reset
    /// button and the place for a refusal's message.
    package static func row(_ row: SettingRow) -> String {
        let key = row.key
        let id = HTML.id("c", key)
        var html = "<div class=\"setting\"\(HTML.attribute("data-row", key))\(HTML.attribute("data-control", controlName(row.control)))"
        html += HTML.flag("data-locked", row.isLocked) + HTML.flag("data-changed", row.isChangedFromDefault) + ">"
        html += "<div class=\"about\">"
        switch row.control {
        case .choice(_, _, isRadio: true):
            // A radio group is a section of its own, titled above: its name here is for
            // screen readers, which read the choices' group by it.
            html += "<span class=\"title visually-hidden\"\(HTML.attribute("id", id + "-title"))>\(HTML.escape(row.title))</span>"
        case .tree, .titleValue:
            html += "<span class=\"title\"\(HTML.attribute("id", id + "-title"))>\(HTML.escape(row.title))</span>"
        default:
            html += "<label\(HTML.attribute("for", id))>\(HTML.escape(row.title))</label>"
        }
        if row.title != key { html += " <code class=\"key-name\">\(HTML.escape(key))</code>" }
        for line in row.help { html += "<p class=\"help\">\(HTML.escape(line))</p>" }
        html += "</div><div class=\"control\">" + control(row, id: id) + "</div>"
        html += "<div class=\"meta\"><span class=\"origin\"\(HTML.attribute("data-origin-for", key))\(HTML.attribute("data-layer", row.layer?.rawValue ?? "none"))>"
        html += HTML.escape(originText(row)) + "</span>"
        if row.isChangedFromDefault { html += " <span class=\"changed\">Changed from default</span>" }
        if row.domainHoldsKey && !row.isLocked {
            html += " <button type=\"button\" class=\"small\"\(HTML.attribute("data-reset-for", key))\(HTML.attribute("aria-label", "Reset \(row.title) to its default"))>Reset</button>"
        }
        html += "</div><p class=\"message\"\(HTML.attribute("data-message-for", key)) role=\"alert\"></p></div>"
        return html
    }

    /// The name of a control kind, which the page's script dispatches on.
    static func controlName(_ control: SettingControl) -> String {
        switch control {
        case .toggle: "toggle"
        case .slider: "slider"
        case .number: "number"
        case .choice(_, _, let isRadio): isRadio ? "radio" : "choice"
        case .text: "text"
        case .date: "date"
        case .data: "data"
        case .titleValue: "title"
        case .tree: "tree"
        }
    }

    /// The control of a row, its value filled in.
    static func control(_ row: SettingRow, id: String) -> String {
        let key = HTML.attribute("data-key", row.key)
        let off = HTML.flag("disabled", row.isLocked)
        let value = row.value
        switch row.control {
        case .toggle(let on, _):
            let isOn = value.map { SettingRow.same($0, on) } ?? false
            return "<input type=\"checkbox\" role=\"switch\"\(HTML.attribute("id", id))\(key)\(HTML.flag("checked", isOn))\(off)>"
        case .slider(let minimum, let maximum, let isInteger):
            let step = isInteger ? "1" : "any"
            let number = value.flatMap(SettingRow.number)
            let shown = value.map { SettingRow.text($0) }
            return "<input type=\"range\"\(HTML.attribute("id", id))\(key) min=\"\(format(minimum))\" max=\"\(format(maximum))\" step=\"\(step)\""
                + HTML.attribute("value", number.map(format)) + off + "> "
                + "<input type=\"number\" class=\"exact\"\(HTML.attribute("id", id + "-n"))\(key) data-part=\"number\" step=\"\(step)\""
                + HTML.attribute("value", shown) + HTML.attribute("aria-label", "\(row.title), exact value") + off + ">"
        case .number(let isInteger, let minimum, let maximum):
            return "<input type=\"number\"\(HTML.attribute("id", id))\(key) step=\"\(isInteger ? "1" : "any")\""
                + HTML.attribute("min", minimum.map(format)) + HTML.attribute("max", maximum.map(format))
                + HTML.attribute("value", value.map { SettingRow.text($0) }) + off + ">"
        case .choice(let values, let titles, let isRadio):
            let selected = value.flatMap { value in values.firstIndex { SettingRow.same($0, value) } }
            if isRadio {
                var html = "<fieldset\(HTML.attribute("aria-labelledby", id + "-title"))\(off)><legend class=\"visually-hidden\">\(HTML.escape(row.title))</legend>"
                for (index, title) in titles.enumerated() {
                    let optionID = id + "-\(index)"
                    html += "<div class=\"radio\"><input type=\"radio\"\(HTML.attribute("name", row.key))\(HTML.attribute("id", optionID))\(key) value=\"\(index)\""
                    html += HTML.flag("checked", index == selected) + off + "><label\(HTML.attribute("for", optionID))>\(HTML.escape(title))</label></div>"
                }
                return html + "</fieldset>"
            }
            var html = "<select\(HTML.attribute("id", id))\(key)\(off)>"
            if selected == nil { html += "<option value=\"\" selected disabled>—</option>" }
            for (index, title) in titles.enumerated() {
                html += "<option value=\"\(index)\"\(HTML.flag("selected", index == selected))>\(HTML.escape(title))</option>"
            }
            return html + "</select>"
        case .text(let inputType, let inputMode, let autocapitalize, let checksSpelling):
            var text: String?
            if case .string(let string)? = value { text = string } else { text = value.map { SettingRow.text($0) } }
            return "<input\(HTML.attribute("type", inputType))\(HTML.attribute("id", id))\(key)\(HTML.attribute("value", text))"
                + HTML.attribute("inputmode", inputMode) + HTML.attribute("autocapitalize", autocapitalize)
                + HTML.attribute("spellcheck", checksSpelling ? "true" : "false") + HTML.attribute("autocorrect", checksSpelling ? nil : "off")
                + " autocomplete=\"off\"" + off + ">"
        case .date:
            var text: String?
            if case .date(let date)? = value { text = DateText.text(of: date) }
            return "<input type=\"datetime-local\" step=\"1\"\(HTML.attribute("id", id))\(key)\(HTML.attribute("value", text))\(off)> <span class=\"unit\">UTC</span>"
        case .data:
            var text: String?
            if case .data(let data)? = value { text = data.base64EncodedString() }
            return "<input type=\"text\" class=\"mono\"\(HTML.attribute("id", id))\(key)\(HTML.attribute("value", text))\(off)> <span class=\"unit\">base64</span>"
        case .titleValue(let values, let titles):
            var shown = value.map { SettingRow.text($0) } ?? ""
            if let value, let values, let titles, let index = values.firstIndex(where: { SettingRow.same($0, value) }), index < titles.count {
                shown = titles[index]
            } else if case .string(let string)? = value {
                shown = string
            }
            return "<output\(HTML.attribute("id", id))\(key)\(HTML.attribute("aria-labelledby", id + "-title"))>\(HTML.escape(shown))</output>"
        case .tree:
            let tree = value.map { ValueTree.html($0, label: row.key, disabled: row.isLocked) } ?? "<em>no value</em>"
            return "<div class=\"tree\"\(HTML.attribute("id", id))\(key) data-tree\(HTML.attribute("aria-labelledby", id + "-title"))>\(tree)</div>"
        }
    }

    /// A number as the page's inputs take it: integers without a fraction.
    static func format(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }

    /// The domain's history: its versions newest first, undo, and a restore button for each
    /// kept generation.
    package static func history(_ generations: [DomainGeneration], problem: String?) -> String {
        var html = "<section id=\"history\" aria-labelledby=\"history-title\"><h2 id=\"history-title\">History</h2>"
        if let problem { html += "<p class=\"warning\">\(HTML.escape(problem))</p>" }
        let canUndo = generations.count > 1
        html += "<p><button type=\"button\" data-undo\(HTML.flag("disabled", !canUndo))>Undo last change</button></p>"
        if generations.isEmpty { return html + "<p class=\"help\">Nothing has been written yet.</p></section>" }
        html += "<ol class=\"generations\">"
        for generation in generations {
            html += "<li\(HTML.attribute("data-generation", String(generation.number)))\(HTML.flag("data-current", generation.isCurrent))>"
            html += "<span class=\"number\">\(generation.number)\(generation.isCurrent ? " (current)" : "")</span> "
            if let date = generation.date {
                html += "<time\(HTML.attribute("datetime", date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))))>\(HTML.escape(GenerationText.text(of: date)))</time> "
            }
            html += "<span class=\"writer\">\(HTML.escape(generation.writer.description))</span> "
            if let problem = generation.problem {
                html += "<span class=\"warning\">does not decode: \(HTML.escape(problem.reason))</span>"
            } else if let keys = generation.changedKeys {
                html += "<span class=\"changed-keys\">" + (keys.isEmpty ? "changed nothing" : "changed " + HTML.escape(keys.joined(separator: ", "))) + "</span>"
            }
            if !generation.isCurrent && generation.problem == nil {
                html += " <button type=\"button\" class=\"small\"\(HTML.attribute("data-restore", String(generation.number)))>Restore</button>"
            }
            html += "</li>"
        }
        return html + "</ol></section>"
    }
}
