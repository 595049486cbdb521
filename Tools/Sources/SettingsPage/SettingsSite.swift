/// Everything the settings pages do, apart from HTTP: the pages of a user's domains, the
/// changes they ask for, undo and restore, and the live feed of changes.
///
/// Pages are drawn from the templates in `Resources/Templates` (``PageTemplates``) and read
/// and write the user's preferences through ``SettingsData`` alone.
package final class SettingsSite: Sendable {
    /// The user's preferences, as the pages see them.
    let data: SettingsData
    /// The token every change must carry in its `X-CSRF-Token` header.
    package let csrfToken: String
    /// The live feeds of the domains that have open pages.
    let feeds = LiveFeeds()

    /// Creates the site for the user of `environment`.
    package init(environment: [String: String], csrfToken: String) {
        data = SettingsData(environment: environment)
        self.csrfToken = csrfToken
    }
}
