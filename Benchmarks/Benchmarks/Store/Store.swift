import Benchmark
import Foundation
import Preferences

/// The store's hot paths beside corelibs-Foundation's `UserDefaults`, in one process.
///
/// Reads and sets are timed 1,000 to an iteration (`scalingFactor: .kilo`), so the
/// reported times are per operation. Set `SWIFT_PREFERENCES_BENCHMARK_SMOKE=1` for a smoke
/// run.
let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["SWIFT_PREFERENCES_BENCHMARK_SMOKE"] != nil
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: smoke ? 0 : 10,
        scalingFactor: .kilo,
        maxDuration: smoke ? .milliseconds(20) : .seconds(2),
        maxIterations: smoke ? 2 : 100_000
    )

    Benchmark("Store: cached bool(forKey:) by string key (ours)") { benchmark in
        let store = StoreFixture.shared.store
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(store.bool(forKey: "Enabled"))
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

    Benchmark("Store: set(_:forKey:) Int (ours)") { benchmark in
        let store = StoreFixture.shared.store
        var counter = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            counter &+= 1
            store.set(counter, forKey: "Counter")
        }
    }

    Benchmark("Store: cached bool(forKey:) (Foundation UserDefaults)") { benchmark in
        let defaults = StoreFixture.shared.foundation
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(defaults.bool(forKey: "Enabled"))
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
}

/// A 1,000-key domain in a private directory, opened by our store and by Foundation.
final class StoreFixture: Sendable {
    static let shared = StoreFixture()
    static let enabled = PreferenceKey("Enabled", default: false)

    let store: PreferenceStore
    /// Safety: `UserDefaults` is documented thread-safe; it is not marked Sendable on Linux.
    nonisolated(unsafe) let foundation: UserDefaults

    private init() {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("swift-preferences-benchmark-\(getpid())").path
        var environment = ProcessInfo.processInfo.environment
        environment["PREFERENCES_HOME"] = directory
        do {
            store = try PreferenceStore(
                domain: "com.example.benchmark", configuration: .init(environment: environment, arguments: ["benchmark"]))
        } catch {
            fatalError("cannot open the benchmark store: \(error)")
        }
        for index in 0..<1_000 {
            store.set("value \(index)", forKey: "key\(index)")
        }
        store.set(true, forKey: "Enabled")
        do { try store.flush() } catch { fatalError("cannot write the benchmark domain: \(error)") }

        let suite = "com.example.benchmark.foundation.\(getpid())"
        guard let defaults = UserDefaults(suiteName: suite) else { fatalError("no UserDefaults suite") }
        for index in 0..<1_000 {
            defaults.set("value \(index)", forKey: "key\(index)")
        }
        defaults.set(true, forKey: "Enabled")
        foundation = defaults
    }
}
