import Foundation
import InMemoryLogging
import Logging
@testable import Preferences
import Testing
import TestSupport

/// Keys declared private leave no copies behind (issue 32): their values never reach a kept
/// generation, and deleting or purging one removes it from every copy kept.
@Suite("Private keys", .ownThread)
struct PrivateKeyTests {
    static let domain = "com.example.secret"
    static let secret = "s3cr3t-token-7f3a9c"

    /// Every file under the fixture's directories (home, system, runtime) whose bytes hold
    /// `text` in UTF-8 or UTF-16 (either byte order), relative to the fixture's directory:
    /// TestSupport's search, the same the tool's tests make.
    static func files(holding text: String, in fixture: StoreFixture) throws -> [String] {
        try fixture.files(holding: text, alsoUnder: [fixture.runtimeDirectory].compactMap { $0 })
    }

    /// A fixture with a private runtime directory and a schema declaring `Token` private.
    static func fixture(declaring: Bool = true) throws -> StoreFixture {
        let fixture = try StoreFixture()
        try fixture.usePrivateRuntimeDirectory()
        if declaring { try installSchema(fixture) }
        return fixture
    }

    static func installSchema(_ fixture: StoreFixture) throws {
        try fixture.installSchema(["Token": ["Type": "string", "Private": true], "Mail": ["Type": "string"], "n": ["Type": "integer"]], for: domain)
    }

    static func generationFiles(_ fixture: StoreFixture) -> [String] {
        let directory = "\(fixture.userDirectory)/.\(domain).plist.history"
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".plist") }.map { "\(directory)/\($0)" }
    }

    @Test("a private value written, then ten more commits: no generation holds it, only the domain file")
    func neverInAGeneration() throws {
        let fixture = try Self.fixture()
        let store = try fixture.store(Self.domain)
        store.set(Self.secret, forKey: "Token")
        try store.flush()
        for round in 1...10 {
            store.set(round, forKey: "n")
            try store.flush()
        }
        #expect(Self.generationFiles(fixture).count == 10)
        #expect(try Self.files(holding: Self.secret, in: fixture) == ["preferences/\(Self.domain).plist"])
        #expect(store.string(forKey: "Token") == Self.secret)
        // The generations still hold every other key's history, and say who wrote them.
        let files = PreferenceFiles(configuration: fixture.configuration)
        let generations = try files.generations(at: .named(Self.domain))
        #expect(generations.filter { !$0.isCurrent }.allSatisfy { $0.values?["Token"] == nil })
        #expect(generations.allSatisfy { $0.writer != .unknown })
    }

    @Test("removing a private key, by the store or by PreferenceFiles, leaves no file holding it, and undo keeps the other keys")
    func deletingMeansGone() throws {
        for byFiles in [false, true] {
            let fixture = try Self.fixture()
            let store = try fixture.store(Self.domain)
            store.set("someone@example.com", forKey: "Mail")
            store.set(Self.secret, forKey: "Token")
            try store.flush()
            store.set(1, forKey: "n")
            try store.flush()
            let files = PreferenceFiles(configuration: fixture.configuration)
            if byFiles {
                try files.modifyPersistentDomain(at: .named(Self.domain), changing: ["Token"]) { $0["Token"] = nil }
            } else {
                store.removeObject(forKey: "Token")
                try store.flush()
            }
            #expect(try Self.files(holding: Self.secret, in: fixture).isEmpty, "by PreferenceFiles: \(byFiles)")
            // Undo goes back to the version before the removal: its other keys, no token.
            try files.undo(at: .named(Self.domain))
            let values = try #require(try files.persistentDomainValues(at: .named(Self.domain)))
            #expect(values["Mail"] == "someone@example.com" && values["n"] == 1 && values["Token"] == nil)
            #expect(try Self.files(holding: Self.secret, in: fixture).isEmpty)
        }
    }

    @Test("generations kept before the key was declared private are purged when it is deleted")
    func olderGenerationsPurged() throws {
        let fixture = try Self.fixture(declaring: false)
        let store = try fixture.store(Self.domain)
        for round in 1...5 {
            try store.transaction { transaction in
                transaction.set(Self.secret + "-\(round)", forKey: "Token")
                transaction.set(round, forKey: "n")
            }
        }
        #expect(try Self.files(holding: Self.secret, in: fixture).count == 5, "the domain file and four generations, before the schema")
        try Self.installSchema(fixture)
        let files = PreferenceFiles(configuration: fixture.configuration)
        try files.modifyPersistentDomain(at: .named(Self.domain), changing: ["Token"]) { $0["Token"] = nil }
        #expect(try Self.files(holding: Self.secret, in: fixture).isEmpty)
        // The other key's history is intact: every generation still decodes with its n.
        let generations = try files.generations(at: .named(Self.domain))
        #expect(generations.count == 6)
        #expect(generations.allSatisfy { $0.problem == nil && $0.values?["Token"] == nil })
        #expect(Set(generations.compactMap { $0.values?["n"] }) == [1, 2, 3, 4, 5])
    }

    @Test("purge takes any key out of the domain, every generation and every corrupt copy kept aside, keeping writers and times")
    func purgeAnyKey() throws {
        let fixture = try Self.fixture(declaring: false)
        let store = try fixture.store(Self.domain)
        for round in 1...4 {
            store.set(Self.secret, forKey: "Mail")
            store.set(round, forKey: "n")
            try store.flush()
        }
        // A hand edit breaks the file, with the secret still in its bytes; the next write
        // keeps it aside as <domain>.plist.corrupt-<time>.
        let path = fixture.userFile(Self.domain)
        try Data(Array("bplist00 broken \(Self.secret) tail".utf8)).write(to: URL(fileURLWithPath: path))
        let files = PreferenceFiles(configuration: fixture.configuration)
        let writer = try fixture.store(Self.domain)
        writer.set(99, forKey: "n")
        try writer.flush()
        let aside = try FileManager.default.contentsOfDirectory(atPath: fixture.userDirectory).filter { $0.contains(".corrupt-") }
        #expect(aside.count == 1)
        let before = try files.generations(at: .named(Self.domain))
        #expect(try !Self.files(holding: Self.secret, in: fixture).isEmpty)

        let count = try files.purge(keys: ["Mail"], at: .named(Self.domain))
        #expect(count >= 4)
        #expect(try Self.files(holding: Self.secret, in: fixture).isEmpty)
        let after = try files.generations(at: .named(Self.domain))
        // Every version of before is still there (the current one now as a generation, the
        // purge's removal from the domain being a commit of its own), with its writer and time.
        for old in before {
            let new = try #require(after.first { $0.number == old.number })
            #expect(new.writer == old.writer && new.date == old.date, "generation \(old.number)")
        }
        #expect(after.allSatisfy { $0.values?["Mail"] == nil })
        // The copy set aside is still there, its other bytes as they were.
        let scrubbed = try Data(contentsOf: URL(fileURLWithPath: "\(fixture.userDirectory)/\(aside[0])"))
        #expect(scrubbed.starts(with: Array("bplist00 broken ".utf8)) && scrubbed.count == "bplist00 broken \(Self.secret) tail".utf8.count)
        // Restore works for the other keys.
        let oldest = try #require(after.last)
        try files.restore(generation: oldest.number, at: .named(Self.domain))
        #expect(try files.persistentDomainValues(at: .named(Self.domain))?["n"] == oldest.values?["n"])

        // Without keys: the whole history and the corrupt copies go; the current values stay.
        try files.purge(keys: [], at: .named(Self.domain))
        #expect(Self.generationFiles(fixture).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.userDirectory).filter { $0.contains(".corrupt-") }.isEmpty)
        #expect(try files.persistentDomainValues(at: .named(Self.domain))?["n"] == oldest.values?["n"])
    }

    @Test("restoring a generation keeps the private keys' current values and never brings back an older secret")
    func restoreKeepsCurrentSecret() throws {
        let fixture = try Self.fixture()
        let store = try fixture.store(Self.domain)
        store.set("old-secret-value", forKey: "Token")
        store.set(1, forKey: "n")
        try store.flush()
        store.set(Self.secret, forKey: "Token")
        store.set(2, forKey: "n")
        try store.flush()
        let files = PreferenceFiles(configuration: fixture.configuration)
        try files.undo(at: .named(Self.domain))
        let values = try #require(try files.persistentDomainValues(at: .named(Self.domain)))
        #expect(values["n"] == 1)
        #expect(values["Token"] == .string(Self.secret))
        #expect(try Self.files(holding: "old-secret-value", in: fixture).isEmpty)
    }

    @Test("a refused write of a private key logs <private>, never the value")
    func refusedWriteLogsNoValue() throws {
        let fixture = try Self.fixture()
        try fixture.installSchema(["Token": ["Type": "string", "Private": true, "Choices": ["a", "b"]]], for: Self.domain)
        let handler = InMemoryLogHandler()
        var configuration = fixture.configuration
        configuration.logger = Logger(label: "test") { _ in handler }
        let store = try PreferenceStore(domain: Self.domain, configuration: configuration)
        store.setValue(.string(Self.secret), forKey: "Token")
        let entries = handler.entries
        #expect(!entries.isEmpty)
        for entry in entries {
            #expect(!"\(entry.message)".contains(Self.secret))
            #expect(!"\(entry.metadata)".contains(Self.secret))
        }
        #expect(entries.contains { "\($0.metadata)".contains("<private>") })
    }

    @Test("a stored value of a private key that breaks its rules is reported with <private>, never the value")
    func invalidStoredValueLogsNoValue() throws {
        let fixture = try Self.fixture(declaring: false)
        // Stored before the schema gave the key its choices, as by an older program.
        try fixture.plant(["Token": .string(Self.secret)], at: fixture.userFile(Self.domain))
        try fixture.installSchema(["Token": ["Type": "string", "Private": true, "Choices": ["a", "b"]]], for: Self.domain)
        let handler = InMemoryLogHandler()
        var configuration = fixture.configuration
        configuration.logger = Logger(label: "test") { _ in handler }
        let store = try PreferenceStore(domain: Self.domain, configuration: configuration)
        #expect(store.string(forKey: "Token") == nil)
        let invalid = { handler.entries.filter { $0.metadata["MESSAGE_ID"] == .string(PreferencesLogEvent.invalidStoredValue.messageID) } }
        #expect(waitUntil { !invalid().isEmpty })
        for entry in handler.entries {
            #expect(!"\(entry.message)".contains(Self.secret))
            #expect(!"\(entry.metadata)".contains(Self.secret))
        }
        #expect(invalid().first?.metadata["PREFERENCES_VALUE"] == .string("<private>"))
    }
}
