import Foundation
@testable import Preferences
import Synchronization
import Testing
import TestSupport

/// Readers see whole commits, and a process's own writes come back to nobody.
@Suite("Published snapshots", .ownThread)
struct SnapshotTests {
    /// What reader threads share with the test: when to stop, and what they saw.
    final class Readers: Sendable {
        let stop = Atomic(false)
        /// Reads that saw the two keys from different commits.
        let torn = Atomic(0)
        let reads = Atomic(0)
        let done = DispatchSemaphore(value: 0)
        /// Reader threads that have finished.
        let finished = Atomic(0)

        /// Reads `store`'s values on a thread of its own until stopped (and at least 1,000
        /// times), counting reads whose pair, as `pair` extracts it, disagrees.
        func start(
            _ store: PreferenceStore,
            pair: @escaping @Sendable ([String: PropertyListValue]) -> (PropertyListValue?, PropertyListValue?)
        ) {
            Thread.detachNewThread { [self] in
                var count = 0
                while !stop.load(ordering: .acquiring) || count < 1_000 {
                    let (first, second) = pair(store.propertyListRepresentation())
                    if first != second { torn.add(1, ordering: .relaxed) }
                    count += 1
                    // Not a busy loop: the tests run in one process with every other suite, whose
                    // watcher thread (and this test's own changes) must keep a core.
                    if count % 64 == 0 { usleep(100) }
                }
                reads.add(count, ordering: .relaxed)
                finished.add(1, ordering: .releasing)
                done.signal()
            }
        }
    }

    @Test("a reader never sees half of one commit: 2,000 two-key replacements in this process beside 2 reader threads")
    func wholeCommitsInProcess() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.pairs")
        let readers = Readers()
        for _ in 0..<2 { readers.start(store) { ($0["first"], $0["second"]) } }
        for index in 1...2_000 {
            store.setPersistentDomain(["first": index, "second": index], forName: "com.example.pairs")
        }
        readers.stop.store(true, ordering: .releasing)
        readers.done.wait()
        readers.done.wait()
        #expect(readers.torn.load(ordering: .relaxed) == 0)
        #expect(readers.reads.load(ordering: .relaxed) >= 2_000)
        #expect(store.integer(forKey: "first") == 2_000)
        #expect(store.integer(forKey: "second") == 2_000)
    }

    @Test("a reader never sees half of another process's commit: 200 two-key writes beside 2 reader threads")
    func wholeCommitsAcrossProcesses() async throws {
        let fixture = try StoreFixture()
        let domain = "com.example.remote-pairs"
        let store = try fixture.store(domain)
        let readers = Readers()
        // Each write replaces both keys in one rename (the worker's set-pairs: "first" and a
        // dictionary "pair" holding "second"); flattened here into one comparable pair.
        readers.start(store) { values in
            let second: PropertyListValue? = if case .dictionary(let pair)? = values["pair"] { pair["second"] } else { nil }
            return (values["first"], second)
        }
        let worker = try Subprocess(workerPath, ["set-pairs", domain, "200"], environment: fixture.processEnvironment)
        // Awaited, not waited for: a blocking wait would hold one of the few threads that run
        // the other suites' asynchronous tests.
        #expect(await worker.wait() == 0)
        // The last write reaches this store through the watcher.
        let deadline = ContinuousClock.now + .seconds(10)
        while store.integer(forKey: "first") != 200 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        readers.stop.store(true, ordering: .releasing)
        while readers.finished.load(ordering: .acquiring) < 1 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(store.integer(forKey: "first") == 200)
        #expect(readers.torn.load(ordering: .relaxed) == 0)
    }

    @Test("a flush of this process's own sets hands nothing back: no commit, no file read, settled at once")
    func ownFlushIsNotHandedBack() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.own")
        let log = ChangeLog()
        let observation = store.observe { log.append($0) }
        for index in 0..<100 { store.set(index, forKey: "k\(index)") }
        let published = { store.appDomain.state.withLock { $0.publishedKeyCount } }
        #expect(published() == 100)
        try store.flush()
        #expect(published() == 100, "the flush handed keys back to the stores")
        let commitAfterSets = store.snapshot.read { $0.pointee.commit }
        // What the watcher does when it sees this process's own rename: the file is still the
        // version this process wrote, confirmed by identity.
        let known = try #require(store.appDomain.state.withLock { $0.known })
        #expect(known.isSettled, "the writer's own version must not need its bytes read again")
        store.appDomain.refresher.refreshFromDisk()
        store.set(100, forKey: "k100")
        try store.flush()
        store.appDomain.refresher.refreshFromDisk()
        #expect(published() == 101, "a flush or a refresh handed keys back to the stores")
        #expect(store.snapshot.read { $0.pointee.commit } == commitAfterSets + 1, "a flush or a refresh committed to the store")
        #expect(log.all.count == 101)
        #expect(log.all.allSatisfy { $0.isFromThisProcess })
        _ = observation
    }

    @Test("a flush that finds another process's keys in the file hands those, and only those, to the stores")
    func mergedKeysAreHandedBack() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.merge")
        store.set("mine", forKey: "own")
        try store.flush()
        // Another program writes a key, and this process sets one before its watcher has read
        // the file: the flush re-reads, merges and publishes the other program's key.
        var disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile("com.example.merge")))
        disk["theirs"] = "other"
        try fixture.plant(disk, at: fixture.userFile("com.example.merge"))
        let log = ChangeLog()
        let observation = store.observe { log.append($0) }
        store.set("again", forKey: "own")
        try store.flush()
        #expect(store.string(forKey: "theirs") == "other")
        let fromFile = log.all.filter { !$0.isFromThisProcess }
        #expect(fromFile.map(\.key).allSatisfy { $0 == "theirs" })
        #expect(log.all.filter(\.isFromThisProcess).map(\.key) == ["own"])
        _ = observation
    }

    @Test("setPersistentDomain and removePersistentDomain post didChangeNotification once per call, also for a domain outside the search list")
    func persistentDomainPostsOnce() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.posts")
        let posted = Mutex(0)
        let token = NotificationCenter.default.addObserver(forName: PreferenceStore.didChangeNotification, object: store, queue: nil) { _ in
            posted.withLock { $0 += 1 }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        store.setPersistentDomain(["a": 1, "b": 2, "c": 3], forName: "com.example.posts")
        #expect(posted.withLock { $0 } == 1)
        store.setPersistentDomain(["x": 1, "y": 2], forName: "com.example.elsewhere")
        #expect(posted.withLock { $0 } == 2)
        store.removePersistentDomain(forName: "com.example.posts")
        #expect(posted.withLock { $0 } == 3)
        store.removePersistentDomain(forName: "com.example.elsewhere")
        #expect(posted.withLock { $0 } == 4)
        try store.flush()
        #expect(store.persistentDomain(forName: "com.example.posts") == nil)
    }

    @Test("the resolved values agree with the layers after sets, removals, suites and registration (internal checks)")
    func invariantsHold() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.invariants")
        let typed = PreferenceKey("InvariantTyped", default: 0)
        store.register(defaults: ["r": 1, "InvariantTyped": 5])
        store[typed] = 7
        store.set("s", forKey: "r")
        store.addSuite(named: "com.example.invariants-suite")
        store.removeObject(forKey: "r")
        store.removeSuite(named: "com.example.invariants-suite")
        store.snapshot.read { $0.pointee._checkInvariants() }
        #expect(store[typed] == 7)
        #expect(store.integer(forKey: "r") == 1)
    }
}
