import ArgumentParser
import DeclaredSettings
import Foundation
import Preferences

/// How `template` and `check` find the schema of the domain they are given: the one a
/// program of the domain on this machine would use, or a file named with `--schema`.
///
/// `--schema` is there because the administrator's machine often does not have the
/// application installed that the hosts have: the schema can then come from its package or
/// source tree without being installed.
struct SchemaOptions: ParsableArguments {
    /// `--schema`: a schema file to use instead of the domain's installed one.
    @Option(
        name: .customLong("schema"),
        help: ArgumentHelp(
            "A schema file (native <domain>.plist or a Settings.bundle) to use instead of the one installed here.",
            valueName: "path"))
    var schemaPath: String?

    /// What was looked up, for messages about a schema that was not found.
    struct Lookup {
        /// The schema, nil when none declares the domain.
        var schema: PreferenceSchema?
        /// Where it was looked for, as a sentence part: "looked for D.plist and D.bundle in: …".
        var searched: String
    }

    /// The schema of `domain`, with its Settings.bundle words in the user's language as
    /// `defaults describe` shows them.
    ///
    /// - Throws: ``FleetToolFailure`` when a schema exists but cannot be read, or `--schema`
    ///   names a file that is not one: a check against a schema nobody can read would say
    ///   nothing true about what hosts with it refuse.
    func lookup(domain: DomainName, files: PreferenceFiles) throws(FleetToolFailure) -> Lookup {
        if let schemaPath {
            do throws(SchemaError) {
                return Lookup(schema: localized(try PreferenceSchema(contentsOf: schemaPath), files: files), searched: schemaPath)
            } catch {
                throw FleetToolFailure("\(schemaPath): \(error.description)")
            }
        }
        let directories = files.schemaSearchPath.directories
        let searched = "looked for \(domain).plist and \(domain).bundle in: "
            + (directories.isEmpty ? "(no directories)" : directories.joined(separator: ", "))
        do throws(PreferencesError) {
            let found = try files.schema(for: PersistentDomainLocation.named(domain.rawValue))
            return Lookup(schema: found.map { localized($0, files: files) }, searched: searched)
        } catch {
            throw FleetToolFailure("\(domain): \(error.description)")
        }
    }

    /// `schema` with a Settings.bundle's titles looked up in its strings tables (they are keys
    /// into them), as the Settings app, `defaults describe` and the settings page show them.
    private func localized(_ schema: PreferenceSchema, files: PreferenceFiles) -> PreferenceSchema {
        guard schema.format == .settingsBundle, let bundle = PreferenceSchema.settingsBundleDirectory(of: schema.path) else { return schema }
        let languages = StringsTable.preferredLanguages(environment: files.configuration.environment)
        guard let layout = try? SettingsBundleLayout(bundle: bundle, languages: languages) else { return schema }
        return layout.localizing(schema)
    }
}

/// A domain argument checked as every domain name is, so a bad one is a usage error before
/// any file is looked at.
func checkedDomain(_ domain: String) throws -> DomainName {
    do throws(PreferencesError) {
        return try DomainName(domain)
    } catch {
        throw ValidationError(error.description)
    }
}

/// Why an administrator's subcommand (`template`, `check`) could not do its work: printed as
/// `Error: …` with exit status 1.
struct FleetToolFailure: Error, CustomStringConvertible {
    /// What went wrong, naming the file or domain.
    let description: String

    /// A failure saying `description`.
    init(_ description: String) {
        self.description = description
    }
}
