/// A group of settings on a page as `section.mustache` draws it: a heading, rows and links
/// to child panes in the order declared, and a footer.
struct PageSection {
    /// The group's title.
    var heading: String?
    /// Its rows and links.
    var items: [Item] = []
    /// The words under it.
    var footer: String?

    /// A row, or a link to a child pane.
    struct Item {
        var row: RowMarkup?
        var link: Link?
    }

    /// A link to a child pane: its file (`data-pane`), its address and its title.
    struct Link {
        var file: String
        var path: String
        var title: String
    }
}
