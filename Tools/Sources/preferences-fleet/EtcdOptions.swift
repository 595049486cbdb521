import ArgumentParser
import EtcdGateway
import Foundation
import Logging

/// How every subcommand that talks to etcd finds it and proves who it is.
struct EtcdOptions: ParsableArguments {
    @Option(help: "etcd client URLs, comma-separated (http:// or https://).")
    var endpoints: String
    @Option(help: "The etcd key prefix of the fleet layout.")
    var prefix = "/preferences/"
    @Option(help: "A PEM file of the certificate authorities that sign etcd's certificate.")
    var cacert: String?
    @Option(help: "A PEM client certificate, for etcd's --client-cert-auth.")
    var cert: String?
    @Option(help: "The client certificate's PEM private key.")
    var key: String?
    @Option(help: "An etcd user, for etcd authentication.")
    var user: String?
    @Option(help: "A file holding the etcd user's password (never given on the command line).")
    var passwordFile: String?

    func validate() throws {
        guard !endpointList.isEmpty else { throw ValidationError("--endpoints names no URL") }
        for endpoint in endpointList where !(endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://")) {
            throw ValidationError("\(endpoint) is not an http:// or https:// URL")
        }
        guard (cert == nil) == (key == nil) else { throw ValidationError("--cert and --key go together") }
        guard (user == nil) == (passwordFile == nil) else { throw ValidationError("--user and --password-file go together") }
        guard !prefix.isEmpty else { throw ValidationError("--prefix cannot be empty") }
    }

    var endpointList: [String] {
        endpoints.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A client for these endpoints and credentials; the caller shuts it down.
    func makeClient(logger: Logger) throws -> EtcdClient {
        var credentials: EtcdCredentials?
        if let user, let passwordFile {
            guard let password = FileManager.default.contents(atPath: passwordFile) else {
                throw ValidationError("the password file \(passwordFile) cannot be read")
            }
            credentials = EtcdCredentials(
                user: user, password: String(decoding: password, as: UTF8.self).trimmingCharacters(in: .newlines))
        }
        let tls = cacert != nil || cert != nil ? EtcdTLS(caFile: cacert, certificateFile: cert, keyFile: key) : nil
        return try EtcdClient(
            configuration: EtcdConfiguration(endpoints: endpointList, tls: tls, credentials: credentials), logger: logger)
    }
}

extension EtcdClient {
    /// Runs `body` with this client and shuts it down on every path (AsyncHTTPClient wants
    /// it before the client goes).
    func using<Result>(_ body: (EtcdClient) async throws -> Result) async throws -> Result {
        let result: Result
        do {
            result = try await body(self)
        } catch {
            try? await shutdown()
            throw error
        }
        try await shutdown()
        return result
    }
}
