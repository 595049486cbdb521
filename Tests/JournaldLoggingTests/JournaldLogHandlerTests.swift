import Foundation
import JournaldLogging
import Logging
import Testing
import TestSupport

/// An error with a known description, to see how errors are logged.
private struct DiskFull: Error, CustomStringConvertible {
    var description: String { "the disk is full" }
}

@Suite(
    "JournaldLogHandler on a real journald", .ownThread,
    .enabled(if: JournalReader.hasTestJournal, "needs the journald Tests/Scripts/with-journald.sh starts"))
struct JournaldLogHandlerTests {
    @Test("A message with metadata arrives in the journal with every field right")
    func messageWithMetadata() throws {
        let testID = UUID().uuidString
        var logger = Logger(label: "preferences.tests") { label in
            var handler = JournaldLogHandler(
                label: label, metadataProvider: Logger.MetadataProvider { ["provider.value": "from-provider"] })
            handler.metadata["handler.value"] = "from-handler"
            handler.metadata["overridden"] = "by-handler"
            return handler
        }
        logger[metadataKey: "logger.value"] = "from-logger"
        let line = #line + 1
        logger.warning(
            "wrote com.example.editor", error: DiskFull(),
            metadata: [
                "TEST_ID": "\(testID)",
                "preferences.domain": "com.example.editor",
                "MESSAGE_ID": "8f2c5c0e4a1d4b5e9d1f0a2b3c4d5e6f",
                "overridden": "by-call",
                "message": "a key that clashes",
                "request": ["id": "7", "user": ["name": "ann"]],
                "preferences.keys": ["fontSize", "theme"],
                "multi.line": "first\nsecond",
            ])

        let entries = try JournalReader.entries(where: "TEST_ID", is: testID, count: 1)
        try #require(entries.count == 1)
        let entry = entries[0]
        #expect(entry["MESSAGE"] == ["wrote com.example.editor"])
        #expect(entry["PRIORITY"] == ["4"])
        #expect(entry["CODE_FILE"] == ["\(#fileID)"])
        #expect(entry["CODE_LINE"] == ["\(line)"])
        #expect(entry["CODE_FUNC"] == ["\(#function)"])
        #expect(entry["SYSLOG_IDENTIFIER"] == [JournaldLogHandler(label: "x").syslogIdentifier])
        #expect(entry["SYSLOG_IDENTIFIER"]?.first?.isEmpty == false)
        #expect(entry["LOGGER_LABEL"] == ["preferences.tests"])
        #expect(entry["PREFERENCES_DOMAIN"] == ["com.example.editor"])
        #expect(entry["MESSAGE_ID"] == ["8f2c5c0e4a1d4b5e9d1f0a2b3c4d5e6f"])
        #expect(entry["HANDLER_VALUE"] == ["from-handler"])
        #expect(entry["LOGGER_VALUE"] == ["from-logger"])
        #expect(entry["PROVIDER_VALUE"] == ["from-provider"])
        #expect(entry["OVERRIDDEN"] == ["by-call"])
        #expect(entry["METADATA_MESSAGE"] == ["a key that clashes"])
        #expect(entry["REQUEST_ID"] == ["7"])
        #expect(entry["REQUEST_USER_NAME"] == ["ann"])
        #expect(entry["PREFERENCES_KEYS"].map(Set.init) == ["fontSize", "theme"])
        #expect(entry["MULTI_LINE"] == ["first\nsecond"])
        #expect(entry["ERROR_MESSAGE"] == ["the disk is full"])
        #expect(entry["ERROR_TYPE"]?.first?.hasSuffix("DiskFull") == true)
    }

    @Test("Every level is stored with its syslog priority")
    func everyLevel() throws {
        let testID = UUID().uuidString
        var logger = Logger(label: "preferences.tests") { JournaldLogHandler(label: $0) }
        logger.logLevel = .trace
        for level in Logger.Level.allCases {
            logger.log(level: level, "level \(level.rawValue)", metadata: ["TEST_ID": "\(testID)", "level": "\(level.rawValue)"])
        }

        let entries = try JournalReader.entries(where: "TEST_ID", is: testID, count: Logger.Level.allCases.count)
        let priorities = Dictionary(
            entries.map { ($0["LEVEL"]?.first ?? "?", $0["PRIORITY"]?.first ?? "?") }, uniquingKeysWith: { $1 })
        #expect(priorities == [
            "trace": "7", "debug": "7", "info": "6", "notice": "5", "warning": "4", "error": "3", "critical": "2",
        ])
    }

    @Test("The test run's journal socket is reachable")
    func liveSocketIsReachable() throws {
        let socket = try #require(JournalReader.testJournal)
        #expect(JournaldLogHandler.isJournalReachable(socketPath: socket))
        #expect(JournaldLogHandler.isJournalReachable())
    }

    @Test("With journald live the factory's handler writes to the journal and not to stderr")
    func factoryChoosesJournal() throws {
        let testID = UUID().uuidString
        let result = try run(workerPath, ["log", "factory", "to the journal \(testID)", "TEST_ID=\(testID)"])
        #expect(result.status == 0)
        #expect(!result.output.contains(testID), "wrote to stderr: \(result.output)")

        let entries = try JournalReader.entries(where: "TEST_ID", is: testID, count: 1)
        #expect(entries.map { $0["MESSAGE"] } == [["to the journal \(testID)"]])
        #expect(entries.first?["PRIORITY"] == ["3"])
        #expect(entries.first?["SYSLOG_IDENTIFIER"] == ["PreferencesWorker"])
    }
}
