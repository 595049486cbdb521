import Foundation
import Preferences
import PreferencesConfiguration
import TestSupport

/// A private preferences home (``PrivatePreferencesHome``) for one test, with stores and
/// providers confined to it and the real `defaults` tool and `PreferencesWorker` run against
/// it as separate processes.
final class ProviderFixture: PrivatePreferencesHome {
    /// What every store and child process gets: only this fixture's directories, and a PATH.
    override var environment: [String: String] {
        var environment = super.environment
        environment["PATH"] = Self.searchPath
        return environment
    }

    /// Store configuration for this fixture; no launch arguments, so the test runner's own
    /// arguments cannot become an argument domain.
    var configuration: PreferenceStore.Configuration {
        PreferenceStore.Configuration(environment: environment, arguments: [])
    }

    func store(_ domain: String) throws -> PreferenceStore {
        try PreferenceStore(domain: domain, configuration: configuration)
    }

    func provider(_ domain: String) throws -> PreferencesProvider {
        try PreferencesProvider(domain: domain, configuration: configuration)
    }

    /// The file that holds `domain`.
    func domainFile(_ domain: String) -> String { "\(userDirectory)/\(domain).plist" }

    /// Runs a built program with this fixture's environment; see ``runProgram(_:_:environment:input:)``.
    func run(_ program: String, _ arguments: [String], input: Data? = nil) async throws {
        try await runProgram(program, arguments, environment: environment, input: input)
    }

    /// Runs the real `defaults` tool to completion and requires success.
    func defaults(_ arguments: [String], input: Data? = nil) async throws {
        try await run("defaults", arguments, input: input)
    }
}

/// A helper process failed.
struct FixtureFailure: Error, CustomStringConvertible {
    var description: String
}

/// Runs a program built next to the test bundle to completion and requires success.
///
/// Waits without blocking a thread: tests run in parallel on a small cooperative pool,
/// and a blocked pool thread would delay the very watch deliveries the tests time.
func runProgram(_ program: String, _ arguments: [String], environment: [String: String], input: Data? = nil) async throws {
    let process = try Subprocess(
        builtProductsDirectory.appendingPathComponent(program).path, arguments, environment: environment,
        input: input.map { .data($0) } ?? .nullDevice, output: .nullDevice)
    let status = await process.wait()
    guard status == 0 else {
        throw FixtureFailure(description: "\(program) \(arguments) exited \(status): \(process.errorOutput)")
    }
}
