import Foundation
import Glibc
import TestSupport
import Testing

@Suite("The swift-configuration example service")
struct ExampleServiceTests {
    /// Output lines of a running program, collected by a thread of their own so that no
    /// pool thread blocks on the pipe.
    static func collectLines(from handle: FileHandle, into lines: Arrivals<String>) {
        Thread.detachNewThread {
            var pending = Data()
            while case let chunk = handle.availableData, !chunk.isEmpty {
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending = Data(pending[(newline + 1)...])
                }
            }
        }
    }

    @Test("applies each defaults write through its ConfigReader within 1 s, and stops gracefully on SIGTERM")
    func appliesChangesLive() async throws {
        let fixture = try ProviderFixture()
        let domain = "com.example.service"
        try await fixture.defaults(["write", domain, "http", "-dict", "port", "-int", "8080", "timeout", "-int", "30"])

        let service = Process()
        service.executableURL = builtProductsDirectory.appendingPathComponent("preferences-config-example")
        service.environment = fixture.environment.merging(["EXAMPLE_DOMAIN": domain]) { $1 }
        let output = Pipe()
        service.standardOutput = output
        let lines = Arrivals<String>()
        Self.collectLines(from: output.fileHandleForReading, into: lines)
        try service.run()
        defer { if service.isRunning { service.terminate() } }

        #expect(await lines.arrival(before: Date() + 30) { $0.contains("http.timeout=30.0") } != nil, "\(lines.values)")
        // A ConfigReader watch in a process of its own, so its timing is the provider's and
        // swift-configuration's, not this test run's busy thread pool: each change must be
        // applied within 1 s of the rename that made it (the line's arrival is recorded by
        // the reading thread).
        var latencies: [Double] = []
        for round in 1...20 {
            try await fixture.defaults(["write", domain, "http", "-dict-add", "timeout", "-int", "\(round)"])
            let renamed = try statusChangeTime(fixture.domainFile(domain))
            let applied = await lines.arrival(before: renamed + 1) { $0.hasSuffix("http.port=8080 http.timeout=\(round).0") }
            guard let applied else {
                Issue.record("round \(round) not applied within 1 s of the rename: \(lines.values.suffix(3))")
                break
            }
            latencies.append(applied.timeIntervalSince(renamed))
        }
        print("measured: rename by defaults write → applied by the example service's ConfigReader.watchSnapshot, \(summary(latencies))")
        try await fixture.defaults(["write", domain, "greeting", "-string", "Bonjour"])
        let renamed = try statusChangeTime(fixture.domainFile(domain))
        #expect(await lines.arrival(before: renamed + 1) { $0.hasSuffix("greeting=Bonjour http.port=8080 http.timeout=20.0") } != nil)

        kill(service.processIdentifier, SIGTERM)
        let deadline = Date() + 10
        while service.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!service.isRunning)
        #expect(service.terminationReason == .exit && service.terminationStatus == 0)
        #expect(await lines.arrival(before: Date() + 1) { $0.contains("stopped") } != nil, "\(lines.values)")
    }
}
