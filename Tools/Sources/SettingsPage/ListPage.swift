/// The list of the user's domains as `list.mustache` draws it.
struct ListPage {
    /// The page's title.
    var documentTitle = "Settings"
    /// The token the page's script sends with each change.
    var csrfToken: String
    /// What the search field holds.
    var query: String?
    /// The domains listed, in order.
    var domains: [Entry]

    /// One domain: its name, the address of its page, what the list calls it, and a tag:
    /// what declares it, or its name when it goes by another title.
    struct Entry {
        var name: String
        var path: String
        var title: String
        var tag: String?

        /// The entry of `listing`.
        init(_ listing: DomainListing) {
            name = listing.name
            path = PagePath.domain(listing.name)
            title = listing.title
            tag = listing.declaredBy ?? (listing.title == listing.name ? nil : listing.name)
        }
    }
}
