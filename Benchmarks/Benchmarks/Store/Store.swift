import Benchmark
import Foundation
import Glibc
import Preferences

/// The store's hot paths beside corelibs-Foundation's `UserDefaults`, in one process.
///
/// Reads and in-memory sets are timed 1,000 to an iteration (`scalingFactor: .kilo`; the
/// two-thread reads 1,000,000, `.mega`), so the reported times and malloc counts are per
/// operation. Durable writes, coalescing and cold open are timed one to an iteration. Set
/// `SWIFT_PREFERENCES_BENCHMARK_SMOKE=1` for a smoke run.
let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["SWIFT_PREFERENCES_BENCHMARK_SMOKE"] != nil
    // Registered before any store exists, so it runs after the stores' own exit flushes.
    atexit { StoreFixture.removeFiles() }
    let perOperation = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: smoke ? 0 : 10,
        scalingFactor: .kilo,
        maxDuration: smoke ? .milliseconds(20) : .seconds(2),
        maxIterations: smoke ? 2 : 100_000
    )
    let twoThreads = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: smoke ? 0 : 2,
        scalingFactor: .mega,
        maxDuration: smoke ? .milliseconds(20) : .seconds(3),
        maxIterations: smoke ? 1 : 100
    )
    let whole = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: smoke ? 0 : 3,
        scalingFactor: .one,
        maxDuration: smoke ? .milliseconds(20) : .seconds(3),
        maxIterations: smoke ? 2 : 1_000
    )
    Benchmark.defaultConfiguration = perOperation

    // MARK: Cached reads

    Benchmark("Store: cached bool(forKey:) by string key (ours)") { benchmark in
        let store = StoreFixture.shared.store
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(store.bool(forKey: "Enabled"))
        }
    }

    Benchmark("Store: cached integer(forKey:) by string key (ours)") { benchmark in
        let store = StoreFixture.shared.store
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(store.integer(forKey: "Number"))
        }
    }

    Benchmark("Store: cached string(forKey:) by string key (ours)") { benchmark in
        let store = StoreFixture.shared.store
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(store.string(forKey: "Name"))
        }
    }

    Benchmark("Store: cached read by typed key (ours)") { benchmark in
        let store = StoreFixture.shared.store
        let key = StoreFixture.enabled
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(store[key])
        }
    }

    Benchmark("Store: cached integer read by typed key (ours)") { benchmark in
        let store = StoreFixture.shared.store
        let key = StoreFixture.number
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(store[key])
        }
    }

    Benchmark("Store: cached string read by typed key (ours)") { benchmark in
        let store = StoreFixture.shared.store
        let key = StoreFixture.name
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(store[key])
        }
    }

    // Both threads read the same store; the time is the wall time of the pair, per read of
    // one thread (so perfect scaling reports the one-thread figure).
    Benchmark("Store: cached bool(forKey:) by string key, 2 threads (ours)", configuration: twoThreads) { benchmark in
        let store = StoreFixture.shared.store
        let count = benchmark.scaledIterations.count
        benchmark.startMeasurement()
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for _ in 0..<count { blackHole(store.bool(forKey: "Enabled")) }
        }
    }

    Benchmark("Store: cached read by typed key, 2 threads (ours)", configuration: twoThreads) { benchmark in
        let store = StoreFixture.shared.store
        let key = StoreFixture.enabled
        let count = benchmark.scaledIterations.count
        benchmark.startMeasurement()
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for _ in 0..<count { blackHole(store[key]) }
        }
    }

    // The same reads through `PreferencesUserDefaults` held as a `UserDefaults`, as code
    // written for Foundation holds it: a dynamically dispatched override, then the store's read.
    Benchmark("Store: cached bool(forKey:) through PreferencesUserDefaults (ours)") { benchmark in
        let defaults = StoreFixture.shared.subclass
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(defaults.bool(forKey: "Enabled"))
        }
    }

    Benchmark("Store: cached integer(forKey:) through PreferencesUserDefaults (ours)") { benchmark in
        let defaults = StoreFixture.shared.subclass
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(defaults.integer(forKey: "Number"))
        }
    }

    Benchmark("Store: cached string(forKey:) through PreferencesUserDefaults (ours)") { benchmark in
        let defaults = StoreFixture.shared.subclass
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(defaults.string(forKey: "Name"))
        }
    }

    Benchmark("Store: cached bool(forKey:) (Foundation UserDefaults)") { benchmark in
        let defaults = StoreFixture.shared.foundation
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(defaults.bool(forKey: "Enabled"))
        }
    }

    // MARK: Writes

    // The default store posts didChangeNotification on every set; the quiet one does not.
    for (name, posts) in [("Store: set(_:forKey:) Int (ours)", true), ("Store: set(_:forKey:) Int, didChangeNotification off (ours)", false)] {
        Benchmark(name) { benchmark in
            let store = posts ? StoreFixture.shared.store : StoreFixture.quiet
            var counter = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                counter &+= 1
                store.set(counter, forKey: "Counter")
            }
        }
    }

    Benchmark("Store: set(_:forKey:) Int (Foundation UserDefaults)") { benchmark in
        let defaults = StoreFixture.shared.foundation
        var counter = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            counter &+= 1
            defaults.set(counter, forKey: "Counter")
        }
    }

    for keys in [1, 1_000] {
        let label = keys == 1 ? "1-key" : "1,000-key"
        Benchmark("Store: set + flush(), \(label) domain (ours)", configuration: whole) { benchmark in
            let store = StoreFixture.openFresh(keys: keys)
            var counter = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                counter &+= 1
                store.set(counter, forKey: "key0")
                do { try store.flush() } catch { benchmark.error("flush: \(error)") }
            }
        }

        Benchmark("Store: set + synchronize(), \(label) domain (Foundation UserDefaults)", configuration: whole) { benchmark in
            let defaults = StoreFixture.foundationFresh(keys: keys)
            var counter = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                counter &+= 1
                defaults.set(counter, forKey: "key0")
                blackHole(defaults.synchronize())
            }
        }
    }

    // How many times the domain file is replaced while 10,000 sets run back to back and a
    // flush follows: reported as the custom metric "file writes".
    Benchmark(
        "Store: coalescing, 10,000 sets then flush(), 1,000-key domain (ours)",
        configuration: .init(
            metrics: [.wallClock, .custom("file writes", polarity: .prefersSmaller, useScalingFactor: false)],
            timeUnits: .milliseconds, warmupIterations: 0, scalingFactor: .one,
            maxDuration: smoke ? .milliseconds(20) : .seconds(3), maxIterations: smoke ? 1 : 20)
    ) { benchmark in
        let (store, directory) = StoreFixture.openFreshWithDirectory(keys: 1_000)
        let counter = RenameCounter(directory: directory, file: "\(StoreFixture.domain).plist")
        benchmark.startMeasurement()
        for value in 0..<10_000 {
            store.set(value, forKey: "key0")
        }
        do { try store.flush() } catch { benchmark.error("flush: \(error)") }
        benchmark.stopMeasurement()
        benchmark.measurement(.custom("file writes", polarity: .prefersSmaller, useScalingFactor: false), counter.count())
    }

    // A new process's first read: the domain's directory has never been opened by this
    // process (each iteration copies the file to a fresh directory, since stores of one
    // file share their cache).
    Benchmark("Store: cold open, first read of a 1,000-key domain (ours)", configuration: whole) { benchmark in
        let source = StoreFixture.shared.domainFile
        let directory = StoreFixture.freshDirectory()
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.copyItem(atPath: source, toPath: directory + "/\(StoreFixture.domain).plist")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory + "/\(StoreFixture.domain).plist")
        } catch {
            benchmark.error("cannot prepare the domain: \(error)")
            return
        }
        benchmark.startMeasurement()
        let store = StoreFixture.open(directory: directory)
        blackHole(store.string(forKey: "key999"))
        benchmark.stopMeasurement()
        if store.string(forKey: "key999") != "value 999" { benchmark.error("the cold store did not read the domain") }
    }
}

/// Counts renames onto one file in a directory, with an inotify instance of its own.
struct RenameCounter {
    let fd: Int32
    let file: String

    init(directory: String, file: String) {
        fd = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        self.file = file
        _ = inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO))
    }

    /// The renames seen so far; closes the instance.
    func count() -> Int {
        defer { close(fd) }
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let length = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if length <= 0 { return total }
            var offset = 0
            while offset < length {
                let (nameLength, name) = buffer.withUnsafeBytes { raw -> (Int, String) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + MemoryLayout<inotify_event>.size
                    let bytes = raw[start..<(start + Int(event.len))].prefix { $0 != 0 }
                    return (Int(event.len), String(decoding: bytes, as: UTF8.self))
                }
                if name == file { total += 1 }
                offset += MemoryLayout<inotify_event>.size + nameLength
            }
        }
    }
}

/// A 1,000-key domain in a private directory, opened by our store and by Foundation.
final class StoreFixture: Sendable {
    static let shared = StoreFixture()
    static let domain = "com.example.benchmark"
    static let enabled = PreferenceKey("Enabled", default: false)
    static let number = PreferenceKey("Number", default: 0)
    static let name = PreferenceKey("Name", default: "")
    /// A 1,000-key store that does not post `didChangeNotification`.
    static let quiet: PreferenceStore = {
        let store = open(directory: freshDirectory(), postsDidChangeNotification: false)
        fill(store, keys: 1_000)
        do { try store.flush() } catch { fatalError("cannot write the benchmark domain: \(error)") }
        return store
    }()

    let store: PreferenceStore
    let domainFile: String
    /// Safety: `UserDefaults` is documented thread-safe; it is not marked Sendable on Linux.
    nonisolated(unsafe) let foundation: UserDefaults
    /// The same domain through `PreferencesUserDefaults`, held as its base class (safe from
    /// any thread; not Sendable for the same reason).
    nonisolated(unsafe) let subclass: UserDefaults

    private init() {
        let directory = Self.freshDirectory()
        store = Self.open(directory: directory)
        Self.fill(store, keys: 1_000)
        store.set(true, forKey: "Enabled")
        store.set(42, forKey: "Number")
        store.set("a name", forKey: "Name")
        do { try store.flush() } catch { fatalError("cannot write the benchmark domain: \(error)") }
        domainFile = directory + "/\(Self.domain).plist"
        do {
            subclass = try PreferencesUserDefaults(domain: Self.domain, configuration: store.configuration)
        } catch {
            fatalError("cannot open the benchmark domain as UserDefaults: \(error)")
        }
        foundation = Self.foundationFresh(keys: 1_000)
        foundation.set(true, forKey: "Enabled")
    }

    /// Every directory a benchmark makes lives in this one, removed at exit.
    static var parentDirectory: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("swift-preferences-benchmark-\(getpid())").path
    }

    static func freshDirectory() -> String {
        try? FileManager.default.createDirectory(atPath: parentDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return parentDirectory + "/\(UUID().uuidString)"
    }

    /// The suite names of this process's `UserDefaults` start with this.
    static var foundationSuitePrefix: String { "com.example.benchmark.foundation.\(getpid())." }

    /// Removes this process's domain directories and the files corelibs-Foundation wrote
    /// for its `UserDefaults` suites (`$XDG_CONFIG_HOME` or `~/.config`, `<suite>.plist`).
    static func removeFiles() {
        let files = FileManager.default
        try? files.removeItem(atPath: parentDirectory)
        let environment = ProcessInfo.processInfo.environment
        let configuration = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? files.homeDirectoryForCurrentUser.appendingPathComponent(".config").path
        for name in (try? files.contentsOfDirectory(atPath: configuration)) ?? [] where name.hasPrefix(foundationSuitePrefix) {
            try? files.removeItem(atPath: configuration + "/" + name)
        }
    }

    static func open(directory: String, postsDidChangeNotification: Bool = true) -> PreferenceStore {
        var environment = ProcessInfo.processInfo.environment
        environment["PREFERENCES_HOME"] = directory
        do {
            return try PreferenceStore(
                domain: domain,
                configuration: .init(environment: environment, arguments: ["benchmark"], postsDidChangeNotification: postsDidChangeNotification))
        } catch {
            fatalError("cannot open the benchmark store: \(error)")
        }
    }

    static func fill(_ store: PreferenceStore, keys: Int) {
        for index in 0..<keys {
            store.set("value \(index)", forKey: "key\(index)")
        }
    }

    /// A store on a new file of `keys` keys, written.
    static func openFresh(keys: Int) -> PreferenceStore { openFreshWithDirectory(keys: keys).store }

    static func openFreshWithDirectory(keys: Int) -> (store: PreferenceStore, directory: String) {
        let directory = freshDirectory()
        let store = open(directory: directory)
        fill(store, keys: keys)
        do { try store.flush() } catch { fatalError("cannot write the benchmark domain: \(error)") }
        return (store, directory)
    }

    /// A new `UserDefaults` suite of `keys` keys.
    static func foundationFresh(keys: Int) -> UserDefaults {
        let suite = foundationSuitePrefix + UUID().uuidString
        guard let defaults = UserDefaults(suiteName: suite) else { fatalError("no UserDefaults suite") }
        for index in 0..<keys {
            defaults.set("value \(index)", forKey: "key\(index)")
        }
        _ = defaults.synchronize()
        return defaults
    }
}
