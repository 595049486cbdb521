import ArgumentParser
import DefaultsCommand
import Preferences

/// `defaults import-foundation [domain] [--all]`: a domain's settings from corelibs-Foundation's file.
struct ImportFoundation: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-foundation",
        abstract: "Import a domain's settings from the file corelibs-Foundation's UserDefaults keeps for it.",
        discussion: """
            Foundation keeps a domain in $XDG_CONFIG_HOME/DOMAIN.plist, else ~/.config/DOMAIN.plist. \
            Each key the domain does not have takes that file's value; each key it has keeps its \
            own. The import is one commit, and history says where its values came from. The \
            Foundation file is left as it was.

            A program using the library does this by itself the first time it opens a domain that \
            has no file yet; run this for a domain that had one already, or whose Foundation file \
            was refused and has since been fixed.

            Examples:
              defaults import-foundation com.example.app
              defaults import-foundation --all
            """
    )

    @Flag(help: "Import every domain Foundation has a file for.") var all = false
    @Argument(help: "The domain.") var domain: String?

    func validate() throws {
        if all == (domain != nil) {
            throw ValidationError("name a domain or pass --all, not both")
        }
    }

    func run() throws {
        let files = DefaultsContext(currentHost: false).files()
        let names = domain.map { [$0] } ?? files.foundationDomainNames()
        if names.isEmpty {
            Output.line("corelibs-Foundation has no settings files here; nothing to import")
        }
        var failures = 0
        for name in names {
            do throws(PreferencesError) {
                guard let result = try files.importFoundationSettings(ofDomain: name) else {
                    if domain != nil {
                        throw PreferencesError(
                            .missingFile, path: files.foundationFilePath(ofDomain: name),
                            "corelibs-Foundation has no settings file for \(name); nothing was imported")
                    }
                    continue
                }
                Output.line(Self.describe(result))
            } catch {
                // With --all, one refused file does not stop the others; each is named.
                guard all else { throw DefaultsContext.failure(error, domain: name) }
                Output.error("defaults: \(name): \(error.description)")
                failures += 1
            }
        }
        if failures > 0 { throw ExitCode(1) }
    }

    /// `imported 2 keys into com.example.app from /home/u/.config/com.example.app.plist: a, b; kept 1 this domain already had: c`.
    static func describe(_ result: FoundationImport) -> String {
        let imported = result.importedKeys.count
        var line = "imported \(imported) key\(imported == 1 ? "" : "s") into \(result.domain) from \(result.sourcePath)"
        if imported > 0 { line += ": " + result.importedKeys.joined(separator: ", ") }
        if !result.keptKeys.isEmpty {
            line += "; kept \(result.keptKeys.count) this domain already had: " + result.keptKeys.joined(separator: ", ")
        }
        return line
    }
}
