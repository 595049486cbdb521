import Configuration
import Foundation
import Preferences
import PreferencesConfiguration
import Testing
import TestSupport

@Suite("How preference values map to configuration values")
struct MappingTests {
    @Test("an invalid domain name throws before touching the disk")
    func invalidDomain() throws {
        let fixture = try ProviderFixture()
        let error = #expect(throws: PreferencesError.self) { try fixture.provider("../etc/passwd") }
        #expect(error?.code == .invalidDomainName)
        #expect(!FileManager.default.fileExists(atPath: fixture.userDirectory))
    }

    @Test("nested dictionaries are hierarchical keys; a dotted top-level key is the same key")
    func hierarchicalKeys() throws {
        let fixture = try ProviderFixture()
        let store = try fixture.store("com.example.keys")
        store.set(["timeout": 30, "tls": ["enabled": true]] as [String: Any], forKey: "http")
        store.set("literal", forKey: "log.level")
        store.set(["level": "nested"], forKey: "log")
        store.set(5, forKey: "retries.max")
        let config = ConfigReader(provider: PreferencesProvider(store: store))
        #expect(config.int(forKey: "http.timeout") == 30)
        #expect(config.bool(forKey: "http.tls.enabled") == true)
        #expect(config.scoped(to: "http").int(forKey: "timeout") == 30)
        #expect(config.int(forKey: "retries.max") == 5)
        #expect(config.string(forKey: "log.level") == "nested", "the more deeply nested value wins")
        #expect(config.string(forKey: "http") == nil, "a dictionary is not a value")
        #expect(config.int(forKey: "http.missing") == nil)
        try store.flush()   // before the directory goes away
    }

    @Test("dates read as ISO 8601 strings in UTC")
    func dates() throws {
        let fixture = try ProviderFixture()
        let store = try fixture.store("com.example.dates")
        store.set(Date(timeIntervalSince1970: 1_795_000_000), forKey: "whole")
        store.set(Date(timeIntervalSince1970: 1_795_000_000.25), forKey: "fractional")
        let provider = PreferencesProvider(store: store)
        let config = ConfigReader(provider: provider)
        #expect(config.string(forKey: "whole") == "2026-11-18T11:06:40Z")
        #expect(config.string(forKey: "fractional") == "2026-11-18T11:06:40.250Z")
        #expect(throws: PreferencesConfigurationError.self) { try provider.value(forKey: ["whole"], type: .int) }
        try store.flush()
    }

    @Test("numbers, booleans and strings convert where exact; anything else throws")
    func conversions() throws {
        let fixture = try ProviderFixture()
        let store = try fixture.store("com.example.types")
        store.set("30", forKey: "untyped")      // what `defaults write D K 30` stores
        store.set("yes", forKey: "flag")
        store.set(Float(0.1), forKey: "float")
        store.set(2.0, forKey: "whole")
        store.set(2.5, forKey: "half")
        store.set(UInt64.max, forKey: "huge")
        store.set([1, "two"] as [Any], forKey: "mixed")
        store.set([String](), forKey: "empty")
        let provider = PreferencesProvider(store: store)
        func content(_ key: String, _ type: ConfigType) throws -> ConfigContent? {
            try provider.value(forKey: AbsoluteConfigKey(key.split(separator: ".").map(String.init)), type: type).value?.content
        }
        #expect(try content("untyped", .int) == .int(30))
        #expect(try content("untyped", .double) == .double(30))
        #expect(try content("flag", .bool) == .bool(true))
        #expect(try content("float", .double) == .double(0.1))
        #expect(try content("whole", .int) == .int(2))
        #expect(try content("empty", .intArray) == .intArray([]))
        #expect(try content("absent", .int) == nil)
        for (key, type) in [("half", ConfigType.int), ("huge", .int), ("mixed", .intArray), ("untyped", .bytes), ("whole", .string)] {
            let error = #expect(throws: PreferencesConfigurationError.self, "\(key) as \(type)") { try content(key, type) }
            #expect(error?.code == .valueNotConvertible)
            #expect(error?.key == key)
        }
        // A reader treats a mistyped value as missing and falls back to the default.
        #expect(ConfigReader(provider: provider).int(forKey: "half", default: 7) == 7)
        try store.flush()
    }

    @Test("the whole search list applies: registered defaults and the global domain")
    func searchList() async throws {
        let fixture = try ProviderFixture()
        try await fixture.defaults(["write", "-g", "region", "-string", "eu"])
        let store = try fixture.store("com.example.layers")
        store.register(defaults: ["port": 8080, "region": "us"])
        let config = ConfigReader(provider: PreferencesProvider(store: store))
        #expect(config.int(forKey: "port") == 8080)
        #expect(config.string(forKey: "region") == "eu", "the global domain wins over registered defaults")
    }
}
