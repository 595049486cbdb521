import ArgumentParser
import DefaultsCommand
import Preferences

/// `defaults rename domain old new`.
struct Rename: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rename a key, keeping its value (atomically, under the domain's lock).",
        discussion: """
            Examples:
              defaults rename com.example.app OldName NewName
              defaults rename com.example.app -- -old -new
            """
    )

    @OptionGroup var host: HostOptions
    @Argument(help: "The domain.") var domain: String
    @Argument(help: "The key to rename.") var old: String
    @Argument(help: "Its new name.") var new: String

    func run() throws {
        let context = DefaultsContext(currentHost: host.currentHost)
        let location = try context.location(domain)
        let files = context.files()
        let (old, new) = (self.old, self.new)
        let found: Bool
        do throws(PreferencesError) {
            found = try files.modifyPersistentDomain(at: location, changing: [old, new]) { values -> Bool in
                guard let value = values.removeValue(forKey: old) else { return false }
                values[new] = value
                return true
            }
        } catch {
            throw DefaultsContext.failure(error, domain: location.description)
        }
        guard found else {
            throw DefaultsFailure("Key \(old) does not exist in domain \(location); leaving defaults unchanged")
        }
    }
}
