// swift-tools-version: 6.3
import PackageDescription

let package = Package(
    name: "swift-preferences-benchmarks",
    // No `platforms:` entry: it can only name Apple systems, and this package builds on Linux
    // alone (inotify, futexes, flock, libsystemd). It said macOS 15 before, which was not true.
    dependencies: [
        // The Configuration trait for PreferencesConfiguration, which config-latency times.
        .package(name: "swift-preferences", path: "..", traits: ["Configuration"]),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        // config-latency's peer: swift-configuration's own ReloadingFileProvider over JSON.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["JSON", "Reloading"]),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
    ],
    targets: [
        .executableTarget(
            name: "Codec",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PropertyList", package: "swift-preferences"),
            ],
            path: "Benchmarks/Codec",
            swiftSettings: [.treatAllWarnings(as: .error)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "HostileInput",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PropertyList", package: "swift-preferences"),
            ],
            path: "Benchmarks/HostileInput",
            swiftSettings: [.treatAllWarnings(as: .error)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Store",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Preferences", package: "swift-preferences"),
            ],
            path: "Benchmarks/Store",
            swiftSettings: [.treatAllWarnings(as: .error)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Not a package-benchmark target (it runs processes of its own): run by
        // Benchmarks/report.sh for the cross-process latency and its raw samples.
        .executableTarget(
            name: "cross-process-latency",
            dependencies: [.product(name: "Preferences", package: "swift-preferences")],
            path: "Harness/CrossProcess",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        // Read and set tails under load, flush cost by domain size, memory per domain: run by
        // Benchmarks/report.sh (single operations timed one by one, beside the clock's own
        // cost, which package-benchmark's per-iteration figures cannot show).
        .executableTarget(
            name: "core-latency",
            dependencies: [
                .product(name: "Preferences", package: "swift-preferences"),
                .product(name: "PropertyList", package: "swift-preferences"),
            ],
            path: "Harness/CoreLatency",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        // etcd put → change callback through `preferences-fleet`, and the interruption a
        // leader's loss causes: run by Benchmarks/fleet-latency.sh (it starts its own etcd
        // cluster and the service binary it is given).
        .executableTarget(
            name: "fleet-latency",
            dependencies: [.product(name: "Preferences", package: "swift-preferences")],
            path: "Harness/FleetLatency",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        // A change → a service's handler seeing it: PreferencesProvider beside swift-configuration's
        // ReloadingFileProvider (JSON, 15 s and 1 s polls) in one run, and over HTTP through
        // preferences-config-server: run by Benchmarks/config-latency.sh.
        .executableTarget(
            name: "config-latency",
            dependencies: [
                .product(name: "Preferences", package: "swift-preferences"),
                .product(name: "PreferencesConfiguration", package: "swift-preferences"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Harness/ConfigLatency",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
