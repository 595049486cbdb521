import EtcdGateway
import Foundation
import EtcdTestSupport
import TestSupport
import Testing

/// etcd's user and password authentication, and the renewal of a token etcd forgot.
// Skipped where etcd or etcdctl is missing (Debian's etcd-server and etcd-client packages).
@Suite("etcd authentication", .ownThread, .enabled(if: EtcdCluster.unavailableReason == nil))
struct EtcdAuthenticationTests {
    @Test("a right password works, a wrong one is refused, a forgotten token is renewed, a read-only user cannot put") func passwordsTokensAndPermissions() async throws {
        let cluster = try await EtcdCluster.start(members: 1)
        defer { cluster.shutdown() }
        try cluster.enableAuthentication(rootPassword: "root-secret")
        try cluster.addUser("reader", password: "reader-secret", readPrefix: "auth/")
        let revision = try cluster.put("auth/key", Data([1]))

        let recorder = LogRecorder()
        try await withClient(cluster, credentials: EtcdCredentials(user: "root", password: "root-secret"), logger: recorder.logger) {
            client in
            #expect(try await client.get(key: "auth/key".bytes)?.modRevision == revision)
            let put = try await client.put(key: "auth/key".bytes, value: [2])

            // etcd forgets every token; the client's next request and watch get a new one.
            try cluster.invalidateAuthenticationTokens()
            #expect(try await client.get(key: "auth/key".bytes)?.value == [2])
            #expect(recorder.recorded.contains { $0.contains("authenticating again") })

            try cluster.invalidateAuthenticationTokens()
            let seen = try await events(2, from: client.watch(prefix: "auth/".bytes, fromRevision: revision))
            #expect(seen.map(\.keyValue.modRevision) == [revision, put])
            #expect(recorder.recorded.filter { $0.contains("authenticating again") }.count == 2)
        }

        try await withClient(cluster, credentials: EtcdCredentials(user: "root", password: "wrong")) { client in
            await #expect {
                _ = try await client.get(key: "auth/key".bytes)
            } throws: { error in
                guard case EtcdError.authentication = error else { return false }
                return true
            }
        }

        // A user who may only read: reads work, a put is refused by etcd (not retried).
        let reader = EtcdCredentials(user: "reader", password: "reader-secret")
        try await withClient(cluster, credentials: reader) { (client: EtcdClient) async throws -> Void in
            #expect(try await client.range(prefix: "auth/".bytes).keyValues.count == 1)
            await #expect {
                _ = try await client.put(key: "auth/key".bytes, value: [3])
            } throws: { error in
                guard case EtcdError.server(_, let message) = error else { return false }
                return message.contains("permission denied")
            }
        }
    }
}
