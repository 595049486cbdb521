// swift-tools-version: 6.3
import PackageDescription

/// As in the library's manifest: warnings are errors in our own targets.
let strictSettings: [SwiftSetting] = [.treatAllWarnings(as: .error)]

/// The settings pages' Mustache templates (`Sources/SettingsPage/Resources/Templates/NAME.mustache`),
/// each compiled into SettingsPage; `PageTemplates` registers the same names.
let settingsTemplates = ["document", "list", "domain", "section", "row", "control", "node", "entry", "additions", "history", "error"]

// The tools and services built on swift-preferences: the `defaults` tool, the fleet policy
// service and its etcd client, the example services and the demo. A package of its own so
// that their dependencies (swift-argument-parser, swift-nio, async-http-client and what they
// bring) stay out of the graph of a program that only uses the library. It depends on the
// library by path, with both of the library's traits on.
let package = Package(
    name: "swift-preferences-tools",
    products: [
        .executable(name: "defaults", targets: ["defaults"]),
        .executable(name: "preferences-fleet", targets: ["preferences-fleet"]),
        .executable(name: "preferences-greeter", targets: ["preferences-greeter"]),
        .executable(name: "preferences-config-example", targets: ["preferences-config-example"]),
        .executable(name: "preferences-config-server", targets: ["preferences-config-server"]),
        .executable(name: "preferences-demo", targets: ["preferences-demo"]),
        .executable(name: "preferences-settings", targets: ["preferences-settings"]),
    ],
    dependencies: [
        .package(name: "swift-preferences", path: "..", traits: ["Configuration", "ServiceLifecycle"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The etcd client of preferences-fleet: etcd's v3 JSON gateway over HTTP/1.1 with TLS
        // client certificates (see Sources/EtcdGateway).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The HTTP servers (preferences-settings, preferences-config-server) and the settings
        // pages' templates.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        // What `defaults` does, apart from its argument parsing, so tests call it in-process.
        .target(
            name: "DefaultsCommand",
            dependencies: [
                .product(name: "Preferences", package: "swift-preferences"),
                .product(name: "PropertyList", package: "swift-preferences"),
                .product(name: "JournaldLogging", package: "swift-preferences"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "defaults",
            dependencies: ["DefaultsCommand", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "preferences-greeter",
            dependencies: [
                .product(name: "Preferences", package: "swift-preferences"),
                .product(name: "PreferencesService", package: "swift-preferences"),
                .product(name: "JournaldLogging", package: "swift-preferences"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings,
            // Its schema, org.swift-preferences.greeter.schema.plist, becomes typed keys.
            plugins: [.plugin(name: "PreferenceKeys", package: "swift-preferences")]
        ),
        .executableTarget(
            name: "preferences-config-example",
            dependencies: [
                .product(name: "PreferencesConfiguration", package: "swift-preferences"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The same settings over HTTP: a Hummingbird server whose answers follow the domain.
        .executableTarget(
            name: "preferences-config-server",
            dependencies: [
                .product(name: "PreferencesConfiguration", package: "swift-preferences"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "preferences-demo",
            dependencies: [.product(name: "Preferences", package: "swift-preferences")],
            swiftSettings: strictSettings
        ),
        // A domain's settings page: its rows from the declarations and the store, as HTML from
        // the Mustache templates in Resources/Templates, and the requests that change them;
        // knows nothing of HTTP servers, so it is tested without one. Its templates, script
        // and style sheet are compiled into the binary (embedInCode), so an installed
        // preferences-settings needs no resource bundle beside it.
        .target(
            name: "SettingsPage",
            dependencies: [
                "DefaultsCommand",
                .product(name: "Preferences", package: "swift-preferences"),
                .product(name: "DeclaredSettings", package: "swift-preferences"),
                .product(name: "PropertyList", package: "swift-preferences"),
                .product(name: "JournaldLogging", package: "swift-preferences"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            resources: ["settings.js", "settings.css"].map { Resource.embedInCode("Resources/\($0)") }
                + settingsTemplates.map { Resource.embedInCode("Resources/Templates/\($0).mustache") },
            swiftSettings: strictSettings
        ),
        // The settings pages over HTTP: the routes and the access guard (token, Host, CSRF,
        // security headers) as a Hummingbird router, so tests run them in-process.
        .target(
            name: "SettingsServer",
            dependencies: [
                "SettingsPage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // preferences-settings: serves the settings pages on loopback, behind a token.
        .executableTarget(
            name: "preferences-settings",
            dependencies: [
                "SettingsPage", "SettingsServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The fleet policy's etcd key layout and its merge into managed values, apart from any
        // etcd client, so it is tested without a cluster.
        .target(
            name: "FleetPolicy",
            dependencies: [
                .product(name: "Preferences", package: "swift-preferences"),
                .product(name: "PropertyList", package: "swift-preferences"),
                // For the journal's field names (`JournalFieldName.messageID`); linked anyway,
                // through Preferences.
                .product(name: "JournaldLogging", package: "swift-preferences"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DeclaredSettings", package: "swift-preferences"),
            ],
            swiftSettings: strictSettings
        ),
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
            name: "preferences-fleet",
            dependencies: [
                "FleetPolicy", "EtcdGateway",
                .product(name: "Preferences", package: "swift-preferences"),
                // template and check read schemas and write property lists themselves.
                .product(name: "DeclaredSettings", package: "swift-preferences"),
                .product(name: "PropertyList", package: "swift-preferences"),
                .product(name: "PreferencesService", package: "swift-preferences"),
                .product(name: "JournaldLogging", package: "swift-preferences"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The library's test support (a link to ../Tests/TestSupport: one copy of the sources,
        // compiled here as a module of this package) and the etcd clusters of the fleet tests.
        .target(
            name: "TestSupport",
            dependencies: [.product(name: "PropertyList", package: "swift-preferences")],
            path: "Tests/TestSupport",
            swiftSettings: strictSettings
        ),
        .target(name: "EtcdTestSupport", dependencies: ["TestSupport"], path: "Tests/EtcdTestSupport", swiftSettings: strictSettings),
        .testTarget(
            name: "DefaultsToolTests",
            dependencies: [
                "DefaultsCommand", "defaults", "TestSupport",
                .product(name: "Preferences", package: "swift-preferences"),
                .product(name: "PropertyList", package: "swift-preferences"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PreferencesServiceTests",
            dependencies: [
                "TestSupport",
                .product(name: "PreferencesService", package: "swift-preferences"),
                .product(name: "Preferences", package: "swift-preferences"),
                .product(name: "PropertyList", package: "swift-preferences"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PreferencesConfigurationTests",
            dependencies: [
                "TestSupport", "defaults", "preferences-config-example", "preferences-config-server",
                .product(name: "PreferencesConfiguration", package: "swift-preferences"),
                .product(name: "Preferences", package: "swift-preferences"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ConfigurationTesting", package: "swift-configuration"),
                // The HTTP client the server tests ask preferences-config-server with.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FleetPolicyTests",
            dependencies: [
                "FleetPolicy", "EtcdGateway", "preferences-fleet", "defaults", "TestSupport", "EtcdTestSupport",
                .product(name: "Preferences", package: "swift-preferences"),
                // The schema check tests compare with FleetValidation over the same schema.
                .product(name: "DeclaredSettings", package: "swift-preferences"),
                .product(name: "PropertyList", package: "swift-preferences"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SettingsPageTests",
            dependencies: [
                // defaults: the other process whose changes the live feed tests must see.
                "SettingsPage", "defaults", "TestSupport",
                .product(name: "Preferences", package: "swift-preferences"),
                .product(name: "DeclaredSettings", package: "swift-preferences"),
                .product(name: "PropertyList", package: "swift-preferences"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SettingsServerTests",
            dependencies: [
                "SettingsServer", "SettingsPage", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EtcdGatewayTests",
            dependencies: ["EtcdGateway", "TestSupport", "EtcdTestSupport"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .plugin {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    target.swiftSettings = settings
}
