// Transactions, fresh reads, history (undo and restore) and last-good recovery through the
// public API only, as a user reads TransactionsHistoryAndRecovery.md, GettingStarted.md and
// PortingFromUserDefaults.md: written as a user's review of issue 18, and kept.
import Foundation
import Glibc
import Preferences
import Synchronization
import Testing
import TestSupport

/// Counts and keeps what observers and notifications delivered, from any thread.
fileprivate final class APIChangeRecorder: Sendable {
    private let changes = Mutex<[PreferenceChange]>([])
    private let posts = Mutex(0)
    func record(_ change: PreferenceChange) { changes.withLock { $0.append(change) } }
    func post() { posts.withLock { $0 += 1 } }
    var recorded: [PreferenceChange] { changes.withLock { $0 } }
    var postCount: Int { posts.withLock { $0 } }
}

fileprivate struct APIRefusal: Error, Equatable {}

fileprivate struct APITheme: Codable, Sendable, Equatable, PreferenceValue {
    var name: String
    var fontSize: Double
}

@Suite("Transactions, fresh reads, history and recovery through the public API", .ownThread)
struct PublicAPITests {
    static let domain = "com.example.test"
    // A valid name: it cannot fail.
    let domainLocation = try! PersistentDomainLocation.named("com.example.test")

    // MARK: Helpers

    func files(_ fixture: StoreFixture, _ configuration: PreferenceStore.Configuration? = nil) -> PreferenceFiles {
        PreferenceFiles(configuration: configuration ?? fixture.configuration)
    }

    func location(_ domain: String = Self.domain) throws -> PersistentDomainLocation {
        try PersistentDomainLocation.named(domain)
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    func inode(_ path: String) -> Int? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.systemFileNumber] as? NSNumber)?.intValue
    }

    /// How many versions of the test domain `generations(at:)` lists (the current file included).
    func versionCount(_ fixture: StoreFixture) throws -> Int {
        try files(fixture).generations(at: location()).count
    }

    /// Records every change `store` delivers until the observation is cancelled.
    fileprivate func recordingAllChanges(of store: PreferenceStore) -> (APIChangeRecorder, PreferenceObservation) {
        let recorder = APIChangeRecorder()
        return (recorder, store.observe { recorder.record($0) })
    }

    /// Starts counting `didChangeNotification` posts for `store`; the token must be removed.
    fileprivate func countPosts(of store: PreferenceStore, into recorder: APIChangeRecorder) -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: PreferenceStore.didChangeNotification, object: store, queue: nil) { _ in
            recorder.post()
        }
    }

    /// Runs the worker, expecting success.
    func worker(_ fixture: StoreFixture, _ arguments: [String]) throws {
        let result = try run(workerPath, arguments, environment: fixture.processEnvironment)
        #expect(result.status == 0, "worker \(arguments): \(result.output)")
    }

    /// Three commits by another process (k0; k0 k1; k0 k1 k2), so generations 1 and 2 are
    /// kept, then the domain file cut down to `length` bytes in place, as a crash of an editor
    /// or a bad disk would leave it. Returns the file's path and the damaged bytes.
    func corruptDomain(_ fixture: StoreFixture, keepingBytes length: (Int) -> Int) throws -> (path: String, damaged: Data) {
        try worker(fixture, ["set-keys", Self.domain, "k", "3"])
        let path = fixture.userFile(Self.domain)
        let whole = try #require(bytes(path))
        let damaged = whole.prefix(length(whole.count))
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        return (path, Data(damaged))
    }

    // MARK: Transactions

    @Test("the body reads the file as another process left it, this process's pending sets and its own changes; the result passes through")
    func bodyReads() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set("seed", forKey: "seed")
        try store.flush()
        store.set("mine", forKey: "local")  // pending, not flushed
        try worker(fixture, ["set-keys", Self.domain, "w", "2"])
        let result = try store.transaction { t -> Int in
            #expect(t.integer(forKey: "w1") == 1, "another process's committed value")
            #expect(t.string(forKey: "local") == "mine", "this process's pending change")
            t.set("new", forKey: "a")
            #expect(t.string(forKey: "a") == "new", "the body's own change")
            t.removeObject(forKey: "w0")
            #expect(t.object(forKey: "w0") == nil)
            return 42
        }
        #expect(result == 42)
        let disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain)))
        #expect(disk == ["seed": "seed", "local": "mine", "w1": 1, "a": "new"])
        #expect(store.string(forKey: "a") == "new" && store.object(forKey: "w0") == nil && store.integer(forKey: "w1") == 1)
    }

    @Test("a throwing body changes nothing: same error, same bytes, no generation, no observer call, no notification")
    func throwingBody() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set(1, forKey: "width")
        try store.flush()
        let path = fixture.userFile(Self.domain)
        let before = bytes(path)
        let versions = try versionCount(fixture)
        let (recorder, observation) = recordingAllChanges(of: store)
        let token = countPosts(of: store, into: recorder)
        defer {
            observation.cancel()
            NotificationCenter.default.removeObserver(token)
        }
        #expect(throws: APIRefusal.self) {
            try store.transaction { t in
                t.set(2, forKey: "width")
                t.set(3, forKey: "height")
                throw APIRefusal()
            }
        }
        #expect(bytes(path) == before)
        #expect(try versionCount(fixture) == versions)
        #expect(recorder.recorded.isEmpty && recorder.postCount == 0)
        #expect(store.integer(forKey: "width") == 1 && store.object(forKey: "height") == nil)
        // A pending set made before the failed transaction is still written.
        store.set("kept", forKey: "pending")
        _ = try? store.transaction { _ in throw APIRefusal() }
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: path)?["pending"] == .string("kept"))
        // The next transaction works as if nothing happened.
        try store.transaction { t in t.set(t.integer(forKey: "width") + 1, forKey: "width") }
        #expect(store.integer(forKey: "width") == 2)
    }

    // A body that throws, or a transaction too large to write, leaves the file as good as it
    // was: it must not be listed as a problem (it once was, as `io` and `tooLarge`).
    @Test("after a throwing body or an oversized transaction the file is not reported as a problem")
    func throwingBodyLeavesNoFileProblem() throws {
        let fixture = try StoreFixture()
        let store = try PreferenceStore(
            domain: Self.domain,
            configuration: .init(environment: fixture.environment, arguments: ["test"], sizeLimit: 4096, softSizeLimit: 2048))
        store.set(1, forKey: "width")
        try store.flush()
        #expect(store.fileProblems.isEmpty)
        _ = try? store.transaction { t in
            t.set(2, forKey: "width")
            throw APIRefusal()
        }
        #expect(store.fileProblems.isEmpty, "after a throwing body: \(store.fileProblems)")
        _ = try? store.transaction { t in t.set(String(repeating: "x", count: 8192), forKey: "big") }
        #expect(store.fileProblems.isEmpty, "after a refused oversized transaction: \(store.fileProblems)")
    }

    @Test("a transaction that changes nothing writes nothing: no new file, no generation, no observer call")
    func noOpTransaction() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set(1, forKey: "a")
        try store.flush()
        let path = fixture.userFile(Self.domain)
        let node = inode(path)
        let versions = try versionCount(fixture)
        let (recorder, observation) = recordingAllChanges(of: store)
        defer { observation.cancel() }
        try store.transaction { t in _ = t.integer(forKey: "a") }
        try store.transaction { t in t.set(1, forKey: "a") }
        try store.transaction { t in
            t.set("temporary", forKey: "b")
            t.removeObject(forKey: "b")
        }
        #expect(inode(path) == node, "the file was replaced")
        #expect(try versionCount(fixture) == versions)
        #expect(recorder.recorded.isEmpty)
    }

    @Test("observers get all the keys of a transaction, as this process's changes, before it returns; one didChangeNotification")
    func observersSeeOneBatch() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set(100, forKey: "width")
        try store.flush()
        let (recorder, observation) = recordingAllChanges(of: store)
        let token = countPosts(of: store, into: recorder)
        defer {
            observation.cancel()
            NotificationCenter.default.removeObserver(token)
        }
        try store.transaction { t in
            t.set(1280, forKey: "width")
            t.set(800, forKey: "height")
            t.set("wide", forKey: "shape")
        }
        let changes = recorder.recorded
        #expect(Set(changes.map(\.key)) == ["width", "height", "shape"])
        #expect(changes.count == 3)
        #expect(changes.allSatisfy { $0.origin == .thisProcess })
        #expect(changes.first { $0.key == "width" }.map { ($0.oldValue, $0.newValue) == (.integer(100), .integer(1280)) } == true)
        #expect(recorder.postCount == 1)
    }

    // `.prior` comes before a setter's change; a transaction's changes are known only under
    // the domain's lock, where no handler may run, so they arrive only after (documented).
    @Test("an observer asking for .prior is called before a set's change, and after a transaction's only")
    func priorForTransactions() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let recorder = APIChangeRecorder()
        let observation = store.observe("k", options: [.prior, .old, .new]) { recorder.record($0) }
        defer { observation.cancel() }
        store.set(1, forKey: "k")
        #expect(recorder.recorded.map(\.isPrior) == [true, false], "a set")
        try store.transaction { t in t.set(2, forKey: "k") }
        #expect(recorder.recorded.map(\.isPrior) == [true, false, false], "a transaction")
        #expect(recorder.recorded.last?.newValue == .integer(2))
    }

    @Test("typed keys, Codable values, URLs and set(nil) inside a transaction")
    func typedValuesInside() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let theme = PreferenceKey("Theme", default: APITheme(name: "default", fontSize: 12))
        let launches = PreferenceKey("Launches", default: 0)
        store.set("gone soon", forKey: "old")
        try store.transaction { t in
            t[theme].fontSize = 14
            t[launches] += 1
            t.set(URL(fileURLWithPath: fixture.homeDirectory + "/notes.txt"), forKey: "Recent")
            t.set(nil as Any?, forKey: "old")
            #expect(t[theme] == APITheme(name: "default", fontSize: 14))
        }
        #expect(store[theme] == APITheme(name: "default", fontSize: 14))
        #expect(store[launches] == 1)
        #expect(store.object(forKey: "old") == nil)
        #expect(store.string(forKey: "Recent") == "~/notes.txt")
        #expect(store.url(forKey: "Recent") == URL(fileURLWithPath: fixture.homeDirectory + "/notes.txt"))
        let disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain)))
        #expect(disk["Theme"] == .dictionary(["name": "default", "fontSize": 14.0]))
        #expect(disk["old"] == nil)
    }

    @Test("another store's unflushed set of the domain, in this process, is read by the body and ends up on disk")
    func otherStoresPendingChanges() throws {
        let fixture = try StoreFixture()
        let first = try fixture.store()
        let second = try fixture.store()
        first.set(1, forKey: "base")
        try first.flush()
        // Written in the background, perhaps before the transaction, perhaps in its commit.
        first.set("from first", forKey: "pending")
        try second.transaction { t in
            #expect(t.string(forKey: "pending") == "from first")
            t.set(2, forKey: "base")
        }
        let disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain)))
        #expect(disk == ["base": 2, "pending": "from first"])
        #expect(first.integer(forKey: "base") == 2)
    }

    // The store's setters inside a body are ordinary changes, written after the transaction,
    // so they win over the transaction's value of the same key (documented on `transaction`).
    @Test("store.set inside a body does not hang, and is written after the transaction, winning over its value")
    func storeSetInsideBody() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set(0, forKey: "k")
        try store.flush()
        let done = Mutex(false)
        // On its own thread so a hang fails the test instead of the run.
        Thread.detachNewThread {
            try? store.transaction { t in
                store.set("helper", forKey: "other")  // a helper that uses the store
                store.set(2, forKey: "k")
                t.set(1, forKey: "k")  // the body's later, deliberate value
            }
            done.withLock { $0 = true }
        }
        #expect(waitUntil(within: .seconds(30)) { done.withLock { $0 } })
        try store.flush()
        #expect(store.string(forKey: "other") == "helper")
        #expect(store.integer(forKey: "k") == 2, "in memory")
        #expect(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain))?["k"] == .integer(2), "on disk")
    }

    @Test("a transaction after removePersistentDomain (written or not yet) sees an empty domain")
    func transactionAfterRemovingDomain() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set(1, forKey: "a")
        try store.flush()
        store.removePersistentDomain(forName: Self.domain)
        try store.transaction { t in
            #expect(t.object(forKey: "a") == nil)
            t.set(2, forKey: "b")
        }
        #expect(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain)) == ["b": 2])
        #expect(store.object(forKey: "a") == nil)
    }

    @Test("a transaction on a refused (group-writable) domain file throws its code and changes nothing")
    func refusedFile() throws {
        let fixture = try StoreFixture()
        let path = fixture.userFile(Self.domain)
        try fixture.plant(["a": 1], at: path, mode: 0o664)
        let before = bytes(path)
        let store = try fixture.store()
        #expect(store.fileProblems.map(\.code) == [.insecurePermissions])
        let error = #expect(throws: PreferencesError.self) {
            try store.transaction { t in t.set(2, forKey: "b") }
        }
        #expect(error?.code == .insecurePermissions)
        #expect(bytes(path) == before)
        #expect(store.object(forKey: "b") == nil && store.object(forKey: "a") == nil)
    }

    @Test("a transaction over the size limit throws tooLarge: the file, the history and the store are unchanged")
    func oversized() throws {
        let fixture = try StoreFixture()
        let store = try PreferenceStore(
            domain: Self.domain,
            configuration: .init(environment: fixture.environment, arguments: ["test"], sizeLimit: 4096, softSizeLimit: 2048))
        store.set("x", forKey: "a")
        try store.flush()
        store.set("y", forKey: "a")
        try store.flush()
        let path = fixture.userFile(Self.domain)
        let before = bytes(path)
        let versions = try files(fixture).generations(at: location()).map(\.number)
        let error = #expect(throws: PreferencesError.self) {
            try store.transaction { t in
                t.set("z", forKey: "a")
                t.set(String(repeating: "x", count: 8192), forKey: "big")
            }
        }
        #expect(error?.code == .tooLarge)
        #expect(bytes(path) == before)
        #expect(try files(fixture).generations(at: location()).map(\.number) == versions)
        #expect(store.string(forKey: "a") == "y" && store.object(forKey: "big") == nil)
    }

    @Test("two threads of one process, 100 transactional increments each, end at 200")
    func concurrentThreads() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let failures = Mutex(0)
        onThreads(2) { _ in
            for _ in 0..<100 {
                do {
                    try store.transaction { t in t.set(t.integer(forKey: "count") + 1, forKey: "count") }
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(store.integer(forKey: "count") == 200)
        #expect(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain))?["count"] == .integer(200))
    }

    @Test("transactions here and in another process interleave without losing an increment")
    func acrossProcesses() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let worker = try Subprocess(workerPath, ["transact-increment", Self.domain, "count", "100"], environment: fixture.processEnvironment)
        for _ in 0..<100 {
            try store.transaction { t in t.set(t.integer(forKey: "count") + 1, forKey: "count") }
        }
        #expect(worker.wait() == 0)
        #expect(store.integer(forKey: "count") == 200)
    }

    // MARK: Fresh reads

    @Test("a read right after another process's flush, key removal, transaction and deletion of the file sees it")
    func freshReads() throws {
        let fixture = try StoreFixture()
        try fixture.usePrivateRuntimeDirectory()
        let store = try fixture.store()
        store.set(0, forKey: "s0")
        try store.flush()
        try worker(fixture, ["set-keys", Self.domain, "k", "3"])
        #expect(store.integer(forKey: "k2") == 2 && store.integer(forKey: "k0") == 0)
        try worker(fixture, ["transact-pairs", Self.domain, "3"])
        #expect(store.integer(forKey: "width") == 3 && store.integer(forKey: "area") == 9)
        try worker(fixture, ["remove-keys", Self.domain, "k", "3"])
        #expect(store.object(forKey: "k0") == nil && store.object(forKey: "k2") == nil)
        // Emptying the domain deletes its file.
        store.removeObject(forKey: "width")
        store.removeObject(forKey: "height")
        store.removeObject(forKey: "area")
        try store.flush()
        try worker(fixture, ["remove-keys", Self.domain, "s", "1"])
        #expect(!FileManager.default.fileExists(atPath: fixture.userFile(Self.domain)))
        #expect(store.object(forKey: "s0") == nil)
        #expect(store.dictionaryRepresentation().keys.filter { $0 == "s0" || $0.hasPrefix("k") }.isEmpty)
    }

    @Test("a read right after another process replaced the whole domain (setPersistentDomain + flush) sees only the new contents")
    func freshReadAfterReplacement() throws {
        let fixture = try StoreFixture()
        try fixture.usePrivateRuntimeDirectory()
        let store = try fixture.store()
        store.set("old", forKey: "stale")
        try store.flush()
        try worker(fixture, ["set-pairs", Self.domain, "2"])
        #expect(store.integer(forKey: "first") == 2 && store.object(forKey: "stale") == nil)
        #expect(store.dictionary(forKey: "pair")?["second"] as? Int == 2)
    }

    // MARK: History

    @Test("generations are listed newest first, with the current file first, the keys each changed, this process as writer and a date")
    func generationsListing() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        for (key, value) in [("a", 1), ("b", 2), ("a", 3)] {
            store.set(value, forKey: key)
            try store.flush()
        }
        store.removeObject(forKey: "b")
        try store.flush()
        let versions = try files(fixture).generations(at: location())
        #expect(versions.count == 4)
        #expect(versions.map(\.number) == versions.map(\.number).sorted(by: >))
        #expect(versions.map(\.isCurrent) == [true, false, false, false])
        #expect(versions.map(\.changedKeys) == [["b"], ["a"], ["b"], ["a"]])
        #expect(versions.map(\.values) == [["a": 3], ["a": 3, "b": 2], ["a": 1, "b": 2], ["a": 1]])
        #expect(versions.allSatisfy { $0.date != nil && $0.problem == nil })
        #expect(versions.allSatisfy {
            if case .process(let id, _) = $0.writer { id == getpid() } else { false }
        })
    }

    @Test("restore and undo are commits: the open store sees them at once, undo twice undoes the undo")
    func restoreAndUndo() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        for (key, value) in [("a", 1), ("b", 2), ("a", 3)] {
            store.set(value, forKey: key)
            try store.flush()
        }
        let files = files(fixture)
        let oldest = try #require(try files.generations(at: location()).last)
        let (recorder, observation) = recordingAllChanges(of: store)
        defer { observation.cancel() }

        let restored = try files.restore(generation: oldest.number, at: location())
        #expect(restored.number == oldest.number && restored.values == ["a": 1])
        #expect(store.integer(forKey: "a") == 1 && store.object(forKey: "b") == nil)
        #expect(Set(recorder.recorded.map(\.key)) == ["a", "b"])
        #expect(try files.generations(at: location()).count == 4, "the restore kept what it replaced")

        try files.undo(at: location())
        #expect(store.integer(forKey: "a") == 3 && store.integer(forKey: "b") == 2)
        try files.undo(at: location())
        #expect(store.integer(forKey: "a") == 1 && store.object(forKey: "b") == nil, "undoing the undo")
        #expect(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain)) == ["a": 1])
    }

    @Test("a removed domain can be brought back with undo")
    func undoRemovedDomain() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set(1, forKey: "a")
        store.set("x", forKey: "b")
        try store.flush()
        store.removePersistentDomain(forName: Self.domain)
        try store.flush()
        #expect(!FileManager.default.fileExists(atPath: fixture.userFile(Self.domain)))
        let versions = try files(fixture).generations(at: location())
        #expect(versions.first?.isCurrent == false && versions.first?.values == ["a": 1, "b": "x"])
        try files(fixture).undo(at: location())
        #expect(store.integer(forKey: "a") == 1 && store.string(forKey: "b") == "x")
        #expect(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain)) == ["a": 1, "b": "x"])
    }

    @Test("restore of 0, a negative number, one not kept or the current version, and undo without history throw missingFile and change nothing")
    func badRestores() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set(1, forKey: "a")
        try store.flush()
        let files = files(fixture)
        // One version only: nothing to undo.
        let noHistory = #expect(throws: PreferencesError.self) { try files.undo(at: location()) }
        #expect(noHistory?.code == .missingFile)
        store.set(2, forKey: "a")
        try store.flush()
        let path = fixture.userFile(Self.domain)
        let before = bytes(path)
        let versions = try files.generations(at: location())
        let current = try #require(versions.first { $0.isCurrent })
        for number in [0, -1, 999, current.number] {
            let error = #expect(throws: PreferencesError.self, "generation \(number)") {
                try files.restore(generation: number, at: location())
            }
            #expect(error?.code == .missingFile, "generation \(number)")
        }
        #expect(bytes(path) == before)
        #expect(try files.generations(at: location()) == versions)
        #expect(store.integer(forKey: "a") == 2)
        let unknown = #expect(throws: PreferencesError.self) { try files.undo(at: location("com.example.never-written")) }
        #expect(unknown?.code == .missingFile)
    }

    @Test("a generation that does not decode is listed with its problem, and restoring it throws corrupt and changes nothing")
    func corruptGeneration() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        for value in 1...3 {
            store.set(value, forKey: "a")
            try store.flush()
        }
        let files = files(fixture)
        let oldest = try #require(try files.generations(at: location()).last)
        try Data("not a property list".utf8).write(to: URL(fileURLWithPath: oldest.path))
        chmod(oldest.path, 0o600)
        let listed = try #require(try files.generations(at: location()).first { $0.number == oldest.number })
        #expect(listed.values == nil && listed.problem?.code == .corrupt)
        let path = fixture.userFile(Self.domain)
        let before = bytes(path)
        let error = #expect(throws: PreferencesError.self) { try files.restore(generation: oldest.number, at: location()) }
        #expect(error?.code == .corrupt)
        #expect(bytes(path) == before && store.integer(forKey: "a") == 3)
    }

    @Test("generationLimit N keeps the N newest generations", arguments: [3, 1])
    func generationLimit(limit: Int) throws {
        let fixture = try StoreFixture()
        var configuration = fixture.configuration
        configuration.generationLimit = limit
        let store = try PreferenceStore(domain: Self.domain, configuration: configuration)
        for value in 1...7 {
            store.set(value, forKey: "a")
            try store.flush()
        }
        let kept = try files(fixture, configuration).generations(at: location()).filter { !$0.isCurrent }
        #expect(kept.count == limit)
        #expect(kept.map { $0.values?["a"] } == (0..<limit).map { PropertyListValue.integer(PropertyListInteger(6 - $0)) })
        try files(fixture, configuration).undo(at: location())
        #expect(store.integer(forKey: "a") == 6)
    }

    @Test("generationLimit 0 keeps none: undo throws missingFile")
    func noGenerations() throws {
        let fixture = try StoreFixture()
        var configuration = fixture.configuration
        configuration.generationLimit = 0
        let store = try PreferenceStore(domain: Self.domain, configuration: configuration)
        for value in 1...3 {
            store.set(value, forKey: "a")
            try store.flush()
        }
        let files = files(fixture, configuration)
        #expect(try files.generations(at: location()).map(\.isCurrent) == [true])
        let error = #expect(throws: PreferencesError.self) { try files.undo(at: location()) }
        #expect(error?.code == .missingFile)
    }

    @Test("generationByteLimit smaller than one file still keeps the newest generation, and only it")
    func byteLimit() throws {
        let fixture = try StoreFixture()
        var configuration = fixture.configuration
        configuration.generationByteLimit = 1
        let store = try PreferenceStore(domain: Self.domain, configuration: configuration)
        for value in 1...4 {
            store.set(value, forKey: "a")
            try store.flush()
        }
        let kept = try files(fixture, configuration).generations(at: location()).filter { !$0.isCurrent }
        #expect(kept.map { $0.values?["a"] } == [.integer(3)])
    }

    // A process shares each domain file between its stores, so the first to open it decides
    // its file rules (documented on `PreferenceStore.Configuration`).
    @Test("the first store to open a domain decides its generationLimit for the process")
    func generationLimitOfFirstStore() throws {
        let fixture = try StoreFixture()
        var configuration = fixture.configuration
        configuration.generationLimit = 1
        // Opened first with the default (32): a later store's 1 does not apply.
        let first = try fixture.store()
        _ = first.object(forKey: "a")
        let later = try PreferenceStore(domain: Self.domain, configuration: configuration)
        // Opened first with 1.
        let limited = try PreferenceStore(domain: "com.example.limited", configuration: configuration)
        for value in 1...5 {
            later.set(value, forKey: "a")
            try later.flush()
            limited.set(value, forKey: "a")
            try limited.flush()
        }
        let keptByDefault = try files(fixture).generations(at: location()).filter { !$0.isCurrent }
        #expect(keptByDefault.count == 4, "generations kept: \(keptByDefault.map(\.number))")
        let keptByLimit = try files(fixture).generations(at: location("com.example.limited")).filter { !$0.isCurrent }
        #expect(keptByLimit.map(\.number) == [4], "generations kept: \(keptByLimit.map(\.number))")
    }

    // MARK: Recovery

    @Test(
        "a corrupt file (truncated to half, or to nothing) is read from the last good generation, with registered defaults beneath",
        arguments: [false, true])
    func recovery(emptied: Bool) throws {
        let fixture = try StoreFixture()
        let (path, _) = try corruptDomain(fixture) { emptied ? 0 : $0 / 2 }
        let store = try fixture.store()
        store.register(defaults: ["k2": 99, "extra": "default"])
        #expect(store.integer(forKey: "k0") == 0 && store.integer(forKey: "k1") == 1)
        #expect(store.integer(forKey: "k2") == 99, "k2 was only in the corrupt version: the default shows")
        #expect(store.string(forKey: "extra") == "default")
        let recovery = try #require(store.sources(forKey: "k1").first?.recovery)
        #expect(recovery.path == path && recovery.generation == 2)
        #expect([.corrupt, .notADictionary].contains(recovery.reason.code))
        #expect(files(fixture).recovery(at: domainLocation) == recovery)
        #expect(try files(fixture).persistentDomainValues(at: location()) == ["k0": 0, "k1": 1])
        #expect(store.persistentDomain(forName: Self.domain)?.count == 2)
        let versions = try files(fixture).generations(at: location())
        #expect(versions.first?.isCurrent == true && versions.first?.values == nil)
        #expect(versions.first.map { [.corrupt, .notADictionary].contains($0.problem?.code) } == true)
        #expect(versions.dropFirst().map(\.changedKeys) == [["k1"], ["k0"]])
    }

    @Test("with the newest generation corrupt too, the store reads the newest one that decodes")
    func recoverySkipsCorruptGeneration() throws {
        let fixture = try StoreFixture()
        _ = try corruptDomain(fixture) { $0 / 2 }
        let history = "\(fixture.userDirectory)/.\(Self.domain).plist.history"
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: history + "/2.plist"))
        chmod(history + "/2.plist", 0o600)
        let store = try fixture.store()
        #expect(store.integer(forKey: "k0") == 0 && store.object(forKey: "k1") == nil)
        #expect(store.sources(forKey: "k0").first?.recovery?.generation == 1)
    }

    @Test("a corrupt suite domain is read from its last good generation too")
    func suiteRecovery() throws {
        let fixture = try StoreFixture()
        try worker(fixture, ["set-keys", "com.example.suite", "s", "2"])
        let path = fixture.userFile("com.example.suite")
        try Data("bplist00".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        let store = try fixture.store()
        store.addSuite(named: "com.example.suite")
        #expect(store.integer(forKey: "s0") == 0 && store.object(forKey: "s1") == nil)
        #expect(store.sources(forKey: "s0").first?.recovery?.generation == 1)
    }

    // An app learns from the store that its file is corrupt, though it reads good values.
    @Test("fileProblems lists the corrupt file the store recovered from")
    func recoveryListedInFileProblems() throws {
        let fixture = try StoreFixture()
        let (path, _) = try corruptDomain(fixture) { $0 / 2 }
        let store = try fixture.store()
        #expect(store.integer(forKey: "k1") == 1)
        #expect(store.fileProblems.contains { $0.path == path && [.corrupt, .notADictionary].contains($0.code) },
                "fileProblems: \(store.fileProblems)")
    }

    @Test("the next write commits on top of the recovered values and keeps the corrupt file aside as .corrupt-<time>")
    func writeOnTopOfRecovery() throws {
        let fixture = try StoreFixture()
        let (path, damaged) = try corruptDomain(fixture) { $0 / 2 }
        let store = try fixture.store()
        #expect(store.integer(forKey: "k1") == 1)
        #expect(bytes(path) == damaged, "reading leaves the corrupt bytes alone")
        store.set("after", forKey: "k3")
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: path) == ["k0": 0, "k1": 1, "k3": "after"])
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.userDirectory)
        let aside = try #require(names.first { $0.hasPrefix("\(Self.domain).plist.corrupt-") })
        #expect(bytes(fixture.userDirectory + "/" + aside) == damaged)
        #expect(files(fixture).recovery(at: domainLocation) == nil)
        #expect(store.sources(forKey: "k1").first?.recovery == nil)
        let versions = try files(fixture).generations(at: location())
        #expect(versions.first?.isCurrent == true && versions.allSatisfy { $0.problem == nil })
    }

    @Test("a transaction on a recovered domain reads the recovered values and commits on top")
    func transactionOnRecovery() throws {
        let fixture = try StoreFixture()
        let (path, _) = try corruptDomain(fixture) { $0 / 2 }
        let store = try fixture.store()
        try store.transaction { t in
            #expect(t.integer(forKey: "k1") == 1 && t.object(forKey: "k2") == nil)
            t.set(t.integer(forKey: "k1") + 10, forKey: "k1")
        }
        #expect(try domainValuesOnDisk(atPath: path) == ["k0": 0, "k1": 11])
        #expect(store.integer(forKey: "k1") == 11)
    }

    @Test("undo on a corrupt domain brings back the last good generation and keeps the corrupt file aside")
    func undoOnCorruptDomain() throws {
        let fixture = try StoreFixture()
        let (path, _) = try corruptDomain(fixture) { $0 / 2 }
        let store = try fixture.store()
        try files(fixture).undo(at: location())
        #expect(try domainValuesOnDisk(atPath: path) == ["k0": 0, "k1": 1])
        #expect(store.integer(forKey: "k1") == 1)
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.userDirectory)
        #expect(names.contains { $0.hasPrefix("\(Self.domain).plist.corrupt-") })
    }

    @Test("a corrupt file with no history: reads fall back to registered defaults and fileProblems names it")
    func corruptWithoutHistory() throws {
        let fixture = try StoreFixture()
        let path = fixture.userFile(Self.domain)
        try FileManager.default.createDirectory(atPath: fixture.userDirectory, withIntermediateDirectories: true)
        try Data("bplist00 garbage garbage".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        let store = try fixture.store()
        store.register(defaults: ["Interval": 30])
        #expect(store.integer(forKey: "Interval") == 30)
        #expect(store.fileProblems.map(\.code) == [.corrupt])
        #expect(files(fixture).recovery(at: domainLocation) == nil)
    }

    // MARK: UserDefaults parity, where the porting guide claims it

    @Test("UserDefaults parity: set(nil) removes, registered defaults are not written, coercions, dictionaryRepresentation")
    func userDefaultsParity() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.register(defaults: ["Interval": 30, "Greeting": "Hello"])
        store.set(60, forKey: "Interval")
        store.set(nil as Any?, forKey: "Interval")
        #expect(store.integer(forKey: "Interval") == 30)
        store.set("YES", forKey: "yes")
        store.set("no", forKey: "no")
        store.set("42", forKey: "answer")
        store.set(3.9, forKey: "real")
        store.set("~/Documents/a.txt", forKey: "path")
        store.set(["a", "b"], forKey: "list")
        store.set(true, forKey: "flag")
        #expect(store.bool(forKey: "yes") && !store.bool(forKey: "no") && store.bool(forKey: "answer"))
        #expect(store.integer(forKey: "answer") == 42 && store.integer(forKey: "real") == 3)
        #expect(store.double(forKey: "answer") == 42)
        #expect(store.string(forKey: "answer") == "42")
        #expect(store.url(forKey: "path") == URL(fileURLWithPath: fixture.homeDirectory + "/Documents/a.txt"))
        #expect(store.object(forKey: "real") as? Double == 3.9)
        #expect(store.object(forKey: "flag") as? Bool == true)
        #expect(store.stringArray(forKey: "list") == ["a", "b"])
        #expect(store.integer(forKey: "missing") == 0 && store.object(forKey: "missing") == nil)
        let all = store.dictionaryRepresentation()
        #expect(all["Greeting"] as? String == "Hello" && all["answer"] as? String == "42")
        try store.flush()
        let disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile(Self.domain)))
        #expect(disk["Greeting"] == nil && disk["Interval"] == nil)
    }
}
