import EtcdGateway
import Foundation
import EtcdTestSupport
import TestSupport
import Testing

/// Losing a member of a three-member cluster: the one test with three members (they cost
/// three etcd processes), which also checks the harness's kill and restart.
// Skipped where etcd or etcdctl is missing (Debian's etcd-server and etcd-client packages).
@Suite("etcd endpoint failover", .ownThread, .enabled(if: EtcdCluster.unavailableReason == nil))
struct EtcdFailoverTests {
    @Test("a killed member's watch ends; the next call and a new watch go through another member") func killedMemberFailsOverToAnother() async throws {
        let cluster = try await EtcdCluster.start(members: 3)
        defer { cluster.shutdown() }
        try await withClient(cluster) { client in
            // A client tries the endpoints in order, so member 0 served these.
            let first = try await client.put(key: "failover/a".bytes, value: [1])
            let stream = client.watch(prefix: "failover/".bytes, fromRevision: first)
            #expect(try await events(1, from: stream).map(\.keyValue.modRevision) == [first])

            // Kill the member the client used, and make sure it was the leader too when it
            // was not, so both the connection and the election are lost.
            cluster.kill(member: 0)
            #expect(!cluster.isRunning(member: 0))
            let leader = try cluster.waitForLeader(within: .seconds(30))
            #expect(leader != 0)

            // The watch on the dead member ends with an error; the caller watches again.
            await #expect {
                try await withinBound("the dropped watch's end") {
                    for try await _ in stream {}
                }
            } throws: { error in
                guard case EtcdError.unavailable = error else { return false }
                return true
            }

            let second = try await client.put(key: "failover/b".bytes, value: [2])
            #expect(try await client.get(key: "failover/a".bytes)?.value == [1])
            let again = try await events(2, from: client.watch(prefix: "failover/".bytes, fromRevision: first))
            #expect(again.map(\.keyValue.modRevision) == [first, second])

            // Now the leader, which the client may be using.
            cluster.kill(member: leader)
            try cluster.restart(member: 0)
            #expect(cluster.isRunning(member: 0))
            _ = try cluster.waitForLeader(within: .seconds(30))
            let third = try await client.put(key: "failover/c".bytes, value: [3])
            #expect(try await client.range(prefix: "failover/".bytes).keyValues.map(\.modRevision) == [first, second, third])
            #expect(try cluster.currentRevision() >= third)
        }
    }
}
