import Foundation
@testable import Preferences
import Testing
import TestSupport

/// Real processes, not threads, writing one domain at once.
@Suite("Several processes writing one domain")
struct CrossProcessTests {
    @Test("8 processes × 250 distinct keys, a flush after every set: 2,000 of 2,000 on disk")
    func distinctKeys() throws {
        let fixture = try StoreFixture()
        try runWorkers(8, fixture: fixture) { ["set-keys", "com.example.race", "p\($0)-", "250"] }
        let disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile("com.example.race")))
        #expect(disk.count == 2_000)
        for process in 0..<8 {
            for index in [0, 124, 249] {
                #expect(disk["p\(process)-\(index)"] == .integer(index))
            }
        }
    }

    @Test("8 processes × 250 atomic increments of one counter: exactly 2,000")
    func atomicIncrements() throws {
        let fixture = try StoreFixture()
        try runWorkers(8, fixture: fixture) { _ in ["increment", "com.example.counter", "count", "250"] }
        let disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile("com.example.counter")))
        #expect(disk["count"] == 2_000)
        let store = try fixture.store("com.example.counter")
        #expect(store.integer(forKey: "count") == 2_000)
    }

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
