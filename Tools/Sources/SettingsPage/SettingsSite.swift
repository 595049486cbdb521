package import DefaultsCommand
import Foundation
package import Preferences
import Synchronization

/// Everything the settings pages do, apart from HTTP: the pages of a user's domains, the
/// changes they ask for, undo and restore, and the live feed of changes.
///
/// Files are found as the library finds them (`PREFERENCES_HOME`, `PREFERENCES_SYSTEM_DIR`,
/// `PREFERENCES_SCHEMA_PATH` and the XDG variables of the environment given), so it serves
/// the domains of the user it runs as and no one else's. Reads go through one store per
/// domain, opened on first use and kept: the store's own observation feeds the live pages.
package final class SettingsSite: Sendable {
    /// How `defaults` finds files and turns domain words into locations: the same rules here.
    package let context: DefaultsContext
    /// The token every change must carry in its `X-CSRF-Token` header.
    package let csrfToken: String
    /// The languages words are looked up in, best first.
    package let languages: [String]
    /// One store per domain, by name.
    private let stores = Mutex<[String: PreferenceStore]>([:])
    /// The live feeds of the domains that have open pages.
    let feeds = LiveFeeds()

    /// Creates the site for the user of `environment`.
    package init(environment: [String: String], csrfToken: String) {
        context = DefaultsContext(currentHost: false, environment: environment)
        self.csrfToken = csrfToken
        languages = StringsTable.preferredLanguages(environment: environment)
    }

    /// The domain a URL names, checked as `defaults` checks a domain word. Paths are refused:
    /// the pages serve named domains only.
    package func location(_ word: String) throws(PageError) -> PersistentDomainLocation {
        guard !word.hasPrefix("/"), !word.hasPrefix("~"), !word.hasPrefix(".") else {
            throw PageError(status: 404, "invalid domain \"\(word)\": the settings pages serve domains by name, not files")
        }
        do throws(DefaultsFailure) {
            return try context.location(word)
        } catch {
            throw PageError(status: 404, error.message)
        }
    }

    /// The store of a domain, opened once.
    package func store(for location: PersistentDomainLocation) throws(PageError) -> PreferenceStore {
        let name = location.description
        if let store = stores.withLock({ $0[name] }) { return store }
        let store: PreferenceStore
        do throws(DefaultsFailure) {
            store = try context.store(for: name)
        } catch {
            throw PageError(status: 500, error.message)
        }
        // Two requests may open it at once: the first kept wins, so one store feeds the pages.
        return stores.withLock { stores in
            if let kept = stores[name] { return kept }
            stores[name] = store
            return store
        }
    }

    /// What a domain declares: its schema (the store's own, so the page and the store judge
    /// writes alike) and, for a Settings.bundle, its panes in the user's language.
    package func declaration(of store: PreferenceStore) -> Declaration {
        guard let schema = store.schema else { return Declaration(schema: nil, layout: nil) }
        guard schema.format == .settingsBundle, let bundle = PreferenceSchema.settingsBundleDirectory(of: schema.path) else {
            return Declaration(schema: schema, layout: nil)
        }
        return Declaration(schema: schema, layout: try? SettingsBundleLayout(bundle: bundle, languages: languages))
    }
}

/// A domain's declaration: the schema, and the bundle's panes when it is a Settings.bundle.
package struct Declaration: Sendable {
    /// The schema, if the domain has one.
    package var schema: PreferenceSchema?
    /// The panes, if the schema is a Settings.bundle that could be laid out.
    package var layout: SettingsBundleLayout?
}

/// A page or change that cannot be served: the HTTP status and the reason.
package struct PageError: Error, Sendable, Equatable {
    /// 400, 404, 409, 422 or 500.
    package var status: Int
    /// What went wrong, in words.
    package var message: String

    /// Creates an error.
    package init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}
