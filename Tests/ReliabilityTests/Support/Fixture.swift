import Foundation
import Glibc
@testable import Preferences
import TestSupport

/// A private preferences home (``PrivatePreferencesHome``) for one test, the worker
/// processes that write it, and what is on disk.
final class ReliabilityFixture: PrivatePreferencesHome {
    /// Creates the fixture and its preferences directory (mode 0700).
    ///
    /// - Parameter inMemory: Put the preferences directory on /dev/shm (tmpfs), where
    ///   fsync costs nothing: for stress tests of locking and merging, not of the disk.
    init(inMemory: Bool = false) throws {
        try super.init(onTmpfs: inMemory)
        try FileManager.default.createDirectory(atPath: userDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    override var environment: [String: String] {
        var environment = super.environment
        environment["PATH"] = Self.searchPath
        // 16 writers flushing back to back on 2 cores, each flush re-encoding up to
        // 8,000 keys in a debug build: the longest wait measured was 4.2 s (16 × 500,
        // blocking lock wait; it passed 10 s when the lock was polled). The stress tests
        // check merging, not the timeout, so they allow a loaded machine far more.
        environment["PREFERENCES_WORKER_LOCK_TIMEOUT"] = "300"
        return environment
    }

    func path(_ domain: String) -> String { "\(userDirectory)/\(domain).plist" }

    func file(_ domain: String) -> DomainFile { DomainFile(directory: userDirectory, fileName: "\(domain).plist") }

    func store(_ domain: String, lockTimeout: Duration = .seconds(10)) throws -> PreferenceStore {
        try PreferenceStore(
            domain: domain, configuration: .init(environment: environment, arguments: ["test"], lockTimeout: lockTimeout))
    }

    /// The domain's values straight from disk (``domainValuesOnDisk(atPath:)``).
    func onDisk(_ domain: String) throws -> [String: PropertyListValue]? {
        try domainValuesOnDisk(atPath: path(domain))
    }

    /// Names of temporary files in the directory and in its staging directory, where
    /// writers make them.
    var temporaryFiles: [String] {
        [userDirectory, userDirectory + "/.swift-preferences-staging"].flatMap { directory in
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.contains(".tmp-") }
        }
    }

    /// Starts a worker, its standard output and error collected.
    func startWorker(_ arguments: [String]) throws -> Subprocess {
        try Subprocess(workerPath, arguments, environment: environment)
    }

    /// Runs `count` workers at once and requires each to exit 0.
    func runWorkers(_ count: Int, _ arguments: (Int) -> [String]) throws {
        let workers = try (0..<count).map { try startWorker(arguments($0)) }
        for worker in workers {
            let status = worker.wait()
            if status != 0 { throw WorkerFailure(description: "worker \(worker.arguments) exited \(status): \(worker.errorOutput)") }
        }
    }
}

struct WorkerFailure: Error, CustomStringConvertible {
    let description: String
}

/// Prints a measured figure in a form RELIABILITY.md quotes: `FIGURE name: value`.
func figure(_ name: String, _ value: String) {
    print("FIGURE \(name): \(value)")
}

/// Milliseconds with one decimal.
func milliseconds(_ duration: Duration) -> String {
    let value = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    return String(format: "%.1f ms", value)
}

/// The values of one generation of the worker's `flush-loop` writer (the same function as
/// in Tests/PreferencesWorker/ReliabilityCommands.swift): every key holds the generation.
func generationValues(_ generation: Int, keys: Int) -> [String: PropertyListValue] {
    var state: [String: PropertyListValue] = ["generation": .integer(generation)]
    for key in 0..<keys { state["k\(key)"] = .integer(generation) }
    state["payload"] = .data(Data(repeating: UInt8(truncatingIfNeeded: generation), count: 100 + (generation % 13) * 700))
    return ["state": .dictionary(state)]
}
