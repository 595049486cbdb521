import Foundation
@testable import Preferences
import Testing
import TestSupport

/// `fileWatching: .whenObserved`: a program that only reads starts no watcher thread and no
/// inotify instance, its reads stay fresh, and its first observer starts the watching
/// (issue 38, item 5).
@Suite("Watching files only once observed", .ownThread)
struct LazyWatchingTests {
    @Test("a reader holds no inotify instance and no watcher thread until it observes, though its reads catch up with other processes")
    func oneShotReadStartsNothing() throws {
        let fixture = try StoreFixture()
        try fixture.usePrivateRuntimeDirectory()
        try fixture.plant(["greeting": .string("hello")], at: fixture.userFile("com.example.test"))
        let reader = try Subprocess(
            workerPath, ["read-lazily", "com.example.test", "greeting"], environment: fixture.processEnvironment, input: .pipe)
        #expect(reader.nextLine() == "read hello inotify 0 watcher 0")
        // Another process commits; the read that finds it (through the commit counter) must
        // not start the watcher to hand the change out.
        let writer = try run(workerPath, ["burst", "com.example.test", "greeting", "3"], environment: fixture.processEnvironment)
        #expect(writer.status == 0, "\(writer.output)")
        try reader.send("again")
        #expect(reader.nextLine() == "again v2 inotify 0 watcher 0")
        reader.closeInput()
        #expect(reader.nextLine() == "observed inotify 1 watcher 1")
        #expect(reader.wait() == 0)
    }

    @Test("without watching, reads still see every commit of another process")
    func readsStayFresh() throws {
        let fixture = try StoreFixture()
        // The commit counters in a runtime directory of the fixture's, so one opens at once
        // although the domain's directory does not exist yet.
        try fixture.usePrivateRuntimeDirectory()
        var configuration = fixture.configuration
        configuration.fileWatching = .whenObserved
        let store = try PreferenceStore(domain: "com.example.test", configuration: configuration)
        #expect(store.object(forKey: "remote0") == nil)
        #expect(store.appDomain.state.withLock { $0.watch == nil }, "not watched")
        for round in 1...3 {
            let result = try run(workerPath, ["set-keys", "com.example.test", "remote", String(round)], environment: fixture.processEnvironment)
            #expect(result.status == 0, "\(result.output)")
            // No waiting: the commit counter says the file changed, and the read catches up.
            #expect(store.integer(forKey: "remote\(round - 1)") == round - 1 && store.object(forKey: "remote\(round - 1)") != nil)
        }
        #expect(store.appDomain.state.withLock { $0.watch == nil }, "still not watched: the reads caught up through the counter")
    }

    @Test("the first observer starts the watching: another process's change reaches it, and so does a hand edit")
    func firstObserverStartsWatching() async throws {
        let fixture = try StoreFixture()
        var configuration = fixture.configuration
        configuration.fileWatching = .whenObserved
        let store = try PreferenceStore(domain: "com.example.test", configuration: configuration)
        let heard = Heard()
        let observation = store.observe(options: [.new]) { heard.note($0.key) }
        defer { observation.cancel() }
        let result = try run(workerPath, ["set-keys", "com.example.test", "remote", "1"], environment: fixture.processEnvironment)
        #expect(result.status == 0, "\(result.output)")
        #expect(await eventually { heard.keys.contains("remote0") }, "\(heard.keys)")
        // A hand edit raises no commit counter: only the watch can notice it.
        try fixture.plant(["remote0": .integer(0), "edited": .string("by hand")], at: fixture.userFile("com.example.test"))
        #expect(await eventually { heard.keys.contains("edited") }, "\(heard.keys)")
    }

    final class Heard: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [String] = []
        func note(_ key: String) { lock.withLock { all.append(key) } }
        var keys: [String] { lock.withLock { all } }
    }
}
