import Foundation
import InMemoryLogging
import Logging
@testable import Preferences
import Testing
import TestSupport

/// A program moving from corelibs-Foundation's `UserDefaults` keeps its users' settings: the
/// first open of a domain with no file of ours imports Foundation's file, once, with the care
/// of any file we read (issue 38, item 2). Foundation's files here are written by corelibs
/// itself, in a worker process, wherever a test does not need a file it cannot make.
@Suite("Foundation's settings imported", .ownThread)
struct FoundationImportTests {
    static let domain = "com.example.moving"

    /// corelibs-Foundation's file for `domain` in the fixture: its `HOME` is private and has no
    /// `XDG_CONFIG_HOME`, so `~/.config/<domain>.plist`, as corelibs resolves it.
    static func foundationFile(_ fixture: StoreFixture, _ domain: String = domain) -> String {
        fixture.homeDirectory + "/.config/\(domain).plist"
    }

    /// Writes `pairs` with corelibs-Foundation's own `UserDefaults` in another process.
    static func foundationWrite(_ fixture: StoreFixture, domain: String = domain, _ pairs: [String]) throws {
        let result = try run(workerPath, ["foundation-write", domain] + pairs, environment: fixture.processEnvironment)
        #expect(result.status == 0, "\(result.output)")
    }

    static func store(_ fixture: StoreFixture, log: InMemoryLogHandler? = nil) throws -> PreferenceStore {
        var configuration = fixture.configuration
        if let log { configuration.logger = Logger(label: "test") { _ in log } }
        return try PreferenceStore(domain: domain, configuration: configuration)
    }

    static func markerPath(_ fixture: StoreFixture) -> String {
        fixture.userDirectory + "/.\(domain).plist.foundation-imported"
    }

    @Test("the first open imports Foundation's file into ours, says where from, and leaves the original as it was")
    func firstOpenImports() throws {
        let fixture = try StoreFixture()
        try Self.foundationWrite(fixture, ["greeting", "hello", "theme", "dark"])
        let source = Self.foundationFile(fixture)
        let original = try Data(contentsOf: URL(fileURLWithPath: source))
        let originalTime = try FileManager.default.attributesOfItem(atPath: source)[.modificationDate] as? Date
        #expect(String(decoding: original, as: UTF8.self).contains("<plist"), "corelibs wrote XML")

        let log = InMemoryLogHandler()
        let store = try Self.store(fixture, log: log)
        #expect(store.string(forKey: "greeting") == "hello")
        #expect(store.string(forKey: "theme") == "dark")

        // Ours now, binary, with a history that names the source.
        let disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain)))
        #expect(disk == ["greeting": .string("hello"), "theme": .string("dark")])
        let versions = try PreferenceFiles(configuration: fixture.configuration).generations(at: .named(Self.domain))
        #expect(versions.count == 1)
        #expect(versions.first?.origin?.summary == "imported from corelibs-Foundation's \(source)")
        let imported = log.entries.filter { $0.metadata["MESSAGE_ID"] == .string(PreferencesLogEvent.foundationImported.messageID) }
        #expect(imported.count == 1)
        #expect(imported.first?.metadata["PREFERENCES_SOURCE"] == .string(source))

        #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == original)
        #expect(try FileManager.default.attributesOfItem(atPath: source)[.modificationDate] as? Date == originalTime)
        #expect(FileManager.default.fileExists(atPath: Self.markerPath(fixture)))

        // Another process sees the imported values (it imports nothing itself).
        let result = try run(workerPath, ["read", Self.domain, "theme"], environment: fixture.processEnvironment)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "dark")
    }

    @Test("once: a domain whose every key was removed is not imported again")
    func importedOnce() throws {
        let fixture = try StoreFixture()
        try Self.foundationWrite(fixture, ["greeting", "hello"])
        do {
            let store = try Self.store(fixture)
            #expect(store.string(forKey: "greeting") == "hello")
            store.removeObject(forKey: "greeting")
            try store.flush()
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.userFile(Self.domain)), "the empty domain's file is gone")
        // A new process, whose first open finds no file of ours but the marker.
        let result = try run(workerPath, ["read", Self.domain, "greeting"], environment: fixture.processEnvironment)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "(nil)")
        #expect(!FileManager.default.fileExists(atPath: fixture.userFile(Self.domain)))
    }

    @Test("processes opening a new domain at the same moment import it once")
    func concurrentOpenersImportOnce() throws {
        let fixture = try StoreFixture()
        try Self.foundationWrite(fixture, ["a", "1", "b", "2", "c", "3"])
        let readers = try (0..<6).map { _ in
            try Subprocess(workerPath, ["read", Self.domain, "b"], environment: fixture.processEnvironment)
        }
        for reader in readers { #expect(reader.wait() == 0) }
        for reader in readers { #expect(reader.output.trimmingCharacters(in: .whitespacesAndNewlines) == "2") }
        // One commit: a second import would have replaced the file and kept the first as a generation.
        let versions = try PreferenceFiles(configuration: fixture.configuration).generations(at: .named(Self.domain))
        #expect(versions.count == 1, "\(versions.map(\.number))")
        #expect(versions.first?.values == ["a": .string("1"), "b": .string("2"), "c": .string("3")])
    }

    @Test("a domain that already has a file is not touched at open; import-foundation merges, keeping ours")
    func existingDomainKeepsItsValues() throws {
        let fixture = try StoreFixture()
        try fixture.plant(["a": .string("ours")], at: fixture.userFile(Self.domain))
        try Self.foundationWrite(fixture, ["a", "foundation", "b", "new"])
        let store = try Self.store(fixture)
        #expect(store.string(forKey: "a") == "ours")
        #expect(store.object(forKey: "b") == nil)

        let files = PreferenceFiles(configuration: fixture.configuration)
        let result = try #require(try files.importFoundationSettings(ofDomain: Self.domain))
        #expect(result.importedKeys == ["b"])
        #expect(result.keptKeys == ["a"])
        #expect(result.sourcePath == Self.foundationFile(fixture))
        #expect(store.string(forKey: "a") == "ours")
        #expect(store.string(forKey: "b") == "new")
        #expect(files.foundationDomainNames() == [Self.domain])
        #expect(try files.importFoundationSettings(ofDomain: "com.example.none") == nil)
        #expect(throws: PreferencesError.self) { try files.importFoundationSettings(ofDomain: PreferenceStore.globalDomain) }
    }

    @Test("binary and XML files of every property-list type import as they were")
    func everyTypeImports() throws {
        let fixture = try StoreFixture()
        let values: [String: Any] = [
            "int": 42, "real": 2.5, "flag": true, "when": Date(timeIntervalSince1970: 1_700_000_000),
            "bytes": Data([0, 1, 2]), "list": ["x", 1], "nested": ["k": "v"],
        ]
        try FileManager.default.createDirectory(atPath: fixture.homeDirectory + "/.config", withIntermediateDirectories: true)
        for (domain, format) in [("com.example.xml", PropertyListSerialization.PropertyListFormat.xml), ("com.example.binary", .binary)] {
            let data = try PropertyListSerialization.data(fromPropertyList: values, format: format, options: 0)
            try data.write(to: URL(fileURLWithPath: Self.foundationFile(fixture, domain)))
            let store = try PreferenceStore(domain: domain, configuration: fixture.configuration)
            #expect(store.integer(forKey: "int") == 42)
            #expect(store.double(forKey: "real") == 2.5)
            #expect(store.bool(forKey: "flag"))
            #expect(store.object(forKey: "when") as? Date == Date(timeIntervalSince1970: 1_700_000_000))
            #expect(store.data(forKey: "bytes") == Data([0, 1, 2]))
            #expect(store.value(forKey: "list") == .array([.string("x"), .integer(1)]))
            #expect(store.dictionary(forKey: "nested") as? [String: String] == ["k": "v"])
            try store.flush()
        }
    }

    enum Hazard: String, CaseIterable, Sendable {
        case symbolicLink, writableByOthers, oversize, notAPropertyList, notADictionary
    }

    @Test("a file it must refuse is named in a warning, nothing is written, and a fixed file imports on demand", arguments: Hazard.allCases)
    func refused(_ hazard: Hazard) throws {
        let fixture = try StoreFixture()
        let source = Self.foundationFile(fixture)
        try FileManager.default.createDirectory(atPath: fixture.homeDirectory + "/.config", withIntermediateDirectories: true)
        let good = try PropertyListSerialization.data(fromPropertyList: ["greeting": "hello"], format: .xml, options: 0)
        switch hazard {
        case .symbolicLink:
            let target = fixture.homeDirectory + "/elsewhere.plist"
            try good.write(to: URL(fileURLWithPath: target))
            try FileManager.default.createSymbolicLink(atPath: source, withDestinationPath: target)
        case .writableByOthers:
            try good.write(to: URL(fileURLWithPath: source))
            try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: source)
        case .oversize:
            let big = try PropertyListSerialization.data(fromPropertyList: ["greeting": String(repeating: "x", count: 2 << 20)], format: .xml, options: 0)
            try big.write(to: URL(fileURLWithPath: source))
        case .notAPropertyList:
            try Data("this is not a property list {{{".utf8).write(to: URL(fileURLWithPath: source))
        case .notADictionary:
            try PropertyListSerialization.data(fromPropertyList: ["a", "b"], format: .xml, options: 0).write(to: URL(fileURLWithPath: source))
        }
        let before = try? FileManager.default.destinationOfSymbolicLink(atPath: source)
        let bytesBefore = try? Data(contentsOf: URL(fileURLWithPath: source))

        let log = InMemoryLogHandler()
        let store = try Self.store(fixture, log: log)
        #expect(store.object(forKey: "greeting") == nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.userFile(Self.domain)), "nothing was written")
        #expect(!FileManager.default.fileExists(atPath: Self.markerPath(fixture)), "not marked imported: it can be tried again")
        let warnings = log.entries.filter { $0.metadata["MESSAGE_ID"] == .string(PreferencesLogEvent.foundationImportRefused.messageID) }
        #expect(warnings.count == 1)
        #expect(warnings.first?.level == .warning)
        #expect(warnings.first.map { "\($0.message)".contains(source) } == true, "\(warnings.map(\.message))")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: source)) == before)
        #expect((try? Data(contentsOf: URL(fileURLWithPath: source))) == bytesBefore, "the original is left as it was")

        // Fixed by its owner, it imports on demand.
        try? FileManager.default.removeItem(atPath: source)
        try good.write(to: URL(fileURLWithPath: source))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: source)
        let result = try #require(try PreferenceFiles(configuration: fixture.configuration).importFoundationSettings(ofDomain: Self.domain))
        #expect(result.importedKeys == ["greeting"])
        #expect(store.string(forKey: "greeting") == "hello")
    }

    @Test("the global domain and by-host domains import nothing")
    func globalDomainIsNotImported() throws {
        let fixture = try StoreFixture()
        try FileManager.default.createDirectory(atPath: fixture.homeDirectory + "/.config", withIntermediateDirectories: true)
        let data = try PropertyListSerialization.data(fromPropertyList: ["g": "global"], format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: fixture.homeDirectory + "/.config/.GlobalPreferences.plist"))
        try data.write(to: URL(fileURLWithPath: fixture.homeDirectory + "/.config/NSGlobalDomain.plist"))
        let global = try PreferenceStore(domain: PreferenceStore.globalDomain, configuration: fixture.configuration)
        #expect(global.object(forKey: "g") == nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.userFile(DomainLocations.globalFileStem)))
    }
}
