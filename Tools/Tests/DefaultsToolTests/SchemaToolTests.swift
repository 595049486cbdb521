import Foundation
import PropertyList
import TestSupport
import Testing

/// `defaults describe`, and `write` and `import` checking values against the domain's schema.
@Suite("defaults and declared settings", .ownThread)
struct SchemaToolTests {
    static let domain = "com.example.greeter"
    static let keys: [String: PropertyListValue] = [
        "Volume": ["Type": "integer", "Default": 50, "Minimum": 0, "Maximum": 100, "Summary": "How loud the greeting is."],
        "Theme": ["Type": "string", "Default": "light", "Choices": ["light", "dark"], "ChoiceTitles": ["Light", "Dark"]],
        "Ratio": ["Type": "real", "Default": 0.5],
        "Enabled": ["Type": "boolean", "Default": true],
        "Ports": ["Type": "array", "ElementType": "integer", "Default": [80]],
    ]

    static func fixture() throws -> (ToolFixture, String) {
        let fixture = try ToolFixture()
        let path = try fixture.installSchema(keys, for: domain)
        return (fixture, path)
    }

    @Test("untyped words are read as the declared type: integer, real, boolean, array elements")
    func untypedWordsTakeDeclaredType() throws {
        let (fixture, _) = try Self.fixture()
        try fixture.output(["write", Self.domain, "Volume", "70"])
        try fixture.output(["write", Self.domain, "Ratio", "0.25"])
        try fixture.output(["write", Self.domain, "Enabled", "no"])
        try fixture.output(["write", Self.domain, "Ports", "-array", "8080", "8443"])
        try fixture.output(["write", Self.domain, "Theme", "dark"])
        #expect(try fixture.onDisk(Self.domain) == [
            "Volume": 70, "Ratio": 0.25, "Enabled": false, "Ports": [8080, 8443], "Theme": "dark",
        ])
        // Undeclared keys keep Apple's rule: an untyped word is a string.
        try fixture.output(["write", Self.domain, "Free", "70"])
        #expect(try fixture.onDisk(Self.domain)?["Free"] == "70")
    }

    @Test(
        "a value that breaks the schema is refused: exit 1, the rule named, the file byte-identical",
        arguments: [
            (["Volume", "loud"], "Volume must be an integer"),
            (["Volume", "150"], "Volume must be at most 100"),
            (["Volume", "-int", "-5"], "Volume must be at least 0"),
            (["Volume", "-string", "70"], "Volume must be an integer"),
            (["Theme", "blue"], "Theme must be one of \"light\", \"dark\""),
            (["Ports", "-array", "80", "http"], "Ports must be an integer"),
            (["Ports", "-array-add", "x"], "Ports must be an integer"),
            (["Enabled", "maybe"], "Enabled must be a boolean"),
        ])
    func refusedWrites(arguments: [String], rule: String) throws {
        let (fixture, _) = try Self.fixture()
        try fixture.output(["write", Self.domain, "Volume", "60"])
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.domainFile(Self.domain)))
        let result = try fixture.run(["write", Self.domain] + arguments)
        #expect(result.status == 1)
        #expect(result.stderr.contains(rule), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.domainFile(Self.domain))) == before)
    }

    @Test("replacing a domain with write or import checks every declared key")
    func wholeDomainChecked() throws {
        let (fixture, _) = try Self.fixture()
        try fixture.output(["write", Self.domain, "Volume", "60"])
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.domainFile(Self.domain)))
        let write = try fixture.run(["write", Self.domain, "{ Volume = 500; Other = x; }"])
        #expect(write.status == 1)
        #expect(write.stderr.contains("Volume must be at most 100"))
        let imported = try fixture.run(["import", Self.domain, "-"], input: Array("{ Theme = purple; }".utf8))
        #expect(imported.status == 1)
        #expect(imported.stderr.contains("Theme must be one of"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.domainFile(Self.domain))) == before)
        try fixture.output(["write", Self.domain, "{ Volume = 40; Other = x; }"])
        #expect(try fixture.onDisk(Self.domain) == ["Volume": 40, "Other": "x"])
    }

    @Test("describe lists every declared key with type, default, range, choices, summary, value and layer, marking invalid values")
    func describeText() throws {
        let (fixture, path) = try Self.fixture()
        try fixture.plant(BinaryPropertyListEncoder().encode(["Volume": "loud", "Theme": "dark"]), domain: Self.domain)
        let text = try fixture.output(["describe", Self.domain])
        #expect(text.contains("\(Self.domain): 5 declared keys (schema \(path))"))
        #expect(text.contains("Volume\n  type:     integer\n  default:  50\n  range:    0 to 100\n  summary:  How loud the greeting is.\n"))
        #expect(text.contains("  value:    50 from the declared layer (\(path))"))
        #expect(text.contains("  invalid:  loud in the app layer (\(fixture.domainFile(Self.domain))): must be an integer"))
        #expect(text.contains("  choices:  light (Light), dark (Dark)"))
        #expect(text.contains("  value:    dark from the app layer"))
        let one = try fixture.output(["describe", Self.domain, "Theme"])
        #expect(one.contains("1 declared key "))
        #expect(!one.contains("Volume"))
    }

    @Test("describe shows a Settings.bundle's titles, group and choice names from its strings table, in the user's language")
    func describeLocalizedBundle() throws {
        let fixture = try ToolFixture()
        let bundle = "\(fixture.schemaDirectory)/com.example.words.bundle"
        try FileManager.default.createDirectory(atPath: bundle + "/en.lproj", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: bundle + "/fr.lproj", withIntermediateDirectories: true)
        let root: PropertyListValue = [
            "StringsTable": "Root",
            "PreferenceSpecifiers": [
                ["Type": "PSGroupSpecifier", "Title": "GROUP_MAIN"],
                ["Type": "PSMultiValueSpecifier", "Key": "Count", "Title": "COUNT_TITLE", "Values": [1, 2], "Titles": ["ONE", "TWO"], "DefaultValue": 1],
            ],
        ]
        try Data(XMLPropertyListEncoder().encode(root)).write(to: URL(fileURLWithPath: bundle + "/Root.plist"))
        let english = "\"GROUP_MAIN\" = \"Main\";\n\"COUNT_TITLE\" = \"How many\";\n\"ONE\" = \"One\";\n\"TWO\" = \"Two\";\n"
        try Data([0xFF, 0xFE] + english.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }).write(to: URL(fileURLWithPath: bundle + "/en.lproj/Root.strings"))
        try Data("\"COUNT_TITLE\" = \"Combien\";".utf8).write(to: URL(fileURLWithPath: bundle + "/fr.lproj/Root.strings"))

        let text = try fixture.run(["describe", "com.example.words"], extraEnvironment: ["LANG": "C.UTF-8"])
        #expect(text.status == 0, "\(text.stderr)")
        for words in ["How many", "One", "Two", "Main"] { #expect(text.stdout.contains(words), "\(words) missing from \(text.stdout)") }
        for raw in ["COUNT_TITLE", "ONE", "TWO", "GROUP_MAIN"] { #expect(!text.stdout.contains(raw), "\(raw) printed raw in \(text.stdout)") }
        let french = try fixture.run(["describe", "--json", "com.example.words", "Count"], extraEnvironment: ["LANG": "fr_FR.UTF-8"])
        #expect(french.stdout.contains("\"Combien\""), "\(french.stdout)")
        #expect(french.stdout.contains("\"One\""), "words French lacks come from English: \(french.stdout)")
    }

    @Test("describe --json gives the same facts as JSON")
    func describeJSON() throws {
        let (fixture, path) = try Self.fixture()
        try fixture.plant(BinaryPropertyListEncoder().encode(["Volume": 500]), domain: Self.domain)
        let json = try fixture.output(["describe", "--json", Self.domain, "Volume"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["schema"] as? String == path)
        let keys = try #require(object["keys"] as? [[String: Any]])
        let volume = try #require(keys.first)
        #expect(volume["key"] as? String == "Volume")
        #expect(volume["type"] as? String == "integer")
        #expect(volume["default"] as? Int == 50)
        #expect(volume["maximum"] as? Int == 100)
        #expect(volume["value"] as? Int == 50)
        #expect(volume["layer"] as? String == "declared")
        let invalid = try #require(volume["invalid"] as? [[String: Any]])
        #expect(invalid.first?["value"] as? Int == 500)
        #expect(invalid.first?["rule"] as? String == "must be at most 100")
    }

    @Test("describe fails clearly without a schema, for an undeclared key, and for a broken schema")
    func describeFailures() throws {
        let fixture = try ToolFixture()
        let none = try fixture.run(["describe", Self.domain])
        #expect(none.status == 1)
        #expect(none.stderr.contains("no schema declares \(Self.domain)"))
        try fixture.installSchema(Self.keys, for: Self.domain)
        let undeclared = try fixture.run(["describe", Self.domain, "Nope"])
        #expect(undeclared.status == 1)
        #expect(undeclared.stderr.contains("Nope is not declared"))
        try fixture.installSchema(["Volume": ["Type": "number"]], for: Self.domain)
        let broken = try fixture.run(["describe", Self.domain])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("Keys.Volume.Type"), "\(broken.stderr)")
        // A broken schema does not stop writes; they go on unchecked, with a warning.
        let write = try fixture.run(["write", Self.domain, "Volume", "loud"])
        #expect(write.status == 0)
        #expect(write.stderr.contains("values are not checked"))
    }

    @Test("explain marks a stored value that breaks the schema and names the layer that wins")
    func explainMarksInvalid() throws {
        let (fixture, _) = try Self.fixture()
        try fixture.plant(BinaryPropertyListEncoder().encode(["Volume": "loud"]), domain: Self.domain)
        let text = try fixture.output(["explain", Self.domain, "Volume"])
        #expect(text.contains("Volume in \(Self.domain) is 50, from the declared layer."))
        #expect(text.contains("(invalid: must be an integer; passed over)"))
        #expect(text.contains("* declared"))
    }

    @Test("read keeps Apple's output for a declared domain: only what is stored")
    func readUnchanged() throws {
        let (fixture, _) = try Self.fixture()
        try fixture.output(["write", Self.domain, "Volume", "70"])
        #expect(try fixture.output(["read", Self.domain]) == "{\n    Volume = 70;\n}\n")
    }
}
