public import Observation
import Synchronization

/// One preference as an `Observable` property: reading ``value`` in
/// `withObservationTracking` registers interest, a change from any process (this one, another
/// program, `defaults write`, a hand edit) updates it and fires `onChange`, and assigning it
/// writes the store.
///
/// ```swift
/// let volume = ObservedPreference(.volume, in: store)
/// withObservationTracking { print(volume.value) } onChange: { print("volume changed") }
/// volume.value = 70                       // store[.volume] = 70; every process hears of it
/// ```
///
/// This is the role of `NSUserDefaultsController` or `g_settings_bind`, without a UI toolkit.
/// A model class whose properties follow declared keys keeps one of these per key and
/// forwards its properties to them; observation tracking sees through the forwarding:
///
/// ```swift
/// final class GreeterModel: Sendable {
///     let volumeBinding: ObservedPreference<Int>
///     var volume: Int {
///         get { volumeBinding.value }
///         set { volumeBinding.value = newValue }
///     }
/// }
/// ```
///
/// `onChange` runs on the thread that made the change: the assigning thread for this
/// process's writes, the watcher thread for other processes' (see ARCHITECTURE.md,
/// "Where callbacks run"). An assignment the store refuses (a value that breaks the domain's schema, or
/// one that would exceed the size limit) changes nothing and fires nothing.
public final class ObservedPreference<Value: PreferenceValue>: Observable, Sendable {
    /// The key followed.
    public let key: PreferenceKey<Value>
    /// The store read and written.
    public let store: PreferenceStore
    private let registrar = ObservationRegistrar()
    /// The value as last delivered: what ``value`` returns.
    private let current: ThreadLock<Value>
    /// The store observation feeding `current`; ends with this object.
    private let observation = ThreadLock<PreferenceObservation?>(nil, rank: .leaf)

    /// Follows `key` in `store` from now on.
    public init(_ key: PreferenceKey<Value>, in store: PreferenceStore) {
        self.key = key
        self.store = store
        current = ThreadLock(store[key], rank: .leaf)
        // Registered after `current` is set; a change in between is delivered to the handler
        // (the store's observers hear every commit after they register), and the handler
        // re-reads the store, so no change is lost in the gap.
        let token = store.observe(key) { [weak self] _ in
            self?.refresh()
        }
        observation.withLock { $0 = token }
        refresh()
    }

    deinit {
        // Cancelled outside the lock: cancelling takes the store's observer table's lock.
        let token = observation.withLock { token in
            defer { token = nil }
            return token
        }
        token?.cancel()
    }

    /// The key's value as reads see it; assigning writes it to the store (`store[key] = value`).
    public var value: Value {
        get {
            registrar.access(self, keyPath: \.value)
            return current.withLock { $0 }
        }
        set {
            store[key] = newValue
        }
    }

    /// Takes the store's current value; a different one is published as a mutation of
    /// ``value``, which fires observation tracking.
    private func refresh() {
        let latest = store[key]
        let differs = current.withLock { $0.propertyListValue != latest.propertyListValue }
        guard differs else { return }
        registrar.withMutation(of: self, keyPath: \.value) {
            current.withLock { $0 = latest }
        }
    }
}
