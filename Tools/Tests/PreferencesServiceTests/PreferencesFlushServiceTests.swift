import Foundation
import Glibc
import InMemoryLogging
import Logging
import Preferences
import PreferencesService
import PropertyList
import ServiceLifecycle
import Testing
import TestSupport

/// A service that sets a value as it stops, as the example service does.
private struct SetOnShutdownService: Service {
    let store: PreferenceStore

    func run() async throws {
        try? await gracefulShutdown()
        store.set("set while stopping", forKey: "lastWords")
    }
}

@Suite("PreferencesFlushService writes pending changes on graceful shutdown")
struct PreferencesFlushServiceTests {
    let domain = "com.example.flush-service"
    let logger = Logger(label: "PreferencesFlushServiceTests")

    private func store(in home: PrivatePreferencesHome) throws -> PreferenceStore {
        try PreferenceStore(domain: domain, configuration: .init(environment: home.environment, arguments: ["test"]))
    }

    /// Where the store keeps the domain.
    private func domainFile(_ home: PrivatePreferencesHome) -> String { "\(home.userDirectory)/\(domain).plist" }

    private func onDisk(_ home: PrivatePreferencesHome) throws -> [String: PropertyListValue]? {
        try domainValuesOnDisk(atPath: domainFile(home))
    }

    @Test("a value set by a service that stops before it is on disk when the group returns")
    func flushesAfterOtherServices() async throws {
        let home = try PrivatePreferencesHome()
        let store = try store(in: home)
        let flush = PreferencesFlushService(stores: [store], interval: .seconds(3600), logger: logger)
        let group = ServiceGroup(services: [flush, SetOnShutdownService(store: store)], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(try onDisk(home) == ["lastWords": "set while stopping"])
    }

    @Test("a final flush that fails is thrown, so the process can exit with a failure")
    func finalFailureThrows() async throws {
        let home = try PrivatePreferencesHome()
        let store = try store(in: home)
        // A FIFO where the domain file belongs: the store refuses to write over it.
        try FileManager.default.createDirectory(atPath: home.userDirectory, withIntermediateDirectories: true)
        #expect(mkfifo(domainFile(home), 0o600) == 0)
        store.set("pending", forKey: "k")
        let flush = PreferencesFlushService(stores: [store], interval: .seconds(3600), logger: logger)
        let group = ServiceGroup(services: [flush], logger: logger)
        await group.triggerGracefulShutdown()
        let error = await #expect(throws: PreferencesError.self) { try await group.run() as Void }
        #expect(error?.code == .notRegularFile)
    }

    @Test("while running it flushes every interval, logs a failed flush and keeps going, and the next flush succeeds")
    func periodicFlushRetries() async throws {
        let home = try PrivatePreferencesHome()
        let store = try store(in: home)
        let path = domainFile(home)
        // A FIFO where the domain file belongs makes every write fail until it is removed.
        try FileManager.default.createDirectory(atPath: home.userDirectory, withIntermediateDirectories: true)
        #expect(mkfifo(path, 0o600) == 0)
        store.set("pending", forKey: "k")
        let log = InMemoryLogHandler()
        let capturing = Logger(label: "flush-test") { _ in log }
        let flush = PreferencesFlushService(stores: [store], interval: .milliseconds(20), logger: capturing)
        let group = ServiceGroup(services: [flush], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // At least two periodic attempts fail and are logged; the service keeps running.
            for _ in 0..<500 where log.count(containing: "Could not write preferences domain") < 2 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(log.count(containing: "Could not write preferences domain") >= 2)
            #expect(unlink(path) == 0)
            for _ in 0..<500 where (try? onDisk(home)) != ["k": "pending"] {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(try onDisk(home) == ["k": "pending"])
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}

extension InMemoryLogHandler {
    /// How many messages logged so far contain `text`.
    fileprivate func count(containing text: String) -> Int {
        entries.filter { $0.message.description.contains(text) }.count
    }
}
