import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

@testable import Preferences

@Suite("Domain files", .ownThread)
struct DomainFileTests {
    /// Values of every property-list type, with keys that need no escaping anywhere.
    static let sampleValues: [String: PropertyListValue] = [
        "string": "hello",
        "integer": 42,
        "negative": -7,
        "bool": true,
        "double": 2.5,
        "data": .data(Data([0, 1, 2, 255])),
        "date": .date(Date(timeIntervalSinceReferenceDate: 12345)),
        "array": ["a", 1, false],
        "dictionary": ["nested": ["deeper": "yes"]],
        "key.with.dots @ and spaces": "ok",
        "naïve ключ 🚀": "unicode",
    ]

    @Test("the path joins the directory and the file name, and the lock file is hidden beside it")
    func paths() {
        let file = DomainFile(directory: "/var/prefs/", fileName: "com.example.plist")
        #expect(file.path == "/var/prefs/com.example.plist")
        #expect(file.lockPath == "/var/prefs/.com.example.plist.lock")
        #expect(DomainFile(directory: "/", fileName: ".GlobalPreferences.plist").path == "/.GlobalPreferences.plist")
    }

    @Test("a missing file reads as nil and has no identity")
    func missing() throws {
        let fixture = try DomainFileFixture()
        #expect(try fixture.file.read(policy: FilePolicy()) == nil)
        #expect(fixture.file.identity() == nil)
        #expect(fixture.entries.isEmpty)
    }

    @Test("values written by an update read back equal, with the identity and size on disk")
    func roundTrip() throws {
        let fixture = try DomainFileFixture()
        let (count, written, _) = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { values in
            values = Self.sampleValues
            return values.count
        }
        #expect(count == Self.sampleValues.count)
        let contents = try #require(written)
        #expect(contents.values == Self.sampleValues)
        #expect(try fixture.file.read(policy: FilePolicy()) == contents)
        #expect(fixture.file.identity() == contents.identity)
        #expect(Int64(contents.byteCount) == FileSnapshot(fixture.file.path)?.size)
        #expect(fixture.entries == [".com.example.plist.lock", "com.example.plist"])
    }

    @Test("an update creates missing directories 0700 and writes the domain and lock files 0600")
    func modes() throws {
        let fixture = try DomainFileFixture(subdirectory: "a/b")
        _ = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["key"] = "value" }
        #expect(permissions(of: fixture.directory + "/a") == 0o700)
        #expect(permissions(of: fixture.directory + "/a/b") == 0o700)
        #expect(permissions(of: fixture.file.path) == 0o600)
        #expect(permissions(of: fixture.file.lockPath) == 0o600)
    }

    @Test("a hand-written file with a looser but safe mode is replaced by one with mode 0600")
    func rewrittenMode() throws {
        let fixture = try DomainFileFixture()
        try fixture.plant(["a": 1], mode: 0o644)
        #expect(try fixture.file.read(policy: FilePolicy())?.values == ["a": 1])
        _ = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["b"] = 2 }
        #expect(permissions(of: fixture.file.path) == 0o600)
    }

    @Test("without createsDirectory a missing directory is an error and is not created")
    func noDirectoryCreation() throws {
        let fixture = try DomainFileFixture(subdirectory: "missing")
        let error = #expect(throws: PreferencesError.self) {
            try fixture.file.update(policy: FilePolicy(createsDirectory: false), recovering: [:]) { $0["a"] = 1 }
        }
        #expect(error?.code == .io)
        #expect(error?.errno == ENOENT)
        #expect(error?.path == fixture.file.directory)
        #expect(!FileManager.default.fileExists(atPath: fixture.file.directory))
    }

    @Test("each write gives the file a new identity, which identity() then reports")
    func identityChanges() throws {
        let fixture = try DomainFileFixture()
        let first = try #require(try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["a"] = 1 }.contents)
        #expect(fixture.file.identity() == first.identity)
        let second = try #require(try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["a"] = 2 }.contents)
        #expect(second.identity != first.identity)
        #expect(fixture.file.identity() == second.identity)
        #expect(try fixture.file.read(policy: FilePolicy())?.values == ["a": 2])
    }

    @Test("a file rewritten in place within one clock tick, keeping size and times, is still read again")
    func raciedRewriteIsNotTrusted() throws {
        let fixture = try DomainFileFixture()
        let policy = FilePolicy()
        _ = try fixture.file.update(policy: policy, recovering: [:]) { $0["k"] = "aaaa" }
        // Another program rewrites the file in place with a value of the same length. Its
        // timestamps may or may not move within the clock's tick, so the test makes what
        // this process knows carry the identity the file has now, as an unchanged
        // timestamp would, with the fingerprint of the old bytes.
        let oldBytes = try BinaryPropertyListEncoder().encode(["k": "aaaa"])
        let newBytes = try BinaryPropertyListEncoder().encode(["k": "bbbb"])
        #expect(oldBytes.count == newBytes.count)
        try fixture.plant(newBytes)
        let identity = try #require(fixture.file.identity())
        let stale = DomainContents(
            values: ["k": "aaaa"], identity: identity, digest: ContentDigest(of: oldBytes),
            observedAt: identity.statusChangeTime)
        #expect(!stale.isSettled, "a version observed within the clock's tick is not settled")
        #expect(fixture.file.stillHolds(stale, policy: policy) == nil)
        let seen = try fixture.file.update(policy: policy, recovering: [:], known: stale) { values in values["k"] }
        #expect(seen.result == "bbbb", "the update decoded the file again instead of trusting the identity")
        #expect(try fixture.file.read(policy: policy)?.values == ["k": "bbbb"])
    }

    @Test("a file this process wrote is trusted by identity alone at once, and a same-size rewrite in place right after is still seen")
    func ownWriteIsSettled() throws {
        let fixture = try DomainFileFixture()
        let policy = FilePolicy()
        let written = try #require(try fixture.file.update(policy: policy, recovering: [:]) { $0["k"] = "aaaa" }.contents)
        // The writer stamped the file with a modification time no later write reproduces, so
        // its own write is confirmed without reading it again.
        #expect(written.isSettled, "a file this process has just written is settled")
        #expect(fixture.file.stillHolds(written, policy: policy) == written)
        // Another program rewrites it in place with a value of the same length, at once
        // (within the file system clock's tick): the kernel's timestamp replaces ours.
        try fixture.plant(BinaryPropertyListEncoder().encode(["k": "bbbb"]))
        #expect(fixture.file.identity()?.size == written.identity.size)
        #expect(fixture.file.stillHolds(written, policy: policy) == nil, "the rewrite in place went unseen")
        let seen = try fixture.file.update(policy: policy, recovering: [:], known: written) { values in values["k"] }
        #expect(seen.result == "bbbb")
    }

    @Test("a version read from disk is confirmed by its bytes until a clock tick has passed, then by identity alone")
    func settledVersionIsTrusted() throws {
        let fixture = try DomainFileFixture()
        let policy = FilePolicy()
        try fixture.plant(["k": "aaaa"])
        let read = try #require(try fixture.file.read(policy: policy))
        let confirmed = try #require(fixture.file.stillHolds(read, policy: policy))
        #expect(confirmed.values == read.values)
        let later = DomainContents(
            values: read.values, identity: read.identity, digest: read.digest,
            observedAt: max(read.identity.modificationTime, read.identity.statusChangeTime) + FileIdentity.timestampGranularity)
        #expect(later.isSettled)
        #expect(fixture.file.stillHolds(later, policy: policy) == later)
    }

    @Test("an update that changes nothing writes nothing")
    func unchanged() throws {
        let fixture = try DomainFileFixture()
        let written = try #require(try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["a"] = 1 }.contents)
        let before = try #require(FileSnapshot(fixture.file.path))
        let again = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["a"] = 1 }.contents
        #expect(again == written)
        #expect(FileSnapshot(fixture.file.path) == before)
        #expect(fixture.file.identity() == written.identity)
    }

    @Test("an update that leaves a missing file empty creates no file")
    func unchangedMissing() throws {
        let fixture = try DomainFileFixture()
        let contents = try fixture.file.update(policy: FilePolicy(), recovering: ["ignored": 1]) { _ in }.contents
        #expect(contents == nil)
        #expect(fixture.entries == [".com.example.plist.lock"])
    }

    @Test("an update whose result is empty removes the file instead of writing an empty one")
    func emptyRemoves() throws {
        let fixture = try DomainFileFixture()
        _ = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0 = ["a": 1, "b": 2] }
        let contents = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0.removeAll() }.contents
        #expect(contents == nil)
        #expect(fixture.file.identity() == nil)
        #expect(try fixture.file.read(policy: FilePolicy()) == nil)
        // The removed file is kept as a generation.
        #expect(fixture.entries == [".com.example.plist.history", ".com.example.plist.lock"])
    }

    @Test("reading a hazardous file gives its clear error and leaves the file untouched", arguments: Hazard.allCases)
    func readRefuses(hazard: Hazard) throws {
        let fixture = try DomainFileFixture()
        let policy = try hazard.plant(in: fixture)
        let before = try #require(FileSnapshot(fixture.file.path))
        let entries = fixture.entries

        let error = #expect(throws: PreferencesError.self) { try fixture.file.read(policy: policy) }

        #expect(error?.code == hazard.code)
        #expect(error?.path == fixture.file.path)
        #expect(error?.description.contains(hazard.words) == true, "\(String(describing: error))")
        #expect(error?.description.contains(fixture.file.path) == true)
        #expect(FileSnapshot(fixture.file.path) == before)
        #expect(fixture.entries == entries)
    }

    @Test("the symbolic-link error carries ELOOP and the link's target is untouched")
    func symbolicLinkTarget() throws {
        let fixture = try DomainFileFixture()
        _ = try Hazard.symbolicLink.plant(in: fixture)
        let target = try #require(FileSnapshot(fixture.directory + "/elsewhere.plist"))
        let error = #expect(throws: PreferencesError.self) { try fixture.file.read(policy: FilePolicy()) }
        #expect(error?.errno == ELOOP)
        #expect(FileSnapshot(fixture.directory + "/elsewhere.plist") == target)
    }

    @Test(
        "an update refuses an unsafe file, throws its error and changes nothing",
        arguments: Hazard.allCases.filter { !$0.isCorrupt && $0 != .otherOwner })
    func updateRefusesUnsafe(hazard: Hazard) throws {
        try checkUpdateRefuses(hazard)
    }

    // Apart from the other hazards: without CAP_CHOWN, `Hazard.plant` stands in for a file
    // of another user by trusting only another user, and that refuses the directory before
    // the update takes the lock, so the lock file this test expects is never made.
    @Test(
        "an update refuses a file owned by another user, throws its error and changes nothing",
        .enabled(if: Privileges.canChangeOwners, "needs CAP_CHOWN (root) to give the domain file to another user"))
    func updateRefusesOtherOwner() throws {
        try checkUpdateRefuses(.otherOwner)
    }

    /// Plants `hazard` and checks that an update throws its error, leaves the file as it
    /// was and adds only the lock file.
    func checkUpdateRefuses(_ hazard: Hazard) throws {
        let fixture = try DomainFileFixture()
        let policy = try hazard.plant(in: fixture)
        let before = try #require(FileSnapshot(fixture.file.path))
        let entries = fixture.entries

        let error = #expect(throws: PreferencesError.self) {
            try fixture.file.update(policy: policy, recovering: ["fallback": 1]) { $0["new"] = "value" }
        }

        #expect(error?.code == hazard.code)
        #expect(FileSnapshot(fixture.file.path) == before)
        #expect(fixture.entries == (entries + [".com.example.plist.lock"]).sorted())
    }

    @Test(
        "an update keeps a corrupt file aside with its bytes and writes the new values over the fallback",
        arguments: Hazard.allCases.filter(\.isCorrupt))
    func updateRecoversCorrupt(hazard: Hazard) throws {
        let fixture = try DomainFileFixture()
        let policy = try hazard.plant(in: fixture)
        let original = try #require(FileSnapshot(fixture.file.path)?.bytes)

        let (count, written, _) = try fixture.file.update(policy: policy, recovering: ["kept": "last good"]) { values in
            values["new"] = 1
            return values.count
        }

        #expect(count == 2)
        let expected: [String: PropertyListValue] = ["kept": "last good", "new": 1]
        #expect(written?.values == expected)
        #expect(try fixture.file.read(policy: policy) == written)
        let aside = fixture.entries.filter { $0.contains(".corrupt-") }
        try #require(aside.count == 1)
        #expect(aside[0].wholeMatch(of: #/com\.example\.plist\.corrupt-\d{8}T\d{6}/#) != nil, "\(aside[0])")
        #expect(FileSnapshot(fixture.file.directory + "/" + aside[0])?.bytes == original)
        #expect(fixture.entries == [".com.example.plist.lock", "com.example.plist", aside[0]])
    }

    @Test("a second corrupt file is kept aside under its own name, never over the first")
    func corruptTwice() throws {
        let fixture = try DomainFileFixture()
        let array = try BinaryPropertyListEncoder().encode(["array"])
        try fixture.plant(garbageBytes)
        _ = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["first"] = 1 }
        try fixture.plant(array)
        _ = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["second"] = 2 }

        let aside = fixture.entries.filter { $0.contains(".corrupt-") }
        try #require(aside.count == 2)
        let kept = Set(aside.compactMap { FileSnapshot(fixture.file.directory + "/" + $0)?.bytes })
        #expect(kept == [garbageBytes, array])
        #expect(try fixture.file.read(policy: FilePolicy())?.values == ["second": 2])
    }

    @Test("a corrupt file that an update leaves empty is kept aside and the domain file removed")
    func corruptEmptied() throws {
        let fixture = try DomainFileFixture()
        try fixture.plant(garbageBytes)
        let contents = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { _ in }.contents
        #expect(contents == nil)
        #expect(fixture.file.identity() == nil)
        let aside = fixture.entries.filter { $0.contains(".corrupt-") }
        try #require(aside.count == 1)
        #expect(FileSnapshot(fixture.file.directory + "/" + aside[0])?.bytes == garbageBytes)
    }

    @Test("a new encoding over the size limit throws tooLarge and leaves the old file byte-identical")
    func encodingTooLarge() throws {
        let fixture = try DomainFileFixture()
        let policy = FilePolicy(sizeLimit: 256)
        _ = try fixture.file.update(policy: policy, recovering: [:]) { $0["small"] = "value" }
        let before = try #require(FileSnapshot(fixture.file.path))

        let error = #expect(throws: PreferencesError.self) {
            try fixture.file.update(policy: policy, recovering: [:]) { $0["blob"] = .data(Data(repeating: 0xAB, count: 1000)) }
        }

        #expect(error?.code == .tooLarge)
        #expect(error?.description.contains("over the limit of 256 bytes") == true, "\(String(describing: error))")
        #expect(FileSnapshot(fixture.file.path) == before)
        #expect(fixture.entries == [".com.example.plist.lock", "com.example.plist"])
    }

    @Test("when the body throws, nothing is written and the lock is released")
    func bodyThrows() throws {
        let fixture = try DomainFileFixture()
        let policy = FilePolicy(lockTimeout: .milliseconds(500))
        _ = try fixture.file.update(policy: policy, recovering: [:]) { $0["a"] = 1 }
        let before = try #require(FileSnapshot(fixture.file.path))

        let error = #expect(throws: PreferencesError.self) {
            try fixture.file.update(policy: policy, recovering: [:]) { values throws(PreferencesError) in
                values["b"] = 2
                throw PreferencesError(.io, "the body gave up")
            }
        }
        #expect(error?.reason == "the body gave up")
        #expect(FileSnapshot(fixture.file.path) == before)
        // A lock left held by the failed update would make this one time out: flock
        // excludes separate descriptors even within one process.
        _ = try fixture.file.update(policy: policy, recovering: [:]) { $0["c"] = 3 }
        #expect(try fixture.file.read(policy: policy)?.values == ["a": 1, "c": 3])
    }

    @Test("an update removes temporary files that killed writers left behind, and only those")
    func orphanedTemporaryFiles() throws {
        let fixture = try DomainFileFixture()
        try fixture.plant(["a": 1])
        let orphans = [".com.example.plist.tmp-4242-0", ".com.example.plist.tmp-1-17"]
        // Another domain's temporary file can start with this domain's prefix; it must survive.
        let others = [
            ".com.example.plist.tmp-1.x.plist.tmp-5-0", ".org.example.plist.tmp-1-1", ".com.example.plist.tmp-",
        ]
        // Orphans beside the file (where writers without a usable staging directory, and
        // earlier versions, make them) and in the staging directory.
        try FileManager.default.createDirectory(atPath: fixture.file.stagingDirectory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        for name in orphans + others {
            try Data("partial".utf8).write(to: URL(fileURLWithPath: fixture.file.directory + "/" + name))
        }
        for name in orphans + [".org.example.plist.tmp-1-1"] {
            try Data("partial".utf8).write(to: URL(fileURLWithPath: fixture.file.stagingDirectory + "/" + name))
        }

        _ = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["b"] = 2 }

        let staged = DomainFile.stagingDirectoryName + "/.org.example.plist.tmp-1-1"
        #expect(fixture.entries == (others + [staged, ".com.example.plist.history", ".com.example.plist.lock", "com.example.plist"]).sorted())
        #expect(try fixture.file.read(policy: FilePolicy())?.values == ["a": 1, "b": 2])
    }

    @Test("a symbolic link at the lock file is refused and its target untouched")
    func lockFileSymbolicLink() throws {
        let fixture = try DomainFileFixture()
        let target = fixture.directory + "/target"
        try Data("target".utf8).write(to: URL(fileURLWithPath: target))
        try check(symlink(target, fixture.file.lockPath), "symlink")
        let before = try #require(FileSnapshot(target))

        let error = #expect(throws: PreferencesError.self) {
            try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["a"] = 1 }
        }

        #expect(error?.code == .symbolicLink)
        #expect(error?.path == fixture.file.lockPath)
        #expect(FileSnapshot(target) == before)
        #expect(fixture.file.identity() == nil)
    }

    @Test("an update times out while another process holds the lock, and succeeds once it exits")
    func lockTimeout() throws {
        let flock = try #require(installedProgram("flock"), "util-linux flock is needed")
        let fixture = try DomainFileFixture()
        _ = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["a"] = 1 }

        // The holder prints only once flock has the lock, then keeps it until its input closes.
        let holder = try Subprocess(flock, [fixture.file.lockPath, "sh", "-c", "echo locked; read line; true"], input: .pipe)
        func release() {
            holder.closeInput()
            holder.wait()
        }
        defer { release() }
        try #require(holder.nextLine() == "locked")

        let error = #expect(throws: PreferencesError.self) {
            try fixture.file.update(policy: FilePolicy(lockTimeout: .milliseconds(200)), recovering: [:]) { $0["b"] = 2 }
        }
        #expect(error?.code == .lockTimeout)
        #expect(error?.path == fixture.file.lockPath)
        #expect(try fixture.file.read(policy: FilePolicy())?.values == ["a": 1])

        release()
        #expect(holder.terminationStatus == 0)
        _ = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["b"] = 2 }
        #expect(try fixture.file.read(policy: FilePolicy())?.values == ["a": 1, "b": 2])
    }

    @Test("updates from many threads at once lose no key")
    func concurrentUpdates() throws {
        let fixture = try DomainFileFixture()
        let file = fixture.file
        let threads = 8
        let updatesPerThread = 100
        let failures = Mutex<[String]>([])
        onThreads(threads) { thread in
            for update in 0..<updatesPerThread {
                do {
                    _ = try file.update(policy: FilePolicy(), recovering: [:]) { values in
                        values["thread \(thread) update \(update)"] = .integer(PropertyListInteger(update))
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        let failed = failures.withLock { $0 }
        #expect(failed.isEmpty, "\(failed.count) updates failed, the first with: \(failed.first ?? "")")
        let values = try #require(try file.read(policy: FilePolicy())?.values)
        let expected = Set((0..<threads).flatMap { thread in (0..<updatesPerThread).map { "thread \(thread) update \($0)" } })
        let lost = expected.subtracting(values.keys)
        #expect(lost.isEmpty, "\(lost.count) keys were lost, among them \(lost.sorted().prefix(3))")
        #expect(values.count == threads * updatesPerThread)
        #expect(fixture.entries == [".com.example.plist.history", ".com.example.plist.lock", "com.example.plist"])
    }
}
