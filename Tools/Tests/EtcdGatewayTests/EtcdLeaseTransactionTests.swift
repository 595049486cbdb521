import EtcdGateway
import Foundation
import EtcdTestSupport
import TestSupport
import Testing

/// Leases, transactions and key ranges through the gateway, as the fleet loop uses them: a
/// host's statuses go with its lease, a rollout's progress changes only by compare-and-set,
/// and a follower reads and watches only the policy part of the prefix.
// Skipped where etcd or etcdctl is missing (Debian's etcd-server and etcd-client packages).
@Suite("etcd leases, transactions and ranges", .enabled(if: EtcdCluster.unavailableReason == nil), .sharedEtcdCluster)
struct EtcdLeaseTransactionTests {
    @Test("a key put with a lease lives while it is kept alive and goes when it is revoked") func leaseKeepAliveAndRevoke() async throws {
        let cluster = try SharedEtcdCluster.cluster()
        let key = (uniquePrefix("lease") + "status").bytes
        try await withClient(cluster) { client in
            // The lease's time is how long the test may stall between the keep-alive and the
            // read after it without etcd rightly expiring the key: a minute, as the test
            // revokes it anyway (RELIABILITY.md, bug 12).
            let lease = try await client.grantLease(seconds: 60)
            #expect(lease.id != 0)
            #expect(lease.seconds >= 60)
            try await client.put(key: key, value: "up".bytes, lease: lease)
            #expect(try await client.keepAlive(lease) >= 60)
            #expect(try await client.get(key: key)?.value == "up".bytes)
            try await client.revoke(lease)
            #expect(try await client.get(key: key) == nil)
            // Gone: a keep-alive says so with 0, a second revoke is no error, a put refuses it.
            #expect(try await client.keepAlive(lease) == 0)
            try await client.revoke(lease)
            await #expect(throws: EtcdError.self) { try await client.put(key: key, value: "again".bytes, lease: lease) }
            #expect(try await client.get(key: key) == nil)
        }
    }

    @Test("a lease nobody keeps alive expires and takes its keys with it") func leaseExpires() async throws {
        let cluster = try SharedEtcdCluster.cluster()
        let key = (uniquePrefix("expiry") + "status").bytes
        try await withClient(cluster) { client in
            // etcd raises a TTL below its minimum (1.5 election timeouts; 0.75 s here) to it.
            let lease = try await client.grantLease(seconds: 1)
            try await client.put(key: key, value: "up".bytes, lease: lease)
            // A bounded wait for the expiry (etcd checks leases every 500 ms), not a timing check.
            let deadline = ContinuousClock.now + .seconds(30)
            while try await client.get(key: key) != nil && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(try await client.get(key: key) == nil, "the key outlived its lease")
            #expect(try await client.keepAlive(lease) == 0)
        }
    }

    @Test("a transaction runs its operations only when every comparison holds, at one revision") func compareAndSet() async throws {
        let cluster = try SharedEtcdCluster.cluster()
        let prefix = uniquePrefix("txn")
        let document = (prefix + "rollout").bytes, policy = (prefix + "policy").bytes
        try await withClient(cluster) { client in
            // Create only if absent: the first wins, the second sees the key and changes nothing.
            let created = try await client.transaction(if: [.absent(key: document)], then: [.put(key: document, value: "1".bytes)])
            #expect(created.succeeded)
            let again = try await client.transaction(if: [.absent(key: document)], then: [.put(key: document, value: "2".bytes)])
            #expect(!again.succeeded)
            #expect(try await client.get(key: document)?.value == "1".bytes)

            // Compare the revision: a stale one fails (and runs the else branch), the current one
            // puts two keys and deletes none at one revision.
            let stale = try await client.transaction(
                if: [.modRevision(key: document, equals: created.revision - 1)], then: [.put(key: document, value: "x".bytes)],
                else: [.put(key: policy, value: "else".bytes)])
            #expect(!stale.succeeded)
            #expect(try await client.get(key: policy)?.value == "else".bytes)
            let current = try #require(try await client.get(key: document)).modRevision
            let done = try await client.transaction(
                if: [.modRevision(key: document, equals: current)],
                then: [.put(key: document, value: "3".bytes), .delete(key: policy)])
            #expect(done.succeeded)
            let stored = try #require(try await client.get(key: document))
            #expect(stored.value == "3".bytes)
            #expect(stored.modRevision == done.revision)
            #expect(try await client.get(key: policy) == nil)
        }
    }

    @Test("a range and a watch from a key to a range end leave out the keys at and past the end") func boundedRangeAndWatch() async throws {
        let cluster = try SharedEtcdCluster.cluster()
        let prefix = uniquePrefix("bounded")
        let inside = (prefix + "fleet/a").bytes, past = (prefix + "status/h/a").bytes
        try await withClient(cluster) { client in
            let start = try await client.put(key: inside, value: "1".bytes)
            try await client.put(key: past, value: "s".bytes)
            let range = try await client.range(from: prefix.bytes, to: (prefix + "status/").bytes)
            #expect(range.keyValues.map(\.key) == [inside])

            let last = try await client.put(key: inside, value: "2".bytes)
            var seen: [[UInt8]] = []
            for try await response in client.watch(from: prefix.bytes, to: (prefix + "status/").bytes, fromRevision: start) {
                seen += response.events.map(\.keyValue.key)
                if response.events.contains(where: { $0.keyValue.modRevision == last }) { break }
            }
            #expect(seen == [inside, inside])
        }
    }
}
