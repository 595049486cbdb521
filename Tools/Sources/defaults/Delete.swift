import ArgumentParser
import DefaultsCommand
import Preferences

/// `defaults delete domain [key]`.
struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete a key, or a whole domain (its file is removed).",
        discussion: """
            Examples:
              defaults delete com.example.app Interval
              defaults delete com.example.app -- -key
              defaults delete com.example.app
            """
    )

    @OptionGroup var host: HostOptions
    @Argument(help: "The domain.") var domain: String
    @Argument(help: "The key; the whole domain when omitted.") var key: String?

    func run() throws {
        let context = DefaultsContext(currentHost: host.currentHost)
        let location = try context.location(domain)
        let files = context.files()
        guard let key else {
            guard try context.values(at: location, in: files) != nil else {
                throw DefaultsFailure("Domain (\(location)) not found.\nDefaults have not been changed.")
            }
            do throws(PreferencesError) {
                try files.replacePersistentDomain([:], at: location)
            } catch {
                throw DefaultsContext.failure(error, domain: location.description)
            }
            return
        }
        let existed: Bool
        do throws(PreferencesError) {
            existed = try files.modifyPersistentDomain(at: location, changing: [key]) { values in
                values.removeValue(forKey: key) != nil
            }
        } catch {
            throw DefaultsContext.failure(error, domain: location.description)
        }
        guard existed else { throw DefaultsFailure.missingKey(domain: location.description, key: key) }
    }
}
