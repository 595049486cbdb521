import Foundation
import Preferences
import PropertyList
import SettingsPage
import Testing
import TestSupport

/// Where each row's value comes from, and what a forced value locks.
@Suite("Origins and locks")
struct OriginTests {
    static let domain = "com.example.origins"

    /// The row's parts scripts rely on.
    struct Row {
        var row: Element
        var origin: Element?
        var reset: Element?

        init(_ key: String, on page: Element, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let rows = page.all("div", ["data-row": key])
            #expect(rows.count == 1, "rows of \(key)", sourceLocation: sourceLocation)
            row = try #require(rows.first, sourceLocation: sourceLocation)
            let origins = row.all("span", ["data-origin-for": key])
            #expect(origins.count == 1, "origins of \(key)", sourceLocation: sourceLocation)
            origin = origins.first
            reset = row.first("button", ["data-reset-for": key])
        }
    }

    @Test("each row says which layer its value comes from; the user's own differing value is marked changed and can be reset")
    func layers() throws {
        let fixture = try SiteFixture()
        try fixture.installSchema([
            "Volume": ["Type": "integer", "Default": 50, "Minimum": 0, "Maximum": 100],
            "Mode": ["Type": "string", "Default": "auto"],
            "Theme": ["Type": "string", "Default": "light"],
            "Accent": ["Type": "string", "Default": "blue"],
        ], for: Self.domain)
        try fixture.plant(["Volume": 70, "Mode": "auto"], domain: Self.domain)
        let global = try fixture.change(PreferenceStore.globalDomain, [set("Accent", "string", "red")])
        #expect(global.status == 200, "\(global)")
        let page = try fixture.page(Self.domain)

        let volume = try Row("Volume", on: page)
        #expect(volume.origin?["data-layer"] == "app")
        #expect(volume.origin?.text == "This domain")
        #expect(volume.row.has("data-changed"))
        #expect(volume.row.first("span", class: "changed") != nil)
        #expect(volume.reset != nil)
        #expect(!volume.row.has("data-locked"))

        // The user's own value, equal to the default: not changed, but there is a file value to reset.
        let mode = try Row("Mode", on: page)
        #expect(mode.origin?["data-layer"] == "app")
        #expect(!mode.row.has("data-changed"))
        #expect(mode.reset != nil)

        let theme = try Row("Theme", on: page)
        #expect(theme.origin?["data-layer"] == "declared")
        #expect(theme.origin?.text == "Default")
        #expect(!theme.row.has("data-changed"))
        #expect(theme.reset == nil, "nothing in the domain's file to reset")
        #expect(theme.row.first("input", ["data-key": "Theme"])?["value"] == "light")

        let accent = try Row("Accent", on: page)
        #expect(accent.origin?["data-layer"] == "global", "written on the global domain's page: \(accent.row)")
        #expect(accent.row.first("input", ["data-key": "Accent"])?["value"] == "red")
        #expect(!accent.row.has("data-changed"))
        #expect(accent.reset == nil, "this domain's file does not hold it")
    }

    @Test("a forced value locks its row: layer forced, control disabled, no reset, said to be set by policy")
    func forced() throws {
        let fixture = try SiteFixture()
        try fixture.installSchema([
            "Locked": ["Type": "boolean", "Default": false],
            "Speed": ["Type": "integer", "Default": 5, "Minimum": 1, "Maximum": 9],
            "Server": ["Type": "string"],
        ], for: Self.domain)
        // The user had values of their own before the policy came.
        try fixture.plant(["Locked": false, "Speed": 2, "Server": "mine"], domain: Self.domain)
        try fixture.force(["Locked": true, "Speed": 7, "Server": "policy.example.com"], domain: Self.domain)
        let page = try fixture.page(Self.domain)

        for key in ["Locked", "Speed", "Server"] {
            let row = try Row(key, on: page)
            #expect(row.origin?["data-layer"] == "forced", "\(key)")
            #expect(row.origin?.text.hasPrefix("Set by policy") == true, "\(key): \(row.origin?.text ?? "")")
            #expect(row.row.has("data-locked"), "\(key)")
            #expect(!row.row.has("data-changed"), "\(key): the user's value is not the one in use")
            #expect(row.reset == nil, "\(key): a reset would change nothing in use")
            let controls = row.row.all("input", ["data-key": key])
            #expect(!controls.isEmpty, "\(key)")
            #expect(controls.allSatisfy { $0.has("disabled") }, "\(key): \(controls)")
        }
        #expect(try Row("Locked", on: page).row.first("input", ["data-key": "Locked"])?.has("checked") == true, "the forced value is shown")
        #expect(try Row("Speed", on: page).row.first("input", ["type": "range"])?["value"] == "7")
        #expect(try Row("Server", on: page).row.first("input", ["data-key": "Server"])?["value"] == "policy.example.com")
    }

    @Test("the global domain's page shows the global file's keys as its own, and a reset removes them there")
    func globalDomainPage() throws {
        let fixture = try SiteFixture()
        // A file named after the global domain (an earlier page wrote there): not the global domain.
        try fixture.plant(["AppleLanguages": ["xx"], "Stray": 1], named: "NSGlobalDomain.plist")
        let reply = try fixture.change(PreferenceStore.globalDomain, [set("AppleLanguages", "plist", arrayNode([node("string", "de")]))])
        #expect(reply.status == 200, "\(reply)")
        #expect(try fixture.onDisk(PreferenceStore.globalDomain) == ["AppleLanguages": ["de"]])

        let page = try fixture.page(PreferenceStore.globalDomain)
        #expect(page.first("h1")?.text == "Global domain")
        #expect(page.first("div", ["data-row": "Stray"]) == nil)
        let row = try Row("AppleLanguages", on: page)
        #expect(row.row.first("div", ["data-key": "AppleLanguages"])?.first("input", ["data-leaf": nil])?["value"] == "de")
        #expect(row.origin?["data-layer"] == "global")
        #expect(row.row.has("data-changed"))
        #expect(row.reset != nil, "the global domain's own value can be reset on its page")

        let reset = try fixture.change(PreferenceStore.globalDomain, [reset("AppleLanguages")])
        #expect(reset.status == 200, "\(reset)")
        #expect(try fixture.onDisk(PreferenceStore.globalDomain)?["AppleLanguages"] == nil)
        #expect(reset.row("AppleLanguages") == "", "the stray file's value is not the global domain's: \(reset)")
    }
}
