public import Foundation

/// A `UserDefaults` whose every call goes to a ``PreferenceStore``: code typed
/// `UserDefaults` (a parameter, a library that takes an instance, an `@AppStorage`
/// provider) gets this library's files, locks, history and other processes' changes
/// without being rewritten.
///
/// ```swift
/// let defaults: UserDefaults = PreferencesUserDefaults.standard
/// defaults.set(3, forKey: "launchCount")   // written atomically, merged with other writers
/// ```
///
/// Each call behaves as the same call on ``store`` does (the search list, the typed
/// getters' coercions, `set` visible at once and written in the background, refusals of
/// oversize values and of values the domain's schema forbids). Where that differs from
/// corelibs-Foundation's `UserDefaults`, it is because corelibs differs from Apple's, whose
/// behaviour the store follows; <doc:PortingFromUserDefaults> lists the cases.
///
/// `UserDefaults.didChangeNotification` is posted on `NotificationCenter.default` with this
/// instance as object for every change of its effective values, this process's and other
/// processes' (hand edits included), and once for each `setPersistentDomain` and
/// `removePersistentDomain` call, as corelibs does. It is posted synchronously on the
/// thread that runs the store's handlers: the thread that made a change in this process,
/// the watcher thread (`prefs-watcher`) for another process's (see
/// ``PreferenceStore/observe(_:options:handler:)-(String,_,_)``). Its store posts no
/// ``PreferenceStore/didChangeNotification`` of its own.
///
/// Safe to use from any thread: its state is the store's and one lock. It cannot say so
/// with `Sendable`, because corelibs makes that conformance unavailable on every `NSObject`
/// subclass, `UserDefaults` included. Final, so a subclass cannot route one getter through
/// another behind the store's back.
public final class PreferencesUserDefaults: UserDefaults {
    /// The store every call goes to; use it for what `UserDefaults` has no spelling for
    /// (typed keys, ``PreferenceStore/flush()``, observation, transactions).
    public let store: PreferenceStore

    /// False until this class's initializer has run: Foundation's initializer sets the
    /// argument domain from its own parse of the command line, which the store has already
    /// made by its own rules (``PreferenceStore/Configuration/arguments``).
    private let isInitialized = ThreadLock(false, rank: .leaf)

    /// The shared instance for this program's domain, the domain of
    /// ``PreferenceStore/standard`` (`$PREFERENCES_DOMAIN`, else the executable's name).
    override public class var standard: PreferencesUserDefaults { shared }

    /// Shared by every thread, which is safe (see the type's comment) but, with no
    /// `Sendable` conformance possible, not something the compiler can check.
    nonisolated(unsafe) private static let shared = PreferencesUserDefaults(opening: PreferenceStore.standard.domain, configuration: PreferenceStore.standard.configuration)

    /// Opens a suite (a domain shared with other programs), as `UserDefaults(suiteName:)`
    /// does: nil opens the ``standard`` domain; the global domain's name and invalid names
    /// give nil, as ``PreferenceStore/init(suiteName:)`` does.
    override public init?(suiteName suitename: String?) {
        let name = suitename ?? PreferenceStore.standard.domain
        guard name != UserDefaults.globalDomain,
            let store = try? PreferenceStore(
                domain: name, configuration: PreferenceStore.Configuration(), notificationSender: ChangeNotificationSender(redirectable: true))
        else { return nil }
        self.store = store
        super.init(suiteName: name)
        finishInitialization()
    }

    /// Opens `domain` with `configuration`, as ``PreferenceStore/init(domain:configuration:)``
    /// does (the global domain's name opens the global file every search list reads).
    ///
    /// - Throws: ``PreferencesError`` with code `invalidDomainName` for a name that is not
    ///   1-200 bytes of `A-Z a-z 0-9 . _ -` or starts with a dot.
    public init(domain: String, configuration: PreferenceStore.Configuration = PreferenceStore.Configuration()) throws(PreferencesError) {
        store = try PreferenceStore(domain: domain, configuration: configuration, notificationSender: ChangeNotificationSender(redirectable: true))
        // Foundation's initializer only records the name; ours was checked above.
        super.init(suiteName: store.domain)!
        finishInitialization()
    }

    private convenience init(opening domain: String, configuration: PreferenceStore.Configuration) {
        // The standard store's domain and configuration were accepted by a store already.
        try! self.init(domain: domain, configuration: configuration)
    }

    private func finishInitialization() {
        store.changeNotification.redirect(to: UserDefaults.didChangeNotification, object: self)
        isInitialized.withLock { $0 = true }
    }

    // MARK: Reading

    /// The value for `key` from the first layer of the search list that holds it.
    override public func object(forKey defaultName: String) -> Any? { store.object(forKey: defaultName) }
    /// The value for `key` if it is a string or a number (numbers in their shortest form).
    override public func string(forKey defaultName: String) -> String? { store.string(forKey: defaultName) }
    /// The value for `key` if it is an array.
    override public func array(forKey defaultName: String) -> [Any]? { store.array(forKey: defaultName) }
    /// The value for `key` if it is a dictionary.
    override public func dictionary(forKey defaultName: String) -> [String: Any]? { store.dictionary(forKey: defaultName) }
    /// The value for `key` if it is data.
    override public func data(forKey defaultName: String) -> Data? { store.data(forKey: defaultName) }
    /// The value for `key` if it is an array of strings only.
    override public func stringArray(forKey defaultName: String) -> [String]? { store.stringArray(forKey: defaultName) }
    /// The value for `key` as an integer (numbers truncated, numeric strings parsed), else 0.
    override public func integer(forKey defaultName: String) -> Int { store.integer(forKey: defaultName) }
    /// The value for `key` as a `Float` (numeric strings parsed, `true` is 1), else 0.
    override public func float(forKey defaultName: String) -> Float { store.float(forKey: defaultName) }
    /// The value for `key` as a `Double` (numeric strings parsed, `true` is 1), else 0.
    override public func double(forKey defaultName: String) -> Double { store.double(forKey: defaultName) }
    /// The value for `key` as a Boolean (non-zero numbers; strings starting with
    /// `Y y T t` or a digit 1-9), else false.
    override public func bool(forKey defaultName: String) -> Bool { store.bool(forKey: defaultName) }
    /// The value for `key` as a URL: a stored path (`~` expanded) as a file URL, or a
    /// stored URL string.
    override public func url(forKey defaultName: String) -> URL? { store.url(forKey: defaultName) }
    /// Every key visible through the search list, with its winning value.
    override public func dictionaryRepresentation() -> [String: Any] { store.dictionaryRepresentation() }
    /// True if the administrator forces `key` (the managed layer).
    override public func objectIsForced(forKey key: String) -> Bool { store.objectIsForced(forKey: key) }
    /// True if the administrator forces `key` in `domain`.
    override public func objectIsForced(forKey key: String, inDomain domain: String) -> Bool {
        store.objectIsForced(forKey: key, inDomain: domain)
    }

    // MARK: Writing

    /// Stores a property-list value; nil removes the key. Anything else stops the program
    /// with a message naming the key and the type, as on Apple's systems.
    override public func set(_ value: Any?, forKey defaultName: String) { store.set(value, forKey: defaultName) }
    /// Stores an integer.
    override public func set(_ value: Int, forKey defaultName: String) { store.set(value, forKey: defaultName) }
    /// Stores a `Float`.
    override public func set(_ value: Float, forKey defaultName: String) { store.set(value, forKey: defaultName) }
    /// Stores a `Double`.
    override public func set(_ value: Double, forKey defaultName: String) { store.set(value, forKey: defaultName) }
    /// Stores a Boolean.
    override public func set(_ value: Bool, forKey defaultName: String) { store.set(value, forKey: defaultName) }
    /// Stores a URL: a file URL as its `~`-abbreviated path, any other as its full string.
    override public func set(_ url: URL?, forKey defaultName: String) { store.set(url, forKey: defaultName) }
    /// Removes `key` from the domain.
    override public func removeObject(forKey defaultName: String) { store.removeObject(forKey: defaultName) }

    /// Writes pending changes now and re-reads every layer; false if a write failed (the
    /// changes stay pending and are retried). ``PreferenceStore/flush()`` says why.
    @discardableResult
    override public func synchronize() -> Bool { store.synchronize() }

    // MARK: Domains

    /// Adds defaults to this instance's registration domain (memory only, cumulative).
    override public func register(defaults registrationDictionary: [String: Any]) {
        store.register(defaults: registrationDictionary)
    }

    /// Adds a domain to the search list after this one's.
    override public func addSuite(named suiteName: String) { store.addSuite(named: suiteName) }
    /// Removes a domain added with `addSuite(named:)`.
    override public func removeSuite(named suiteName: String) { store.removeSuite(named: suiteName) }

    /// The values in a domain's file (with this process's unwritten changes), or nil if it
    /// has none.
    override public func persistentDomain(forName domainName: String) -> [String: Any]? {
        store.persistentDomain(forName: domainName)
    }

    /// Replaces a domain's whole contents, written in the background like a `set`.
    override public func setPersistentDomain(_ domain: [String: Any], forName domainName: String) {
        store.setPersistentDomain(domain, forName: domainName)
    }

    /// Removes every value of a domain; its file is deleted at the next write.
    override public func removePersistentDomain(forName domainName: String) {
        store.removePersistentDomain(forName: domainName)
    }

    /// The argument and registration domains and those set with `setVolatileDomain`.
    override public var volatileDomainNames: [String] { store.volatileDomainNames }

    /// A volatile domain's values; empty if there is none.
    override public func volatileDomain(forName domainName: String) -> [String: Any] {
        store.volatileDomain(forName: domainName)
    }

    /// Sets a volatile domain, replacing it (as Apple's does; corelibs merges). The argument
    /// and registration domains replace that layer of the search list.
    override public func setVolatileDomain(_ domain: [String: Any], forName domainName: String) {
        // Foundation's initializer calls this before ours has finished; see `isInitialized`.
        guard isInitialized.withLock({ $0 }) else { return }
        store.setVolatileDomain(domain, forName: domainName)
    }

    /// Removes a volatile domain.
    override public func removeVolatileDomain(forName domainName: String) {
        store.removeVolatileDomain(forName: domainName)
    }
}
