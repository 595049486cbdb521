import Foundation
import Glibc
import TestSupport
import Testing

@Suite("The swift-configuration example service")
struct ExampleServiceTests {
    @Test("applies each defaults write through its ConfigReader within 1 s, and stops gracefully on SIGTERM")
    func appliesChangesLive() async throws {
        let fixture = try ProviderFixture()
        let domain = "com.example.service"
        try await fixture.defaults(["write", domain, "http", "-dict", "port", "-int", "8080", "timeout", "-int", "30"])

        // Its output lines are read by a thread of their own, each with its arrival time.
        let service = try Subprocess(
            builtProductsDirectory.appendingPathComponent("preferences-config-example").path,
            environment: fixture.environment.merging(["EXAMPLE_DOMAIN": domain]) { $1 })
        /// When the first line matching `predicate` arrived, waiting until `deadline`; nil if
        /// none arrived by then. Judged by the recorded arrival time, so a waiter that itself
        /// runs late neither fails a prompt arrival nor excuses a late one.
        func arrival(before deadline: Date, where predicate: (String) -> Bool) async -> Date? {
            let line = await service.waitForLine(within: .seconds(max(0, deadline.timeIntervalSinceNow)), where: predicate)
            return line.flatMap { $0.date <= deadline ? $0.date : nil }
        }

        #expect(await arrival(before: Date() + 30) { $0.contains("http.timeout=30.0") } != nil, "\(service.lines)")
        // A ConfigReader watch in a process of its own, so its timing is the provider's and
        // swift-configuration's, not this test run's busy thread pool: each change must be
        // applied within 1 s of the rename that made it (the line's arrival is recorded by
        // the reading thread).
        var latencies: [Double] = []
        for round in 1...20 {
            try await fixture.defaults(["write", domain, "http", "-dict-add", "timeout", "-int", "\(round)"])
            let renamed = try statusChangeTime(fixture.domainFile(domain))
            let applied = await arrival(before: renamed + 1) { $0.hasSuffix("http.port=8080 http.timeout=\(round).0") }
            guard let applied else {
                Issue.record("round \(round) not applied within 1 s of the rename: \(service.lines.suffix(3))")
                break
            }
            latencies.append(applied.timeIntervalSince(renamed))
        }
        print("measured: rename by defaults write → applied by the example service's ConfigReader.watchSnapshot, \(summary(latencies))")
        try await fixture.defaults(["write", domain, "greeting", "-string", "Bonjour"])
        let renamed = try statusChangeTime(fixture.domainFile(domain))
        #expect(await arrival(before: renamed + 1) { $0.hasSuffix("greeting=Bonjour http.port=8080 http.timeout=20.0") } != nil)

        service.signal(SIGTERM)
        // Killed after 10 s if still running, which `timedOut` records.
        await service.wait(timeout: .seconds(10))
        #expect(!service.timedOut)
        #expect(service.terminationReason == .exit && service.terminationStatus == 0)
        #expect(await arrival(before: Date() + 1) { $0.contains("stopped") } != nil, "\(service.lines)")
    }
}
