import Foundation
import Glibc
@testable import Preferences
import Synchronization
import Testing
import TestSupport

/// Where callbacks run (ARCHITECTURE.md, "Where callbacks run"): another process's changes on
/// the watcher thread only, in commit order, each commit once; never on a thread that only
/// read, whoever found the change.
///
/// Shared state here is locked with the library's `ThreadLock` (a pthread mutex), not
/// `Synchronization.Mutex`: these tests run under the thread sanitizer too, which sees no
/// ordering through `Mutex`'s priority-inheritance futex.
@Suite("Where callbacks run", .ownThread)
struct CallbackThreadTests {
    /// The OS name of the calling thread, as the library sets it with `prctl`.
    static func threadName() -> String {
        // The kernel's record of the name, as `top -H` reads it.
        let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        return name?.trimmingCharacters(in: .newlines) ?? "?"
    }

    /// The soak (`RELIABILITY_SOAK=1`) makes the 1,000 commits; the test command 300,
    /// each still heard before the next is made while the reading thread reads in a loop.
    @Test("a read under the application's lock never runs an observer that takes that lock: 1,000 commits (300 outside the soak) by another process, all heard, none on the reading thread")
    func readUnderApplicationLock() async throws {
        let commits = soakCount(1_000, command: 300)
        let fixture = try StoreFixture(onTmpfs: true)
        try fixture.usePrivateRuntimeDirectory()
        let store = try fixture.store()
        // The application's own lock, not recursive: an observer run inside a read made under
        // it would deadlock (NSLock) here, as it did when reads delivered what they found.
        let applicationLock = NSLock()
        let heard = ThreadLock<[Int]>([], rank: .leaf)
        let handlerThreads = ThreadLock<Set<String>>([], rank: .leaf)
        let readingThread = ThreadLock<pthread_t?>(nil, rank: .leaf)
        let ranOnReadingThread = Atomic(0)
        @Sendable func noteThread() {
            if readingThread.withLock({ $0 }).map({ pthread_equal($0, pthread_self()) != 0 }) == true {
                ranOnReadingThread.add(1, ordering: .relaxed)
            }
            let name = Self.threadName()
            handlerThreads.withLock { _ = $0.insert(name) }
        }
        let observation = store.observe("n") { change in
            noteThread()
            applicationLock.lock()
            defer { applicationLock.unlock() }
            if let value = change.newValue { heard.withLock { $0.append(value.coercedInteger) } }
        }
        let notifications = Atomic(0)
        let token = NotificationCenter.default.addObserver(
            forName: PreferenceStore.didChangeNotification, object: store, queue: nil
        ) { _ in
            noteThread()
            applicationLock.lock()
            defer { applicationLock.unlock() }
            notifications.add(1, ordering: .relaxed)
        }
        defer { NotificationCenter.default.removeObserver(token) }

        let worker = try Subprocess(workerPath, ["write-on-request", "com.example.test", "n"], environment: fixture.processEnvironment, input: .pipe)
        #expect(await eventually { worker.lines.contains("ready") })
        #expect(await eventually { heard.withLock { $0.last } == 0 || store.integer(forKey: "n") == 0 })

        let stop = Atomic(false)
        let readsDone = DispatchSemaphore(value: 0)
        let reads = Atomic(0)
        let readerRereadsBefore = FreshnessChecks.rereadsByReads
        Thread {
            readingThread.withLock { $0 = pthread_self() }
            while !stop.load(ordering: .relaxed) {
                applicationLock.lock()
                _ = store.integer(forKey: "n")
                _ = store.bool(forKey: "n")
                applicationLock.unlock()
                reads.add(1, ordering: .relaxed)
                // A pause, as the workers' reading threads take: without it this thread kept a
                // whole core busy for as long as the test ran (most of a test run when the suite
                // was loaded), starving the rest of the run, this test's own waits included.
                // Reads still come thousands of times a second and find commits first.
                usleep(50)
            }
            readsDone.signal()
        }.start()
        #expect(await eventually { reads.load(ordering: .relaxed) > 0 })
        for value in 1...commits {
            try worker.send("\(value)")
            // Each commit is heard before the next is made, so none is folded into another.
            let arrived = await eventually { heard.withLock { $0.last } == value }
            #expect(arrived, "commit \(value) was not heard: the reading thread may be stuck")
            if !arrived { break }
        }
        stop.store(true, ordering: .relaxed)
        #expect(readsDone.wait(timeout: .now() + 30) == .success, "the reading thread never finished")
        worker.closeInput()
        await worker.wait()
        observation.cancel()

        let values = heard.withLock { $0 }.drop { $0 == 0 }
        #expect(Array(values) == Array(1...commits), "each commit heard once, in order")
        #expect(ranOnReadingThread.load(ordering: .relaxed) == 0, "a callback ran on the thread that only read")
        #expect(handlerThreads.withLock { $0 } == ["prefs-watcher"])
        #expect(notifications.load(ordering: .relaxed) >= commits)
        // The reads did find commits before the watcher did: the path this test is about.
        #expect(FreshnessChecks.rereadsByReads > readerRereadsBefore, "no read ever caught up first")
        #expect(worker.terminationStatus == 0)
    }

    /// Commits by this process, heard by a worker that reads in a loop meanwhile: the issue's
    /// 10,000 in the soak (`RELIABILITY_SOAK=1`), 2,000 in the test command.
    private func commitsHeardInOrder(fixture: StoreFixture, withoutInotify: Bool) async throws {
        let commits = soakCount(10_000, command: 2_000)
        let store = try fixture.store()
        store.set(0, forKey: "n")
        try store.flush()
        let observe = ["observe-order", "com.example.test", "n", "2"]
        let worker: Subprocess
        if withoutInotify {
            let strace = try #require(installedProgram("strace"), "strace is not installed: run Tests/Scripts/install-dependencies.sh")
            // Every inotify_init1 fails as it does past fs.inotify.max_user_instances.
            worker = try Subprocess(
                strace,
                ["-f", "--seccomp-bpf", "-o", "/dev/null", "-e", "trace=inotify_init1", "-e", "inject=inotify_init1:error=EMFILE", workerPath]
                    + observe, environment: fixture.processEnvironment, input: .pipe)
        } else {
            worker = try Subprocess(workerPath, observe, environment: fixture.processEnvironment, input: .pipe)
        }
        #expect(await eventually { worker.lines.contains("ready") })
        for value in 1...commits {
            store.set(value, forKey: "n")
            try store.flush()
        }
        #expect(await eventually(within: .seconds(60)) { worker.lines.last.map { $0.hasPrefix("change ") && $0.split(separator: " ")[2] == "\(commits)" } == true },
                "\(worker.lines.suffix(3))")
        worker.closeInput()
        await worker.wait()
        let warnings = worker.errorOutput
        #expect(worker.terminationStatus == 0, "\(warnings)")
        if withoutInotify { #expect(warnings.contains("inotify"), "the worker did not fall back: \(warnings)") }

        let lines = worker.lines
        let changes = lines.filter { $0.hasPrefix("change ") }.map { $0.split(separator: " ").map(String.init) }
        let summary = try #require(lines.last { $0.hasPrefix("rereads ") }).split(separator: " ")
        // Commits that land before the watcher wakes arrive as one change, from the old
        // value to the newest; so the chain of changes has no gap, no repeat and no step back.
        var previous = "0"
        var threads = Set<String>()
        var brokenAt: [String]?
        for change in changes {
            threads.insert(change[3])
            if change[1] != previous || (Int(change[2]) ?? 0) <= (Int(previous) ?? 0) { brokenAt = brokenAt ?? change }
            previous = change[2]
        }
        #expect(brokenAt == nil, "out of order or repeated: \(brokenAt ?? [])")
        #expect(previous == "\(commits)")
        #expect(threads == ["prefs-watcher"], "\(threads)")
        #expect(!changes.isEmpty)
        // The worker's reads found commits first, at least sometimes (the path under test);
        // without inotify, the counters woke its watcher.
        #expect((Int(summary[1]) ?? 0) > 0, "\(summary)")
        if withoutInotify { #expect((Int(summary[3]) ?? 0) > 0, "\(summary)") }
    }

    @Test("10,000 commits (2,000 outside the soak) by another process reach its observers on the watcher thread only, in commit order, each once")
    func tenThousandCommitsOnTheWatcher() async throws {
        let fixture = try StoreFixture(onTmpfs: true)
        try fixture.usePrivateRuntimeDirectory()
        try await commitsHeardInOrder(fixture: fixture, withoutInotify: false)
    }

    @Test("without an inotify instance, 10,000 commits (2,000 outside the soak) still reach observers on the watcher thread only, in order, each once")
    func tenThousandCommitsWithoutInotify() async throws {
        let fixture = try StoreFixture(onTmpfs: true)
        try fixture.usePrivateRuntimeDirectory()
        try await commitsHeardInOrder(fixture: fixture, withoutInotify: true)
    }

    @Test("a modify's own change reaches its observer as this process's, on the calling thread, even if this process re-reads the file between the rename and the install")
    func ownWriteRacingARereadStaysOwn() throws {
        let fixture = try StoreFixture()
        try fixture.usePrivateRuntimeDirectory()
        let store = try fixture.store()
        store.set(0, forKey: "n")
        try store.flush()
        let heard = ThreadLock<[(origin: PreferenceChange.Origin, thread: pthread_t)]>([], rank: .leaf)
        let observation = store.observe("n") { change in
            heard.withLock { $0.append((change.origin, pthread_self())) }
        }
        defer { observation.cancel() }
        let rereadStarted = DispatchSemaphore(value: 0)
        // Once the new file is renamed into place and before the write installs it: a re-read
        // of the domain (as the watcher would make on the rename's event) starts on another
        // thread and is given time to finish. It must find the write's own file and leave it
        // to the write, not publish its key as another process's change.
        Interleaving.run({
            Thread.detachNewThread {
                rereadStarted.signal()
                store.appDomain.refresher.refreshFromDisk()
            }
            rereadStarted.wait()
            Thread.sleep(forTimeInterval: 0.2)
        }, once: .beforeInstallingWrite, at: fixture.userFile("com.example.test"))
        let caller = pthread_self()
        try store.modify(forKey: "n") { value in value = .integer(5) }
        let changes = heard.withLock { $0 }
        #expect(changes.count == 1, "\(changes.map(\.origin))")
        #expect(changes.first?.origin == .thisProcess)
        #expect(changes.first.map { pthread_equal($0.thread, caller) != 0 } == true, "delivered on another thread")
        #expect(store.integer(forKey: "n") == 5)
    }

    @Test("a read made by a handler on the watcher thread runs no other handler inside it")
    func handlerReadRunsNoHandler() async throws {
        let fixture = try StoreFixture()
        try fixture.usePrivateRuntimeDirectory()
        let first = try fixture.store("com.example.first")
        let second = try fixture.store("com.example.second")
        second.set(0, forKey: "m")
        try second.flush()
        let insideFirst = Atomic(false)
        let nested = Atomic(0)
        let secondHeard = Atomic(0)
        let secondObservation = second.observe("m") { _ in
            if insideFirst.load(ordering: .relaxed) { nested.add(1, ordering: .relaxed) }
            secondHeard.add(1, ordering: .relaxed)
        }
        defer { secondObservation.cancel() }
        let readValue = Atomic(-1)
        let environment = fixture.processEnvironment
        let firstObservation = first.observe("k") { _ in
            insideFirst.store(true, ordering: .relaxed)
            defer { insideFirst.store(false, ordering: .relaxed) }
            // Another process commits the second domain now, so this read finds its counter
            // raised and re-reads the file, before the watcher has heard of it.
            _ = try? run(workerPath, ["increment", "com.example.second", "m", "1"], environment: environment)
            readValue.store(second.integer(forKey: "m"), ordering: .relaxed)
        }
        defer { firstObservation.cancel() }
        #expect(try run(workerPath, ["increment", "com.example.first", "k", "1"], environment: fixture.processEnvironment).status == 0)
        #expect(await eventually { secondHeard.load(ordering: .relaxed) >= 1 })
        #expect(readValue.load(ordering: .relaxed) == 1, "the handler's read was not fresh")
        #expect(nested.load(ordering: .relaxed) == 0, "a handler ran inside another handler's read")
    }

    @Test("the watcher thread is the door: jobs handed to it run there, and no other thread passes for it")
    func watcherThreadIsKnown() async {
        #expect(!DirectoryWatcher.shared.isWatcherThread)
        let onWatcher = ThreadLock<(Bool, String)?>(nil, rank: .leaf)
        DirectoryWatcher.shared.perform {
            let answer = (DirectoryWatcher.shared.isWatcherThread, Self.threadName())
            onWatcher.withLock { $0 = answer }
        }
        #expect(await eventually { onWatcher.withLock { $0 } != nil })
        let (isWatcher, name) = onWatcher.withLock { $0 } ?? (false, "")
        #expect(isWatcher && name == "prefs-watcher")
        // Another watcher's thread is named alike but is not the store's door.
        let other = DirectoryWatcher()
        let onOther = ThreadLock<Bool?>(nil, rank: .leaf)
        other.perform {
            let answer = DirectoryWatcher.shared.isWatcherThread
            onOther.withLock { $0 = answer }
        }
        #expect(await eventually { onOther.withLock { $0 } != nil })
        #expect(onOther.withLock { $0 } == false)
    }

    #if DEBUG
    @Test("delivering other processes' changes on any thread but the watcher traps in a debug build, naming the rule")
    func deliveryOffTheWatcherTraps() async throws {
        // A real process (Swift Testing's exit test runs this body in a child) has to die: a
        // trap cannot be caught in-process.
        let result = await #expect(processExitsWith: .failure, observing: [\.exitStatus, \.standardErrorContent]) {
            let fixture = try StoreFixture()
            let store = try fixture.store()
            // What only a job on the watcher thread may do, here on the test's thread.
            store.deliverOnWatcher()
        }
        let status = try #require(result?.exitStatus)
        #expect(status == .signal(SIGILL) || status == .signal(SIGTRAP), "\(status)")
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("not on the watcher thread (prefs-watcher): \(ChangeDelivery.watcherRule)"), "\(message)")
    }
    #endif
}
