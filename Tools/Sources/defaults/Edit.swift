import ArgumentParser
import DefaultsCommand
import Foundation
import Preferences
import PropertyList

/// `defaults edit domain`: the domain as XML in `$VISUAL` or `$EDITOR`, checked before it
/// is saved.
struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Edit a domain as an XML property list in $VISUAL or $EDITOR; it is checked before it is saved.",
        discussion: """
            Only the keys you changed, added or removed are written, under the domain's lock, so \
            changes other processes make meanwhile to other keys are kept. Text that is not a valid \
            property-list dictionary is refused, the domain is left as it was, and your text is kept \
            in a file named in the message.

            Examples:
              defaults edit com.example.app
              EDITOR=nano defaults edit -g
            """
    )

    @OptionGroup var host: HostOptions
    @Argument(help: "The domain.") var domain: String

    func run() throws {
        let context = DefaultsContext(currentHost: host.currentHost)
        let location = try context.location(domain)
        let files = context.files()
        let original = try context.values(at: location, in: files) ?? [:]

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("defaults-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = directory.appendingPathComponent(URL(fileURLWithPath: location.description).lastPathComponent.replacingOccurrences(of: ".plist", with: "") + ".plist")
        var keepText = false
        defer { if !keepText { try? FileManager.default.removeItem(at: directory) } }
        try Data(XMLPropertyListEncoder().encode(.dictionary(original))).write(to: file)

        let environment = ProcessInfo.processInfo.environment
        let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The editor setting may carry its own arguments ("code --wait"), as shells allow.
        process.arguments = ["-c", editor + " \"$1\"", "defaults-edit", file.path]
        do {
            try process.run()
        } catch {
            throw DefaultsFailure("cannot start the editor \(editor): \(error.localizedDescription); nothing was changed")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw DefaultsFailure("the editor (\(editor)) exited with status \(process.terminationStatus); nothing was changed")
        }
        let bytes = [UInt8]((try? Data(contentsOf: file)) ?? Data())
        let edited: [String: PropertyListValue]
        do {
            guard case .dictionary(let values) = try PropertyListText.document(bytes, source: "the edited text") else {
                throw DefaultsFailure("the edited text is not a dictionary")
            }
            edited = values
        } catch let failure as DefaultsFailure {
            keepText = true
            throw DefaultsFailure("\(failure.message); \(location) was not changed, and your text is kept in \(file.path)")
        }

        var changes: [String: PropertyListValue?] = [:]
        for (key, value) in edited where original[key] != value { changes[key] = .some(value) }
        for key in original.keys where edited[key] == nil { changes[key] = .some(nil) }
        guard !changes.isEmpty else {
            Output.error("No changes; \(location) was left as it was")
            return
        }
        do throws(PreferencesError) {
            try files.setValues(changes, at: location)
        } catch {
            throw DefaultsContext.failure(error, domain: location.description)
        }
        Output.error("Saved \(changes.count) changed key\(changes.count == 1 ? "" : "s") to \(location)")
    }
}
