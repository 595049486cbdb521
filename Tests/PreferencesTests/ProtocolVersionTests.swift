import Foundation
import Synchronization
@testable import Preferences
import PropertyList
import Testing
import TestSupport

/// Two versions side by side (issue 39, item 2): a directory that follows a newer protocol
/// version than this library knows is read as far as it can be and never written; every
/// write says which versions met, and nothing in the directory changes. The "version 2"
/// directories here are synthetic: version 1 files with a marker naming 2.
@Suite("Protocol versions side by side", .ownThread)
struct ProtocolVersionTests {
    static let domain = "com.example.versions"

    /// Every entry under `root`, with its type, size, mode, modification time and, for a
    /// regular file, its bytes: anything a write could change.
    static func tree(_ root: String) throws -> [String: String] {
        var entries: [String: String] = [:]
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: root) else { return [:] }
        while let relative = enumerator.nextObject() as? String {
            let path = root + "/" + relative
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            var description = "mode \(String(status.st_mode, radix: 8)) size \(status.st_size) mtime \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec) links \(status.st_nlink)"
            if status.st_mode & S_IFMT == S_IFREG, let data = manager.contents(atPath: path) {
                description += " bytes \(data.base64EncodedString())"
            }
            entries[relative] = description
        }
        return entries
    }

    static func mark(_ directory: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/.swift-preferences-protocol"))
    }

    /// A user directory written by this library (a domain with values and a history, a
    /// global domain, a by-host file), then marked with `marker`.
    static func markedFixture(_ marker: String) throws -> StoreFixture {
        let fixture = try StoreFixture()
        let files = PreferenceFiles(configuration: fixture.configuration)
        try files.setValues(["Greeting": .string("hello"), "Count": .integer(1)], at: .named(domain))
        try files.setValues(["Count": .integer(2)], at: .named(domain))
        try files.setValues(["Accent": .string("blue")], at: .global())
        if (DomainLocations.readMachineID() != nil) {
            try files.setValues(["Local": .bool(true)], at: .named(domain, currentHost: true))
        }
        try mark(fixture.userDirectory, marker)
        return fixture
    }

    @Test("a directory without a marker follows version 1; a marker names its version")
    func versionIsLearned() throws {
        let fixture = try StoreFixture()
        try FileManager.default.createDirectory(atPath: fixture.userDirectory, withIntermediateDirectories: true)
        let files = PreferenceFiles(configuration: fixture.configuration)
        #expect(PreferenceFiles.supportedProtocolVersion == 1)
        #expect(files.userDirectoryProtocolVersion == 1)
        #expect(files.systemDirectoryProtocolVersion == 1)
        try Self.mark(fixture.userDirectory, "2\n")
        #expect(files.userDirectoryProtocolVersion == 2)
        #expect(PreferenceFiles.protocolVersion(ofDirectory: fixture.userDirectory) == 2)
        try Self.mark(fixture.userDirectory, "  17 ")
        #expect(files.userDirectoryProtocolVersion == 17)
        for garbage in ["", "two", "2.0", "-1", "0", "1 2", String(repeating: "9", count: 80)] {
            try Self.mark(fixture.userDirectory, garbage)
            #expect(files.userDirectoryProtocolVersion == nil, "marker \(garbage.debugDescription)")
        }
        try Self.mark(fixture.userDirectory, "1\n")
        try files.setValues(["Written": .bool(true)], at: .named(Self.domain))
        #expect(try files.persistentDomainValues(at: .named(Self.domain)) == ["Written": .bool(true)])
    }

    @Test("a version 2 directory is read, and every kind of write is refused naming both versions, leaving every byte", arguments: ["2\n", "not a version\n"])
    func newerDirectoryIsReadNotWritten(marker: String) throws {
        let fixture = try Self.markedFixture(marker)
        let before = try Self.tree(fixture.userDirectory)
        let files = PreferenceFiles(configuration: fixture.configuration)

        // Reads answer.
        let store = try PreferenceStore(domain: Self.domain, configuration: fixture.configuration)
        #expect(store.string(forKey: "Greeting") == "hello")
        #expect(store.integer(forKey: "Count") == 2)
        #expect(store.string(forKey: "Accent") == "blue")
        #expect(try files.persistentDomainValues(at: .named(Self.domain))?["Count"] == .integer(2))
        // The current version and the one it replaced.
        #expect(try files.generations(at: .named(Self.domain)).map(\.number) == [2, 1])

        // Every write is refused, with an error that names the directory and both versions.
        func expectRefused(_ what: String, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("\(what) was not refused")
            } catch let error as PreferencesError {
                #expect(error.code == .unsupportedProtocolVersion, "\(what): \(error)")
                #expect(error.reason.contains(fixture.userDirectory), "\(what): \(error)")
                #expect(error.reason.contains("knows protocol version 1"), "\(what): \(error)")
                if marker == "2\n" { #expect(error.reason.contains("follows protocol version 2"), "\(what): \(error)") }
            } catch {
                Issue.record("\(what): \(error)")
            }
        }
        store.set("bye", forKey: "Greeting")
        expectRefused("a store's set and flush") { try store.flush() }
        expectRefused("a transaction") { try store.transaction { $0.set(3, forKey: "Count") } }
        expectRefused("setValues") { try files.setValues(["Count": .integer(9)], at: .named(Self.domain)) }
        expectRefused("a new domain") { try files.setValues(["New": .bool(true)], at: .named("com.example.new")) }
        expectRefused("the global domain") { try files.setValues(["Accent": .string("red")], at: .global()) }
        expectRefused("replacePersistentDomain") { try files.replacePersistentDomain([:], at: .named(Self.domain)) }
        expectRefused("undo") { _ = try files.undo(at: .named(Self.domain)) }
        expectRefused("purge") { try files.purge(keys: ["Greeting"], at: .named(Self.domain)) }
        if (DomainLocations.readMachineID() != nil) {
            expectRefused("a by-host domain (covered by its parent's marker)") {
                try files.setValues(["Local": .bool(false)], at: .named(Self.domain, currentHost: true))
            }
        }
        // The store still holds its own value in memory, as after any failed write.
        #expect(store.string(forKey: "Greeting") == "bye")
        let after = try Self.tree(fixture.userDirectory)
        let changed = after.keys.filter { before[$0] != after[$0] }.sorted()
        let gone = before.keys.filter { after[$0] == nil }.sorted()
        #expect(changed.isEmpty && gone.isEmpty, "changed or new: \(changed), gone: \(gone)")
    }

    @Test("a managed layer in a version 2 system directory is not written")
    func newerSystemDirectory() throws {
        let fixture = try StoreFixture()
        let files = PreferenceFiles(configuration: fixture.configuration)
        try FileManager.default.createDirectory(atPath: fixture.systemDirectory + "/managed", withIntermediateDirectories: true)
        try files.replaceManagedDomain(["Forced": .bool(true)], named: Self.domain)
        try Self.mark(fixture.systemDirectory, "2")
        let before = try Self.tree(fixture.systemDirectory)
        #expect(files.systemDirectoryProtocolVersion == 2)
        let error = #expect(throws: PreferencesError.self) {
            try files.replaceManagedDomain(["Forced": .bool(false)], named: Self.domain)
        }
        #expect(error?.code == .unsupportedProtocolVersion)
        #expect(try Self.tree(fixture.systemDirectory) == before)
        let store = try PreferenceStore(domain: Self.domain, configuration: fixture.configuration)
        #expect(store.bool(forKey: "Forced"))
        #expect(store.objectIsForced(forKey: "Forced"))
    }

    @Test("a directory marked while a writer waits for the lock is not written: the marker is checked again under the lock")
    func markedWhileWaiting() throws {
        let fixture = try StoreFixture()
        let files = PreferenceFiles(configuration: fixture.configuration)
        try files.setValues(["Count": .integer(1)], at: .named(Self.domain))
        let lockPath = fixture.userDirectory + "/.\(Self.domain).plist.lock"
        // Another process holds the lock; this one's write passes its first check (no marker
        // yet) and waits for it.
        let holder = try Subprocess(workerPath, ["hold-lock", lockPath, "60000"], environment: fixture.processEnvironment)
        defer { holder.signal(SIGKILL); _ = holder.wait() }
        try #require(holder.nextLine() == "locked")
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<PreferencesError?>(nil)
        Thread.detachNewThread {
            do throws(PreferencesError) { try files.setValues(["Count": .integer(2)], at: .named(Self.domain)) } catch {
                outcome.withLock { $0 = error }
            }
            done.signal()
        }
        try Self.waitForBlockedLock(on: lockPath)
        // A newer implementation marks the directory (and would write in its own form under
        // the lock): the waiting writer must not write once it gets the lock.
        try Self.mark(fixture.userDirectory, "2\n")
        let before = try Self.tree(fixture.userDirectory)
        holder.signal(SIGKILL)
        _ = holder.wait()
        done.wait()
        #expect(outcome.withLock { $0 }?.code == .unsupportedProtocolVersion)
        #expect(try Self.tree(fixture.userDirectory) == before)
        #expect(try files.persistentDomainValues(at: .named(Self.domain)) == ["Count": .integer(1)])
    }

    /// Waits until `/proc/locks` shows a process blocked on the `flock` of the file at `path`
    /// (a line `N: -> FLOCK ... <major>:<minor>:<inode> ...`).
    static func waitForBlockedLock(on path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { throw CocoaError(.fileNoSuchFile) }
        let inode = ":\(status.st_ino) "
        for _ in 0..<6000 {
            let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
            if locks.split(separator: "\n").contains(where: { $0.contains("-> FLOCK") && $0.contains(inode) }) { return }
            usleep(5_000)
        }
        Issue.record("no writer ever waited for the lock on \(path)")
    }
}
