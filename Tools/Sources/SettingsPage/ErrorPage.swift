/// The page of a request that could not be served, as `error.mustache` draws it: the status
/// and why, and (for a page the site could not make) a link back to the list.
package struct ErrorPage: Sendable {
    /// The status code and its reason phrase: "404 Not Found".
    var status: String
    /// Why, in words.
    var message: String
    /// True for an error of the site, false for a refusal of the access guard, which links
    /// nothing because nothing else would be served either.
    var linksBack: Bool

    /// The page of status `code` (`reason` its phrase), saying `message`.
    package init(code: Int, reason: String, message: String, linksBack: Bool) {
        status = "\(code) \(reason)"
        self.message = message
        self.linksBack = linksBack
    }

    /// The page's HTML.
    package var html: String {
        PageTemplates.render(self, .error)
    }
}
