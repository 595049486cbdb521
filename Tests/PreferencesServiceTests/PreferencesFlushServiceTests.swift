import Foundation
import Glibc
import Logging
import Preferences
import PreferencesService
import PropertyList
import ServiceLifecycle
import Synchronization
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

    private func store(in directory: borrowing TemporaryDirectory) throws -> PreferenceStore {
        let environment = [
            "PREFERENCES_HOME": directory.file("preferences").path,
            "PREFERENCES_SYSTEM_DIR": directory.file("system").path,
            "HOME": directory.url.path,
        ]
        return try PreferenceStore(domain: domain, configuration: .init(environment: environment, arguments: ["test"]))
    }

    private func onDisk(_ directory: borrowing TemporaryDirectory) throws -> PropertyListValue {
        let bytes = try Data(contentsOf: directory.file("preferences/\(domain).plist"))
        return try BinaryPropertyListDecoder().decode([UInt8](bytes))
    }

    @Test("a value set by a service that stops before it is on disk when the group returns")
    func flushesAfterOtherServices() async throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let flush = PreferencesFlushService(stores: [store], interval: .seconds(3600), logger: logger)
        let group = ServiceGroup(services: [flush, SetOnShutdownService(store: store)], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(try onDisk(directory) == ["lastWords": "set while stopping"])
    }

    @Test("a final flush that fails is thrown, so the process can exit with a failure")
    func finalFailureThrows() async throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        // A FIFO where the domain file belongs: the store refuses to write over it.
        try FileManager.default.createDirectory(at: directory.file("preferences"), withIntermediateDirectories: true)
        #expect(mkfifo(directory.file("preferences/\(domain).plist").path, 0o600) == 0)
        store.set("pending", forKey: "k")
        let flush = PreferencesFlushService(stores: [store], interval: .seconds(3600), logger: logger)
        let group = ServiceGroup(services: [flush], logger: logger)
        await group.triggerGracefulShutdown()
        let error = await #expect(throws: PreferencesError.self) { try await group.run() as Void }
        #expect(error?.code == .notRegularFile)
    }

    @Test("while running it flushes every interval, logs a failed flush and keeps going, and the next flush succeeds")
    func periodicFlushRetries() async throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let path = directory.file("preferences/\(domain).plist").path
        // A FIFO where the domain file belongs makes every write fail until it is removed.
        try FileManager.default.createDirectory(at: directory.file("preferences"), withIntermediateDirectories: true)
        #expect(mkfifo(path, 0o600) == 0)
        store.set("pending", forKey: "k")
        let messages = CapturedMessages()
        let capturing = Logger(label: "flush-test") { _ in CapturingLogHandler(messages: messages) }
        let flush = PreferencesFlushService(stores: [store], interval: .milliseconds(20), logger: capturing)
        let group = ServiceGroup(services: [flush], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // At least two periodic attempts fail and are logged; the service keeps running.
            for _ in 0..<500 where messages.count(containing: "Could not write preferences domain") < 2 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(messages.count(containing: "Could not write preferences domain") >= 2)
            #expect(unlink(path) == 0)
            for _ in 0..<500 where (try? onDisk(directory)) != ["k": "pending"] {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(try onDisk(directory) == ["k": "pending"])
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}

/// The messages a ``CapturingLogHandler`` received.
private final class CapturedMessages: Sendable {
    private let messages = Mutex<[String]>([])

    func append(_ message: String) { messages.withLock { $0.append(message) } }

    func count(containing text: String) -> Int { messages.withLock { $0.filter { $0.contains(text) }.count } }
}

/// A log handler that keeps every message, to check what a service logged.
private struct CapturingLogHandler: LogHandler {
    let messages: CapturedMessages
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.append(event.message.description)
    }
}
