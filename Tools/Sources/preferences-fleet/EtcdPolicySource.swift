import EtcdGateway
import FleetPolicy

/// Fleet policy read from etcd through its JSON gateway.
///
/// Keys are read as UTF-8 (the layout's keys are text; one that is not cannot match it and
/// is refused by the policy as not in the layout).
struct EtcdPolicySource: FleetPolicySource {
    let client: EtcdClient

    func snapshot(prefix: String) async throws -> FleetSnapshot {
        let range = try await client.range(prefix: Array(prefix.utf8))
        return FleetSnapshot(
            revision: range.revision,
            entries: range.keyValues.map { (String(decoding: $0.key, as: UTF8.self), $0.value, $0.modRevision) })
    }

    func changes(prefix: String, from revision: Int64) -> AsyncThrowingStream<[FleetChange], any Error> {
        let responses = client.watch(prefix: Array(prefix.utf8), fromRevision: revision)
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
