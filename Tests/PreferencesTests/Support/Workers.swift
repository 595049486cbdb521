import Foundation
import Testing
import TestSupport

/// Starts `count` worker processes with `arguments(index)` and waits for all of them.
func runWorkers(_ count: Int, fixture: StoreFixture, _ arguments: (Int) -> [String]) throws {
    var processes: [Process] = []
    for index in 0..<count {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: workerPath)
        process.arguments = arguments(index)
        process.environment = fixture.processEnvironment
        try process.run()
        processes.append(process)
    }
    for process in processes {
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "worker \(process.arguments ?? []) failed")
    }
}

/// A program (by default the worker) started with pipes on its standard input, output and
/// error, its output lines collected as they arrive (``CollectedLines``).
struct PipedWorker {
    let process = Process()
    private let input = Pipe(), errors = Pipe()
    /// The lines the program has written to standard output so far.
    let lines: CollectedLines

    init(_ arguments: [String], executable: String = workerPath, environment: [String: String]) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        lines = CollectedLines(output.fileHandleForReading)
    }

    /// Writes `line` and a newline to the program's standard input.
    func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Closes the program's standard input, waits for it to exit, and returns what it wrote
    /// to standard error.
    func finish() throws -> String {
        try input.fileHandleForWriting.close()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }
}
