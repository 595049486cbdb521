public import Foundation
import Synchronization

extension PreferenceStore {
    // MARK: Registration

    /// Adds defaults to the registration domain, the last layer of the search list.
    ///
    /// Registration is cumulative (later calls add to and override earlier ones) and lives
    /// in memory only: it is never written to disk. Register at every launch. Values must
    /// be property-list types, as for ``set(_:forKey:)-(Any?,_)``.
    public func register(defaults registrationDictionary: [String: Any]) {
        var converted: [String: PropertyListValue] = [:]
        for (key, value) in registrationDictionary {
            converted[key] = propertyList(value, forKey: key, in: "register(defaults:)")
        }
        register(converted)
    }

    /// Registers the defaults in a property-list file shipped with the program (binary,
    /// XML or old-style text), the Settings.bundle pattern.
    ///
    /// - Throws: ``PreferencesError`` naming the file if it is missing, unreadable, not a
    ///   property list, or not a dictionary at the top.
    public func register(contentsOf url: URL) throws(PreferencesError) {
        register(try PropertyListFile.readDictionary(at: url))
    }

    func register(_ defaults: [String: PropertyListValue]) {
        // Sorted, so both copies of the snapshot apply the keys in one order.
        let delta = defaults.sorted { $0.key < $1.key }.map { (key: $0.key, value: Optional($0.value)) }
        update(origin: .thisProcess) { state in
            guard let index = state.index(of: .registration) else { return [] }
            return state.apply(delta, inLayer: index)
        }
    }

    // MARK: Suites

    /// Adds a domain to the search list after this store's own (and after suites added
    /// before), as `UserDefaults.addSuite(named:)` does. Invalid names, this store's own
    /// domain and the global domain are ignored.
    public func addSuite(named suiteName: String) {
        guard suiteName != domain, suiteName != Self.globalDomain, (try? DomainName(suiteName)) != nil else { return }
        let suites = withExtras { extras -> [String]? in
            guard !extras.suites.contains(suiteName) else { return nil }
            extras.suites.append(suiteName)
            return extras.suites
        }
        guard let suites else { return }
        rebuildLayers(suites: suites)
    }

    /// Removes a domain added with ``addSuite(named:)``.
    public func removeSuite(named suiteName: String) {
        let suites = withExtras { extras -> [String]? in
            guard let index = extras.suites.firstIndex(of: suiteName) else { return nil }
            extras.suites.remove(at: index)
            return extras.suites
        }
        guard let suites else { return }
        rebuildLayers(suites: suites)
    }

    private func rebuildLayers(suites: [String]) {
        let (prepared, versions) = makeLayers(suites: suites, registration: [:], arguments: [:])
        var removed: [PersistentDomain] = []
        // Under the extras lock, so a rebuild for suites that another addSuite/removeSuite
        // has already replaced cannot publish older layers over newer ones.
        let mustDeliver = extras.withLock { extras -> Bool in
            guard extras.suites == suites else { return false }
            return commit(origin: .thisProcess, postsNotification: true) { state in
                // Registration and arguments as they are now, not as they were when the files
                // were read: a register() in between must not be lost.
                var layers = prepared
                for index in layers.indices where layers[index].source == nil {
                    if let current = state.index(of: layers[index].kind) { layers[index].values = state.layers[current].values }
                }
                let kept = Set(layers.compactMap { $0.source.map(ObjectIdentifier.init) })
                removed = state.layers.compactMap(\.source).filter { !kept.contains(ObjectIdentifier($0)) }
                return state.setLayers(layers)
            }
        }
        if mustDeliver { deliverQueued() }
        for source in removed { source.unsubscribe(self) }
        // The files' values were taken before the new layers were published: a change made
        // in between is brought in now.
        resynchronize(prepared, since: versions)
        // A first observer registered while the layers were made found the old ones.
        if watchesFiles.load(ordering: .sequentiallyConsistent) {
            for source in prepared.compactMap(\.source) { source.refresher.startWatching() }
        }
    }

    // MARK: Persistent domains

    /// The persistent domain's file for a name: ``globalDomain`` or a valid domain name.
    private func persistentDomain(named name: String) -> PersistentDomain? {
        do throws(PreferencesError) {
            return userDomain(stem: DomainLocations.fileStem(ofDomain: try DomainName(name).rawValue))
        } catch {
            PreferencesLogger.report(error, event: .unreadable, to: logger)
            return nil
        }
    }

    /// The values stored in a domain's file (with this process's unwritten changes), or
    /// nil if the domain has none.
    public func persistentDomain(forName domainName: String) -> [String: Any]? {
        guard let source = persistentDomain(named: domainName) else { return nil }
        let values = source.currentValues()
        return values.isEmpty ? nil : values.mapValues(\.bridged)
    }

    /// Replaces a domain's whole contents; written in the background like a `set`.
    /// Values must be property-list types.
    public func setPersistentDomain(_ domain: [String: Any], forName domainName: String) {
        guard let source = persistentDomain(named: domainName) else { return }
        var converted: [String: PropertyListValue] = [:]
        for (key, value) in domain {
            converted[key] = propertyList(value, forKey: key, in: "setPersistentDomain(_:forName:)")
        }
        replacePersistentDomain(source, with: converted)
    }

    /// Removes every value of a domain; its file is deleted at the next flush.
    public func removePersistentDomain(forName domainName: String) {
        guard let source = persistentDomain(named: domainName) else { return }
        replacePersistentDomain(source, with: [:])
    }

    /// Replaces a domain's contents as a pending change, delivers what that changes for every
    /// store, and posts ``didChangeNotification`` once for the call, as corelibs-Foundation
    /// does (also when this store's search list does not include the domain).
    private func replacePersistentDomain(_ source: PersistentDomain, with values: [String: PropertyListValue]) {
        withExtras { $0.touchedDomains[source.file.path] = source }
        source.loadIfNeeded()
        source.replaceAll(with: values, notifying: self).deliver()
        source.scheduleFlush()
        if configuration.postsDidChangeNotification {
            changeNotification.post(for: self)
        }
    }

    // MARK: Volatile domains

    /// The names of the volatile (in-memory) domains: the argument and registration
    /// domains and any set with ``setVolatileDomain(_:forName:)``.
    public var volatileDomainNames: [String] {
        [Self.argumentDomain, Self.registrationDomain] + withExtras { $0.volatileDomains.keys.sorted() }
    }

    /// A volatile domain's values; empty if there is no such domain.
    public func volatileDomain(forName domainName: String) -> [String: Any] {
        let values: [String: PropertyListValue]
        switch domainName {
        case Self.argumentDomain: values = layerValues(.argument)
        case Self.registrationDomain: values = layerValues(.registration)
        default: values = withExtras { $0.volatileDomains[domainName] } ?? [:]
        }
        return values.mapValues(\.bridged)
    }

    /// Sets a volatile domain. Setting the argument or registration domain replaces that
    /// layer of the search list; other volatile domains are kept but not searched, as on
    /// Apple's systems.
    public func setVolatileDomain(_ domain: [String: Any], forName domainName: String) {
        var converted: [String: PropertyListValue] = [:]
        for (key, value) in domain {
            converted[key] = propertyList(value, forKey: key, in: "setVolatileDomain(_:forName:)")
        }
        switch domainName {
        case Self.argumentDomain: replaceLayer(.argument, with: converted)
        case Self.registrationDomain: replaceLayer(.registration, with: converted)
        default: withExtras { $0.volatileDomains[domainName] = converted }
        }
    }

    /// Removes a volatile domain (emptying the argument or registration layer).
    public func removeVolatileDomain(forName domainName: String) {
        switch domainName {
        case Self.argumentDomain: replaceLayer(.argument, with: [:])
        case Self.registrationDomain: replaceLayer(.registration, with: [:])
        default: _ = withExtras { $0.volatileDomains.removeValue(forKey: domainName) }
        }
    }

    private func layerValues(_ kind: SearchLayer) -> [String: PropertyListValue] {
        current.read { state in state.pointee.index(of: kind).map { state.pointee.layers[$0].values } ?? [:] }
    }

    private func replaceLayer(_ kind: SearchLayer, with newValues: [String: PropertyListValue]) {
        update(origin: .thisProcess) { state in
            guard let index = state.index(of: kind) else { return [] }
            return state.replaceValues(newValues, inLayer: index)
        }
    }
}
