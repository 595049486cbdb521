import Foundation
import Glibc
import PropertyList
import Testing
import TestSupport

/// The `defaults` tool writes through the library, so each write is a journal entry.
@Suite(
    "The defaults tool's journal entries", .ownThread,
    .enabled(if: JournalReader.hasTestJournal, "needs the journald Tests/Scripts/with-journald.sh starts"))
struct DefaultsToolJournalTests {
    @Test("defaults write is one entry naming the domain and the key, from the defaults process")
    func writeEntry() throws {
        let home = try PrivatePreferencesHome()
        let domain = "com.example.journal.tool" + String(UInt32.random(in: 0...UInt32.max))
        let environment = home.processEnvironment
        let defaults = builtProductsDirectory.appendingPathComponent("defaults").path
        let result = try run(defaults, ["write", domain, "Interval", "-int", "30"], environment: environment)
        #expect(result.status == 0, "\(result.output)")
        let entries = try JournalReader.entries(where: "PREFERENCES_DOMAIN", is: domain, count: 1)
        let entry = try #require(entries.first, "no entry for \(domain)")
        #expect(entry["MESSAGE_ID"] == ["bee61232af8949879dd51df0fa8ceb8a"])
        #expect(entry["PREFERENCES_KEYS"] == ["Interval"])
        #expect(entry["PREFERENCES_PATH"] == ["\(home.userDirectory)/\(domain).plist"])
        #expect(entry["SYSLOG_IDENTIFIER"] == ["defaults"])
    }

    @Test("reading an XML plist by path logs no error: it is not a damaged binary domain file")
    func xmlReadIsQuiet() throws {
        let home = try PrivatePreferencesHome()
        let environment = home.processEnvironment
        let defaults = builtProductsDirectory.appendingPathComponent("defaults").path
        let path = home.directory.file("exported.plist").path
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>a</key><integer>1</integer></dict></plist>
            """
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path))
        let read = try run(defaults, ["read", path, "a"], environment: environment)
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output == "1\n")
        // A later process's entry: once it is in the journal, anything the read logged is too.
        let marker = "com.example.journal.marker" + String(UInt32.random(in: 0...UInt32.max))
        #expect(try run(defaults, ["write", marker, "k", "v"], environment: environment).status == 0)
        #expect(try JournalReader.entries(where: "PREFERENCES_DOMAIN", is: marker, count: 1).count == 1)
        let logged = try run("journalctl", ["-o", "json", "--no-pager", "PREFERENCES_PATH=\(path)"])
        #expect(!logged.output.contains("{"), "the read logged: \(logged.output)")
    }

    /// Every journal entry, every field, as `journalctl -o export` prints it: text fields
    /// as `NAME=value` lines, binary ones as their raw bytes.
    static func wholeJournal() throws -> [UInt8] {
        let finished = try Subprocess.run("journalctl", ["-o", "export", "--no-pager"], environment: nil)
        #expect(finished.terminationStatus == 0, "\(finished.errorOutput)")
        return [UInt8](finished.outputData)
    }

    @Test("a private value written, refused, stored against its rules and deleted with defaults is in no journal entry, in any field")
    func privateValueNeverJournaled() throws {
        let tool = try ToolFixture()
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let domain = "com.example.journal.private" + tag
        let secret = "s3cr3t-journal-" + tag
        let runtime = tool.directory.file("run").path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let environment = tool.environment.merging(["XDG_RUNTIME_DIR": runtime]) { _, new in new }
        func defaults(_ arguments: [String]) throws -> ToolFixture.Result {
            try tool.run(arguments, extraEnvironment: ["XDG_RUNTIME_DIR": runtime])
        }
        // Pin is stored before the schema gives it its choices: a value that breaks them,
        // which a program (here `defaults watch`) finds and reports when it reads the domain.
        try tool.installSchema(["Token": ["Type": "string", "Private": true], "Pin": ["Type": "string", "Private": true]], for: domain)
        #expect(try defaults(["write", domain, "Pin", "-string", secret]).status == 0)
        let choices: PropertyListValue = ["Type": "string", "Private": true, "Choices": ["alpha", "beta"]]
        try tool.installSchema(["Token": choices, "Pin": choices, "n": ["Type": "integer"]], for: domain)

        #expect(try defaults(["write", domain, "Token", "alpha"]).status == 0)
        let refused = try defaults(["write", domain, "Token", secret])
        #expect(refused.status == 1, "the write of a value outside the choices is refused: \(refused.stderr)")
        #expect(try defaults(["write", domain, "Token", "-string", secret, "n", "-int", "1"]).status == 1)
        #expect(try defaults(["write", domain, "n", "-int", "2"]).status == 0)

        // A watching program reads Pin, which breaks its rule: its warning is the domain's
        // fourth entry, after the three writes'.
        let watcher = try Subprocess(defaultsPath, ["watch", domain], environment: environment)
        let invalid = try JournalReader.entries(where: "PREFERENCES_DOMAIN", is: domain, count: 4)
            .filter { $0["MESSAGE_ID"] == ["c8e2a4716f3b4d09b5e1d7a2f60c9e84"] }
        watcher.signal(SIGKILL)
        #expect(invalid.count == 1, "the stored value that breaks the rules was reported")
        #expect(invalid.first?["PREFERENCES_VALUE"] == ["<private>"])

        // Written without the rules, as a program that predates them would; then deleted.
        try tool.installSchema(["Token": ["Type": "string", "Private": true], "Pin": ["Type": "string", "Private": true]], for: domain)
        #expect(try defaults(["write", domain, "Token", "-string", secret]).status == 0)
        #expect(try defaults(["delete", domain, "Token"]).status == 0)
        #expect(try defaults(["delete", domain, "Pin"]).status == 0)
        #expect(try defaults(["purge", domain]).status == 0)

        // Every write above is an entry: once the last one is in the journal, all are.
        let entries = try JournalReader.entries(where: "PREFERENCES_DOMAIN", is: domain, count: 7)
        #expect(entries.count >= 7, "\(entries)")
        let journal = try Self.wholeJournal()
        #expect(FilesHoldingText.bytes(journal, holdAnyOf: FilesHoldingText.forms(of: domain)))
        #expect(!FilesHoldingText.bytes(journal, holdAnyOf: FilesHoldingText.forms(of: secret)), "the journal holds the secret")
        #expect(try tool.files(holding: secret, alsoUnder: [runtime]).isEmpty)
    }
}
