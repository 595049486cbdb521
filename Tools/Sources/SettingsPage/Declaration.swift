package import DeclaredSettings

/// A domain's declaration: the schema, and the bundle's panes when it is a Settings.bundle.
package struct Declaration: Sendable {
    /// The schema, if the domain has one.
    package var schema: PreferenceSchema?
    /// The panes, if the schema is a Settings.bundle that could be laid out.
    package var layout: SettingsBundleLayout?
}
