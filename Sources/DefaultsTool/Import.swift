import ArgumentParser
import DefaultsCommand
import Foundation
import Preferences

/// `defaults import domain path|-`.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Replace a domain with a property-list file (binary, XML or old-style text), or standard input for -.")

    @OptionGroup var host: HostOptions
    @Argument(help: "The domain.") var domain: String
    @Argument(help: "The file, or - for standard input.") var path: String

    func run() throws {
        let context = DefaultsContext(currentHost: host.currentHost)
        let location = try context.location(domain)
        let bytes: [UInt8]
        if path == "-" {
            bytes = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        } else {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw DefaultsFailure("cannot read \(path): no such readable file; nothing was changed")
            }
            bytes = [UInt8](data)
        }
        let source = path == "-" ? "standard input" : path
        guard case .dictionary(var values) = try PropertyListText.document(bytes, source: source) else {
            throw DefaultsFailure("\(source) does not hold a dictionary, so it cannot be a domain; nothing was changed")
        }
        let files = context.files()
        if let schema = Write.schema(for: location, in: files),
            let violation = DeclaredValueText.check(&values, against: schema)
        {
            throw DeclaredValueText.refusal(violation, domain: location.description)
        }
        do throws(PreferencesError) {
            try files.replacePersistentDomain(values, at: location)
        } catch {
            throw DefaultsContext.failure(error, domain: location.description)
        }
    }
}
