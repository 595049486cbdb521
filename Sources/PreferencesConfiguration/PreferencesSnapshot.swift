// With the package's Configuration trait only: it brings in swift-configuration.
#if Configuration
import Configuration
import Preferences

/// One immutable version of a domain's resolved values, flattened into configuration keys.
///
/// Built from a single `propertyListRepresentation()` of the store, which is taken under the
/// store's lock, so a snapshot holds exactly one version of every layer: if another process
/// replaces two keys in one write, a snapshot has both old values or both new ones.
struct PreferencesSnapshot: ConfigSnapshot {
    let providerName: String
    /// The domain, for error messages.
    let domain: String
    /// The store's resolved values this snapshot was built from, by preference key; lets a
    /// change notification be recognised as already included without a rebuild.
    let source: [String: PropertyListValue]
    /// Leaf values by their dotted key path (`http.timeout`). Dictionaries are not leaves:
    /// their entries are, so they never appear here themselves.
    let leaves: [String: PropertyListValue]

    /// Flattens `values`: a dictionary's entries become keys below the dictionary's key.
    ///
    /// Keys are joined with dots, as swift-configuration's own file providers do, so the
    /// nested `http → timeout` and a top-level key literally named `http.timeout` name the
    /// same configuration key. When both exist the more deeply nested one wins, and between
    /// equally deep ones the lexicographically smaller key path, so the outcome never
    /// depends on dictionary order.
    init(providerName: String, domain: String, values: [String: PropertyListValue]) {
        self.providerName = providerName
        self.domain = domain
        source = values
        var found: [String: (depth: Int, path: [String], value: PropertyListValue)] = [:]
        func visit(_ dictionary: [String: PropertyListValue], path: [String]) {
            for (name, value) in dictionary {
                let childPath = path + [name]
                if case .dictionary(let entries) = value {
                    visit(entries, path: childPath)
                    continue
                }
                let key = childPath.joined(separator: ".")
                if let existing = found[key] {
                    let wins = childPath.count > existing.depth
                        || (childPath.count == existing.depth && childPath.lexicographicallyPrecedes(existing.path))
                    guard wins else { continue }
                }
                found[key] = (childPath.count, childPath, value)
            }
        }
        visit(values, path: [])
        leaves = found.mapValues(\.value)
    }

    /// The configuration key as the lookup string: components joined by dots. Context is
    /// ignored; a preferences domain has one value per key.
    static func encodedKey(_ key: AbsoluteConfigKey) -> String {
        key.components.joined(separator: ".")
    }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try lookup(Self.encodedKey(key), type: type)
    }

    /// The value at an encoded key as `type`: nil when absent, thrown when not convertible
    /// (swift-configuration reports a mismatch instead of treating it as missing, so a
    /// typo'd value does not silently fall through to a default).
    func lookup(_ encodedKey: String, type: ConfigType) throws(PreferencesConfigurationError) -> LookupResult {
        guard let stored = leaves[encodedKey] else { return LookupResult(encodedKey: encodedKey, value: nil) }
        guard let content = stored.configContent(as: type) else {
            throw PreferencesConfigurationError(
                .valueNotConvertible, domain: domain, key: encodedKey, requestedType: type, storedType: stored.typeName)
        }
        return LookupResult(encodedKey: encodedKey, value: ConfigValue(content, isSecret: false))
    }

    /// ``lookup(_:type:)`` as the `Result` that value watchers deliver.
    func lookupResult(_ encodedKey: String, type: ConfigType) -> Result<LookupResult, any Error> {
        do {
            return .success(try lookup(encodedKey, type: type))
        } catch {
            return .failure(error)
        }
    }
}
#endif  // Configuration
