import ArgumentParser
import DefaultsCommand
import Foundation
import Preferences

/// `defaults describe domain [key]`: the declared settings of a domain, with their values.
struct Describe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe a domain's declared settings: type, default, range or choices, summary, and the current value with the layer it comes from.",
        discussion: """
            The schema is the one a program of the domain uses: <domain>.plist or \
            <domain>.bundle/Root.plist on $PREFERENCES_SCHEMA_PATH, else in preferences/schemas \
            under $XDG_DATA_HOME and $XDG_DATA_DIRS. A stored value that breaks its key's rule is \
            marked invalid; reads pass over it.

            Examples:
              defaults describe com.example.greeter
              defaults describe --json com.example.greeter Volume
            """
    )

    @Flag(help: "Print JSON instead.") var json = false
    @Argument(help: "The domain.") var domain: String
    @Argument(help: "One declared key; all of them if omitted.") var key: String?

    func run() throws {
        let context = DefaultsContext(currentHost: false)
        let location = try context.location(domain)
        guard !location.isFile, location.description != PreferenceStore.globalDomain else {
            throw DefaultsFailure("describe takes a domain name; \(domain) has no schema of its own")
        }
        let files = context.files()
        let found: PreferenceSchema?
        do throws(PreferencesError) {
            found = try files.schema(for: location)
        } catch {
            throw DefaultsFailure("\(location): \(error.description)")
        }
        guard var schema = found else {
            let searched = files.schemaSearchPath.directories.joined(separator: ", ")
            throw DefaultsFailure("no schema declares \(location); looked for \(location).plist and \(location).bundle in: \(searched.isEmpty ? "(no directories)" : searched)")
        }
        // A Settings.bundle's titles are keys into its strings tables: show the words, in the
        // user's language, as the Settings app (and the settings page) would.
        if schema.format == .settingsBundle, let bundle = PreferenceSchema.settingsBundleDirectory(of: schema.path) {
            let languages = StringsTable.preferredLanguages(environment: context.environment)
            if let layout = try? SettingsBundleLayout(bundle: bundle, languages: languages) {
                for problem in layout.problems { Output.error("warning: \(problem) (its words are not used)") }
                schema = layout.localizing(schema)
            }
        }
        let declarations: [DeclaredKey]
        if let key {
            guard let declaration = schema[key] else {
                throw DefaultsFailure("\(key) is not declared in \(schema.path)")
            }
            declarations = [declaration]
        } else {
            declarations = schema.sortedKeys
        }
        let store = try context.store(for: location.description)
        let described = declarations.map { Described(declaration: $0, sources: store.sources(forKey: $0.name)) }
        if json {
            Output.line(JSONText.object([
                ("domain", JSONText.string(location.description)),
                ("schema", JSONText.string(schema.path)),
                ("format", JSONText.string(schema.format.rawValue)),
                ("keys", "[" + described.map(\.json).joined(separator: ",") + "]"),
            ]))
            return
        }
        Output.line("\(location): \(declarations.count) declared key\(declarations.count == 1 ? "" : "s") (schema \(schema.path))")
        for item in described {
            Output.line("")
            for line in item.lines { Output.line(line) }
        }
    }
}

/// One declared key with what the search list holds for it.
private struct Described {
    let declaration: DeclaredKey
    let sources: [PreferenceSource]

    /// The value reads return: the first layer's value that keeps the rules.
    var winner: PreferenceSource? { sources.first { $0.violation == nil } }

    /// A stored value as printed: `<private>` for a private key.
    func shown(_ value: PropertyListValue) -> String {
        declaration.isPrivate ? DeclaredKey.privateValuePlaceholder : CompactText.encode(value)
    }
    var invalid: [PreferenceSource] { sources.filter { $0.violation != nil } }

    var lines: [String] {
        let key = declaration
        var lines = [key.name]
        func field(_ name: String, _ value: String) { lines.append("  " + (name + ":").padding(toLength: 10, withPad: " ", startingAt: 0) + value) }
        field("type", key.type.description)
        if let value = key.defaultValue { field("default", CompactText.encode(value)) }
        if key.minimum != nil || key.maximum != nil {
            field("range", "\(key.minimum.map(CompactText.encode) ?? "any") to \(key.maximum.map(CompactText.encode) ?? "any")")
        }
        if let choices = key.choices {
            let titles = key.choiceTitles
            field("choices", choices.enumerated().map { index, choice in
                CompactText.encode(choice) + (titles.map { " (\($0[index]))" } ?? "")
            }.joined(separator: ", "))
        }
        if let summary = key.summary { field("summary", summary) }
        if let details = key.details { field("details", details) }
        if let group = key.group { field("group", group) }
        if !key.renamedFrom.isEmpty { field("was", key.renamedFrom.joined(separator: ", ")) }
        if key.isPrivate { field("private", "yes: its values stay out of the history, exports and logs") }
        if let winner {
            field("value", "\(shown(winner.value)) from the \(winner.layer.rawValue) layer" + (winner.path.map { " (\($0))" } ?? ""))
        } else {
            field("value", "none (no layer holds a valid value and no default is declared)")
        }
        for source in invalid {
            field("invalid", "\(shown(source.value)) in the \(source.layer.rawValue) layer" + (source.path.map { " (\($0))" } ?? "")
                + ": \(source.violation!.rule)")
        }
        return lines
    }

    var json: String {
        let key = declaration
        func optional(_ value: PropertyListValue?) -> String { value.map { JSONText.encode($0, pretty: false) } ?? "null" }
        return JSONText.object([
            ("key", JSONText.string(key.name)),
            ("type", JSONText.string(key.type.description)),
            ("default", optional(key.defaultValue)),
            ("minimum", optional(key.minimum)),
            ("maximum", optional(key.maximum)),
            ("choices", key.choices.map { "[" + $0.map { JSONText.encode($0, pretty: false) }.joined(separator: ",") + "]" } ?? "null"),
            ("choiceTitles", key.choiceTitles.map { "[" + $0.map(JSONText.string).joined(separator: ",") + "]" } ?? "null"),
            ("summary", key.summary.map(JSONText.string) ?? "null"),
            ("group", key.group.map(JSONText.string) ?? "null"),
            ("description", key.details.map(JSONText.string) ?? "null"),
            ("renamedFrom", "[" + key.renamedFrom.map(JSONText.string).joined(separator: ",") + "]"),
            ("private", key.isPrivate ? "true" : "false"),
            ("value", key.isPrivate ? (winner == nil ? "null" : JSONText.string(DeclaredKey.privateValuePlaceholder)) : optional(winner?.value)),
            ("layer", winner.map { JSONText.string($0.layer.rawValue) } ?? "null"),
            ("path", winner?.path.map(JSONText.string) ?? "null"),
            ("invalid", "[" + invalid.map { source in
                JSONText.object([
                    ("layer", JSONText.string(source.layer.rawValue)),
                    ("path", source.path.map(JSONText.string) ?? "null"),
                    ("value", key.isPrivate ? JSONText.string(DeclaredKey.privateValuePlaceholder) : JSONText.encode(source.value, pretty: false)),
                    ("rule", JSONText.string(source.violation!.rule.description)),
                ])
            }.joined(separator: ",") + "]"),
        ])
    }
}
