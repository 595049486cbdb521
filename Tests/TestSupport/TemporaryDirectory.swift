import Foundation

/// A fresh directory under the system temporary directory, removed when the test is done.
public struct TemporaryDirectory: ~Copyable {
    /// The directory.
    public let url: URL

    /// Creates the directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("swift-preferences-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A file or folder inside the directory.
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The result of running a program to completion.
public struct ProgramResult: Sendable {
    /// The exit status.
    public var status: Int32
    /// Standard output and standard error, interleaved.
    public var output: String
}

/// Runs a program found on `PATH` (or at an absolute path) with arguments, collecting its
/// standard output and error together.
public func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProgramResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [executable] + arguments
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProgramResult(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
}

/// The folder holding the built test programs (the test bundle's own folder), where
/// helper executables such as `PreferencesWorker` are built.
public let builtProductsDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    .deletingLastPathComponent()
