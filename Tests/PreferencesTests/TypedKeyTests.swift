import Foundation
@testable import Preferences
import Testing
import TestSupport

struct EditorTheme: Codable, Sendable, Equatable, PreferenceValue {
    var name: String
    var accent: [Int]
    var fontSize: Double
    var lastUsed: Date?
}

enum DisplayMode: String, Codable, Sendable, PreferenceValue {
    case light, dark
}

extension PreferenceKey where Value == Int {
    static let interval = PreferenceKey("Interval", default: 30)
}

extension PreferenceKey where Value == EditorTheme {
    static let theme = PreferenceKey("EditorTheme", default: EditorTheme(name: "default", accent: [0, 0, 0], fontSize: 12, lastUsed: nil))
}

@Suite("Typed keys")
struct TypedKeyTests {
    @Test("a typed key reads its default, then what is set, from this and other stores")
    func readWrite() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        #expect(store[.interval] == 30)
        store[.interval] = 60
        #expect(store[.interval] == 60)
        #expect(store.integer(forKey: "Interval") == 60)
        store.set("not a number", forKey: "Interval")
        #expect(store[.interval] == 30, "a value of another type reads as the default")
        store.removeObject(forKey: "Interval")
        store.register(defaults: ["Interval": 45])
        #expect(store[.interval] == 45, "registered defaults resolve for typed keys too")
    }

    @Test("a key declared after the store was opened still reads")
    func lateKey() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set("value", forKey: "DeclaredLate-\(UUID().uuidString)")
        let name = store.dictionaryRepresentation().keys.first { $0.hasPrefix("DeclaredLate-") }!
        let key = PreferenceKey(name, default: "none")
        #expect(store[key] == "value")
    }

    @Test("a key declared after its value was set follows later sets, removals and reloads")
    func lateKeyFollowsChanges() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let other = try fixture.store()
        // Resolved before the key has a slot: the store must still update the slot later.
        let name = "DeclaredAfterSet-\(UUID().uuidString)"
        store.set(1, forKey: name)
        let key = PreferenceKey(name, default: -1)
        store.set(2, forKey: name)
        #expect(store[key] == 2)
        store.set(3, forKey: name)
        #expect(store[key] == 3)
        store.removeObject(forKey: name)
        #expect(store[key] == -1)
        store.set(4, forKey: name)
        #expect(store[key] == 4)
        // A change made by another store of the process reaches this one's slot too.
        other.set(5, forKey: name)
        #expect(store[key] == 5)
        try other.flush()
        #expect(store[key] == 5)
    }

    @Test("Codable values are stored as native dictionaries, not JSON strings")
    func codable() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let theme = EditorTheme(name: "Solarized", accent: [38, 139, 210], fontSize: 13.5, lastUsed: Date(timeIntervalSinceReferenceDate: 100))
        store[.theme] = theme
        #expect(store[.theme] == theme)
        try store.flush()
        let disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile("com.example.test")))
        #expect(disk["EditorTheme"] == [
            "name": "Solarized", "accent": [38, 139, 210], "fontSize": 13.5,
            "lastUsed": .date(Date(timeIntervalSinceReferenceDate: 100)),
        ])
        let mode = PreferenceKey("DisplayMode", default: DisplayMode.light)
        store[mode] = .dark
        #expect(store.value(forKey: "DisplayMode") == "dark")
        #expect(store[mode] == .dark)
    }

    @Test("optional, array and dictionary keys")
    func collections() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let recent = PreferenceKey("Recent", default: [String]())
        let limits = PreferenceKey("Limits", default: [String: Int]())
        let nickname = PreferenceKey<String?>("Nickname", default: nil)
        store[recent] = ["a", "b"]
        store[limits] = ["x": 1]
        store[nickname] = "Ada"
        #expect(store[recent] == ["a", "b"] && store[limits] == ["x": 1] && store[nickname] == "Ada")
        store[nickname] = nil
        #expect(store[nickname] == nil && store.value(forKey: "Nickname") == nil)
    }
}
