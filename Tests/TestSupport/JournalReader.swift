import Foundation

/// Reads entries back from the test run's journald with `journalctl -o json`, the way an
/// administrator would see them.
package enum JournalReader {
    /// The journal socket exported by Tests/Scripts/with-journald.sh, or nil outside it.
    package static let testJournal: String? = ProcessInfo.processInfo.environment["JOURNALD_LOGGING_TEST_JOURNAL"]

    /// Whether this run has a journald of its own to talk to.
    package static var hasTestJournal: Bool { testJournal != nil }

    /// The entries whose `field` is `value`, each field's values as strings (a field that
    /// repeats has several).
    ///
    /// journald files datagrams asynchronously, so this asks again until `count` entries are
    /// there or 15 s have passed (a bound on waiting, not a timing assertion), and returns
    /// what it found, for the test to check.
    package static func entries(where field: String, is value: String, count: Int) throws -> [[String: [String]]] {
        let deadline = Date().addingTimeInterval(15)
        while true {
            let result = try run("journalctl", ["-o", "json", "--no-pager", "\(field)=\(value)"])
            let entries = result.output.split(separator: "\n")
                .filter { $0.hasPrefix("{") }
                .compactMap { parse(String($0)) }
            if entries.count >= count || Date() > deadline { return entries }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// One `journalctl -o json` line: a string, an array of strings for a repeated field, or
    /// an array of bytes for a binary value.
    private static func parse(_ line: String) -> [String: [String]]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            return nil
        }
        return object.mapValues { value in
            switch value {
            case let string as String: [string]
            case let strings as [String]: strings
            case let bytes as [Int]: [String(decoding: bytes.map { UInt8(truncatingIfNeeded: $0) }, as: UTF8.self)]
            default: ["\(value)"]
            }
        }
    }
}
