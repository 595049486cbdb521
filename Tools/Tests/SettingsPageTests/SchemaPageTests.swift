import Foundation
import Preferences
import PropertyList
import SettingsPage
import Testing
import TestSupport

/// A native schema's keys as the page shows them: a control per type, a section per group,
/// the range and default in the help.
@Suite("Native schema pages")
struct SchemaPageTests {
    static let domain = "com.example.native"

    static func install(in fixture: SiteFixture) throws {
        try fixture.installSchema([
            "Enabled": ["Type": "boolean", "Default": true, "Summary": "Show the banner", "Group": "General"],
            "Volume": [
                "Type": "integer", "Default": 50, "Minimum": 0, "Maximum": 100, "Summary": "Loudness", "Description": "How loud it is.",
                "Group": "Sound",
            ],
            "Theme": ["Type": "string", "Choices": ["light", "dark"], "ChoiceTitles": ["Light", "Dark"], "Default": "dark", "Group": "General"],
            "Name": ["Type": "string", "Summary": "Your name"],
            "Ratio": ["Type": "real", "Minimum": 0.5, "Summary": "Ratio"],
            "Started": ["Type": "date"],
            "Avatar": ["Type": "data"],
            "Tags": ["Type": "array", "ElementType": "string"],
        ], for: domain)
    }

    static func row(_ key: String, on page: Element, sourceLocation: SourceLocation = #_sourceLocation) throws -> Element {
        let rows = page.all("div", ["data-row": key])
        #expect(rows.count == 1, "rows of \(key): \(rows)", sourceLocation: sourceLocation)
        return try #require(rows.first, sourceLocation: sourceLocation)
    }

    @Test("each declared type has its control: switch, slider, select with the choice titles, text, number, date, data, tree")
    func controls() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        let page = try fixture.page(Self.domain)
        let controls = Dictionary(uniqueKeysWithValues: page.all("div", ["data-row": nil]).map { ($0["data-row"]!, $0["data-control"]) })
        #expect(controls == [
            "Enabled": "toggle", "Volume": "slider", "Theme": "choice", "Name": "text", "Ratio": "number", "Started": "date",
            "Avatar": "data", "Tags": "tree",
        ])

        let enabled = try #require(try Self.row("Enabled", on: page).first("input", ["type": "checkbox", "role": "switch", "data-key": "Enabled"]))
        #expect(enabled.has("checked"), "the declared default is true")
        #expect(page.first("label", ["for": enabled["id"] ?? "?"])?.text == "Show the banner")

        let volume = try Self.row("Volume", on: page)
        let range = try #require(volume.first("input", ["type": "range", "data-key": "Volume"]))
        #expect(range["min"] == "0" && range["max"] == "100" && range["step"] == "1" && range["value"] == "50")
        #expect(volume.first("input", ["type": "number", "data-part": "number"])?["value"] == "50")
        #expect(volume.first("label")?.text == "Loudness")
        #expect(volume.first("code", class: "key-name")?.text == "Volume", "a row titled by its summary names its key too")
        let help = volume.all("p", class: "help").map(\.text)
        #expect(help.contains("How loud it is."))
        #expect(help.contains("From 0 to 100"))
        #expect(help.contains("Default: 50"))

        let theme = try Self.row("Theme", on: page)
        let options = try #require(theme.first("select", ["data-key": "Theme"])).all("option")
        #expect(options.map(\.text) == ["Light", "Dark"])
        #expect(options.map { $0["value"] } == ["0", "1"])
        #expect(options.map { $0.has("selected") } == [false, true])
        #expect(theme.all("p", class: "help").map(\.text).contains("Default: Dark"), "a default is named by its choice title")

        let name = try #require(try Self.row("Name", on: page).first("input", ["data-key": "Name"]))
        #expect(name["type"] == "text" && !name.has("value"))
        let ratio = try Self.row("Ratio", on: page)
        let number = try #require(ratio.first("input", ["type": "number", "data-key": "Ratio"]))
        #expect(number["min"] == "0.5" && !number.has("max") && number["step"] == "any")
        #expect(ratio.all("p", class: "help").map(\.text).contains("At least 0.5"))
        #expect(try Self.row("Started", on: page).first("input", ["data-key": "Started"])?["type"] == "datetime-local")
        #expect(try Self.row("Avatar", on: page).first("input", ["data-key": "Avatar"])?["type"] == "text")
        #expect(try Self.row("Tags", on: page).first("div", ["data-key": "Tags", "data-tree": nil]) != nil)
    }

    @Test("the ungrouped keys come first in a section without a title, then a section per group")
    func groups() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        let page = try fixture.page(Self.domain)
        let form = try #require(page.first("form", ["data-pane-form": nil]))
        let sections = form.all("section", class: "group").filter { $0["id"] != "other-keys" }
        #expect(sections.count == 3)
        guard sections.count == 3 else { return }
        #expect(sections[0].first("h2") == nil)
        #expect(sections[0].all("div", ["data-row": nil]).map { $0["data-row"] } == ["Avatar", "Name", "Ratio", "Started", "Tags"])
        #expect(sections[1].first("h2")?.text == "General")
        #expect(sections[1].all("div", ["data-row": nil]).map { $0["data-row"] } == ["Enabled", "Theme"])
        #expect(sections[2].first("h2")?.text == "Sound")
        #expect(sections[2].all("div", ["data-row": nil]).map { $0["data-row"] } == ["Volume"])
        #expect(page.first("body")?["data-domain"] == Self.domain)
        #expect(page.first("meta", ["name": "csrf-token"])?["content"] == "t")
    }

    @Test("a native schema has no panes: any other pane is 404")
    func noPanes() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        do {
            _ = try fixture.site.domainPage(domain: Self.domain, pane: "Advanced")
            Issue.record("a pane of a native schema was served")
        } catch {
            #expect(error.status == 404)
        }
    }
}

/// Keys declared private (issue 32) on the page: typed hidden, said to be private, and never
/// in the history the page shows.
@Suite("Private keys on the page")
struct PrivateKeyPageTests {
    @Test("a private string is a password field with a note, and the history section never holds its value")
    func privateString() throws {
        let fixture = try SiteFixture()
        try fixture.installSchema(["Token": ["Type": "string", "Private": true, "Summary": "Access token"], "n": ["Type": "integer"]], for: "com.example.private")
        let secret = "tok-0d9f8e7a6b5c"
        #expect(try fixture.change("com.example.private", [set("Token", "string", secret)]).status == 200)
        for round in 1...3 { #expect(try fixture.change("com.example.private", [set("n", "number", "\(round)")]).status == 200) }
        let page = try fixture.page("com.example.private")
        let row = try SchemaPageTests.row("Token", on: page)
        let field = try #require(row.first("input", ["data-key": "Token"]))
        #expect(field["type"] == "password" && field["spellcheck"] == "false")
        #expect(row.all("p", class: "help").map(\.text).contains { $0.hasPrefix("Private") })
        let history = try #require(page.first("section", ["id": "history"]))
        #expect(!history.text.contains(secret))
        #expect(history.all("li", ["data-generation": nil]).count == 4)
        // A refused private value is not echoed in the reply.
        try fixture.installSchema(["Token": ["Type": "string", "Private": true, "Choices": ["a", "b"]]], for: "com.example.chosen")
        let refused = try fixture.change("com.example.chosen", [set("Token", "string", "refused-\(secret)")])
        #expect(refused.status == 422 && !"\(refused)".contains("refused-\(secret)") && "\(refused)".contains("<private>"), "\(refused)")
        // No generation on disk holds it either: only the domain file does.
        #expect(try fixture.generations("com.example.private").filter { !$0.isCurrent }.allSatisfy { $0.values?["Token"] == nil })
    }
}
