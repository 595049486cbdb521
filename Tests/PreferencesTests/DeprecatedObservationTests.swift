import Foundation
import Preferences
import Synchronization
import Testing
import TestSupport

/// The observation spellings issue 37 (item 4) deprecated still work for their one release:
/// each forwards to its replacement and keeps its own meaning. Every test here is deprecated
/// itself, because a call inside a deprecated declaration does not warn (warnings are errors
/// in this package); delete this file with the spellings.
@Suite("Deprecated observation spellings still work")
struct DeprecatedObservationTests {
    @available(*, deprecated, message: "exercises observeAllKeys(options:handler:)")
    @Test("observeAllKeys(options:handler:) hears every key, as observe(options:handler:) does")
    func observeAllKeys() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let log = ChangeLog()
        let observation = store.observeAllKeys(options: [.new]) { log.append($0) }
        store.set(1, forKey: "a")
        store.set("b", forKey: "b")
        #expect(log.all == [
            PreferenceChange(key: "a", oldValue: nil, newValue: 1, origin: .thisProcess),
            PreferenceChange(key: "b", oldValue: nil, newValue: "b", origin: .thisProcess),
        ])
        observation.cancel()
    }

    @available(*, deprecated, message: "exercises updates(_:initial:)")
    @Test("updates(_:initial:) yields a typed key's values, the current one first, as values(of:) does")
    func typedUpdates() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let key = PreferenceKey("Streamed", default: 0)
        let values = store.updates(key)
        let later = store.updates(key, initial: false)
        store[key] = 1
        var iterator = values.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        #expect(await iterator.next() == 1)
        var laterIterator = later.makeAsyncIterator()
        #expect(await laterIterator.next() == 1)
    }

    @available(*, deprecated, message: "exercises updates(forKey:) and updates(forKey:initial:)")
    @Test("updates(forKey:) still starts with the next change; updates(forKey:initial: true) with the current value")
    func namedUpdates() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set("first", forKey: "Named")
        let next = store.updates(forKey: "Named")
        let current = store.updates(forKey: "Named", initial: true)
        store.set("second", forKey: "Named")
        let change = PreferenceChange(key: "Named", oldValue: "first", newValue: "second", origin: .thisProcess)
        var nextIterator = next.makeAsyncIterator()
        #expect(await nextIterator.next() == change)
        var currentIterator = current.makeAsyncIterator()
        #expect(await currentIterator.next()?.newValue == "first")
        #expect(await currentIterator.next() == change)
    }

    @available(*, deprecated, message: "exercises sizeLimitExceededNotification")
    @Test("sizeLimitExceededNotification is still posted for each warning and refusal, with key, size, limit and refused")
    func sizeLimitNotification() throws {
        let fixture = try StoreFixture()
        var configuration = fixture.configuration
        configuration.softSizeLimit = 1_000
        configuration.sizeLimit = 5_000
        let store = try PreferenceStore(domain: "com.example.sized", configuration: configuration)
        let posted = Mutex<[[String]]>([])
        let token = NotificationCenter.default.addObserver(
            forName: PreferenceStore.sizeLimitExceededNotification, object: store, queue: nil
        ) { note in
            let info = note.userInfo ?? [:]
            let fields = [info["key"] as? String, (info["limit"] as? Int).map(String.init), (info["refused"] as? Bool).map(String.init)]
            posted.withLock { $0.append(fields.map { $0 ?? "?" }) }
            #expect(info["size"] is Int)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        store.set(Data(count: 2_000), forKey: "big")
        store.set(Data(count: 20_000), forKey: "huge")
        #expect(posted.withLock { $0 } == [["big", "1000", "false"], ["huge", "5000", "true"]])
    }
}
