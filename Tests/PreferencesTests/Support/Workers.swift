import Foundation
import Testing
import TestSupport

/// Starts `count` worker processes with `arguments(index)` and waits for all of them.
func runWorkers(_ count: Int, fixture: StoreFixture, _ arguments: (Int) -> [String]) throws {
    let workers = try (0..<count).map { index in
        try Subprocess(workerPath, arguments(index), environment: fixture.processEnvironment)
    }
    for worker in workers {
        #expect(worker.wait() == 0, "worker \(worker.arguments) failed")
    }
}
