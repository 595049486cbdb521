import Foundation
@testable import Preferences
import Testing
import TestSupport

/// Every pair of layers, each holding the same key: the higher one must win.
@Suite("Search list precedence")
struct SearchListTests {
    static let domain = "com.example.layers"
    static let suite = "com.example.suite"

    /// Puts `value` for `key` into one layer of a fixture's search list.
    static func put(_ layer: SearchLayer, key: String, value: String, fixture: StoreFixture) throws {
        let values: [String: PropertyListValue] = [key: .string(value)]
        switch layer {
        case .managed: try fixture.plant(values, at: fixture.systemFile(domain, managed: true), mode: 0o644)
        case .argument: fixture.arguments += ["-\(key)", value]
        case .appByHost: try fixture.plant(values, at: fixture.userFile(domain, byHost: true))
        case .app: try fixture.plant(values, at: fixture.userFile(domain))
        case .suite: try fixture.plant(values, at: fixture.userFile(suite))
        case .globalByHost: try fixture.plant(values, at: fixture.userFile(DomainLocations.globalFileStem, byHost: true))
        case .global: try fixture.plant(values, at: fixture.userFile(DomainLocations.globalFileStem))
        case .system: try fixture.plant(values, at: fixture.systemFile(domain), mode: 0o644)
        case .systemGlobal: try fixture.plant(values, at: fixture.systemFile(DomainLocations.globalFileStem), mode: 0o644)
        case .registration: break  // registered after the store exists
        case .declared: try fixture.installSchema([key: ["Type": "string", "Default": .string(value)]], for: domain)
        }
    }

    static var pairs: [(SearchLayer, SearchLayer)] {
        let layers = SearchLayer.allCases
        return layers.indices.flatMap { i in layers.indices.filter { $0 > i }.map { (layers[i], layers[$0]) } }
    }

    @Test("the higher layer of every pair wins", arguments: pairs)
    func precedence(higher: SearchLayer, lower: SearchLayer) throws {
        let fixture = try StoreFixture()
        try Self.put(higher, key: "Key", value: "\(higher)", fixture: fixture)
        try Self.put(lower, key: "Key", value: "\(lower)", fixture: fixture)
        let store = try fixture.store(Self.domain)
        store.addSuite(named: Self.suite)
        if higher == .registration || lower == .registration { store.register(defaults: ["Key": "registration"]) }
        #expect(store.string(forKey: "Key") == "\(higher)")
        #expect(store.objectIsForced(forKey: "Key") == (higher == .managed))
        // Remove the winner's value where this process can; the lower layer shows through.
        if higher == .app {
            store.removeObject(forKey: "Key")
            #expect(store.string(forKey: "Key") == "\(lower)")
        }
    }

    @Test("each layer alone is found", arguments: SearchLayer.allCases)
    func alone(layer: SearchLayer) throws {
        let fixture = try StoreFixture()
        try Self.put(layer, key: "Only", value: "here", fixture: fixture)
        let store = try fixture.store(Self.domain)
        store.addSuite(named: Self.suite)
        if layer == .registration { store.register(defaults: ["Only": "here"]) }
        #expect(store.string(forKey: "Only") == "here")
        #expect(store.dictionaryRepresentation()["Only"] as? String == "here")
    }

    @Test("a set cannot override a forced value, and objectIsForced(forKey:inDomain:) sees it")
    func forced() throws {
        let fixture = try StoreFixture()
        try Self.put(.managed, key: "Locked", value: "admin", fixture: fixture)
        let store = try fixture.store(Self.domain)
        store.set("user", forKey: "Locked")
        #expect(store.string(forKey: "Locked") == "admin")
        #expect(store.objectIsForced(forKey: "Locked"))
        #expect(store.objectIsForced(forKey: "Locked", inDomain: Self.domain))
        #expect(!store.objectIsForced(forKey: "Other", inDomain: Self.domain))
    }

    @Test("launch arguments: plist syntax, negative numbers, keys without values, --options")
    func arguments() throws {
        let fixture = try StoreFixture()
        fixture.arguments = [
            "prog", "-Offset", "-5", "-List", "(a, b, \"c d\")", "-Dict", "{ x = 1; y = (2); }",
            "-Quoted", "\"hello world\"", "--verbose", "ignored", "-Dangling", "-Name", "plain",
            "-Json", "[1, \"two\"]", "-Broken", "(unterminated",
        ]
        let store = try fixture.store(Self.domain)
        #expect(store.integer(forKey: "Offset") == -5)
        #expect(store.value(forKey: "List") == ["a", "b", "c d"])
        #expect(store.value(forKey: "Dict") == ["x": "1", "y": ["2"]])
        #expect(store.string(forKey: "Quoted") == "hello world")
        #expect(store.value(forKey: "-verbose") == nil && store.value(forKey: "verbose") == nil)
        #expect(store.value(forKey: "Dangling") == nil)
        #expect(store.string(forKey: "Name") == "plain")
        #expect(store.value(forKey: "Json") == [1, "two"])
        #expect(store.string(forKey: "Broken") == "(unterminated")
        #expect(store.volatileDomain(forName: PreferenceStore.argumentDomain).count == 7)
    }
}

@Suite("Volatile and persistent domains")
struct DomainAPITests {
    @Test("persistentDomain, setPersistentDomain and removePersistentDomain")
    func persistent() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.app")
        #expect(store.persistentDomain(forName: "com.example.other") == nil)
        store.setPersistentDomain(["a": 1, "b": "two"], forName: "com.example.other")
        #expect(store.persistentDomain(forName: "com.example.other")?["b"] as? String == "two")
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.other")) == ["a": 1, "b": "two"])
        store.removePersistentDomain(forName: "com.example.other")
        try store.flush()
        #expect(!FileManager.default.fileExists(atPath: fixture.userFile("com.example.other")))
        store.setPersistentDomain(["AppleLocale": "de_DE"], forName: PreferenceStore.globalDomain)
        #expect(store.string(forKey: "AppleLocale") == "de_DE", "the global domain is in every store's search list")
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: fixture.userFile(DomainLocations.globalFileStem)) == ["AppleLocale": "de_DE"])
    }

    @Test("setPersistentDomain on the store's own domain replaces what reads see")
    func replaceOwnDomain() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.app")
        store.set(1, forKey: "old")
        store.setPersistentDomain(["new": 2], forName: "com.example.app")
        #expect(store.value(forKey: "old") == nil && store.integer(forKey: "new") == 2)
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.app")) == ["new": 2])
    }

    @Test("volatile domains: names, set, read, remove; registration and argument layers")
    func volatile() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.app")
        #expect(store.volatileDomainNames == [PreferenceStore.argumentDomain, PreferenceStore.registrationDomain])
        store.setVolatileDomain(["k": "v"], forName: "Scratch")
        #expect(store.volatileDomainNames.contains("Scratch"))
        #expect(store.volatileDomain(forName: "Scratch")["k"] as? String == "v")
        #expect(store.string(forKey: "k") == nil, "custom volatile domains are not searched")
        store.setVolatileDomain(["k": "registered"], forName: PreferenceStore.registrationDomain)
        #expect(store.string(forKey: "k") == "registered")
        store.removeVolatileDomain(forName: "Scratch")
        #expect(!store.volatileDomainNames.contains("Scratch"))
        store.removeVolatileDomain(forName: PreferenceStore.registrationDomain)
        #expect(store.string(forKey: "k") == nil)
    }

    @Test("suites are searched in the order added, after the store's own domain")
    func suites() throws {
        let fixture = try StoreFixture()
        try fixture.plant(["shared": "first", "onlyFirst": "1"], at: fixture.userFile("com.example.first"))
        try fixture.plant(["shared": "second", "onlySecond": "2"], at: fixture.userFile("com.example.second"))
        let store = try fixture.store("com.example.app")
        store.addSuite(named: "com.example.first")
        store.addSuite(named: "com.example.second")
        #expect(store.string(forKey: "shared") == "first")
        #expect(store.string(forKey: "onlySecond") == "2")
        store.removeSuite(named: "com.example.first")
        #expect(store.string(forKey: "shared") == "second")
        #expect(store.string(forKey: "onlyFirst") == nil)
    }
}
