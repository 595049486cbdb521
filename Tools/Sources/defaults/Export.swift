import ArgumentParser
import DefaultsCommand
import Foundation
import Preferences
import PropertyList

/// `defaults export domain path|-`.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a domain to a file or, for -, to standard output.",
        discussion: """
            By default a file gets a binary property list and standard output XML, as on macOS. \
            JSON is for reading only: dates become ISO 8601 strings and data base64. Keys the \
            domain's schema declares private (tokens, addresses) are left out, and named on \
            standard error, unless --include-private is given.

            Examples:
              defaults export com.example.app backup.plist
              defaults export --format json com.example.app -
            """
    )

    @OptionGroup var host: HostOptions
    @Option(help: "xml, binary or json.") var format: ExportFormat?
    @Flag(help: "The same as --format json.") var json = false
    @Flag(help: "Include the values of keys the domain's schema declares private.") var includePrivate = false
    @Argument(help: "The domain.") var domain: String
    @Argument(help: "The file, or - for standard output.") var path: String

    func run() throws {
        let context = DefaultsContext(currentHost: host.currentHost)
        let location = try context.location(domain)
        guard var values = try context.values(at: location, in: context.files()) else {
            throw DefaultsFailure.missingDomain(location.description)
        }
        if !includePrivate {
            let left = context.privateKeys(of: location).intersection(values.keys).sorted()
            for key in left { values[key] = nil }
            if !left.isEmpty {
                Output.error("Left out the private key\(left.count == 1 ? "" : "s") \(left.joined(separator: ", ")); --include-private includes \(left.count == 1 ? "it" : "them")")
            }
        }
        let chosen = json ? .json : format ?? (path == "-" ? .xml : .binary)
        let bytes: [UInt8]
        switch chosen {
        case .xml: bytes = XMLPropertyListEncoder().encode(.dictionary(values))
        case .json: bytes = Array((JSONText.encode(.dictionary(values)) + "\n").utf8)
        case .binary:
            do throws(PropertyListError) {
                bytes = try BinaryPropertyListEncoder().encode(.dictionary(values))
            } catch {
                throw DefaultsFailure("\(location) cannot be written as a binary property list: \(error)")
            }
        }
        if path == "-" {
            Output.bytes(bytes)
            return
        }
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
            // Preferences can hold tokens and paths: the export is as private as the domain
            // file it came from (0600), not readable by everyone as a new file would be.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        } catch {
            throw DefaultsFailure("cannot write \(path): \(error.localizedDescription)")
        }
    }
}
