import Foundation
import PropertyList
import TestSupport

/// A private preferences home (``PrivatePreferencesHome``) for one test, and the built
/// `defaults` tool run against it as a separate process.
final class ToolFixture: PrivatePreferencesHome {
    /// The environment every run gets: this fixture's directories, a PATH, no journald
    /// socket override (the tool logs to journald only when one is reachable).
    override var environment: [String: String] {
        var environment = super.environment
        environment["PATH"] = Self.searchPath
        return environment
    }

    /// What one run of the tool did.
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var stdoutBytes: [UInt8]
    }

    /// Runs `defaults` with `arguments` to completion.
    @discardableResult
    func run(_ arguments: [String], input: [UInt8]? = nil, extraEnvironment: [String: String] = [:]) throws -> Result {
        // Standard input is a pipe holding `input` (or nothing) and then closed.
        let finished = try Subprocess.run(
            defaultsPath, arguments, environment: environment.merging(extraEnvironment) { _, new in new },
            currentDirectory: directory.url.path, input: .data(Data(input ?? [])))
        let outputData = finished.outputData
        return Result(
            status: finished.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
            stderr: finished.errorOutput, stdoutBytes: [UInt8](outputData))
    }

    /// Runs the tool and returns its standard output, requiring success.
    @discardableResult
    func output(_ arguments: [String], input: [UInt8]? = nil) throws -> String {
        let result = try run(arguments, input: input)
        guard result.status == 0 else {
            throw ToolFailure(description: "defaults \(arguments) exited \(result.status): \(result.stderr)")
        }
        return result.stdout
    }

    /// The file of a named domain.
    func domainFile(_ name: String) -> String { "\(userDirectory)/\(name).plist" }

    /// A domain's values straight from its file (``domainValuesOnDisk(atPath:)``).
    func onDisk(_ name: String) throws -> [String: PropertyListValue]? {
        try domainValuesOnDisk(atPath: domainFile(name))
    }

    /// Installs a native schema for `domain` (XML, mode 0644), as a package would.
    @discardableResult
    func installSchema(_ keys: [String: PropertyListValue], for domain: String) throws -> String {
        try FileManager.default.createDirectory(atPath: schemaDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let path = "\(schemaDirectory)/\(domain).plist"
        try Data(XMLPropertyListEncoder().encode(.dictionary(["Keys": .dictionary(keys)]))).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        return path
    }

    /// Writes a domain file directly, as another program would.
    func plant(_ bytes: [UInt8], domain name: String) throws {
        try FileManager.default.createDirectory(atPath: userDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data(bytes).write(to: URL(fileURLWithPath: domainFile(name)))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: domainFile(name))
    }
}

/// A run of the tool that was required to succeed and did not.
struct ToolFailure: Error, CustomStringConvertible {
    let description: String
}

/// The `defaults` executable built beside the tests.
let defaultsPath = builtProductsDirectory.appendingPathComponent("defaults").path
