import Benchmark
import Foundation
import PropertyList

/// Our codec against Foundation's `PropertyListSerialization`, on the same values.
///
/// Set `SWIFT_PREFERENCES_BENCHMARK_SMOKE=1` for a smoke run (a couple of iterations each),
/// which only shows that every benchmark still builds and runs.
let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["SWIFT_PREFERENCES_BENCHMARK_SMOKE"] != nil
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: smoke ? 0 : 5,
        maxDuration: smoke ? .milliseconds(20) : .seconds(3),
        maxIterations: smoke ? 2 : 10_000
    )

    registerCodecBenchmarks(name: "1,000-key mixed dictionary") { CodecFixture.mixed }
    registerCodecBenchmarks(name: "1 MiB domain") { CodecFixture.domain }
}

/// Registers the four benchmarks for one fixture: decode and encode, ours and Foundation's.
/// The fixture is built (and cross-checked) in `setup`, outside the measured region.
private func registerCodecBenchmarks(name: String, fixture: @escaping @Sendable () -> CodecFixture) {
    let setup: Benchmark.BenchmarkSetupHook = { _ = fixture() }

    Benchmark("Codec: decode \(name) (ours)", closure: { benchmark in
        let bytes = fixture().ourBytes
        let decoder = BinaryPropertyListDecoder()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try decoder.decode(bytes))
        }
    }, setup: setup)

    Benchmark("Codec: decode \(name) (Foundation PropertyListSerialization)", closure: { benchmark in
        let data = fixture().foundationBytes
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try PropertyListSerialization.propertyList(from: data, options: [], format: nil))
        }
    }, setup: setup)

    Benchmark("Codec: encode \(name) (ours)", closure: { benchmark in
        let value = fixture().value
        let encoder = BinaryPropertyListEncoder()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try encoder.encode(value))
        }
    }, setup: setup)

    Benchmark("Codec: encode \(name) (Foundation PropertyListSerialization)", closure: { benchmark in
        let object = fixture().foundationObject
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0))
        }
    }, setup: setup)
}
