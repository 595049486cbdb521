/// A domain's page (one pane of it) as `domain.mustache` draws it.
struct DomainPage {
    /// The page's title: the pane's, then "Settings".
    var documentTitle: String
    /// The token the page's script sends with each change.
    var csrfToken: String
    /// The domain's name (`data-domain`, which the script sends changes to).
    var domain: String
    /// The pane's file name (`data-pane`), `Root` for the first.
    var pane: String
    /// The address of the domain's first pane.
    var domainPath: String
    /// The pane's title in the breadcrumbs, for a pane other than the first.
    var paneTitle: String?
    /// The page's heading.
    var heading: String
    /// What declares the domain, in words.
    var subtitle: String
    /// What is wrong with the domain's schema, bundle or files, in words.
    var warnings: [String]
    /// The pane's groups of settings.
    var sections: [PageSection]
    /// The keys no declaration describes, on the first pane.
    var otherKeys: OtherKeys?
    /// The domain's history.
    var history: HistoryMarkup
    /// The empty tree nodes the script copies when an element is added.
    var emptyNodes = TreeNodeMarkup.emptyNodes

    /// The keys the domain's files hold that no declaration describes.
    struct OtherKeys {
        /// "Keys", or "Other keys" beside a declaration.
        var title: String
        /// True when the domain has a declaration, which the section's help then mentions.
        var isBesideDeclaration: Bool
        /// The keys' rows, by key.
        var rows: [RowMarkup]
    }
}
