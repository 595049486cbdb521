import Foundation
import Logging
import Synchronization

/// A preferences domain with its whole search list: `UserDefaults`, method for method,
/// for Linux.
///
/// ```swift
/// let defaults = PreferenceStore.standard        // was: UserDefaults.standard
/// defaults.register(defaults: ["Interval": 30])
/// defaults.set(true, forKey: "Enabled")
/// let interval = defaults.integer(forKey: "Interval")
/// ```
///
/// Values resolve through the search list: managed (forced) values, `-Key value` launch
/// arguments, this domain for this machine, this domain, added suites, the global domain
/// (for this machine, then any), system defaults, and registered defaults; the first that
/// holds the key wins. Reads never run an observer, never take the cross-process lock and
/// never wait for another process: a read that finds another process's commit re-reads the
/// new file first (it is replaced by rename, so it is whole; a re-read or a write's install
/// under way in this process is waited for), and the watcher thread delivers the changes. A `set` is visible to reads at once and is written in the background:
/// the file is locked, re-read, given only this process's changes, and replaced by an
/// atomic rename, so concurrent writers in other processes lose nothing. `flush()` writes
/// now and throws if it cannot; pending changes are also written at normal exit.
///
/// A store is safe to use from any thread.
public final class PreferenceStore: Sendable {
    /// The name of the global domain, whose values every domain sees.
    public static let globalDomain = DomainLocations.globalDomainName
    /// The name of the volatile domain made from `-Key value` launch arguments.
    public static let argumentDomain = "NSArgumentDomain"
    /// The name of the volatile domain that `register(defaults:)` fills.
    public static let registrationDomain = "NSRegistrationDomain"

    /// The store for this program: its domain is `$PREFERENCES_DOMAIN`, else the
    /// executable's name (characters a domain name cannot hold become `-`).
    public static let standard: PreferenceStore = {
        let configuration = Configuration()
        for candidate in [configuration.environment["PREFERENCES_DOMAIN"], executableDomainName()].compactMap({ $0 }) {
            if let store = try? PreferenceStore(domain: candidate, configuration: configuration) { return store }
        }
        return try! PreferenceStore(domain: "swift-preferences", configuration: configuration)
    }()

    /// The domain this store reads and writes.
    public let domain: String
    /// The configuration the store was made with.
    public let configuration: Configuration

    /// Which file and policy each layer has; shared with ``PreferenceFiles``.
    let layout: DomainFileLayout
    /// The directories this store's files are in.
    var locations: DomainLocations { layout.locations }
    /// The writable file of this domain, where `set` writes.
    let appDomain: PersistentDomain
    /// The resolved search list, published one commit at a time; reads never wait.
    @usableFromInline let snapshot: LeftRight<ResolvedValues>
    /// Who is told about changes.
    let observers = ObserverTable()
    /// Who is told about size-limit warnings and refusals (``sizeLimitEvents()``).
    let sizeLimitObservers = SizeLimitObservers()
    /// The ordered path from commits to observers, sequences and notifications.
    let delivery = ChangeDelivery()
    /// The commit counters reads compare, to catch up with other processes' writes.
    let freshness = FreshnessChecks()
    /// Posts ``didChangeNotification`` (or, in a ``PreferencesUserDefaults``, Foundation's).
    let changeNotification: ChangeNotificationSender
    /// Whether the store's files and schema are watched: from the start, or from its first
    /// observer (``Configuration/fileWatching``). It only ever turns true, once, so an atomic
    /// flag is enough: commits read it under the store's other locks without taking one more.
    let watchesFiles: Atomic<Bool>
    let extras: ThreadLock<Extras>

    /// What the store keeps besides resolved values.
    struct Extras {
        var suites: [String] = []
        var volatileDomains: [String: [String: PropertyListValue]] = [:]
        /// Domains this store changed through the persistent-domain API, for `flush()`.
        var touchedDomains: [String: PersistentDomain] = [:]
        /// Where the domain's schema is looked up, and what the last lookup found.
        var schemaLookup: SchemaLookup
        var schemaOutcome: SchemaLookup.Outcome
        /// The schema files and directories watched, and their registrations.
        var schemaWatchedEntries: [SchemaLookup.Entry] = []
        var schemaWatches: [DirectoryWatcher.Registration] = []
    }

    /// Opens the store for a suite (a domain shared with other programs), as
    /// `UserDefaults(suiteName:)` does.
    ///
    /// Returns nil for an invalid domain name and, as Apple's does, for the global domain's
    /// name, which is no suite: open the global domain itself with
    /// `try PreferenceStore(domain: PreferenceStore.globalDomain)` (it is in every store's
    /// search list already). A nil `suiteName` opens the same domain as ``standard``.
    public convenience init?(suiteName: String?) {
        let name = suiteName ?? PreferenceStore.standard.domain
        guard name != Self.globalDomain, (try? DomainName(name)) != nil else { return nil }
        try? self.init(domain: name, configuration: Configuration())
    }

    /// Opens the store for `domain`, locating files with `configuration`.
    ///
    /// ``globalDomain`` opens the global domain: its store reads and writes the global file,
    /// `.GlobalPreferences.plist`, the one every store's search list reads.
    ///
    /// - Throws: ``PreferencesError`` with code `invalidDomainName` before any file-system
    ///   call if the name is not 1-200 bytes of `A-Z a-z 0-9 . _ -` or starts with a dot.
    public convenience init(domain: String, configuration: Configuration = Configuration()) throws(PreferencesError) {
        try self.init(domain: domain, configuration: configuration, notificationSender: ChangeNotificationSender())
    }

    /// Opens the store for `domain`, posting its notification through `notificationSender`
    /// (a ``PreferencesUserDefaults`` passes one it redirects to itself).
    init(domain: String, configuration: Configuration, notificationSender: ChangeNotificationSender) throws(PreferencesError) {
        changeNotification = notificationSender
        let name = try DomainName(domain)
        self.domain = name.rawValue
        self.configuration = configuration
        layout = DomainFileLayout(configuration: configuration)
        // The global domain's store is its file's, `.GlobalPreferences.plist`, which every
        // search list reads; nothing writes a file named `NSGlobalDomain.plist`.
        appDomain = layout.userDomain(stem: DomainLocations.fileStem(ofDomain: name.rawValue))
        // The schema is read before the first snapshot, so no read ever sees the domain
        // without its declared defaults.
        let layout = layout
        let lookup = SchemaLookup(
            domain: name.rawValue,
            place: .searchPath(SchemaSearchPath(environment: configuration.environment, home: layout.locations.homeDirectory)))
        let outcome = lookup.find()
        let declared = outcome.schema.map { DeclaredSchema($0, domain: name.rawValue, logger: layout.logger) }
        extras = ThreadLock(Extras(schemaLookup: lookup, schemaOutcome: outcome), rank: .storeExtras)
        watchesFiles = Atomic(configuration.fileWatching == .atOpen)
        snapshot = LeftRight(ResolvedValues(layers: [], slotTable: [:]), rank: .storeSnapshot)
        let (layers, versions) = makeLayers(suites: [], declaredDefaults: declared?.defaults ?? [:])
        // Resolved once; the two copies share its storage until the first write to each.
        let initial = ResolvedValues(layers: layers, slotTable: KeySlots.table, declared: declared)
        snapshot.write { $0 = initial }
        // A change published between subscribing and the write above found no layer here.
        resynchronize(layers, since: versions)
        followSchema(outcome, of: lookup, isNew: true)
    }

    deinit {
        let sources = snapshot.read { $0.layers.compactMap(\.source) }
        for source in sources { source.unsubscribe(self) }
    }

    // MARK: Layers

    /// The logger for this store's files.
    var logger: Logger { layout.logger }

    /// The persistent domain for a user-writable file named `stem` (by host if `byHost`).
    func userDomain(stem: String, byHost: Bool = false) -> PersistentDomain? {
        byHost ? layout.byHostDomain(stem: stem) : layout.userDomain(stem: stem)
    }

    private func systemDomain(directory: String, stem: String) -> PersistentDomain {
        layout.systemDomain(directory: directory, stem: stem)
    }

    /// The search list for this domain with `suites`, each layer loaded (first use reads
    /// the file) and subscribed to, so every later change of its file reaches this store,
    /// with the version of each file's values (see ``resynchronize(_:since:)``).
    func makeLayers(suites: [String], registration: [String: PropertyListValue] = [:],
                    arguments: [String: PropertyListValue]? = nil,
                    declaredDefaults: [String: PropertyListValue] = [:]) -> ([ResolvedValues.Layer], [ObjectIdentifier: UInt64]) {
        typealias Layer = ResolvedValues.Layer
        let global = DomainLocations.globalFileStem
        // The global domain's own store reads the global files as its app, by-host and
        // system layers, once each: not a second time as the global layers below them.
        let stem = DomainLocations.fileStem(ofDomain: domain)
        let isGlobal = stem == global
        var layers: [Layer] = []
        var versions: [ObjectIdentifier: UInt64] = [:]
        // A file shared with a store or `PreferenceFiles` that does not watch it yet.
        let watches = watchesFiles.load(ordering: .sequentiallyConsistent)
        func add(_ kind: SearchLayer, _ source: PersistentDomain?) {
            guard let source else { return }
            if watches { source.refresher.startWatching() }
            let (values, version) = source.subscribe(self)
            if let counter = source.commitCounter { freshness.add(source, counter: counter) }
            versions[ObjectIdentifier(source)] = version
            layers.append(Layer(kind: kind, source: source, values: values))
        }
        add(.managed, systemDomain(directory: locations.managedDirectory, stem: stem))
        layers.append(Layer(kind: .argument, source: nil, values: arguments ?? ArgumentDomain.values(from: configuration.arguments)))
        add(.appByHost, userDomain(stem: stem, byHost: true))
        add(.app, appDomain)
        for suite in suites { add(.suite, userDomain(stem: suite)) }
        if !isGlobal {
            add(.globalByHost, userDomain(stem: global, byHost: true))
            add(.global, userDomain(stem: global))
        }
        add(.system, systemDomain(directory: locations.systemDirectory, stem: stem))
        if !isGlobal { add(.systemGlobal, systemDomain(directory: locations.systemDirectory, stem: global)) }
        layers.append(Layer(kind: .registration, source: nil, values: registration))
        layers.append(Layer(kind: .declared, source: nil, values: declaredDefaults))
        return (layers, versions)
    }

    /// Brings the layers just published up to date with any change their files published
    /// after `makeLayers` took their values (nothing to do, and no copy made, when none did).
    func resynchronize(_ layers: [ResolvedValues.Layer], since versions: [ObjectIdentifier: UInt64]) {
        var seen = Set<ObjectIdentifier>()
        for source in layers.compactMap(\.source) where seen.insert(ObjectIdentifier(source)).inserted {
            source.resynchronize(self, ifChangedSince: versions[ObjectIdentifier(source)] ?? 0)
        }
    }

    // MARK: Commits

    /// Runs `change` on the snapshot as one commit and queues its changes for delivery, in
    /// commit order. `change` runs twice (see ``LeftRight``), so it must be deterministic.
    ///
    /// - Returns: whether the caller must run ``deliverQueued()`` once it holds no lock.
    func commit(
        origin: PreferenceChange.Origin, postsNotification: Bool,
        _ change: (inout ResolvedValues) -> [ResolvedValues.Change]
    ) -> Bool {
        commit(origin: origin, postsNotification: postsNotification) { state, _ in change(&state) }
    }

    /// ``commit(origin:postsNotification:_:)`` for a change told whether it is the replay on
    /// the second copy, whose changes nobody reads.
    func commit(
        origin: PreferenceChange.Origin, postsNotification: Bool,
        _ change: (inout ResolvedValues, _ isReplay: Bool) -> [ResolvedValues.Change]
    ) -> Bool {
        var mustDeliver = false
        let wantsValues = observers.wantsCommits
        // With nobody to tell, nothing is queued: a change made before an observer registers
        // is not one it hears of anyway.
        let isHeard = isHeard(postsNotification: postsNotification, origin: origin)
        snapshot.write(
            { state, isReplay in
                let changes = change(&state, isReplay)
                // The replay makes the same change to the second copy: checking a large table
                // twice doubled the checks' cost, so its replay is checked only when whole.
                #if PREFERENCES_INTERNAL_CHECKS
                if !isReplay || state._isCheckedWhole { state._checkInvariants() }
                #endif
                return changes
            },
            afterPublish: { changes, published in
                guard isHeard, !changes.isEmpty else { return }
                mustDeliver = delivery.enqueue(
                    ChangeDelivery.Batch(
                        changes: changes, origin: origin, postsNotification: postsNotification,
                        values: wantsValues ? published.pointee.allValues : nil, commit: published.pointee.commit))
            })
        return mustDeliver
    }

    /// Whether a commit's changes reach anyone: an observer, a commit observer, or a posted
    /// `didChangeNotification`.
    ///
    /// Another process's change is not posted by a store that does not watch its files yet
    /// (``FileWatching/whenObserved``): handing it out takes the watcher thread,
    /// which such a store must not start for a read that caught up.
    func isHeard(postsNotification: Bool, origin: PreferenceChange.Origin) -> Bool {
        if observers.wantsCommits || !observers.isEmpty { return true }
        guard postsNotification && configuration.postsDidChangeNotification else { return false }
        return origin == .thisProcess || watchesFiles.load(ordering: .sequentiallyConsistent)
    }

    /// Commits `change` and delivers its changes before returning (unless another thread is
    /// delivering this store's changes, which then delivers these after its own).
    func update(origin: PreferenceChange.Origin, postsNotification: Bool = true, _ change: (inout ResolvedValues) -> [ResolvedValues.Change]) {
        if commit(origin: origin, postsNotification: postsNotification, change) { deliverQueued() }
    }

    // MARK: Problems

    /// Every layer file that could not be used, and why (corrupt, unsafe, unreadable).
    ///
    /// Reads fall back to the other layers and to a file's last good values; the file's
    /// bytes are left untouched until this process writes the domain. A corrupt file whose
    /// values are read from a kept generation is listed too, with why it is corrupt
    /// (``PreferenceSource/recovery`` says which generation), so a program can tell its user.
    public var fileProblems: [PreferencesError] {
        snapshot.read { $0.layers.compactMap(\.source) }.compactMap { $0.problem ?? $0.recovery?.reason }
    }

    // MARK: Suites and extras

    func withExtras<Result>(_ body: (inout Extras) -> Result) -> Result {
        extras.withLock { body(&$0) }
    }

    /// The executable's name, made into a valid domain name.
    private static func executableDomainName() -> String? {
        let name = URL(fileURLWithPath: ProcessInfo.processInfo.arguments.first ?? "").lastPathComponent
        var cleaned = String(name.unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9", ".", "_", "-": Character(scalar)
            default: "-"
            }
        })
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        return cleaned.isEmpty ? nil : String(cleaned.prefix(DomainName.maximumLength))
    }
}

/// The effective user id, read once: file ownership checks compare against it.
let geteuidValue: UInt32 = SystemCalls.effectiveUserID()
