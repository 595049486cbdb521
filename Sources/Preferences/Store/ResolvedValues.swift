/// A store's whole search list in memory and what it resolves to: the structure every
/// read looks into, kept behind the store's lock.
///
/// Layers are kept in precedence order; `resolved` holds, for every key any layer has,
/// the winning value and its layer, so a read by name is one hash lookup. `slots` holds
/// the same for typed keys by slot number, so a typed read is an array index.
@usableFromInline
struct ResolvedValues: Sendable {
    /// One layer of the search list.
    struct Layer: Sendable {
        let kind: SearchLayer
        /// The persistent domain behind the layer, or nil for argument and registration.
        let source: PersistentDomain?
        var values: [String: PropertyListValue]
    }

    /// A key's winning value and the index of the layer it came from.
    @usableFromInline
    struct Resolution: Sendable, Equatable {
        @usableFromInline var value: PropertyListValue
        var layerIndex: Int
        /// The key's `KeySlots` slot, or -1 if it had none when last looked up; kept so a
        /// set need not look the name up again (`fillSlots` refreshes it for keys declared
        /// later).
        var slot: Int = -1
    }

    private(set) var layers: [Layer]
    /// The index of the app layer, where `set` writes: looked up once per layer change
    /// rather than on every set.
    private(set) var appIndex: Int?
    @usableFromInline private(set) var resolved: [String: Resolution] = [:]
    /// Resolved values of typed keys, indexed by `KeySlots` slot; may be shorter than the
    /// number of slots (keys declared later), which readers handle.
    @usableFromInline private(set) var slots: [PropertyListValue?] = []
    /// Incremented by every change, so work done outside the lock can tell it is stale.
    private(set) var generation: UInt64 = 0
    /// About how large the app domain's file is (see `estimatedEncodedSize`), kept up to
    /// date on every change so size limits cost nothing to check.
    private(set) var appDomainSize = 0
    /// Changes computed under the lock and not yet handed to observers, oldest first.
    private var notifications: [(changes: [Change], origin: PreferenceChange.Origin)] = []
    /// True while some thread is handing `notifications` out.
    private var isNotifying = false

    /// Queues changes for observers in the critical section that made them; true if the
    /// caller must hand the queue out (nobody else is), so observers see every key's
    /// changes in the order they were made.
    mutating func queueNotification(_ changes: [Change], origin: PreferenceChange.Origin) -> Bool {
        guard !changes.isEmpty else { return false }
        notifications.append((changes, origin))
        if isNotifying { return false }
        isNotifying = true
        return true
    }

    /// The oldest queued notification, or nil (and the queue released) when none is left.
    mutating func nextNotification() -> (changes: [Change], origin: PreferenceChange.Origin)? {
        guard !notifications.isEmpty else {
            isNotifying = false
            return nil
        }
        return notifications.removeFirst()
    }

    init(layers: [Layer]) {
        self.layers = layers
        appIndex = index(of: .app)
        resolveAll()
    }

    /// The index of the first layer of `kind` (and, for suites, `source`), if present.
    func index(of kind: SearchLayer, source: PersistentDomain? = nil) -> Int? {
        layers.firstIndex { $0.kind == kind && (source == nil || $0.source === source) }
    }

    /// A key whose winning value changed: what reads returned before and return now.
    struct Change: Sendable, Equatable {
        var key: String
        var old: PropertyListValue?
        var new: PropertyListValue?
    }

    /// Replaces the layers wholesale (a suite added or removed) and re-resolves.
    /// - Returns: every key whose winning value changed.
    @discardableResult
    mutating func setLayers(_ layers: [Layer]) -> [Change] {
        let before = resolved
        self.layers = layers
        appIndex = index(of: .app)
        measureAppDomain()
        resolveAll()
        var changes: [Change] = []
        for (key, old) in before where resolved[key]?.value != old.value {
            changes.append(Change(key: key, old: old.value, new: resolved[key]?.value))
        }
        for (key, new) in resolved where before[key] == nil {
            changes.append(Change(key: key, old: nil, new: new.value))
        }
        return changes
    }

    /// Sets or removes one key in one layer and re-resolves just that key.
    /// - Returns: the change of the key's winning value, or nil if reads see no difference
    ///   (the same value, or a higher layer hides it).
    @discardableResult
    mutating func set(_ value: PropertyListValue?, forKey key: String, inLayer index: Int) -> Change? {
        let previous = layers[index].values[key]
        let size = layers[index].kind == .app
            ? appDomainSize + Self.sizeChange(forKey: key, from: previous, to: value) : appDomainSize
        return set(value, forKey: key, inLayer: index, appDomainSize: size)
    }

    /// `set(_:forKey:inLayer:)` for a caller that has already compared the key's previous
    /// value and computed the app domain's size after the change (`set` does both on
    /// every call, so it looks the key up once).
    mutating func set(
        _ value: PropertyListValue?, forKey key: String, inLayer index: Int, appDomainSize size: Int
    ) -> Change? {
        appDomainSize = size
        layers[index].values[key] = value
        let (old, new) = resolve(key)
        return old?.value == new?.value ? nil : Change(key: key, old: old?.value, new: new?.value)
    }

    /// How much the app domain's estimated size changes when `key` goes from `old` to
    /// `new` (nil: absent).
    static func sizeChange(forKey key: String, from old: PropertyListValue?, to new: PropertyListValue?) -> Int {
        switch (old, new) {
        case (let old?, let new?): return new.estimatedEncodedSize - old.estimatedEncodedSize
        default:
            return PropertyListValue.estimatedEntrySize(key: key, value: new)
                - PropertyListValue.estimatedEntrySize(key: key, value: old)
        }
    }

    private mutating func measureAppDomain() {
        guard let index = appIndex else { return }
        appDomainSize = layers[index].values.reduce(0) { $0 + PropertyListValue.estimatedEntrySize(key: $1.key, value: $1.value) }
    }

    /// What `set(_:forKey:inLayer:)` would change, without changing anything.
    func previewSet(_ value: PropertyListValue?, forKey key: String, inLayer index: Int) -> Change? {
        var winner: PropertyListValue? = nil
        for position in layers.indices {
            let candidate = position == index ? value : layers[position].values[key]
            if let candidate {
                winner = candidate
                break
            }
        }
        let old = resolved[key]?.value
        return old == winner ? nil : Change(key: key, old: old, new: winner)
    }

    /// Replaces every value of one layer, re-resolving only the keys that differ.
    /// - Returns: every key whose winning value changed.
    @discardableResult
    mutating func replaceValues(_ values: [String: PropertyListValue], inLayer index: Int) -> [Change] {
        let previous = layers[index].values
        layers[index].values = values
        if layers[index].kind == .app { measureAppDomain() }
        generation &+= 1
        var changes: [Change] = []
        func reconsider(_ key: String) {
            let (old, new) = resolve(key)
            if old?.value != new?.value { changes.append(Change(key: key, old: old?.value, new: new?.value)) }
        }
        for (key, value) in values where previous[key] != value { reconsider(key) }
        for key in previous.keys where values[key] == nil { reconsider(key) }
        return changes
    }

    /// Re-resolves one key from the layers, first hit wins.
    @discardableResult
    mutating func resolve(_ key: String) -> (old: Resolution?, new: Resolution?) {
        generation &+= 1
        var winner: (value: PropertyListValue, layerIndex: Int)? = nil
        // By index: iterating the layers would copy each one (and retain its dictionary).
        for index in layers.indices where !layers[index].values.isEmpty {
            if let value = layers[index].values[key] {
                winner = (value, index)
                break
            }
        }
        // One hash of the key for the common case, an existing key changing value.
        let old: Resolution?
        var new: Resolution? = nil
        if let position = resolved.index(forKey: key) {
            old = resolved.values[position]
            if let winner {
                resolved.values[position].value = winner.value
                resolved.values[position].layerIndex = winner.layerIndex
                new = resolved.values[position]
            } else {
                resolved.remove(at: position)
            }
        } else {
            old = nil
            if let winner {
                new = Resolution(value: winner.value, layerIndex: winner.layerIndex, slot: KeySlots.existingSlot(for: key) ?? -1)
                resolved[key] = new
            }
        }
        let slot = (old ?? new)?.slot ?? -1
        if slot >= 0, slot < slots.count {
            slots[slot] = new?.value
        }
        return (old, new)
    }

    /// Rebuilds `resolved` and `slots` from every layer.
    mutating func resolveAll() {
        var merged: [String: Resolution] = [:]
        // Lowest precedence first, so higher layers overwrite.
        for (index, layer) in layers.enumerated().reversed() {
            for (key, value) in layer.values {
                merged[key] = Resolution(value: value, layerIndex: index)
            }
        }
        resolved = merged
        fillSlots(count: slots.count)
        generation &+= 1
    }

    /// Grows `slots` to cover every declared typed key (keys declared after the store was
    /// made), filling them from `resolved`.
    mutating func fillSlots(count: Int? = nil) {
        let names = KeySlots.names
        var filled = [PropertyListValue?](repeating: nil, count: max(count ?? names.count, names.count))
        for (slot, name) in names.enumerated() {
            guard let position = resolved.index(forKey: name) else { continue }
            resolved.values[position].slot = slot
            filled[slot] = resolved.values[position].value
        }
        slots = filled
    }

    /// The winning value and its layer for `key`.
    func resolution(forKey key: String) -> Resolution? {
        resolved[key]
    }

    /// Every key and its winning value.
    var allValues: [String: PropertyListValue] {
        resolved.mapValues(\.value)
    }
}

/// The reads of a store's values through `ReadMostly.read`, which hands out a pointer.
///
/// Every retain on a read is an atomic write to a cache line all readers share. A method
/// on `pointee` copies the whole structure (four retains), so these project the field
/// they need. `pointee.resolved[key]` still retains the dictionary's storage once (the
/// compiler cannot rule out that the hashing it calls frees it), which is what bounds two
/// threads reading by name (~150 ns a read against ~48 alone). An in-out or `mutating`
/// access borrows instead (46 ns with two threads, measured), but the thread sanitizer
/// counts either as a write, so concurrent readers would be reported as a race. Typed keys
/// read `pointee.slots[slot]`, which borrows: they scale.
extension UnsafePointer where Pointee == ResolvedValues {
    /// The winning value for `key`.
    @usableFromInline @inline(__always)
    func value(forKey key: String) -> PropertyListValue? {
        pointee.resolved[key]?.value
    }

    /// The layers, in precedence order.
    var layers: [ResolvedValues.Layer] { pointee.layers }

    /// Every key and its winning value.
    var allValues: [String: PropertyListValue] { pointee.allValues }
}
