/// A domain on the list of domains.
package struct DomainListing: Sendable, Equatable {
    /// The domain's name.
    package var name: String
    /// What the list calls it.
    package var title: String
    /// What declares it, if a schema on the search path does: "schema" or "Settings.bundle".
    package var declaredBy: String?
}
