extension ResolvedValues {
    /// The most keys checked in full after a commit; a larger table is checked by a sample
    /// of this many keys, so the checks stay cheap enough to run on every commit of the test
    /// suite (tens of thousands, some on domains of thousands of keys).
    static let invariantCheckLimit = 32

    /// Whether ``_checkInvariants()`` checks every key of these tables rather than a sample.
    var _isCheckedWhole: Bool {
        resolved.count <= Self.invariantCheckLimit && layers.allSatisfy { $0.values.count <= Self.invariantCheckLimit }
    }

    /// Checks that the resolved tables agree with the layers: a key resolves to the value of
    /// the first layer that holds it, no resolution is left for a key no layer holds, the
    /// typed-key array mirrors `resolved`, and the app domain's size estimate is exact.
    ///
    /// Compiled only with `PREFERENCES_INTERNAL_CHECKS` (debug builds of this package, as
    /// swift-collections does with its internal checks). Tables of up to
    /// ``invariantCheckLimit`` keys are checked whole, larger ones by that many keys.
    func _checkInvariants() {
        #if PREFERENCES_INTERNAL_CHECKS
        let isWhole = _isCheckedWhole
        if isWhole {
            var expected: [String: Int] = [:]
            for (index, layer) in layers.enumerated().reversed() {
                for (key, value) in layer.values where isValid(value, forKey: key, inLayer: index) { expected[key] = index }
            }
            precondition(expected.count == resolved.count, "resolved has \(resolved.count) keys, the layers \(expected.count)")
        }
        // Counted loops, not `prefix(_:)`: a dictionary's slice walks through generic
        // witnesses that, unspecialised in a debug build, made these checks most of the cost
        // of a commit, as the thread stress test's run time showed (RELIABILITY.md).
        var checked = 0
        for (key, resolution) in resolved {
            if checked == Self.invariantCheckLimit { break }
            checked += 1
            let winner = layers.indices.first { index in
                layers[index].values[key].map { isValid($0, forKey: key, inLayer: index) } ?? false
            }
            guard let index = winner else {
                preconditionFailure("\"\(key)\" is resolved but no layer holds it")
            }
            precondition(resolution.layerIndex == index, "\"\(key)\" resolves to layer \(resolution.layerIndex), not \(index)")
            precondition(resolution.value == layers[index].values[key], "\"\(key)\" resolves to a stale value")
        }
        for (index, layer) in layers.enumerated() {
            checked = 0
            for (key, value) in layer.values {
                if checked == Self.invariantCheckLimit { break }
                checked += 1
                guard isValid(value, forKey: key, inLayer: index) else { continue }
                precondition(resolved[key] != nil, "\"\(key)\" is in a layer but not resolved")
            }
        }
        for (name, slot) in slotTable where slot < slots.count {
            precondition(slots[slot] == resolved[name]?.value, "typed slot \(slot) (\"\(name)\") disagrees with resolved")
        }
        precondition(appIndex == index(of: .app), "the app layer index is stale")
        if isWhole, let appIndex {
            let size = layers[appIndex].values.reduce(0) { $0 + PropertyListValue.estimatedEntrySize(key: $1.key, value: $1.value) }
            precondition(size == appDomainSize, "the app domain's size estimate is \(appDomainSize), not \(size)")
        }
        #endif
    }

    /// Whether a layer's value may win under the schema (see `admits`), without recording it.
    private func isValid(_ value: PropertyListValue, forKey key: String, inLayer index: Int) -> Bool {
        guard let declaration = declared?.rule(key), layers[index].kind != .declared else { return true }
        return declaration.admits(value)
    }
}
