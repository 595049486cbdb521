import Foundation
import Glibc
@testable import Preferences
import Synchronization
import Testing
import TestSupport

/// The process-wide inotify watcher that tells domains their files may have changed.
///
/// Each test has its own temporary directory and its own `DirectoryWatcher`, so one test's
/// simulated overflow never reaches another's handlers. Where a test must show that a handler
/// was *not* called, a second handler on the same watcher serves as a sentinel: handlers run
/// one at a time on one thread, in event order, so once the sentinel has seen a later change,
/// every call for the earlier one has been made.
@Suite("Directory watcher", .ownThread)
struct DirectoryWatcherTests {
    /// A change made to a watched file by another program.
    enum Change: String, CaseIterable, CustomTestStringConvertible {
        case renamedIntoPlace, rewrittenInPlace, copiedOver, deleted, renamedAway, permissionsChanged

        var testDescription: String { rawValue }

        /// Makes the change to the file at `path`, which exists.
        func make(at path: String) throws {
            switch self {
            case .renamedIntoPlace:
                try replaceByRename(path, with: "new")
            case .rewrittenInPlace:
                try rewriteInPlace(path, with: "new")
            case .copiedOver:
                let source = path + ".source"
                try Data("new".utf8).write(to: URL(fileURLWithPath: source))
                let result = try run("cp", [source, path])
                #expect(result.status == 0, "\(result.output)")
            case .deleted:
                try check(unlink(path), "unlink")
            case .renamedAway:
                try check(rename(path, path + ".away"), "rename")
            case .permissionsChanged:
                try check(chmod(path, 0o644), "chmod")
            }
        }
    }

    @Test("each kind of change to the watched file calls its handler", arguments: Change.allCases)
    func changeCallsHandler(_ change: Change) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("com.example.plist").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let watcher = DirectoryWatcher()
        let probe = WatchProbe(path: path)
        let registration = watcher.watch(directory: directory.url.path, fileName: "com.example.plist", handler: probe.handler)

        try change.make(at: path)

        #expect(await probe.waitForCount(atLeast: 1))
        registration.cancel()
    }

    @Test("a change to another file in the same directory does not call the handler")
    func otherFileIgnored() async throws {
        let directory = try TemporaryDirectory()
        let watcher = DirectoryWatcher()
        let watched = WatchProbe(path: directory.file("com.example.plist").path)
        let sentinel = WatchProbe(path: directory.file("org.other.plist").path)
        let registrations = [
            watcher.watch(directory: directory.url.path, fileName: "com.example.plist", handler: watched.handler),
            watcher.watch(directory: directory.url.path, fileName: "org.other.plist", handler: sentinel.handler),
        ]

        try replaceByRename(sentinel.path, with: "1")
        try check(chmod(sentinel.path, 0o644), "chmod")
        #expect(await sentinel.waitForText("1"))
        try check(unlink(sentinel.path), "unlink")
        #expect(await eventually { sentinel.texts.last == .some(nil) })
        try replaceByRename(sentinel.path, with: "2")
        #expect(await sentinel.waitForText("2"))

        #expect(watched.count == 0)
        registrations.forEach { $0.cancel() }
    }

    @Test("a directory that does not exist yet is watched once it is created")
    func directoryCreatedLater() async throws {
        let directory = try TemporaryDirectory()
        let subdirectory = directory.file("preferences/ByHost").path
        let watcher = DirectoryWatcher()
        let probe = WatchProbe(path: subdirectory + "/com.example.plist")
        let registration = watcher.watch(directory: subdirectory, fileName: "com.example.plist", handler: probe.handler)

        try FileManager.default.createDirectory(atPath: subdirectory, withIntermediateDirectories: true)
        try replaceByRename(probe.path, with: "first")
        #expect(await probe.waitForText("first"))
        // By now the directory is watched (the watch comes before the call that saw "first"),
        // so this change arrives as an event.
        try rewriteInPlace(probe.path, with: "second")
        #expect(await probe.waitForText("second"))
        registration.cancel()
    }

    /// How a watched directory leaves its path.
    enum Removal: String, CaseIterable, CustomTestStringConvertible {
        case deleted, movedAway

        var testDescription: String { rawValue }
    }

    @Test("a watched directory removed and created again is watched again", arguments: Removal.allCases)
    func directoryRecreated(_ removal: Removal) async throws {
        let directory = try TemporaryDirectory()
        let subdirectory = directory.file("preferences").path
        try FileManager.default.createDirectory(atPath: subdirectory, withIntermediateDirectories: true)
        let watcher = DirectoryWatcher()
        let probe = WatchProbe(path: subdirectory + "/com.example.plist")
        let registration = watcher.watch(directory: subdirectory, fileName: "com.example.plist", handler: probe.handler)
        try replaceByRename(probe.path, with: "before")
        #expect(await probe.waitForText("before"))

        switch removal {
        case .deleted: try FileManager.default.removeItem(atPath: subdirectory)
        case .movedAway: try check(rename(subdirectory, subdirectory + ".old"), "rename")
        }
        // Told that the file is gone with its directory.
        #expect(await eventually { probe.texts.last == .some(nil) })
        try FileManager.default.createDirectory(atPath: subdirectory, withIntermediateDirectories: true)
        try replaceByRename(probe.path, with: "recreated")
        #expect(await probe.waitForText("recreated"))
        try replaceByRename(probe.path, with: "later")
        #expect(await probe.waitForText("later"))
        registration.cancel()
    }

    @Test("two paths to one directory share its watch, and cancelling one keeps the other")
    func symbolicLinkSharesWatch() async throws {
        let directory = try TemporaryDirectory()
        let real = directory.file("real").path
        let link = directory.file("link").path
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let watcher = DirectoryWatcher()
        let throughReal = WatchProbe(path: real + "/com.example.plist")
        let throughLink = WatchProbe(path: link + "/com.example.plist")
        let realRegistration = watcher.watch(directory: real, fileName: "com.example.plist", handler: throughReal.handler)
        let linkRegistration = watcher.watch(directory: link + "/", fileName: "com.example.plist", handler: throughLink.handler)

        try replaceByRename(throughReal.path, with: "1")
        #expect(await throughReal.waitForText("1"))
        #expect(await throughLink.waitForText("1"))

        // The kernel has one watch for both paths; dropping one path must not remove it.
        linkRegistration.cancel()
        try replaceByRename(throughReal.path, with: "2")
        #expect(await throughReal.waitForText("2"))
        #expect(!throughLink.texts.contains("2"))
        realRegistration.cancel()
    }

    @Test("a simulated queue overflow calls every handler once, and none cancelled")
    func overflowCallsEveryHandler() async throws {
        let directory = try TemporaryDirectory()
        let first = directory.file("a").path
        let second = directory.file("b").path
        let missing = directory.file("missing").path
        try FileManager.default.createDirectory(atPath: first, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
        let watcher = DirectoryWatcher()
        let probes = [
            WatchProbe(path: first + "/one.plist"), WatchProbe(path: first + "/two.plist"),
            WatchProbe(path: second + "/one.plist"), WatchProbe(path: missing + "/one.plist"),
        ]
        let cancelled = WatchProbe(path: first + "/one.plist")
        let cancelledRegistration = watcher.watch(directory: first, fileName: "one.plist", handler: cancelled.handler)
        let registrations = probes.map { probe in
            let url = URL(fileURLWithPath: probe.path)
            return watcher.watch(
                directory: url.deletingLastPathComponent().path, fileName: url.lastPathComponent, handler: probe.handler)
        }
        cancelledRegistration.cancel()

        watcher.simulateOverflow()

        for probe in probes {
            #expect(await probe.waitForCount(atLeast: 1), "\(probe.path)")
        }
        // The cancelled handler would have been called in the same turn, before the others.
        #expect(cancelled.count == 0)
        // And the watches still work after the rescan.
        try replaceByRename(probes[2].path, with: "after")
        #expect(await probes[2].waitForText("after"))
        registrations.forEach { $0.cancel() }
    }

    @Test("after cancel the handler is never called again")
    func cancelStopsCalls() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("com.example.plist").path
        let watcher = DirectoryWatcher()
        let cancelled = WatchProbe(path: path)
        let sentinel = WatchProbe(path: path)
        let registration = watcher.watch(directory: directory.url.path, fileName: "com.example.plist", handler: cancelled.handler)
        let sentinelRegistration = watcher.watch(
            directory: directory.url.path, fileName: "com.example.plist", handler: sentinel.handler)
        try replaceByRename(path, with: "1")
        #expect(await cancelled.waitForText("1"))

        registration.cancel()
        let callsAtCancel = cancelled.count
        for text in ["2", "3"] {
            try replaceByRename(path, with: text)
            #expect(await sentinel.waitForText(text))
        }
        // An overflow calls every handler still registered.
        let sentinelCalls = sentinel.count
        watcher.simulateOverflow()
        #expect(await sentinel.waitForCount(atLeast: sentinelCalls + 1))

        #expect(cancelled.count == callsAtCancel)
        #expect(!cancelled.texts.contains("2") && !cancelled.texts.contains("3"))
        sentinelRegistration.cancel()
    }

    @Test("releasing the registration ends the watch like cancel")
    func releaseStopsCalls() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("com.example.plist").path
        let watcher = DirectoryWatcher()
        let released = WatchProbe(path: path)
        let sentinel = WatchProbe(path: path)
        var registration: DirectoryWatcher.Registration? = watcher.watch(
            directory: directory.url.path, fileName: "com.example.plist", handler: released.handler)
        let sentinelRegistration = watcher.watch(
            directory: directory.url.path, fileName: "com.example.plist", handler: sentinel.handler)
        try replaceByRename(path, with: "1")
        #expect(await released.waitForText("1"))

        withExtendedLifetime(registration) {}
        registration = nil
        try replaceByRename(path, with: "2")
        #expect(await sentinel.waitForText("2"))

        #expect(!released.texts.contains("2"))
        sentinelRegistration.cancel()
    }

    @Test("a handler can cancel its own registration without deadlock")
    func handlerCancelsItself() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("com.example.plist").path
        let watcher = DirectoryWatcher()
        let calls = Atomic(0)
        let own = Mutex<DirectoryWatcher.Registration?>(nil)
        let sentinel = WatchProbe(path: path)
        own.withLock { registration in
            registration = watcher.watch(directory: directory.url.path, fileName: "com.example.plist") {
                calls.add(1, ordering: .relaxed)
                // Taken out of the box first: cancel runs with no lock of ours held.
                own.withLock { $0.take() }?.cancel()
            }
        }
        let sentinelRegistration = watcher.watch(
            directory: directory.url.path, fileName: "com.example.plist", handler: sentinel.handler)

        try replaceByRename(path, with: "1")
        #expect(await sentinel.waitForText("1"))
        try replaceByRename(path, with: "2")
        #expect(await sentinel.waitForText("2"))

        #expect(calls.load(ordering: .relaxed) == 1)
        #expect(own.withLock { $0 == nil })
        sentinelRegistration.cancel()
    }

    @Test("a handler can register a new watch without deadlock")
    func handlerRegistersWatch() async throws {
        let directory = try TemporaryDirectory()
        let first = WatchProbe(path: directory.file("first.plist").path)
        let second = WatchProbe(path: directory.file("second.plist").path)
        let watcher = DirectoryWatcher()
        let added = Mutex<DirectoryWatcher.Registration?>(nil)
        let registration = watcher.watch(directory: directory.url.path, fileName: "first.plist") { [path = directory.url.path] in
            first.handler()
            // Registered outside the box's lock, then stored.
            guard added.withLock({ $0 == nil }) else { return }
            let new = watcher.watch(directory: path, fileName: "second.plist", handler: second.handler)
            added.withLock { $0 = new }
        }

        try replaceByRename(first.path, with: "1")
        #expect(await first.waitForText("1"))
        #expect(await eventually { added.withLock { $0 != nil } })
        try replaceByRename(second.path, with: "2")
        #expect(await second.waitForText("2"))

        registration.cancel()
        added.withLock { $0.take() }?.cancel()
    }

    @Test("cancel from another thread while the handler runs returns only after that call")
    func cancelWaitsForRunningHandler() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("com.example.plist").path
        let watcher = DirectoryWatcher()
        let entered = Atomic(false)
        let cancelling = Atomic(false)
        let finished = Atomic(false)
        let calls = Atomic(0)
        let registration = watcher.watch(directory: directory.url.path, fileName: "com.example.plist") {
            calls.add(1, ordering: .relaxed)
            guard !entered.exchange(true, ordering: .acquiringAndReleasing) else { return }
            // Hold the call open until cancel has been called, and a little beyond, so a
            // cancel that did not wait would return before this call ends.
            while !cancelling.load(ordering: .acquiring) { usleep(1_000) }
            usleep(100_000)
            finished.store(true, ordering: .releasing)
        }
        try replaceByRename(path, with: "1")
        #expect(await eventually { entered.load(ordering: .acquiring) })

        cancelling.store(true, ordering: .releasing)
        registration.cancel()

        let handlerFinished = finished.load(ordering: .acquiring)
        #expect(handlerFinished)
        let callsAtCancel = calls.load(ordering: .relaxed)
        let sentinel = WatchProbe(path: path)
        let sentinelRegistration = watcher.watch(
            directory: directory.url.path, fileName: "com.example.plist", handler: sentinel.handler)
        try replaceByRename(path, with: "2")
        #expect(await sentinel.waitForText("2"))
        #expect(calls.load(ordering: .relaxed) == callsAtCancel)
        sentinelRegistration.cancel()
    }

    @Test("a watcher released with its registrations ends its thread")
    func releasedWatcherStops() async throws {
        let directory = try TemporaryDirectory()
        weak var loop: WatchLoop?
        do {
            let watcher = DirectoryWatcher()
            let probe = WatchProbe(path: directory.file("com.example.plist").path)
            let registration = watcher.watch(directory: directory.url.path, fileName: "com.example.plist", handler: probe.handler)
            try replaceByRename(probe.path, with: "1")
            #expect(await probe.waitForText("1"))
            loop = watcher.loop
            withExtendedLifetime(registration) {}
        }
        // The thread holds the loop until it has closed the descriptors and returned.
        #expect(await eventually { loop == nil })
    }

    @Test("1,000 registrations made and ended leave the process's descriptors and threads as after the first")
    func noResourceGrowth() throws {
        let directory = try TemporaryDirectory()
        // Its own process: descriptors and threads of tests running alongside would blur
        // the counts in this one.
        let result = try run(workerPath, ["watch-churn", directory.url.path, "1000"])
        #expect(result.status == 0, "\(result.output)")
        var counts: [String: [Int]] = [:]
        for line in result.output.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 3 { counts[String(fields[0])] = fields.dropFirst().compactMap { Int($0) } }
        }
        let before = try #require(counts["before"], "\(result.output)")
        let first = try #require(counts["after-first"], "\(result.output)")
        let all = try #require(counts["after-all"], "\(result.output)")
        #expect(all == first)
        // The counts do see the watcher: the first watch added its descriptors and its thread.
        #expect(first[0] > before[0] && first[1] == before[1] + 1, "\(result.output)")
    }

    // Mounting takes /dev/fuse, which some containers leave to root; bindfs missing is not
    // a reason to skip (below).
    @Test(
        "a directory on a FUSE file system is polled, so changes that bypass the mount are seen",
        .enabled(if: Privileges.canMountFUSE, "needs read and write access to /dev/fuse to mount a FUSE file system (bindfs)"))
    func fuseDirectoryPolled() async throws {
        // The test scripts install bindfs; a machine without it must fail here, not skip.
        let bindfs = try #require(installedProgram("bindfs"), "bindfs is not installed: run Tests/Scripts/install-dependencies.sh")
        let directory = try TemporaryDirectory()
        let source = directory.file("source").path
        let mount = directory.file("mount").path
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        // In the foreground (-f), as a child of the test: a daemon would inherit the
        // descriptor Foundation watches to learn that its child exited, and never close it.
        let started = ContinuousClock.now
        let server = try Subprocess(bindfs, ["-f", source, mount], output: .collected, errors: .mergedWithOutput)
        let spawned = ContinuousClock.now
        defer {
            _ = try? run("umount", [mount])
            server.signal(SIGTERM)
            server.wait()
        }
        try #require(
            await eventually { isMountPoint(mount) },
            "bindfs did not mount \(source): spawning took \(spawned - started), waited \(ContinuousClock.now - spawned); bindfs \(server.isRunning ? "still runs" : "exited with \(server.terminationStatus)"), saying: \(server.output); its state: \(processState(server.pid))")
        #expect(MountTable.type(holding: mount) == "fuse")
        // The statfs shortcut must not take a FUSE mount for a local file system.
        #expect(SystemCalls.fileSystemMagic(mount).map { !MountTable.localMagics.contains($0) } == true)
        let watcher = DirectoryWatcher()
        let probe = WatchProbe(path: mount + "/com.example.plist")
        let registration = watcher.watch(directory: mount, fileName: "com.example.plist", handler: probe.handler)

        // Written beneath the mount, as another NFS client or the FUSE server's own side
        // would: inotify on the mount never hears of it.
        try replaceByRename(source + "/com.example.plist", with: "from elsewhere")
        #expect(await probe.waitForText("from elsewhere"))
        registration.cancel()
    }

    @Test("mount table lines give each device's file system type, and network and FUSE types are polled")
    func mountTable() throws {
        let table = MountTable(parsing: """
            27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
            42 27 0:39 / /mnt/remote rw,relatime shared:7 master:2 - nfs4 server:/export rw,vers=4.2
            43 27 0:40 / /mnt/ssh rw - fuse.sshfs user@host: rw
            not a mount line
            """)
        #expect(table.type(major: 254, minor: 0) == "ext4")
        #expect(table.type(major: 0, minor: 39) == "nfs4")
        #expect(table.type(major: 0, minor: 41) == nil)
        #expect(MountTable.isChangedElsewhere("nfs4") && MountTable.isChangedElsewhere("fuse.sshfs"))
        #expect(!MountTable.isChangedElsewhere("ext4") && !MountTable.isChangedElsewhere("fuseblk"))
        // A real directory's device is found in the real table, so the split of its device
        // number into major and minor matches the kernel's.
        let directory = try TemporaryDirectory()
        #expect(MountTable.type(holding: directory.url.path) != nil)
        #expect(MountTable.typeChangedElsewhere(holding: directory.url.path) == nil)
        // The statfs shortcut agrees with the table: a tmpfs is local, and a magic it does not
        // know (procfs) still gets its answer from the table.
        if isMountPoint("/dev/shm") {
            #expect(SystemCalls.fileSystemMagic("/dev/shm") == 0x0102_1994)
            #expect(MountTable.localMagics.contains(0x0102_1994))
        }
        #expect(SystemCalls.fileSystemMagic("/proc").map { MountTable.localMagics.contains($0) } == false)
        #expect(MountTable.typeChangedElsewhere(holding: "/proc") == nil)
        #expect(SystemCalls.fileSystemMagic(directory.url.path + "/missing") == nil)
    }

    /// A system call made to fail in the worker, and the error it fails with.
    struct Fault: CustomTestStringConvertible, Sendable {
        let call: String
        let error: String

        var testDescription: String { "\(call) failing with \(error)" }
    }

    @Test(
        "without inotify, a worker still reports a change within 2 s, and warns once",
        arguments: [Fault(call: "inotify_init1", error: "EMFILE"), Fault(call: "inotify_add_watch", error: "ENOSPC")])
    func pollingFallback(_ fault: Fault) async throws {
        // The test scripts install strace; a machine without it must fail here, not skip.
        let strace = try #require(installedProgram("strace"), "strace is not installed: run Tests/Scripts/install-dependencies.sh")
        let directory = try TemporaryDirectory()
        let first = directory.file("one").path
        let second = directory.file("two").path
        try FileManager.default.createDirectory(atPath: first, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
        let watched = first + "/com.example.plist"
        try Data("old".utf8).write(to: URL(fileURLWithPath: watched))
        let log = directory.file("strace.log").path

        // Two directories, so a warning per directory or per failure would show as two.
        // --seccomp-bpf stops the worker only at the faulted call, not at every call it makes.
        let worker = try Subprocess(
            strace,
            [
                "-f", "--seccomp-bpf", "-o", log, "-e", "trace=\(fault.call)",
                "-e", "inject=\(fault.call):error=\(fault.error)",
                workerPath, "watch-files", watched, second + "/com.example.plist",
            ],
            input: .pipe)
        #expect(await worker.waitForLine(within: .seconds(30)) { $0 == "ready" } != nil, "\(worker.lines)")

        let changed = ContinuousClock.now
        try replaceByRename(watched, with: "changed")
        let fired = await worker.waitForLine(within: .seconds(10)) { $0 == "fired \(watched) changed" }
        #expect(fired != nil)
        // The fallback polls every second; how soon it noticed is printed for the record, not
        // asserted (a unit test holds no timing threshold). The arrival is when the reading
        // thread read the line, not when this test looked.
        let latency = try #require(fired).time - changed
        print("polling fallback (\(fault.call) failing with \(fault.error)): change noticed after \(latency)")

        // Closing its input ends the worker.
        worker.closeInput()
        let status = await worker.wait()
        let warnings = worker.errorOutput
        #expect(status == 0, "\(warnings)")
        let warningLines = warnings.split(separator: "\n").filter { $0.hasPrefix("swift-preferences: warning:") }
        #expect(warningLines.count == 1, "\(warnings)")
        #expect(warningLines.first?.contains(fault.call) == true, "\(warnings)")
        // The fault really was injected: without it there would be no fallback to test.
        let trace = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(trace.contains("(INJECTED)"), "\(trace)")
    }

    @Test("inotify events are parsed by their lengths, and malformed ones are not read past")
    func eventParsing() {
        func record(_ watch: Int32, _ events: SystemCalls.WatchEvents, name: [UInt8], length: UInt32? = nil) -> [UInt8] {
            var bytes: [UInt8] = []
            withUnsafeBytes(of: watch.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: events.rawValue.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: UInt32(0)) { bytes += $0 }
            withUnsafeBytes(of: (length ?? UInt32(name.count)).littleEndian) { bytes += $0 }
            return bytes + name
        }
        // A padded name, no name, a name that is not UTF-8 (dropped), then a record whose
        // length runs past the end of the buffer (parsing stops).
        let bytes =
            record(3, .movedIn, name: Array("com.example.plist".utf8) + [0, 0, 0, 0, 0, 0, 0])
            + record(4, .watchRemoved, name: [])
            + record(3, .deleted, name: [0xFF, 0xFE, 0, 0])
            + record(3, .closedAfterWriting, name: Array("abc".utf8) + [0], length: 64)
        let events = bytes.withUnsafeBytes { SystemCalls.parseWatchEvents($0) }
        #expect(
            events == [
                SystemCalls.WatchEvent(watch: .init(rawValue: 3), events: .movedIn, name: "com.example.plist"),
                SystemCalls.WatchEvent(watch: .init(rawValue: 4), events: .watchRemoved, name: nil),
            ])
        // A header cut short yields nothing.
        #expect(Array(bytes.prefix(10)).withUnsafeBytes { SystemCalls.parseWatchEvents($0) }.isEmpty)
    }
}

/// Whether a path is listed as a mount point in this process's mount table.
/// A process's state and what it waits in, from `/proc` (`State:` of its status and its
/// `wchan`), to say why a helper program made no progress.
func processState(_ pid: Int32) -> String {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let state = status.split(separator: "\n").first { $0.hasPrefix("State:") } ?? "gone"
    let tracer = status.split(separator: "\n").first { $0.hasPrefix("TracerPid:") } ?? ""
    let channel = (try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8)) ?? "?"
    return "\(state) \(tracer) wchan \(channel)"
}

func isMountPoint(_ path: String) -> Bool {
    let table = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
    return table.split(separator: "\n").contains { $0.split(separator: " ").dropFirst().first.map(String.init) == path }
}
