import Foundation
import InMemoryLogging
import Logging
@testable import Preferences
import Synchronization
import Testing
import TestSupport

/// The by-location API the `defaults` tool writes through (`PreferenceFiles`): same lock,
/// merge and notifications as a store's own writes, and unusable files refused untouched.
@Suite("Persistent domains by location", .ownThread)
struct PersistentDomainFilesTests {
    @Test("locations: names are validated, NSGlobalDomain is the global domain, paths get .plist")
    func locations() throws {
        #expect(throws: PreferencesError.self) { try PersistentDomainLocation.named("bad/name") }
        #expect(throws: PreferencesError.self) { try PersistentDomainLocation.named(".hidden") }
        #expect(try PersistentDomainLocation.named("NSGlobalDomain") == .global())
        #expect(try PersistentDomainLocation.file(atPath: "/tmp/x/../y/file").description == "/tmp/y/file.plist")
        #expect(try PersistentDomainLocation.file(atPath: "/tmp/a.plist").isFile)
        #expect(throws: PreferencesError.self) { try PersistentDomainLocation.file(atPath: "/tmp/dir/") }
        let fixture = try StoreFixture()
        let files = PreferenceFiles(configuration: fixture.configuration)
        #expect(files.filePath(of: .global()) == "\(fixture.userDirectory)/.GlobalPreferences.plist")
        #expect(files.filePath(of: try .named("com.example.x", currentHost: true)) == fixture.userFile("com.example.x", byHost: true))
    }

    @Test("setValues merges with the file and notifies this process's stores of the domain")
    func setValuesNotifies() throws {
        let fixture = try StoreFixture()
        try fixture.plant(["other": "kept"], at: fixture.userFile("com.example.tool"))
        let observing = try fixture.store("com.example.tool")
        let seen = Mutex<[PreferenceChange]>([])
        let observation = observing.observe("k") { change in seen.withLock { $0.append(change) } }
        let tool = PreferenceFiles(configuration: fixture.configuration)
        let changes: [String: PropertyListValue?] = ["k": 5, "other": nil]
        try tool.setValues(changes, at: .named("com.example.tool"))
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.tool")) == ["k": 5])
        #expect(observing.integer(forKey: "k") == 5)
        #expect(seen.withLock { $0.map(\.newValue) } == [5])
        observation.cancel()
    }

    @Test("a write that times out on the lock is not left pending, so nothing is written later behind the caller's back")
    func failedWriteIsNotRetried() throws {
        let fixture = try StoreFixture()
        try fixture.plant(["k": 1], at: fixture.userFile("com.example.locked"))
        var configuration = fixture.configuration
        configuration.lockTimeout = .milliseconds(200)
        let store = try PreferenceStore(domain: "com.example.tool", configuration: configuration)
        let tool = PreferenceFiles(configuration: configuration)
        let location = try PersistentDomainLocation.named("com.example.locked")
        // Another process holds the domain's lock, as a stuck writer would.
        let lockPath = fixture.userDirectory + "/.com.example.locked.plist.lock"
        let holder = try holdLock(lockPath)
        defer { release(holder) }

        let error = #expect(throws: PreferencesError.self) { try tool.setValues(["k": 2], at: location) }
        #expect(error?.code == .lockTimeout)
        let replaced = #expect(throws: PreferencesError.self) { try tool.replacePersistentDomain(["k": 3], at: location) }
        #expect(replaced?.code == .lockTimeout)
        release(holder)
        // The lock is free now: a flush (as at exit) has nothing of the failed writes to write.
        #expect(!(try tool.persistentDomain(at: location).hasPendingChanges))
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.locked")) == ["k": 1])
    }

    @Test("a store's flush that times out on the lock reports it: thrown, in fileProblems, and logged once as a failed write")
    func lockTimeoutReported() throws {
        let fixture = try StoreFixture()
        let log = InMemoryLogHandler()
        var configuration = fixture.configuration
        configuration.lockTimeout = .milliseconds(200)
        configuration.logger = Logger(label: "test") { _ in log }
        let store = try PreferenceStore(domain: "com.example.stuck", configuration: configuration)
        store.set(1, forKey: "k")
        try store.flush()
        let lockPath = fixture.userDirectory + "/.com.example.stuck.plist.lock"
        let holder = try holdLock(lockPath)
        defer { release(holder) }
        store.set(2, forKey: "k")
        let error = #expect(throws: PreferencesError.self) { try store.flush() }
        #expect(error?.code == .lockTimeout)
        #expect(store.fileProblems.map(\.code).contains(.lockTimeout))
        let failures = log.entries.filter { $0.metadata["MESSAGE_ID"] == .string(PreferencesLogEvent.writeFailed.messageID) }
        #expect(failures.count == 1, "\(log.entries)")
        release(holder)
        // The set is still pending, and is written once the lock is free.
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.stuck")) == ["k": 2])
    }

    /// Starts a worker that takes the lock file's lock and holds it until ``release(_:)``,
    /// and returns once it holds it. Not for a set time: on a loaded machine this test may
    /// not run again for longer than any such time, and find the lock free when it must
    /// time out on it.
    private func holdLock(_ path: String) throws -> Subprocess {
        // Ten minutes is only a bound in case the test dies; release(_:) kills it.
        let holder = try Subprocess(workerPath, ["hold-lock", path, "600000"])
        guard holder.nextLine() == "locked" else {
            // Its standard error is whole once it has exited.
            holder.signal(SIGKILL)
            holder.wait()
            throw WorkerFailed(description: "the worker did not lock \(path): \(holder.errorOutput)")
        }
        return holder
    }

    /// Ends a ``holdLock(_:)`` worker, and with it the lock (one process, whose lock goes with
    /// it); once is enough.
    private func release(_ holder: Subprocess) {
        holder.signal(SIGKILL)
        holder.wait()
    }

    @Test("modifyPersistentDomain reads and writes under the lock; replace with nothing removes the file")
    func modifyAndReplace() throws {
        let fixture = try StoreFixture()
        let files = PreferenceFiles(configuration: fixture.configuration)
        let location = try PersistentDomainLocation.named("com.example.m")
        try files.replacePersistentDomain(["list": ["a"]], at: location)
        let count = try files.modifyPersistentDomain(at: location, changing: ["list"]) { values -> Int in
            values["list"] = ["a", "b"]
            return values.count
        }
        #expect(count == 1)
        #expect(try files.persistentDomainValues(at: location) == ["list": ["a", "b"]])
        try files.replacePersistentDomain([:], at: location)
        #expect(!FileManager.default.fileExists(atPath: fixture.userFile("com.example.m")))
        #expect(try files.persistentDomainValues(at: location) == nil)
    }

    @Test("a corrupt file is refused by every write and left byte-identical")
    func corruptRefused() throws {
        let fixture = try StoreFixture()
        let path = fixture.userFile("com.example.bad")
        try FileManager.default.createDirectory(atPath: fixture.userDirectory, withIntermediateDirectories: true)
        try Data("bplist00 garbage".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let before = FileSnapshot(path)
        let files = PreferenceFiles(configuration: fixture.configuration)
        let location = try PersistentDomainLocation.named("com.example.bad")
        #expect(throws: PreferencesError.self) { try files.persistentDomainValues(at: location) }
        #expect(throws: PreferencesError.self) { try files.setValues(["k": 1], at: location) }
        #expect(throws: PreferencesError.self) { try files.replacePersistentDomain(["k": 1], at: location) }
        #expect(throws: PreferencesError.self) { try files.modifyPersistentDomain(at: location) { $0["k"] = 1 } }
        #expect(FileSnapshot(path) == before)
    }

    @Test("a file named by path may be XML for reading")
    func xmlByPath() throws {
        let fixture = try StoreFixture()
        let path = fixture.directory.file("plain.plist").path
        try Data(XMLPropertyListEncoder().encode(["k": "v"])).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let files = PreferenceFiles(configuration: fixture.configuration)
        #expect(try files.persistentDomainValues(at: .file(atPath: path)) == ["k": "v"])
    }

    @Test("persistentDomainNames lists domains, not the global domain or hidden files")
    func names() throws {
        let fixture = try StoreFixture()
        for name in ["com.b", "com.a"] { try fixture.plant(["k": 1], at: fixture.userFile(name)) }
        try fixture.plant(["k": 1], at: fixture.userFile(".GlobalPreferences"))
        try fixture.plant(["k": 1], at: fixture.userFile("com.c", byHost: true))
        let files = PreferenceFiles(configuration: fixture.configuration)
        #expect(files.persistentDomainNames() == ["com.a", "com.b"])
        #expect(files.persistentDomainNames(currentHost: true) == ["com.c"])
    }

    @Test("sources(forKey:) lists every layer holding the key, winner first")
    func sources() throws {
        let fixture = try StoreFixture()
        try fixture.plant(["k": "system"], at: fixture.systemFile("com.example.s"))
        try fixture.plant(["k": "global"], at: fixture.userFile(".GlobalPreferences"))
        try fixture.plant(["k": "app"], at: fixture.userFile("com.example.s"))
        let store = try fixture.store("com.example.s")
        store.register(defaults: ["k": "registered"])
        #expect(store.sources(forKey: "k").map(\.layer) == [.app, .global, .system, .registration])
        #expect(store.sources(forKey: "k").map(\.value) == ["app", "global", "system", "registered"])
        #expect(store.sources(forKey: "k").first?.path == fixture.userFile("com.example.s"))
        #expect(store.sources(forKey: "none").isEmpty)
    }

    @Test("declaredDomains lists the domains schemas and Settings.bundles declare, not hidden files or bad names")
    func declaredDomains() throws {
        let fixture = try StoreFixture()
        _ = try fixture.installSchema(["Interval": ["Type": "integer", "Default": 5]], for: "com.example.native")
        let directory = fixture.schemaDirectory
        try FileManager.default.createDirectory(atPath: directory + "/com.example.bundle.bundle", withIntermediateDirectories: true)
        for stray in [".hidden.plist", "bad name.plist", "notes.txt"] {
            _ = FileManager.default.createFile(atPath: directory + "/" + stray, contents: Data())
        }
        let files = PreferenceFiles(configuration: fixture.configuration)
        #expect(files.declaredDomains() == ["com.example.native": .native, "com.example.bundle": .settingsBundle])
    }
}

/// A worker that did not do what a test started it for.
private struct WorkerFailed: Error, CustomStringConvertible {
    let description: String
}
