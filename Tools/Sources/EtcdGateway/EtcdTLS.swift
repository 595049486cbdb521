/// The TLS files of an ``EtcdClient``: PEM files read once, when the client is created.
package struct EtcdTLS: Sendable {
    /// The CA certificates that sign the members' certificates; nil trusts the system's CAs.
    package var caFile: String?
    /// The client certificate (chain) to present, for etcd's `--client-cert-auth`; nil
    /// presents none.
    package var certificateFile: String?
    /// The private key of ``certificateFile``.
    package var keyFile: String?

    /// Creates the TLS settings from file paths.
    ///
    /// - Parameters:
    ///   - caFile: The CA certificates to trust in place of the system's.
    ///   - certificateFile: The client certificate to present.
    ///   - keyFile: Its private key.
    package init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}
