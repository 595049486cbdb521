/// A store's whole search list in memory and what it resolves to: one snapshot, as readers
/// see it between two commits.
///
/// Layers are kept in precedence order; `resolved` holds, for every key any layer has, the
/// winning value and its layer, so a read by name is one hash lookup. `slots` holds the same
/// for typed keys by slot number, so a typed read is an array index.
///
/// The store keeps two of these (``LeftRight``) and runs every change on both, so every
/// mutating method is deterministic: it depends only on the value and its arguments (the
/// typed-key table too is passed in, never looked up inside).
@usableFromInline
struct ResolvedValues: Sendable {
    /// One layer of the search list.
    struct Layer: Sendable {
        let kind: SearchLayer
        /// The persistent domain behind the layer, or nil for argument and registration.
        let source: PersistentDomain?
        var values: [String: PropertyListValue]
        /// `source`'s identity: comparing it costs no retain, unlike comparing `source`.
        let sourceID: ObjectIdentifier?

        init(kind: SearchLayer, source: PersistentDomain?, values: [String: PropertyListValue]) {
            self.kind = kind
            self.source = source
            self.values = values
            sourceID = source.map(ObjectIdentifier.init)
        }
    }

    /// A key's winning value and the index of the layer it came from.
    @usableFromInline
    struct Resolution: Sendable, Equatable {
        @usableFromInline var value: PropertyListValue
        var layerIndex: Int
        /// The key's `KeySlots` slot, or -1 if it had none when last resolved; kept so a
        /// set need not look the name up again.
        var slot: Int = -1
    }

    /// A key whose winning value changed: what reads returned before and return now.
    struct Change: Sendable, Equatable {
        var key: String
        var old: PropertyListValue?
        var new: PropertyListValue?
    }

    private(set) var layers: [Layer]
    /// The index of the app layer, where `set` writes: looked up once per layer change
    /// rather than on every set.
    private(set) var appIndex: Int?
    @usableFromInline private(set) var resolved: [String: Resolution] = [:]
    /// Resolved values of typed keys, indexed by `KeySlots` slot; may be shorter than the
    /// number of slots (keys declared later), which readers handle.
    @usableFromInline private(set) var slots: [PropertyListValue?] = []
    /// The typed-key table `slots` was filled from.
    private(set) var slotTable: [String: Int] = [:]
    /// About how large the app domain's file is (see `estimatedEncodedSize`), kept up to
    /// date on every change so size limits cost nothing to check.
    private(set) var appDomainSize = 0
    /// The number of commits applied: readers can tell two snapshots apart by it.
    private(set) var commit: UInt64 = 0
    /// The domain's schema, if it has one. Resolution passes over a stored value that breaks
    /// its key's declaration (in any layer but the declared defaults'), so reads never
    /// validate: the check is made once, when a value enters the snapshot.
    private(set) var declared: DeclaredSchema?

    init(layers: [Layer], slotTable: [String: Int], declared: DeclaredSchema? = nil) {
        self.layers = layers
        self.slotTable = slotTable
        self.declared = declared
        appIndex = index(of: .app)
        measureAppDomain()
        resolveAll()
    }

    /// The index of the first layer of `kind` (and, for suites, `source`), if present.
    func index(of kind: SearchLayer, source: PersistentDomain? = nil) -> Int? {
        layers.firstIndex { $0.kind == kind && (source == nil || $0.source === source) }
    }


    /// Replaces the layers wholesale (a suite added or removed) and re-resolves.
    /// - Returns: every key whose winning value changed.
    mutating func setLayers(_ layers: [Layer]) -> [Change] {
        let before = resolved
        self.layers = layers
        appIndex = index(of: .app)
        measureAppDomain()
        resolveAll()
        return changes(since: before)
    }

    /// Puts a schema in place (or removes it, for nil): the declared-defaults layer takes its
    /// defaults and every key is resolved again under its rules.
    /// - Returns: every key whose winning value changed.
    mutating func setSchema(_ declared: DeclaredSchema?) -> [Change] {
        let before = resolved
        self.declared = declared
        if let index = index(of: .declared) {
            layers[index].values = declared?.defaults ?? [:]
        }
        resolveAll()
        return changes(since: before)
    }

    /// Whether the value `layer` holds for `key` may win: always without a declaration, and
    /// always for the declared defaults (the schema checked them when it was read).
    @inline(__always)
    private func admits(_ value: PropertyListValue, forKey key: String, declaration: KeyRule?, inLayer index: Int) -> Bool {
        guard let declaration, layers[index].kind != .declared, !declaration.admits(value) else { return true }
        declared?.noteInvalid(value, forKey: key, path: layers[index].source?.file.path)
        return false
    }

    /// The keys whose winning value differs from `before`, sorted by key.
    private func changes(since before: [String: Resolution]) -> [Change] {
        var changes: [Change] = []
        for (key, old) in before where resolved[key]?.value != old.value {
            changes.append(Change(key: key, old: old.value, new: resolved[key]?.value))
        }
        for (key, new) in resolved where before[key] == nil {
            changes.append(Change(key: key, old: nil, new: new.value))
        }
        return changes.sorted { $0.key < $1.key }
    }

    /// Sets or removes keys in one layer and re-resolves just those keys, in the order given.
    /// - Returns: the changes of the keys' winning values (none for a key whose value stays
    ///   the same or is hidden by a higher layer).
    mutating func apply(_ delta: [(key: String, value: PropertyListValue?)], inLayer index: Int) -> [Change] {
        var changes: [Change] = []
        apply(delta, inLayer: index, into: &changes)
        return changes
    }

    /// ``apply(_:inLayer:)`` for every layer backed by `source`, appending the changes to
    /// `changes` unless `collecting` is false (the replay on a second copy, whose changes
    /// nobody reads).
    mutating func apply(
        _ delta: [(key: String, value: PropertyListValue?)], toLayersOf source: PersistentDomain,
        into changes: inout [Change], collecting: Bool = true
    ) {
        let id = ObjectIdentifier(source)
        for index in layers.indices where layers[index].sourceID == id {
            apply(delta, inLayer: index, into: &changes, collecting: collecting)
        }
    }

    private mutating func apply(
        _ delta: [(key: String, value: PropertyListValue?)], inLayer index: Int, into changes: inout [Change],
        collecting: Bool = true
    ) {
        for (key, value) in delta {
            if let change = set(value, forKey: key, inLayer: index), collecting { changes.append(change) }
        }
    }

    /// Sets or removes one key in one layer and re-resolves just that key.
    /// - Returns: the change of the key's winning value, or nil if reads see no difference.
    @discardableResult
    mutating func set(_ value: PropertyListValue?, forKey key: String, inLayer index: Int) -> Change? {
        // One hash of the key for the common case, an existing key changing value.
        let position = layers[index].values.index(forKey: key)
        let previous = position.map { layers[index].values.values[$0] }
        guard previous != value else { return nil }
        if layers[index].kind == .app {
            appDomainSize += Self.sizeChange(forKey: key, from: previous, to: value)
        }
        switch (position, value) {
        case (let position?, let value?): layers[index].values.values[position] = value
        case (let position?, nil): layers[index].values.remove(at: position)
        case (nil, let value?): layers[index].values[key] = value
        case (nil, nil): break
        }
        commit &+= 1
        let (old, new) = resolve(key, knowing: (index, value))
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
        guard let index = appIndex else {
            appDomainSize = 0
            return
        }
        appDomainSize = layers[index].values.reduce(0) { $0 + PropertyListValue.estimatedEntrySize(key: $1.key, value: $1.value) }
    }

    /// What setting `key` to `value` in layer `index` would change, without changing anything.
    func previewSet(_ value: PropertyListValue?, forKey key: String, inLayer index: Int) -> Change? {
        let winner = self.value(forKey: key, ifLayer: index, held: value)
        let old = resolved[key]?.value
        return old == winner ? nil : Change(key: key, old: old, new: winner)
    }

    /// The value `key` would resolve to if layer `index` held `value` for it (nil: not there).
    func value(forKey key: String, ifLayer index: Int, held value: PropertyListValue?) -> PropertyListValue? {
        let declaration = declared?.rule(key)
        for position in layers.indices {
            let candidate = position == index ? value : layers[position].values[key]
            if let candidate, admits(candidate, forKey: key, declaration: declaration, inLayer: position) {
                return candidate
            }
        }
        return nil
    }

    /// Replaces every value of one layer, re-resolving only the keys that differ.
    /// - Returns: every key whose winning value changed, sorted by key.
    mutating func replaceValues(_ values: [String: PropertyListValue], inLayer index: Int) -> [Change] {
        let previous = layers[index].values
        var delta: [(key: String, value: PropertyListValue?)] = []
        for (key, value) in values where previous[key] != value { delta.append((key, value)) }
        for key in previous.keys where values[key] == nil { delta.append((key, nil)) }
        delta.sort { $0.key < $1.key }
        return apply(delta, inLayer: index)
    }

    /// Re-resolves one key from the layers, first hit wins; `known` is the layer just set
    /// and the key's value there, which needs no lookup.
    private mutating func resolve(
        _ key: String, knowing known: (layer: Int, value: PropertyListValue?)
    ) -> (old: Resolution?, new: Resolution?) {
        var winner: (value: PropertyListValue, layerIndex: Int)? = nil
        // Looked up once per resolution, and only when the domain has a schema.
        let declaration = declared?.rule(key)
        // By index: iterating the layers would copy each one (and retain its dictionary).
        for index in layers.indices {
            if index == known.layer {
                if let value = known.value, admits(value, forKey: key, declaration: declaration, inLayer: index) {
                    winner = (value, index)
                    break
                }
                continue
            }
            guard !layers[index].values.isEmpty, let value = layers[index].values[key],
                admits(value, forKey: key, declaration: declaration, inLayer: index)
            else { continue }
            winner = (value, index)
            break
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
                new = Resolution(value: winner.value, layerIndex: winner.layerIndex, slot: slotTable[key] ?? -1)
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
    private mutating func resolveAll() {
        var merged: [String: Resolution] = [:]
        // Lowest precedence first, so higher layers overwrite.
        for (index, layer) in layers.enumerated().reversed() {
            for (key, value) in layer.values {
                if declared != nil, !admits(value, forKey: key, declaration: declared?.rule(key), inLayer: index) { continue }
                merged[key] = Resolution(value: value, layerIndex: index)
            }
        }
        resolved = merged
        commit &+= 1
        fillSlots(slotTable)
    }

    /// Refills `slots` for every typed key in `table` (the process's `KeySlots` table, taken
    /// once by the caller: keys declared after the store was made).
    mutating func fillSlots(_ table: [String: Int]) {
        slotTable = table
        var filled = [PropertyListValue?](repeating: nil, count: table.count)
        for (name, slot) in table {
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

/// The reads of a store's values through `LeftRight.read`, which hands out a pointer.
///
/// Every retain on a read is an atomic write to a cache line all readers share. A method
/// on `pointee` copies the whole structure (four retains), so these project the field
/// they need. `pointee.resolved[key]` still retains the dictionary's storage once (the
/// compiler cannot rule out that the hashing it calls frees it), which is what bounds two
/// threads reading by name. An in-out or `mutating` access borrows instead, but the thread
/// sanitizer counts either as a write, so concurrent readers would be reported as a race.
/// Typed keys read `pointee.slots[slot]`, which borrows: they scale.
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
