package import Preferences

/// How the tool shows the value of a key declared private (``DeclaredKey/isPrivate``) where
/// values are printed for people or logs (`watch`, `explain`, `describe`): never the value.
/// `read` prints it, to the user who owns it; `export` leaves it out unless asked.
package enum PrivateValue {
    /// What is printed instead of a private value.
    package static let placeholder = "<private>"
}

extension DefaultsContext {
    /// The keys `location`'s schema declares private; none for files named by path, the
    /// global domain, domains without a schema and schemas that cannot be used.
    package func privateKeys(of location: PersistentDomainLocation) -> Set<String> {
        guard let schema = try? files().schema(for: location) else { return [] }
        return schema.privateKeys
    }
}
