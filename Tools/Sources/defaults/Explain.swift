import ArgumentParser
import DefaultsCommand
import Preferences
import PropertyList

/// `defaults explain domain key`: where a value comes from.
struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List every layer of the search list that holds a key, and which one wins.",
        discussion: """
            Layers, first hit wins: forced (managed), argument, by-host, app, suites, global \
            by-host, global, system, system global, registration, declared (the schema's \
            defaults). A value that breaks the domain's schema is marked invalid and passed over. \
            A layer whose file is corrupt is read from the newest generation that decodes, which \
            is named. A forced value written by preferences-fleet names the etcd key and revision \
            it came from. A program's own launch arguments and registered defaults live in that \
            program only, so they are not seen here.

            Examples:
              defaults explain com.example.app AppleLanguages
              defaults explain --suite com.example.shared --json com.example.app Theme
            """
    )

    /// Accepted for symmetry with the other verbs: the by-host layer is always explained.
    @OptionGroup var host: HostOptions
    @Flag(help: "Print JSON instead.") var json = false
    @Option(name: .customLong("suite"), help: "A suite the program adds (addSuite(named:)); repeatable.") var suites: [String] = []
    @Argument(help: "The domain.") var domain: String
    @Argument(help: "The key.") var key: String

    func run() throws {
        let context = DefaultsContext(currentHost: false)
        let location = try context.location(domain)
        guard !location.isFile else {
            throw DefaultsFailure("explain takes a domain name, not a file; \(domain) is a path")
        }
        let store = try context.store(for: location.description, suites: suites)
        for problem in store.fileProblems {
            Output.error("warning: \(problem) (this layer is skipped)")
        }
        let sources = store.sources(forKey: key)
        for recovery in Set(sources.compactMap(\.recovery)) {
            Output.error("warning: \(recovery)")
        }
        // A private value is named, never shown: explain output ends up in bug reports.
        let isPrivate = context.privateKeys(of: location).contains(key)
        func shownText(_ value: PropertyListValue) -> String { isPrivate ? DeclaredKey.privateValuePlaceholder : CompactText.encode(value) }
        func shownJSON(_ value: PropertyListValue) -> String { isPrivate ? JSONText.string(DeclaredKey.privateValuePlaceholder) : JSONText.encode(value, pretty: false) }
        // A value that breaks the domain's schema is passed over by reads.
        guard let winner = sources.first(where: { $0.violation == nil }) else {
            throw DefaultsFailure("No layer of \(location)'s search list holds \(key)")
        }
        if json {
            Output.line(JSONText.object([
                ("domain", JSONText.string(location.description)),
                ("key", JSONText.string(key)),
                ("value", shownJSON(winner.value)),
                ("winner", JSONText.string(winner.layer.rawValue)),
                ("generation", winner.recovery.map { String($0.generation) } ?? "null"),
                ("layers", "[" + sources.map { source in
                    JSONText.object([
                        ("layer", JSONText.string(source.layer.rawValue)),
                        ("path", source.path.map(JSONText.string) ?? "null"),
                        ("value", shownJSON(source.value)),
                        ("invalid", source.violation.map { JSONText.string($0.rule.description) } ?? "null"),
                        ("generation", source.recovery.map { String($0.generation) } ?? "null"),
                        ("origin", source.origin.map(JSONText.string) ?? "null"),
                    ])
                }.joined(separator: ",") + "]"),
            ]))
            return
        }
        let recovered = winner.recovery.map { ", generation \($0.generation) of its file, because the file is corrupt" } ?? ""
        Output.line("\(key) in \(location) is \(shownText(winner.value)), from the \(winner.layer.rawValue) layer\(recovered).")
        Output.line("Layers holding \(key), first wins:")
        for source in sources {
            let mark = source == winner ? "* " : "  "
            let path = source.path.map { path in " (\(path)" + (source.recovery.map { ", generation \($0.generation)" } ?? "") + ")" } ?? ""
            let invalid = source.violation.map { " (invalid: \($0.rule); passed over)" } ?? ""
            let origin = source.origin.map { ", from \($0)" } ?? ""
            Output.line("\(mark)\(source.layer.rawValue)\(path): \(shownText(source.value))\(origin)\(invalid)")
        }
    }
}
