// On the store, not on PreferenceFiles: the answer is this store's resolved search list,
// whose launch arguments, registered defaults and suites exist only in its memory.
extension PreferenceStore {
    /// Every layer of this store's search list that holds `key`, first (winning) first:
    /// why a read returns what it does (`defaults explain`).
    public func sources(forKey key: String) -> [PreferenceSource] {
        // The global domain's store reads the global files as its own layers: they are named
        // for what they are, the global layers, as in every other store's list.
        let isGlobalDomain = domain == Self.globalDomain
        let found = current.read { state in
            let schema = state.pointee.declared?.schema
            return state.pointee.layers.compactMap { layer -> (PreferenceSource, PersistentDomain?)? in
                layer.values[key].map { value in
                    if layer.kind == .declared {
                        return (PreferenceSource(layer: .declared, path: schema?.path, value: value), nil)
                    }
                    return (
                        PreferenceSource(
                            layer: isGlobalDomain ? .globalLayer(of: layer.kind) : PreferenceSource.Layer(layer.kind),
                            path: layer.source?.file.path, value: value,
                            violation: schema?.violation(setting: value, forKey: key)),
                        layer.source
                    )
                }
            }
        }
        // Each file's recovery is asked for outside the snapshot read: it takes the file's
        // state lock, which a reader of the snapshot must never wait for. The forced layer's
        // origin is read from its file, where its writer recorded it.
        return found.map { source, domain in
            let recovery = domain?.recovery
            let origin = source.layer == .forced ? source.path.flatMap(CommitOrigin.recorded(atPath:))?.origin(ofKey: key) : nil
            guard recovery != nil || origin != nil else { return source }
            return PreferenceSource(
                layer: source.layer, path: source.path, value: source.value, violation: source.violation, recovery: recovery,
                origin: origin)
        }
    }
}
