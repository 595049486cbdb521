import Foundation
@testable import Preferences
import Synchronization
import TestSupport
import Testing

/// Many threads of one process on one store: run plainly here, and under the thread
/// sanitizer by Tests/Scripts/tsan.sh.
@Suite("Threads in one process", .ownThread)
struct ThreadStressTests {
    @Test("16 threads × 10,000 mixed operations: sets, reads, removals, observers, flushes")
    func mixedOperations() throws {
        let fixture = try ReliabilityFixture(inMemory: true)
        let store = try fixture.store("com.example.threads")
        let other = try fixture.store("com.example.threads")
        let notified = Atomic<Int>(0)
        let observation = store.observe("shared") { _ in notified.add(1, ordering: .relaxed) }
        defer { observation.cancel() }
        let operations = isSoak ? 100_000 : 10_000
        let failures = ThreadLock<[String]>([])
        onThreads(16) { thread in
            var generator = SystemRandomNumberGenerator()
            let mine = thread.isMultiple(of: 2) ? store : other
            for index in 0..<operations {
                switch Int.random(in: 0..<100, using: &generator) {
                case 0..<35: mine.set(index, forKey: "t\(thread)-\(index % 50)")
                case 35..<45: mine.set("\(thread)-\(index)", forKey: "shared")
                case 45..<75: _ = mine.integer(forKey: "t\(Int.random(in: 0..<16, using: &generator))-\(index % 50)")
                case 75..<85: mine.removeObject(forKey: "t\(thread)-\(index % 50)")
                case 85..<95: _ = mine.dictionaryRepresentation().count
                case 95..<99:
                    let token = mine.observe("t\(thread)-0") { _ in }
                    token.cancel()
                default:
                    if index.isMultiple(of: 10) {
                        do throws(PreferencesError) { try mine.flush() } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        try store.flush()
        // Every thread's last values are what both stores and the disk agree on.
        let disk = try #require(try fixture.onDisk("com.example.threads"))
        for thread in 0..<16 {
            for slot in 0..<50 {
                let key = "t\(thread)-\(slot)"
                #expect(store.value(forKey: key) == other.value(forKey: key), "\(key)")
                #expect(disk[key] == store.value(forKey: key), "\(key)")
            }
        }
        #expect(notified.load(ordering: .relaxed) > 0)
        figure("16 threads × \(operations) operations", "stores and disk agree; \(notified.load(ordering: .relaxed)) notifications")
    }
}
