import Mustache

/// The one escaper of the settings pages: every `{{name}}` of every template goes through it
/// (see ``PageTemplates``), so a key, value or title written by anyone cannot become markup.
///
/// Why not swift-mustache's own HTML escaping: it compares whole characters, so a `"` that a
/// combining mark follows (`"\u{301}`, one character) was left as it is and closed an
/// attribute. This one looks at each Unicode scalar.
struct PageEscaping: MustacheContentType {
    /// The name templates are parsed under (`{{% CONTENT_TYPE: SETTINGS_HTML}}`).
    static let name = "SETTINGS_HTML"

    /// `text` safe in an element's content and in a quoted attribute value.
    func escapeText(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
