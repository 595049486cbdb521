import ArgumentParser
import DefaultsCommand
import Preferences

/// `defaults domains`.
struct Domains: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the names of all domains on one line, separated by commas.",
        discussion: """
            Examples:
              defaults domains
              defaults -currentHost domains
            """
    )

    @OptionGroup var host: HostOptions

    func run() throws {
        let context = DefaultsContext(currentHost: host.currentHost)
        Output.line(context.files().persistentDomainNames(currentHost: host.currentHost).joined(separator: ", "))
    }
}
