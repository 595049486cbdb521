import ArgumentParser
import DeclaredSettings
import FleetPolicy
import Foundation
import Glibc
import Preferences
import PropertyList

/// `preferences-fleet check DOMAIN FILE`: checks a policy file against the domain's schema
/// before it is put, with the words a host would report in its status.
struct CheckCommand: ParsableCommand {
    /// The subcommand's name and help: what it prints, where the schema comes from, examples.
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a policy file against a domain's schema before it is put, with the reasons a host would report.",
        discussion: """
            FILE (- for standard input) is read as a host reads the etcd value: an XML or \
            binary property-list dictionary within the size limit of a domain (1 MiB unless \
            configured otherwise). Each value is then checked against the domain's schema \
            exactly as a host checks it before applying it, and each refused key is printed \
            on a line of its own in the words the host's status gives in its reasons \
            ("Volume must be at most 100, not 120"); a private key's value is shown as \
            <private>. A host keeps a refused key's previous value. Keys the schema does not \
            declare are taken by hosts as they are; they are named, in case one is misspelt.

            The schema is the one a program of the domain uses on this machine \
            (<domain>.plist or <domain>.bundle on $PREFERENCES_SCHEMA_PATH, else in \
            preferences/schemas under $XDG_DATA_HOME and $XDG_DATA_DIRS), or the file given \
            with --schema. Without one, nothing can be refused: the file is still checked to \
            be a policy, the output says that no schema was found and where it was looked \
            for, and the exit status is 0, since a host without a schema takes every value. \
            To check against the schema your hosts have, give it with --schema.

            Exit status: 0 when every value would be taken; 1 when a value would be refused, \
            the file is not a policy, or the file or schema cannot be read.

            --json prints {"valid":…,"reasons":[{"key":…,"reason":…}],…}, the shape of a \
            host's status; a file that is not a policy is one reason whose key is FILE.

            Examples:
              preferences-fleet check com.example.app app-policy.plist
              preferences-fleet template com.example.app | preferences-fleet check com.example.app -
              preferences-fleet check --json --schema build/com.example.app.plist com.example.app app-policy.plist
            """)

    /// `--schema`.
    @OptionGroup var schemaOptions: SchemaOptions
    /// `--json`: the result in a host status's shape.
    @Flag(help: "Print the result as JSON, in the shape of a host's status.")
    var json = false
    /// The domain whose schema the file is checked against.
    @Argument(help: "The domain, such as com.example.app.")
    var domain: String
    /// The policy file, `-` for standard input.
    @Argument(help: ArgumentHelp("The policy file; - reads standard input.", valueName: "file"))
    var file: String

    /// Refuses a bad domain name as a usage error, before any file is read.
    func validate() throws {
        _ = try checkedDomain(domain)
    }

    /// Checks the file and prints the result; exits 1 when anything would be refused.
    func run() throws {
        let name = try checkedDomain(domain)
        let files = PreferenceFiles()
        // The schema first: a schema that cannot be read fails the check before the file is
        // judged, whatever the file holds.
        let lookup = try schemaOptions.lookup(domain: name, files: files)
        let bytes = try Self.contents(of: file)
        let shownFile = file == "-" ? "standard input" : file
        let policy: [String: PropertyListValue]
        do throws(FleetValueError) {
            policy = try FleetPolicy.policyValues(decoding: bytes, sizeLimit: files.configuration.sizeLimit)
        } catch {
            // Refused whole, as a host refuses the etcd value: its status names the etcd key.
            let report = CheckReport(
                domain: name.rawValue, schema: lookup.schema?.path, reasons: [FleetStatus.Reason(key: file, reason: error.reason)], undeclared: [])
            if json {
                try report.printJSON()
            } else {
                print("\(shownFile): not a policy: \(error.reason); a host refuses it whole and keeps its previous policy")
            }
            throw ExitCode.failure
        }

        let validation = FleetValidation(policy: policy, schema: lookup.schema)
        let undeclared = lookup.schema.map { schema in policy.keys.filter { schema[$0] == nil }.sorted() } ?? []
        let report = CheckReport(domain: name.rawValue, schema: lookup.schema?.path, reasons: validation.reasons, undeclared: undeclared)
        if json {
            try report.printJSON()
        } else {
            report.printText(file: shownFile, valueCount: policy.count, searched: lookup.searched)
        }
        if !validation.isValid { throw ExitCode.failure }
    }

    /// The bytes of `path`, or of standard input for `-`.
    ///
    /// - Throws: ``FleetToolFailure`` naming the file and the system's reason (no such
    ///   file, permission denied, a directory).
    static func contents(of path: String) throws(FleetToolFailure) -> [UInt8] {
        guard path != "-" else { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FleetToolFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw FleetToolFailure("cannot read \(path): \(String(cString: strerror(errno)))")
            }
            bytes += buffer[..<count]
        }
    }
}

/// What `check` found: the refused keys in a host status's shape, and what only the
/// administrator is told (the schema used, keys it does not declare).
struct CheckReport: Encodable {
    /// The domain checked.
    var domain: String
    /// The schema's file, nil when no schema declares the domain.
    var schema: String?
    /// True when a host would take every value.
    var valid: Bool { reasons.isEmpty }
    /// Each refused key and why, as a host's status gives them.
    var reasons: [FleetStatus.Reason]
    /// Keys in the policy the schema does not declare, sorted: taken as they are.
    var undeclared: [String]

    /// The JSON keys; `valid` is computed, so it is listed by hand.
    private enum CodingKeys: String, CodingKey {
        case domain, schema, valid, reasons, undeclared
    }

    /// Encodes every field, `schema` as `null` when there is none, so a script can tell "no
    /// schema" from a missing field.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(domain, forKey: .domain)
        try container.encode(schema, forKey: .schema)
        try container.encode(valid, forKey: .valid)
        try container.encode(reasons, forKey: .reasons)
        try container.encode(undeclared, forKey: .undeclared)
    }

    /// Prints the report as one line of JSON, with the fleet loop's encoder (sorted keys).
    func printJSON() throws {
        print(String(decoding: try FleetJSON.encode(self), as: UTF8.self))
    }

    /// Prints each reason on a line of its own, each undeclared key, and a summary line.
    func printText(file: String, valueCount: Int, searched: String) {
        for reason in reasons { print(reason.reason) }
        for key in undeclared {
            print("note: \(key) is not declared by the schema: hosts take it as it is")
        }
        let values = "\(valueCount) value\(valueCount == 1 ? "" : "s")"
        guard let schema else {
            print("\(file): a policy of \(values) for \(domain), not checked: no schema declares \(domain) here (\(searched)); a host without a schema takes every value")
            return
        }
        if valid {
            print("\(file): OK: a host with the schema \(schema) takes all \(values) for \(domain)")
        } else {
            print("\(file): \(reasons.count) of \(values) for \(domain) refused by the schema \(schema); a host keeps each refused key's previous value")
        }
    }
}
