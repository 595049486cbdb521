package import Foundation

/// The result of running a program to completion.
package struct ProgramResult: Sendable {
    /// The exit status.
    package var status: Int32
    /// Standard output and standard error, interleaved.
    package var output: String
}

/// Runs a program found on `PATH` (or at an absolute path) with arguments to completion
/// (``Subprocess/run(_:_:environment:currentDirectory:input:errors:timeout:)``), collecting
/// its standard output and error together.
package func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProgramResult {
    let finished = try Subprocess.run(executable, arguments, environment: environment, errors: .mergedWithOutput)
    return ProgramResult(status: finished.terminationStatus, output: finished.output)
}

/// The folder holding the built test programs (the test bundle's own folder), where
/// helper executables such as `PreferencesWorker` are built.
package let builtProductsDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    .deletingLastPathComponent()

/// The `PreferencesWorker` test program, built beside the tests: the other process that
/// reads and writes a domain in cross-process, crash and logging tests.
package let workerPath = builtProductsDirectory.appendingPathComponent("PreferencesWorker").path

/// The full path of a program on `PATH`, if it is installed: tests that need a tool the
/// package does not build (strace, flock, bindfs, unshare) look it up here to skip without it.
package func installedProgram(_ name: String) -> String? {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}
