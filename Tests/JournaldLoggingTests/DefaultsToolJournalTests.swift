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
        let directory = try TemporaryDirectory()
        let domain = "com.example.journal.tool" + String(UInt32.random(in: 0...UInt32.max))
        let environment = [
            "PREFERENCES_HOME": directory.file("preferences").path, "PREFERENCES_SYSTEM_DIR": directory.file("system").path,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        let defaults = builtProductsDirectory.appendingPathComponent("defaults").path
        let result = try run(defaults, ["write", domain, "Interval", "-int", "30"], environment: environment)
        #expect(result.status == 0, "\(result.output)")
        let entries = try JournalReader.entries(where: "PREFERENCES_DOMAIN", is: domain, count: 1)
        let entry = try #require(entries.first, "no entry for \(domain)")
        #expect(entry["MESSAGE_ID"] == ["bee61232af8949879dd51df0fa8ceb8a"])
        #expect(entry["PREFERENCES_KEYS"] == ["Interval"])
        #expect(entry["PREFERENCES_PATH"] == [directory.file("preferences/\(domain).plist").path])
        #expect(entry["SYSLOG_IDENTIFIER"] == ["defaults"])
    }
}
