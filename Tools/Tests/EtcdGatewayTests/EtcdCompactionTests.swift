import EtcdGateway
import Foundation
import EtcdTestSupport
import TestSupport
import Testing

/// A watch from a compacted revision. Its own cluster: compaction removes history every
/// other test on a shared cluster might be watching.
// Skipped where etcd or etcdctl is missing (Debian's etcd-server and etcd-client packages).
@Suite("etcd compaction", .ownThread, .enabled(if: EtcdCluster.unavailableReason == nil))
struct EtcdCompactionTests {
    @Test("a watch from a compacted revision ends with compacted and the compact revision") func watchFromCompactedRevisionThrowsCompacted() async throws {
        let cluster = try await EtcdCluster.start(members: 1)
        defer { cluster.shutdown() }
        try await withClient(cluster) { client in
            let first = try await client.put(key: "compact/a".bytes, value: [1])
            try await client.put(key: "compact/b".bytes, value: [2])
            let third = try await client.put(key: "compact/c".bytes, value: [3])
            try await client.compact(revision: third)

            await #expect {
                try await withinBound("the compacted watch's end") {
                    for try await _ in client.watch(prefix: "compact/".bytes, fromRevision: first) {}
                }
            } throws: { error in
                guard case EtcdError.compacted(let compactRevision) = error else { return false }
                return compactRevision == third
            }

            // From the compact revision on, the history is still there.
            let remaining = try await events(1, from: client.watch(prefix: "compact/".bytes, fromRevision: third))
            #expect(remaining.map(\.keyValue.modRevision) == [third])
        }
    }

    /// The harness compacts as the client does.
    @Test("a compaction made with etcdctl is seen the same way") func harnessCompacts() async throws {
        let cluster = try await EtcdCluster.start(members: 1)
        defer { cluster.shutdown() }
        let first = try cluster.put("compact/x", Data([1]))
        let second = try cluster.put("compact/x", Data([2]))
        try cluster.compact(second)
        try await withClient(cluster) { client in
            await #expect {
                try await withinBound("the compacted watch's end") {
                    for try await _ in client.watch(prefix: "compact/".bytes, fromRevision: first) {}
                }
            } throws: { error in
                guard case EtcdError.compacted(let compactRevision) = error else { return false }
                return compactRevision == second
            }
        }
    }
}
