import Logging
import Testing

@testable import JournaldLogging

@Suite("Journal field names and priorities")
struct JournalFieldNameTests {
    @Test(
        "Metadata keys become valid journal field names",
        arguments: [
            ("preferences.domain", "PREFERENCES_DOMAIN"),
            ("request-id", "REQUEST_ID"),
            ("MESSAGE_ID", "MESSAGE_ID"),
            ("already_UPPER_9", "ALREADY_UPPER_9"),
            ("_private", "PRIVATE"),
            ("__", "METADATA_"),
            ("", "METADATA_"),
            ("404", "METADATA_404"),
            ("message", "METADATA_MESSAGE"),
            ("priority", "METADATA_PRIORITY"),
            ("code.file", "METADATA_CODE_FILE"),
            ("syslog_identifier", "METADATA_SYSLOG_IDENTIFIER"),
            ("café au lait", "CAF__AU_LAIT"),
            (String(repeating: "k", count: 100), String(repeating: "K", count: 64)),
        ])
    func sanitisedNames(key: String, expected: String) {
        #expect(JournalFieldName.sanitised(key) == expected)
    }

    @Test("Every sanitised name obeys journald's rules")
    func namesAreValid() {
        for key in ["", "_", "9lives", "a.b.c", "ÄÖÜ", "x y", String(repeating: "é", count: 80), "MESSAGE"] {
            let name = Array(JournalFieldName.sanitised(key).utf8)
            #expect(!name.isEmpty && name.count <= 64, "\(key)")
            #expect(name.allSatisfy { (65...90).contains($0) || (48...57).contains($0) || $0 == 95 }, "\(key)")
            #expect(name.first != UInt8(ascii: "_") && !(48...57).contains(name.first!), "\(key)")
        }
    }

    @Test("Each level has its syslog priority")
    func priorities() {
        let expected: [Logger.Level: Int] = [
            .trace: 7, .debug: 7, .info: 6, .notice: 5, .warning: 4, .error: 3, .critical: 2,
        ]
        for level in Logger.Level.allCases {
            #expect(level.journalPriority == expected[level], "\(level)")
        }
    }
}
