import Foundation
import Preferences
import Synchronization
import Testing
import TestSupport

/// A store in the test process and the `defaults` tool in another, on one domain.
@Suite("A store beside the defaults tool", .ownThread)
struct StoreBesideToolTests {
    @Test("the defaults tool in another process: a multi-key write is one commit, an undo is seen by the next read")
    func toolWriteAndUndo() throws {
        let tool = try ToolFixture()
        let domain = "com.example.test"
        let configuration = PreferenceStore.Configuration(environment: tool.environment, arguments: [], lockTimeout: .seconds(5))
        let store = try PreferenceStore(domain: domain, configuration: configuration)
        let files = PreferenceFiles(configuration: configuration)
        let location = try PersistentDomainLocation.named(domain)
        store.set(0, forKey: "x")
        try store.flush()
        let before = try files.generations(at: location).count
        try tool.output(["write", domain, "x", "-int", "1", "y", "-int", "2"])
        #expect(store.integer(forKey: "x") == 1 && store.integer(forKey: "y") == 2)
        #expect(try files.generations(at: location).count == before + 1, "one commit")
        let recorded = Mutex<[PreferenceChange]>([])
        let observation = store.observe { change in recorded.withLock { $0.append(change) } }
        defer { observation.cancel() }
        try tool.output(["undo", domain])
        #expect(store.integer(forKey: "x") == 0 && store.object(forKey: "y") == nil)
        // The observers hear of the undo on the watcher thread, soon after the read saw it.
        let deadline = ContinuousClock.now + .seconds(10)
        while Set(recorded.withLock { $0.map(\.key) }) != ["x", "y"], ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(Set(recorded.withLock { $0.map(\.key) }) == ["x", "y"])
        #expect(recorded.withLock { $0 }.allSatisfy { $0.origin == .anotherProcess })
    }
}
