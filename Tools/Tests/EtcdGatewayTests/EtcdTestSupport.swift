import EtcdGateway
import Foundation
import Logging
import Synchronization
import EtcdTestSupport
import TestSupport
import Testing

/// One single-member etcd cluster for a whole suite, handed to its tests through
/// ``current``: starting etcd costs about a second, a test's own keys (under a fresh prefix)
/// cost nothing. Suites that compact, enable authentication or kill members start their own.
struct SharedEtcdCluster: SuiteTrait, TestScoping {
    /// The cluster of the suite being run.
    @TaskLocal static var current: EtcdCluster?

    var isRecursive: Bool { false }

    // `@concurrent`, as the protocol (compiled without NonisolatedNonsendingByDefault) declares it.
    @concurrent func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @concurrent @Sendable () async throws -> Void
    ) async throws {
        let cluster = try await EtcdCluster.start(members: 1)
        do {
            try await Self.$current.withValue(cluster) { try await function() }
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    /// The suite's cluster; fails the test when it runs outside the trait.
    static func cluster() throws -> EtcdCluster {
        try #require(current, "the suite needs the .sharedEtcdCluster trait")
    }
}

extension Trait where Self == SharedEtcdCluster {
    /// Starts one single-member cluster for the suite (see ``SharedEtcdCluster``).
    static var sharedEtcdCluster: Self { SharedEtcdCluster() }
}

/// Messages the client logged, so a test sees that it took a path (re-authentication) that
/// leaves no other trace.
final class LogRecorder: Sendable {
    private let messages = Mutex<[String]>([])

    var recorded: [String] { messages.withLock { $0 } }

    /// A logger whose messages at notice and above land in ``recorded``.
    var logger: Logger {
        Logger(label: "EtcdGatewayTests") { _ in Handler(recorder: self) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .notice
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            recorder.messages.withLock { $0.append("\(event.message)") }
        }
    }
}

/// Runs `body` with a client of `cluster` (all its endpoints) and shuts the client down after.
@discardableResult
func withClient<Result: Sendable>(
    _ cluster: EtcdCluster, tls: EtcdTLS? = nil, credentials: EtcdCredentials? = nil, logger: Logger = Logger(label: "EtcdGatewayTests"),
    _ body: (EtcdClient) async throws -> Result
) async throws -> Result {
    try await withClient(
        configuration: EtcdConfiguration(endpoints: cluster.clientURLs, tls: tls, credentials: credentials), logger: logger, body)
}

/// Runs `body` with a client of `endpoints` and shuts the client down after.
@discardableResult
func withClient<Result: Sendable>(
    endpoints: [String], requestTimeout: Duration, _ body: (EtcdClient) async throws -> Result
) async throws -> Result {
    try await withClient(
        configuration: EtcdConfiguration(endpoints: endpoints, requestTimeout: requestTimeout), logger: Logger(label: "EtcdGatewayTests"), body)
}

/// Runs `body` with a client of `configuration` and shuts the client down after, whatever
/// `body` does (AsyncHTTPClient traps on a client dropped without it).
@discardableResult
func withClient<Result: Sendable>(
    configuration: EtcdConfiguration, logger: Logger, _ body: (EtcdClient) async throws -> Result
) async throws -> Result {
    let client = try EtcdClient(configuration: configuration, logger: logger)
    do {
        let result = try await body(client)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}

struct TimedOut: Error, CustomStringConvertible {
    var description: String
}

/// `body`, or ``TimedOut`` after 30 s: a bound for liveness (a watch that never delivers
/// must fail the test, not hang the run), far above what any step takes.
func withinBound<Result: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
    try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(30))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else { throw TimedOut(description: "timed out: \(what)") }
        return result
    }
}

/// The next `count` events of `stream` (bounded), in order.
func events(_ count: Int, from stream: AsyncThrowingStream<EtcdWatchResponse, any Error>) async throws -> [EtcdEvent] {
    try await withinBound("\(count) watch events") {
        var events: [EtcdEvent] = []
        for try await response in stream {
            #expect(!response.events.isEmpty)
            #expect(response.revision >= response.events.last?.keyValue.modRevision ?? 0)
            events += response.events
            if events.count >= count { break }
        }
        return events
    }
}

/// A fresh key prefix, so tests sharing a cluster never see each other's keys.
func uniquePrefix(_ name: String) -> String {
    "tests/\(name)/\(UUID().uuidString)/"
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}

/// A TCP port on 127.0.0.1 that listens but never accepts: the kernel completes each
/// connection in its backlog and takes the request, and nothing ever answers, as with a
/// SIGSTOPped member.
final class SilentListener: Sendable {
    let url: String
    private let descriptor: Int32

    init() throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ListenerFailure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = descriptor
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard listening else {
            Glibc.close(descriptor)
            throw ListenerFailure(description: "bind or listen: errno \(errno)")
        }
        url = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
    }

    func close() { Glibc.close(descriptor) }
}

struct ListenerFailure: Error, CustomStringConvertible {
    var description: String
}
