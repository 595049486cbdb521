// swift-tools-version: 6.3
// The libFuzzer targets for the binary property-list decoder and for schema reading, a package of its own because
// it must be built with `-sanitize=fuzzer,address`, which the main package's targets are
// not (the flags are given on the command line, so the decoder itself is instrumented
// too). Run it with `bash Tests/Scripts/fuzz.sh [SECONDS]`; the committed corpus in
// `Corpus/` is replayed by the main test suite (ReliabilityTests).
import PackageDescription

let package = Package(
    name: "swift-preferences-fuzz",
    // No `platforms:` entry: it can only name Apple systems, and this package builds on Linux
    // alone (inotify, futexes, flock, libsystemd). It said macOS 15 before, which was not true.
    dependencies: [
        .package(name: "swift-preferences", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "DecoderFuzzer",
            dependencies: [.product(name: "PropertyList", package: "swift-preferences")],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        // Schemas (native and Settings.bundle) read from any bytes.
        .executableTarget(
            name: "SchemaFuzzer",
            dependencies: [
                .product(name: "DeclaredSettings", package: "swift-preferences"),
                .product(name: "PropertyList", package: "swift-preferences"),
            ],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
