import Foundation
import Preferences

extension SettingsSite {
    /// The list of the user's domains (see ``SettingsData/domains()``); `query` keeps only
    /// those whose name or title contains it (the page filters as one types).
    package func listPage(query: String?) -> String {
        let needle = query?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let domains = data.domains().filter { domain in
            needle.isEmpty || domain.name.lowercased().contains(needle) || domain.title.lowercased().contains(needle)
        }
        return PageTemplates.render(ListPage(csrfToken: csrfToken, query: query, domains: domains.map(ListPage.Entry.init)), .list)
    }

    /// A domain's page: pane `pane` of its Settings.bundle, or its native schema's groups, or
    /// (on the first pane) the keys no declaration describes as typed trees; then its history.
    package func domainPage(domain word: String, pane: String?) throws(PageError) -> String {
        let location = try data.location(word)
        let declaration = try data.declaration(of: location)
        let paneName = pane ?? "Root"
        var heading = data.title(of: location)
        var paneTitle: String?
        var subtitle: String
        var sections: [PageSection] = []
        if let layout = declaration.layout {
            guard let shown = layout.pane(paneName) else { throw PageError(status: 404, "\(location) has no pane named \"\(paneName)\"") }
            if paneName != "Root" {
                heading = shown.title ?? paneName
                paneTitle = heading
            }
            subtitle = "Declared by the Settings.bundle \(layout.bundle)"
            sections = try bundleSections(shown, declaration: declaration, location: location)
        } else {
            guard paneName == "Root" else { throw PageError(status: 404, "\(location) has no pane named \"\(paneName)\"") }
            if let schema = declaration.schema {
                subtitle = "Declared by the schema \(schema.path)"
                sections = try schemaSections(schema, location: location)
            } else {
                subtitle = "No schema declares this domain: every key is shown as a typed tree."
            }
        }
        var warnings: [String] = []
        if let problem = try data.schemaProblem(of: location) { warnings.append("The domain's schema cannot be used: \(problem.description)") }
        for problem in declaration.layout?.problems ?? [] { warnings.append("\(problem.description) (its words are not used)") }
        warnings += try data.fileProblems(of: location).map(\.description)
        let page = DomainPage(
            documentTitle: "\(heading) — Settings", csrfToken: csrfToken, domain: location.description, pane: paneName,
            domainPath: PagePath.domain(location.description), paneTitle: paneTitle, heading: heading, subtitle: subtitle,
            warnings: warnings, sections: sections,
            otherKeys: paneName == "Root" ? try otherKeys(location: location, declaration: declaration) : nil,
            history: history(location))
        return PageTemplates.render(page, .domain)
    }

    /// A pane's specifiers as sections: a group opens one, a radio group is one of its own,
    /// a child pane is a link.
    func bundleSections(_ pane: SettingsPane, declaration: Declaration, location: PersistentDomainLocation) throws(PageError) -> [PageSection] {
        var sections: [PageSection] = []
        var open: PageSection?
        func close() {
            if let section = open { sections.append(section) }
            open = nil
        }
        for specifier in pane.specifiers {
            switch specifier.kind {
            case .group:
                close()
                open = PageSection(heading: specifier.title, footer: specifier.footer)
            case .childPane:
                let file = specifier.childPane ?? ""
                let link = PageSection.Link(file: file, path: PagePath.pane(file, ofDomain: location.description), title: specifier.title ?? file)
                open = open ?? PageSection()
                open?.items.append(PageSection.Item(link: link))
            case .radioGroup:
                close()
                let row = try row(specifier: specifier, declaration: declaration, location: location)
                sections.append(PageSection(heading: specifier.title, items: [PageSection.Item(row: row)], footer: specifier.footer))
            default:
                let row = try row(specifier: specifier, declaration: declaration, location: location)
                open = open ?? PageSection()
                open?.items.append(PageSection.Item(row: row))
            }
        }
        close()
        return sections
    }

    /// A native schema's keys, a section per group (the ungrouped first), keys by name.
    func schemaSections(_ schema: PreferenceSchema, location: PersistentDomainLocation) throws(PageError) -> [PageSection] {
        var groups: [String?] = []
        for key in schema.sortedKeys where !groups.contains(key.group) { groups.append(key.group) }
        groups.sort { ($0 == nil ? 0 : 1) < ($1 == nil ? 0 : 1) }
        var sections: [PageSection] = []
        for group in groups {
            var section = PageSection(heading: group)
            for key in schema.sortedKeys where key.group == group {
                section.items.append(PageSection.Item(row: try row(SettingRow(declaration: key), location: location)))
            }
            sections.append(section)
        }
        return sections
    }

    /// The keys the domain's files hold that no declaration describes, as typed trees; it is
    /// always there on the first pane, so that a key another process adds can appear in it.
    func otherKeys(location: PersistentDomainLocation, declaration: Declaration) throws(PageError) -> DomainPage.OtherKeys {
        var rows: [RowMarkup] = []
        for key in undeclaredKeys(location: location, declaration: declaration).sorted() {
            if let row = try undeclaredRow(key, location: location) { rows.append(row) }
        }
        return DomainPage.OtherKeys(title: declaration.schema == nil ? "Keys" : "Other keys", isBesideDeclaration: declaration.schema != nil, rows: rows)
    }

    /// The names in the domain's own files (and its by-host file) that are not declared.
    func undeclaredKeys(location: PersistentDomainLocation, declaration: Declaration) -> Set<String> {
        var keys = data.storedKeys(at: location)
        if let schema = declaration.schema { keys.subtract(schema.keys.keys) }
        return keys
    }

    /// An undeclared key's row, nil when no layer holds it any more.
    func undeclaredRow(_ key: String, location: PersistentDomainLocation) throws(PageError) -> RowMarkup? {
        var setting = SettingRow(undeclared: key)
        try resolve(&setting, at: location)
        return setting.value == nil ? nil : RowMarkup(setting)
    }

    /// The row of a specifier's key, filled in from the domain.
    func row(specifier: SettingsSpecifier, declaration: Declaration, location: PersistentDomainLocation) throws(PageError) -> RowMarkup {
        try row(SettingRow(specifier: specifier, declaration: specifier.key.flatMap { declaration.schema?[$0] }), location: location)
    }

    /// `setting`'s row, its value filled in from the domain.
    func row(_ setting: SettingRow, location: PersistentDomainLocation) throws(PageError) -> RowMarkup {
        var setting = setting
        try resolve(&setting, at: location)
        return RowMarkup(setting)
    }

    /// Fills in a row's value and where it comes from.
    func resolve(_ setting: inout SettingRow, at location: PersistentDomainLocation) throws(PageError) {
        setting.resolve(try data.sources(forKey: setting.key, at: location), ownLayer: data.ownLayer(of: location))
    }

    /// The row a key has on `pane`, as it is now: its HTML, "" when the key has no row there
    /// any more (an undeclared key removed), nil when the pane does not show the key.
    /// The declaration is the caller's, so a reply with many rows reads the domain's
    /// Settings.bundle once, not once a row.
    func currentRow(key: String, declaration: Declaration, location: PersistentDomainLocation, pane: String) throws(PageError) -> String? {
        if let layout = declaration.layout, let place = layout.place(ofKey: key) {
            guard place.pane.file == pane else { return nil }
            return PageTemplates.render(try row(specifier: place.specifier, declaration: declaration, location: location), .row)
        }
        if let declared = declaration.schema?[key] {
            guard pane == "Root" else { return nil }
            return PageTemplates.render(try row(SettingRow(declaration: declared), location: location), .row)
        }
        guard pane == "Root" else { return nil }
        return try undeclaredRow(key, location: location).map { PageTemplates.render($0, .row) } ?? ""
    }

    /// Every key a pane shows with a row now, then those of `earlier` (the keys it showed
    /// before a change) it no longer shows: an undo or restore that takes an undeclared key
    /// away replies with that key's row empty, so the page drops it.
    func keys(onPane pane: String, location: PersistentDomainLocation, andThen earlier: [String]) throws(PageError) -> [String] {
        let now = try keys(onPane: pane, location: location)
        let shown = Set(now)
        return now + earlier.filter { !shown.contains($0) }
    }

    /// Every key a pane shows with a row.
    func keys(onPane pane: String, location: PersistentDomainLocation) throws(PageError) -> [String] {
        let declaration = try data.declaration(of: location)
        var keys: [String] = []
        if let layout = declaration.layout {
            keys = layout.pane(pane)?.specifiers.compactMap { $0.kind == .childPane || $0.kind == .group ? nil : $0.key } ?? []
        } else if pane == "Root", let schema = declaration.schema {
            keys = schema.sortedKeys.map(\.name)
        }
        if pane == "Root" { keys += undeclaredKeys(location: location, declaration: declaration).sorted() }
        return keys
    }

    /// The history of a domain, newest version first.
    func history(_ location: PersistentDomainLocation) -> HistoryMarkup {
        do throws(PreferencesError) {
            return HistoryMarkup(try data.generations(at: location), problem: nil)
        } catch {
            return HistoryMarkup([], problem: error.description)
        }
    }

    /// The history section of a domain as HTML, as replies and live events send it.
    func historySection(_ location: PersistentDomainLocation) -> String {
        PageTemplates.render(history(location), .history)
    }
}
