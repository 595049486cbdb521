import Foundation
import Preferences
import PropertyList
import SettingsPage
import Testing
import TestSupport

/// The list of the user's domains.
@Suite("Domain list")
struct ListPageTests {
    static func install(in fixture: SiteFixture) throws {
        #expect(try fixture.change("com.example.stored", [set("Name", "string", "x")]).status == 200)
        try fixture.installSchema(["Volume": ["Type": "integer"]], for: "com.example.declared")
        try BundlePageTests.install(in: fixture)
        // Not domains: a hidden file, a file that is no schema.
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(fixture.schemaDirectory)/README.txt"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(fixture.schemaDirectory)/.hidden.plist"))
    }

    /// The domains a list page shows, in order.
    static func domains(_ html: String) -> [String] {
        parseMarkup(html).all("li", ["data-domain": nil]).compactMap { $0["data-domain"] }
    }

    @Test("the list shows the global domain, the domains with files and those only a schema declares, each linked")
    func all() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        let page = parseMarkup(fixture.site.listPage(query: nil))
        let items = page.all("li", ["data-domain": nil])
        #expect(items.compactMap { $0["data-domain"] } == [PreferenceStore.globalDomain, "com.example.bundle", "com.example.declared", "com.example.stored"])
        for item in items {
            let name = item["data-domain"] ?? ""
            #expect(item.first("a")?["href"] == "/domains/\(name)", "\(name)")
        }
        func tag(_ name: String) -> String? {
            items.first { $0["data-domain"] == name }?.first("span", class: "tag")?.text
        }
        #expect(tag("com.example.declared") == "schema")
        #expect(tag("com.example.bundle") == "Settings.bundle")
        #expect(tag("com.example.stored") == nil)
        #expect(items.first?.first("a")?.text == "Global domain")
    }

    @Test("a value written to the global domain, or a file named NSGlobalDomain.plist, does not list it twice")
    func globalOnce() throws {
        let fixture = try SiteFixture()
        #expect(try fixture.change(PreferenceStore.globalDomain, [set("Accent", "string", "red")]).status == 200)
        // Nor does a file named after it, which is not the global domain.
        try fixture.plant(["Accent": "blue"], named: "NSGlobalDomain.plist")
        #expect(Self.domains(fixture.site.listPage(query: nil)) == [PreferenceStore.globalDomain])
    }

    @Test("a query keeps the domains whose names contain it, whatever the case")
    func query() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        #expect(Self.domains(fixture.site.listPage(query: "DECL")) == ["com.example.declared"])
        #expect(Self.domains(fixture.site.listPage(query: " example.b ")) == ["com.example.bundle"])
        #expect(Self.domains(fixture.site.listPage(query: "global")) == [PreferenceStore.globalDomain])
        #expect(Self.domains(fixture.site.listPage(query: "NSGlobal")) == [PreferenceStore.globalDomain])
        #expect(Self.domains(fixture.site.listPage(query: "com.example")).count == 3)
        #expect(Self.domains(fixture.site.listPage(query: "nothing such")).isEmpty)
        #expect(Self.domains(fixture.site.listPage(query: "")).count == 4)

        let hostile = "\"><script>alert(1)</script>"
        let html = fixture.site.listPage(query: hostile)
        #expect(!html.contains("<script>alert"))
        #expect(parseMarkup(html).first("input", ["id": "domain-search"])?["value"] == hostile)
    }
}
