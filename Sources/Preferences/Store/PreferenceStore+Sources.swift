// On the store, not on PreferenceFiles: the answer is this store's resolved search list,
// whose launch arguments, registered defaults and suites exist only in its memory.
extension PreferenceStore {
    /// Every layer of this store's search list that holds `key`, first (winning) first:
    /// why a read returns what it does (`defaults explain`).
    public func sources(forKey key: String) -> [PreferenceSource] {
        current.read { state in
            let schema = state.pointee.declared?.schema
            return state.pointee.layers.compactMap { layer in
                layer.values[key].map { value in
                    if layer.kind == .declared {
                        return PreferenceSource(layer: .declared, path: schema?.path, value: value)
                    }
                    return PreferenceSource(
                        layer: PreferenceSource.Layer(layer.kind), path: layer.source?.file.path, value: value,
                        violation: schema?.violation(setting: value, forKey: key))
                }
            }
        }
    }
}
