extension EtcdClient {
    // MARK: Leases

    /// Grants a lease of `seconds` (etcd raises a shorter one to its minimum, about 1.5
    /// election timeouts).
    package func grantLease(seconds: Int64) async throws -> EtcdLease {
        let response = try await unary("/v3/lease/grant", Gateway.LeaseGrantRequest(ttl: String(seconds)), as: Gateway.LeaseResponse.self)
        guard response.id != 0 else { throw EtcdError.malformed("/v3/lease/grant: no lease id in the answer") }
        return EtcdLease(id: response.id, seconds: response.ttl)
    }

    /// Renews `lease` for its full time.
    ///
    /// One request and its answer (the gateway turns etcd's keep-alive stream into one
    /// exchange per call), through the same endpoint failover as every unary request.
    ///
    /// - Returns: The seconds the lease now has; 0 when it is gone (expired or revoked): its
    ///   keys are gone too, and a new lease is needed.
    package func keepAlive(_ lease: EtcdLease) async throws -> Int64 {
        let response = try await unary("/v3/lease/keepalive", Gateway.LeaseRequest(id: String(lease.id)), as: Gateway.KeepAliveResponse.self)
        return response.result?.ttl ?? 0
    }

    /// Revokes `lease`: its keys are deleted at once. A lease already gone is not an error.
    package func revoke(_ lease: EtcdLease) async throws {
        do {
            _ = try await unary("/v3/lease/revoke", Gateway.LeaseRequest(id: String(lease.id)), as: Gateway.HeaderResponse.self)
        } catch EtcdError.server(_, let message) where message.contains("lease not found") {
            return
        }
    }

    // MARK: Transactions

    /// Runs `then` if every comparison in `conditions` holds, else `otherwise`, atomically:
    /// the operations take effect at one revision, seen by watchers as one batch.
    @discardableResult
    package func transaction(
        if conditions: [EtcdComparison], then operations: [EtcdOperation], else otherwise: [EtcdOperation] = []
    ) async throws -> EtcdTransactionResult {
        let request = Gateway.TransactionRequest(
            compare: conditions.map(Self.gatewayComparison), success: operations.map(Self.gatewayOperation),
            failure: otherwise.map(Self.gatewayOperation))
        let response = try await unary("/v3/kv/txn", request, as: Gateway.TransactionResponse.self)
        return EtcdTransactionResult(succeeded: response.succeeded ?? false, revision: response.header?.revision ?? 0)
    }

    private static func gatewayComparison(_ comparison: EtcdComparison) -> Gateway.TransactionRequest.Compare {
        switch comparison {
        case .modRevision(let key, let revision):
            Gateway.TransactionRequest.Compare(key: Gateway.base64(key), target: "MOD", result: "EQUAL", modRevision: String(revision))
        case .absent(let key):
            // A key that does not exist has create_revision 0.
            Gateway.TransactionRequest.Compare(key: Gateway.base64(key), target: "CREATE", result: "EQUAL", createRevision: "0")
        }
    }

    private static func gatewayOperation(_ operation: EtcdOperation) -> Gateway.TransactionRequest.Operation {
        switch operation {
        case .put(let key, let value, let lease):
            Gateway.TransactionRequest.Operation(
                requestPut: Gateway.PutRequest(key: Gateway.base64(key), value: Gateway.base64(value), lease: lease.map { String($0.id) }))
        case .delete(let key):
            Gateway.TransactionRequest.Operation(requestDeleteRange: Gateway.DeleteRangeRequest(key: Gateway.base64(key)))
        }
    }
}
