import ArgumentParser
import DefaultsCommand
import Preferences
import PropertyList

/// `defaults read [domain [key]]`.
struct Read: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a domain (or every domain), or one key's value, as macOS prints it.",
        discussion: """
            Old-style property-list text: booleans as 1/0, strings quoted only when needed, dates \
            as 2024-01-02 03:04:05 +0000, data as {length = N, bytes = 0x...}. A key that starts \
            with a dash goes after --.

            Examples:
              defaults read com.example.app Interval
              defaults read --json com.example.app
              defaults read com.example.app -- -key
            """
    )

    @OptionGroup var host: HostOptions
    @Flag(help: "Print JSON instead (dates as ISO 8601 strings, data as base64).") var json = false
    @Argument(help: "The domain; all domains when omitted.") var domain: String?
    @Argument(help: "The key; the whole domain when omitted.") var key: String?

    func run() throws {
        try Self.read(domain: domain, key: key, currentHost: host.currentHost, json: json)
    }

    /// What the verb does once its words are parsed; `main` calls it directly for plain
    /// words (see `DirectRun`).
    static func read(domain: String?, key: String?, currentHost: Bool, json: Bool) throws {
        let context = DefaultsContext(currentHost: currentHost)
        let files = context.files()
        guard let domain else {
            var all: [String: PropertyListValue] = [:]
            for name in files.persistentDomainNames(currentHost: currentHost) + [PreferenceStore.globalDomain] {
                do {
                    let location = try context.location(name)
                    if let values = try context.values(at: location, in: files) { all[name] = .dictionary(values) }
                    Self.warnIfRecovered(location, in: files)
                } catch {
                    // One unusable domain must not hide all the others.
                    Output.error("\(error)")
                }
            }
            emit(.dictionary(all), bare: false, json: json)
            return
        }
        let location = try context.location(domain)
        let values = try context.values(at: location, in: files)
        Self.warnIfRecovered(location, in: files)
        guard let key else {
            guard let values else { throw DefaultsFailure.missingDomain(location.description) }
            emit(.dictionary(values), bare: false, json: json)
            return
        }
        guard let value = values?[key] else { throw DefaultsFailure.missingKey(domain: location.description, key: key) }
        emit(value, bare: true, json: json)
    }

    /// Says on standard error that the values printed come from a generation, because the
    /// domain's file is corrupt.
    static func warnIfRecovered(_ location: PersistentDomainLocation, in files: PreferenceFiles) {
        guard let recovery = files.recovery(at: location) else { return }
        Output.error("warning: \(location): \(recovery)")
    }

    /// Prints as `defaults read` does (a lone string, number or date bare), or as JSON.
    private static func emit(_ value: PropertyListValue, bare: Bool, json: Bool) {
        if json {
            Output.line(JSONText.encode(value))
        } else {
            Output.line(OpenStepPropertyListEncoder(topLevelScalarStyle: bare ? .raw : .quotedIfNeeded).encode(value))
        }
    }
}
