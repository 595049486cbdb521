import DefaultsCommand
import Foundation
import JournaldLogging
import Logging
package import Preferences
package import PropertyList
import Synchronization

/// The settings pages' one way to the user's preferences: the domains there are, what each
/// declares, where each key's value comes from, writes, history and changes.
///
/// Page code asks this type and talks to the library through nothing else. It keeps one
/// store per domain, opened on first use, so that every page of a domain reads the same
/// snapshot and the store's observation feeds the live pages; the domain files (history,
/// undo, restore, the keys a file holds) are read and written through one `PreferenceFiles`.
/// Files are found as the library finds them (`PREFERENCES_HOME`, `PREFERENCES_SYSTEM_DIR`,
/// `PREFERENCES_SCHEMA_PATH` and the XDG variables of the environment given), so it serves
/// the domains of the user it runs as and no one else's. It logs as `preferences-settings`.
///
/// The global domain's page is any domain's: its store reads and writes the global files
/// (`.GlobalPreferences.plist`) as its own layers.
package final class SettingsData: Sendable {
    /// How `defaults` reads a domain word and words a library error: the pages do the same.
    private let context: DefaultsContext
    /// What stores and files are made with: the environment given, no launch arguments,
    /// the page's logger.
    private let configuration: PreferenceStore.Configuration
    /// The domain files, by location.
    private let files: PreferenceFiles
    /// One store per domain, by name.
    private let stores = Mutex<[String: PreferenceStore]>([:])
    /// The languages words are looked up in, best first.
    private let languages: [String]

    /// Writes go to journald when it is reachable, warnings a user must see to standard
    /// error too, as the `defaults` tool's do; under the server's own name.
    private static let logger: Logger = {
        let journal = JournaldLogHandler.isJournalReachable()
        return Logger(label: "preferences-settings") { ToolLogHandler(label: $0, journal: journal) }
    }()

    /// The data of the user whose environment this is.
    package init(environment: [String: String]) {
        context = DefaultsContext(currentHost: false, environment: environment)
        configuration = PreferenceStore.Configuration(environment: environment, arguments: [], logger: Self.logger)
        files = PreferenceFiles(configuration: configuration)
        languages = StringsTable.preferredLanguages(environment: environment)
    }

    // MARK: Domains

    /// The domain a page's address names, checked as `defaults` checks a domain word. Paths
    /// are refused: the pages serve named domains only.
    package func location(_ word: String) throws(PageError) -> PersistentDomainLocation {
        guard !word.hasPrefix("/"), !word.hasPrefix("~"), !word.hasPrefix(".") else {
            throw PageError(status: 404, "invalid domain \"\(word)\": the settings pages serve domains by name, not files")
        }
        do throws(DefaultsFailure) {
            return try context.location(word)
        } catch {
            throw PageError(status: 404, error.message)
        }
    }

    /// What a domain is called on its pages: the global domain by what it is, any other by
    /// its name.
    package func title(of location: PersistentDomainLocation) -> String {
        location.description == PreferenceStore.globalDomain ? "Global domain" : location.description
    }

    /// The user's domains: the global domain first, then, by name, those with a file (or a
    /// file for this machine) and those a schema on the search path declares.
    package func domains() -> [DomainListing] {
        var declaredBy: [String: String] = [:]
        for name in files.persistentDomainNames() + files.persistentDomainNames(currentHost: true) { declaredBy[name] = "" }
        for (name, kind) in declaredDomains() where declaredBy[name]?.isEmpty ?? true { declaredBy[name] = kind }
        // The global domain is listed first, once (a schema may declare it too).
        declaredBy[PreferenceStore.globalDomain] = nil
        let global = DomainListing(name: PreferenceStore.globalDomain, title: "Global domain", declaredBy: nil)
        return [global] + declaredBy.keys.sorted().map { name in
            DomainListing(name: name, title: name, declaredBy: declaredBy[name].flatMap { $0.isEmpty ? nil : $0 })
        }
    }

    /// The domains a schema on the search path declares, with what kind of schema.
    private func declaredDomains() -> [(name: String, kind: String)] {
        files.declaredDomains().map { ($0.key, $0.value == .settingsBundle ? "Settings.bundle" : "schema") }
    }

    // MARK: Declarations and values

    /// What a domain declares: its schema (the store's own, so the page and the store judge
    /// writes alike) and, for a Settings.bundle, its panes in the user's language.
    ///
    /// A bundle's files are read on each call: a page or reply asks once and passes it on.
    package func declaration(of location: PersistentDomainLocation) throws(PageError) -> Declaration {
        let store = try store(for: location)
        guard let schema = store.schema else { return Declaration(schema: nil, layout: nil) }
        guard schema.format == .settingsBundle, let bundle = PreferenceSchema.settingsBundleDirectory(of: schema.path) else {
            return Declaration(schema: schema, layout: nil)
        }
        return Declaration(schema: schema, layout: try? SettingsBundleLayout(bundle: bundle, languages: languages))
    }

    /// Why the domain's schema cannot be used, if it cannot.
    package func schemaProblem(of location: PersistentDomainLocation) throws(PageError) -> SchemaError? {
        try store(for: location).schemaProblem
    }

    /// The domain's files that cannot be used as they are (corrupt, unsafe), and why.
    package func fileProblems(of location: PersistentDomainLocation) throws(PageError) -> [PreferencesError] {
        try store(for: location).fileProblems
    }

    /// The layers holding `key` in the domain, first wins, as its page counts them.
    package func sources(forKey key: String, at location: PersistentDomainLocation) throws(PageError) -> [PreferenceSource] {
        try store(for: location).sources(forKey: key)
    }

    /// The layer of the domain's own file: the one changes write and a reset removes from.
    package func ownLayer(of location: PersistentDomainLocation) -> PreferenceSource.Layer {
        // The global domain's own file is the global layer (PreferenceStore.sources(forKey:)).
        location.description == PreferenceStore.globalDomain ? .global : .app
    }

    /// The keys the domain's own file and its file for this machine hold now, read from disk.
    package func storedKeys(at location: PersistentDomainLocation) -> Set<String> {
        var keys = Set((try? files.persistentDomainValues(at: location))??.keys.map { $0 } ?? [])
        if case let byHost? = try? PersistentDomainLocation.named(location.description, currentHost: true) {
            keys.formUnion((try? files.persistentDomainValues(at: byHost))??.keys.map { $0 } ?? [])
        }
        return keys
    }

    // MARK: Writes and history

    /// Writes `changes` (nil removes a key) as one commit, through the store's rules.
    ///
    /// - Throws: ``PreferencesError`` (a `schemaViolation` names the key), or ``PageError``
    ///   when the domain's store cannot be opened; nothing was written.
    package func commit(_ changes: [(key: String, value: PropertyListValue?)], at location: PersistentDomainLocation) throws {
        try store(for: location).transaction { transaction in
            for (key, value) in changes { try transaction.trySet(value, forKey: key) }
        }
    }

    /// Undoes the domain's last change (`defaults undo`), as a new commit.
    package func undo(at location: PersistentDomainLocation) throws(PreferencesError) {
        _ = try files.undo(at: location)
    }

    /// Brings back kept generation `number` (`defaults restore`), as a new commit.
    package func restore(generation number: Int, at location: PersistentDomainLocation) throws(PreferencesError) {
        _ = try files.restore(generation: number, at: location)
    }

    /// The domain's versions, newest first: the current file, then its kept generations.
    package func generations(at location: PersistentDomainLocation) throws(PreferencesError) -> [DomainGeneration] {
        try files.generations(at: location)
    }

    /// A library error about the domain as one line, as `defaults` words it.
    package func message(for error: PreferencesError, at location: PersistentDomainLocation) -> String {
        DefaultsContext.failure(error, domain: location.description).message
    }

    // MARK: Changes

    /// Calls `handler` with the key of every change of the domain, made by this process or
    /// another, on the thread the library documents for each; the page's only observation.
    package func observeChanges(
        at location: PersistentDomainLocation, handler: @escaping @Sendable (String) -> Void
    ) throws(PageError) -> PreferenceObservation {
        try store(for: location).observe(options: [.new]) { change in handler(change.key) }
    }

    // MARK: Stores

    /// The store of a domain, opened once and kept.
    private func store(for location: PersistentDomainLocation) throws(PageError) -> PreferenceStore {
        let name = location.description
        if let store = stores.withLock({ $0[name] }) { return store }
        let store: PreferenceStore
        do throws(PreferencesError) {
            store = try PreferenceStore(domain: name, configuration: configuration)
        } catch {
            throw PageError(status: 500, message(for: error, at: location))
        }
        // Two requests may open it at once: the first kept wins, so one store feeds the pages.
        return stores.withLock { stores in
            if let kept = stores[name] { return kept }
            stores[name] = store
            return store
        }
    }
}
