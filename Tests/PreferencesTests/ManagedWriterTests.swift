import Foundation
@testable import Preferences
import TestSupport
import Testing

/// The managed layer's writer (`PreferenceFiles.replaceManagedDomain`), which
/// `preferences-fleet` writes through.
@Suite("Writing the managed layer", .ownThread)
struct ManagedWriterTests {
    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
    }

    @Test("a managed file is written 0644 in a 0755 directory, seen live as forced, with its origin named per key")
    func writesReadableForcedFile() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set("mine", forKey: "Channel")
        let files = PreferenceFiles(configuration: fixture.configuration)
        let origin = CommitOrigin(summary: "fleet policy /p/fleet/com.example.test at revision 7", keys: ["Channel": "etcd /p/hosts/h/com.example.test at revision 9"])
        #expect(try files.replaceManagedDomain(["Channel": "stable", "Telemetry": false], named: "com.example.test", origin: origin))
        let path = fixture.systemFile("com.example.test", managed: true)
        #expect(Self.mode(path) == 0o644)
        #expect(Self.mode(fixture.systemDirectory + "/managed") == 0o755)
        #expect(try domainValuesOnDisk(atPath: path) == ["Channel": "stable", "Telemetry": false])
        #expect(waitUntil { store.string(forKey: "Channel") == "stable" }, "a running store sees the forced value")
        #expect(store.objectIsForced(forKey: "Channel"))
        let sources = store.sources(forKey: "Channel")
        #expect(sources.first?.layer == .forced)
        #expect(sources.first?.origin == "etcd /p/hosts/h/com.example.test at revision 9")
        #expect(store.sources(forKey: "Telemetry").first?.origin == origin.summary, "a key not named gets the summary")
        #expect(sources.last?.origin == nil, "the user's own layer has no origin")
        #expect(files.managedOrigin(ofDomain: "com.example.test") == origin)
        #expect(files.managedDomainNames() == ["com.example.test"])
        // The path the writer reports a digest of is the file it wrote; a bad name has none.
        #expect(files.managedFilePath(ofDomain: "com.example.test") == path)
        #expect(files.managedFilePath(ofDomain: "../escape") == nil)
    }

    @Test("the same values are not written again; a new origin is")
    func unchangedIsNotRewritten() throws {
        let fixture = try StoreFixture()
        let files = PreferenceFiles(configuration: fixture.configuration)
        let first = CommitOrigin(summary: "fleet policy a at revision 1")
        #expect(try files.replaceManagedDomain(["k": 1], named: "com.example.test", origin: first))
        #expect(try !files.replaceManagedDomain(["k": 1], named: "com.example.test", origin: first))
        let second = CommitOrigin(summary: "fleet policy a at revision 2")
        #expect(try files.replaceManagedDomain(["k": 1], named: "com.example.test", origin: second))
        #expect(files.managedOrigin(ofDomain: "com.example.test") == second)
    }

    @Test("empty values remove the managed file, and a running store falls back to its own value")
    func emptyRemoves() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set("mine", forKey: "Channel")
        let files = PreferenceFiles(configuration: fixture.configuration)
        try files.replaceManagedDomain(["Channel": "stable"], named: "com.example.test")
        #expect(waitUntil { store.string(forKey: "Channel") == "stable" })
        #expect(try files.replaceManagedDomain([:], named: "com.example.test"))
        #expect(!FileManager.default.fileExists(atPath: fixture.systemFile("com.example.test", managed: true)))
        #expect(waitUntil { store.string(forKey: "Channel") == "mine" })
        #expect(try !files.replaceManagedDomain([:], named: "com.example.test"), "removing a missing file changes nothing")
    }

    @Test("a file rewritten in place by hand keeps no origin: its writer no longer vouches for it")
    func handEditDropsOrigin() throws {
        let fixture = try StoreFixture()
        let files = PreferenceFiles(configuration: fixture.configuration)
        try files.replaceManagedDomain(["k": 1], named: "com.example.test", origin: CommitOrigin(summary: "fleet policy x"))
        let path = fixture.systemFile("com.example.test", managed: true)
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let bytes = handle.readDataToEndOfFile()
        try handle.seek(toOffset: 0)
        handle.write(bytes)
        try handle.close()
        #expect(files.managedOrigin(ofDomain: "com.example.test") == nil)
    }

    @Test(
        "bad names and unsafe directories are refused and nothing is written outside the managed directory",
        arguments: ["../escape", "a/b", ".hidden", ""])
    func badNames(_ name: String) throws {
        let fixture = try StoreFixture()
        let files = PreferenceFiles(configuration: fixture.configuration)
        #expect(throws: PreferencesError.self) { try files.replaceManagedDomain(["k": 1], named: name) }
        #expect(!FileManager.default.fileExists(atPath: fixture.systemDirectory + "/managed"))
    }

    @Test("a managed directory that is a link is refused")
    func linkedDirectory() throws {
        let fixture = try StoreFixture()
        let elsewhere = fixture.directory.file("elsewhere").path
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.createDirectory(atPath: fixture.systemDirectory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: fixture.systemDirectory + "/managed", withDestinationPath: elsewhere)
        let files = PreferenceFiles(configuration: fixture.configuration)
        #expect(throws: PreferencesError.self) { try files.replaceManagedDomain(["k": 1], named: "com.example.test") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }
}
