/// A user name and password for etcd's authentication. The client exchanges them for a token
/// (`/v3/auth/authenticate`) and does so again when etcd says the token is no longer valid.
package struct EtcdCredentials: Sendable {
    /// The etcd user.
    package var user: String
    /// The user's password.
    package var password: String

    /// Creates credentials.
    ///
    /// - Parameters:
    ///   - user: The etcd user.
    ///   - password: The user's password.
    package init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}
