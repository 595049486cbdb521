import Foundation
import Glibc
import InMemoryLogging
import Logging
@testable import Preferences
import Testing
import TestSupport

/// Every commit keeps the file it replaces as a numbered generation (issue 18, item 4).
@Suite("Generations", .ownThread)
struct GenerationTests {
    static let domain = "com.example.history"

    /// The domain's files, with the fixture's configuration changed by `configure`.
    static func files(_ fixture: StoreFixture, _ configure: (inout PreferenceStore.Configuration) -> Void = { _ in }) -> PreferenceFiles {
        var configuration = fixture.configuration
        configure(&configuration)
        return PreferenceFiles(configuration: configuration)
    }

    /// A store of the domain with the fixture's configuration changed by `configure`.
    static func store(
        _ fixture: StoreFixture, logging handler: InMemoryLogHandler? = nil, _ configure: (inout PreferenceStore.Configuration) -> Void = { _ in }
    ) throws -> PreferenceStore {
        var configuration = fixture.configuration
        if let handler { configuration.logger = Logger(label: "test") { _ in handler } }
        configure(&configuration)
        return try PreferenceStore(domain: domain, configuration: configuration)
    }

    static func historyDirectory(_ fixture: StoreFixture) -> String {
        "\(fixture.userDirectory)/.\(domain).plist.history"
    }

    /// The generation numbers kept on disk, ascending.
    static func kept(_ fixture: StoreFixture) -> [Int] {
        ((try? FileManager.default.contentsOfDirectory(atPath: historyDirectory(fixture))) ?? [])
            .compactMap { $0.hasSuffix(".plist") && !$0.hasPrefix("0") ? Int($0.dropLast(6)) : nil }.sorted()
    }

    static func inode(_ path: String) -> UInt64? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return UInt64(status.st_ino)
    }

    /// Commits `n = round` for each round, one flush each: one version, and so one generation
    /// kept by the next, per round.
    static func commit(_ store: PreferenceStore, rounds: ClosedRange<Int>) throws {
        for round in rounds {
            store.set(round, forKey: "n")
            try store.flush()
        }
    }

    @Test("each commit links the file it replaces into the history as the next generation; a removal too")
    func keptOnEachCommit() throws {
        let fixture = try StoreFixture()
        let store = try Self.store(fixture)
        let path = fixture.userFile(Self.domain)
        var inodes: [UInt64] = []
        for value in 1...3 {
            store.set(value, forKey: "n")
            try store.flush()
            inodes.append(try #require(Self.inode(path)))
        }
        #expect(Self.kept(fixture) == [1, 2])
        // Hard links, not copies: each generation is the very inode that was the domain file.
        #expect(Self.inode("\(Self.historyDirectory(fixture))/1.plist") == inodes[0])
        #expect(Self.inode("\(Self.historyDirectory(fixture))/2.plist") == inodes[1])
        #expect(permissions(of: Self.historyDirectory(fixture)) == 0o700)

        let versions = try Self.files(fixture).generations(at: .named(Self.domain))
        #expect(versions.map(\.number) == [3, 2, 1])
        #expect(versions.map(\.isCurrent) == [true, false, false])
        #expect(versions.map { $0.values?["n"] } == [3, 2, 1])
        #expect(versions.map(\.changedKeys) == [["n"], ["n"], ["n"]])
        #expect(versions.allSatisfy { $0.writer == .process(id: getpid(), unit: ProcessUnit.current) })
        #expect(versions.allSatisfy { $0.problem == nil && $0.date != nil })

        store.removeObject(forKey: "n")
        try store.flush()
        #expect(FileManager.default.fileExists(atPath: path) == false)
        #expect(Self.kept(fixture) == [1, 2, 3])
        #expect(Self.inode("\(Self.historyDirectory(fixture))/3.plist") == inodes[2])

        store.set("again", forKey: "n")
        try store.flush()
        let after = try Self.files(fixture).generations(at: .named(Self.domain))
        #expect(after.map(\.number) == [4, 3, 2, 1])
        #expect(after.first?.values == ["n": "again"])
    }

    @Test("numbering: the replaced file's recorded sequence if above every kept number, else the highest kept + 1")
    func numbering() throws {
        let fixture = try StoreFixture()
        let store = try Self.store(fixture)
        store.set(1, forKey: "n")
        try store.flush()
        // A generation numbered 7 that someone put there: numbers only grow past it.
        try FileManager.default.createDirectory(atPath: Self.historyDirectory(fixture), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(atPath: fixture.userFile(Self.domain), toPath: "\(Self.historyDirectory(fixture))/7.plist")
        store.set(2, forKey: "n")
        try store.flush()
        #expect(Self.kept(fixture) == [7, 8])
        store.set(3, forKey: "n")
        try store.flush()
        // The replaced file was written as 9, above every kept number: kept as 9.
        #expect(Self.kept(fixture) == [7, 8, 9])
        #expect(try Self.files(fixture).generations(at: .named(Self.domain)).first?.number == 10)
        // Names that are not generations are left alone and do not count.
        for name in ["notes.txt", "011.plist", "12.plist.tmp"] {
            try Data().write(to: URL(fileURLWithPath: "\(Self.historyDirectory(fixture))/\(name)"))
        }
        store.set(4, forKey: "n")
        try store.flush()
        #expect(Self.kept(fixture) == [7, 8, 9, 10])
    }

    @Test("a generation written by another process names that process's pid and unit")
    func writerProcess() throws {
        let fixture = try StoreFixture()
        let worker = try Subprocess(workerPath, ["set-keys", Self.domain, "w", "2"], environment: fixture.processEnvironment, output: .nullDevice)
        #expect(worker.wait() == 0)
        let store = try Self.store(fixture)
        store.set("mine", forKey: "t")
        try store.flush()
        let versions = try Self.files(fixture).generations(at: .named(Self.domain))
        #expect(versions.map(\.number) == [3, 2, 1])
        // The child runs in the test's own cgroup, so its unit is the test's.
        #expect(versions[0].writer == .process(id: getpid(), unit: ProcessUnit.current))
        #expect(versions[1].writer == .process(id: worker.pid, unit: ProcessUnit.current))
        #expect(versions[2].writer == .process(id: worker.pid, unit: ProcessUnit.current))
        #expect(versions[0].changedKeys == ["t"])
        #expect(versions[1].changedKeys == ["w1"])
    }

    @Test("commits from this process and another interleaved keep one generation each, numbered without gaps")
    func interleavedWriters() throws {
        let fixture = try StoreFixture()
        let store = try Self.store(fixture) { $0.generationLimit = 4 }
        for round in 0..<3 {
            store.set(round, forKey: "mine")
            try store.flush()
            let worker = try Subprocess(
                workerPath, ["set-keys", Self.domain, "w\(round)-", "1"], environment: fixture.processEnvironment, output: .nullDevice)
            #expect(worker.wait() == 0)
        }
        store.set(99, forKey: "mine")
        try store.flush()
        // 7 commits; the worker keeps its default bound of 32, this process 4: whoever commits
        // last prunes, and this process did.
        let versions = try Self.files(fixture).generations(at: .named(Self.domain))
        #expect(versions.map(\.number) == [7, 6, 5, 4, 3])
        #expect(versions.first?.values?["mine"] == 99)
        #expect(versions.allSatisfy { $0.problem == nil })
    }

    @Test("bounds by count: the oldest generations go first")
    func countBound() throws {
        let fixture = try StoreFixture()
        let store = try Self.store(fixture) { $0.generationLimit = 3 }
        try Self.commit(store, rounds: 1...8)
        #expect(Self.kept(fixture) == [5, 6, 7])
        let versions = try Self.files(fixture) { $0.generationLimit = 3 }.generations(at: .named(Self.domain))
        #expect(versions.map { $0.values?["n"] } == [8, 7, 6, 5])
    }

    @Test("bounds by bytes: the oldest go first, and the newest stays even alone over the limit")
    func byteBound() throws {
        let fixture = try StoreFixture()
        let payload = Data(count: 1_000)
        let fileSize = try BinaryPropertyListEncoder().encode(.dictionary(["blob": .data(payload), "n": 1])).count
        let store = try Self.store(fixture) { $0.generationByteLimit = 2 * fileSize + fileSize / 2 }
        for value in 1...6 {
            store.setPersistentDomain(["blob": payload, "n": value], forName: Self.domain)
            try store.flush()
        }
        #expect(Self.kept(fixture) == [4, 5])

        let tight = try StoreFixture()
        let small = try Self.store(tight) { $0.generationByteLimit = 1 }
        for value in 1...4 {
            small.setPersistentDomain(["blob": payload, "n": value], forName: Self.domain)
            try small.flush()
        }
        #expect(Self.kept(tight) == [3])
    }

    @Test("the generation a commit prunes becomes its new file, written over: the history and every version stay whole")
    func prunedGenerationRecycled() throws {
        let fixture = try StoreFixture()
        let store = try Self.store(fixture) { $0.generationLimit = 2 }
        let path = fixture.userFile(Self.domain)
        // Values of varying length, so a recycled file is both longer and shorter than what it
        // held: a shorter version must be cut, not left with the old tail.
        func value(_ round: Int) -> String { String(repeating: "v\(round)", count: round.isMultiple(of: 2) ? 400 : 3) }
        for round in 1...3 {
            store.set(value(round), forKey: "n")
            try store.flush()
        }
        #expect(Self.kept(fixture) == [1, 2])
        for round in 4...9 {
            let oldest = try #require(Self.inode("\(Self.historyDirectory(fixture))/\(round - 3).plist"))
            store.set(value(round), forKey: "n")
            try store.flush()
            // The pruned generation's inode now holds the new version under the domain's name.
            #expect(Self.inode(path) == oldest, "round \(round)")
            #expect(Self.kept(fixture) == [round - 2, round - 1], "round \(round)")
            let written = try #require(FileManager.default.contents(atPath: path))
            #expect(try BinaryPropertyListDecoder().decode(written) == .dictionary(["n": .string(value(round))]), "round \(round)")
        }
        let versions = try Self.files(fixture) { $0.generationLimit = 2 }.generations(at: .named(Self.domain))
        #expect(versions.map(\.number) == [9, 8, 7])
        #expect(versions.map { $0.values?["n"] } == [value(9), value(8), value(7)].map { PropertyListValue.string($0) })
        #expect(versions.allSatisfy { $0.problem == nil && $0.writer == .process(id: getpid(), unit: ProcessUnit.current) })
        #expect(permissions(of: path) == 0o600)
        // Nothing left behind in the staging directory.
        let staging = (try? FileManager.default.contentsOfDirectory(atPath: "\(fixture.userDirectory)/.swift-preferences-staging")) ?? []
        #expect(staging.isEmpty)
    }

    @Test("the newest generation is never written over: its replacing rename may not be durable yet")
    func newestGenerationNotRecycled() throws {
        let fixture = try StoreFixture()
        let store = try Self.store(fixture) { $0.generationLimit = 1 }
        for round in 1...6 {
            let previous = Self.kept(fixture).last.flatMap { Self.inode("\(Self.historyDirectory(fixture))/\($0).plist") }
            store.set(round, forKey: "n")
            try store.flush()
            if let previous { #expect(Self.inode(fixture.userFile(Self.domain)) != previous, "round \(round)") }
            #expect(Self.kept(fixture) == (round > 1 ? [round - 1] : []), "round \(round)")
        }
    }

    @Test("a generation with a second name made by hand is removed, never written over")
    func linkedGenerationNotRecycled() throws {
        let fixture = try StoreFixture()
        let store = try Self.store(fixture) { $0.generationLimit = 2 }
        try Self.commit(store, rounds: 1...3)
        let oldest = "\(Self.historyDirectory(fixture))/1.plist"
        let copy = "\(fixture.userDirectory)/kept-by-hand.plist"
        #expect(link(oldest, copy) == 0)
        let before = try #require(FileManager.default.contents(atPath: copy))
        let inode = try #require(Self.inode(copy))

        store.set(4, forKey: "n")
        try store.flush()
        #expect(Self.kept(fixture) == [2, 3])
        #expect(FileManager.default.contents(atPath: copy) == before)
        #expect(Self.inode(fixture.userFile(Self.domain)) != inode)
        #expect(try Self.files(fixture).persistentDomainValues(at: .named(Self.domain))?["n"] == 4)
    }

    @Test("a copy's temporary file left in the history by a writer that died is removed by the next commit; no other name is")
    func orphanedCopyRemoved() throws {
        let fixture = try StoreFixture()
        let store = try Self.store(fixture)
        try Self.commit(store, rounds: 1...2)
        let history = Self.historyDirectory(fixture)
        // What a crash between writing a copy (a redacted or purged generation) and renaming it leaves.
        let orphans = [".1.plist.4242-0.tmp", ".17.plist.1-23.tmp"]
        // Alike, but not of that exact form: someone else's, never touched.
        let others = [
            ".1.plist.tmp", "1.plist.4242-0.tmp", ".x.plist.4242-0.tmp", ".01.plist.4242-0.tmp", ".1.plist.4242-.tmp",
            ".1.plist.42-42-0.tmp", ".1.plist.4242-0.tmp~", ".1.plist.4242-0.tmp.bak", "notes.txt",
        ]
        // Left a clock tick after the last commit, as a crash leaves them: the directory's times
        // then show this process's remembered listing to be stale, and the commit lists it.
        Thread.sleep(forTimeInterval: 0.05)
        for name in orphans + others {
            #expect(FileManager.default.createFile(atPath: "\(history)/\(name)", contents: Data("x".utf8)))
        }

        try Self.commit(store, rounds: 3...3)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: history))
        #expect(names.isDisjoint(with: orphans))
        #expect(names.isSuperset(of: others))
        #expect(Self.kept(fixture) == [1, 2])
    }

    @Test("a generation written over by a commit while it is read is dropped, never listed with the new version's values")
    func readOfRecycledGeneration() throws {
        let fixture = try StoreFixture()
        let store = try Self.store(fixture) { $0.generationLimit = 2 }
        try Self.commit(store, rounds: 1...4)
        #expect(Self.kept(fixture) == [2, 3])
        // Between the open of generation 2 and the read of its bytes, a commit keeps 4 and
        // prunes 2 by writing version 5 over its file: what was opened as generation 2 then
        // holds n = 5.
        let generation2 = "\(Self.historyDirectory(fixture))/2.plist"
        let inode = try #require(Self.inode(generation2))
        Interleaving.run({
            store.set(5, forKey: "n")
            try? store.flush()
        }, once: .afterOpening, at: generation2)
        let versions = try Self.files(fixture) { $0.generationLimit = 2 }.generations(at: .named(Self.domain))
        #expect(Self.inode(fixture.userFile(Self.domain)) == inode, "the commit recycled generation 2")
        #expect(!versions.isEmpty)
        for version in versions {
            #expect(version.values?["n"] == .integer(PropertyListInteger(version.number)), "version \(version.number)")
        }
        #expect(!versions.contains { $0.number == 2 })
    }

    @Test("a generation limit of 0 keeps none and makes no history directory")
    func disabled() throws {
        let fixture = try StoreFixture()
        let store = try Self.store(fixture) { $0.generationLimit = 0 }
        try Self.commit(store, rounds: 1...3)
        #expect(!FileManager.default.fileExists(atPath: Self.historyDirectory(fixture)))
        // The writer is still recorded.
        let versions = try Self.files(fixture) { $0.generationLimit = 0 }.generations(at: .named(Self.domain))
        #expect(versions.map(\.number) == [3])
        #expect(versions.first?.writer == .process(id: getpid(), unit: ProcessUnit.current))
    }

    /// What is planted at the history directory's name.
    enum PlantedHistory: String, CaseIterable, CustomTestStringConvertible {
        case symbolicLink = "a symbolic link to a directory"
        case worldWritable = "a directory of mode 0777"
        case groupWritable = "a directory of mode 0770"
        case regularFile = "a regular file"
        var testDescription: String { rawValue }
    }

    @Test("a refused history directory keeps no generation, warns once, and the writes still succeed", arguments: PlantedHistory.allCases)
    func refusedDirectory(planted: PlantedHistory) throws {
        let fixture = try StoreFixture()
        let history = Self.historyDirectory(fixture)
        let elsewhere = fixture.directory.file("elsewhere").path
        try FileManager.default.createDirectory(atPath: fixture.userDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        switch planted {
        case .symbolicLink:
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try check(symlink(elsewhere, history), "symlink")
        case .worldWritable, .groupWritable:
            try FileManager.default.createDirectory(atPath: history, withIntermediateDirectories: false)
            try check(chmod(history, planted == .worldWritable ? 0o777 : 0o770), "chmod")
        case .regularFile:
            try Data("not a directory".utf8).write(to: URL(fileURLWithPath: history))
        }
        let log = InMemoryLogHandler()
        let store = try Self.store(fixture, logging: log)
        try Self.commit(store, rounds: 1...3)
        #expect(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain)) == ["n": 3])
        let warnings = log.entries.filter { $0.metadata["MESSAGE_ID"] == .string(PreferencesLogEvent.historyUnusable.messageID) }
        #expect(warnings.count == 1, "\(log.entries.map(\.message))")
        #expect(warnings.first?.level == .warning)
        #expect(warnings.first?.metadata["PREFERENCES_HISTORY_PATH"] == .string(history))
        switch planted {
        case .symbolicLink:
            #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
        case .worldWritable, .groupWritable:
            #expect(try FileManager.default.contentsOfDirectory(atPath: history).isEmpty)
        case .regularFile:
            #expect(FileManager.default.contents(atPath: history) == Data("not a directory".utf8))
        }
        // Listing refuses it too, naming it.
        #expect {
            try Self.files(fixture).generations(at: .named(Self.domain))
        } throws: { error in
            (error as? PreferencesError)?.path == history
        }
    }

    @Test("a history directory owned by another user is refused", .enabled(if: geteuid() == 0, "needs root to chown a directory to another user"))
    func foreignOwner() throws {
        let fixture = try StoreFixture()
        let history = Self.historyDirectory(fixture)
        try FileManager.default.createDirectory(atPath: history, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try check(chown(history, 65534, 65534), "chown")
        let store = try Self.store(fixture)
        try Self.commit(store, rounds: 1...2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: history).isEmpty)
        #expect(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain)) == ["n": 2])
    }

    @Test("a file with no commit record (another program's, or without user xattrs) has an unknown writer")
    func noRecord() throws {
        let fixture = try StoreFixture()
        let path = fixture.userFile(Self.domain)
        try fixture.plant(["planted": true], at: path)
        #expect(try Self.files(fixture).generations(at: .named(Self.domain)).first?.writer == .unknown)
        let store = try Self.store(fixture)
        store.set(1, forKey: "n")
        try store.flush()
        // A library file whose attribute is gone, as on a file system without user xattrs.
        try check(removeExtendedAttribute(path, CommitRecord.attributeName), "removexattr")
        let versions = try Self.files(fixture).generations(at: .named(Self.domain))
        #expect(versions.map(\.number) == [2, 1])
        #expect(versions.map(\.writer) == [.unknown, .unknown])
        #expect(versions.map(\.changedKeys) == [["n"], ["planted"]])
        // Without a record the next number is still the highest kept + 1.
        store.set(2, forKey: "n")
        try store.flush()
        #expect(Self.kept(fixture) == [1, 2])
    }

    @Test("a file rewritten in place keeps its record but not its time: edited outside the library")
    func editedInPlace() throws {
        let fixture = try StoreFixture()
        let store = try Self.store(fixture)
        try Self.commit(store, rounds: 1...2)
        let path = fixture.userFile(Self.domain)
        // In place, as an editor or `cat >` does: the inode, and its attribute, stay.
        let inodeBefore = Self.inode(path)
        try fixture.plant(["n": 42, "by": "hand"], at: path)
        #expect(Self.inode(path) == inodeBefore)
        let versions = try Self.files(fixture).generations(at: .named(Self.domain))
        #expect(versions.first?.writer == .editedOutsideLibrary)
        #expect(versions.first?.changedKeys == ["by", "n"])
        #expect(versions.first?.number == 2)
        // Its record no longer counts: it is kept as the highest + 1, which is the same here.
        try Self.files(fixture).setValues(["after": true], at: .named(Self.domain))
        let after = try Self.files(fixture).generations(at: .named(Self.domain))
        #expect(after.map(\.number) == [3, 2, 1])
        #expect(after[1].writer == .editedOutsideLibrary)
        #expect(after[1].values == ["n": 42, "by": "hand"])
    }

    @Test("generation files are read as domain files are: a link or a group-writable one is listed with its problem")
    func unsafeGenerations() throws {
        let fixture = try StoreFixture()
        let store = try Self.store(fixture)
        try Self.commit(store, rounds: 1...3)
        let history = Self.historyDirectory(fixture)
        let secret = fixture.directory.file("secret.plist").path
        try Data(try BinaryPropertyListEncoder().encode(.dictionary(["secret": true]))).write(to: URL(fileURLWithPath: secret))
        try check(unlink("\(history)/1.plist"), "unlink")
        try check(symlink(secret, "\(history)/1.plist"), "symlink")
        try check(chmod("\(history)/2.plist", 0o620), "chmod")
        let versions = try Self.files(fixture).generations(at: .named(Self.domain))
        #expect(versions.map(\.number) == [3, 2, 1])
        #expect(versions[1].problem?.code == .insecurePermissions)
        #expect(versions[2].problem?.code == .symbolicLink)
        #expect(versions[2].values == nil)
        #expect(throws: PreferencesError.self) { try Self.files(fixture).restore(generation: 1, at: .named(Self.domain)) }
        #expect(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain)) == ["n": 3])
    }

    @Test("the commit record's text reads back, and anything else is no record")
    func recordText() {
        let record = CommitRecord(sequence: 12, processID: 345, unit: "foo.service", modificationTime: 1_700_000_000_123_456_789)
        #expect(String(decoding: record.encoded, as: UTF8.self) == "1 12 345 1700000000123456789 foo.service")
        #expect(CommitRecord(decoding: record.encoded) == record)
        let bare = CommitRecord(sequence: 1, processID: 2, unit: nil, modificationTime: 3)
        #expect(CommitRecord(decoding: bare.encoded) == bare)
        for text in ["", "1 2 3 4", "2 1 2 3 -", "1 0 2 3 -", "1 x 2 3 -", "1 1 2 3 ", "1 1 -2 3 -"] {
            #expect(CommitRecord(decoding: Array(text.utf8)) == nil, "\(text)")
        }
        #expect(ProcessUnit.unit(fromCgroupFile: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service\n") == "foo.service")
        #expect(ProcessUnit.unit(fromCgroupFile: "12:pids:/\n1:name=systemd:/user.slice/session-2.scope\n") == "session-2.scope")
        #expect(ProcessUnit.unit(fromCgroupFile: "0::/\n") == nil)
        #expect(ProcessUnit.unit(fromCgroupFile: "0::/system.slice/foo.service/worker\n") == nil)
    }
}

/// glibc's `removexattr`, which the Glibc module does not import.
@_silgen_name("removexattr")
private func glibcRemoveExtendedAttribute(_ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>) -> CInt

/// Removes an extended attribute of a file; -1 with errno set on failure.
func removeExtendedAttribute(_ path: String, _ name: String) -> Int32 {
    path.withCString { path in name.withCString { glibcRemoveExtendedAttribute(path, $0) } }
}
