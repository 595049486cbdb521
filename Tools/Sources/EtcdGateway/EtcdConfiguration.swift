/// Where an ``EtcdClient`` finds etcd and how it proves who it is.
package struct EtcdConfiguration: Sendable {
    /// The members' client URLs, such as `http://127.0.0.1:2379` or `https://etcd-1:2379`.
    ///
    /// Each request tries them in turn, starting with the last one that answered, so a
    /// client stays on one member until it fails and then moves to the next.
    package var endpoints: [String]
    /// The CA and client certificate for `https` endpoints; nil trusts the system's CAs and
    /// presents no certificate.
    package var tls: EtcdTLS?
    /// A user and password for etcd's authentication; nil when etcd has it off (or accepts
    /// the client certificate's common name as the user).
    package var credentials: EtcdCredentials?
    /// How long a unary request (range, put, delete, compact, authenticate), or the creation
    /// of a watch, may take on one endpoint before the next is tried. A created watch has no
    /// limit: it lasts as long as the caller consumes it.
    package var requestTimeout: Duration

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - endpoints: The members' client URLs, tried in turn.
    ///   - tls: The CA and client certificate for `https` endpoints.
    ///   - credentials: A user and password when etcd has authentication on.
    ///   - requestTimeout: The limit of a unary request on one endpoint (5 seconds unless given).
    package init(
        endpoints: [String], tls: EtcdTLS? = nil, credentials: EtcdCredentials? = nil, requestTimeout: Duration = .seconds(5)
    ) {
        self.endpoints = endpoints
        self.tls = tls
        self.credentials = credentials
        self.requestTimeout = requestTimeout
    }
}
