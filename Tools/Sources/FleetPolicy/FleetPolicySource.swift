/// Where fleet policy comes from: a store with revisions, a whole read of a prefix and a
/// stream of changes from a revision on, as etcd's v3 API has them. `preferences-fleet`
/// implements it over etcd's JSON gateway; ``FleetFollower`` needs nothing else.
package protocol FleetPolicySource: Sendable {
    /// Every key under `prefix` and its value, and the store's revision at that read.
    func snapshot(prefix: String) async throws -> FleetSnapshot

    /// The changes under `prefix` from `revision` on, in revision order, until the stream
    /// drops. A stream whose start revision was compacted away finishes by throwing
    /// ``FleetCompaction``; any other error means the source was lost and is tried again.
    func changes(prefix: String, from revision: Int64) -> AsyncThrowingStream<[FleetChange], any Error>
}

/// A whole read of the prefix at one revision.
package struct FleetSnapshot: Sendable {
    /// The store's revision at the read: the changes that follow start after it.
    package let revision: Int64
    /// Each key, its value and the revision that last changed it.
    package let entries: [(key: String, value: [UInt8], revision: Int64)]

    /// Creates a snapshot.
    package init(revision: Int64, entries: [(key: String, value: [UInt8], revision: Int64)]) {
        self.revision = revision
        self.entries = entries
    }
}

/// One put or delete of one key, at the revision that made it.
package struct FleetChange: Sendable, Hashable {
    /// A put of a value, or a delete.
    package enum Kind: Sendable, Hashable {
        /// The key now holds this value.
        case put([UInt8])
        /// The key was deleted.
        case delete
    }

    /// The key.
    package let key: String
    /// What happened to it.
    package let kind: Kind
    /// The store's revision that made the change.
    package let revision: Int64

    /// Creates a change.
    package init(key: String, kind: Kind, revision: Int64) {
        self.key = key
        self.kind = kind
        self.revision = revision
    }
}

/// The changes asked for were compacted away: only a whole read can catch up.
package struct FleetCompaction: Error, Sendable, Hashable, CustomStringConvertible {
    /// The oldest revision still kept.
    package let compactRevision: Int64

    /// Creates the error.
    package init(compactRevision: Int64) {
        self.compactRevision = compactRevision
    }

    /// Says what happened.
    package var description: String { "the changes asked for were compacted (the oldest revision kept is \(compactRevision))" }
}
