import ArgumentParser
import DefaultsCommand
import Preferences
import PropertyList

/// `defaults read-type domain key`.
struct ReadType: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read-type",
        abstract: "Print a key's type: Type is boolean, integer, float, string, date, data, array or dictionary.",
        discussion: """
            Examples:
              defaults read-type com.example.app Interval
              defaults read-type com.example.app -- -key
            """
    )

    @OptionGroup var host: HostOptions
    @Argument(help: "The domain.") var domain: String
    @Argument(help: "The key.") var key: String

    func run() throws {
        let context = DefaultsContext(currentHost: host.currentHost)
        let location = try context.location(domain)
        guard let value = try context.values(at: location, in: context.files())?[key] else {
            throw DefaultsFailure.missingKey(domain: location.description, key: key)
        }
        Output.line("Type is \(value.typeName)")
    }
}
