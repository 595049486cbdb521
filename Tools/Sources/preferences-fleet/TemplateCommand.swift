import ArgumentParser
import Preferences

/// `preferences-fleet template DOMAIN`: prints a policy file for the domain from its schema,
/// for an administrator to fill in, `check` and put.
struct TemplateCommand: ParsableCommand {
    /// The subcommand's name and help: what it prints, where the schema comes from, examples.
    static let configuration = CommandConfiguration(
        commandName: "template",
        abstract: "Print a policy file for a domain from its schema: every declared key, with its type, default, range or choices and description.",
        discussion: """
            The output is an XML property-list dictionary, ready to put under \
            <prefix>fleet/<domain> (or a group's or host's key) once filled in. Each declared \
            key is set to its default, under a comment giving its type, default, range or \
            choices, summary and details; every key left in the file is forced on the machines \
            the policy reaches, so delete those that users should set. Keys the schema gives \
            no default, and keys it declares private (secrets, which a policy in etcd would \
            show to whoever may read the fleet's keys), are described in a comment with an \
            entry to add, but not set. The file as printed passes `preferences-fleet check`.

            The schema is the one a program of the domain uses on this machine: <domain>.plist \
            or <domain>.bundle/Root.plist on $PREFERENCES_SCHEMA_PATH, else in \
            preferences/schemas under $XDG_DATA_HOME and $XDG_DATA_DIRS; or the file given \
            with --schema. Without one there is nothing to write: the command fails and names \
            where it looked. Nothing is read from etcd.

            Examples:
              preferences-fleet template com.example.app > app-policy.plist
              preferences-fleet template --schema build/com.example.app.plist com.example.app
            """)

    /// `--schema`.
    @OptionGroup var schemaOptions: SchemaOptions
    /// The domain whose schema the template is made from.
    @Argument(help: "The domain, such as com.example.app.")
    var domain: String

    /// Refuses a bad domain name as a usage error, before any file is read.
    func validate() throws {
        _ = try checkedDomain(domain)
    }

    /// Prints the template, or fails naming where the schema was looked for.
    func run() throws {
        let name = try checkedDomain(domain)
        let lookup = try schemaOptions.lookup(domain: name, files: PreferenceFiles())
        guard let schema = lookup.schema else {
            throw FleetToolFailure("no schema declares \(name), so there is no template to print; \(lookup.searched)")
        }
        print(PolicyTemplate(domain: name.rawValue, schema: schema).text, terminator: "")
    }
}
