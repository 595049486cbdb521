import Configuration
import Foundation
import Glibc
import Preferences
import PreferencesConfiguration
import Testing

@Suite("A corrupt domain file")
struct CorruptDomainTests {
    /// Replaces the domain file by rename, as a writer would, with `bytes`.
    func replace(_ path: String, with bytes: Data) throws {
        let temporary = path + ".tmp-test"
        #expect(FileManager.default.createFile(atPath: temporary, contents: bytes, attributes: [.posixPermissions: 0o600]))
        #expect(rename(temporary, path) == 0)
    }

    @Test("keeps the last good snapshot, and a repaired file is served again")
    func keepsLastGoodSnapshot() async throws {
        let fixture = try ProviderFixture()
        let domain = "com.example.corrupt"
        try await fixture.defaults(["write", domain, "port", "-int", "8080"])
        let provider = try fixture.provider(domain)
        let reader = ConfigReader(provider: provider)
        let watched = Arrivals<Int>()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask(executorPreference: WatcherExecutor.shared) {
                try await provider.watchSnapshot { updates in
                    for await snapshot in updates {
                        let port = intValue(snapshot, ["port"]) ?? -1
                        watched.append(port)
                        if port == 9090 { return }
                    }
                }
            }
            defer { group.cancelAll() }
            #expect(await watched.arrival(of: 8080, before: Date() + 30) != nil)

            try replace(fixture.domainFile(domain), with: Data("bplist00 damaged by hand".utf8))
            let deadline = Date() + 30
            while !provider.fileProblems.contains(where: { $0.code == .corrupt }), Date() < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(provider.fileProblems.map(\.code) == [.corrupt], "the store noticed the damage")
            #expect(reader.int(forKey: "port") == 8080)
            #expect(reader.snapshot().int(forKey: "port") == 8080)

            let repaired = try BinaryPropertyListEncoder().encode(["port": 9090])
            try replace(fixture.domainFile(domain), with: Data(repaired))
            #expect(await watched.arrival(of: 9090, before: Date() + 30) != nil)
            try await group.next()
        }
        #expect(watched.values == [8080, 9090], "no empty or partial snapshot in between")
        #expect(provider.fileProblems.isEmpty)
    }
}
