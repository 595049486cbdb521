import Foundation
import PropertyList
import SettingsPage
import Testing

@Suite("Escaping")
struct EscapingTests {
    static let domain = "com.example.escaping"
    /// A key whose quotes a combining mark follows: each `"` + U+0301 is one character.
    static let key = "Key\"\u{301} autofocus onfocus=\"\u{301}go()"
    /// A value with such quotes and angle brackets.
    static let value = "value\"\u{301}>\u{301}<b>"
    /// The key's row, as the page must write it.
    static let escapedKey = #"data-row="Key&quot;\#u{301} autofocus onfocus=&quot;\#u{301}go()""#
    /// The value's input, as the page must write it.
    static let escapedValue = #"value="value&quot;\#u{301}&gt;\#u{301}&lt;b&gt;""#

    @Test("a quote that a combining mark follows is escaped too, so it cannot end an attribute")
    func combiningQuote() throws {
        let fixture = try SiteFixture()
        try fixture.plant([Self.key: .string(Self.value)], domain: Self.domain)
        let html = try fixture.site.domainPage(domain: Self.domain, pane: nil)
        let scalars = Array(html.unicodeScalars)
        let bare = zip(scalars, scalars.dropFirst()).filter { $0.0 == "\"" && $0.1 == "\u{301}" }
        #expect(bare.isEmpty, "a quote reached the page unescaped")
        let page = parseMarkup(html)
        #expect(page.descendants.allSatisfy { !$0.has("onfocus") && !$0.has("autofocus") })
        // The words arrive whole, escaped. Compared as UTF-8: compared as characters, a `;`
        // that a combining mark follows is not a `;`.
        #expect(Self.utf8(of: html, contains: Self.escapedKey))
        #expect(Self.utf8(of: html, contains: Self.escapedValue))
    }

    /// Whether `text`'s UTF-8 holds `part`'s.
    static func utf8(of text: String, contains part: String) -> Bool {
        let bytes = Array(text.utf8), wanted = Array(part.utf8)
        guard bytes.count >= wanted.count else { return false }
        return (0...(bytes.count - wanted.count)).contains { bytes[$0..<$0 + wanted.count].elementsEqual(wanted) }
    }
}
