import Foundation
import Glibc
import InMemoryLogging
import Logging
@testable import Preferences
import Synchronization
import Testing
import TestSupport

/// A corrupt domain file is read from the newest generation that decodes (issue 18, item 6).
@Suite("Recovery from a corrupt domain file", .ownThread)
struct RecoveryTests {
    static let domain = "com.example.recovery"
    // A valid name: it cannot fail.
    static let location = try! PersistentDomainLocation.named(domain)

    /// The last good generation's values, and the current file's: a real domain of every type.
    static let good: [String: PropertyListValue] = [
        "Greeting": "Hello", "Count": 7, "Ratio": 0.25, "Enabled": true, "Blob": .data(Data([1, 2, 3])),
        "List": ["a", "b"], "Nested": ["x": 1, "y": ["z"]],
    ]
    static let current: [String: PropertyListValue] = good.merging(["Greeting": "Bonjour", "Added": .date(Date(timeIntervalSince1970: 1_700_000_000))]) { $1 }

    /// Writes `good`, then `current`, through the library without opening a domain in this
    /// process: generation 1 holds `good`.
    static func writeVersions(in directory: String) throws -> DomainFile {
        let file = DomainFile(directory: directory, fileName: "\(domain).plist")
        _ = try file.update(policy: FilePolicy(), recovering: [:]) { $0 = good }
        _ = try file.update(policy: FilePolicy(), recovering: [:]) { $0 = current }
        return file
    }

    static func files(home: String) -> PreferenceFiles {
        PreferenceFiles(configuration: .init(environment: ["PREFERENCES_HOME": home, "PREFERENCES_SYSTEM_DIR": home + "/system"], arguments: []))
    }

    /// Replaces the domain file's bytes in place (mode 0600).
    static func overwrite(_ path: String, with bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try check(chmod(path, 0o600), "chmod")
    }

    @Test("corruption at every byte (each truncation, each byte overwritten where decoding then fails) recovers the last good generation")
    func everyByte() throws {
        let root = try TemporaryDirectory()
        let template = try Self.writeVersions(in: root.file("template").path)
        let bytes = try #require(FileManager.default.contents(atPath: template.path).map { [UInt8]($0) })
        let generation = try #require(FileManager.default.contents(atPath: DomainHistory(file: template).path(ofGeneration: 1)))
        var cases: [(String, [UInt8])] = (0..<bytes.count).map { ("truncated to \($0) bytes", Array(bytes.prefix($0))) }
        var decodable = 0
        for offset in bytes.indices {
            var damaged = bytes
            damaged[offset] ^= 0xFF
            // A flip inside a string or a number can leave a valid property list: that is a
            // new value, not corruption.
            if case .dictionary? = try? BinaryPropertyListDecoder().decode(damaged) {
                decodable += 1
                continue
            }
            cases.append(("byte \(offset) overwritten", damaged))
        }
        #expect(cases.count > bytes.count)
        for (index, (name, damaged)) in cases.enumerated() {
            // A directory of its own per case: each is a new domain file to this process.
            let home = root.file("case-\(index)").path
            let history = "\(home)/.\(Self.domain).plist.history"
            try FileManager.default.createDirectory(atPath: history, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try generation.write(to: URL(fileURLWithPath: "\(history)/1.plist"))
            try check(chmod("\(history)/1.plist", 0o600), "chmod")
            let path = "\(home)/\(Self.domain).plist"
            try Self.overwrite(path, with: damaged)
            let files = Self.files(home: home)
            let values = try files.persistentDomainValues(at: Self.location)
            #expect(values == Self.good, "\(name)")
            let recovery = files.recovery(at: Self.location)
            #expect(recovery?.generation == 1, "\(name)")
            #expect(recovery?.path == path, "\(name)")
            #expect(recovery.map { [.corrupt, .notADictionary].contains($0.reason.code) } == true, "\(name)")
            // Read only: the corrupt bytes are left exactly as they were.
            #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == damaged, "\(name)")
        }
        print("recovery cases: \(cases.count) (\(bytes.count) truncations), \(decodable) single-byte flips still decoded")
    }

    @Test("a store opening a corrupt domain reads the newest good generation, logs both files, and its next write lands on top")
    func storeRecoversAndWritesOnTop() throws {
        let fixture = try StoreFixture()
        let file = try Self.writeVersions(in: fixture.userDirectory)
        try Self.overwrite(file.path, with: garbageBytes)
        let log = InMemoryLogHandler()
        var configuration = fixture.configuration
        configuration.logger = Logger(label: "test") { _ in log }
        let store = try PreferenceStore(domain: Self.domain, configuration: configuration)
        #expect(store.string(forKey: "Greeting") == "Hello")
        #expect(store.integer(forKey: "Count") == 7)
        #expect(store.object(forKey: "Added") == nil)
        // Listed, so a program can tell its user; the values are the generation's.
        #expect(store.fileProblems.map(\.code) == [.corrupt])
        #expect(store.fileProblems.first?.path == file.path)
        let generationPath = DomainHistory(file: file).path(ofGeneration: 1)
        let entries = log.entries.filter { $0.metadata["MESSAGE_ID"] == .string(PreferencesLogEvent.recovered.messageID) }
        #expect(entries.count == 1)
        #expect(entries.first?.level == .warning)
        #expect(entries.first?.metadata["PREFERENCES_PATH"] == .string(file.path))
        #expect(entries.first?.metadata["PREFERENCES_GENERATION_PATH"] == .string(generationPath))
        #expect(entries.first?.metadata["PREFERENCES_GENERATION"] == .string("1"))
        #expect(entries.first.map { "\($0.message)".contains(file.path) && "\($0.message)".contains(generationPath) } == true)
        #expect(store.sources(forKey: "Count").first?.recovery?.generation == 1)

        store.set("after", forKey: "New")
        try store.flush()
        var expected = Self.good
        expected["New"] = "after"
        #expect(try domainValuesOnDisk(atPath: file.path) == expected)
        // The corrupt file was kept aside by the write, byte for byte; it is no generation.
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.userDirectory)
        let aside = try #require(names.first { $0.hasPrefix("\(Self.domain).plist.corrupt-") })
        #expect(FileManager.default.contents(atPath: "\(fixture.userDirectory)/\(aside)") == Data(garbageBytes))
        #expect(try FileManager.default.contentsOfDirectory(atPath: DomainHistory(file: file).directoryPath).sorted() == ["1.plist"])
        #expect(store.sources(forKey: "Count").first?.recovery == nil)
        #expect(store.fileProblems.isEmpty)
        #expect(Self.files(home: fixture.userDirectory).recovery(at: Self.location) == nil)
    }

    @Test("an open store whose file turns corrupt moves to the newest good generation as a change from another process")
    func openStoreRecovers() throws {
        let fixture = try StoreFixture()
        let file = try Self.writeVersions(in: fixture.userDirectory)
        let store = try fixture.store(Self.domain)
        #expect(store.string(forKey: "Greeting") == "Bonjour")
        let changes = Mutex<[PreferenceChange]>([])
        let observation = store.observe("Greeting", options: [.old, .new]) { change in changes.withLock { $0.append(change) } }
        defer { observation.cancel() }
        try Self.overwrite(file.path, with: garbageBytes)
        #expect(waitUntil { changes.withLock { !$0.isEmpty } })
        let change = try #require(changes.withLock { $0.first })
        #expect(change.oldValue == "Bonjour")
        #expect(change.newValue == "Hello")
        #expect(change.origin == .anotherProcess)
        #expect(store.object(forKey: "Added") == nil)
    }

    @Test("an unsafe file is never recovered from: it stays refused")
    func unsafeStaysRefused() throws {
        let root = try TemporaryDirectory()
        let home = root.file("preferences").path
        let file = try Self.writeVersions(in: home)
        try check(chmod(file.path, 0o666), "chmod")
        let files = Self.files(home: home)
        #expect {
            try files.persistentDomainValues(at: Self.location)
        } throws: { error in
            (error as? PreferencesError)?.code == .insecurePermissions
        }
        #expect(files.recovery(at: Self.location) == nil)
    }

    @Test("with no generation that decodes, a corrupt file is reported as before")
    func noGoodGeneration() throws {
        let root = try TemporaryDirectory()
        let home = root.file("preferences").path
        let file = try Self.writeVersions(in: home)
        try Self.overwrite(DomainHistory(file: file).path(ofGeneration: 1), with: garbageBytes)
        try Self.overwrite(file.path, with: garbageBytes)
        let files = Self.files(home: home)
        #expect {
            try files.persistentDomainValues(at: Self.location)
        } throws: { error in
            (error as? PreferencesError)?.code == .corrupt
        }
        #expect(files.recovery(at: Self.location) == nil)
    }

    @Test("a tool's write refuses a recovered domain until a generation is restored; the restore sets the corrupt file aside")
    func toolWritesRefusedUntilRestore() throws {
        let root = try TemporaryDirectory()
        let home = root.file("preferences").path
        let file = try Self.writeVersions(in: home)
        try Self.overwrite(file.path, with: garbageBytes)
        let files = Self.files(home: home)
        #expect(throws: PreferencesError.self) { try files.setValues(["k": 1], at: Self.location) }
        #expect(FileManager.default.contents(atPath: file.path) == Data(garbageBytes))
        try files.restore(generation: 1, at: Self.location)
        #expect(try BinaryPropertyListDecoder().decode([UInt8](try #require(FileManager.default.contents(atPath: file.path)))) == .dictionary(Self.good))
        try files.setValues(["k": 1], at: Self.location)
        #expect(try files.persistentDomainValues(at: Self.location)?["k"] == 1)
    }
}
