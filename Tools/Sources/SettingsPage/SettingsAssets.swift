/// The pages' script and style sheet, served as they are as `/assets/settings.js` and
/// `/assets/settings.css`: `Resources/settings.js` and `Resources/settings.css`, compiled
/// into the binary so an installed `preferences-settings` needs nothing beside it. The pages
/// allow no inline script or style (see the server's Content-Security-Policy), so these are
/// all the code a page runs.
package enum SettingsAssets {
    /// The script: search on the list page; on a domain page, changes sent as transactions,
    /// refusals shown beside their controls, rows kept live from Server-Sent Events.
    package static var script: [UInt8] { PackageResources.settings_js }

    /// The style sheet: grouped rows in the manner of the iOS Settings app, light and dark.
    package static var styleSheet: [UInt8] { PackageResources.settings_css }
}
