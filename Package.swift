// swift-tools-version: 6.2
import PackageDescription

/// Warnings fail our own targets' builds (zero-warning rule); SwiftPM does not
/// apply warning-control settings to remote dependencies, so theirs cannot break us.
let strictSettings: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
    // Invariant checks of the resolved-values and watch tables (`_checkInvariants()`), as
    // swift-collections does with COLLECTIONS_INTERNAL_CHECKS: debug builds (the tests) only.
    .define("PREFERENCES_INTERNAL_CHECKS", .when(configuration: .debug)),
]

let package = Package(
    name: "swift-preferences",
    // No `platforms:` entry: it can only name Apple systems, and this package builds on Linux
    // alone (inotify, futexes, flock, libsystemd). It said macOS 15 before, which was not true.
    products: [
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "Preferences", targets: ["Preferences"]),
        .library(name: "DeclaredSettings", targets: ["DeclaredSettings"]),
        .library(name: "JournaldLogging", targets: ["JournaldLogging"]),
        .library(name: "PreferencesService", targets: ["PreferencesService"]),
        .library(name: "PreferencesConfiguration", targets: ["PreferencesConfiguration"]),
        .executable(name: "preferences-demo", targets: ["PreferencesDemo"]),
        .executable(name: "preferences-greeter", targets: ["ExampleService"]),
        .executable(name: "defaults", targets: ["DefaultsTool"]),
        .executable(name: "preferences-config-example", targets: ["ConfigurationExample"]),
        .executable(name: "preferences-keygen", targets: ["preferences-keygen"]),
        .executable(name: "preferences-fleet", targets: ["FleetService"]),
        .plugin(name: "PreferenceKeys", targets: ["PreferenceKeys"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The etcd client of preferences-fleet: etcd's v3 JSON gateway over HTTP/1.1 with TLS
        // client certificates (see Sources/EtcdGateway).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        .target(name: "PropertyList", swiftSettings: strictSettings),
        .target(name: "DeclaredSettings", dependencies: ["PropertyList"], swiftSettings: strictSettings),
        // The key generator's logic, a target of its own so tests call it without a process.
        // It depends on DeclaredSettings (and its PropertyList) alone: the plugin's tool is built before the
        // target it runs for, and a small tool keeps that first build short.
        .target(name: "PreferenceKeyGeneration", dependencies: ["DeclaredSettings", "PropertyList"], swiftSettings: strictSettings),
        // Named as its product, not PreferenceKeyGenerator: a plugin depending on an
        // executable target whose product has another name fails to resolve
        // ("no product named ..."; swiftlang/swift-package-manager#8831).
        .executableTarget(
            name: "preferences-keygen",
            dependencies: ["PreferenceKeyGeneration"],
            path: "Sources/PreferenceKeyGenerator",
            swiftSettings: strictSettings
        ),
        // Schema files in a target -> typed PreferenceKey declarations (see the plugin's
        // documentation for which files are schemas).
        .plugin(name: "PreferenceKeys", capability: .buildTool(), dependencies: [.target(name: "preferences-keygen")]),
        // The domain-file layer under the store: each domain's file, its lock, staging, history,
        // commit counter, the directory watcher and directory sync. It publishes changes
        // through `DomainSubscriber` and never names the store, so the compiler keeps the
        // direction. Its four public types (the error, a generation, a recovery, a commit's
        // origin) reach users through `Preferences`, which re-exports them.
        .target(
            name: "DomainStorage",
            dependencies: [
                "PropertyList",
                "DeclaredSettings",
                "JournaldLogging",
                "CLinux",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Preferences",
            dependencies: [
                "DomainStorage",
                "PropertyList",
                "DeclaredSettings",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Atomics and futexes on words in a shared file mapping (the commit counters).
        .target(name: "CLinux"),
        .systemLibrary(
            name: "CSystemd",
            path: "Sources/CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .target(
            name: "JournaldLogging",
            dependencies: ["CSystemd", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "DefaultsCommand",
            dependencies: ["Preferences", "PropertyList", "JournaldLogging", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "DefaultsTool",
            dependencies: ["DefaultsCommand", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "PreferencesService",
            dependencies: [
                "Preferences",
                "CSystemd",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ExampleService",
            dependencies: [
                "Preferences",
                "PreferencesService",
                "JournaldLogging",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings,
            // Its schema, org.swift-preferences.greeter.schema.plist, becomes typed keys.
            plugins: ["PreferenceKeys"]
        ),
        .target(
            name: "PreferencesConfiguration",
            dependencies: [
                "Preferences",
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ConfigurationExample",
            dependencies: [
                "PreferencesConfiguration",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "PreferencesDemo", dependencies: ["Preferences"], swiftSettings: strictSettings),
        // The fleet policy's etcd key layout and its merge into managed values (issue 21), apart
        // from any etcd client, so it is tested without a cluster; the service comes next.
        .target(name: "FleetPolicy", dependencies: ["Preferences", "PropertyList", .product(name: "Logging", package: "swift-log")], swiftSettings: strictSettings),
        // A client of etcd's v3 API through its JSON gateway: range, watch, put, delete,
        // authentication and TLS with client certificates; knows nothing of preferences.
        .target(
            name: "EtcdGateway",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // preferences-fleet: follows the fleet layout in etcd and writes the managed layer.
        .executableTarget(
            name: "FleetService",
            dependencies: [
                "FleetPolicy", "EtcdGateway", "Preferences", "PreferencesService", "JournaldLogging",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strictSettings),
        .executableTarget(
            name: "PreferencesWorker",
            dependencies: ["Preferences", "JournaldLogging", .product(name: "Logging", package: "swift-log")],
            path: "Tests/PreferencesWorker",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PropertyListTests",
            dependencies: ["PropertyList", "TestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "DeclaredSettingsTests",
            dependencies: ["DeclaredSettings", "PropertyList", "TestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PreferencesTests",
            dependencies: [
                "Preferences", "TestSupport", "PreferencesWorker",
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: ["Preferences", "PropertyList", "TestSupport", "PreferencesWorker"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "DefaultsToolTests",
            dependencies: ["DefaultsCommand", "DefaultsTool", "Preferences", "PropertyList", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PreferencesServiceTests",
            dependencies: [
                "PreferencesService", "Preferences", "PropertyList", "TestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PreferencesConfigurationTests",
            dependencies: [
                "PreferencesConfiguration", "Preferences", "TestSupport", "PreferencesWorker", "DefaultsTool",
                "ConfigurationExample",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ConfigurationTesting", package: "swift-configuration"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FleetPolicyTests",
            dependencies: [
                "FleetPolicy", "Preferences", "PropertyList", "TestSupport", "EtcdGateway", "FleetService", "PreferencesWorker",
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EtcdGatewayTests",
            dependencies: ["EtcdGateway", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PreferenceKeyGeneratorTests",
            // Preferences is built for the end-to-end test, which type-checks generated keys
            // against its module; the executable for the exit-status test.
            dependencies: ["PreferenceKeyGeneration", "preferences-keygen", "DeclaredSettings", "PropertyList", "Preferences", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "JournaldLoggingTests",
            dependencies: [
                "JournaldLogging", "Preferences", "TestSupport", "PreferencesWorker", "DefaultsTool",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The upcoming language features swift-log and swift-configuration turn on, for every Swift
// target of ours (the plugin and the C and system-library targets take no Swift settings).
for target in package.targets where target.type != .plugin && target.type != .system && target.name != "CLinux" {
    var settings = target.swiftSettings ?? []
    // SE-0335: existential types are spelled `any P`.
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    // SE-0444: a member is visible only where its module is imported.
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    // SE-0409: imports are internal unless marked `public import` (where a type is re-exported).
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    // SE-0461: a nonisolated async function runs on its caller's actor.
    settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    target.swiftSettings = settings
}
