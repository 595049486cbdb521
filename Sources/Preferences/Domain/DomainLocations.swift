import DeclaredSettings
import Foundation


/// Where every layer's files live, resolved once from the environment.
///
/// | layer | path |
/// |---|---|
/// | user domains | `$PREFERENCES_HOME`, else `$XDG_CONFIG_HOME/preferences` (absolute only), else `~/.config/preferences` |
/// | by-host | `<user dir>/ByHost/<domain>.<machine-id>.plist` |
/// | system | `$PREFERENCES_SYSTEM_DIR`, else `/etc/preferences` |
/// | managed | `<system dir>/managed/<domain>.plist` |
/// | corelibs-Foundation's (imported once, never written) | `$XDG_CONFIG_HOME/<domain>.plist` (absolute only), else `~/.config/<domain>.plist` |
struct DomainLocations: Sendable, Hashable {
    /// The file name of the global domain in the user and system directories.
    static let globalFileStem = ".GlobalPreferences"

    /// The name of the global domain (``PreferenceStore/globalDomain``), here so that the
    /// domain layer names no store.
    static let globalDomainName = "NSGlobalDomain"

    /// The stem of a domain's file names: the domain's name, or for the global domain its
    /// file's, `.GlobalPreferences`. No file is ever named `NSGlobalDomain.plist`: no
    /// program's search list reads one.
    static func fileStem(ofDomain name: String) -> String {
        name == globalDomainName ? globalFileStem : name
    }

    let userDirectory: String
    let systemDirectory: String
    /// `/etc/machine-id`'s contents, or nil when the machine has none (no by-host layers).
    let machineID: String?
    /// The user's home directory, for `~` in stored file URLs.
    let homeDirectory: String
    /// `$XDG_RUNTIME_DIR` (absolute only), where commit counters live; nil: beside each file.
    let runtimeDirectory: String?
    /// Where corelibs-Foundation's `UserDefaults` keeps a domain, `<dir>/<domain>.plist`:
    /// `$XDG_CONFIG_HOME` (absolute only), else `~/.config`, as its CFPreferences resolves it.
    let foundationDirectory: String

    init(environment: [String: String], machineID: String? = DomainLocations.readMachineID()) {
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        homeDirectory = home.trimmingTrailingSlashes()
        foundationDirectory = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0.trimmingTrailingSlashes() : nil }
            ?? homeDirectory + "/.config"
        if let explicit = environment["PREFERENCES_HOME"], !explicit.isEmpty {
            userDirectory = explicit.trimmingTrailingSlashes()
        } else if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            // The XDG spec says a relative value is invalid and must be ignored.
            userDirectory = config.pathAppending("preferences")
        } else {
            userDirectory = homeDirectory + "/.config/preferences"
        }
        if let system = environment["PREFERENCES_SYSTEM_DIR"], !system.isEmpty {
            systemDirectory = system.trimmingTrailingSlashes()
        } else {
            systemDirectory = "/etc/preferences"
        }
        self.machineID = machineID
        runtimeDirectory = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0.trimmingTrailingSlashes() : nil }
    }

    var byHostDirectory: String { userDirectory + "/ByHost" }
    var managedDirectory: String { systemDirectory + "/managed" }

    /// The file name of a domain (`nil` stem means the global domain).
    static func fileName(stem: String, machineID: String? = nil) -> String {
        if let machineID { return "\(stem).\(machineID).plist" }
        return stem + ".plist"
    }

    /// Reads `/etc/machine-id`: 32 lowercase hex digits, or nil if missing or malformed.
    static func readMachineID(path: String = "/etc/machine-id") -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count == 32, text.allSatisfy({ $0.isHexDigit }) else { return nil }
        return text.lowercased()
    }
}
