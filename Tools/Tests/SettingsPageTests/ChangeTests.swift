import Foundation
import Preferences
import PropertyList
import SettingsPage
import Testing
import TestSupport

/// Changes sent by a page: checked against their controls, locks and declared rules, and
/// written all together or not at all.
@Suite("Changes")
struct ChangeTests {
    static let domain = "com.example.changes"

    static func install(in fixture: SiteFixture) throws {
        try fixture.installSchema([
            "Volume": ["Type": "integer", "Default": 50, "Minimum": 0, "Maximum": 100],
            "Theme": ["Type": "string", "Choices": ["light", "dark"], "ChoiceTitles": ["Light", "Dark"], "Default": "light"],
            "Enabled": ["Type": "boolean", "Default": true],
            "Name": ["Type": "string"],
            "Locked": ["Type": "boolean", "Default": false],
        ], for: domain)
        try fixture.force(["Locked": true], domain: domain)
    }

    @Test("a valid change of several keys is written as one commit, and the reply holds their rows and the history")
    func multiKey() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        #expect(try fixture.change(Self.domain, [set("Name", "string", "first")]).status == 200)
        let before = try fixture.generations(Self.domain).count

        let reply = try fixture.change(Self.domain, [
            set("Volume", "number", "70"), set("Theme", "choice", 1), set("Enabled", "toggle", false), set("Name", "string", "Ann"),
        ])
        #expect(reply.status == 200, "\(reply)")
        #expect(reply.ok == true)
        let values = try #require(try fixture.onDisk(Self.domain))
        #expect(values["Volume"] == .integer(70), "an integer key's number is stored as an integer")
        #expect(values["Theme"] == "dark")
        #expect(values["Enabled"] == false)
        #expect(values["Name"] == "Ann")

        let generations = try fixture.generations(Self.domain)
        #expect(generations.count == before + 1, "one commit for the whole request")
        #expect(generations.first?.changedKeys == ["Enabled", "Name", "Theme", "Volume"])

        #expect(Set(reply.rows.map(\.key)) == ["Volume", "Theme", "Enabled", "Name"])
        let volume = parseMarkup(try #require(reply.row("Volume")))
        #expect(volume.first("input", ["type": "range"])?["value"] == "70")
        #expect(volume.first("span", ["data-origin-for": "Volume"])?["data-layer"] == "app")
        let history = parseMarkup(try #require(reply.history))
        #expect(history.all("li", ["data-generation": nil]).count == generations.count)
        #expect(history.first("li", ["data-current": nil])?["data-generation"] == String(generations[0].number))
    }

    @Test("an out-of-range number, a choice outside the list or a value of the wrong type is refused, naming the rule, and nothing is written")
    func refusals() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        #expect(try fixture.change(Self.domain, [set("Name", "string", "kept"), set("Volume", "number", "60")]).status == 200)
        let bytes = try #require(fixture.bytes(Self.domain))
        let generations = try fixture.generations(Self.domain).count

        let cases: [(change: [String: Any], key: String, words: [String])] = [
            (set("Volume", "number", "101"), "Volume", ["at most 100"]),
            (set("Volume", "number", "-1"), "Volume", ["at least 0"]),
            (set("Volume", "number", "2.5"), "Volume", ["integer"]),
            (set("Volume", "number", "abc"), "Volume", ["integer", "abc"]),
            (set("Volume", "string", "loud"), "Volume", ["integer"]),
            (set("Theme", "choice", 2), "Theme", ["Light, Dark"]),
            (set("Theme", "choice", -1), "Theme", ["Light, Dark"]),
            (set("Theme", "string", "blue"), "Theme", ["light", "dark"]),
            (set("Enabled", "toggle", "yes"), "Enabled", ["on or off"]),
            (set("Name", "colour", "red"), "Name", ["unknown kind"]),
            (["key": "Name"], "Name", ["no value"]),
        ]
        for (change, key, words) in cases {
            let reply = try fixture.change(Self.domain, [change])
            #expect(reply.status == 422, "\(change): \(reply)")
            #expect(reply.ok == false)
            let message = reply.errors[key] ?? ""
            for word in words { #expect(message.contains(word), "\(change): \(message)") }
            #expect(fixture.bytes(Self.domain) == bytes, "\(change) wrote to the file")
        }
        #expect(try fixture.generations(Self.domain).count == generations)
    }

    @Test("one refused change in a request and none of its changes is written")
    func allOrNothing() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        #expect(try fixture.change(Self.domain, [set("Name", "string", "kept")]).status == 200)
        let bytes = try #require(fixture.bytes(Self.domain))

        let reply = try fixture.change(Self.domain, [set("Name", "string", "changed"), set("Volume", "number", "500"), set("Enabled", "toggle", false)])
        #expect(reply.status == 422, "\(reply)")
        #expect(Set(reply.errors.keys) == ["Volume"], "only the refused change has a message")
        #expect(reply.error?.contains("nothing was written") == true)
        #expect(fixture.bytes(Self.domain) == bytes)
        #expect(try fixture.onDisk(Self.domain)?["Name"] == "kept")
        #expect(try fixture.onDisk(Self.domain)?["Enabled"] == nil)
    }

    @Test("a change to a key forced by policy is refused and nothing is written")
    func forcedKey() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        #expect(try fixture.change(Self.domain, [set("Name", "string", "kept")]).status == 200)
        let bytes = try #require(fixture.bytes(Self.domain))
        for change in [set("Locked", "toggle", false), reset("Locked")] {
            let reply = try fixture.change(Self.domain, [set("Name", "string", "changed"), change])
            #expect(reply.status == 422, "\(reply)")
            #expect(reply.errors["Locked"]?.contains("set by policy") == true, "\(reply)")
            #expect(fixture.bytes(Self.domain) == bytes)
        }
    }

    @Test("a reset removes the key from the domain's file and the row shows the default again")
    func resetKey() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        #expect(try fixture.change(Self.domain, [set("Name", "string", "Ann"), set("Volume", "number", "80")]).status == 200)
        let reply = try fixture.change(Self.domain, [reset("Volume")])
        #expect(reply.status == 200, "\(reply)")
        #expect(try fixture.onDisk(Self.domain) == ["Name": "Ann"])
        let row = parseMarkup(try #require(reply.row("Volume")))
        #expect(row.first("input", ["type": "range"])?["value"] == "50")
        #expect(row.first("span", ["data-origin-for": "Volume"])?["data-layer"] == "declared")
        #expect(row.first("button", ["data-reset-for": "Volume"]) == nil)
    }

    @Test("a typed tree for an undeclared key round-trips every property-list type")
    func plistRoundTrip() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        let tree = dictionaryNode([
            ("s", node("string", "héllo <&>")),
            ("i", node("integer", "-42")),
            ("big", node("integer", "18446744073709551615")),
            ("r", node("real", "2.5")),
            ("b", node("boolean", true)),
            ("d", node("date", "2026-01-31T12:00:00")),
            ("x", node("data", "AAEC/w==")),
            ("a", arrayNode([node("integer", "1"), node("string", "two"), arrayNode([])])),
            ("e", dictionaryNode([("inner", node("boolean", false))])),
        ])
        let reply = try fixture.change(Self.domain, [set("Extra", "plist", tree), set("Huge", "plist", node("integer", "9223372036854775808"))])
        #expect(reply.status == 200, "\(reply)")
        let expected: PropertyListValue = [
            "s": "héllo <&>", "i": -42, "big": .integer(PropertyListInteger(UInt64.max)), "r": 2.5, "b": true,
            "d": .date(Date(timeIntervalSince1970: 1_769_860_800)), "x": .data(Data([0, 1, 2, 255])), "a": [1, "two", []], "e": ["inner": false],
        ]
        let values = try #require(try fixture.onDisk(Self.domain))
        #expect(values["Extra"] == expected)
        #expect(values["Huge"] == .integer(PropertyListInteger(UInt64(Int64.max) + 1)))

        // The row sent back shows the tree as stored, the big integer digit for digit.
        let row = parseMarkup(try #require(reply.row("Extra")))
        let big = row.all("li", class: "entry").first { $0["data-name"] == "big" }
        #expect(big?.first("div", class: "node")?["data-type"] == "integer")
        #expect(big?.first("input", ["data-leaf": nil])?["value"] == "18446744073709551615")
        #expect(parseMarkup(try #require(reply.row("Huge"))).first("input", ["data-leaf": nil])?["value"] == "9223372036854775808")
    }

    @Test("a date and data change read their text: UTC date and time, base64")
    func dateAndData() throws {
        let fixture = try SiteFixture()
        try fixture.installSchema(["When": ["Type": "date"], "Blob": ["Type": "data"]], for: Self.domain)
        let reply = try fixture.change(Self.domain, [set("When", "date", "2026-01-31T12:00"), set("Blob", "data", "AAEC /w==")])
        #expect(reply.status == 200, "\(reply)")
        #expect(try fixture.onDisk(Self.domain) == ["When": .date(Date(timeIntervalSince1970: 1_769_860_800)), "Blob": .data(Data([0, 1, 2, 255]))])
        let refused = try fixture.change(Self.domain, [set("When", "date", "yesterday"), set("Blob", "data", "***")])
        #expect(refused.status == 422)
        #expect(Set(refused.errors.keys) == ["When", "Blob"])
    }

    @Test("a request that is not a list of changes, or changes a key twice, is 400 and writes nothing")
    func badRequests() throws {
        let fixture = try SiteFixture()
        try Self.install(in: fixture)
        for body in [
            "", "{", "[]", "null", "{\"changes\": []}", "{\"changes\": {}}", "{\"change\": [{\"key\": \"Name\", \"value\": {\"string\": \"a\"}}]}",
            "{\"changes\": [{\"value\": {\"string\": \"a\"}}]}", "{\"changes\": [{\"key\": \"\", \"value\": {\"string\": \"a\"}}]}",
            "{\"changes\": [\"Name\"]}",
            "{\"changes\": [{\"key\": \"Name\", \"value\": {\"string\": \"a\"}}, {\"key\": \"Name\", \"reset\": true}]}",
            "{\"changes\": [{\"key\": \"Volume\", \"value\": {\"number\": \"500\"}}, {\"key\": \"Volume\", \"value\": {\"number\": \"5\"}}]}",
        ] {
            let reply = try fixture.post(Self.domain, body: body)
            #expect(reply.status == 400, "\(body): \(reply)")
            #expect(reply.ok == false)
        }
        #expect(fixture.bytes(Self.domain) == nil, "nothing was written")
    }

    @Test("a domain word that is a path, has a slash or looks like an option is 404 everywhere, and nothing is created")
    func badDomains() throws {
        let fixture = try SiteFixture()
        let victim = fixture.directory.file("victim.plist").path
        let body = try JSONSerialization.data(withJSONObject: ["changes": [set("Name", "string", "x")]])
        for word in ["../x", "./x", "~/x", victim, "com.example/app", "-x", "-foo.plist", ".hidden", "", "a b"] {
            #expect(fixture.site.applyChanges(domain: word, pane: nil, body: body).status == 404, "\(word)")
            #expect(fixture.site.undo(domain: word, pane: nil).status == 404, "\(word)")
            #expect(fixture.site.restore(domain: word, pane: nil, body: Data("{\"generation\": 1}".utf8)).status == 404, "\(word)")
            do {
                _ = try fixture.site.domainPage(domain: word, pane: nil)
                Issue.record("\(word) was served")
            } catch {
                #expect(error.status == 404, "\(word): \(error)")
            }
            do {
                let subscription = try fixture.site.subscribe(domain: word)
                subscription.end()
                Issue.record("\(word) was followed")
            } catch {
                #expect(error.status == 404, "\(word): \(error)")
            }
            #expect(fixture.site.livePageCount(domain: word) == 0)
        }
        // Read only: a system file named by path is not served either.
        do {
            _ = try fixture.site.domainPage(domain: "/etc/passwd", pane: nil)
            Issue.record("/etc/passwd was served")
        } catch {
            #expect(error.status == 404)
        }
        #expect(!FileManager.default.fileExists(atPath: victim))
        let created = (try? FileManager.default.contentsOfDirectory(atPath: fixture.userDirectory)) ?? []
        #expect(created.isEmpty, "\(created)")
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.file("x.plist").path))
    }

    @Test("a change on the global domain's page is written to the global domain's file")
    func globalDomain() throws {
        let fixture = try SiteFixture()
        for word in [PreferenceStore.globalDomain, "-g"] {
            let reply = try fixture.change(word, [set("Accent-\(word)", "string", "red")])
            #expect(reply.status == 200, "\(word): \(reply)")
        }
        let values = try #require(try fixture.onDisk(PreferenceStore.globalDomain), "no .GlobalPreferences.plist")
        #expect(values == ["Accent-NSGlobalDomain": "red", "Accent--g": "red"])
        let strays = ((try? FileManager.default.contentsOfDirectory(atPath: fixture.userDirectory)) ?? []).filter { !$0.hasPrefix(".") }
        #expect(strays.isEmpty, "a domain file beside the global one: \(strays)")
        // Another program reading the global domain sees it.
        #expect(try fixture.files.persistentDomainValues(at: .global())?["Accent-NSGlobalDomain"] == "red")
    }
}
