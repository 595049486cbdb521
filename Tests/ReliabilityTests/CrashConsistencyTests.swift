import Foundation
import Glibc
@testable import Preferences
import Testing
import TestSupport

/// A writer SIGKILLed at random moments: the file is always one committed generation.
@Suite("Crash consistency", .ownThread)
struct CrashConsistencyTests {
    static let domain = "com.example.crash"
    static let keys = 20

    /// Checks that the file holds exactly one generation of the `flush-loop` writer, between
    /// the last one it reported committed and the one after; returns that generation (0 for
    /// no file).
    func checkGeneration(_ fixture: ReliabilityFixture, committed: Int, iteration: Int) throws -> Int {
        guard let values = try fixture.onDisk(Self.domain) else {
            // Only a first creation that never reached its rename leaves no file.
            #expect(committed == 0, "iteration \(iteration): the file vanished after generation \(committed)")
            return 0
        }
        guard let generation = values["state"]?["generation"]?.integerValue?.intValue else {
            // Only the test's own "checked" key, written after a kill before the first file.
            #expect(committed == 0 && values.keys.sorted() == ["checked"], "iteration \(iteration): no generation in \(values.keys.sorted())")
            return 0
        }
        #expect(
            generation == committed || generation == committed + 1,
            "iteration \(iteration): generation \(generation) on disk, \(committed) last committed")
        let expected = generationValues(generation, keys: Self.keys)
        let mine = values.filter { expected[$0.key] != nil }
        #expect(mine == expected, "iteration \(iteration): generation \(generation) is partial")
        return generation
    }

    @Test("a writer flushing in a loop, SIGKILLed at 500 random moments: always a committed state, no temp file survives the next flush")
    func randomKills() throws {
        let fixture = try ReliabilityFixture()
        let iterations = isSoak ? 5_000 : 500
        var generator = SystemRandomNumberGenerator()
        var committed = 0
        var killedMidFlush = 0
        var fresh = 0
        var killedBeforeFirstFile = 0
        var flushesSeen = 0
        for iteration in 0..<iterations {
            // Every tenth round starts from no file, so some kills hit the first creation.
            if iteration % 10 == 0 {
                unlink(fixture.path(Self.domain))
                committed = 0
                fresh += 1
            }
            let worker = try fixture.startWorker(["flush-loop", Self.domain, String(Self.keys)])
            // The kill lands a random moment after start-up, within the first few flushes
            // (a flush with its two fsyncs takes 10-20 ms here): the first flush, the file's
            // creation every tenth round, comes right after "start".
            try #require(worker.nextLine()?.hasPrefix("start ") == true)
            usleep(UInt32.random(in: 0...50_000, using: &generator))
            worker.signal(SIGKILL)
            worker.wait()
            let lines = worker.output.split(separator: "\n")
            flushesSeen += lines.filter { $0.hasPrefix("committed ") }.count
            for line in lines where line.hasPrefix("committed ") {
                committed = Int(line.dropFirst("committed ".count)) ?? committed
            }
            let generation = try checkGeneration(fixture, committed: committed, iteration: iteration)
            if generation == 0 && iteration % 10 == 0 { killedBeforeFirstFile += 1 }
            committed = max(committed, generation)
            if !fixture.temporaryFiles.isEmpty { killedMidFlush += 1 }
            // The next flush, by anyone, removes what the killed writer left.
            try PersistentDomain.writer(for: fixture.file(Self.domain), policy: FilePolicy()).modify { $0["checked"] = .integer(iteration) }
            #expect(fixture.temporaryFiles.isEmpty, "iteration \(iteration): \(fixture.temporaryFiles) outlived a flush")
        }
        #expect(flushesSeen > 0, "the writer never committed a generation: the kills came too early")
        figure(
            "random SIGKILLs", "\(iterations) kills after \(flushesSeen) committed flushes, \(killedMidFlush) left a temp file (all removed by the next flush), \(fresh) started from no file, \(killedBeforeFirstFile) of those killed before the first file existed")
    }

    @Test("a writer committing 20-key transactions, SIGKILLed at 200 random moments: always one whole transaction on disk")
    func randomKillsDuringTransactions() throws {
        let fixture = try ReliabilityFixture()
        let domain = "com.example.crash-transactions"
        let keys = 20
        let iterations = isSoak ? 2_000 : 200
        var generator = SystemRandomNumberGenerator()
        var committed = 0
        var transactionsSeen = 0
        var killedMidCommit = 0
        for iteration in 0..<iterations {
            let worker = try fixture.startWorker(["transaction-loop", domain, String(keys)])
            try #require(worker.nextLine()?.hasPrefix("start ") == true)
            usleep(UInt32.random(in: 0...30_000, using: &generator))
            worker.signal(SIGKILL)
            worker.wait()
            for line in worker.output.split(separator: "\n") where line.hasPrefix("committed ") {
                transactionsSeen += 1
                committed = Int(line.dropFirst("committed ".count)) ?? committed
            }
            guard let values = try fixture.onDisk(domain) else {
                #expect(committed == 0, "iteration \(iteration): the file vanished after transaction \(committed)")
                continue
            }
            let generation = values["state"]?["generation"]?.integerValue?.intValue ?? 0
            #expect(generation == committed || generation == committed + 1, "iteration \(iteration): \(generation) on disk, \(committed) committed")
            // Every key of one transaction, or none of the next: never a mix.
            for key in 0..<keys {
                #expect(values["t\(key)"] == .integer(generation), "iteration \(iteration): t\(key) is not from transaction \(generation)")
            }
            committed = max(committed, generation)
            if !fixture.temporaryFiles.isEmpty { killedMidCommit += 1 }
        }
        #expect(transactionsSeen > 0, "the writer never committed: the kills came too early")
        figure(
            "random SIGKILLs during transactions",
            "\(iterations) kills after \(transactionsSeen) committed 20-key transactions: every file one whole transaction, \(killedMidCommit) kills left a temporary file")
    }

    @Test("a writer restoring generations (undo after undo), SIGKILLed at 200 random moments: always one whole generation")
    func randomKillsDuringRestores() throws {
        let fixture = try ReliabilityFixture()
        let domain = "com.example.crash-restores"
        // Two whole versions to swing between, each a transaction of 20 keys.
        for generation in 1...2 {
            let writer = try fixture.startWorker(["transaction-loop", domain, "20"])
            #expect(writer.nextLine()?.hasPrefix("start ") == true)
            while writer.nextLine().map({ !$0.hasPrefix("committed \(generation)") }) ?? false {}
            writer.signal(SIGKILL)
            writer.wait()
        }
        let iterations = isSoak ? 2_000 : 200
        var generator = SystemRandomNumberGenerator()
        var restores = 0
        var killedMidCommit = 0
        for iteration in 0..<iterations {
            let worker = try fixture.startWorker(["undo-loop", domain])
            try #require(worker.nextLine() == "start")
            usleep(UInt32.random(in: 0...30_000, using: &generator))
            worker.signal(SIGKILL)
            worker.wait()
            restores += worker.output.split(separator: "\n").filter { $0.hasPrefix("restored ") }.count
            let values = try #require(try fixture.onDisk(domain), "iteration \(iteration): the domain file is gone")
            let generation = values["state"]?["generation"]?.integerValue?.intValue ?? 0
            #expect(generation >= 1, "iteration \(iteration): no generation on disk")
            for key in 0..<20 {
                #expect(values["t\(key)"] == .integer(generation), "iteration \(iteration): t\(key) is not from version \(generation)")
            }
            if !fixture.temporaryFiles.isEmpty { killedMidCommit += 1 }
        }
        #expect(restores > 0, "the worker never restored: the kills came too early")
        let history = try FileManager.default.contentsOfDirectory(atPath: fixture.userDirectory + "/.\(domain).plist.history")
        figure(
            "random SIGKILLs during restores",
            "\(iterations) kills after \(restores) completed undos: every file one whole version, \(killedMidCommit) kills left a temporary file, \(history.count) generations kept at the end")
    }
}
