public import Foundation

extension PreferenceStore: PreferenceValueAccess {
    /// The snapshot, once this process has caught up with every commit another process
    /// finished before this call (fresh reads): usually two loads per domain file, and a
    /// re-read only after such a commit (see ``FreshnessChecks``).
    @inlinable
    var current: LeftRight<ResolvedValues> {
        ensureFresh()
        return snapshot
    }

    /// Catches up with other processes' commits if a domain's counter moved.
    @usableFromInline
    func ensureFresh() {
        if freshness.isStale { freshness.catchUp() }
    }

    /// The value for `key` from the first layer of the search list that holds it.
    public func value(forKey key: String) -> PropertyListValue? {
        current.read { $0.value(forKey: key) }
    }

    /// The URL for `key`: a stored path (with `~` expanded) as a file URL, or a stored
    /// URL string as a URL.
    public func url(forKey key: String) -> URL? {
        value(forKey: key)?.coercedURL(home: locations.homeDirectory)
    }

    /// Every key visible through the search list, with its winning value.
    public func dictionaryRepresentation() -> [String: Any] {
        current.read { $0.allValues }.mapValues(\.bridged)
    }

    /// Reads a typed key: the stored value if it has the key's type, else its default.
    ///
    /// Indexes the store's typed-value array by the key's slot: no hashing, no allocation.
    @inlinable
    public subscript<Value>(key: PreferenceKey<Value>) -> Value {
        get {
            // Captures the slot alone: capturing the key would retain its name on every read.
            let slot = key.slot
            while true {
                // Converted inside the read, so the stored value is borrowed, not copied.
                let (isCovered, value) = current.read { state -> (Bool, Value?) in
                    guard slot < state.pointee.slots.count else { return (false, nil) }
                    return (true, state.pointee.slots[slot].flatMap(Value.init(propertyListValue:)))
                }
                if isCovered { return value ?? key.defaultValue }
                // The key was declared after the slots were last filled.
                fillSlots(covering: slot)
            }
        }
        set {
            setValue(newValue.propertyListValue, forKey: key.name)
        }
    }

    /// Grows the typed-value array to cover `slot` (a key declared after it was filled).
    @usableFromInline
    func fillSlots(covering slot: Int) {
        let table = KeySlots.table
        snapshot.write { state in
            if slot >= state.slots.count { state.fillSlots(table) }
        }
    }

    /// True if `key`'s value is forced by the administrator (the managed layer), so the
    /// program should not offer to change it.
    public func objectIsForced(forKey key: String) -> Bool {
        current.read { state in
            state.pointee.resolution(forKey: key).map { state.pointee.layers[$0.layerIndex].kind == .managed } ?? false
        }
    }

    /// True if `key` is forced by the administrator in `domain`.
    public func objectIsForced(forKey key: String, inDomain domain: String) -> Bool {
        guard let name = try? DomainName(domain) else { return false }
        return layout.systemDomain(directory: locations.managedDirectory, stem: DomainLocations.fileStem(ofDomain: name.rawValue))
            .currentValues()[key] != nil
    }
}
