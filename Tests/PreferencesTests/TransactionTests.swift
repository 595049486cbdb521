import Foundation
import Glibc
@testable import Preferences
import Synchronization
import TestSupport
import Testing

@Suite("Transactions", .ownThread)
struct TransactionTests {
    /// The domain file's bytes, or nil if it does not exist.
    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test("a transaction of three keys is one commit: one counter raise, one batch, every key on disk")
    func oneCommit() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set("before", forKey: "unrelated")
        try store.flush()
        let counter = try #require(store.appDomain.commitCounter, "the commit counter should open in a writable directory")
        let raisedBefore = counter.current
        let batches = BatchRecorder()
        let observation = store.observe { change in batches.record(change) }
        defer { observation.cancel() }

        try store.transaction { t in
            t.set(1280, forKey: "width")
            t.set(800, forKey: "height")
            t.set("wide", forKey: "shape")
        }

        #expect(counter.current == raisedBefore &+ 1, "one rename raises the counter once")
        let disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile("com.example.test")))
        #expect(disk["width"] == .integer(1280) && disk["height"] == .integer(800) && disk["shape"] == .string("wide"))
        #expect(disk["unrelated"] == .string("before"))
        #expect(store.integer(forKey: "width") == 1280 && store.integer(forKey: "height") == 800)
        let changes = batches.changes
        #expect(Set(changes.map(\.key)) == ["width", "height", "shape"])
        #expect(changes.allSatisfy { $0.origin == .thisProcess })
    }

    @Test("the body reads its own changes, the file, and lower layers through the search list")
    func readsOwnChanges() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.register(defaults: ["volume": 5, "name": "default"])
        store.set("stored", forKey: "name")
        try store.transaction { t in
            #expect(t.integer(forKey: "volume") == 5, "a registered default shows through")
            #expect(t.string(forKey: "name") == "stored", "this process's pending change is read")
            t.set(7, forKey: "volume")
            #expect(t.integer(forKey: "volume") == 7)
            t.removeObject(forKey: "name")
            #expect(t.string(forKey: "name") == "default", "a removal lets the default show through")
            #expect(t.object(forKey: "missing") == nil)
        }
        #expect(store.integer(forKey: "volume") == 7)
        #expect(store.string(forKey: "name") == "default")
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.test"))?["name"] == nil)
    }

    @Test("typed keys read and write inside a transaction")
    func typedKeys() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let launches = PreferenceKey<Int>("launches", default: 0)
        try store.transaction { t in t[launches] = t[launches] + 1 }
        try store.transaction { t in t[launches] = t[launches] + 1 }
        #expect(store[launches] == 2)
    }

    struct Refusal: Error, Equatable {}

    @Test("a throwing body changes nothing: its error comes back, the file is byte-identical")
    func throwingBody() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set(1, forKey: "width")
        try store.flush()
        let path = fixture.userFile("com.example.test")
        let before = bytes(path)
        let counter = store.appDomain.commitCounter?.current
        #expect(throws: Refusal.self) {
            try store.transaction { t in
                t.set(2, forKey: "width")
                t.set(3, forKey: "height")
                throw Refusal()
            }
        }
        #expect(bytes(path) == before)
        #expect(store.appDomain.commitCounter?.current == counter)
        #expect(store.integer(forKey: "width") == 1)
        #expect(store.object(forKey: "height") == nil)
    }

    @Test("a declared key's rule: trySet inside the body throws and the transaction writes nothing")
    func schemaViolation() throws {
        let fixture = try StoreFixture()
        try fixture.installSchema(["volume": .dictionary(["Type": "integer", "Default": 5, "Minimum": 0, "Maximum": 10])])
        let store = try fixture.store()
        let error = #expect(throws: PreferencesError.self) {
            try store.transaction { t in
                t.set("other", forKey: "free")
                try t.trySet(.integer(11), forKey: "volume")
            }
        }
        #expect(error?.code == .schemaViolation)
        #expect(error?.violation?.key == "volume")
        #expect(store.object(forKey: "free") == nil)
        // The non-throwing set keeps the old value and the rest of the transaction commits.
        try store.transaction { t in
            t.set(11, forKey: "volume")
            t.set("other", forKey: "free")
            #expect(t.integer(forKey: "volume") == 5)
        }
        #expect(store.integer(forKey: "volume") == 5)
        #expect(store.string(forKey: "free") == "other")
    }

    @Test("a transaction over the size limit is refused whole")
    func sizeLimit() throws {
        let fixture = try StoreFixture()
        let store = try PreferenceStore(
            domain: "com.example.test",
            configuration: .init(environment: fixture.environment, arguments: ["test"], sizeLimit: 4096, softSizeLimit: 2048))
        let error = #expect(throws: PreferencesError.self) {
            try store.transaction { t in
                t.set("small", forKey: "a")
                t.set(String(repeating: "x", count: 8192), forKey: "big")
            }
        }
        #expect(error?.code == .tooLarge)
        #expect(store.object(forKey: "a") == nil)
        #expect(FileManager.default.fileExists(atPath: fixture.userFile("com.example.test")) == false)
    }

    @Test("read-modify-write in the body is atomic across processes: 4 × 100 transactional increments")
    func incrementsAcrossProcesses() throws {
        let fixture = try StoreFixture()
        try runWorkers(4, fixture: fixture) { _ in ["transact-increment", "com.example.test", "count", "100"] }
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.test"))?["count"] == .integer(400))
        #expect(try fixture.store().integer(forKey: "count") == 400)
    }

    /// The 10,000 commits in the soak (`RELIABILITY_SOAK=1`), 2,000 in the test command.
    @Test("another process never sees part of a transaction: 10,000 commits (2,000 outside the soak), watched and read")
    func noPartialTransactions() throws {
        let commits = soakCount(10_000, command: 2_000)
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let torn = TornCounter()
        // Every batch the watcher delivers, and every read of a reader thread, must show the
        // three keys of one transaction.
        let observation = store.observe { _ in torn.check(store) }
        defer { observation.cancel() }
        let stop = StopFlag()
        let reader = Thread {
            while !stop.isSet {
                torn.check(store)
                // A pause between reads, so the thread does not take a whole core from the
                // tests running beside it (on 2 cores, a spinning reader starved their
                // watchers); about 10,000 reads a second still land between the commits.
                usleep(100)
            }
        }
        reader.start()
        try runWorkers(1, fixture: fixture) { _ in ["transact-pairs", "com.example.test", String(commits)] }
        #expect(waitUntil(within: .seconds(10)) { store.integer(forKey: "width") == commits })
        stop.set()
        #expect(torn.torn == 0, "reads that saw part of a transaction")
        #expect(torn.checks > commits / 10)
        #expect(store.integer(forKey: "area") == commits * commits)
    }
}

// The helpers below lock with the library's ThreadLock (a pthread mutex), not
// Synchronization.Mutex: they run under the thread sanitizer (Tests/Scripts/tsan.sh), which
// sees no ordering through Mutex's priority-inheritance futex and reports its users as races.

/// Changes seen by an observer, from any thread.
final class BatchRecorder: Sendable {
    private let recorded = ThreadLock<[PreferenceChange]>([], rank: .leaf)
    func record(_ change: PreferenceChange) { recorded.withLock { $0.append(change) } }
    var changes: [PreferenceChange] { recorded.withLock { $0 } }
}

/// Counts reads of `width`, `height` and `area` that disagree.
final class TornCounter: Sendable {
    private let counts = ThreadLock((checks: 0, torn: 0), rank: .leaf)
    func check(_ store: PreferenceStore) {
        let values = store.dictionaryRepresentation()
        let width = values["width"] as? Int, height = values["height"] as? Int, area = values["area"] as? Int
        let isWhole = (width == nil && height == nil && area == nil) || (width != nil && width == height && area == width! * width!)
        counts.withLock {
            $0.checks += 1
            if !isWhole { $0.torn += 1 }
        }
    }
    var checks: Int { counts.withLock { $0.checks } }
    var torn: Int { counts.withLock { $0.torn } }
}

/// A flag one thread raises and another polls.
final class StopFlag: Sendable {
    private let value = ThreadLock(false, rank: .leaf)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
