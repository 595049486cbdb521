import Foundation
@testable import Preferences
import Testing
import TestSupport

/// Real processes, not threads, handing a domain to each other. Many processes writing one
/// domain at once (distinct keys, increments, removals, killed and stopped lock holders) are
/// `ReliabilityTests.ConcurrencyTests`: the 8-process versions of its distinct-key and
/// increment tests that were here ran the same code again at half the scale.
@Suite("Values handed from one process to another", .ownThread)
struct CrossProcessTests {
    @Test("a value set just before a normal exit is on disk")
    func flushAtExit() throws {
        let fixture = try StoreFixture()
        try runWorkers(1, fixture: fixture) { _ in ["set-and-exit", "com.example.exit", "last", "words"] }
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.exit")) == ["last": "words"])
    }

    @Test("a value written by one process is read by another")
    func readAcross() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store("com.example.across")
        store.set("from the test", forKey: "message")
        try store.flush()
        let result = try run(workerPath, ["read", "com.example.across", "message"], environment: fixture.processEnvironment)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "from the test")
    }
}
