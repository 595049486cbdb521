// With the package's Configuration trait only: it brings in swift-configuration.
#if Configuration
public import Configuration
import Foundation
public import Preferences

/// A swift-configuration provider that serves a preferences domain, search list applied,
/// and pushes changes from any process to watchers as they happen.
///
/// ```swift
/// let provider = try PreferencesProvider(domain: "com.example.service")
/// let config = ConfigReader(provider: provider)
/// let timeout = config.int(forKey: "http.timeout", default: 30)
/// try await config.watchInt(forKey: "http.timeout", default: 30) { updates in
///     for await timeout in updates { apply(timeout) }
/// }
/// ```
///
/// Values are what `PreferenceStore` resolves: managed values, `-Key value`
/// launch arguments, the domain (by host, then any host), the global domain, system
/// defaults. Watchers are driven by the store's inotify watcher, so a `defaults write` or
/// another program's `set` reaches them within milliseconds; nothing polls.
///
/// ## Mapping
/// - Keys: a dictionary's entries become keys below the dictionary's key, joined by dots,
///   so the configuration key `http.timeout` (components `http`, `timeout`) reads
///   `{ http = { timeout = 30; }; }`. A top-level key literally named `http.timeout` is the
///   same configuration key; if both exist, the more deeply nested value wins. Dictionaries
///   themselves are not values. Key context is ignored.
/// - `string`: strings; dates as ISO 8601 in UTC (`2026-11-22T11:30:00Z`, with fractional
///   seconds only when the date has them). Numbers are not strings.
/// - `int`: integers within `Int`'s range (others are not convertible), booleans as 1/0,
///   reals without a fraction, strings holding a decimal integer.
/// - `double`: reals (a 32-bit `-float` through its shortest decimal form), integers,
///   booleans as 1/0, numeric strings.
/// - `bool`: booleans, numbers (non-zero is true), strings `true`/`false`, `yes`/`no`,
///   `1`/`0` in any case.
/// - `bytes`: data. The array types: arrays whose every element converts as above
///   (`byteChunkArray`: arrays of data); an empty array is an empty array of any type.
///
/// A missing key is `nil`; a value that does not convert throws
/// ``PreferencesConfigurationError`` (watchers receive it as a failed update), as
/// swift-configuration's own providers do, so a mistyped setting is reported rather than
/// silently replaced by a default. No value is marked secret.
///
/// ## Consistency
/// Every snapshot is built from one read of the store taken under its lock, so it never
/// mixes two versions of the domain. ``value(forKey:type:)`` and
/// ``fetchValue(forKey:type:)`` read the current snapshot. When a domain file becomes
/// corrupt, the store keeps its last good values (see ``fileProblems``) and so does the
/// provider.
public final class PreferencesProvider: Sendable {
    /// The store the provider reads; writes through it reach the provider's watchers too.
    public let store: PreferenceStore
    private let publisher: SnapshotPublisher
    private let observation: PreferenceObservation

    /// Serves `domain`, locating its files with `configuration` (by default the process's
    /// environment: `PREFERENCES_HOME`, `XDG_CONFIG_HOME`, `PREFERENCES_SYSTEM_DIR`, and its
    /// `-Key value` arguments).
    ///
    /// - Throws: `PreferencesError` with code `invalidDomainName` if the name is
    ///   not 1-200 bytes of `A-Z a-z 0-9 . _ -` or starts with a dot.
    public convenience init(
        domain: String, configuration: PreferenceStore.Configuration = PreferenceStore.Configuration()
    ) throws(PreferencesError) {
        self.init(store: try PreferenceStore(domain: domain, configuration: configuration))
    }

    /// Serves an existing store, with its suites and registered defaults.
    public init(store: PreferenceStore) {
        self.store = store
        let name = "PreferencesProvider[\(store.domain)]"
        let domain = store.domain
        let publisher = SnapshotPublisher(initial: PreferencesSnapshot(providerName: name, domain: domain, values: [:]))
        self.publisher = publisher
        // Each commit of the store arrives with the store's whole values at that commit, from
        // the store's one ordered delivery path: a snapshot is never half of one commit, and
        // the commit numbers keep an older one from replacing a newer one.
        observation = store.observeCommits(initial: true) { values, commit in
            publisher.publish(PreferencesSnapshot(providerName: name, domain: domain, values: values), commit: commit)
        }
    }

    /// Every layer file the store could not use, and why; while a file is corrupt the
    /// provider keeps serving its last good values.
    public var fileProblems: [PreferencesError] {
        store.fileProblems
    }
}

// swift-configuration 1.4.0 compiles with NonisolatedNonsendingByDefault, so its
// `watchValue`/`watchSnapshot` requirements and their handler closures are
// `nonisolated(nonsending)`. This module does not enable that feature, so both must say it
// explicitly, or the conformance does not match ("does not conform to ConfigProvider").
extension PreferencesProvider: ConfigProvider {
    /// `PreferencesProvider[DOMAIN]`.
    public var providerName: String {
        "PreferencesProvider[\(store.domain)]"
    }

    /// The value at `key` in the current snapshot, converted to `type` (see the mapping in
    /// the type's documentation); nil if absent.
    ///
    /// - Throws: ``PreferencesConfigurationError`` if the stored value does not convert.
    public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try publisher.snapshot.value(forKey: key, type: type)
    }

    /// The same as ``value(forKey:type:)``: the store holds the domain in memory and keeps it
    /// current by itself, so there is nothing to fetch.
    public func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        try value(forKey: key, type: type)
    }

    /// The current version of the domain; it never changes after it is returned.
    public func snapshot() -> any ConfigSnapshot {
        publisher.snapshot
    }

    /// Calls `updatesHandler` with the value of `key`: the current one first, then each
    /// different one as any process changes it, until the handler returns.
    ///
    /// Unchanged values are not repeated. A slow consumer skips to the newest value.
    nonisolated(nonsending) public func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey,
        type: ConfigType,
        updatesHandler: nonisolated(nonsending) (
            _ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>
        ) async throws -> Return
    ) async throws -> Return {
        let (stream, continuation) = AsyncStream<Result<LookupResult, any Error>>
            .makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        publisher.addValueWatcher(
            id: id, encodedKey: PreferencesSnapshot.encodedKey(key), type: type, continuation: continuation)
        defer { publisher.removeWatcher(id: id) }
        return try await updatesHandler(ConfigUpdatesAsyncSequence(stream))
    }

    /// Calls `updatesHandler` with snapshots of the domain: the current one first, then a
    /// new one after each change from any process, until the handler returns.
    ///
    /// Snapshots arrive in the order the domain changed; a burst of changes may arrive as
    /// one snapshot, and a slow consumer skips to the newest.
    nonisolated(nonsending) public func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (
            _ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>
        ) async throws -> Return
    ) async throws -> Return {
        let (stream, continuation) = AsyncStream<any ConfigSnapshot>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        publisher.addSnapshotWatcher(id: id, continuation: continuation)
        defer { publisher.removeWatcher(id: id) }
        return try await updatesHandler(ConfigUpdatesAsyncSequence(stream))
    }
}
#endif  // Configuration
