import Foundation
import InMemoryLogging
import Logging
@testable import Preferences
import TestSupport
import Synchronization
import Testing

@Suite("Fresh reads", .ownThread)
struct FreshReadTests {
    /// Where the fixture's app domain keeps its commit counter in this process's session.
    func counterLocation(_ fixture: StoreFixture, domain: String = "com.example.test") -> CommitCounterLocation {
        CommitCounterLocation(
            for: DomainFile(directory: fixture.userDirectory, fileName: "\(domain).plist"),
            runtimeDirectory: fixture.environment["XDG_RUNTIME_DIR"])
    }

    /// The issue's 10,000 trials in the soak (`RELIABILITY_SOAK=1`), 2,000 in the test command.
    @Test("10,000 trials (2,000 outside the soak) of write, flush, tell the reader through a pipe, read: 0 stale reads")
    func noStaleReads() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let worker = try Subprocess(
            workerPath, ["write-on-request", "com.example.test", "n"], environment: fixture.processEnvironment, input: .pipe)
        defer {
            worker.closeInput()
            worker.wait()
        }
        #expect(worker.nextLine() == "ready")
        // Beside the file (no runtime directory), the counter opens when the watcher sees
        // the directory the worker made: fresh reads begin there.
        // The store checks it once the watcher has added it, just after opening it.
        #expect(waitUntil(within: .seconds(10)) { store.freshness.checks(store.appDomain) })
        var stale: [Int] = []
        let trials = soakCount(10_000, command: 2_000)
        for trial in 1...trials {
            try worker.send("\(trial)")
            guard worker.nextLine() == String(trial) else {
                Issue.record("the worker stopped answering at trial \(trial)")
                return
            }
            // The worker's flush() has returned: this read must see its write.
            if store.integer(forKey: "n") != trial { stale.append(trial) }
        }
        #expect(stale.isEmpty, "reads that missed a write whose flush had returned (trials \(stale.prefix(10)))")
    }

    @Test("a flush that finds a background write finishing returns only once that write has raised the counter")
    func flushWaitsForTheRaise() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set(0, forKey: "n")
        try store.flush()
        let counter = try #require(store.appDomain.commitCounter)
        // The counter as a flush started inside the window saw it on return, beside its value
        // in the window.
        let observed = Mutex<(inWindow: UInt32, onReturn: UInt32)?>(nil)
        // Runs on the background writer once n = 1 is renamed into place and no longer
        // pending, before the counter is raised: the window a reader elsewhere, told that a
        // flush returned, would read the old value in.
        Interleaving.run({
            let inWindow = counter.current
            Thread.detachNewThread {
                try? store.flush()
                observed.withLock { $0 = (inWindow, counter.current) }
            }
            // Gives a flush that does not wait for the write the time to return inside the
            // window; one that waits returns after this step.
            _ = waitUntil(within: .milliseconds(500)) { observed.withLock { $0 != nil } }
        }, once: .beforeRaisingCounter, at: fixture.userFile("com.example.test"))
        store.set(1, forKey: "n")
        #expect(waitUntil(within: .seconds(60)) { observed.withLock { $0 != nil } })
        let (inWindow, onReturn) = try #require(observed.withLock { $0 })
        #expect(onReturn &- inWindow == 1, "the flush returned before the write it found finishing had raised the counter")
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.test"))?["n"] == .integer(1))
    }

    @Test("a flush from inside a transaction's body, with nothing pending, returns at once: it does not wait for its own write")
    func flushInsideTransaction() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set(0, forKey: "n")
        try store.flush()
        let returned = Mutex(false)
        // On a thread of its own, so that a flush waiting for the lock its own thread holds
        // fails this test instead of hanging the run.
        Thread.detachNewThread {
            try? store.transaction { transaction in
                transaction.set(1, forKey: "n")
                try? store.flush()
            }
            returned.withLock { $0 = true }
        }
        #expect(waitUntil(within: .seconds(10)) { returned.withLock { $0 } })
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.test"))?["n"] == .integer(1))
    }

    @Test(
        "the counter file is made whole, and every writer and reader of the domain shares it",
        arguments: [false, true])
    func sharedCounter(inRuntimeDirectory: Bool) throws {
        let fixture = try StoreFixture()
        if inRuntimeDirectory { try fixture.usePrivateRuntimeDirectory() }
        let store = try fixture.store()
        store.set(1, forKey: "a")
        try store.flush()
        let location = counterLocation(fixture)
        let attributes = try FileManager.default.attributesOfItem(atPath: location.path)
        #expect(attributes[.size] as? Int == CommitCounter.Layout.size)
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o077 } == 0)
        let counter = try #require(store.appDomain.commitCounter)
        #expect(counter.path == location.path)
        #expect(location.path.hasPrefix(inRuntimeDirectory ? fixture.runtimeDirectory! + "/swift-preferences/" : fixture.userDirectory + "/."))
        let before = counter.current
        let result = try run(workerPath, ["set-keys", "com.example.test", "k", "3"], environment: fixture.processEnvironment)
        #expect(result.status == 0)
        #expect(counter.current &- before == 3, "three flushes in another process raise this process's counter three times")
        // The watcher may have caught up already; if not, this read does.
        #expect(store.integer(forKey: "k2") == 2)
        #expect(!counter.isStale)
    }

    enum Planted: String, CaseIterable {
        case symbolicLink, wrongSize, wrongHeader, worldWritable, directory
    }

    @Test("a planted or damaged counter is refused: the domain works on, push-only", arguments: Planted.allCases)
    func plantedCounter(_ planted: Planted) throws {
        let fixture = try StoreFixture()
        try fixture.usePrivateRuntimeDirectory()
        let location = counterLocation(fixture)
        try FileManager.default.createDirectory(
            atPath: fixture.userDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(
            atPath: location.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var good = [UInt8](repeating: 0, count: CommitCounter.Layout.size)
        good.replaceSubrange(0..<8, with: CommitCounter.Layout.magic)
        good[8] = 1
        switch planted {
        case .symbolicLink:
            let target = fixture.directory.file("elsewhere").path
            try Data(good).write(to: URL(fileURLWithPath: target))
            try FileManager.default.createSymbolicLink(atPath: location.path, withDestinationPath: target)
        case .wrongSize:
            try Data(good.prefix(20)).write(to: URL(fileURLWithPath: location.path))
        case .wrongHeader:
            try Data([UInt8](repeating: 0x41, count: CommitCounter.Layout.size)).write(to: URL(fileURLWithPath: location.path))
        case .worldWritable:
            try Data(good).write(to: URL(fileURLWithPath: location.path))
            #expect(chmod(location.path, 0o666) == 0)
        case .directory:
            try FileManager.default.createDirectory(atPath: location.path, withIntermediateDirectories: false)
        }
        let plantedBytes = FileManager.default.contents(atPath: location.path)
        let log = InMemoryLogHandler()
        var configuration = fixture.configuration
        configuration.logger = Logger(label: "test") { _ in log }
        let store = try PreferenceStore(domain: "com.example.test", configuration: configuration)
        #expect(store.appDomain.commitCounter == nil)
        let refusal = store.appDomain.commits.withLock { $0.refusal }
        #expect(refusal != nil)
        #expect(refusal?.path == location.path)
        let warnings = log.entries.filter { $0.metadata["MESSAGE_ID"] == .string(PreferencesLogEvent.freshReadsUnavailable.messageID) }
        #expect(warnings.count == 1)
        #expect(warnings.first?.level == .warning)
        #expect(warnings.first?.metadata["PREFERENCES_COUNTER"] == .string(location.path))
        // The domain itself is unaffected.
        store.set("works", forKey: "state")
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.test"))?["state"] == .string("works"))
        #expect(store.string(forKey: "state") == "works")
        #expect(FileManager.default.contents(atPath: location.path) == plantedBytes, "a refused counter is left as it is")
    }

    @Test("a process with no inotify instance is woken by the commit counter, not by its once-a-second poll")
    func wakeUpsWithoutInotify() async throws {
        // The test scripts install strace; a machine without it must fail here, not skip.
        let strace = try #require(installedProgram("strace"), "strace is not installed: run Tests/Scripts/install-dependencies.sh")
        let fixture = try StoreFixture()
        try fixture.usePrivateRuntimeDirectory()
        let store = try fixture.store()
        store.set(0, forKey: "n")
        try store.flush()
        // Every inotify_init1 fails as it does past fs.inotify.max_user_instances.
        let worker = try Subprocess(
            strace,
            [
                "-f", "--seccomp-bpf", "-o", "/dev/null", "-e", "trace=inotify_init1", "-e", "inject=inotify_init1:error=EMFILE",
                workerPath, "observe-key", "com.example.test", "n",
            ],
            environment: fixture.processEnvironment, input: .pipe)
        #expect(await worker.waitForLine(within: .seconds(30)) { $0 == "ready" } != nil, "\(worker.lines)")
        for value in 1...5 {
            store.set(value, forKey: "n")
            try store.flush()
            #expect(await worker.waitForLine(within: .seconds(10)) { $0.hasPrefix("changed integer(\(value)) ") } != nil)
        }
        worker.closeInput()
        let status = await worker.wait()
        let warnings = worker.errorOutput
        #expect(status == 0, "\(warnings)")
        #expect(warnings.contains("inotify"), "the worker fell back: \(warnings)")
        // Every change is delivered by the watcher thread, the process's one door, whatever
        // woke it; the counters woke it for (nearly) every one: the once-a-second poll may
        // find one first.
        let lines = worker.lines
        let changes = lines.filter { $0.hasPrefix("changed ") }.map { $0.split(separator: " ") }
        #expect(changes.count == 5, "\(lines)")
        #expect(changes.allSatisfy { $0.count == 4 && $0[2] == "prefs-watcher" }, "\(lines)")
        let wakeUps = changes.last.flatMap { Int($0[3]) } ?? 0
        #expect(wakeUps >= 4, "the counters woke the watcher \(wakeUps) times for 5 commits: \(lines)")
    }
}
