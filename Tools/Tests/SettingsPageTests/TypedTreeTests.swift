import Foundation
import Preferences
import PropertyList
import SettingsPage
import Testing
import TestSupport

/// The keys no declaration describes: typed trees, and text from files escaped everywhere.
@Suite("Undeclared keys as typed trees")
struct TypedTreeTests {
    static let domain = "com.example.tree"
    static let hostileKey = "<script>alert(1)</script>"
    static let hostileValue = "\"quoted\" & 'single' <b>bold</b>"
    static let hostileEntry = "</li><script>alert(2)</script>"
    static let quotedKey = "say \"hi\" & <bye>"
    static let when = Date(timeIntervalSince1970: 1_769_860_800)  // 2026-01-31T12:00:00Z

    static func plant(in fixture: SiteFixture) throws {
        try fixture.plant([
            "Name": "Ann", "Count": 42, "Ratio": 0.5, "Flag": true, "When": .date(when), "Blob": .data(Data([0, 1, 2, 255])),
            "List": [1, "two", false],
            "Nested": ["inner": ["deep": true], "n": 1],
            hostileKey: .string(hostileValue),
            quotedKey: [hostileEntry: .string(hostileValue)],
        ], domain: domain)
    }

    /// The top node of a key's tree.
    static func tree(_ key: String, on page: Element, sourceLocation: SourceLocation = #_sourceLocation) throws -> Element {
        let rows = page.all("div", ["data-row": key])
        #expect(rows.count == 1, "rows of \(key)", sourceLocation: sourceLocation)
        let row = try #require(rows.first, sourceLocation: sourceLocation)
        #expect(row["data-control"] == "tree", sourceLocation: sourceLocation)
        let tree = try #require(row.first("div", ["data-key": key, "data-tree": nil]), sourceLocation: sourceLocation)
        let top = tree.childElements
        #expect(top.count == 1 && top.first?.classes == ["node"], "\(top)", sourceLocation: sourceLocation)
        return try #require(top.first, sourceLocation: sourceLocation)
    }

    /// The leaf input of a node.
    static func leaf(_ node: Element) -> Element? {
        node.childElements.first { $0.has("data-leaf") }
    }

    /// The entries (name or index, node) of an array or dictionary node.
    static func entries(_ node: Element) -> [(name: String, node: Element)] {
        let list = node.childElements.first { $0.classes.contains("entries") }
        return (list?.childElements ?? []).map { entry in
            (entry["data-name"] ?? entry.first("span", class: "entry-name")?.text ?? "", entry.childElements.first { $0.classes.contains("node") }!)
        }
    }

    @Test("every key of a domain without a schema is a typed tree of its value")
    func types() throws {
        let fixture = try SiteFixture()
        try Self.plant(in: fixture)
        let page = try fixture.page(Self.domain)
        #expect(page.first("section", ["id": "other-keys"])?.first("h2")?.text == "Keys")

        let expected = ["Name": "string", "Count": "integer", "Ratio": "real", "Flag": "boolean", "When": "date", "Blob": "data", "List": "array", "Nested": "dictionary"]
        for (key, type) in expected {
            #expect(try Self.tree(key, on: page)["data-type"] == type, "\(key)")
        }
        #expect(Self.leaf(try Self.tree("Name", on: page))?["value"] == "Ann")
        #expect(Self.leaf(try Self.tree("Count", on: page))?["value"] == "42")
        #expect(Self.leaf(try Self.tree("Ratio", on: page))?["value"] == "0.5")
        #expect(Self.leaf(try Self.tree("Flag", on: page))?.has("checked") == true)
        #expect(Self.leaf(try Self.tree("When", on: page))?["value"] == "2026-01-31T12:00:00")
        #expect(Self.leaf(try Self.tree("Blob", on: page))?["value"] == "AAEC/w==")

        let list = Self.entries(try Self.tree("List", on: page))
        #expect(list.map(\.name) == ["0", "1", "2"])
        #expect(list.map { $0.node["data-type"] } == ["integer", "string", "boolean"])
        #expect(Self.leaf(list[1].node)?["value"] == "two")

        let nested = Self.entries(try Self.tree("Nested", on: page))
        #expect(nested.map(\.name) == ["inner", "n"])
        #expect(nested.map { $0.node["data-type"] } == ["dictionary", "integer"])
        let inner = Self.entries(nested[0].node)
        #expect(inner.map(\.name) == ["deep"])
        #expect(inner.first?.node["data-type"] == "boolean")
        #expect(inner.first.flatMap { Self.leaf($0.node) }?.has("checked") == true)
    }

    @Test("keys, values and entry names with markup in them are escaped on the page, in change replies and in live events")
    func escaping() throws {
        let fixture = try SiteFixture()
        try Self.plant(in: fixture)
        let html = try fixture.site.domainPage(domain: Self.domain, pane: nil)
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("<b>"))
        #expect(!html.contains("<bye>"))
        let page = parseMarkup(html)
        #expect(page.all("script").map { $0["src"] } == ["/assets/settings.js"], "the page's own script only")
        #expect(page.all("b").isEmpty)

        // The words arrive whole: in attributes, titles and values.
        let hostile = try Self.tree(Self.hostileKey, on: page)
        #expect(Self.leaf(hostile)?["value"] == Self.hostileValue)
        let row = try #require(page.first("div", ["data-row": Self.hostileKey]))
        #expect(row.first("span", class: "title")?.text == Self.hostileKey)
        #expect(row.first("span", ["data-origin-for": Self.hostileKey]) != nil)
        let quoted = Self.entries(try Self.tree(Self.quotedKey, on: page))
        #expect(quoted.map(\.name) == [Self.hostileEntry])
        #expect(quoted.first.flatMap { Self.leaf($0.node) }?["value"] == Self.hostileValue)
        // The history names the changed keys: escaped there too.
        #expect(page.first("section", ["id": "history"])?.text.contains(Self.hostileKey) == true)

        // A change's reply and a live event carry the same rows.
        let reply = try fixture.change(Self.domain, [set(Self.hostileKey, "plist", node("string", Self.hostileValue + "!"))])
        #expect(reply.status == 200, "\(reply)")
        let replied = try #require(reply.row(Self.hostileKey))
        #expect(!replied.contains("<script>alert") && !replied.contains("<b>"))
        #expect(parseMarkup(replied).first("div", ["data-row": Self.hostileKey]) != nil)
        #expect(!(reply.history ?? "").contains("<script>alert"))
        let event = fixture.site.changeEvent(keys: [Self.hostileKey, Self.quotedKey], domain: Self.domain, pane: "Root")
        let lines = event.split(separator: "\n")
        #expect(lines.count == 2 && lines[0] == "event: change", "one event line and one data line: \(event)")
        let data = try #require(try JSONSerialization.jsonObject(with: Data(lines.last!.dropFirst("data: ".count).utf8)) as? [String: Any])
        let rows = try #require(data["rows"] as? [[String: Any]])
        #expect(rows.compactMap { $0["key"] as? String } == [Self.hostileKey, Self.quotedKey], "the keys travel as JSON text")
        for row in rows {
            let html = try #require(row["html"] as? String)
            #expect(!html.contains("<script>") && !html.contains("<b>") && !html.contains("<bye>"), "\(html)")
            #expect(parseMarkup(html).all("script").isEmpty)
        }
        #expect((data["history"] as? String)?.contains("<script>") == false)

        // A refusal's message names the key as JSON text, not markup.
        let refused = try fixture.change(Self.domain, [set(Self.hostileKey, "plist", node("integer", "<i>x</i>"))])
        #expect(refused.status == 422)
        #expect(refused.errors[Self.hostileKey] != nil)
    }

    @Test("a removed undeclared key's row is sent empty, so the page drops it")
    func removedRow() throws {
        let fixture = try SiteFixture()
        try Self.plant(in: fixture)
        let reply = try fixture.change(Self.domain, [reset("Name")])
        #expect(reply.status == 200, "\(reply)")
        #expect(reply.row("Name") == "")
        #expect(try fixture.onDisk(Self.domain)?["Name"] == nil)
        #expect(try fixture.page(Self.domain).first("div", ["data-row": "Name"]) == nil)
    }
}
