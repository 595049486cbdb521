import Configuration
import Foundation
import Glibc
import Preferences
import PreferencesConfiguration
import Testing

@Suite("Watching a domain through swift-configuration", .serialized)
struct WatchTests {
    // These tests watch the provider directly, on a thread of their own: a ConfigReader
    // watch also runs through an unstructured task of swift-configuration's on the shared
    // cooperative pool, which other suites' blocking waits starved for tens of seconds in
    // full runs. They share this process's one inotify watcher thread and two cores with
    // every other suite, so their bound is a generous `inProcessBound`; the issue's 1 s is
    // held by ExampleServiceTests, which times a ConfigReader watch in a process of its own.
    // Serialized, so the heavy tests here do not inflate each other's figures.

    @Test("watchValue sees each of another process's defaults writes promptly, in order")
    func crossProcessWatch() async throws {
        let fixture = try ProviderFixture()
        let domain = "com.example.watch"
        try await fixture.defaults(["write", domain, "http", "-dict", "timeout", "-int", "0"])
        let provider = try fixture.provider(domain)
        let arrivals = Arrivals<Int>()
        let rounds = 20
        var latencies: [Double] = []
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask(executorPreference: WatcherExecutor.shared) {
                try await provider.watchValue(forKey: ["http", "timeout"], type: .int) { updates in
                    for await update in updates {
                        guard case .int(let timeout)? = try update.get().value?.content else { continue }
                        arrivals.append(timeout)
                        if timeout == rounds { return }
                    }
                }
            }
            defer { group.cancelAll() }
            #expect(await arrivals.arrival(of: 0, before: Date() + 30) != nil, "the current value comes first")
            for round in 1...rounds {
                try await fixture.defaults(["write", domain, "http", "-dict-add", "timeout", "-int", "\(round)"])
                // From the rename that replaced the file (its inode's status-change time; the
                // modification time would add the writer's fsync) to the watcher's loop
                // receiving the value.
                let renamed = try statusChangeTime(fixture.domainFile(domain))
                guard let arrived = await arrivals.arrival(of: round, before: renamed + inProcessBound) else {
                    Issue.record("round \(round): no update within \(inProcessBound) s of the rename; got \(arrivals.values)")
                    return
                }
                latencies.append(arrived.timeIntervalSince(renamed))
            }
            try await group.next()
        }
        #expect(arrivals.values == Array(0...rounds), "each value once, in order")
        print("measured: rename by defaults write → provider watchValue update, \(summary(latencies))")
    }

    @Test("a snapshot never mixes two versions of the domain")
    func snapshotConsistency() async throws {
        let fixture = try ProviderFixture()
        let domain = "com.example.pairs"
        let writes = 100
        let provider = try fixture.provider(domain)
        let reader = ConfigReader(provider: provider)
        let watched = Arrivals<Int>()
        let mixed = Arrivals<String>()
        let polled = DistinctValues<Int?>()
        let pollerDone = Arrivals<Bool>(), stopPolling = Arrivals<Bool>()
        // Poll snapshots as fast as a thread can while the other process writes, through
        // ConfigReader's own snapshot API as a service would read. A plain thread: the
        // shared task pool may be too busy to poll while the writes happen.
        Thread.detachNewThread {
            while !watched.values.contains(writes), stopPolling.values.isEmpty {
                let snapshot = reader.snapshot()
                polled.insert(Self.check({ snapshot.int(forKey: ConfigKey($0)) }, "polled", mixed))
            }
            pollerDone.append(true)
        }
        defer { stopPolling.append(true) }   // if the test fails before the last write arrives
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask(executorPreference: WatcherExecutor.shared) {
                try await provider.watchSnapshot { updates in
                    for await snapshot in updates {
                        guard let first = Self.check({ intValue(snapshot, $0) }, "watched", mixed) else { continue }
                        watched.append(first)
                        if first == writes { return }
                    }
                }
            }
            defer { group.cancelAll() }
            // Each write one replacement of the whole domain by another process (`defaults
            // import`), never two sets a snapshot could fall between.
            for index in 1...writes {
                let plist = PropertyListValue.dictionary(["first": .integer(PropertyListInteger(Int64(index))), "pair": .dictionary(["second": .integer(PropertyListInteger(Int64(index)))])])
                try await runProgram("defaults", ["import", domain, "-"], environment: fixture.environment, input: Data(XMLPropertyListEncoder().encode(plist)))
            }
            try await group.next()
        }
        #expect(await pollerDone.arrival(of: true, before: Date() + 30) != nil)
        #expect(mixed.values.isEmpty, "\(mixed.values.prefix(5))")
        let seen = watched.values
        #expect(seen == seen.sorted(), "watched snapshots arrive in the order the domain changed")
        #expect(seen.last == writes)
        // Usually dozens of versions; in a full run the shared inotify thread coalesces reloads
        // down to a handful, so only require that the poller saw the domain change.
        #expect(polled.count >= 2, "the poller saw the domain change while it read")
        print("measured: \(writes) two-key writes by another process; \(seen.count) watched and \(polled.count) distinct polled versions, none mixed")
    }

    /// A snapshot's `first` (read with `int`), after recording in `mixed` if `pair.second`
    /// differs from it.
    private static func check(_ int: ([String]) -> Int?, _ source: String, _ mixed: Arrivals<String>) -> Int? {
        let first = int(["first"]), second = int(["pair", "second"])
        if first != second {
            mixed.append("\(source): first \(String(describing: first)), second \(String(describing: second))")
        }
        return first
    }

    @Test("a write of thousands of keys reaches watchers as one snapshot, quickly")
    func largeWriteCoalesces() async throws {
        let fixture = try ProviderFixture()
        let domain = "com.example.bulk"
        let count = 5000
        let provider = try fixture.provider(domain)
        let sizes = Arrivals<Int>()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask(executorPreference: WatcherExecutor.shared) {
                try await provider.watchSnapshot { updates in
                    for await snapshot in updates {
                        // 0 before the write, `count` after it, -1 once the marker is in;
                        // -2 would be a snapshot holding only part of the write.
                        let first = intValue(snapshot, ["k0"]), last = intValue(snapshot, ["k\(count - 1)"])
                        let marker = intValue(snapshot, ["marker"])
                        sizes.append(marker != nil ? -1 : (first == nil) != (last == nil) ? -2 : first == nil ? 0 : count)
                        if marker != nil { return }
                    }
                }
            }
            defer { group.cancelAll() }
            #expect(await sizes.arrival(of: 0, before: Date() + 30) != nil)
            // One atomic write: the store notifies once per key, and the provider must not
            // rebuild once per key (5000 rebuilds of 5000 keys kept the watcher thread busy
            // for about 50 s in a debug build, delaying every later change).
            let entries = (0..<count).map { "<key>k\($0)</key><integer>\($0)</integer>" }.joined()
            let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict>\(entries)</dict></plist>"
            try await fixture.defaults(["import", domain, "-"], input: Data(xml.utf8))
            let renamed = try statusChangeTime(fixture.domainFile(domain))
            let arrived = await sizes.arrival(of: count, before: renamed + inProcessBound)
            #expect(arrived != nil, "the whole write promptly after the rename")
            // The next write must not queue behind leftover work for the big one.
            try await fixture.defaults(["write", domain, "marker", "-int", "1"])
            let markerRenamed = try statusChangeTime(fixture.domainFile(domain))
            let markerArrived = await sizes.arrival(of: -1, before: markerRenamed + inProcessBound)
            #expect(markerArrived != nil, "the next write promptly after its rename")
            if let arrived, let markerArrived {
                print(
                    "measured: \(count)-key write → provider snapshot watcher \(milliseconds(arrived.timeIntervalSince(renamed))) ms, "
                        + "the next one-key write \(milliseconds(markerArrived.timeIntervalSince(markerRenamed))) ms, from the rename")
            }
            try await group.next()
        }
        #expect(!sizes.values.contains(-2), "never a partial snapshot")
    }

    @Test("this process's own writes are read at once and reach watchers; unchanged keys are not repeated")
    func ownWrites() async throws {
        let fixture = try ProviderFixture()
        let store = try fixture.store("com.example.own")
        store.set(1, forKey: "watched")
        let provider = PreferencesProvider(store: store)
        let values = Arrivals<Int>()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask(executorPreference: WatcherExecutor.shared) {
                try await provider.watchValue(forKey: ["watched"], type: .int) { updates in
                    for await update in updates {
                        guard case .int(let value)? = try update.get().value?.content else { continue }
                        values.append(value)
                        if value == 2 { return }
                    }
                }
            }
            defer { group.cancelAll() }
            #expect(await values.arrival(of: 1, before: Date() + 30) != nil)
            store.set("noise", forKey: "other")
            store.set(2, forKey: "watched")
            // The store tells its observers before `set` returns, so reads see it at once.
            #expect(try provider.value(forKey: ["watched"], type: .int).value?.content == .int(2))
            #expect(await values.arrival(of: 2, before: Date() + 30) != nil)
            try await group.next()
        }
        #expect(values.values == [1, 2])
        try store.flush()   // before the directory goes away
    }
}

/// A file's status-change time (`st_ctim`), which a rename onto it sets.
func statusChangeTime(_ path: String) throws -> Date {
    var status = stat()
    guard stat(path, &status) == 0 else { throw FixtureFailure(description: "stat \(path) failed") }
    return Date(timeIntervalSince1970: Double(status.st_ctim.tv_sec) + Double(status.st_ctim.tv_nsec) / 1e9)
}

/// How long after a rename an in-process watcher may take; see the comment in WatchTests.
let inProcessBound: TimeInterval = 5

/// The `int` value at `key` in `snapshot`, or nil if absent or not an integer.
func intValue(_ snapshot: any ConfigSnapshot, _ key: [String]) -> Int? {
    guard case .int(let value)? = try? snapshot.value(forKey: AbsoluteConfigKey(key), type: .int).value?.content else { return nil }
    return value
}

/// "N rounds: p50 X ms, max Y ms" for latencies in seconds.
func summary(_ latencies: [Double]) -> String {
    let sorted = latencies.sorted()
    guard let worst = sorted.last else { return "no rounds" }
    return "\(sorted.count) rounds: p50 \(milliseconds(sorted[sorted.count / 2])) ms, max \(milliseconds(worst)) ms"
}

func milliseconds(_ seconds: Double) -> String {
    String(format: "%.2f", seconds * 1000)
}
