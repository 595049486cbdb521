import ArgumentParser
import DefaultsCommand
import Foundation
import Preferences

/// `defaults watch domain [key]`: live changes from any process.
struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print changes of a domain's values (or one key's) as they happen, from any process.",
        discussion: """
            One line per change, `key: old → new`, with (none) for a missing value; --json \
            prints one JSON object per line instead. Changes are what a program of the domain \
            reads: the domain, its by-host file, the global domain and system defaults. \
            Commits that land before the watcher wakes print as one change, from the value it \
            had to the newest; 'defaults history' lists every version. Runs until \
            interrupted; 'Watching DOMAIN' on standard error says it is ready.

            Examples:
              defaults watch com.example.app
              defaults watch --json com.example.app Interval
            """
    )

    /// Accepted for symmetry with the other verbs: the by-host file is always part of the
    /// search list a program of the domain reads, so watching includes it anyway.
    @OptionGroup var host: HostOptions
    @Flag(help: "Print one JSON object per change: key, old, new, origin.") var json = false
    @Argument(help: "The domain.") var domain: String
    @Argument(help: "Only this key.") var key: String?

    func run() throws {
        let context = DefaultsContext(currentHost: false)
        let location = try context.location(domain)
        guard !location.isFile else {
            throw DefaultsFailure("watch takes a domain name, not a file; \(domain) is a path")
        }
        let store = try context.store(for: location.description)
        let printer = ChangePrinter(json: json, privateKeys: context.privateKeys(of: location))
        let observation: PreferenceObservation
        if let key {
            observation = store.observe(key, options: [.old, .new]) { printer.print($0) }
        } else {
            observation = store.observe(options: [.old, .new]) { printer.print($0) }
        }
        Output.error("Watching \(location)\(key.map { " key \($0)" } ?? "") for changes (interrupt to stop)")
        // Changes arrive on the library's watcher thread; this thread only keeps the
        // process (and the observation) alive.
        withExtendedLifetime(observation) {
            while true { sleep(3600) }
        }
    }
}
