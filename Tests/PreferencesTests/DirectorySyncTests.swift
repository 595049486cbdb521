import Foundation
import Logging
@testable import Preferences
import Synchronization
import SystemPackage
import Testing
import TestSupport

@Suite("Directory syncs off the writing thread", .ownThread)
struct DirectorySyncTests {
    /// A logger that drops everything: failures are checked through the thrown errors.
    static let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    @Test("a wait returns only once a sync that started after the request has finished")
    func waitCoversRequest() throws {
        let temporary = try TemporaryDirectory()
        let path = temporary.url.path
        let release = DispatchSemaphore(value: 0)
        let syncs = Atomic<Int>(0)
        let syncer = DirectorySync { _ throws(Errno) in
            syncs.add(1, ordering: .relaxed)
            release.wait()
        }
        syncer.requestSync(of: path, logger: Self.silent)
        #expect(syncer.hasOutstandingSync(of: path))
        let waited = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? syncer.waitForRequestedSyncs(of: path)
            waited.store(true, ordering: .releasing)
            done.signal()
        }
        // While the sync is held, the waiter must still be waiting.
        Thread.sleep(forTimeInterval: 0.2)
        let waitedWhileHeld = waited.load(ordering: .acquiring)
        #expect(!waitedWhileHeld)
        release.signal()
        done.wait()
        let waitedAfterRelease = waited.load(ordering: .acquiring)
        #expect(waitedAfterRelease)
        #expect(!syncer.hasOutstandingSync(of: path))
        #expect(syncs.load(ordering: .relaxed) == 1)
    }

    @Test("requests made while a sync runs share the next one")
    func requestsShareOneSync() throws {
        let directory = try TemporaryDirectory()
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let syncs = Atomic<Int>(0)
        let syncer = DirectorySync { _ throws(Errno) in
            if syncs.add(1, ordering: .relaxed).newValue == 1 {
                started.signal()
                release.wait()
            }
        }
        syncer.requestSync(of: directory.url.path, logger: Self.silent)
        started.wait()
        // The first sync is running: these three are not covered by it and share the next.
        for _ in 0..<3 { syncer.requestSync(of: directory.url.path, logger: Self.silent) }
        release.signal()
        try syncer.waitForRequestedSyncs(of: directory.url.path)
        #expect(syncs.load(ordering: .relaxed) == 2)
    }

    @Test("a failed sync is thrown to its waiter; the next wait retries it")
    func failureThenSuccess() throws {
        let directory = try TemporaryDirectory()
        let failing = Atomic<Bool>(true)
        let syncs = Atomic<Int>(0)
        // The delayed sync never comes within the test, so every sync counted is a wait's.
        // With the usual 5 ms, a test thread descheduled that long let it run and fail
        // first, and each wait then retried it: one sync more than counted below.
        let syncer = DirectorySync(gatheringDelay: .seconds(3600)) { _ throws(Errno) in
            syncs.add(1, ordering: .relaxed)
            if failing.load(ordering: .relaxed) { throw Errno.ioError }
        }
        syncer.requestSync(of: directory.url.path, logger: Self.silent)
        let error = #expect(throws: PreferencesError.self) { try syncer.waitForRequestedSyncs(of: directory.url.path) }
        #expect(error?.code == .io)
        #expect(error?.errno == Errno.ioError.rawValue)
        // A second wait retries the sync (a flush retried after the failure): still failing.
        #expect(throws: PreferencesError.self) { try syncer.waitForRequestedSyncs(of: directory.url.path) }
        #expect(syncs.load(ordering: .relaxed) == 2)
        // Once the disk recovers, the next wait's retry succeeds.
        failing.store(false, ordering: .relaxed)
        try syncer.waitForRequestedSyncs(of: directory.url.path)
        #expect(syncs.load(ordering: .relaxed) == 3)
        #expect(!syncer.hasOutstandingSync(of: directory.url.path))
    }

    @Test("a background flush's directory is synced with nobody waiting")
    func backgroundSyncRuns() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set(1, forKey: "background")
        let file = fixture.userDirectory + "/com.example.test.plist"
        // The deadline bounds a failure only. In a full run every suite's directories share
        // this process's one sync queue, which syncs them one after another, and with other
        // processes flushing on two cores each fsync waits for a journal commit: a CI run of
        // 2026-11-26 found this directory's sync still outstanding after 10 s.
        let deadline = ContinuousClock.now + .seconds(60)
        // The background flush writes the file, then the delayed sync covers its rename.
        while (!FileManager.default.fileExists(atPath: file) || DirectorySync.shared.hasOutstandingSync(of: fixture.userDirectory))
            && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        #expect(FileManager.default.fileExists(atPath: file))
        #expect(!DirectorySync.shared.hasOutstandingSync(of: fixture.userDirectory))
    }

    @Test("flush() returns with the background flush's directory sync done")
    func flushWaitsForBackgroundSync() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set(1, forKey: "synced")
        try store.flush()
        store.set(2, forKey: "synced")
        try store.flush()
        #expect(!DirectorySync.shared.hasOutstandingSync(of: fixture.userDirectory))
    }
}
