import DeclaredSettings
import FleetPolicy
import Foundation
import PropertyList
import TestSupport
import Testing

/// `preferences-fleet template` and `check` (issue 40, item 4): the real binary, with a schema
/// in a private schema directory (`PREFERENCES_SCHEMA_PATH`), never the user's own. The
/// reasons `check` prints are compared with what ``FleetValidation`` gives a host's status
/// for the same policy and schema, so the administrator and the hosts say the same words.
@Suite("preferences-fleet template and check", .ownThread)
struct FleetTemplateCheckTests {
    static let domain = "com.example.fleetapp"

    /// Every kind of declaration a template writes: ranges, choices with titles, a real, a
    /// boolean, a typed array, keys without a default, private keys (with and without a
    /// default), and words with `--` and a final `-` that an XML comment cannot hold as they are.
    static let keys: [String: PropertyListValue] = [
        "Volume": [
            "Type": "integer", "Default": 50, "Minimum": 0, "Maximum": 100, "Summary": "How loud the greeting is.",
            "Description": "Applies to every greeting -- even the first.\nA second line ending in a hyphen-",
        ],
        "Theme": ["Type": "string", "Default": "light", "Choices": ["light", "dark"], "ChoiceTitles": ["Light", "Dark"], "Summary": "The colours."],
        "Ratio": ["Type": "real", "Default": 0.5, "Minimum": 0],
        "Enabled": ["Type": "boolean", "Default": true],
        "Ports": ["Type": "array", "ElementType": "integer", "Default": [80, 443]],
        "Since": ["Type": "date", "Default": .date(Date(timeIntervalSince1970: 1_704_164_645))],
        "Greeting": ["Type": "string", "Summary": "What is said; no default."],
        "Level": ["Type": "integer", "Minimum": 3, "Maximum": 9],
        "Token": ["Type": "string", "Private": true, "Summary": "The service's token."],
        "PIN": ["Type": "integer", "Private": true, "Default": 4711, "Minimum": 1000, "Maximum": 9999],
    ]

    /// A private home with the schema installed in its schema directory.
    static func fixture() throws -> (home: PrivatePreferencesHome, schemaPath: String) {
        let home = try PrivatePreferencesHome()
        return (home, try install(keys, in: home.schemaDirectory, domain: domain))
    }

    /// Writes a native schema for `domain` into `directory` (XML, mode 0644, as a package would).
    static func install(_ keys: [String: PropertyListValue], in directory: String, domain: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let path = "\(directory)/\(domain).plist"
        try Data(XMLPropertyListEncoder().encode(.dictionary(["Keys": .dictionary(keys)]))).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        return path
    }

    /// Runs `preferences-fleet` with the home's environment, standard output and error apart.
    static func fleet(_ arguments: [String], home: PrivatePreferencesHome, input: Data? = nil) throws -> Subprocess {
        try Subprocess.run(
            builtProductsDirectory.appendingPathComponent("preferences-fleet").path, arguments, environment: home.processEnvironment,
            input: input.map(Subprocess.Input.data) ?? .nullDevice)
    }

    /// Writes `bytes` to a file in the home's directory and returns its path.
    static func file(_ bytes: some Sequence<UInt8>, named name: String, in home: PrivatePreferencesHome) throws -> String {
        let path = home.directory.file(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A policy file of `values`, as an administrator would write one.
    static func policy(_ values: [String: PropertyListValue], in home: PrivatePreferencesHome) throws -> String {
        try file(XMLPropertyListEncoder().encode(.dictionary(values)), named: "policy.plist", in: home)
    }

    /// The reasons a host's status would give for `values`: ``FleetValidation`` with the
    /// installed schema, read as the tool reads it.
    static func hostReasons(_ values: [String: PropertyListValue], schemaPath: String) throws -> [FleetStatus.Reason] {
        FleetValidation(policy: values, schema: try PreferenceSchema(contentsOf: schemaPath)).reasons
    }

    /// The `--json` output decoded.
    struct Report: Decodable {
        var valid: Bool
        var reasons: [FleetStatus.Reason]
        var schema: String?
        var undeclared: [String]
    }

    /// The XML comments of `text`, without their `<!--` and `-->`.
    static func comments(_ text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "<!--") {
            guard let close = rest[open.upperBound...].range(of: "-->") else {
                found.append(String(rest[open.upperBound...]))
                break
            }
            found.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    // MARK: template

    @Test("template sets every non-private key with a default to it, and describes every declared key above it")
    func templateListsEveryKey() throws {
        let (home, schemaPath) = try Self.fixture()
        let run = try Self.fleet(["template", Self.domain], home: home)
        try #require(run.terminationStatus == 0, "\(run.errorOutput)")
        let text = run.output

        // The dictionary: each key at its default; keys without one, and private keys, left out.
        let decoded = try PropertyListValue(decodingAnyFormat: run.outputData)
        #expect(decoded == ["Volume": 50, "Theme": "light", "Ratio": 0.5, "Enabled": true, "Ports": [80, 443], "Since": .date(Date(timeIntervalSince1970: 1_704_164_645))])

        let comments = Self.comments(text)
        func comment(of key: String) -> String? { comments.first { $0.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == key } } }
        // The header names the domain, the schema, and how to check the file.
        #expect(comments.first?.contains("Fleet policy for \(Self.domain), from the schema \(schemaPath)") == true, "\(text)")
        #expect(comments.first?.contains("preferences-fleet check \(Self.domain) FILE") == true, "\(text)")
        let volume = try #require(comment(of: "Volume"), "\(text)")
        for words in ["type:     integer", "default:  50", "range:    0 to 100", "summary:  How loud the greeting is.", "details:  Applies to every greeting"] {
            #expect(volume.contains(words), "\(words) is not in \(volume)")
        }
        let theme = try #require(comment(of: "Theme"))
        #expect(theme.contains(#"choices:  "light" (Light), "dark" (Dark)"#), "\(theme)")
        #expect(theme.contains(#"default:  "light""#), "\(theme)")
        #expect(try #require(comment(of: "Ratio")).contains("range:    at least 0"))
        #expect(try #require(comment(of: "Enabled")).contains("type:     boolean"))
        #expect(try #require(comment(of: "Ports")).contains("type:     array of integer"))
        #expect(try #require(comment(of: "Since")).contains("default:  2024-01-02T03:04:05Z"))
        // Keys left out say so and show the entry to add, with a value that keeps their rules.
        let greeting = try #require(comment(of: "Greeting"))
        #expect(greeting.contains("default:  none") && greeting.contains("<key>Greeting</key>") && greeting.contains("<string></string>"), "\(greeting)")
        let level = try #require(comment(of: "Level"))
        #expect(level.contains("range:    3 to 9") && level.contains("<integer>3</integer>"), "\(level)")
        // Private keys say they are private; a private key's default is not printed.
        let token = try #require(comment(of: "Token"))
        #expect(token.contains("private:  yes"), "\(token)")
        let pin = try #require(comment(of: "PIN"))
        #expect(pin.contains("private:  yes") && pin.contains("default:  <private>"), "\(pin)")
        #expect(!text.contains("4711"), "a private key's default was printed:\n\(text)")
        #expect(comments.count == 1 + Self.keys.count, "\(text)")

        // Every comment is legal XML: no `--` inside, no `-` just before its end.
        for body in comments {
            #expect(!body.contains("--") && !body.hasSuffix("-"), "an illegal comment: \(body)")
        }
        #expect(text.contains("greeting - - even the first"), "\(text)")
    }

    @Test("the template as printed passes check, from a file and from standard input")
    func templatePassesCheck() throws {
        let (home, schemaPath) = try Self.fixture()
        let template = try Self.fleet(["template", Self.domain], home: home)
        try #require(template.terminationStatus == 0, "\(template.errorOutput)")
        let path = try Self.file(template.outputData, named: "template.plist", in: home)

        let fromFile = try Self.fleet(["check", Self.domain, path], home: home)
        #expect(fromFile.terminationStatus == 0, "\(fromFile.output)\(fromFile.errorOutput)")
        #expect(fromFile.lines == ["\(path): OK: a host with the schema \(schemaPath) takes all 6 values for \(Self.domain)"], "\(fromFile.output)")

        let fromStandardInput = try Self.fleet(["check", "--json", Self.domain, "-"], home: home, input: template.outputData)
        #expect(fromStandardInput.terminationStatus == 0, "\(fromStandardInput.output)\(fromStandardInput.errorOutput)")
        let report = try JSONDecoder().decode(Report.self, from: fromStandardInput.outputData)
        #expect(report.valid && report.reasons.isEmpty && report.schema == schemaPath && report.undeclared.isEmpty)
    }

    @Test("an entry added as a left-out key's comment shows passes check too")
    func shownEntriesPassCheck() throws {
        let (home, _) = try Self.fixture()
        let text = try Self.fleet(["template", Self.domain], home: home).output
        // What the Level comment shows, added to the dictionary as an administrator would.
        let added = text.replacingOccurrences(of: "</dict>\n</plist>", with: "\t<key>Level</key>\n\t<integer>3</integer>\n</dict>\n</plist>")
        let run = try Self.fleet(["check", Self.domain, try Self.file(Array(added.utf8), named: "filled.plist", in: home)], home: home)
        #expect(run.terminationStatus == 0, "\(run.output)")
        #expect(run.output.contains("takes all 7 values"), "\(run.output)")
    }

    @Test("template without a schema fails, naming where it looked")
    func templateWithoutSchema() throws {
        let home = try PrivatePreferencesHome()
        let run = try Self.fleet(["template", Self.domain], home: home)
        #expect(run.terminationStatus == 1)
        #expect(run.output.isEmpty, "\(run.output)")
        #expect(run.errorOutput.contains("no schema declares \(Self.domain)"), "\(run.errorOutput)")
        #expect(run.errorOutput.contains(home.schemaDirectory), "\(run.errorOutput)")
    }

    @Test("template and check take a schema file given with --schema, installed or not")
    func schemaOption() throws {
        let home = try PrivatePreferencesHome()
        let path = try Self.install(["Volume": ["Type": "integer", "Default": 5, "Maximum": 10]], in: home.directory.file("elsewhere").path, domain: Self.domain)
        let template = try Self.fleet(["template", "--schema", path, Self.domain], home: home)
        #expect(template.terminationStatus == 0, "\(template.errorOutput)")
        #expect(try PropertyListValue(decodingAnyFormat: template.outputData) == ["Volume": 5])
        let check = try Self.fleet(["check", "--schema", path, Self.domain, try Self.policy(["Volume": 11], in: home)], home: home)
        #expect(check.terminationStatus == 1)
        #expect(check.lines.first == "Volume must be at most 10, not 11", "\(check.output)")
        let missing = try Self.fleet(["check", "--schema", home.directory.file("absent.plist").path, Self.domain, path], home: home)
        #expect(missing.terminationStatus == 1)
        #expect(missing.errorOutput.contains("absent.plist"), "\(missing.errorOutput)")
    }

    // MARK: check

    @Test(
        "check refuses a value with the reason a host's status gives",
        arguments: [
            (["Volume": 120], "Volume must be at most 100, not 120"),
            (["Volume": -1], "Volume must be at least 0, not -1"),
            (["Volume": "loud"], #"Volume must be an integer, not "loud""#),
            (["Theme": "blue"], #"Theme must be one of "light", "dark", not "blue""#),
            (["Ports": [80, "http"]], "Ports must be an integer, not an array of 2"),
            (["Enabled": 1], "Enabled must be a boolean, not 1"),
        ] as [([String: PropertyListValue], String)])
    func checkRefuses(values: [String: PropertyListValue], reason: String) throws {
        let (home, schemaPath) = try Self.fixture()
        // With valid values beside it, which are not reported.
        let policy = values.merging(["Ratio": 0.25, "Level": 4]) { refused, _ in refused }
        let path = try Self.policy(policy, in: home)
        let expected = try Self.hostReasons(policy, schemaPath: schemaPath)
        #expect(expected.map(\.reason) == [reason])

        let text = try Self.fleet(["check", Self.domain, path], home: home)
        #expect(text.terminationStatus == 1)
        #expect(text.lines == [reason, "\(path): 1 of 3 values for \(Self.domain) refused by the schema \(schemaPath); a host keeps each refused key's previous value"], "\(text.output)")

        let json = try Self.fleet(["check", "--json", Self.domain, path], home: home)
        #expect(json.terminationStatus == 1)
        let report = try JSONDecoder().decode(Report.self, from: json.outputData)
        #expect(!report.valid && report.reasons == expected && report.schema == schemaPath, "\(json.output)")
    }

    @Test("check reports every refused key, one line each in key order, and names undeclared keys")
    func checkReportsEveryKey() throws {
        let (home, schemaPath) = try Self.fixture()
        let policy: [String: PropertyListValue] = ["Volume": 101, "Theme": "blue", "Level": 10, "Volumme": 3, "Enabled": false]
        let path = try Self.policy(policy, in: home)
        let expected = try Self.hostReasons(policy, schemaPath: schemaPath)
        #expect(expected.map(\.key) == ["Level", "Theme", "Volume"])
        let run = try Self.fleet(["check", Self.domain, path], home: home)
        #expect(run.terminationStatus == 1)
        #expect(Array(run.lines.prefix(4)) == expected.map(\.reason) + ["note: Volumme is not declared by the schema: hosts take it as it is"], "\(run.output)")
        #expect(run.lines.last?.contains("3 of 5 values") == true, "\(run.output)")
        let json = try JSONDecoder().decode(Report.self, from: try Self.fleet(["check", "--json", Self.domain, path], home: home).outputData)
        #expect(json.reasons == expected && json.undeclared == ["Volumme"])
    }

    @Test("check shows a refused private key's value as <private>, in text and JSON")
    func checkHidesPrivateValues() throws {
        let (home, schemaPath) = try Self.fixture()
        let policy: [String: PropertyListValue] = ["PIN": 123456, "Token": 987654]
        let path = try Self.policy(policy, in: home)
        let expected = try Self.hostReasons(policy, schemaPath: schemaPath)
        #expect(expected.map(\.reason) == ["PIN must be at most 9999, not <private>", "Token must be a string, not <private>"])
        for arguments in [["check", Self.domain, path], ["check", "--json", Self.domain, path]] {
            let run = try Self.fleet(arguments, home: home)
            #expect(run.terminationStatus == 1)
            #expect(run.output.contains("<private>"), "\(run.output)")
            #expect(!run.output.contains("123456") && !run.output.contains("987654") && !run.errorOutput.contains("123456"), "\(run.output)")
        }
    }

    @Test(
        "check refuses a file that is not a policy as a host refuses the etcd value",
        arguments: ["garbage", "array", "oversize", "openstep"])
    func checkRefusesNonPolicies(kind: String) throws {
        let (home, _) = try Self.fixture()
        let bytes: [UInt8] =
            switch kind {
            case "garbage": Array("<?xml version=\"1.0\"?><plist><dict><key>a</key>".utf8)
            case "array": XMLPropertyListEncoder().encode(["Volume", 5])
            case "openstep": Array("{ Volume = 5; }".utf8)
            default: XMLPropertyListEncoder().encode(["Greeting": .string(String(repeating: "x", count: 1 << 20))])
            }
        let expected: String
        do throws(FleetValueError) {
            _ = try FleetPolicy.policyValues(decoding: bytes, sizeLimit: 1 << 20)
            Issue.record("the \(kind) file is a policy")
            return
        } catch {
            expected = error.reason
        }
        let path = try Self.file(bytes, named: "\(kind).plist", in: home)
        let text = try Self.fleet(["check", Self.domain, path], home: home)
        #expect(text.terminationStatus == 1)
        #expect(text.lines == ["\(path): not a policy: \(expected); a host refuses it whole and keeps its previous policy"], "\(text.output)")
        let json = try Self.fleet(["check", "--json", Self.domain, path], home: home)
        #expect(json.terminationStatus == 1)
        let report = try JSONDecoder().decode(Report.self, from: json.outputData)
        #expect(!report.valid && report.reasons == [FleetStatus.Reason(key: path, reason: expected)])
    }

    @Test("check without a schema says nothing was checked and that hosts take every value; exit 0")
    func checkWithoutSchema() throws {
        let home = try PrivatePreferencesHome()
        let path = try Self.policy(["Volume": 120, "Anything": "goes"], in: home)
        let text = try Self.fleet(["check", Self.domain, path], home: home)
        #expect(text.terminationStatus == 0)
        let line = try #require(text.lines.first)
        #expect(text.lines.count == 1, "\(text.output)")
        #expect(line.contains("no schema declares \(Self.domain)") && line.contains(home.schemaDirectory) && line.contains("takes every value"), "\(line)")
        let json = try Self.fleet(["check", "--json", Self.domain, path], home: home)
        #expect(json.terminationStatus == 0)
        let report = try JSONDecoder().decode(Report.self, from: json.outputData)
        #expect(report.valid && report.reasons.isEmpty && report.schema == nil)
        #expect(json.output.contains(#""schema":null"#), "\(json.output)")
    }

    @Test("check of a missing file, a directory, or a bad domain name fails with the reason")
    func checkCannotRead() throws {
        let (home, _) = try Self.fixture()
        let missing = home.directory.file("absent.plist").path
        let run = try Self.fleet(["check", Self.domain, missing], home: home)
        #expect(run.terminationStatus == 1)
        #expect(run.output.isEmpty)
        #expect(run.errorOutput.contains("cannot read \(missing): No such file or directory"), "\(run.errorOutput)")
        let directory = try Self.fleet(["check", Self.domain, home.homeDirectory], home: home)
        #expect(directory.terminationStatus == 1)
        #expect(directory.errorOutput.contains("Is a directory"), "\(directory.errorOutput)")
        let badDomain = try Self.fleet(["check", "../etc", missing], home: home)
        #expect(badDomain.terminationStatus == 64, "\(badDomain.errorOutput)")
    }

    @Test("a strict XML parser (Python's plistlib) reads the template as this library does", .enabled(if: installedProgram("python3") != nil))
    func strictParserReadsTemplate() throws {
        let (home, _) = try Self.fixture()
        let template = try Self.fleet(["template", Self.domain], home: home)
        let path = try Self.file(template.outputData, named: "template.plist", in: home)
        let script = "import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], 'rb')), sort_keys=True, default=str))"
        let python = try Subprocess.run("python3", ["-c", script, path], environment: home.processEnvironment)
        #expect(python.terminationStatus == 0, "\(python.errorOutput)")
        #expect(python.lines == [#"{"Enabled": true, "Ports": [80, 443], "Ratio": 0.5, "Since": "2024-01-02 03:04:05", "Theme": "light", "Volume": 50}"#], "\(python.output)")
    }
}
