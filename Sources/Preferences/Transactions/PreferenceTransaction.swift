public import Foundation

/// The changes of one ``PreferenceStore/transaction(_:)``, made inside its body.
///
/// It offers the store's setters and getters (``PreferenceValueAccess``). Reads see the domain file as it is now (the
/// body runs while the domain's lock is held, in this process and across processes), this
/// process's unwritten changes, and the body's own changes, resolved through the store's
/// search list as the store will resolve them once the transaction commits; so a value read
/// here and written back cannot have been changed by anyone in between.
///
/// Use it only inside the body and only on the body's thread: it is not `Sendable`, and
/// once the body returns, its changes are committed (or, if the body threw, dropped).
public final class PreferenceTransaction: PreferenceValueAccess {
    /// The store the transaction commits to.
    let store: PreferenceStore
    /// The domain file's values with this process's pending changes and the body's changes.
    var values: [String: PropertyListValue]
    /// The keys the body set or removed.
    private(set) var changedKeys: Set<String> = []

    init(store: PreferenceStore, values: [String: PropertyListValue]) {
        self.store = store
        self.values = values
    }

    // MARK: Writing

    /// Stores any property-list value, as the store's `set(_:forKey:)` does; nil removes the key.
    public func set(_ value: Any?, forKey key: String) {
        guard let value else {
            removeObject(forKey: key)
            return
        }
        setValue(store.propertyList(value, forKey: key, in: "PreferenceTransaction.set(_:forKey:)"), forKey: key)
    }

    /// Stores a URL as the store does; nil removes the key.
    public func set(_ url: URL?, forKey key: String) {
        setValue(url.map { PropertyListValue.storing($0, home: store.locations.homeDirectory) }, forKey: key)
    }

    /// Stores a property-list value, or removes the key for nil.
    ///
    /// A value that breaks its key's declared rule is not set, as with the store's
    /// ``PreferenceStore/setValue(_:forKey:)``: the key keeps its value and a warning is
    /// logged. Use ``trySet(_:forKey:)`` to be told.
    public func setValue(_ value: PropertyListValue?, forKey key: String) {
        do throws(PreferencesError) {
            try trySet(value, forKey: key)
        } catch {
            if let violation = error.violation { store.reportViolation(violation) }
        }
    }

    /// Stores a property-list value, or removes the key for nil, throwing if it breaks its
    /// key's declared rule.
    ///
    /// - Throws: ``PreferencesError`` with code `schemaViolation`; nothing was changed. If
    ///   the body lets it propagate, the whole transaction is dropped.
    public func trySet(_ value: PropertyListValue?, forKey key: String) throws(PreferencesError) {
        if let violation = store.schemaViolation(setting: value, forKey: key) { throw PreferencesError(violation) }
        values[key] = value
        changedKeys.insert(key)
    }

    /// Reads and writes a typed key.
    public subscript<Value>(key: PreferenceKey<Value>) -> Value {
        get { value(forKey: key.name).flatMap(Value.init(propertyListValue:)) ?? key.defaultValue }
        set { setValue(newValue.propertyListValue, forKey: key.name) }
    }

    // MARK: Reading

    /// The value for `key` as the store will resolve it once the transaction commits.
    public func value(forKey key: String) -> PropertyListValue? {
        let held = values[key]
        return store.snapshot.read { state -> PropertyListValue? in
            guard let index = state.pointee.appIndex else { return held }
            return state.pointee.value(forKey: key, ifLayer: index, held: held)
        }
    }

    /// The URL for `key`, as the store reads it.
    public func url(forKey key: String) -> URL? {
        value(forKey: key)?.coercedURL(home: store.locations.homeDirectory)
    }
}
