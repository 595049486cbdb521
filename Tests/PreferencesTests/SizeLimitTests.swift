import Foundation
@testable import Preferences
import Synchronization
import Testing
import TestSupport

@Suite("Size limits")
struct SizeLimitTests {
    func store(_ fixture: StoreFixture, soft: Int, hard: Int) throws -> PreferenceStore {
        var configuration = fixture.configuration
        configuration.softSizeLimit = soft
        configuration.sizeLimit = hard
        return try PreferenceStore(domain: "com.example.sized", configuration: configuration)
    }

    /// Records, as they are delivered, the size-limit events `store` hands to its
    /// `sizeLimitEvents()` sequences: whether each was a refusal.
    final class Events: Sendable {
        final class Log: Sendable { let entries = Mutex([Bool]()) }
        private let log = Log()
        private let observers: SizeLimitObservers
        private let id: Int
        var refusals: [Bool] { log.entries.withLock { $0 } }
        init(_ store: PreferenceStore) {
            let log = self.log
            observers = store.sizeLimitObservers
            id = observers.add { event in log.entries.withLock { $0.append(event.wasRefused) } }
        }
        deinit { observers.remove(id: id) }
    }

    @Test("crossing the soft limit warns once and keeps the value")
    func softLimit() throws {
        let fixture = try StoreFixture()
        let store = try store(fixture, soft: 1_000, hard: 100_000)
        let events = Events(store)
        store.set(Data(count: 600), forKey: "a")
        #expect(events.refusals.isEmpty)
        store.set(Data(count: 600), forKey: "b")
        store.set(Data(count: 10), forKey: "c")
        #expect(events.refusals == [false], "one warning, when the limit is crossed")
        #expect(store.data(forKey: "b")?.count == 600)
    }

    @Test("sizeLimitEvents() delivers every warning and refusal, with key, size and limit")
    func events() async throws {
        let fixture = try StoreFixture()
        let store = try store(fixture, soft: 1_000, hard: 5_000)
        let events = store.sizeLimitEvents()
        store.set(Data(count: 2_000), forKey: "big")
        for _ in 0..<20 { store.set(Data(count: 20_000), forKey: "huge") }
        var received: [SizeLimitEvent] = []
        for await event in events {
            received.append(event)
            if received.count == 21 { break }
        }
        #expect(received.first?.key == "big")
        #expect(received.first?.limit == 1_000)
        #expect(received.first?.wasRefused == false)
        #expect((2_000..<5_000).contains(received.first?.size ?? 0))
        // Unlike the journal entries, the events are not rate-limited.
        #expect(received.dropFirst().count == 20)
        #expect(received.dropFirst().allSatisfy { $0.key == "huge" && $0.wasRefused && $0.limit == 5_000 && $0.size > 20_000 })
    }

    @Test("a set over the hard limit is refused: not applied, not written, and trySet throws")
    func hardLimit() throws {
        let fixture = try StoreFixture()
        let store = try store(fixture, soft: 1_000, hard: 5_000)
        let events = Events(store)
        store.set("small", forKey: "kept")
        store.set(Data(count: 20_000), forKey: "huge")
        #expect(store.value(forKey: "huge") == nil)
        let error = #expect(throws: PreferencesError.self) { try store.trySet(.data(Data(count: 20_000)), forKey: "huge") }
        #expect(error?.code == .tooLarge)
        #expect(error?.description.contains("huge") == true)
        #expect(events.refusals.filter { $0 }.count == 2)
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.sized")) == ["kept": "small"])
        // Shrinking is always allowed, even over the limit.
        store.removeObject(forKey: "kept")
        #expect(store.value(forKey: "kept") == nil)
    }
}
