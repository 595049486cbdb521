// swift-tools-version: 6.3
import PackageDescription

/// Warnings fail our own targets' builds (zero-warning rule); SwiftPM does not
/// apply warning-control settings to remote dependencies, so theirs cannot break us.
let strictSettings: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
    // Invariant checks of the resolved-values and watch tables (`_checkInvariants()`), as
    // swift-collections does with COLLECTIONS_INTERNAL_CHECKS: debug builds (the tests) only.
    .define("PREFERENCES_INTERNAL_CHECKS", .when(configuration: .debug)),
]

// The library and its integrations. A program that depends on `Preferences` checks out
// swift-system and swift-log and nothing else: the two integrations that need more are behind
// traits that are off unless a consumer turns them on, and the tools and services built on
// the library (`defaults`, `preferences-fleet` with its etcd client, the examples) are a
// package of their own in `Tools/`, which depends on this one by path.
let package = Package(
    name: "swift-preferences",
    // No `platforms:` entry: it can only name Apple systems, and this package builds on Linux
    // alone (inotify, futexes, flock, libsystemd).
    products: [
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "Preferences", targets: ["Preferences"]),
        .library(name: "DeclaredSettings", targets: ["DeclaredSettings"]),
        .library(name: "JournaldLogging", targets: ["JournaldLogging"]),
        .library(name: "PreferencesService", targets: ["PreferencesService"]),
        .library(name: "PreferencesConfiguration", targets: ["PreferencesConfiguration"]),
        .executable(name: "preferences-keygen", targets: ["preferences-keygen"]),
        .plugin(name: "PreferenceKeys", targets: ["PreferenceKeys"]),
    ],
    traits: [
        .trait(
            name: "Configuration",
            description: "PreferencesConfiguration: a swift-configuration provider over a preferences domain (brings in swift-configuration)."),
        .trait(
            name: "ServiceLifecycle",
            description: "PreferencesService's PreferencesFlushService, a swift-service-lifecycle service (brings in swift-service-lifecycle)."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Checked out only for a consumer that enables the trait that uses it.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .target(name: "PropertyList", swiftSettings: strictSettings),
        .target(name: "DeclaredSettings", dependencies: ["PropertyList"], swiftSettings: strictSettings),
        // The key generator's logic, a target of its own so tests call it without a process.
        // It depends on DeclaredSettings (and its PropertyList) alone: the plugin's tool is built before the
        // target it runs for, and a small tool keeps that first build short.
        .target(name: "PreferenceKeyGeneration", dependencies: ["DeclaredSettings", "PropertyList"], swiftSettings: strictSettings),
        // Named as its product: a plugin depending on an executable target whose product has
        // another name fails to resolve ("no product named ..."; swiftlang/swift-package-manager#8831).
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
        // C the Swift side cannot reach itself: atomics and futexes on words in a shared file
        // mapping (the commit counters), statfs, and the glibc calls that need _GNU_SOURCE.
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
        // sd_notify always; the service-lifecycle flush service with the ServiceLifecycle trait.
        .target(
            name: "PreferencesService",
            dependencies: [
                "Preferences",
                "CSystemd",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["ServiceLifecycle"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Empty without the Configuration trait.
        .target(
            name: "PreferencesConfiguration",
            dependencies: [
                "Preferences",
                .product(name: "Configuration", package: "swift-configuration", condition: .when(traits: ["Configuration"])),
            ],
            swiftSettings: strictSettings
        ),
        // Shared by the tests of both packages (Tools/Tests/TestSupport links here). It reads
        // domain files with PropertyList's decoder, as another program would.
        .target(name: "TestSupport", dependencies: ["PropertyList"], path: "Tests/TestSupport", swiftSettings: strictSettings),
        .executableTarget(
            name: "PreferencesWorker",
            dependencies: ["Preferences", "DomainStorage", "JournaldLogging", .product(name: "Logging", package: "swift-log")],
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
            name: "PreferenceKeyGeneratorTests",
            dependencies: ["PreferenceKeyGeneration", "preferences-keygen", "DeclaredSettings", "PropertyList", "Preferences", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "JournaldLoggingTests",
            dependencies: [
                "JournaldLogging", "Preferences", "TestSupport", "PreferencesWorker",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .plugin && target.type != .system && target.name != "CLinux" {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    target.swiftSettings = settings
}
