import Foundation
import Observation
@testable import Preferences
import Synchronization
import Testing
import TestSupport

/// `ObservedPreference`: an Observable property following one key both ways.
@Suite("Observation bindings", .ownThread)
struct ObservedPreferenceTests {
    /// Counts the `onChange` calls of `withObservationTracking` rounds, each armed by `track`
    /// (a round fires at most once), and the values each round read.
    final class Tracker: Sendable {
        let changes = Atomic<Int>(0)
        let seen = Mutex<[Int]>([])

        func track(_ binding: ObservedPreference<Int>) {
            let value = withObservationTracking { binding.value } onChange: { [self] in
                changes.add(1, ordering: .relaxed)
            }
            seen.withLock { $0.append(value) }
        }
    }

    @Test("reading gives the store's value with declared defaults; assigning writes the store and fires onChange")
    func bothWays() throws {
        let fixture = try StoreFixture()
        try fixture.installSchema(["Volume": ["Type": "integer", "Default": 50, "Maximum": 100]])
        let store = try fixture.store()
        let binding = ObservedPreference(PreferenceKey<Int>("Volume", default: 0), in: store)
        #expect(binding.value == 50)
        let tracker = Tracker()
        tracker.track(binding)
        binding.value = 70
        #expect(store.integer(forKey: "Volume") == 70)
        #expect(binding.value == 70)
        #expect(tracker.changes.load(ordering: .relaxed) == 1)
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.test"))?["Volume"] == 70)
        // A set through the store, not the binding, reaches it too.
        tracker.track(binding)
        store.set(80, forKey: "Volume")
        #expect(binding.value == 80)
        #expect(tracker.changes.load(ordering: .relaxed) == 2)
        #expect(tracker.seen.withLock { $0 } == [50, 70])
    }

    @Test("an assignment the schema refuses changes nothing and fires nothing")
    func refusedAssignment() throws {
        let fixture = try StoreFixture()
        try fixture.installSchema(["Volume": ["Type": "integer", "Default": 50, "Maximum": 100]])
        let store = try fixture.store()
        let binding = ObservedPreference(PreferenceKey<Int>("Volume", default: 0), in: store)
        let tracker = Tracker()
        tracker.track(binding)
        binding.value = 500
        #expect(binding.value == 50)
        #expect(store.integer(forKey: "Volume") == 50)
        #expect(tracker.changes.load(ordering: .relaxed) == 0)
    }

    @Test("a write from another process updates the property and fires withObservationTracking's onChange")
    func anotherProcess() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let binding = ObservedPreference(PreferenceKey<Int>("Level0", default: 5), in: store)
        #expect(binding.value == 5)
        let tracker = Tracker()
        tracker.track(binding)
        // Sets Level0 to 0 and flushes.
        let worker = try Subprocess(
            workerPath, ["set-keys", "com.example.test", "Level", "1"], environment: fixture.processEnvironment, output: .nullDevice)
        #expect(worker.wait() == 0)
        #expect(waitUntil { tracker.changes.load(ordering: .relaxed) == 1 })
        #expect(waitUntil { binding.value == 0 })
        #expect(tracker.changes.load(ordering: .relaxed) == 1)
    }

    @Test("a binding released while the store lives stops following it")
    func released() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        weak var weakBinding: ObservedPreference<Int>?
        do {
            let binding = ObservedPreference(PreferenceKey<Int>("Gone", default: 1), in: store)
            weakBinding = binding
            #expect(binding.value == 1)
        }
        #expect(weakBinding == nil)
        store.set(2, forKey: "Gone")
        #expect(store.integer(forKey: "Gone") == 2)
    }
}
