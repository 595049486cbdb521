import Foundation
import Preferences
import PropertyList
import SettingsPage
import Testing
import TestSupport

/// Undo and restore from the page: each a new commit, replied to with the pane's rows.
@Suite("Undo and restore")
struct HistoryTests {
    static let domain = "com.example.history"

    @Test("undo brings the earlier value back on disk, and restore brings back a kept generation's")
    func undoAndRestore() throws {
        let fixture = try SiteFixture()
        #expect(try fixture.change(Self.domain, [set("Name", "string", "one")]).status == 200)
        #expect(try fixture.change(Self.domain, [set("Name", "string", "two")]).status == 200)

        let undone = try Reply(fixture.site.undo(domain: Self.domain, pane: nil))
        #expect(undone.status == 200, "\(undone)")
        #expect(try fixture.onDisk(Self.domain)?["Name"] == "one")
        let row = parseMarkup(try #require(undone.row("Name"), "\(undone)"))
        #expect(row.first("input", ["data-leaf": nil])?["value"] == "one")
        #expect(undone.history.map { parseMarkup($0).all("li", ["data-generation": nil]).count } == 3)

        let generations = try fixture.generations(Self.domain)
        let two = try #require(generations.first { !$0.isCurrent && $0.values?["Name"] == "two" }, "\(generations)")
        let restored = try Reply(fixture.site.restore(domain: Self.domain, pane: nil, body: Data("{\"generation\": \(two.number)}".utf8)))
        #expect(restored.status == 200, "\(restored)")
        #expect(try fixture.onDisk(Self.domain)?["Name"] == "two")
        #expect(try fixture.generations(Self.domain).count == generations.count + 1, "a restore is a commit of its own")
    }

    @Test("a restore of a generation that is not kept, or of the current one, fails and changes nothing")
    func restoreMissing() throws {
        let fixture = try SiteFixture()
        #expect(try fixture.change(Self.domain, [set("Name", "string", "one")]).status == 200)
        #expect(try fixture.change(Self.domain, [set("Name", "string", "two")]).status == 200)
        let bytes = fixture.bytes(Self.domain)
        let current = try #require(try fixture.generations(Self.domain).first { $0.isCurrent })
        for number in [999, 0, -1, current.number] {
            let reply = try Reply(fixture.site.restore(domain: Self.domain, pane: nil, body: Data("{\"generation\": \(number)}".utf8)))
            #expect(reply.status >= 400 && reply.status < 500, "\(number): \(reply)")
            #expect(reply.ok == false)
            #expect(fixture.bytes(Self.domain) == bytes, "\(number)")
        }
        for body in ["", "{}", "{\"generation\": \"1\"}", "[1]"] {
            let reply = try Reply(fixture.site.restore(domain: Self.domain, pane: nil, body: Data(body.utf8)))
            #expect(reply.status == 400, "\(body): \(reply)")
            #expect(fixture.bytes(Self.domain) == bytes)
        }
    }

    @Test("undo with nothing to go back to fails and writes nothing")
    func undoWithoutHistory() throws {
        let fixture = try SiteFixture()
        let none = try Reply(fixture.site.undo(domain: Self.domain, pane: nil))
        #expect(none.status == 404, "\(none)")
        #expect(fixture.bytes(Self.domain) == nil)

        #expect(try fixture.change(Self.domain, [set("Name", "string", "one")]).status == 200)
        let bytes = fixture.bytes(Self.domain)
        let first = try Reply(fixture.site.undo(domain: Self.domain, pane: nil))
        #expect(first.status == 404, "only the current version exists: \(first)")
        #expect(fixture.bytes(Self.domain) == bytes)
    }

    @Test("an undo that takes away an undeclared key sends its row empty, so the page drops it")
    func undoRemovesRow() throws {
        let fixture = try SiteFixture()
        #expect(try fixture.change(Self.domain, [set("Kept", "string", "k")]).status == 200)
        #expect(try fixture.change(Self.domain, [set("Added", "string", "a")]).status == 200)
        let undone = try Reply(fixture.site.undo(domain: Self.domain, pane: nil))
        #expect(undone.status == 200, "\(undone)")
        #expect(try fixture.onDisk(Self.domain) == ["Kept": "k"])
        #expect(undone.row("Added") == "", "the page keeps a row for a key that is gone: \(undone)")
        #expect(undone.row("Kept")?.isEmpty == false)

        // And a restore that brings it back sends its row again.
        let generations = try fixture.generations(Self.domain)
        let added = try #require(generations.first { !$0.isCurrent && $0.values?["Added"] != nil })
        let restored = try Reply(fixture.site.restore(domain: Self.domain, pane: nil, body: Data("{\"generation\": \(added.number)}".utf8)))
        #expect(restored.status == 200)
        #expect(restored.row("Added")?.isEmpty == false, "\(restored)")
    }

    @Test("undo on a Settings.bundle child pane replies with that pane's rows")
    func undoOnPane() throws {
        let fixture = try SiteFixture()
        try BundlePageTests.install(in: fixture)
        let domain = BundlePageTests.domain
        #expect(try fixture.change(domain, pane: "Advanced", [set("Debug", "toggle", true)]).status == 200)
        #expect(try fixture.change(domain, pane: "Advanced", [set("Debug", "toggle", false)]).status == 200)
        let undone = try Reply(fixture.site.undo(domain: domain, pane: "Advanced"))
        #expect(undone.status == 200, "\(undone)")
        #expect(undone.rows.map(\.key) == ["Debug"])
        #expect(parseMarkup(try #require(undone.row("Debug"))).first("input", ["data-key": "Debug"])?.has("checked") == true)
        #expect(try fixture.onDisk(domain)?["Debug"] == true)
    }
}
