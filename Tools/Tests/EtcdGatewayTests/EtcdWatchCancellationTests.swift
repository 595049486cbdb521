import EtcdGateway
import Foundation
import FoundationNetworking
import EtcdTestSupport
import TestSupport
import Testing

/// Cancelling the task that consumes a watch ends its HTTP stream, as etcd itself counts
/// (its `etcd_debugging_mvcc_watch_stream_total` gauge). Its own cluster, so no other
/// test's watches are counted.
// Skipped where etcd or etcdctl is missing (Debian's etcd-server and etcd-client packages).
@Suite("cancelling an etcd watch", .ownThread, .enabled(if: EtcdCluster.unavailableReason == nil))
struct EtcdWatchCancellationTests {
    @Test("cancelling the consuming task ends the watch at etcd too") func cancellingTheConsumerEndsTheStream() async throws {
        let cluster = try await EtcdCluster.start(members: 1)
        defer { cluster.shutdown() }
        let metrics = try #require(URL(string: cluster.clientURLs[0] + "/metrics"))
        try await withClient(cluster) { client in
            let revision = try await client.put(key: "cancel/a".bytes, value: [1])
            let consumer = Task {
                for try await _ in client.watch(prefix: "cancel/".bytes, fromRevision: revision) {}
            }
            try await withinBound("etcd counting the watch stream") {
                while try await Self.watchStreams(metrics) != 1 { try await Task.sleep(for: .milliseconds(50)) }
            }
            consumer.cancel()
            _ = await consumer.result
            try await withinBound("etcd closing the watch stream") {
                while try await Self.watchStreams(metrics) != 0 { try await Task.sleep(for: .milliseconds(50)) }
            }
        }
    }

    /// How many watch streams etcd has open, from its Prometheus metrics.
    private static func watchStreams(_ metrics: URL) async throws -> Int {
        let (data, _) = try await URLSession.shared.data(from: metrics)
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n")
            .first { $0.hasPrefix("etcd_debugging_mvcc_watch_stream_total ") }
        return Int(try #require(line?.split(separator: " ").last)) ?? -1
    }
}
