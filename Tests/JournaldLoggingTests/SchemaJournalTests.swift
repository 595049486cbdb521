import Foundation
import Preferences
import PropertyList
import Testing
import TestSupport

/// The entries declared settings write, read back from a real journald.
@Suite(
    "Schema entries in the journal", .ownThread,
    .enabled(if: JournalReader.hasTestJournal, "needs the journald Tests/Scripts/with-journald.sh starts"))
struct SchemaJournalTests {
    /// A store of a fresh domain whose schema declares Volume (integer, 0...100, default 50,
    /// once called SoundLevel), with `stored` planted in its file first.
    func makeStore(in home: PrivatePreferencesHome, stored: [String: PropertyListValue]) throws -> (PreferenceStore, String, String) {
        let domain = "com.example.schema-journal." + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let schemas = home.schemaDirectory
        try FileManager.default.createDirectory(atPath: schemas, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let schema = "\(schemas)/\(domain).plist"
        let keys: PropertyListValue = ["Keys": ["Volume": ["Type": "integer", "Default": 50, "Minimum": 0, "Maximum": 100, "RenamedFrom": "SoundLevel"]]]
        try Data(XMLPropertyListEncoder().encode(keys)).write(to: URL(fileURLWithPath: schema))
        chmod(schema, 0o644)
        let preferences = home.userDirectory
        try FileManager.default.createDirectory(atPath: preferences, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data(BinaryPropertyListEncoder().encode(.dictionary(stored))).write(to: URL(fileURLWithPath: "\(preferences)/\(domain).plist"))
        return (try PreferenceStore(domain: domain, configuration: .init(environment: home.environment, arguments: ["test"])), domain, schema)
    }

    @Test("a refused set is a warning with the key, the value, the rule and the schema")
    func refusedSet() throws {
        let home = try PrivatePreferencesHome()
        let (store, domain, schema) = try makeStore(in: home, stored: [:])
        store.set(500, forKey: "Volume")
        #expect(store.integer(forKey: "Volume") == 50)
        let entries = try JournalReader.entries(where: "PREFERENCES_DOMAIN", is: domain, count: 1)
        let entry = try #require(entries.first { $0["MESSAGE_ID"] == ["5b0f3c2e9d7a4e61a8c4f27d13e9b605"] })
        #expect(entry["PRIORITY"] == ["4"])
        #expect(entry["PREFERENCES_KEYS"] == ["Volume"])
        #expect(entry["PREFERENCES_VALUE"] == ["500"])
        #expect(entry["PREFERENCES_RULE"] == ["must be at most 100"])
        #expect(entry["PREFERENCES_SCHEMA"] == [schema])
    }

    @Test("a bad stored value is one warning naming the file; a migration is one info entry")
    func storedValueAndMigration() throws {
        let home = try PrivatePreferencesHome()
        let (store, domain, schema) = try makeStore(in: home, stored: ["SoundLevel": "loud"])
        // The old name's value moves to Volume, where it breaks the rule: read as the default.
        #expect(store.integer(forKey: "Volume") == 50)
        let entries = try JournalReader.entries(where: "PREFERENCES_DOMAIN", is: domain, count: 3)
        let migrated = try #require(entries.first { $0["MESSAGE_ID"] == ["91a7e3c5d2b64f08b3e9a1c7d5f26e40"] })
        #expect(migrated["PRIORITY"] == ["6"])
        #expect(migrated["PREFERENCES_KEYS"] == ["SoundLevel -> Volume"])
        let invalid = entries.filter { $0["MESSAGE_ID"] == ["c8e2a4716f3b4d09b5e1d7a2f60c9e84"] }
        #expect(invalid.count == 1)
        #expect(invalid.first?["PRIORITY"] == ["4"])
        #expect(invalid.first?["PREFERENCES_VALUE"] == ["\"loud\""])
        #expect(invalid.first?["PREFERENCES_SCHEMA"] == [schema])
        #expect(invalid.first?["PREFERENCES_PATH"]?.first?.hasSuffix("\(domain).plist") == true)
    }
}
