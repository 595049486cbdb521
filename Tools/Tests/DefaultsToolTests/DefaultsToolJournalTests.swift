import Foundation
import Testing
import TestSupport

/// The `defaults` tool writes through the library, so each write is a journal entry.
@Suite(
    "The defaults tool's journal entries",
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
}
