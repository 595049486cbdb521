import Logging
import Preferences

/// The greeter's live configuration, read from its preferences domain.
///
/// Two keys: `greeting` (a string) and `interval` (seconds between greetings, a number).
/// Both have registered defaults, so the greeter runs with no file at all, and with a
/// corrupt one.
///
/// The keys' names, types and defaults are declared once, in
/// `org.swift-preferences.greeter.schema.plist`; the PreferenceKeys plugin generates
/// `PreferenceKey<String>.greeting` and `PreferenceKey<Double>.interval` from it, so a
/// schema change that no longer fits this code fails the build. The values are still read
/// with the store's coercing getters (`string(forKey:)`, `double(forKey:)`), not the typed
/// subscript, because the greeter has always accepted `defaults write ... interval -string 2`
/// and warned about a non-number rather than silently using the default.
struct GreeterSettings: Equatable, Sendable {
    /// The preferences domain: `~/.config/preferences/org.swift-preferences.greeter.plist`.
    static let domain = "org.swift-preferences.greeter"
    static let greetingKey = PreferenceKey<String>.greeting.name
    static let intervalKey = PreferenceKey<Double>.interval.name
    static let defaultGreeting = PreferenceKey<String>.greeting.defaultValue
    static let defaultInterval = PreferenceKey<Double>.interval.defaultValue
    /// Below this the journal would fill faster than anyone reads it.
    static let shortestInterval = 0.1
    /// The longest interval: one day.
    static let longestInterval: Double = 86_400

    /// What `register(defaults:)` gets: the values used until someone sets others.
    static var registeredDefaults: [String: Any] {
        [greetingKey: defaultGreeting, intervalKey: defaultInterval]
    }

    var greeting: String
    /// Seconds between greetings.
    var interval: Double

    /// The settings the store resolves now. An interval that is not a positive number is
    /// replaced by the default and one that is too short by ``shortestInterval``, with a
    /// warning, rather than stopping the service.
    init(store: PreferenceStore, logger: Logger) {
        greeting = store.string(forKey: Self.greetingKey) ?? Self.defaultGreeting
        let requested = store.double(forKey: Self.intervalKey)
        if !requested.isFinite || requested <= 0 {
            logger.warning(
                "Ignoring interval \(store.object(forKey: Self.intervalKey).map { "\($0)" } ?? "(none)"): not a positive number of seconds; using \(Self.defaultInterval)")
            interval = Self.defaultInterval
        } else if requested < Self.shortestInterval {
            logger.warning("Raising interval \(requested) s to the shortest allowed, \(Self.shortestInterval) s")
            interval = Self.shortestInterval
        } else if requested > Self.longestInterval {
            // Far beyond any useful interval, and beyond what converts to whole
            // milliseconds: clamped rather than trapping on the conversion.
            logger.warning("Lowering interval \(requested) s to the longest allowed, \(Self.longestInterval) s")
            interval = Self.longestInterval
        } else {
            interval = requested
        }
    }

    /// The interval for `Task.sleep`.
    var duration: Duration { .milliseconds(Int64((interval * 1000).rounded())) }

    /// The text for `STATUS=` and the logs, e.g. `Greeting "Hello" every 5 s`.
    var statusText: String {
        let seconds = interval == interval.rounded() ? String(Int(interval)) : String(interval)
        return "Greeting \"\(greeting)\" every \(seconds) s"
    }

    /// The settings as journal fields, so entries can be queried by value.
    var metadata: Logger.Metadata {
        ["GREETER_GREETING": .string(greeting), "GREETER_INTERVAL": .string(String(interval))]
    }
}
