public import Foundation

/// The changes of one ``PreferenceStore/transaction(_:)``, made inside its body.
///
/// It offers the store's setters and getters. Reads see the domain file as it is now (the
/// body runs while the domain's lock is held, in this process and across processes), this
/// process's unwritten changes, and the body's own changes, resolved through the store's
/// search list as the store will resolve them once the transaction commits; so a value read
/// here and written back cannot have been changed by anyone in between.
///
/// Use it only inside the body and only on the body's thread: it is not `Sendable`, and
/// once the body returns, its changes are committed (or, if the body threw, dropped).
public final class PreferenceTransaction {
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

    /// Stores an integer.
    public func set(_ value: Int, forKey key: String) {
        setValue(.integer(PropertyListInteger(value)), forKey: key)
    }

    /// Stores a 32-bit real.
    public func set(_ value: Float, forKey key: String) {
        setValue(.float(value), forKey: key)
    }

    /// Stores a 64-bit real.
    public func set(_ value: Double, forKey key: String) {
        setValue(.double(value), forKey: key)
    }

    /// Stores a boolean.
    public func set(_ value: Bool, forKey key: String) {
        setValue(.bool(value), forKey: key)
    }

    /// Stores a URL as the store does; nil removes the key.
    public func set(_ url: URL?, forKey key: String) {
        setValue(url.map { PropertyListValue.storing($0, home: store.locations.homeDirectory) }, forKey: key)
    }

    /// Removes `key`; a value in a lower layer shows through once the transaction commits.
    public func removeObject(forKey key: String) {
        setValue(nil, forKey: key)
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

    /// The value for `key` as a Swift value, or nil.
    public func object(forKey key: String) -> Any? {
        value(forKey: key)?.bridged
    }

    /// The string for `key`, with the store's coercions.
    public func string(forKey key: String) -> String? {
        value(forKey: key)?.coercedString
    }

    /// The array for `key`, or nil if the value is not an array.
    public func array(forKey key: String) -> [Any]? {
        guard case .array(let elements)? = value(forKey: key) else { return nil }
        return elements.map(\.bridged)
    }

    /// The dictionary for `key`, or nil if the value is not a dictionary.
    public func dictionary(forKey key: String) -> [String: Any]? {
        guard case .dictionary(let entries)? = value(forKey: key) else { return nil }
        return entries.mapValues(\.bridged)
    }

    /// The data for `key`, or nil if the value is not data.
    public func data(forKey key: String) -> Data? {
        value(forKey: key)?.dataValue
    }

    /// The array of strings for `key`, or nil.
    public func stringArray(forKey key: String) -> [String]? {
        value(forKey: key)?.coercedStringArray
    }

    /// The URL for `key`, as the store reads it.
    public func url(forKey key: String) -> URL? {
        value(forKey: key)?.coercedURL(home: store.locations.homeDirectory)
    }

    /// The integer for `key`, with the store's coercions; 0 if missing.
    public func integer(forKey key: String) -> Int {
        value(forKey: key)?.coercedInteger ?? 0
    }

    /// The float for `key`; 0 if missing.
    public func float(forKey key: String) -> Float {
        value(forKey: key)?.coercedFloat ?? 0
    }

    /// The double for `key`; 0 if missing.
    public func double(forKey key: String) -> Double {
        value(forKey: key)?.coercedDouble ?? 0
    }

    /// The boolean for `key`; false if missing.
    public func bool(forKey key: String) -> Bool {
        value(forKey: key)?.coercedBool ?? false
    }
}
