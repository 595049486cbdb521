import Foundation
import Preferences
import PropertyList
import SettingsPage
import Testing
import TestSupport

/// A Settings.bundle's panes as the page shows them: every specifier type, its words from
/// the strings table, and the child pane.
@Suite("Settings.bundle pages")
struct BundlePageTests {
    static let domain = "com.example.bundle"

    /// A Settings.bundle specifier of `type` with `fields`.
    static func specifier(_ type: String, _ fields: [String: PropertyListValue] = [:]) -> PropertyListValue {
        var all = fields
        all["Type"] = .string(type)
        return .dictionary(all)
    }

    /// A bundle with every specifier type, a child pane and English words for `Root`.
    static func install(in fixture: SiteFixture) throws {
        let root: PropertyListValue = [
            "StringsTable": "Root",
            "PreferenceSpecifiers": [
                specifier("PSGroupSpecifier", ["Title": "GROUP_MAIN", "FooterText": "FOOTER_MAIN"]),
                specifier("PSToggleSwitchSpecifier", ["Key": "Enabled", "Title": "ENABLED_TITLE", "DefaultValue": true]),
                specifier("PSToggleSwitchSpecifier", ["Key": "Mode", "Title": "MODE_TITLE", "TrueValue": "YES", "FalseValue": "NO", "DefaultValue": "NO"]),
                specifier("PSSliderSpecifier", ["Key": "Volume", "MinimumValue": 0, "MaximumValue": 10, "DefaultValue": 5]),
                specifier("PSMultiValueSpecifier", [
                    "Key": "Count", "Title": "COUNT_TITLE", "Values": [1, 2, 3], "Titles": ["ONE_TITLE", "TWO_TITLE", "THREE_TITLE"], "DefaultValue": 1,
                ]),
                specifier("PSRadioGroupSpecifier", [
                    "Key": "Theme", "Title": "THEME_TITLE", "FooterText": "THEME_FOOTER", "Values": ["light", "dark"],
                    "Titles": ["LIGHT_TITLE", "DARK_TITLE"], "DefaultValue": "light",
                ]),
                specifier("PSGroupSpecifier", ["Title": "TEXT_GROUP"]),
                specifier("PSTextFieldSpecifier", [
                    "Key": "Token", "Title": "TOKEN_TITLE", "IsSecure": true, "KeyboardType": "Alphabet",
                    "AutocapitalizationType": "None", "AutocorrectionType": "No",
                ]),
                specifier("PSTextFieldSpecifier", ["Key": "Mail", "Title": "Mail", "KeyboardType": "EmailAddress"]),
                specifier("PSTextFieldSpecifier", ["Key": "Site", "Title": "Web site", "KeyboardType": "URL"]),
                specifier("PSTextFieldSpecifier", ["Key": "Pin", "Title": "PIN", "KeyboardType": "NumberPad"]),
                specifier("PSTextFieldSpecifier", ["Key": "Nickname", "Title": "Nickname"]),
                specifier("PSTitleValueSpecifier", [
                    "Key": "Status", "Title": "STATUS_TITLE", "DefaultValue": "ok", "Values": ["ok", "bad"], "Titles": ["STATUS_OK", "STATUS_BAD"],
                ]),
                specifier("PSChildPaneSpecifier", ["Title": "ADVANCED_TITLE", "File": "Advanced"]),
            ],
        ]
        let advanced: PropertyListValue = [
            "PreferenceSpecifiers": [specifier("PSToggleSwitchSpecifier", ["Key": "Debug", "Title": "Debug mode"])],
        ]
        let english = """
            /* The words of Root.plist. */
            "GROUP_MAIN" = "Main";
            "FOOTER_MAIN" = "Changes apply at once.";
            "ENABLED_TITLE" = "Turn it on";
            "MODE_TITLE" = "Fast mode";
            "COUNT_TITLE" = "Count";
            "ONE_TITLE" = "One";
            "TWO_TITLE" = "Two";
            "THREE_TITLE" = "Three";
            "THEME_TITLE" = "Look";
            "THEME_FOOTER" = "Pick a look.";
            "LIGHT_TITLE" = "Light";
            "DARK_TITLE" = "Dark";
            "TEXT_GROUP" = "Text";
            "TOKEN_TITLE" = "Access token";
            "STATUS_TITLE" = "Status";
            "STATUS_OK" = "All good";
            "STATUS_BAD" = "Broken";
            "ADVANCED_TITLE" = "Advanced";
            """
        try fixture.installBundle(for: domain, panes: ["Root": root, "Advanced": advanced], strings: ["en": english])
    }

    /// The words of the bundle before translation: none may reach the page.
    static let rawWords = [
        "GROUP_MAIN", "FOOTER_MAIN", "ENABLED_TITLE", "MODE_TITLE", "COUNT_TITLE", "ONE_TITLE", "TWO_TITLE", "THEME_TITLE", "THEME_FOOTER",
        "LIGHT_TITLE", "DARK_TITLE", "TEXT_GROUP", "TOKEN_TITLE", "STATUS_TITLE", "STATUS_OK", "STATUS_BAD", "ADVANCED_TITLE",
    ]

    /// The row of `key` on `page`.
    static func row(_ key: String, on page: Element, sourceLocation: SourceLocation = #_sourceLocation) throws -> Element {
        let rows = page.all("div", ["data-row": key])
        #expect(rows.count == 1, "rows of \(key): \(rows)", sourceLocation: sourceLocation)
        return try #require(rows.first, sourceLocation: sourceLocation)
    }

    /// Requires `control` to have an id that is unique on `page` and a `<label for>` naming it
    /// that holds `title`.
    static func expectLabel(_ control: Element, _ title: String, on page: Element, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let id = control["id"], !id.isEmpty else {
            Issue.record("\(control) has no id", sourceLocation: sourceLocation)
            return
        }
        #expect(page.all(nil, ["id": id]).count == 1, "id \(id) is not unique", sourceLocation: sourceLocation)
        let labels = page.all("label", ["for": id])
        #expect(labels.count == 1, "labels for \(id): \(labels)", sourceLocation: sourceLocation)
        #expect(labels.first?.text == title, sourceLocation: sourceLocation)
    }

    @Test("each specifier type becomes its control, labelled, with the stored value shown")
    func controls() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        // Values that differ from every default, so each control must show the stored one.
        try fixture.plant([
            "Enabled": false, "Mode": "YES", "Volume": 7.5, "Count": 2, "Theme": "dark", "Token": "s3cret", "Mail": "a@example.com",
            "Status": "bad",
        ], domain: Self.domain)
        let page = try fixture.page(Self.domain)

        // A switch: checkbox with role switch, bound label, checked as the value says.
        let enabled = try #require(try Self.row("Enabled", on: page).first("input", ["type": "checkbox", "role": "switch", "data-key": "Enabled"]))
        Self.expectLabel(enabled, "Turn it on", on: page)
        #expect(!enabled.has("checked"), "false is stored, though the default is true")
        #expect(try Self.row("Enabled", on: page)["data-control"] == "toggle")
        // With TrueValue/FalseValue strings, the stored "YES" is on.
        let mode = try #require(try Self.row("Mode", on: page).first("input", ["type": "checkbox", "role": "switch", "data-key": "Mode"]))
        Self.expectLabel(mode, "Fast mode", on: page)
        #expect(mode.has("checked"))

        // A slider: a range with the bounds and the value, and an exact number beside it.
        let volumeRow = try Self.row("Volume", on: page)
        #expect(volumeRow["data-control"] == "slider")
        let range = try #require(volumeRow.first("input", ["type": "range", "data-key": "Volume"]))
        #expect(range["min"] == "0" && range["max"] == "10")
        #expect(range["value"] == "7.5")
        Self.expectLabel(range, "Volume", on: page)
        let exact = try #require(volumeRow.first("input", ["data-part": "number", "data-key": "Volume"]))
        #expect(exact["type"] == "number" && exact["value"] == "7.5")
        #expect(volumeRow.all("p", class: "help").map(\.text).contains("From 0 to 10"))

        // A multi-value: a select of indexes named by the translated titles.
        let countRow = try Self.row("Count", on: page)
        let select = try #require(countRow.first("select", ["data-key": "Count"]))
        Self.expectLabel(select, "Count", on: page)
        let options = select.all("option").filter { $0["value"] != "" }
        #expect(options.map { $0["value"] } == ["0", "1", "2"])
        #expect(options.map(\.text) == ["One", "Two", "Three"])
        #expect(options.filter { $0.has("selected") }.map { $0["value"] } == ["1"], "the stored 2 is the second value")

        // A radio group: one radio per value, named by the key, each with its label.
        let themeRow = try Self.row("Theme", on: page)
        #expect(themeRow["data-control"] == "radio")
        let radios = themeRow.all("input", ["type": "radio"])
        #expect(radios.count == 2)
        #expect(radios.allSatisfy { $0["name"] == "Theme" && $0["data-key"] == "Theme" })
        #expect(radios.map { $0["value"] } == ["0", "1"])
        #expect(radios.map { $0.has("checked") } == [false, true])
        for (radio, title) in zip(radios, ["Light", "Dark"]) { Self.expectLabel(radio, title, on: page) }

        // Text fields: their input types and keyboard hints.
        let token = try #require(try Self.row("Token", on: page).first("input", ["data-key": "Token"]))
        #expect(token["type"] == "password")
        #expect(token["autocapitalize"] == "off")
        #expect(token["spellcheck"] == "false")
        #expect(token["value"] == "s3cret")
        Self.expectLabel(token, "Access token", on: page)
        let mail = try #require(try Self.row("Mail", on: page).first("input", ["data-key": "Mail"]))
        #expect(mail["type"] == "email" && mail["inputmode"] == "email")
        #expect(mail["value"] == "a@example.com")
        #expect(mail["spellcheck"] == "false", "an address is not words to check")
        let site = try #require(try Self.row("Site", on: page).first("input", ["data-key": "Site"]))
        #expect(site["type"] == "url" && site["inputmode"] == "url")
        #expect(site["spellcheck"] == "false", "an address is not words to check")
        let pin = try #require(try Self.row("Pin", on: page).first("input", ["data-key": "Pin"]))
        #expect(pin["type"] == "text" && pin["inputmode"] == "numeric")
        let nickname = try #require(try Self.row("Nickname", on: page).first("input", ["data-key": "Nickname"]))
        #expect(nickname["type"] == "text" && !nickname.has("inputmode") && !nickname.has("autocapitalize"))
        #expect(!nickname.has("value"), "nothing is stored and nothing declared")

        // A title value: an output showing the title of the stored value, not the value.
        let statusRow = try Self.row("Status", on: page)
        #expect(statusRow["data-control"] == "title")
        let output = try #require(statusRow.first("output", ["data-key": "Status"]))
        #expect(output.text == "Broken")
        #expect(statusRow.all("input").isEmpty && statusRow.all("select").isEmpty, "a title value is shown, not changed")

        // Every row's control has the key's data-key, and the page's translated words only.
        let html = try fixture.site.domainPage(domain: Self.domain, pane: nil)
        for word in Self.rawWords { #expect(!html.contains(word), "the raw word \(word) is on the page") }
    }

    @Test("without stored values each control shows the declared default")
    func defaults() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        let page = try fixture.page(Self.domain)
        #expect(try Self.row("Enabled", on: page).first("input", ["data-key": "Enabled"])?.has("checked") == true)
        #expect(try Self.row("Mode", on: page).first("input", ["data-key": "Mode"])?.has("checked") == false, "the default is NO")
        #expect(try Self.row("Volume", on: page).first("input", ["type": "range"])?["value"] == "5")
        let selected = try Self.row("Count", on: page).all("option").filter { $0.has("selected") }
        #expect(selected.map { $0["value"] } == ["0"])
        #expect(try Self.row("Theme", on: page).all("input", ["type": "radio"]).map { $0.has("checked") } == [true, false])
        #expect(try Self.row("Status", on: page).first("output")?.text == "All good")
    }

    @Test("groups are sections with their title and footer; a radio group is a section of its own")
    func sections() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        let page = try fixture.page(Self.domain)
        func section(of key: String) throws -> Element? {
            try Self.row(key, on: page).closest("section")
        }
        let main = try #require(try section(of: "Enabled"))
        #expect(main.first("h2")?.text == "Main")
        #expect(main.all("p", class: "footer").map(\.text) == ["Changes apply at once."])
        #expect(main.all("div", ["data-row": nil]).map { $0["data-row"] } == ["Enabled", "Mode", "Volume", "Count"])

        let theme = try #require(try section(of: "Theme"))
        #expect(theme !== main)
        #expect(theme.first("h2")?.text == "Look")
        #expect(theme.all("p", class: "footer").map(\.text) == ["Pick a look."])
        #expect(theme.all("div", ["data-row": nil]).map { $0["data-row"] } == ["Theme"])

        let text = try #require(try section(of: "Token"))
        #expect(text.first("h2")?.text == "Text")
        #expect(text.all("p", class: "footer").isEmpty)
        #expect(text.all("div", ["data-row": nil]).map { $0["data-row"] } == ["Token", "Mail", "Site", "Pin", "Nickname", "Status"])
        #expect(text.first("a", ["data-pane": "Advanced"]) != nil, "the link is in the group it follows")
    }

    @Test("a child pane is a link to its own page, which shows its keys; an unknown pane is 404")
    func childPane() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        let page = try fixture.page(Self.domain)
        let link = try #require(page.first("a", ["data-pane": "Advanced"]))
        #expect(link["href"] == "/domains/\(Self.domain)/panes/Advanced")
        #expect(link.text.hasPrefix("Advanced"))
        #expect(page.first("div", ["data-row": "Debug"]) == nil, "the child pane's keys are on its own page")

        let child = try fixture.page(Self.domain, pane: "Advanced")
        #expect(child.first("body")?["data-pane"] == "Advanced")
        #expect(child.first("h1")?.text == "Advanced", "titled by the link, translated")
        let debug = try #require(child.first("div", ["data-row": "Debug"])?.first("input", ["type": "checkbox", "data-key": "Debug"]))
        Self.expectLabel(debug, "Debug mode", on: child)
        #expect(child.first("div", ["data-row": "Enabled"]) == nil)
        #expect(child.first(nil, ["id": "other-keys"]) == nil, "undeclared keys are shown on the first pane only")

        for pane in ["Missing", "advanced", "../Root"] {
            do {
                _ = try fixture.site.domainPage(domain: Self.domain, pane: pane)
                Issue.record("the pane \(pane) was served")
            } catch {
                #expect(error.status == 404, "\(pane): \(error)")
            }
        }
    }

    @Test("a change to a bundle key is read by its control: a switch's TrueValue, a choice's value, a slider's number")
    func changesByControl() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        let reply = try fixture.change(Self.domain, [
            set("Mode", "toggle", true), set("Count", "choice", 2), set("Volume", "number", "2.5"), set("Theme", "choice", 1),
        ])
        #expect(reply.status == 200, "\(reply)")
        let values = try #require(try fixture.onDisk(Self.domain))
        #expect(values["Mode"] == "YES")
        #expect(values["Count"] == 3)
        #expect(values["Volume"] == 2.5)
        #expect(values["Theme"] == "dark")
        // The rows come back as the page now shows them.
        let mode = parseMarkup(try #require(reply.row("Mode")))
        #expect(mode.first("input", ["data-key": "Mode"])?.has("checked") == true)

        let refused = try fixture.change(Self.domain, [set("Volume", "number", "11")])
        #expect(refused.status == 422)
        #expect(refused.errors["Volume"]?.contains("10") == true, "\(refused)")
        let shown = try fixture.change(Self.domain, [set("Status", "string", "bad")])
        #expect(shown.status == 422, "a title value is shown, not changed: \(shown)")
        #expect(try fixture.onDisk(Self.domain)?["Status"] == nil)
    }
}
