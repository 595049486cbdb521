
/// A Settings.bundle as the iOS Settings app shows it: its panes, each a list of groups,
/// controls and links, with the words to show looked up in the bundle's strings tables.
///
/// Titles, footers and choice titles are looked up in `<language>.lproj/<StringsTable>.strings`
/// for each of the given languages in turn (see ``StringsTable/preferredLanguages(environment:)``);
/// words no table has are shown as the bundle writes them. A pane without a `StringsTable`
/// is shown as written. A strings file that is missing is passed over; one that cannot be
/// read or parsed is passed over and named in ``problems``.
public struct SettingsBundleLayout: Sendable, Hashable {
    /// The bundle directory.
    public var bundle: String
    /// The panes, `Root` first, then in the order links first reach them.
    public var panes: [SettingsPane]
    /// Strings files that exist but could not be used.
    public var problems: [SchemaError]

    /// Reads the bundle at `bundle` (its directory) through `reader`, with words in the
    /// first of `languages` that has them.
    public init(bundle: String, languages: [String], reader: SchemaFileReader = .unchecked) throws(SchemaError) {
        var visitor = SettingsBundle.Visitor(bundle: bundle, reader: reader)
        try visitor.visit(file: "Root", chain: [])
        self.bundle = bundle
        problems = []
        var tables: [String: [StringsTable]] = [:]
        var panes = visitor.panes
        for index in panes.indices {
            guard let table = panes[index].stringsTable else { continue }
            if tables[table] == nil { tables[table] = Self.tables(named: table, in: bundle, languages: languages, reader: reader, problems: &problems) }
            let lookup = tables[table] ?? []
            func localized(_ words: String?) -> String? {
                guard let words else { return nil }
                return lookup.lazy.compactMap { $0[words] }.first ?? words
            }
            panes[index].title = localized(panes[index].title)
            for item in panes[index].specifiers.indices {
                panes[index].specifiers[item].title = localized(panes[index].specifiers[item].title)
                panes[index].specifiers[item].footer = localized(panes[index].specifiers[item].footer)
                panes[index].specifiers[item].titles = panes[index].specifiers[item].titles?.map { localized($0) ?? $0 }
            }
        }
        // A child pane without a title of its own is titled by the link that leads to it.
        for pane in panes {
            for link in pane.specifiers where link.kind == .childPane {
                if let child = panes.firstIndex(where: { $0.file == link.childPane }), panes[child].title == nil {
                    panes[child].title = link.title
                }
            }
        }
        self.panes = panes
    }

    /// The pane read from `<file>.plist`, if the bundle has it.
    public func pane(_ file: String) -> SettingsPane? {
        panes.first { $0.file == file }
    }

    /// The pane and group a key is shown in, and its specifier.
    public func place(ofKey key: String) -> (pane: SettingsPane, group: SettingsSpecifier?, specifier: SettingsSpecifier)? {
        for pane in panes {
            var group: SettingsSpecifier?
            for specifier in pane.specifiers {
                if specifier.kind == .group { group = specifier }
                if specifier.key == key { return (pane, group, specifier) }
            }
        }
        return nil
    }

    /// `schema` with this layout's words: each key's summary, group and choice titles as
    /// shown here (what `defaults describe` prints).
    public func localizing(_ schema: PreferenceSchema) -> PreferenceSchema {
        var schema = schema
        for pane in panes {
            var group: String?
            for specifier in pane.specifiers {
                if specifier.kind == .group { group = specifier.title }
                guard let name = specifier.key, var key = schema.keys[name] else { continue }
                key.summary = specifier.title
                key.group = group
                if key.choiceTitles != nil, let titles = specifier.titles { key.choiceTitles = titles }
                schema.keys[name] = key
            }
        }
        return schema
    }

    /// The tables named `name` for each language that has one, best first.
    private static func tables(
        named name: String, in bundle: String, languages: [String], reader: SchemaFileReader, problems: inout [SchemaError]
    ) -> [StringsTable] {
        // A table name is one path component, as a child pane's File is.
        guard !name.isEmpty, !name.contains("/"), name != ".", name != "..", !name.utf8.contains(0) else {
            problems.append(SchemaError(.malformed, path: bundle + "/Root.plist", keyPath: "StringsTable", "must name a strings file (one path component)"))
            return []
        }
        var found: [StringsTable] = []
        for language in languages {
            let path = "\(bundle)/\(language).lproj/\(name).strings"
            do throws(SchemaError) {
                found.append(try StringsTable(data: reader.read(path), path: path))
            } catch where error.code == .missingFile {
                continue
            } catch {
                problems.append(error)
            }
        }
        return found
    }
}
