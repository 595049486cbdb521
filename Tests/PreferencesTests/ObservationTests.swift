import Foundation
@testable import Preferences
import Synchronization
import Testing
import TestSupport

/// Collects what an observation delivers, for tests to wait on.
final class ChangeLog: Sendable {
    private let entries = Mutex([PreferenceChange]())

    func append(_ change: PreferenceChange) { entries.withLock { $0.append(change) } }
    var all: [PreferenceChange] { entries.withLock { $0 } }
    var count: Int { entries.withLock { $0.count } }

    /// Waits until `condition` holds of the log, checking every 5 ms for at most `seconds`
    /// (a bound on waiting, not a measurement). Returns whether it held.
    @discardableResult
    func wait(seconds: Double = 30, until condition: ([PreferenceChange]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition(all) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(all)
    }
}

@Suite("Observing changes in this process")
struct LocalObservationTests {
    @Test("old and new values, .initial, .prior, and removal revealing a registered default")
    func basics() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.register(defaults: ["k": "registered"])
        let log = ChangeLog()
        let observation = store.observe("k", options: [.old, .new, .initial, .prior]) { log.append($0) }
        store.set("one", forKey: "k")
        store.removeObject(forKey: "k")
        let expected = [
            PreferenceChange(key: "k", oldValue: nil, newValue: "registered", origin: .thisProcess),
            PreferenceChange(key: "k", oldValue: "registered", newValue: nil, origin: .thisProcess, isPrior: true),
            PreferenceChange(key: "k", oldValue: "registered", newValue: "one", origin: .thisProcess),
            PreferenceChange(key: "k", oldValue: "one", newValue: nil, origin: .thisProcess, isPrior: true),
            PreferenceChange(key: "k", oldValue: "one", newValue: "registered", origin: .thisProcess),
        ]
        #expect(log.all == expected)
        observation.cancel()
    }

    @Test("setting the value a key already has notifies no one", arguments: ["plain", "with.dots", "with space", "ключ@é🎉"])
    func unchangedValues(key: String) throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let log = ChangeLog()
        let observation = store.observe(key) { log.append($0) }
        store.set(1, forKey: key)
        store.set(1, forKey: key)
        store.set(2, forKey: key)
        #expect(log.all.map(\.newValue) == [1, 2])
        #expect(log.all.allSatisfy { $0.key == key && $0.isFromThisProcess })
        _ = observation
    }

    @Test("options without .old or .new leave those values out")
    func optionsFilter() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let log = ChangeLog()
        let observation = store.observe("k", options: [.new]) { log.append($0) }
        store.set("a", forKey: "k")
        store.set("b", forKey: "k")
        #expect(log.all.map(\.oldValue) == [nil, nil])
        #expect(log.all.map(\.newValue) == ["a", "b"])
        _ = observation
    }

    @Test("a cancelled or released observation never fires again")
    func cancellation() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let log = ChangeLog()
        let observation = store.observe("k") { log.append($0) }
        store.set(1, forKey: "k")
        observation.cancel()
        store.set(2, forKey: "k")
        var released: PreferenceObservation? = store.observe("k") { log.append($0) }
        store.set(3, forKey: "k")
        released = nil
        store.set(4, forKey: "k")
        #expect(log.all.map(\.newValue) == [1, 3])
        _ = released
    }

    @Test("a handler may write preferences and observe again without deadlock")
    func reentrantHandler() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let log = ChangeLog()
        let follower = store.observe("follower") { log.append($0) }
        let leader = store.observe("leader") { change in
            store.set(change.newValue.map { "follows \($0.stringValue ?? "")" }, forKey: "follower")
            _ = store.string(forKey: "follower")
        }
        store.set("x", forKey: "leader")
        #expect(log.all.map(\.newValue) == ["follows x"])
        _ = (leader, follower)
    }

    @Test("threads setting one key at once: observers end on the value reads return, and stores agree")
    func concurrentSets() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.concurrent")
        let twin = try fixture.store("com.example.concurrent")
        let log = ChangeLog()
        let twinLog = ChangeLog()
        let observation = store.observe("k") { log.append($0) }
        let twinObservation = twin.observe("k") { twinLog.append($0) }
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for round in 0..<500 { (round % 2 == 0 ? store : twin).set("t\(thread)-\(round)", forKey: "k") }
                }
            }
        }
        try store.flush()
        // Another thread (the background flush) may still be handing the last change to the
        // other store: wait for the two to converge (a bound on waiting, not a timing check).
        for _ in 0..<500 where store.value(forKey: "k") != twin.value(forKey: "k") {
            try await Task.sleep(for: .milliseconds(10))
        }
        let final = store.value(forKey: "k")
        #expect(twin.value(forKey: "k") == final)
        #expect(await log.wait { $0.last?.newValue == final })
        #expect(await twinLog.wait { $0.last?.newValue == final })
        _ = (observation, twinObservation)
    }

    @Test("a forced value hides changes to the app domain")
    func forcedHides() throws {
        let fixture = try StoreFixture()
        try fixture.plant(["locked": "admin"], at: fixture.systemFile("com.example.test", managed: true), mode: 0o644)
        let store = try fixture.store()
        let log = ChangeLog()
        let observation = store.observe("locked") { log.append($0) }
        store.set("user", forKey: "locked")
        #expect(log.all.isEmpty)
        #expect(store.string(forKey: "locked") == "admin")
        _ = observation
    }

    @Test("typed keys observe with typed values; all-keys observers and the notification see every change")
    func typedAndNotification() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let interval = PreferenceKey("ObservedInterval", default: 30)
        let typed = Mutex([Int]())
        let observation = store.observe(interval) { change in typed.withLock { $0.append(change.newValue) } }
        let all = ChangeLog()
        let everything = store.observe { all.append($0) }
        let notified = Mutex(0)
        let token = NotificationCenter.default.addObserver(forName: PreferenceStore.didChangeNotification, object: store, queue: nil) { _ in
            notified.withLock { $0 += 1 }
        }
        store[interval] = 60
        store.set("not a number", forKey: "ObservedInterval")
        store.set(true, forKey: "other")
        NotificationCenter.default.removeObserver(token)
        #expect(typed.withLock { $0 } == [60, 30])
        #expect(all.all.map(\.key) == ["ObservedInterval", "ObservedInterval", "other"])
        #expect(notified.withLock { $0 } == 3)
        _ = (observation, everything)
    }

    @Test("postsDidChangeNotification false: no didChangeNotification, observers still called")
    func notificationsOff() throws {
        let fixture = try StoreFixture()
        var configuration = fixture.configuration
        configuration.postsDidChangeNotification = false
        let store = try PreferenceStore(domain: "com.example.quiet", configuration: configuration)
        let notified = Mutex(0)
        let token = NotificationCenter.default.addObserver(forName: PreferenceStore.didChangeNotification, object: store, queue: nil) { _ in
            notified.withLock { $0 += 1 }
        }
        let all = ChangeLog()
        let observation = store.observe { all.append($0) }
        store.set(1, forKey: "a")
        store.set(2, forKey: "a")
        NotificationCenter.default.removeObserver(token)
        #expect(notified.withLock { $0 } == 0)
        #expect(all.all.map(\.newValue) == [.integer(1), .integer(2)])
        _ = observation
    }

    @Test("changes(of:) and values(of:) are async sequences that start with the current value")
    func asyncSequences() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let key = PreferenceKey("Streamed", default: 0)
        store.set("first", forKey: "Named")
        let changes = store.changes(of: "Named")
        let values = store.values(of: key)
        store.set("second", forKey: "Named")
        store[key] = 1
        store[key] = 2
        var changeIterator = changes.makeAsyncIterator()
        #expect(await changeIterator.next() == PreferenceChange(key: "Named", oldValue: nil, newValue: "first", origin: .thisProcess))
        #expect(await changeIterator.next() == PreferenceChange(key: "Named", oldValue: "first", newValue: "second", origin: .thisProcess))
        var valueIterator = values.makeAsyncIterator()
        #expect(await valueIterator.next() == 0)
        #expect(await valueIterator.next() == 1)
        #expect(await valueIterator.next() == 2)
    }

    @Test("initial: false starts changes(of:) and values(of:) with the next change")
    func asyncSequencesWithoutInitial() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let key = PreferenceKey("Streamed", default: 0)
        store.set("first", forKey: "Named")
        store[key] = 1
        let changes = store.changes(of: "Named", initial: false)
        let values = store.values(of: key, initial: false)
        store.set("second", forKey: "Named")
        store[key] = 2
        var changeIterator = changes.makeAsyncIterator()
        #expect(await changeIterator.next() == PreferenceChange(key: "Named", oldValue: "first", newValue: "second", origin: .thisProcess))
        var valueIterator = values.makeAsyncIterator()
        #expect(await valueIterator.next() == 2)
    }
}

@Suite("Observing changes made elsewhere", .ownThread)
struct CrossProcessObservationTests {
    func worker(_ arguments: [String], fixture: StoreFixture) throws {
        let result = try run(workerPath, arguments, environment: fixture.processEnvironment)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test("another process sets a key: the observer fires with the right old and new values, and reads see it")
    func anotherProcess() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.watched")
        store.set("before", forKey: "greeting")
        try store.flush()
        let log = ChangeLog()
        let observation = store.observe("greeting") { log.append($0) }
        try worker(["set-and-exit", "com.example.watched", "greeting", "after"], fixture: fixture)
        #expect(await log.wait { $0.contains { $0.newValue == "after" } })
        #expect(log.all == [PreferenceChange(key: "greeting", oldValue: "before", newValue: "after", origin: .anotherProcess)])
        #expect(store.string(forKey: "greeting") == "after")
        _ = observation
    }

    @Test("hand edits with python3's plistlib fire: rename into place and rewrite in place", arguments: ["rename", "in-place"])
    func handEdits(style: String) async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.hand")
        store.set(1, forKey: "n")
        try store.flush()
        let log = ChangeLog()
        let observation = store.observe("n") { log.append($0) }
        let path = fixture.userFile("com.example.hand")
        let script = style == "rename"
            ? "import plistlib,os,sys; p=sys.argv[1]; plistlib.dump({'n': 2}, open(p+'.new','wb'), fmt=plistlib.FMT_BINARY); os.rename(p+'.new', p)"
            : "import plistlib,sys; p=sys.argv[1]; f=open(p,'r+b'); f.truncate(0); plistlib.dump({'n': 2}, f, fmt=plistlib.FMT_BINARY); f.close()"
        let result = try run("python3", ["-c", script, path])
        #expect(result.status == 0, "\(result.output)")
        #expect(await log.wait { $0.contains { $0.newValue == 2 } })
        #expect(log.all.last == PreferenceChange(key: "n", oldValue: 1, newValue: 2, origin: .anotherProcess))
        #expect(store.integer(forKey: "n") == 2)
        _ = observation
    }

    @Test("a deleted domain file fires removals")
    func deletion() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.deleted")
        store.set("here", forKey: "k")
        try store.flush()
        let log = ChangeLog()
        let observation = store.observe("k") { log.append($0) }
        try FileManager.default.removeItem(atPath: fixture.userFile("com.example.deleted"))
        #expect(await log.wait { $0.contains { $0.newValue == nil } })
        #expect(store.value(forKey: "k") == nil)
        _ = observation
    }

    @Test("1,000 sets in a burst from another process: the last value arrives, and only written values appear")
    func burst() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.burst")
        let log = ChangeLog()
        let observation = store.observe("k") { log.append($0) }
        try worker(["burst", "com.example.burst", "k", "1000"], fixture: fixture)
        #expect(await log.wait { $0.last?.newValue == "v999" })
        let written = Set((0..<1000).map { PropertyListValue.string("v\($0)") })
        #expect(log.all.allSatisfy { $0.newValue.map(written.contains) ?? false })
        #expect(log.all.allSatisfy { !$0.isFromThisProcess })
        _ = observation
    }

    @Test("a queue overflow after a flood of 20,000 events rescans: the cache equals the disk")
    func overflow() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.flood")
        store.set(0, forKey: "count")
        try store.flush()
        let path = fixture.userFile("com.example.flood")
        let flood = """
            import plistlib, os, sys
            p = sys.argv[1]
            for i in range(1, 20001):
                plistlib.dump({'count': i, 'tag': 'flood'}, open(p + '.new', 'wb'), fmt=plistlib.FMT_BINARY)
                os.rename(p + '.new', p)
            """
        let result = try run("python3", ["-c", flood, path])
        #expect(result.status == 0, "\(result.output)")
        DirectoryWatcher.shared.simulateOverflow()
        let log = ChangeLog()
        let observation = store.observe("count") { log.append($0) }
        for _ in 0..<500 where store.integer(forKey: "count") != 20_000 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(store.integer(forKey: "count") == 20_000)
        #expect(store.string(forKey: "tag") == "flood")
        #expect(try domainValuesOnDisk(atPath: path) == ["count": 20_000, "tag": "flood"])
        _ = observation
    }

    /// With no runtime directory, the commit counter is a file beside the domain, mapped by
    /// the process; a mapped file keeps its removed directory from being reported gone, so
    /// this once lost the directory for good.
    @Test("the domain directory removed and recreated: later changes still arrive", arguments: [false, true])
    func recreatedDirectory(counterInRuntimeDirectory: Bool) async throws {
        let fixture = try StoreFixture()
        if counterInRuntimeDirectory { try fixture.usePrivateRuntimeDirectory() } else { fixture.runtimeDirectory = "" }
        let store = try fixture.store("com.example.recreated")
        store.set("first", forKey: "k")
        try store.flush()
        let log = ChangeLog()
        let observation = store.observe("k") { log.append($0) }
        try removeTree(fixture.userDirectory)
        #expect(await log.wait { $0.contains { $0.newValue == nil } }, "the deletion is seen")
        try fixture.plant(["k": "second"], at: fixture.userFile("com.example.recreated"))
        #expect(await log.wait { $0.contains { $0.newValue == "second" } })
        try worker(["set-and-exit", "com.example.recreated", "k", "third"], fixture: fixture)
        // A fresh read: the other process's flush returned before this read began, so the
        // counter it raised (the new file's, which this process must map now) says so.
        #expect(store.string(forKey: "k") == "third")
        #expect(await log.wait { $0.contains { $0.newValue == "third" } })
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        #expect(!maps.split(separator: "\n").contains { $0.contains(fixture.userDirectory) && $0.hasSuffix("(deleted)") },
                "no removed counter file stays mapped")
        _ = observation
    }

    /// Removes a directory tree that this process's watcher thread may be adding a file to
    /// (a commit counter beside a domain file appears when its directory does): tried again
    /// until it is gone, as `rm -rf` run twice would.
    private func removeTree(_ path: String) throws {
        for _ in 0..<20 {
            do {
                try FileManager.default.removeItem(atPath: path)
                return
            } catch {
                guard FileManager.default.fileExists(atPath: path) else { return }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        try FileManager.default.removeItem(atPath: path)
    }

    @Test("a corrupt file keeps the last good values and fires nothing")
    func corruptFile() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.corrupting")
        store.set("good", forKey: "k")
        try store.flush()
        let log = ChangeLog()
        let observation = store.observe { log.append($0) }
        let path = fixture.userFile("com.example.corrupting")
        for round in 0..<20 {
            try Data("bplist00 damaged \(round)".utf8).write(to: URL(fileURLWithPath: path + ".new"))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path + ".new")
            _ = rename(path + ".new", path)
        }
        // Raw renames raise no commit counter: only the watcher sees them. The deadline
        // bounds a failure only; under load the watcher can take well over a second.
        let deadline = ContinuousClock.now + .seconds(30)
        while store.fileProblems.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(store.fileProblems.first?.code == .corrupt)
        #expect(store.string(forKey: "k") == "good")
        #expect(log.all.isEmpty)
        _ = observation
    }

    @Test("creating and releasing 1,000 stores leaves no descriptors or threads behind")
    func noGrowth() throws {
        // In a separate process: other tests running in parallel here open files and threads.
        let fixture = try StoreFixture()
        let result = try run(workerPath, ["growth", "com.example.growth", "1000"], environment: fixture.processEnvironment)
        #expect(result.status == 0, "\(result.output)")
        let counts = result.output.split(separator: "\n").first { $0.hasPrefix("descriptors ") } ?? ""
        let numbers = counts.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(numbers.count == 4, "\(result.output)")
        #expect(numbers[1] <= numbers[0], "descriptors grew: \(result.output)")
        // Dispatch may start a worker thread or two for background flushes; stores must not.
        #expect(numbers[3] <= numbers[2] + 2, "threads grew: \(result.output)")
    }
}
