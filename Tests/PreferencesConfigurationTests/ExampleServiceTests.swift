import Foundation
import Glibc
import TestSupport
import Testing

@Suite("The README's example service")
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

    @Test("applies defaults write changes live and stops gracefully on SIGTERM")
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
        try await fixture.defaults(["write", domain, "http", "-dict-add", "timeout", "-int", "5"])
        #expect(await lines.arrival(before: Date() + 1) { $0.contains("greeting=Hello http.port=8080 http.timeout=5.0") } != nil)
        try await fixture.defaults(["write", domain, "greeting", "-string", "Bonjour"])
        #expect(await lines.arrival(before: Date() + 1) { $0.contains("greeting=Bonjour") } != nil)

        kill(service.processIdentifier, SIGTERM)
        let deadline = Date() + 10
        while service.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!service.isRunning)
        #expect(service.terminationReason == .exit && service.terminationStatus == 0)
        #expect(await lines.arrival(before: Date() + 1) { $0.contains("stopped") } != nil, "\(lines.values)")
    }
}
