// The DocC article's adapter (BackingAppStorageInAUIFramework.md), as it stands there:
import Preferences
import Synchronization

/// What a UI framework's `@AppStorage` asks of its store (SwiftCrossUI's shape).
protocol AppStorageProvider: Sendable {
    func persistValue<Value: Codable>(_ value: Value, forKey key: String) throws
    func retrieveValue<Value: Codable>(ofType type: Value.Type, forKey key: String) -> Value?
    func listenToChanges(_ action: @MainActor @Sendable @escaping (String) -> Void)
}

/// `@AppStorage` values in a preferences domain, with every process's changes.
final class PreferencesAppStorage: AppStorageProvider {
    let store: PreferenceStore
    private let observations = Mutex<[PreferenceObservation]>([])

    init(store: PreferenceStore = .standard) {
        self.store = store
    }

    func persistValue<Value: Codable>(_ value: Value, forKey key: String) throws {
        try store.trySet(PropertyListValueEncoder().encode(value), forKey: key)
    }

    func retrieveValue<Value: Codable>(ofType type: Value.Type, forKey key: String) -> Value? {
        store.value(forKey: key).flatMap { try? PropertyListValueDecoder().decode(type, from: $0) }
    }

    func listenToChanges(_ action: @MainActor @Sendable @escaping (String) -> Void) {
        // Observers run on the thread that made a change, or on the watcher thread for
        // another process's: the UI hears of it on the main actor.
        let observation = store.observe(options: []) { change in
            Task { @MainActor in action(change.key) }
        }
        observations.withLock { $0.append(observation) }
    }
}
// End of the article's adapter.

import Foundation
import Testing
import TestSupport

/// The adapter that <doc:BackingAppStorageInAUIFramework> shows, compiled from the lines above
/// (which must be the article's, character for character) and exercised as a UI framework's
/// `@AppStorage` would use it (issue 38, item 4).
@Suite("A UI framework's app storage over a store", .ownThread)
struct AppStorageAdapterTests {
    struct Window: Codable, Equatable {
        var width: Int
        var title: String
        var tags: [String]
    }

    /// What a listener heard, and on which threads (by the names the library gives them).
    /// The action is `@MainActor`, so the compiler already holds the adapter to calling it
    /// there; what is checked is that no call is left on the watcher thread, where another
    /// process's change is first delivered.
    final class Heard: @unchecked Sendable {
        private let lock = NSLock()
        private var keys: [String] = []
        private var threads: Set<String> = []

        func note(_ key: String) {
            let thread = CallbackThreadTests.threadName()
            lock.withLock {
                keys.append(key)
                threads.insert(thread)
            }
        }

        var all: [String] { lock.withLock { keys } }
        var threadNames: Set<String> { lock.withLock { threads } }
    }

    @Test("values of several types go in and come back as they were; a wrong type or a missing key reads as nil")
    func valuesComeBack() throws {
        let fixture = try StoreFixture()
        let storage = PreferencesAppStorage(store: try fixture.store())
        let window = Window(width: 800, title: "Main", tags: ["a", "b"])
        try storage.persistValue(42, forKey: "count")
        try storage.persistValue("dark", forKey: "theme")
        try storage.persistValue(true, forKey: "enabled")
        try storage.persistValue(0.25, forKey: "ratio")
        try storage.persistValue(window, forKey: "window")
        #expect(storage.retrieveValue(ofType: Int.self, forKey: "count") == 42)
        #expect(storage.retrieveValue(ofType: String.self, forKey: "theme") == "dark")
        #expect(storage.retrieveValue(ofType: Bool.self, forKey: "enabled") == true)
        #expect(storage.retrieveValue(ofType: Double.self, forKey: "ratio") == 0.25)
        #expect(storage.retrieveValue(ofType: Window.self, forKey: "window") == window)
        #expect(storage.retrieveValue(ofType: Window.self, forKey: "theme") == nil)
        #expect(storage.retrieveValue(ofType: String.self, forKey: "missing") == nil)

        // In the file as native values, not an archive: the struct is a dictionary, which
        // another process reads back.
        try storage.store.flush()
        let disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile("com.example.test")))
        guard case .dictionary(let stored) = disk["window"] else {
            Issue.record("window is stored as \(String(describing: disk["window"]))")
            return
        }
        #expect(stored["title"] == .string("Main"))
        #expect(stored["tags"] == .array([.string("a"), .string("b")]))
        let result = try run(workerPath, ["read", "com.example.test", "theme"], environment: fixture.processEnvironment)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "dark")
    }

    @Test("a value the domain cannot take throws, and the key keeps its value")
    func refusedValueThrows() throws {
        let fixture = try StoreFixture()
        var configuration = fixture.configuration
        configuration.sizeLimit = 4_096
        configuration.softSizeLimit = 2_048
        let storage = PreferencesAppStorage(store: try PreferenceStore(domain: "com.example.test", configuration: configuration))
        try storage.persistValue("small", forKey: "note")
        #expect(throws: PreferencesError.self) {
            try storage.persistValue(String(repeating: "x", count: 8_192), forKey: "note")
        }
        #expect(storage.retrieveValue(ofType: String.self, forKey: "note") == "small")
        // Written before the fixture's directory goes, not by a background write after it.
        try storage.store.flush()
    }

    @Test("a key another process sets reaches the listener, off the watcher thread, and so does this process's own")
    func changesReachTheListener() async throws {
        let fixture = try StoreFixture()
        let storage = PreferencesAppStorage(store: try fixture.store())
        let heard = Heard()
        storage.listenToChanges { key in heard.note(key) }

        let result = try run(workerPath, ["set-keys", "com.example.test", "fromAnotherProcess", "1"], environment: fixture.processEnvironment)
        #expect(result.status == 0, "\(result.output)")
        #expect(await eventually { heard.all.contains("fromAnotherProcess0") }, "heard: \(heard.all)")
        #expect(storage.retrieveValue(ofType: Int.self, forKey: "fromAnotherProcess0") == 0)

        try storage.persistValue("light", forKey: "theme")
        #expect(await eventually { heard.all.contains("theme") }, "heard: \(heard.all)")
        #expect(!heard.threadNames.contains("prefs-watcher"), "\(heard.threadNames)")
        try storage.store.flush()
    }

    @Test("the adapter above is the article's, character for character, and at most 40 lines")
    func articleShowsThisCode() throws {
        let tests = URL(fileURLWithPath: #filePath)
        let root = tests.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/Preferences/Preferences.docc/Articles/BackingAppStorageInAUIFramework.md"),
            encoding: .utf8)
        let source = try String(contentsOf: tests, encoding: .utf8)
        let shown = try #require(article.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
        // Split, not written whole, so these lines do not match themselves.
        let start = "// The DocC article" + "'s adapter (BackingAppStorageInAUIFramework.md), as it stands there:\n"
        let end = "// End of the article" + "'s adapter.\n"
        let compiled = try #require(source.components(separatedBy: start).dropFirst().first?.components(separatedBy: end).first)
        #expect(compiled == shown)
        #expect(shown.split(separator: "\n", omittingEmptySubsequences: false).count - 1 <= 40)
    }
}
