import Foundation
import JournaldLogging
import Logging
package import Preferences
package import PropertyList

/// What every `defaults` verb shares: the files and stores it works through, how domain
/// words become locations, and how library errors become one-line messages.
///
/// Files are found exactly as the library finds them (`PREFERENCES_HOME`,
/// `XDG_CONFIG_HOME`, `HOME`, `PREFERENCES_SYSTEM_DIR`), so pointing those at a directory
/// points the tool there too.
package struct DefaultsContext: Sendable {
    /// How domains may be written on the command line, for usage hints.
    package static let domainUsage = "Hint: a domain is a name such as com.example.app, -g (or NSGlobalDomain) for the global domain, or a path to a .plist file starting with /, ~, ./ or ../"

    /// True for `-currentHost`: named domains mean their by-host files.
    package let currentHost: Bool
    /// The process's environment, which locates the files.
    package let environment: [String: String]

    /// Creates the context for one run of the tool.
    package init(currentHost: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.currentHost = currentHost
        self.environment = environment
    }

    /// The tool's writes go to journald when it is reachable (each write is one entry); the
    /// few warnings a user must see go to standard error too (``ToolLogHandler``).
    private static let logger: Logger = {
        let journal = JournaldLogHandler.isJournalReachable()
        return Logger(label: "defaults") { ToolLogHandler(label: $0, journal: journal) }
    }()

    /// What stores and files are made with: this run's environment, no launch arguments
    /// (the tool's own are not preferences), the tool's logger, and no file watching until a
    /// verb observes (`watch`): a one-shot read or write starts no watcher thread and no
    /// inotify instance.
    private var configuration: PreferenceStore.Configuration {
        PreferenceStore.Configuration(environment: environment, arguments: [], logger: Self.logger, fileWatching: .whenObserved)
    }

    /// A store for `domain` (a name, or the global domain), with no launch arguments and
    /// `suites` added: what a program of that domain would see.
    package func store(for domain: String, suites: [String] = []) throws(DefaultsFailure) -> PreferenceStore {
        let store: PreferenceStore
        do throws(PreferencesError) {
            store = try PreferenceStore(domain: domain, configuration: configuration)
        } catch {
            throw Self.failure(error, domain: domain)
        }
        for suite in suites {
            guard (try? DomainName(suite)) != nil else {
                throw DefaultsFailure("invalid suite name \(PropertyListText.quoted(suite))", usage: Self.domainUsage)
            }
            store.addSuite(named: suite)
        }
        return store
    }

    /// The domain files the persistent-domain verbs read and write, by location.
    package func files() -> PreferenceFiles {
        PreferenceFiles(configuration: configuration)
    }

    /// The location a domain word names: `-g`, `-globalDomain` and `NSGlobalDomain` the
    /// global domain, a word starting with `/`, `~`, `./` or `../` a file, anything else a
    /// domain name, which must be valid.
    package func location(_ word: String) throws(DefaultsFailure) -> PersistentDomainLocation {
        if word.hasPrefix("-") && word != "-g" && word != "-globalDomain" {
            // A valid domain name may start with a dash, but here it is far likelier a
            // mistyped option, which must not quietly create "-foo.plist".
            throw DefaultsFailure("unknown option \(PropertyListText.quoted(word)) where a domain was expected", usage: Self.domainUsage)
        }
        do throws(PreferencesError) {
            switch word {
            case "-g", "-globalDomain", PreferenceStore.globalDomain:
                return .global(currentHost: currentHost)
            // Only an unmistakable path: a name with a slash in it (a typo such as
            // "com.example/app") must be refused, not create a folder and a file.
            case let path where path.hasPrefix("/") || path.hasPrefix("~") || path.hasPrefix("./") || path.hasPrefix("../"):
                var expanded = path
                if path == "~" || path.hasPrefix("~/") {
                    let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
                    expanded = home + path.dropFirst()
                }
                return try .file(atPath: expanded)
            default:
                return try .named(word, currentHost: currentHost)
            }
        } catch {
            throw DefaultsFailure("invalid domain \(PropertyListText.quoted(word)): \(error.reason)", usage: Self.domainUsage)
        }
    }

    /// A domain's values, nil if it has none; an unusable file is a failure naming it.
    package func values(at location: PersistentDomainLocation, in files: PreferenceFiles) throws(DefaultsFailure) -> [String: PropertyListValue]? {
        do throws(PreferencesError) {
            return try files.persistentDomainValues(at: location)
        } catch {
            throw Self.failure(error, domain: location.description)
        }
    }

    /// A library error as the tool's message: the domain, what happened, and the file.
    package static func failure(_ error: PreferencesError, domain: String) -> DefaultsFailure {
        if error.code == .invalidDomainName {
            return DefaultsFailure("invalid domain \(PropertyListText.quoted(domain)): \(error.reason)", usage: domainUsage)
        }
        if error.code == .corrupt && domain.hasPrefix("/") {
            // Reading such a file works in any format; writing goes through the library,
            // which keeps binary files only and never replaces one it cannot read.
            return DefaultsFailure(
                "\(domain): \(error.description)",
                usage: "Hint: a .plist named by path is written as a binary property list; one in XML or text form (or damaged) is left as it is, so convert it to binary first")
        }
        if error.code == .corrupt || error.code == .notADictionary {
            // The tool never replaces a damaged file on its own (a program's store does, keeping
            // it aside): the way out is the user's choice.
            return DefaultsFailure(
                "\(domain): \(error.description)",
                usage: "Hint: the file is left as it is; `defaults history \(domain)` lists the generations kept and `defaults restore \(domain) N` brings one back, or move the file away to start the domain afresh")
        }
        return DefaultsFailure("\(domain): \(error.description)")
    }
}
