import Foundation
@testable import Preferences
import Testing
import TestSupport

/// What code that only sees a `UserDefaults` gets from ``PreferencesUserDefaults`` beyond
/// corelibs' own cases (``UserDefaultsPortTests``): our files and their rules, other
/// processes' changes as `UserDefaults.didChangeNotification`, and the layers corelibs lacks.
@Suite("PreferencesUserDefaults, as code typed UserDefaults uses it", .ownThread)
struct UserDefaultsSubclassTests {
    /// Code written for Foundation: it knows only `UserDefaults`.
    static func recordLaunch(in defaults: UserDefaults) {
        defaults.set(defaults.integer(forKey: "launchCount") + 1, forKey: "launchCount")
        defaults.set(["en", "fr"], forKey: "languages")
        defaults.set(Date(timeIntervalSince1970: 1_700_000_000), forKey: "lastLaunch")
    }

    /// Who posted `UserDefaults.didChangeNotification`, and on which thread.
    final class Posts: @unchecked Sendable {
        private let lock = NSLock()
        private var posts: [(object: ObjectIdentifier?, thread: String)] = []
        func note(_ notification: Notification) {
            let object = (notification.object as AnyObject?).map(ObjectIdentifier.init)
            let thread = CallbackThreadTests.threadName()
            lock.withLock { posts.append((object, thread)) }
        }
        func from(_ object: AnyObject) -> [String] {
            lock.withLock { posts.filter { $0.object == ObjectIdentifier(object) }.map(\.thread) }
        }
    }

    @Test("a function typed UserDefaults writes our binary file, which another process reads")
    func codeTypedUserDefaultsWritesOurFile() throws {
        let fixture = try StoreFixture()
        let defaults = try PreferencesUserDefaults(domain: "com.example.test", configuration: fixture.configuration)
        Self.recordLaunch(in: defaults)
        Self.recordLaunch(in: defaults)
        #expect(defaults.synchronize())

        let disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile("com.example.test")))
        #expect(disk["launchCount"] == .integer(2))
        #expect(disk["languages"] == .array([.string("en"), .string("fr")]))
        #expect(disk["lastLaunch"] == .date(Date(timeIntervalSince1970: 1_700_000_000)))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.userFile("com.example.test")))
        #expect(bytes.starts(with: Data("bplist00".utf8)))
        let result = try run(workerPath, ["read", "com.example.test", "launchCount"], environment: fixture.processEnvironment)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "2")
    }

    @Test("another process's change posts UserDefaults.didChangeNotification with this instance, on the watcher thread")
    func anotherProcessPostsDidChange() async throws {
        let fixture = try StoreFixture()
        let defaults = try PreferencesUserDefaults(domain: "com.example.test", configuration: fixture.configuration)
        let other = try PreferencesUserDefaults(domain: "com.example.other", configuration: fixture.configuration)
        let posts = Posts()
        let observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: nil, queue: nil) { posts.note($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        let storeObserver = NotificationCenter.default.addObserver(forName: PreferenceStore.didChangeNotification, object: defaults.store, queue: nil) { posts.note($0) }
        defer { NotificationCenter.default.removeObserver(storeObserver) }

        let result = try run(workerPath, ["set-keys", "com.example.test", "remote", "1"], environment: fixture.processEnvironment)
        #expect(result.status == 0, "\(result.output)")
        #expect(await eventually { !posts.from(defaults).isEmpty })
        #expect(Set(posts.from(defaults)) == ["prefs-watcher"])
        #expect(defaults.integer(forKey: "remote0") == 0 && defaults.object(forKey: "remote0") != nil)
        #expect(posts.from(other).isEmpty, "an instance on another domain heard nothing")
        #expect(posts.from(defaults.store).isEmpty, "its store posts no notification of its own")
    }

    @Test("this process's change posts once, with this instance, on the thread that made it")
    func ownChangePostsOnTheSettingThread() throws {
        let fixture = try StoreFixture()
        let defaults = try PreferencesUserDefaults(domain: "com.example.test", configuration: fixture.configuration)
        let posts = Posts()
        let observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: defaults, queue: nil) { posts.note($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        let here = CallbackThreadTests.threadName()
        defaults.set("dark", forKey: "theme")
        #expect(posts.from(defaults) == [here])
        defaults.set("dark", forKey: "theme")
        #expect(posts.from(defaults).count == 1, "setting the value a key has changes nothing and posts nothing")
        defaults.removeObject(forKey: "theme")
        #expect(posts.from(defaults).count == 2)
        #expect(defaults.synchronize())
    }

    @Test("PreferencesUserDefaults.standard is this program's domain, reached as UserDefaults")
    func standardInAnotherProcess() throws {
        let fixture = try StoreFixture()
        var environment = fixture.processEnvironment
        environment["PREFERENCES_DOMAIN"] = "com.example.standard"
        let result = try run(workerPath, ["user-defaults-standard", "com.example.standard", "greeting", "hello"], environment: environment)
        #expect(result.status == 0, "\(result.output)")
        // `suiteName: nil` opens the standard domain too.
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "PreferencesUserDefaults com.example.standard")
        let disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile("com.example.standard")))
        #expect(disk["greeting"] == .string("hello"))
    }

    /// Only names refused before any file is opened: the standard domain's stores would use
    /// the test process's real home (``standardInAnotherProcess()`` checks them in a child).
    @Test("suites: the global domain's name and bad names give nil")
    func suiteNames() {
        #expect(PreferencesUserDefaults(suiteName: UserDefaults.globalDomain) == nil)
        #expect(PreferencesUserDefaults(suiteName: "../escape") == nil)
        #expect(throws: PreferencesError.self) { try PreferencesUserDefaults(domain: ".hidden") }
    }

    @Test("launch arguments are parsed by the store's rules, not replaced by Foundation's")
    func argumentDomain() throws {
        let fixture = try StoreFixture()
        fixture.arguments = ["test", "-Offset", "-5", "-Name", "swift"]
        let defaults: UserDefaults = try PreferencesUserDefaults(domain: "com.example.test", configuration: fixture.configuration)
        // Foundation's own parse skips a value that starts with a dash; ours takes it.
        #expect(defaults.integer(forKey: "Offset") == -5)
        #expect(defaults.string(forKey: "Name") == "swift")
        #expect(defaults.volatileDomain(forName: UserDefaults.argumentDomain)["Name"] as? String == "swift")
        defaults.setVolatileDomain(["Name": "other"], forName: UserDefaults.argumentDomain)
        #expect(defaults.string(forKey: "Name") == "other")
        #expect(defaults.object(forKey: "Offset") == nil, "setting a volatile domain replaces it, as Apple's does")
    }

    @Test("layers corelibs lacks: forced keys, the global domain, suites, registration")
    func layers() throws {
        let fixture = try StoreFixture()
        try fixture.plant(["Locked": .string("admin")], at: fixture.systemFile("com.example.test", managed: true), mode: 0o644)
        try fixture.plant(["AppleLanguages": .array([.string("de")])], at: fixture.userFile(DomainLocations.globalFileStem))
        try fixture.plant(["Shared": .integer(7)], at: fixture.userFile("com.example.suite"))
        let defaults: UserDefaults = try PreferencesUserDefaults(domain: "com.example.test", configuration: fixture.configuration)
        defaults.set("mine", forKey: "Locked")
        #expect(defaults.string(forKey: "Locked") == "admin")
        #expect(defaults.objectIsForced(forKey: "Locked"))
        #expect(defaults.objectIsForced(forKey: "Locked", inDomain: "com.example.test"))
        #expect(!defaults.objectIsForced(forKey: "Other"))
        #expect(defaults.stringArray(forKey: "AppleLanguages") == ["de"])
        #expect(defaults.integer(forKey: "Shared") == 0)
        defaults.addSuite(named: "com.example.suite")
        #expect(defaults.integer(forKey: "Shared") == 7)
        defaults.removeSuite(named: "com.example.suite")
        #expect(defaults.object(forKey: "Shared") == nil)
        defaults.register(defaults: ["Fallback": 1.5])
        #expect(defaults.double(forKey: "Fallback") == 1.5)
        #expect(defaults.dictionaryRepresentation()["Fallback"] as? Double == 1.5)
        #expect(defaults.volatileDomainNames.contains(UserDefaults.registrationDomain))
        #expect(defaults.synchronize())
    }

    @Test("an instance goes away when released: its store does not keep it")
    func released() throws {
        let fixture = try StoreFixture()
        weak var released: PreferencesUserDefaults?
        weak var releasedStore: PreferenceStore?
        do {
            let defaults = try PreferencesUserDefaults(domain: "com.example.test", configuration: fixture.configuration)
            defaults.set(1, forKey: "k")
            #expect(defaults.synchronize())
            released = defaults
            releasedStore = defaults.store
        }
        #expect(released == nil)
        #expect(releasedStore == nil)
    }
}
