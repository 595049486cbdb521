import ArgumentParser
import DefaultsCommand
import Foundation
import Preferences
import PropertyList

/// `defaults find word`.
struct Find: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find every domain, key or value that contains a word (ignoring case).",
        discussion: """
            Examples:
              defaults find dark
            """
    )

    @OptionGroup var host: HostOptions
    @Argument(help: "The word to look for.") var word: String

    func run() throws {
        let context = DefaultsContext(currentHost: host.currentHost)
        let files = context.files()
        var found = false
        for name in files.persistentDomainNames(currentHost: host.currentHost) + [PreferenceStore.globalDomain] {
            let values: [String: PropertyListValue]?
            do {
                values = try context.values(at: context.location(name), in: files)
            } catch {
                // One unusable domain must not hide matches in the others.
                Output.error("\(error)")
                continue
            }
            // As Apple's tool does, a domain whose name contains the word matches whole.
            let matches = contains(name) ? (values ?? [:]) : (values ?? [:]).filter { key, value in contains(key) || contains(value) }
            guard !matches.isEmpty else { continue }
            found = true
            Output.line("Found \(matches.count) keys in domain '\(name)': " + OpenStepPropertyListEncoder().encode(.dictionary(matches)))
        }
        if !found { Output.line("Found no keys matching '\(word)'") }
    }

    private func contains(_ text: String) -> Bool {
        text.range(of: word, options: .caseInsensitive) != nil
    }

    private func contains(_ value: PropertyListValue) -> Bool {
        switch value {
        case .string(let text): contains(text)
        case .array(let elements): elements.contains { contains($0) }
        case .dictionary(let entries): entries.contains { contains($0.key) || contains($0.value) }
        default: false
        }
    }
}
