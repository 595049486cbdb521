import EtcdGateway
import Foundation
import EtcdTestSupport
import TestSupport
import Testing

/// HTTPS with client certificates (etcd's `--client-cert-auth`).
// Skipped where etcd or etcdctl is missing (Debian's etcd-server and etcd-client packages);
// openssl, which makes the certificates, comes with the same install script.
@Suite("etcd over TLS", .ownThread, .enabled(if: EtcdCluster.unavailableReason == nil))
struct EtcdTLSTests {
    @Test("with a client certificate get, put and watch work; with only the CA they fail") func clientCertificateIsRequired() async throws {
        let directory = try TemporaryDirectory()
        let files = try EtcdTLSFiles.generate(in: directory.url.path)
        let cluster = try await EtcdCluster.start(members: 1, tls: files)
        defer { cluster.shutdown() }
        #expect(cluster.clientURLs.allSatisfy { $0.hasPrefix("https://127.0.0.1:") })
        let revision = try cluster.put("tls/etcdctl", Data([1]))

        let withCertificate = EtcdTLS(caFile: files.caFile, certificateFile: files.clientCertificateFile, keyFile: files.clientKeyFile)
        try await withClient(cluster, tls: withCertificate) { client in
            #expect(try await client.get(key: "tls/etcdctl".bytes)?.modRevision == revision)
            let put = try await client.put(key: "tls/client".bytes, value: [2])
            let seen = try await events(2, from: client.watch(prefix: "tls/".bytes, fromRevision: revision))
            #expect(seen.map(\.keyValue.modRevision) == [revision, put])
        }

        // The server's certificate is trusted, but etcd refuses a client without its own.
        try await withClient(cluster, tls: EtcdTLS(caFile: files.caFile)) { client in
            await #expect {
                _ = try await client.get(key: "tls/etcdctl".bytes)
            } throws: { error in
                guard case EtcdError.unavailable = error else { return false }
                return true
            }
        }
    }
}
