extension PreferenceFiles {
    /// Where schemas are looked for, from this configuration's environment (see
    /// `SchemaSearchPath` in the DeclaredSettings module).
    public var schemaSearchPath: SchemaSearchPath {
        SchemaSearchPath(environment: configuration.environment, home: layout.locations.homeDirectory)
    }

    /// The schema a store of `location`'s domain would use: found on the search path with
    /// the same trust checks. Nil for files named by path, the global domain, and domains
    /// without a schema.
    ///
    /// - Throws: ``PreferencesError`` with code `invalidSchema` when a schema exists but
    ///   cannot be used (its ``PreferencesError/schemaError`` says where and why).
    public func schema(for location: PersistentDomainLocation) throws(PreferencesError) -> PreferenceSchema? {
        guard case .named(let name) = location.kind else { return nil }
        switch SchemaLookup(domain: name, place: .searchPath(schemaSearchPath)).find() {
        case .none: return nil
        case .found(let schema): return schema
        case .failed(let error): throw PreferencesError(error)
        }
    }

    /// The domains a schema on the search path declares, by name, each with the format of
    /// the first schema found for it (the one a store of the domain looks at first): native
    /// schemas (`<name>.plist`) and Settings.bundles (`<name>.bundle`). A name is listed
    /// whether or not its schema passes the trust checks; ``schema(for:)`` says why one that
    /// does not is refused.
    public func declaredDomains() -> [String: PreferenceSchema.Format] {
        var found: [String: PreferenceSchema.Format] = [:]
        for directory in schemaSearchPath.directories {
            for (suffix, format) in [(".plist", PreferenceSchema.Format.native), (".bundle", .settingsBundle)] {
                for name in DomainDirectory.stems(in: directory, suffix: suffix) where found[name] == nil && (try? DomainName(name)) != nil {
                    found[name] = format
                }
            }
        }
        return found
    }
}
