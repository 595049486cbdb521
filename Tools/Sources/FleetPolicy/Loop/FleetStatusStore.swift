/// Where a host's statuses go: a store with leases, as etcd's v3 API has them.
/// `preferences-fleet` implements it over etcd's JSON gateway; ``FleetStatusReporter`` needs
/// nothing else.
package protocol FleetStatusStore: Sendable {
    /// Grants a lease of about `seconds`; returns its id.
    func grantLease(seconds: Int64) async throws -> Int64

    /// Renews the lease; false when it is gone (expired or revoked), with its keys.
    func keepAlive(lease: Int64) async throws -> Bool

    /// Puts `value` at `key`, with the lease (nil: none).
    ///
    /// - Throws: ``FleetLeaseGone`` when the lease expired or was revoked; any other error
    ///   when the store cannot be reached, and the put is tried again.
    func put(key: String, value: [UInt8], lease: Int64?) async throws

    /// Revokes the lease, deleting its keys at once.
    func revoke(lease: Int64) async throws
}

/// The lease a put named is gone: grant a new one and put everything again.
package struct FleetLeaseGone: Error, Sendable, Hashable {
    /// Creates the error.
    package init() {}
}
