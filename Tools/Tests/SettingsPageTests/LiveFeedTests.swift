import Foundation
import Preferences
import PropertyList
import SettingsPage
import Testing
import TestSupport

/// The live feed: an open page hears of changes made anywhere, and gets their rows.
@Suite("Live feed")
struct LiveFeedTests {
    static let domain = "com.example.live"

    /// Waits for the subscription's next wake-up, up to `limit`: true if it came, false if
    /// the limit passed or the feed ended. The limit only bounds a failure.
    static func nextWakeUp(_ subscription: LiveSubscription, within limit: Duration = .seconds(10)) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                var wakeUps = subscription.wakeUps.makeAsyncIterator()
                return await wakeUps.next() != nil
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Whether the subscription's wake-ups end (after any still buffered) within 10 s.
    static func finishes(_ subscription: LiveSubscription) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in subscription.wakeUps {}
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Waits until the subscription has been told of every key of `wanted`, gathering every
    /// key it was told of; nil if it was not within the limit.
    static func keys(until wanted: Set<String>, from subscription: LiveSubscription) async -> Set<String>? {
        var keys = Set(subscription.take())
        while !keys.isSuperset(of: wanted) {
            guard await nextWakeUp(subscription) else { return nil }
            keys.formUnion(subscription.take())
        }
        return keys
    }

    /// The JSON of an event's data line.
    static func data(of event: String) throws -> [String: Any] {
        let line = try #require(event.split(separator: "\n").first { $0.hasPrefix("data: ") }, "\(event)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any])
    }

    @Test("a change made by another process wakes the page's feed, and its event carries the row as it is now")
    func anotherProcess() async throws {
        let fixture = try SiteFixture()
        try fixture.installSchema(["Volume": ["Type": "integer", "Default": 50, "Minimum": 0, "Maximum": 100]], for: Self.domain)
        #expect(try fixture.change(Self.domain, [set("Volume", "number", "10")]).status == 200)

        let subscription = try fixture.site.subscribe(domain: Self.domain)
        #expect(fixture.site.livePageCount(domain: Self.domain) == 1)
        let written = try await fixture.defaults(["write", Self.domain, "Volume", "-int", "70"])
        #expect(written.status == 0, "\(written.errors)")
        #expect(try fixture.onDisk(Self.domain)?["Volume"] == 70)

        let keys = await Self.keys(until: ["Volume"], from: subscription)
        #expect(keys == ["Volume"], "no wake-up for Volume within 10 s")

        let event = fixture.site.changeEvent(keys: ["Volume"], domain: Self.domain, pane: "Root")
        #expect(event.hasPrefix("event: change\ndata: "))
        #expect(event.hasSuffix("\n\n"))
        let data = try Self.data(of: event)
        let rows = try #require(data["rows"] as? [[String: Any]])
        #expect(rows.map { $0["key"] as? String } == ["Volume"])
        let row = parseMarkup(try #require(rows.first?["html"] as? String))
        #expect(row.first("input", ["type": "range", "data-key": "Volume"])?["value"] == "70")
        #expect(row.first("span", ["data-origin-for": "Volume"])?["data-layer"] == "app")
        let history = parseMarkup(try #require(data["history"] as? String))
        #expect(history.all("li", ["data-generation": nil]).count == 2, "the other process's commit is in the history")

        subscription.end()
        #expect(fixture.site.livePageCount(domain: Self.domain) == 0)
        #expect(await Self.finishes(subscription), "the feed of an ended page does not end")
    }

    @Test("a key another process adds to a domain without a schema comes as a new row; one it deletes as an empty row")
    func undeclaredKeys() async throws {
        let fixture = try SiteFixture()
        #expect(try fixture.change(Self.domain, [set("Old", "string", "x")]).status == 200)
        let subscription = try fixture.site.subscribe(domain: Self.domain)
        defer { subscription.end() }

        #expect(try await fixture.defaults(["write", Self.domain, "New", "-string", "hello"]).status == 0)
        #expect(await Self.keys(until: ["New"], from: subscription) == ["New"])
        let added = try Self.data(of: fixture.site.changeEvent(keys: ["New"], domain: Self.domain, pane: "Root"))
        let html = try #require((added["rows"] as? [[String: Any]])?.first?["html"] as? String)
        #expect(parseMarkup(html).first("div", ["data-row": "New"])?.first("input", ["data-leaf": nil])?["value"] == "hello")

        #expect(try await fixture.defaults(["delete", Self.domain, "Old"]).status == 0)
        #expect(await Self.keys(until: ["Old"], from: subscription) == ["Old"])
        let removed = try Self.data(of: fixture.site.changeEvent(keys: ["Old"], domain: Self.domain, pane: "Root"))
        let rows = try #require(removed["rows"] as? [[String: Any]])
        #expect(rows.count == 1 && rows.first?["key"] as? String == "Old" && rows.first?["html"] as? String == "")
    }

    @Test("every open page of a domain hears of a change made through the site, and ending one leaves the others")
    func severalPages() async throws {
        let fixture = try SiteFixture()
        #expect(try fixture.change(Self.domain, [set("A", "string", "1")]).status == 200)
        let first = try fixture.site.subscribe(domain: Self.domain)
        let second = try fixture.site.subscribe(domain: Self.domain)
        #expect(fixture.site.livePageCount(domain: Self.domain) == 2)
        #expect(try fixture.change(Self.domain, [set("A", "string", "2"), set("B", "string", "3")]).status == 200)
        #expect(await Self.keys(until: ["A", "B"], from: first) == ["A", "B"])
        #expect(await Self.keys(until: ["A", "B"], from: second) == ["A", "B"])
        first.end()
        #expect(fixture.site.livePageCount(domain: Self.domain) == 1)
        #expect(try fixture.change(Self.domain, [set("C", "string", "4")]).status == 200)
        #expect(await Self.keys(until: ["C"], from: second) == ["C"])
        #expect(first.take().isEmpty, "an ended page is told nothing")
        second.end()
        #expect(fixture.site.livePageCount(domain: Self.domain) == 0)
    }
}
