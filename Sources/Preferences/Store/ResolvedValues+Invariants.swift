extension ResolvedValues {
    /// Checks that the resolved tables agree with the layers: every key resolves to the value
    /// of the first layer that holds it, no resolution is left for a key no layer holds, the
    /// typed-key array mirrors `resolved`, and the app domain's size estimate is exact.
    ///
    /// Compiled only with `PREFERENCES_INTERNAL_CHECKS` (debug builds of this package, as
    /// swift-collections does with its internal checks); O(keys × layers), so never in release.
    func _checkInvariants() {
        #if PREFERENCES_INTERNAL_CHECKS
        var expected: [String: Int] = [:]
        for (index, layer) in layers.enumerated().reversed() {
            for key in layer.values.keys { expected[key] = index }
        }
        precondition(expected.count == resolved.count, "resolved has \(resolved.count) keys, the layers \(expected.count)")
        for (key, index) in expected {
            guard let resolution = resolved[key] else { preconditionFailure("\"\(key)\" is not resolved") }
            precondition(resolution.layerIndex == index, "\"\(key)\" resolves to layer \(resolution.layerIndex), not \(index)")
            precondition(resolution.value == layers[index].values[key], "\"\(key)\" resolves to a stale value")
        }
        for (name, slot) in slotTable where slot < slots.count {
            precondition(slots[slot] == resolved[name]?.value, "typed slot \(slot) (\"\(name)\") disagrees with resolved")
        }
        precondition(appIndex == index(of: .app), "the app layer index is stale")
        if let appIndex {
            let size = layers[appIndex].values.reduce(0) { $0 + PropertyListValue.estimatedEntrySize(key: $1.key, value: $1.value) }
            precondition(size == appDomainSize, "the app domain's size estimate is \(appDomainSize), not \(size)")
        }
        #endif
    }
}
