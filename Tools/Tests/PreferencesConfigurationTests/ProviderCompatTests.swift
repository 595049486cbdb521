import Configuration
import ConfigurationTesting
import Foundation
import Preferences
import PreferencesConfiguration
import Testing

@Suite("swift-configuration's conformance suite")
struct ProviderCompatTests {
    /// The values `ProviderCompatTest` expects, stored the way a preferences user would:
    /// `other.*` and `*.array` keys as nested dictionaries, not as dotted top-level keys.
    static func writeExpectedValues(to store: PreferenceStore) throws {
        let magic = Data("magic".utf8), magic2 = Data("magic2".utf8)
        store.set("Hello", forKey: "string")
        store.set(42, forKey: "int")
        store.set(3.14, forKey: "double")
        store.set(true, forKey: "bool")
        store.set(magic, forKey: "bytes")
        store.set(["array": ["Hello", "World"]], forKey: "stringy")
        store.set(["array": [42, 24]], forKey: "inty")
        store.set(["array": [3.14, 2.72]], forKey: "doubly")
        store.set(["array": [true, false]], forKey: "booly")
        store.set(["array": [magic, magic2]], forKey: "byteChunky")
        store.set(
            [
                "string": "Other Hello", "int": 24, "double": 2.72, "bool": false, "bytes": magic2,
                "stringy": ["array": ["Hello", "Swift"]], "inty": ["array": [16, 32]],
                "doubly": ["array": [0.9, 1.8]], "booly": ["array": [false, true, true]],
                "byteChunky": ["array": [magic, magic2, magic]],
            ] as [String: Any],
            forKey: "other")
        try store.flush()
    }

    @Test("ProviderCompatTest passes over a domain holding the expected values")
    func compatibility() async throws {
        let fixture = try ProviderFixture()
        try Self.writeExpectedValues(to: fixture.store("com.example.compat"))
        // A second process's view: the provider reads the file the store wrote.
        let provider = try fixture.provider("com.example.compat")
        try await ProviderCompatTest(provider: provider).runTest()
    }

    @Test("ProviderCompatTest passes when another process imports the values as XML")
    func compatibilityThroughDefaultsImport() async throws {
        let fixture = try ProviderFixture()
        let domain = "com.example.compat-import"
        func entries(_ values: [String]) -> String {
            zip(["string", "int", "double", "bool", "bytes"], values).map { "<key>\($0)</key>\($1)" }.joined()
                + zip(["stringy", "inty", "doubly", "booly", "byteChunky"], values.dropFirst(5))
                .map { "<key>\($0)</key><dict><key>array</key><array>\($1)</array></dict>" }.joined()
        }
        let (magic, magic2) = ("<data>bWFnaWM=</data>", "<data>bWFnaWMy</data>")
        let top = entries([
            "<string>Hello</string>", "<integer>42</integer>", "<real>3.14</real>", "<true/>", magic,
            "<string>Hello</string><string>World</string>", "<integer>42</integer><integer>24</integer>",
            "<real>3.14</real><real>2.72</real>", "<true/><false/>", magic + magic2,
        ])
        let other = entries([
            "<string>Other Hello</string>", "<integer>24</integer>", "<real>2.72</real>", "<false/>", magic2,
            "<string>Hello</string><string>Swift</string>", "<integer>16</integer><integer>32</integer>",
            "<real>0.9</real><real>1.8</real>", "<false/><true/><true/>", magic + magic2 + magic,
        ])
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>\(top)<key>other</key><dict>\(other)</dict></dict></plist>
            """
        try await fixture.defaults(["import", domain, "-"], input: Data(xml.utf8))
        try await ProviderCompatTest(provider: fixture.provider(domain)).runTest()
    }
}
