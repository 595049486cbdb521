import EtcdGateway
import Foundation
import Logging
import EtcdTestSupport
import TestSupport
import Testing

/// Reads, writes and watches through the gateway against one shared single-member cluster.
// Skipped where etcd or etcdctl is missing (Debian's etcd-server and etcd-client packages).
@Suite("etcd keys and values", .ownThread, .enabled(if: EtcdCluster.unavailableReason == nil), .sharedEtcdCluster)
struct EtcdKeyValueTests {
    /// Every byte value survives a put, a get and a range, in keys and values alike, and the
    /// revisions are etcd's.
    @Test("keys and values of all 256 byte values round-trip, with their revisions and versions") func binaryRoundTrip() async throws {
        let cluster = try SharedEtcdCluster.cluster()
        let prefix = uniquePrefix("round-trip").bytes
        let allBytes = (0...255).map { UInt8($0) }
        try await withClient(cluster) { client in
            let first = try await client.put(key: prefix + [0x00, 0xFF], value: allBytes)
            let second = try await client.put(key: prefix + "b".bytes, value: [])
            let third = try await client.put(key: prefix + [0x00, 0xFF], value: allBytes.reversed())
            #expect(first < second && second < third)

            let stored = try #require(try await client.get(key: prefix + [0x00, 0xFF]))
            #expect(stored.value == allBytes.reversed())
            #expect(stored.createRevision == first)
            #expect(stored.modRevision == third)
            #expect(stored.version == 2)
            #expect(try await client.get(key: prefix + "b".bytes)?.value == [])
            #expect(try await client.get(key: prefix + "missing".bytes) == nil)

            let range = try await client.range(prefix: prefix)
            #expect(range.keyValues.map(\.key) == [prefix + [0x00, 0xFF], prefix + "b".bytes])
            #expect(range.revision >= third)

            let deleted = try await client.delete(key: prefix + "b".bytes)
            #expect(deleted > third)
            #expect(try await client.get(key: prefix + "b".bytes) == nil)
            #expect(try await client.range(prefix: prefix).keyValues.count == 1)
        }
    }

    /// The harness puts values through etcdctl's standard input: NUL bytes and trailing
    /// newlines arrive intact, as the client reads them.
    @Test("values put by etcdctl from standard input read back byte for byte") func harnessPutsBinaryValues() async throws {
        let cluster = try SharedEtcdCluster.cluster()
        let key = uniquePrefix("harness") + "value"
        let value = Data((0...255).map { UInt8($0) } + [10, 10])
        let revision = try cluster.put(key, value)
        #expect(try cluster.currentRevision() >= revision)
        try await withClient(cluster) { client in
            let stored = try #require(try await client.get(key: key.bytes))
            #expect(stored.value == [UInt8](value))
            #expect(stored.modRevision == revision)
            #expect(try cluster.put(key, Data()) > revision)
            #expect(try await client.get(key: key.bytes)?.value == [])
        }
    }

    /// A prefix ending in 0xFF bytes still covers exactly its keys (the range end increments
    /// the last byte below 0xFF).
    @Test("a prefix ending in 0xFF covers exactly its keys") func prefixEndingInFF() async throws {
        let cluster = try SharedEtcdCluster.cluster()
        let base = uniquePrefix("ff").bytes
        try await withClient(cluster) { client in
            try await client.put(key: base + [0x61, 0xFF, 0x01], value: [1])
            try await client.put(key: base + [0x61, 0xFF, 0xFF], value: [2])
            try await client.put(key: base + [0x62], value: [3])
            try await client.put(key: base + [0x61, 0xFE], value: [4])
            let range = try await client.range(prefix: base + [0x61, 0xFF])
            #expect(range.keyValues.map(\.value) == [[1], [2]])
        }
    }

    /// A watch from a revision yields every put and delete under the prefix since then, in
    /// order, and then the changes made while it runs; keys outside the prefix are not seen.
    @Test("a watch yields past puts and deletes in order, then live ones, and nothing outside its prefix") func watchYieldsEveryEventInOrder() async throws {
        let cluster = try SharedEtcdCluster.cluster()
        let prefix = uniquePrefix("watch")
        try await withClient(cluster) { client in
            var expected: [(EtcdEvent.Kind, String, Int64)] = []
            for index in 0..<5 {
                expected.append((.put, "\(prefix)\(index)", try await client.put(key: "\(prefix)\(index)".bytes, value: [UInt8(index)])))
                try await client.put(key: "\(prefix.dropLast())-outside".bytes, value: [])
            }
            expected.append((.delete, "\(prefix)1", try await client.delete(key: "\(prefix)1".bytes)))
            expected.append((.put, "\(prefix)2", try await client.put(key: "\(prefix)2".bytes, value: [9])))

            let stream = client.watch(prefix: prefix.bytes, fromRevision: expected[0].2)
            let history = try await events(expected.count, from: stream)
            #expect(history.map(\.kind) == expected.map(\.0))
            #expect(history.map(\.keyValue.key) == expected.map(\.1.bytes))
            #expect(history.map(\.keyValue.modRevision) == expected.map(\.2))
            #expect(history.last?.keyValue.value == [9])
            #expect(history.last?.keyValue.version == 2)
            #expect(history[5].keyValue.value == [])

            let live = try await client.delete(key: "\(prefix)0".bytes)
            let later = try await events(1, from: stream)
            #expect(later.map(\.kind) == [.delete])
            #expect(later.map(\.keyValue.modRevision) == [live])
        }
    }

    /// A member whose kernel accepts the connection but that never answers (SIGSTOPped, a
    /// paused machine): the watch gives it the request timeout to create the watch, then
    /// moves to the next endpoint; with no other, it ends as unavailable instead of hanging.
    @Test("a watch on an endpoint that accepts but never answers moves to the next endpoint") func silentEndpointWatchFailsOver() async throws {
        let cluster = try SharedEtcdCluster.cluster()
        let prefix = uniquePrefix("silent")
        let silent = try SilentListener()
        defer { silent.close() }
        let revision = try await withClient(cluster) { client in
            try await client.put(key: "\(prefix)a".bytes, value: [1])
        }
        // The silent endpoint first, and no unary call before the watch, so the watch tries it first.
        try await withClient(endpoints: [silent.url] + cluster.clientURLs, requestTimeout: .seconds(1)) { client in
            let seen = try await events(1, from: client.watch(prefix: prefix.bytes, fromRevision: revision))
            #expect(seen.map(\.keyValue.modRevision) == [revision])
        }
        try await withClient(endpoints: [silent.url], requestTimeout: .seconds(1)) { alone in
            await #expect {
                try await withinBound("the silent endpoint's watch to fail") {
                    for try await _ in alone.watch(prefix: prefix.bytes, fromRevision: revision) {}
                }
            } throws: { error in
                guard case EtcdError.unavailable(let failures) = error else { return false }
                return failures.contains(silent.url) && failures.contains("did not create the watch")
            }
        }
    }

    /// With no endpoint listening, a request fails with `.unavailable` naming each endpoint.
    @Test("with no endpoint reachable, a call fails as unavailable and names each endpoint") func unreachableEndpoints() async throws {
        let client = try EtcdClient(
            configuration: EtcdConfiguration(endpoints: ["http://127.0.0.1:1", "http://127.0.0.1:9"]),
            logger: .init(label: "EtcdGatewayTests"))
        await #expect {
            _ = try await client.get(key: [1])
        } throws: { error in
            guard case EtcdError.unavailable(let failures) = error else { return false }
            return failures.contains("127.0.0.1:1") && failures.contains("127.0.0.1:9")
        }
        await #expect {
            for try await _ in client.watch(prefix: [1], fromRevision: 1) {}
        } throws: { error in
            guard case EtcdError.unavailable = error else { return false }
            return true
        }
        try await client.shutdown()
    }

    /// A TLS file that cannot be read fails when the client is made, not at its first request.
    @Test("a missing TLS file fails when the client is made, not at its first call") func missingTLSFileThrowsAtInit() {
        #expect(throws: (any Error).self) {
            _ = try EtcdClient(
                configuration: EtcdConfiguration(
                    endpoints: ["https://127.0.0.1:1"], tls: EtcdTLS(caFile: "/nonexistent/ca.pem")),
                logger: .init(label: "EtcdGatewayTests"))
        }
    }
}
