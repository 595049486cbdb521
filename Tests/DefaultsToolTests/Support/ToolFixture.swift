import Foundation
import PropertyList
import TestSupport

/// A private preferences directory, system directory and home for one test, and the
/// built `defaults` tool run against them as a separate process.
final class ToolFixture {
    let directory: TemporaryDirectory
    let userDirectory: String
    let systemDirectory: String
    let homeDirectory: String
    /// The only schema directory the tool searches (`PREFERENCES_SCHEMA_PATH`).
    let schemaDirectory: String

    init() throws {
        directory = try TemporaryDirectory()
        userDirectory = directory.file("preferences").path
        systemDirectory = directory.file("system").path
        homeDirectory = directory.file("home").path
        schemaDirectory = directory.file("schemas").path
        try FileManager.default.createDirectory(atPath: homeDirectory, withIntermediateDirectories: true)
    }

    /// The environment every run gets: this fixture's directories, a PATH, no journald
    /// socket override (the tool logs to journald only when one is reachable).
    var environment: [String: String] {
        [
            "PREFERENCES_HOME": userDirectory, "PREFERENCES_SYSTEM_DIR": systemDirectory, "HOME": homeDirectory,
            "PREFERENCES_SCHEMA_PATH": schemaDirectory,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: defaultsPath)
        process.arguments = arguments
        process.environment = environment.merging(extraEnvironment) { _, new in new }
        process.currentDirectoryURL = directory.url
        let output = Pipe(), errors = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input)) }
        try stdin.fileHandleForWriting.close()
        // Standard error on its own thread, so neither pipe can fill up and block the tool.
        let errorData = ErrorCollector(errors.fileHandleForReading)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let stderr = errorData.finish()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self), stdoutBytes: [UInt8](outputData))
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

    /// A domain's values straight from its file, decoded by the library's codec.
    func onDisk(_ name: String) throws -> [String: PropertyListValue]? {
        guard let data = FileManager.default.contents(atPath: domainFile(name)) else { return nil }
        return try BinaryPropertyListDecoder().decode(data).dictionaryValue
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
