/// An etcd lease: keys put with it are deleted when it expires (its holder stopped renewing
/// it) or is revoked.
package struct EtcdLease: Sendable, Hashable {
    /// The lease's id.
    package let id: Int64
    /// The seconds it lasts without a keep-alive, as etcd granted it.
    package let seconds: Int64

    /// Creates a lease value (the client makes them from etcd's answers).
    package init(id: Int64, seconds: Int64) {
        self.id = id
        self.seconds = seconds
    }
}

/// One comparison of an etcd transaction (``EtcdClient/transaction(if:then:else:)``).
package enum EtcdComparison: Sendable, Hashable {
    /// The key's last change was at this revision (it exists and nobody changed it since).
    case modRevision(key: [UInt8], equals: Int64)
    /// The key does not exist.
    case absent(key: [UInt8])
}

/// One operation of an etcd transaction.
package enum EtcdOperation: Sendable, Hashable {
    /// Sets a key, with a lease or none.
    case put(key: [UInt8], value: [UInt8], lease: EtcdLease? = nil)
    /// Deletes a key.
    case delete(key: [UInt8])
}

/// What a transaction did.
package struct EtcdTransactionResult: Sendable, Hashable {
    /// Whether every comparison held, so the `then` operations ran.
    package let succeeded: Bool
    /// The store's revision after it: the operations' revision when they changed something.
    package let revision: Int64
}
