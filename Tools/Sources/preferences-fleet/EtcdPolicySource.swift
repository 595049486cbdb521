import EtcdGateway
import FleetPolicy

/// Fleet policy read from etcd through its JSON gateway: the policy part of the prefix only
/// (``FleetLayout/policyRangeEnd``), so a host never hears the fleet's status writes.
///
/// Keys are read as UTF-8 (the layout's keys are text; one that is not cannot match it and
/// is refused by the policy as not in the layout).
struct EtcdPolicySource: FleetPolicySource {
    let client: EtcdClient

    func snapshot(prefix: String) async throws -> FleetSnapshot {
        let range = try await client.range(from: Array(prefix.utf8), to: Array(FleetLayout(prefix: prefix).policyRangeEnd.utf8))
        return FleetSnapshot(
            revision: range.revision,
            entries: range.keyValues.map { (String(decoding: $0.key, as: UTF8.self), $0.value, $0.modRevision) })
    }

    func changes(prefix: String, from revision: Int64) -> AsyncThrowingStream<[FleetChange], any Error> {
        let responses = client.watch(
            from: Array(prefix.utf8), to: Array(FleetLayout(prefix: prefix).policyRangeEnd.utf8), fromRevision: revision)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await response in responses {
                        continuation.yield(response.events.map { event in
                            FleetChange(
                                key: String(decoding: event.keyValue.key, as: UTF8.self),
                                kind: event.kind == .put ? .put(event.keyValue.value) : .delete,
                                revision: event.keyValue.modRevision)
                        })
                    }
                    continuation.finish()
                } catch EtcdError.compacted(let compactRevision) {
                    continuation.finish(throwing: FleetCompaction(compactRevision: compactRevision))
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// A host's statuses written to etcd through its JSON gateway.
struct EtcdStatusStore: FleetStatusStore {
    let client: EtcdClient

    func grantLease(seconds: Int64) async throws -> Int64 {
        try await client.grantLease(seconds: seconds).id
    }

    func keepAlive(lease: Int64) async throws -> Bool {
        try await client.keepAlive(EtcdLease(id: lease, seconds: 0)) > 0
    }

    func put(key: String, value: [UInt8], lease: Int64?) async throws {
        do {
            try await client.put(key: Array(key.utf8), value: value, lease: lease.map { EtcdLease(id: $0, seconds: 0) })
        } catch EtcdError.server(_, let message) where message.contains("lease not found") {
            throw FleetLeaseGone()
        }
    }

    func revoke(lease: Int64) async throws {
        try await client.revoke(EtcdLease(id: lease, seconds: 0))
    }
}
