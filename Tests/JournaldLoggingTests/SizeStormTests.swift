import Foundation
import Testing
import TestSupport

/// A storm of 10,000 refused sets, made by a process of its own so that its rate limiter
/// (one per process) starts fresh: with journald, and with no journald at all.
@Suite(
    "A storm of size-limit entries", .ownThread,
    .enabled(if: JournalReader.hasTestJournal, "needs the journald Tests/Scripts/with-journald.sh starts"))
struct SizeStormTests {
    /// The worker's process ID, from the line it prints first.
    func processID(in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("pid ") }.map { String($0.dropFirst(4)) }
    }

    /// Checks what the worker reports of its own sets: the refusal threw, nothing was kept.
    func expectWorkerOutcome(_ result: ProgramResult) {
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("trySet threw tooLarge"), "\(result.output)")
        #expect(result.output.contains("flushed; huge is absent"), "\(result.output)")
        #expect(result.output.contains("done"), "\(result.output)")
    }

    @Test("10,000 refusals in 10 s give at most 10 entries and one summary, logged when the window ends")
    func stormInJournal() throws {
        let home = try PrivatePreferencesHome()
        let domain = "com.example.storm." + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let result = try run(workerPath, ["size-storm", domain, "10000"], environment: ProcessInfo.processInfo.environment.merging(home.environment) { $1 })
        expectWorkerOutcome(result)
        let pid = try #require(processID(in: result.output), "\(result.output)")
        // The worker waited for the window to end before exiting, and logs nothing else.
        let entries = try JournalReader.entries(where: "_PID", is: pid, count: 13)
        let refusals = entries.filter { $0["MESSAGE_ID"] == ["7d199ead685a4294a32f660bd3ab101f"] && $0["PREFERENCES_SUPPRESSED"] == nil }
        let summaries = entries.filter { $0["PREFERENCES_SUPPRESSED"] != nil }
        #expect(refusals.count == 10, "\(entries.count) entries: \(entries.map { $0["MESSAGE"] ?? [] })")
        #expect(summaries.count == 1)
        // 10,000 refused sets and the refused trySet: 10,001, of which 10 were logged.
        #expect(summaries.first?["PREFERENCES_SUPPRESSED"] == ["9991"])
        #expect(summaries.first?["MESSAGE_ID"] == ["7d199ead685a4294a32f660bd3ab101f"])
        #expect(summaries.first?["PRIORITY"] == ["4"])
        #expect(entries.contains { $0["MESSAGE_ID"] == ["cde19ffe71da435783b857a19e271e31"] }, "the soft-limit warning")
    }

    @Test("with no journald (missing socket, stale socket) the storm still works and stderr gets the entries",
          .enabled(if: Privileges.canCreateUserNamespaces, noUserNamespaces), arguments: ["missing", "stale"])
    func stormWithoutJournal(socket: String) throws {
        let home = try PrivatePreferencesHome()
        let domain = "com.example.storm." + socket
        let setUp = socket == "missing" ? "test ! -e /run/systemd/journal/socket" : staleSocketSetUp
        let result = try runWorkerWithoutJournal(
            setUp: setUp, arguments: ["size-storm", domain, "10000"], environment: home.environment)
        expectWorkerOutcome(result)
        let lines = result.output.split(separator: "\n")
        #expect(lines.filter { $0.contains("over its soft limit") }.count == 1, "\(result.output)")
        #expect(lines.filter { $0.contains("was not set") }.count == 10, "\(result.output)")
        #expect(lines.filter { $0.contains("suppressed 9991 more entries") }.count == 1, "\(result.output)")
        // The sets that were not refused reached the disk, journal or not.
        let file = "\(home.userDirectory)/\(domain).plist"
        #expect(FileManager.default.fileExists(atPath: file))
    }
}
