import Foundation
import InMemoryLogging
import Logging
import Synchronization
@testable import Preferences
import Testing
import TestSupport

/// A domain with a schema: declared defaults with no code, validated writes, bad stored
/// values read as the default, schemas followed live, refused when untrusted, migrations.
@Suite("Declared settings in a store", .ownThread)
struct DeclaredSettingsStoreTests {
    static let domain = "com.example.test"

    static let volume: PropertyListValue = ["Type": "integer", "Default": 50, "Minimum": 0, "Maximum": 100, "Summary": "How loud."]
    static let theme: PropertyListValue = ["Type": "string", "Default": "light", "Choices": ["light", "dark"]]

    /// A fixture with the volume and theme schema installed, and a store logging to memory.
    static func fixtureWithSchema() throws -> (StoreFixture, String) {
        let fixture = try StoreFixture()
        let path = try fixture.installSchema(["Volume": volume, "Theme": theme])
        return (fixture, path)
    }

    static func store(_ fixture: StoreFixture, logging handler: InMemoryLogHandler) throws -> PreferenceStore {
        var configuration = fixture.configuration
        configuration.logger = Logger(label: "test") { _ in handler }
        return try PreferenceStore(domain: domain, configuration: configuration)
    }

    @Test("declared defaults are read with no code, below registered defaults, and explain names the schema")
    func declaredDefaults() throws {
        let (fixture, path) = try Self.fixtureWithSchema()
        let store = try fixture.store()
        #expect(store.integer(forKey: "Volume") == 50)
        #expect(store.string(forKey: "Theme") == "light")
        #expect(store.dictionaryRepresentation()["Volume"] as? Int == 50)
        #expect(store.schema?.path == path)
        #expect(store.schemaProblem == nil)
        let typed = PreferenceKey<Int>("Volume", default: 0)
        #expect(store[typed] == 50)
        store.register(defaults: ["Volume": 70])
        #expect(store.integer(forKey: "Volume") == 70)
        let sources = store.sources(forKey: "Volume")
        #expect(sources.map(\.layer) == [.registration, .declared])
        #expect(sources.last?.path == path)
    }

    @Test("trySet refuses a wrong type, a value out of range and one not among the choices, naming key, value and rule")
    func throwingSetter() throws {
        let (fixture, path) = try Self.fixtureWithSchema()
        let store = try fixture.store()
        store.set(60, forKey: "Volume")
        let cases: [(String, PropertyListValue, SchemaViolation.Rule)] = [
            ("Volume", "loud", .type(.integer)),
            ("Volume", 150, .maximum(100)),
            ("Volume", -1, .minimum(0)),
            ("Volume", 55.5, .type(.integer)),
            ("Theme", "blue", .choices(["light", "dark"])),
        ]
        for (key, value, rule) in cases {
            let error = #expect(throws: PreferencesError.self) { try store.trySet(value, forKey: key) }
            #expect(error?.code == .schemaViolation)
            #expect(error?.violation?.key == key)
            #expect(error?.violation?.value == value)
            #expect(error?.violation?.rule == rule)
            #expect(error?.violation?.schemaPath == path)
            #expect(error?.description.contains(key) == true)
            #expect(error?.description.contains(rule.description) == true)
        }
        #expect(store.integer(forKey: "Volume") == 60)
        #expect(store.string(forKey: "Theme") == "light")
        try store.trySet("dark", forKey: "Theme")
        try store.trySet(nil, forKey: "Volume")
        #expect(store.string(forKey: "Theme") == "dark")
        #expect(store.integer(forKey: "Volume") == 50)
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain)) == ["Theme": "dark"])
    }

    @Test("the UserDefaults set of a bad value keeps the old one and logs a warning with key, value, rule and schema")
    func compatibleSetter() throws {
        let (fixture, path) = try Self.fixtureWithSchema()
        let log = InMemoryLogHandler()
        let store = try Self.store(fixture, logging: log)
        store.set(30, forKey: "Volume")
        store.set("loud", forKey: "Volume")
        store.set(Optional<Any>.some(500), forKey: "Volume")
        let typed = PreferenceKey<Int>("Volume", default: 0)
        store[typed] = 101
        #expect(store.integer(forKey: "Volume") == 30)
        let warnings = log.entries.filter { $0.metadata["MESSAGE_ID"] == .string(PreferencesLogEvent.schemaViolation.messageID) }
        #expect(warnings.count == 3)
        let first = try #require(warnings.first)
        #expect(first.level == .warning)
        #expect(first.metadata["PREFERENCES_KEYS"] == .array([.string("Volume")]))
        #expect(first.metadata["PREFERENCES_VALUE"] == .string("\"loud\""))
        #expect(first.metadata["PREFERENCES_RULE"] == .string("must be an integer"))
        #expect(first.metadata["PREFERENCES_SCHEMA"] == .string(path))
    }

    @Test("undeclared keys behave exactly as without a schema")
    func undeclaredKeys() throws {
        let (fixture, _) = try Self.fixtureWithSchema()
        let store = try fixture.store()
        store.set("anything", forKey: "Free")
        try store.trySet(12, forKey: "Free")
        #expect(store.integer(forKey: "Free") == 12)
        #expect(store.schema?["Free"] == nil)
    }

    @Test("a bad value on disk reads as the default, the file is left as it is, and each distinct bad value is logged once")
    func invalidStoredValue() throws {
        let (fixture, _) = try Self.fixtureWithSchema()
        let file = fixture.userFile(Self.domain)
        try fixture.plant(["Volume": "loud", "Theme": "dark"], at: file)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let log = InMemoryLogHandler()
        let store = try Self.store(fixture, logging: log)
        #expect(store.integer(forKey: "Volume") == 50)
        #expect(store.object(forKey: "Volume") as? Int == 50)
        #expect(store.string(forKey: "Theme") == "dark")
        let sources = store.sources(forKey: "Volume")
        #expect(sources.first?.layer == .app)
        #expect(sources.first?.violation?.rule == .type(.integer))
        // Other writes go on; the bad value stays in the file until someone fixes it.
        store.set("light", forKey: "Theme")
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: file)?["Volume"] == "loud")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) != before)
        let invalid = { log.entries.filter { $0.metadata["MESSAGE_ID"] == .string(PreferencesLogEvent.invalidStoredValue.messageID) } }
        #expect(waitUntil { invalid().count == 1 })
        // The same value read again, by a second store too, is not reported again.
        let again = try Self.store(fixture, logging: log)
        #expect(again.integer(forKey: "Volume") == 50)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(invalid().count <= 2)  // the second store has its own schema object: at most once more
        #expect(invalid().first?.metadata["PREFERENCES_PATH"] == .string(file))
        // A different bad value is reported on its own.
        try fixture.plant(["Volume": 1_000, "Theme": "light"], at: file)
        store.synchronize()
        #expect(store.integer(forKey: "Volume") == 50)
        #expect(waitUntil { invalid().contains { $0.metadata["PREFERENCES_VALUE"] == .string("1000") } })
    }

    @Test("a bad value in a higher layer lets a valid lower one show through")
    func lowerLayerShowsThrough() throws {
        let (fixture, _) = try Self.fixtureWithSchema()
        try fixture.plant(["Volume": "loud"], at: fixture.userFile(Self.domain))
        try fixture.plant(["Volume": 20], at: fixture.systemFile(Self.domain), mode: 0o644)
        let store = try fixture.store()
        #expect(store.integer(forKey: "Volume") == 20)
    }

    @Test("a schema installed, changed and removed while the store is open takes effect live, with change callbacks")
    func liveSchema() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        #expect(store.object(forKey: "Volume") == nil)
        let seen = Seen()
        let observation = store.observe("Volume") { change in
            seen.values.withLock { $0.append(change.newValue) }
        }
        defer { observation.cancel() }
        try fixture.installSchema(["Volume": Self.volume])
        #expect(waitUntil { store.integer(forKey: "Volume") == 50 })
        var louder = Self.volume.dictionaryValue!
        louder["Default"] = 80
        try fixture.installSchema(["Volume": .dictionary(louder)])
        #expect(waitUntil { store.integer(forKey: "Volume") == 80 })
        #expect(waitUntil { seen.values.withLock { $0 } == [50, 80] })
        try FileManager.default.removeItem(atPath: "\(fixture.schemaDirectory)/\(Self.domain).plist")
        #expect(waitUntil { store.object(forKey: "Volume") == nil && store.schema == nil })
    }

    @Test("a value that was invalid becomes valid when a new schema allows it")
    func newSchemaRevalidates() throws {
        let (fixture, _) = try Self.fixtureWithSchema()
        try fixture.plant(["Volume": 150], at: fixture.userFile(Self.domain))
        let store = try fixture.store()
        #expect(store.integer(forKey: "Volume") == 50)
        var wider = Self.volume.dictionaryValue!
        wider["Maximum"] = 200
        try fixture.installSchema(["Volume": .dictionary(wider), "Theme": Self.theme])
        #expect(waitUntil { store.integer(forKey: "Volume") == 150 })
    }

    @Test("a malformed schema is reported with its file and key path, and the domain works without it")
    func malformedSchema() throws {
        let fixture = try StoreFixture()
        try fixture.installSchema(["Volume": ["Type": "integer", "Default": 500, "Maximum": 100]])
        let log = InMemoryLogHandler()
        let store = try Self.store(fixture, logging: log)
        #expect(store.schema == nil)
        let problem = try #require(store.schemaProblem)
        #expect(problem.code == .invalidDefault)
        #expect(problem.keyPath == "Keys.Volume.Default")
        #expect(problem.path.hasSuffix("\(Self.domain).plist"))
        store.set("loud", forKey: "Volume")
        #expect(store.string(forKey: "Volume") == "loud")
        #expect(log.entries.contains { $0.metadata["MESSAGE_ID"] == .string(PreferencesLogEvent.schemaUnusable.messageID) })
        // Fixed live.
        try fixture.installSchema(["Volume": Self.volume])
        #expect(waitUntil { store.schema != nil && store.schemaProblem == nil })
        #expect(store.integer(forKey: "Volume") == 50)
    }

    @Test("a schema in a world-writable directory, a group-writable schema and a symbolic link are refused as untrusted")
    func untrustedSchemas() throws {
        do {
            let (fixture, _) = try Self.fixtureWithSchema()
            chmod(fixture.schemaDirectory, 0o777)
            let store = try fixture.store()
            #expect(store.schema == nil)
            #expect(store.schemaProblem?.code == .untrusted)
            #expect(store.object(forKey: "Volume") == nil)
        }
        do {
            let (fixture, path) = try Self.fixtureWithSchema()
            chmod(path, 0o664)
            let store = try fixture.store()
            #expect(store.schemaProblem?.code == .untrusted)
        }
        do {
            let (fixture, path) = try Self.fixtureWithSchema()
            let elsewhere = fixture.directory.file("elsewhere.plist").path
            try FileManager.default.moveItem(atPath: path, toPath: elsewhere)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: elsewhere)
            let store = try fixture.store()
            #expect(store.schemaProblem?.code == .untrusted)
        }
    }

    @Test("a FIFO, a directory or a 5 MiB file where the schema should be: refused at once, never read, the domain works")
    func hostileSchemaFiles() throws {
        for kind in ["fifo", "directory", "huge"] {
            let fixture = try StoreFixture()
            try FileManager.default.createDirectory(atPath: fixture.schemaDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let path = "\(fixture.schemaDirectory)/\(Self.domain).plist"
            switch kind {
            case "fifo": #expect(mkfifo(path, 0o644) == 0)
            case "directory": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            default:
                try Data(repeating: 0x20, count: 5 << 20).write(to: URL(fileURLWithPath: path))
                chmod(path, 0o644)
            }
            // A FIFO would block a plain open for reading until a writer came: this must return.
            let store = try fixture.store()
            let problem = try #require(store.schemaProblem, "\(kind)")
            #expect(problem.code == (kind == "huge" ? .tooLarge : .unreadable), "\(kind): \(problem)")
            #expect(problem.path == path)
            store.set("loud", forKey: "Volume")
            #expect(store.string(forKey: "Volume") == "loud")
        }
    }

    @Test(
        "a schema owned by another user (not root) is refused",
        .enabled(if: Privileges.canChangeOwners, "needs CAP_CHOWN (root) to give the schema to another user"))
    func foreignOwner() throws {
        let (fixture, path) = try Self.fixtureWithSchema()
        chown(path, 65_534, 65_534)
        let store = try fixture.store()
        #expect(store.schemaProblem?.code == .untrusted)
        #expect(store.schema == nil)
    }

    @Test("a Settings.bundle in the schema directory is found and its specifiers declare the keys")
    func settingsBundleDiscovered() throws {
        let fixture = try StoreFixture()
        let bundle = "\(fixture.schemaDirectory)/\(Self.domain).bundle"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let root: PropertyListValue = [
            "PreferenceSpecifiers": [
                ["Type": "PSGroupSpecifier", "Title": "Sound"],
                ["Type": "PSSliderSpecifier", "Key": "Volume", "DefaultValue": 0.5, "MinimumValue": 0, "MaximumValue": 1],
                ["Type": "PSChildPaneSpecifier", "Title": "More", "File": "More"],
            ]
        ]
        let more: PropertyListValue = [
            "PreferenceSpecifiers": [["Type": "PSToggleSwitchSpecifier", "Key": "Muted", "DefaultValue": false]]
        ]
        try Data(XMLPropertyListEncoder().encode(root)).write(to: URL(fileURLWithPath: "\(bundle)/Root.plist"))
        try Data(XMLPropertyListEncoder().encode(more)).write(to: URL(fileURLWithPath: "\(bundle)/More.plist"))
        let store = try fixture.store()
        #expect(store.double(forKey: "Volume") == 0.5)
        #expect(store.object(forKey: "Muted") as? Bool == false)
        #expect(store.schema?.format == .settingsBundle)
        #expect(throws: PreferencesError.self) { try store.trySet(2.0, forKey: "Volume") }
        // An edit of a child pane is followed live.
        let changed: PropertyListValue = [
            "PreferenceSpecifiers": [["Type": "PSToggleSwitchSpecifier", "Key": "Muted", "DefaultValue": true]]
        ]
        try Data(XMLPropertyListEncoder().encode(changed)).write(to: URL(fileURLWithPath: "\(bundle)/More.plist"))
        #expect(waitUntil { store.bool(forKey: "Muted") })
    }

    @Test("register(schemaAt:) uses a schema the program names, and refuses a broken one with its error")
    func registerSchema() throws {
        let fixture = try StoreFixture()
        let directory = fixture.directory.file("shipped").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let path = "\(directory)/app.plist"
        try Data(XMLPropertyListEncoder().encode(["Keys": ["Volume": Self.volume]])).write(to: URL(fileURLWithPath: path))
        let store = try fixture.store()
        try store.register(schemaAt: URL(fileURLWithPath: path))
        #expect(store.integer(forKey: "Volume") == 50)
        #expect(store.schema?.path == path)
        let broken = "\(directory)/broken.plist"
        try Data("not a plist <".utf8).write(to: URL(fileURLWithPath: broken))
        let error = #expect(throws: PreferencesError.self) { try store.register(schemaAt: URL(fileURLWithPath: broken)) }
        #expect(error?.code == .invalidSchema)
        #expect(error?.schemaError?.path == broken)
        #expect(store.integer(forKey: "Volume") == 50)
    }

    @Test("modify and increment refuse a result that breaks the declaration and write nothing")
    func modifyValidates() throws {
        let (fixture, _) = try Self.fixtureWithSchema()
        let store = try fixture.store()
        store.set(99, forKey: "Volume")
        try store.flush()
        #expect(try store.increment(forKey: "Volume") == 100)
        let error = #expect(throws: PreferencesError.self) { try store.increment(forKey: "Volume") }
        #expect(error?.violation?.rule == .maximum(100))
        #expect(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain))?["Volume"] == 100)
    }

    // MARK: Migrations

    static let renamed: PropertyListValue = ["Type": "integer", "Default": 50, "RenamedFrom": ["SoundLevel", "Loudness"]]

    @Test("a value under an old name moves to the declared name once, and a second open writes nothing")
    func migrationOnce() throws {
        let fixture = try StoreFixture()
        try fixture.installSchema(["Volume": Self.renamed])
        let file = fixture.userFile(Self.domain)
        try fixture.plant(["SoundLevel": 70, "Other": "kept"], at: file)
        let log = InMemoryLogHandler()
        let store = try Self.store(fixture, logging: log)
        #expect(store.integer(forKey: "Volume") == 70)
        #expect(store.object(forKey: "SoundLevel") == nil)
        #expect(try domainValuesOnDisk(atPath: file) == ["Volume": 70, "Other": "kept"])
        let migrated = log.entries.filter { $0.metadata["MESSAGE_ID"] == .string(PreferencesLogEvent.migrated.messageID) }
        #expect(migrated.count == 1)
        #expect(migrated.first?.metadata["PREFERENCES_KEYS"] == .array([.string("SoundLevel -> Volume")]))
        let identity = try #require(DomainFile(directory: fixture.userDirectory, fileName: "\(Self.domain).plist").identity())
        let second = try Self.store(fixture, logging: log)
        #expect(second.integer(forKey: "Volume") == 70)
        #expect(DomainFile(directory: fixture.userDirectory, fileName: "\(Self.domain).plist").identity() == identity)
        #expect(log.entries.filter { $0.metadata["MESSAGE_ID"] == .string(PreferencesLogEvent.migrated.messageID) }.count == 1)
    }

    @Test("a schema installed while the store is open moves old names too, off the watcher thread")
    func liveMigration() throws {
        let fixture = try StoreFixture()
        let file = fixture.userFile(Self.domain)
        try fixture.plant(["SoundLevel": 30], at: file)
        let store = try fixture.store()
        #expect(store.integer(forKey: "SoundLevel") == 30)
        try fixture.installSchema(["Volume": Self.renamed])
        #expect(waitUntil { store.integer(forKey: "Volume") == 30 && store.object(forKey: "SoundLevel") == nil })
        #expect(waitUntil { (try? domainValuesOnDisk(atPath: file)) == ["Volume": 30] })
    }

    @Test("a value already under the new name wins over an old one, which is dropped")
    func migrationKeepsNewer() throws {
        let fixture = try StoreFixture()
        try fixture.installSchema(["Volume": Self.renamed])
        let file = fixture.userFile(Self.domain)
        try fixture.plant(["Loudness": 10, "Volume": 90], at: file)
        let store = try fixture.store()
        #expect(store.integer(forKey: "Volume") == 90)
        #expect(try domainValuesOnDisk(atPath: file) == ["Volume": 90])
    }

    @Test("8 processes opening the domain at once move the value once between them")
    func migrationAcrossProcesses() throws {
        let fixture = try StoreFixture()
        try fixture.installSchema(["Volume": Self.renamed])
        let file = fixture.userFile(Self.domain)
        try fixture.plant(["SoundLevel": 70], at: file)
        let workers = try (0..<8).map { _ in
            try Subprocess(workerPath, ["read", Self.domain, "Volume"], environment: fixture.processEnvironment)
        }
        for worker in workers {
            #expect(worker.wait() == 0)
            #expect(worker.output == "70\n")
        }
        #expect(try domainValuesOnDisk(atPath: file) == ["Volume": 70])
    }
}

/// Values an observer saw, from whichever thread it ran on.
private final class Seen: Sendable {
    let values = Mutex<[PropertyListValue?]>([])
}
