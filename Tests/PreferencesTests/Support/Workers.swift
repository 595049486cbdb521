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
