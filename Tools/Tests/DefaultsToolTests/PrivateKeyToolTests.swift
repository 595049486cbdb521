import Foundation
import Preferences
import PropertyList
import Testing
import TestSupport

/// Keys declared private, through the `defaults` tool run as real processes (issue 32, item
/// 3): after each path, every file under the fixture's preferences home, system directory,
/// home and runtime directory is searched for the secret's bytes (TestSupport's
/// ``FilesHoldingText``, the same search the library's PrivateKeyTests make), and the
/// tool's output is read for it too.
@Suite("Private keys in the defaults tool", .ownThread)
struct PrivateKeyToolTests {
    static let domain = "com.example.secret"
    static let secret = "s3cr3t-token-7f3a9c"
    /// A second value of the private key, for changes from one secret to another.
    static let otherSecret = "s3cr3t-rotated-51d0e8"
    /// The value of a key that is not private, taken out by `defaults purge`.
    static let address = "someone-7c1e@example.com"

    /// A tool fixture whose runs all get a private runtime directory (mode 0700, inside the
    /// fixture's directory, so commit counters land where the search looks), and the schema
    /// declaring `Token` private.
    struct Fixture {
        let tool: ToolFixture
        let runtimeDirectory: String

        init(schema: [String: PropertyListValue] = PrivateKeyToolTests.schema) throws {
            tool = try ToolFixture()
            runtimeDirectory = tool.directory.file("run").path
            try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try tool.installSchema(schema, for: PrivateKeyToolTests.domain)
        }

        /// What every process of the test runs with: the fixture's directories and runtime directory.
        var environment: [String: String] {
            tool.environment.merging(["XDG_RUNTIME_DIR": runtimeDirectory]) { _, new in new }
        }

        /// Runs `defaults` to completion.
        @discardableResult
        func run(_ arguments: [String], input: [UInt8]? = nil) throws -> ToolFixture.Result {
            try tool.run(arguments, input: input, extraEnvironment: ["XDG_RUNTIME_DIR": runtimeDirectory])
        }

        /// Runs `defaults`, requiring success; its standard output.
        @discardableResult
        func output(_ arguments: [String]) throws -> String {
            let result = try run(arguments)
            guard result.status == 0 else {
                throw ToolFailure(description: "defaults \(arguments) exited \(result.status): \(result.stderr)")
            }
            return result.stdout
        }

        /// The files holding `text` (relative to the fixture's directory): the fixture's
        /// directory holds the preferences home, the system directory, HOME, the schemas and
        /// the runtime directory, so this is all of them.
        func files(holding text: String = PrivateKeyToolTests.secret) throws -> [String] {
            try tool.files(holding: text, alsoUnder: [runtimeDirectory])
        }

        /// The domain file, as ``files(holding:)`` names it.
        var domainFile: String { "preferences/\(PrivateKeyToolTests.domain).plist" }

        /// The copies of the domain file kept aside as corrupt.
        func corruptCopies() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: tool.userDirectory).filter { $0.hasPrefix("\(PrivateKeyToolTests.domain).plist.corrupt-") }
        }

        /// The generation files in the domain's history.
        func generationFiles() -> [String] {
            let history = "\(tool.userDirectory)/.\(PrivateKeyToolTests.domain).plist.history"
            return ((try? FileManager.default.contentsOfDirectory(atPath: history)) ?? []).filter { $0.hasSuffix(".plist") }.sorted()
        }

        /// `defaults history --json` parsed: one object per version, newest first.
        func history() throws -> [[String: Any]] {
            let json = try output(["history", "--json", PrivateKeyToolTests.domain])
            return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        }

        /// A store of the domain in this test process, with the fixture's environment: what a
        /// program of the domain does (the tool never replaces a damaged file by itself).
        func store() throws -> PreferenceStore {
            try PreferenceStore(domain: PrivateKeyToolTests.domain, configuration: PreferenceStore.Configuration(environment: environment, arguments: [], lockTimeout: .seconds(10)))
        }
    }

    static let schema: [String: PropertyListValue] = [
        "Token": ["Type": "string", "Private": true], "Mail": ["Type": "string"], "n": ["Type": "integer"],
    ]

    /// A version's writer and time as `defaults history --json` prints them, by generation number.
    static func writers(_ history: [[String: Any]]) -> [Int: String] {
        var writers: [Int: String] = [:]
        for version in history {
            guard let number = version["generation"] as? Int else { continue }
            writers[number] = "\(version["writer"] ?? "?") pid \(version["pid"] ?? "?") at \(version["time"] ?? "?")"
        }
        return writers
    }

    @Test("a private value written, then ten more commits: only the domain file holds it, history never prints it, read still does")
    func privateWriteThenTenCommits() throws {
        let fixture = try Fixture()
        try fixture.output(["write", Self.domain, "Token", "-string", Self.secret])
        for round in 1...10 {
            try fixture.output(["write", Self.domain, "n", "-int", String(round)])
        }
        #expect(fixture.generationFiles().count == 10)
        #expect(try fixture.files() == [fixture.domainFile])

        let text = try fixture.run(["history", Self.domain])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.split(separator: "\n").count == 11, "\(text.stdout)")
        #expect(!text.stdout.contains(Self.secret) && !text.stderr.contains(Self.secret))
        let json = try fixture.run(["history", "--json", Self.domain])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(!json.stdout.contains(Self.secret) && !json.stderr.contains(Self.secret))
        let versions = try fixture.history()
        #expect(versions.count == 11)
        #expect(versions.allSatisfy { $0["writer"] as? String == "library" })
        // The issue allows it: the user who owns the value reads it.
        #expect(try fixture.output(["read", Self.domain, "Token"]) == Self.secret + "\n")
        #expect(try fixture.files() == [fixture.domainFile])
    }

    @Test("defaults delete of a private key leaves no file holding it, and undo still works for the other keys")
    func deleteThenUndo() throws {
        let fixture = try Fixture()
        try fixture.output(["write", Self.domain, "Mail", "-string", Self.address])
        try fixture.output(["write", Self.domain, "Token", "-string", Self.secret])
        for round in 1...3 {
            try fixture.output(["write", Self.domain, "n", "-int", String(round)])
        }
        #expect(try fixture.files() == [fixture.domainFile])
        try fixture.output(["delete", Self.domain, "Token"])
        #expect(try fixture.files().isEmpty)
        #expect(try fixture.run(["read", Self.domain, "Token"]).status == 1)

        // Back to the version before the removal: its other keys, and no token.
        let undo = try fixture.run(["undo", Self.domain])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try fixture.tool.onDisk(Self.domain) == ["Mail": .string(Self.address), "n": 3])
        try fixture.output(["undo", Self.domain])
        #expect(try fixture.tool.onDisk(Self.domain) == ["Mail": .string(Self.address), "n": 3])
        // Restore of the oldest generation (Mail alone) works too, and brings back no token.
        try fixture.output(["restore", Self.domain, "1"])
        #expect(try fixture.tool.onDisk(Self.domain) == ["Mail": .string(Self.address)])
        #expect(try fixture.files().isEmpty)
    }

    @Test("defaults delete of the whole domain leaves no file holding a private value")
    func deleteDomain() throws {
        let fixture = try Fixture()
        try fixture.output(["write", Self.domain, "Token", "-string", Self.secret])
        try fixture.output(["write", Self.domain, "n", "-int", "1"])
        try fixture.output(["delete", Self.domain])
        #expect(try fixture.files().isEmpty)
        #expect(try fixture.run(["read", Self.domain]).status == 1)
    }

    @Test("defaults purge DOMAIN KEY takes a non-private value out of every generation, keeping the other keys, numbers and writers")
    func purgeKey() throws {
        let fixture = try Fixture()
        let older = "older-address-2b9f@example.com"
        try fixture.output(["write", Self.domain, "Mail", "-string", older])
        for round in 1...3 {
            try fixture.output(["write", Self.domain, "Mail", "-string", Self.address, "n", "-int", String(round)])
        }
        try fixture.output(["write", Self.domain, "n", "-int", "4"])
        #expect(try fixture.files(holding: Self.address).count == 4, "the domain file and three generations")
        #expect(try fixture.files(holding: older).count == 1)
        let before = try fixture.history()

        let purge = try fixture.run(["purge", Self.domain, "Mail"])
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(try fixture.files(holding: Self.address).isEmpty)
        #expect(try fixture.files(holding: older).isEmpty)
        #expect(!purge.stdout.contains(Self.address) && !purge.stderr.contains(Self.address))

        // Every version of before is still there with its writer and time (the removal from
        // the domain is a commit of its own, on top), and the other key's history is intact.
        let after = try fixture.history()
        #expect(after.count == before.count + 1)
        let (writersBefore, writersAfter) = (Self.writers(before), Self.writers(after))
        for (number, writer) in writersBefore {
            #expect(writersAfter[number] == writer, "generation \(number)")
        }
        #expect(try fixture.tool.onDisk(Self.domain) == ["n": 4])
        try fixture.output(["restore", Self.domain, "2"])
        #expect(try fixture.tool.onDisk(Self.domain) == ["n": 1])
        // The oldest held Mail alone: restored, the domain has no values (and no file).
        try fixture.output(["restore", Self.domain, "1"])
        #expect(try fixture.tool.onDisk(Self.domain) ?? [:] == [:])
        #expect(try fixture.files(holding: Self.address).isEmpty)
    }

    @Test("defaults purge DOMAIN with no key removes the whole history and the corrupt copies; the current values stay")
    func purgeHistory() throws {
        let fixture = try Fixture()
        for round in 1...3 {
            try fixture.output(["write", Self.domain, "Mail", "-string", Self.address, "n", "-int", String(round)])
        }
        // A damaged file holding the address, kept aside by the next write of a program.
        try fixture.tool.plant(Array("bplist00 broken \(Self.address) tail".utf8), domain: Self.domain)
        let store = try fixture.store()
        store.set(7, forKey: "n")
        try store.flush()
        #expect(try fixture.corruptCopies().count == 1)
        #expect(!fixture.generationFiles().isEmpty)

        let purge = try fixture.run(["purge", Self.domain])
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(fixture.generationFiles().isEmpty)
        #expect(try fixture.corruptCopies().isEmpty)
        // The program recovered Mail from the newest generation: the current file holds it still.
        #expect(try fixture.files(holding: Self.address) == [fixture.domainFile])
        #expect(try fixture.output(["read", Self.domain, "n"]) == "7\n")
        #expect(try fixture.output(["read", Self.domain, "Mail"]) == Self.address + "\n")
        #expect(try fixture.history().count == 1)
    }

    @Test("a corrupt file holding the secret set aside by a program, then defaults delete of the private key: no file holds it")
    func corruptCopyThenDelete() throws {
        let fixture = try Fixture()
        try fixture.output(["write", Self.domain, "Token", "-string", Self.secret, "n", "-int", "1"])
        try fixture.output(["write", Self.domain, "n", "-int", "2"])
        // Damaged in place, the secret still in its bytes: the tool refuses to replace it by
        // itself, so a program of the domain writes, and keeps it aside as corrupt.
        try fixture.tool.plant(Array("bplist00 broken \(Self.secret) tail".utf8), domain: Self.domain)
        #expect(try fixture.run(["write", Self.domain, "n", "-int", "3"]).status == 1)
        let store = try fixture.store()
        store.set(Self.secret, forKey: "Token")
        store.set(3, forKey: "n")
        try store.flush()
        let aside = try fixture.corruptCopies()
        #expect(aside.count == 1)
        #expect(try fixture.files() == ["preferences/\(aside.first ?? "")", fixture.domainFile].sorted())

        try fixture.output(["delete", Self.domain, "Token"])
        #expect(try fixture.files().isEmpty)
        // The copy is still there (its other bytes kept), and the other key is intact.
        #expect(try fixture.corruptCopies() == aside)
        #expect(try fixture.output(["read", Self.domain, "n"]) == "3\n")
    }

    @Test("a secret only a corrupt copy holds cannot be found by key: purge DOMAIN KEY says so and names the way out, purge DOMAIN removes it")
    func corruptCopyAlone() throws {
        let fixture = try Fixture()
        try fixture.output(["write", Self.domain, "n", "-int", "1"])
        try fixture.output(["write", Self.domain, "n", "-int", "2"])
        // The damaged file holds the only copy of the token; the program recovers from the
        // newest generation (which has none) and sets the damaged file aside.
        try fixture.tool.plant(Array("bplist00 broken \(Self.secret) tail".utf8), domain: Self.domain)
        let store = try fixture.store()
        store.set(3, forKey: "n")
        try store.flush()
        #expect(try fixture.corruptCopies().count == 1)

        let keyed = try fixture.run(["purge", Self.domain, "Token"])
        #expect(keyed.status == 0)
        #expect(keyed.stderr.contains("warning: 1 corrupt copy") && keyed.stderr.contains("defaults purge \(Self.domain)`"), "\(keyed.stderr)")
        #expect(try !fixture.files().isEmpty, "a value no decodable version holds is not found by key")
        let whole = try fixture.run(["purge", Self.domain])
        #expect(whole.status == 0 && !whole.stderr.contains("warning"), "\(whole.stderr)")
        #expect(try fixture.files().isEmpty)
        #expect(try fixture.output(["read", Self.domain, "n"]) == "3\n")
    }

    @Test("defaults export leaves a private key out and names it, to a file and to -; --include-private includes it")
    func export() throws {
        let fixture = try Fixture()
        try fixture.output(["write", Self.domain, "Token", "-string", Self.secret, "Mail", "-string", Self.address])
        let file = fixture.tool.directory.file("exported.plist").path
        let toFile = try fixture.run(["export", Self.domain, file])
        #expect(toFile.status == 0, "\(toFile.stderr)")
        #expect(toFile.stderr.contains("Token") && !toFile.stderr.contains(Self.secret), "\(toFile.stderr)")
        let exported = try #require(FileManager.default.contents(atPath: file))
        #expect(try BinaryPropertyListDecoder().decode([UInt8](exported)) == ["Mail": .string(Self.address)])

        for format in [[], ["--format", "binary"], ["--json"]] {
            let toOutput = try fixture.run(["export"] + format + [Self.domain, "-"])
            #expect(toOutput.status == 0, "\(format): \(toOutput.stderr)")
            #expect(!FilesHoldingText.bytes(toOutput.stdoutBytes, holdAnyOf: FilesHoldingText.forms(of: Self.secret)), "\(format)")
            #expect(toOutput.stdout.contains("Mail") && !toOutput.stdout.contains("Token"), "\(format): \(toOutput.stdout)")
            #expect(toOutput.stderr.contains("Token") && !toOutput.stderr.contains(Self.secret), "\(format): \(toOutput.stderr)")
        }
        #expect(try fixture.files() == [fixture.domainFile])

        let included = try fixture.run(["export", "--include-private", Self.domain, "-"])
        #expect(included.status == 0, "\(included.stderr)")
        #expect(included.stdout.contains(Self.secret))
        let includedFile = fixture.tool.directory.file("with-private.plist").path
        try fixture.output(["export", "--include-private", Self.domain, includedFile])
        #expect(try fixture.files() == [fixture.domainFile, "with-private.plist"])
    }

    /// A running `defaults watch` with the fixture's environment, its lines collected.
    struct Watcher {
        let process: Subprocess

        init(_ fixture: Fixture, _ arguments: [String]) throws {
            process = try Subprocess(defaultsPath, ["watch"] + arguments, environment: fixture.environment)
            // The deadline only bounds a failure.
            let ready = process.waitForLine(in: .errors, within: .seconds(30)) { $0.hasPrefix("Watching ") }
            #expect(ready != nil, "watch did not start: \(process.errorOutput)")
        }

        /// Waits until `count` lines have arrived; the deadline only bounds a failure.
        func waitFor(lines count: Int) -> [String] {
            process.waitForOutput(within: .seconds(30)) { $0.count >= count }
            return process.lines
        }
    }

    @Test("defaults watch prints <private> for a private key's values, text and JSON, and other keys' values as ever")
    func watch() throws {
        let fixture = try Fixture()
        let text = try Watcher(fixture, [Self.domain])
        let json = try Watcher(fixture, ["--json", Self.domain])
        // Each change is waited for before the next, so none arrive merged.
        try fixture.output(["write", Self.domain, "Token", "-string", Self.secret])
        _ = (text.waitFor(lines: 1), json.waitFor(lines: 1))
        try fixture.output(["write", Self.domain, "Token", "-string", Self.otherSecret])
        _ = (text.waitFor(lines: 2), json.waitFor(lines: 2))
        try fixture.output(["write", Self.domain, "n", "-int", "5"])
        _ = (text.waitFor(lines: 3), json.waitFor(lines: 3))
        try fixture.output(["delete", Self.domain, "Token"])
        #expect(text.waitFor(lines: 4) == [
            "Token: (none) → <private>", "Token: <private> → <private>", "n: (none) → 5", "Token: <private> → (none)",
        ])
        #expect(json.waitFor(lines: 4) == [
            #"{"key":"Token","old":null,"new":"<private>","origin":"anotherProcess"}"#,
            #"{"key":"Token","old":"<private>","new":"<private>","origin":"anotherProcess"}"#,
            #"{"key":"n","old":null,"new":5,"origin":"anotherProcess"}"#,
            #"{"key":"Token","old":"<private>","new":null,"origin":"anotherProcess"}"#,
        ])
        for watcher in [text, json] {
            for secret in [Self.secret, Self.otherSecret] {
                #expect(!watcher.process.output.contains(secret) && !watcher.process.errorOutput.contains(secret))
            }
        }
        #expect(try fixture.files().isEmpty)
        #expect(try fixture.files(holding: Self.otherSecret).isEmpty)
    }

    @Test("defaults explain and describe show <private>, never the value, and describe marks the key private")
    func explainAndDescribe() throws {
        let fixture = try Fixture()
        try fixture.output(["write", Self.domain, "Token", "-string", Self.secret, "Mail", "-string", Self.address])
        var outputs: [String] = []

        let explain = try fixture.output(["explain", Self.domain, "Token"])
        #expect(explain.hasPrefix("Token in \(Self.domain) is <private>, from the app layer."), "\(explain)")
        let explainJSON = try fixture.output(["explain", "--json", Self.domain, "Token"])
        let explained = try #require(try JSONSerialization.jsonObject(with: Data(explainJSON.utf8)) as? [String: Any])
        #expect(explained["value"] as? String == "<private>")
        #expect((explained["layers"] as? [[String: Any]])?.map { $0["value"] as? String } == ["<private>"])
        // A key that is not private is explained as ever.
        #expect(try fixture.output(["explain", Self.domain, "Mail"]).contains(Self.address))
        outputs += [explain, explainJSON]

        let describe = try fixture.output(["describe", Self.domain])
        let tokenLines = (describe.components(separatedBy: "\n\n").first { $0.hasPrefix("Token") } ?? "").split(separator: "\n")
        #expect(tokenLines.contains { $0.hasPrefix("  private:") && $0.contains("yes") }, "\(describe)")
        #expect(tokenLines.contains { $0.hasPrefix("  value:") && $0.hasSuffix(" <private> from the app layer (\(fixture.tool.domainFile(Self.domain)))") }, "\(describe)")
        #expect(describe.contains(Self.address))
        let describeJSON = try fixture.output(["describe", "--json", Self.domain])
        let described = try #require(try JSONSerialization.jsonObject(with: Data(describeJSON.utf8)) as? [String: Any])
        let keys = try #require(described["keys"] as? [[String: Any]])
        let token = try #require(keys.first { $0["key"] as? String == "Token" })
        #expect(token["private"] as? Bool == true)
        #expect(token["value"] as? String == "<private>")
        #expect(keys.first { $0["key"] as? String == "Mail" }?["private"] as? Bool == false)
        #expect(keys.first { $0["key"] as? String == "Mail" }?["value"] as? String == Self.address)
        outputs += [describe, describeJSON, try fixture.output(["describe", Self.domain, "Token"])]
        for output in outputs {
            #expect(!output.contains(Self.secret), "\(output)")
        }
        #expect(try fixture.files() == [fixture.domainFile])
    }

    @Test("a refused write of a private key names the rule, never the value, and changes nothing")
    func refusedWrite() throws {
        let fixture = try Fixture(schema: ["Token": ["Type": "string", "Private": true, "Choices": ["alpha", "beta"]]])
        try fixture.output(["write", Self.domain, "Token", "alpha"])
        let plist = XMLPropertyListEncoder().encode(.dictionary(["Token": .string(Self.secret)]))
        for (arguments, input) in [
            (["write", Self.domain, "Token", Self.secret], nil),
            (["write", Self.domain, "Token", "-string", Self.secret, "n", "-int", "1"], nil),
            (["write", Self.domain, "{ Token = \"\(Self.secret)\"; }"], nil),
            (["import", Self.domain, "-"], plist),
        ] {
            let refused = try fixture.run(arguments, input: input)
            #expect(refused.status == 1, "\(arguments)")
            #expect(refused.stderr.contains("Token must be one of"), "\(arguments): \(refused.stderr)")
            #expect(!refused.stderr.contains(Self.secret) && !refused.stdout.contains(Self.secret), "\(arguments): \(refused.stderr)")
        }
        #expect(try fixture.tool.onDisk(Self.domain) == ["Token": "alpha"])
        #expect(try fixture.files().isEmpty)
    }
}
