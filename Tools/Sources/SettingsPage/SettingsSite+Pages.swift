import DefaultsCommand
import Foundation
package import Preferences

extension SettingsSite {
    /// The list of the user's domains: those with a file, those a schema declares, and the
    /// global domain; `query` keeps only names containing it (the page filters as one types).
    package func listPage(query: String?) -> String {
        let files = context.files()
        var kinds: [String: String] = [:]
        for name in files.persistentDomainNames() + files.persistentDomainNames(currentHost: true) { kinds[name] = "" }
        let fileManager = FileManager.default
        for directory in files.schemaSearchPath.directories {
            for entry in (try? fileManager.contentsOfDirectory(atPath: directory)) ?? [] {
                let (name, kind) = entry.hasSuffix(".bundle") ? (String(entry.dropLast(7)), "Settings.bundle") : (String(entry.dropLast(6)), "schema")
                guard entry.hasSuffix(".bundle") || entry.hasSuffix(".plist"), (try? DomainName(name)) != nil, !name.hasPrefix(".") else { continue }
                if kinds[name]?.isEmpty ?? true { kinds[name] = kind }
            }
        }
        let needle = query?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        var items = "<li data-domain=\"\(PreferenceStore.globalDomain)\"><a href=\"/domains/\(PreferenceStore.globalDomain)\">Global domain</a> <span class=\"tag\">\(PreferenceStore.globalDomain)</span></li>"
        if !needle.isEmpty && !PreferenceStore.globalDomain.lowercased().contains(needle) && !"global domain".contains(needle) { items = "" }
        // A file named NSGlobalDomain.plist is not the global domain, listed first above.
        kinds[PreferenceStore.globalDomain] = nil
        for name in kinds.keys.sorted() where needle.isEmpty || name.lowercased().contains(needle) {
            let kind = kinds[name] ?? ""
            items += "<li\(HTML.attribute("data-domain", name))><a\(HTML.attribute("href", "/domains/" + HTML.pathSegment(name)))>\(HTML.escape(name))</a>"
            items += kind.isEmpty ? "" : " <span class=\"tag\">\(HTML.escape(kind))</span>"
            items += "</li>"
        }
        let body = """
            <header><h1>Settings</h1><p class="subtitle">Every preferences domain of this user. Pick one to see and change its settings.</p></header>
            <main><p><input id="domain-search" type="search" placeholder="Search domains" aria-label="Search domains"\(HTML.attribute("value", query))></p>
            <ul class="domains">\(items)</ul></main>
            """
        return SettingsHTML.document(title: "Settings", csrfToken: csrfToken, bodyAttributes: "", body: body)
    }

    /// A domain's page: pane `pane` of its Settings.bundle, or its native schema's groups, or
    /// (on the first pane) the keys no declaration describes as typed trees; then its history.
    package func domainPage(domain word: String, pane: String?) throws(PageError) -> String {
        let location = try location(word)
        let store = try store(for: location)
        let declaration = declaration(of: store)
        let paneName = pane ?? "Root"
        var title = location.description == PreferenceStore.globalDomain ? "Global domain" : location.description
        var crumbs = "<a href=\"/\">All domains</a> › <a\(HTML.attribute("href", domainPath(location)))>\(HTML.escape(location.description))</a>"
        var subtitle: String
        var sections = ""
        if let layout = declaration.layout {
            guard let shown = layout.pane(paneName) else { throw PageError(status: 404, "\(location) has no pane named \"\(paneName)\"") }
            if paneName != "Root" {
                title = shown.title ?? paneName
                crumbs += " › \(HTML.escape(title))"
            }
            subtitle = "Declared by the Settings.bundle \(layout.bundle)"
            sections = bundleSections(shown, layout: layout, declaration: declaration, store: store, location: location)
        } else {
            guard paneName == "Root" else { throw PageError(status: 404, "\(location) has no pane named \"\(paneName)\"") }
            if let schema = declaration.schema {
                subtitle = "Declared by the schema \(schema.path)"
                sections = schemaSections(schema, store: store)
            } else {
                subtitle = "No schema declares this domain: every key is shown as a typed tree."
            }
        }
        if paneName == "Root" { sections += otherKeysSection(location: location, declaration: declaration, store: store) }
        var warnings = ""
        if let problem = store.schemaProblem { warnings += "<p class=\"warning\">The domain's schema cannot be used: \(HTML.escape(problem.description))</p>" }
        for problem in declaration.layout?.problems ?? [] { warnings += "<p class=\"warning\">\(HTML.escape(problem.description)) (its words are not used)</p>" }
        for problem in store.fileProblems { warnings += "<p class=\"warning\">\(HTML.escape(problem.description))</p>" }
        let body = """
            <header><nav class="crumbs">\(crumbs)</nav><h1>\(HTML.escape(title))</h1><p class="subtitle">\(HTML.escape(subtitle))</p>
            <p id="live-status" aria-live="polite">Connecting…</p></header>
            <main>\(warnings)
            <form data-pane-form novalidate>\(sections)
            <div class="actions"><button type="submit" data-save>Save changes</button> <span class="help">Switches and choices apply at once; typed values apply with Save or Enter.</span></div>
            </form>
            \(historySection(location))
            \(ValueTree.templates)
            </main>
            """
        return SettingsHTML.document(
            title: "\(title) — Settings", csrfToken: csrfToken,
            bodyAttributes: HTML.attribute("data-domain", location.description) + HTML.attribute("data-pane", paneName), body: body)
    }

    /// The URL path of a domain's page.
    func domainPath(_ location: PersistentDomainLocation) -> String {
        "/domains/" + HTML.pathSegment(location.description)
    }

    /// A pane's specifiers as sections: a group opens one, a radio group is one of its own,
    /// a child pane is a link.
    func bundleSections(
        _ pane: SettingsPane, layout: SettingsBundleLayout, declaration: Declaration, store: PreferenceStore, location: PersistentDomainLocation
    ) -> String {
        var html = ""
        var open = false
        var footer: String?
        func close() {
            if open { html += (footer.map { "<p class=\"footer\">\(HTML.escape($0))</p>" } ?? "") + "</section>" }
            open = false
            footer = nil
        }
        func start(_ title: String?, _ words: String?) {
            close()
            html += "<section class=\"group\">" + (title.map { "<h2>\(HTML.escape($0))</h2>" } ?? "")
            open = true
            footer = words
        }
        for specifier in pane.specifiers {
            switch specifier.kind {
            case .group:
                start(specifier.title, specifier.footer)
            case .childPane:
                if !open { start(nil, nil) }
                let file = specifier.childPane ?? ""
                html += "<div class=\"setting link\"><a class=\"child\"\(HTML.attribute("data-pane", file))"
                html += HTML.attribute("href", domainPath(location) + "/panes/" + HTML.pathSegment(file))
                html += ">\(HTML.escape(specifier.title ?? file))<span aria-hidden=\"true\"> ›</span></a></div>"
            case .radioGroup:
                start(specifier.title, specifier.footer)
                html += rowHTML(specifier: specifier, declaration: declaration, store: store)
                close()
            default:
                if !open { start(nil, nil) }
                html += rowHTML(specifier: specifier, declaration: declaration, store: store)
            }
        }
        close()
        return html
    }

    /// A native schema's keys, a section per group (the ungrouped first), keys by name.
    func schemaSections(_ schema: PreferenceSchema, store: PreferenceStore) -> String {
        var groups: [String?] = []
        for key in schema.sortedKeys where !groups.contains(key.group) { groups.append(key.group) }
        groups.sort { ($0 == nil ? 0 : 1) < ($1 == nil ? 0 : 1) }
        var html = ""
        for group in groups {
            html += "<section class=\"group\">" + (group.map { "<h2>\(HTML.escape($0))</h2>" } ?? "")
            for key in schema.sortedKeys where key.group == group {
                var row = SettingRow(declaration: key)
                resolve(&row, in: store)
                html += SettingsHTML.row(row)
            }
            html += "</section>"
        }
        return html
    }

    /// The keys the domain's files hold that no declaration describes, as typed trees; it is
    /// always there on the first pane, so that a key another process adds can appear in it.
    func otherKeysSection(location: PersistentDomainLocation, declaration: Declaration, store: PreferenceStore) -> String {
        let keys = undeclaredKeys(location: location, declaration: declaration)
        let heading = declaration.schema == nil ? "Keys" : "Other keys"
        var html = "<section id=\"other-keys\" class=\"group\"><h2>\(heading)</h2>"
        if declaration.schema != nil { html += "<p class=\"help\">Keys the domain holds that its declaration does not describe.</p>" }
        html += "<div class=\"rows\">"
        for key in keys.sorted() { html += undeclaredRow(key, store: store) ?? "" }
        return html + "</div></section>"
    }

    /// The names in the domain's own files (and its by-host file) that are not declared.
    func undeclaredKeys(location: PersistentDomainLocation, declaration: Declaration) -> Set<String> {
        let files = context.files()
        var keys = Set((try? files.persistentDomainValues(at: location))??.keys.map { $0 } ?? [])
        if case let byHost? = try? PersistentDomainLocation.named(location.description, currentHost: true), location.description != PreferenceStore.globalDomain {
            keys.formUnion((try? files.persistentDomainValues(at: byHost))??.keys.map { $0 } ?? [])
        }
        if let schema = declaration.schema { keys.subtract(schema.keys.keys) }
        return keys
    }

    /// An undeclared key's row, nil when no layer holds it any more.
    func undeclaredRow(_ key: String, store: PreferenceStore) -> String? {
        var row = SettingRow(undeclared: key)
        resolve(&row, in: store)
        guard row.value != nil else { return nil }
        return SettingsHTML.row(row)
    }

    /// The row of a specifier's key, filled in from the store.
    func rowHTML(specifier: SettingsSpecifier, declaration: Declaration, store: PreferenceStore) -> String {
        var row = SettingRow(specifier: specifier, declaration: specifier.key.flatMap { declaration.schema?[$0] })
        resolve(&row, in: store)
        return SettingsHTML.row(row)
    }

    /// Fills in a row's value and where it comes from, from `store`.
    func resolve(_ row: inout SettingRow, in store: PreferenceStore) {
        row.resolve(sources(forKey: row.key, in: store), ownLayer: store.domain == PreferenceStore.globalDomain ? .global : .app)
    }

    /// The layers holding `key`, first wins, as the page of `store`'s domain counts them.
    ///
    /// The global domain's store is named NSGlobalDomain, so its own, by-host, system and
    /// managed layers are files of that name, which no program reads as the global domain:
    /// they are left out, and the global layer is the domain's own.
    func sources(forKey key: String, in store: PreferenceStore) -> [PreferenceSource] {
        let sources = store.sources(forKey: key)
        guard store.domain == PreferenceStore.globalDomain else { return sources }
        return sources.filter { ![.forced, .app, .byHost, .system].contains($0.layer) }
    }

    /// The row a key has on `pane`, as it is now: its HTML, "" when the key has no row there
    /// any more (an undeclared key removed), nil when the pane does not show the key.
    /// The store and declaration are the caller's, so a reply with many rows reads the
    /// domain's Settings.bundle once, not once a row.
    func currentRow(key: String, store: PreferenceStore, declaration: Declaration, pane: String) -> String? {
        if let layout = declaration.layout, let place = layout.place(ofKey: key) {
            return place.pane.file == pane ? rowHTML(specifier: place.specifier, declaration: declaration, store: store) : nil
        }
        if let declared = declaration.schema?[key] {
            guard pane == "Root" else { return nil }
            var row = SettingRow(declaration: declared)
            resolve(&row, in: store)
            return SettingsHTML.row(row)
        }
        guard pane == "Root" else { return nil }
        return undeclaredRow(key, store: store) ?? ""
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
        let store = try store(for: location)
        let declaration = declaration(of: store)
        var keys: [String] = []
        if let layout = declaration.layout {
            keys = layout.pane(pane)?.specifiers.compactMap { $0.kind == .childPane || $0.kind == .group ? nil : $0.key } ?? []
        } else if pane == "Root", let schema = declaration.schema {
            keys = schema.sortedKeys.map(\.name)
        }
        if pane == "Root" { keys += undeclaredKeys(location: location, declaration: declaration).sorted() }
        return keys
    }

    /// The history section of a domain, newest version first.
    package func historySection(_ location: PersistentDomainLocation) -> String {
        do throws(PreferencesError) {
            return SettingsHTML.history(try context.files().generations(at: location), problem: nil)
        } catch {
            return SettingsHTML.history([], problem: error.description)
        }
    }
}
