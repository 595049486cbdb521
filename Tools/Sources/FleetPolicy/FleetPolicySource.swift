/// Where fleet policy comes from: a store with revisions, a whole read of a prefix and a
/// stream of changes from a revision on, as etcd's v3 API has them. `preferences-fleet`
/// implements it over etcd's JSON gateway; ``FleetFollower`` needs nothing else.
public protocol FleetPolicySource: Sendable {
    /// Every key under `prefix` and its value, and the store's revision at that read.
    func snapshot(prefix: String) async throws -> FleetSnapshot

    /// The changes under `prefix` from `revision` on, in revision order, until the stream
    /// drops. A stream whose start revision was compacted away finishes by throwing
    /// ``FleetCompaction``; any other error means the source was lost and is tried again.
    func changes(prefix: String, from revision: Int64) -> AsyncThrowingStream<[FleetChange], any Error>
}

/// A whole read of the prefix at one revision.
public struct FleetSnapshot: Sendable {
    /// The store's revision at the read: the changes that follow start after it.
    public let revision: Int64
    /// Each key, its value and the revision that last changed it.
    public let entries: [(key: String, value: [UInt8], revision: Int64)]

    /// Creates a snapshot.
    public init(revision: Int64, entries: [(key: String, value: [UInt8], revision: Int64)]) {
        self.revision = revision
        self.entries = entries
    }
}

/// One put or delete of one key, at the revision that made it.
public struct FleetChange: Sendable, Hashable {
    /// A put of a value, or a delete.
    public enum Kind: Sendable, Hashable {
        /// The key now holds this value.
        case put([UInt8])
        /// The key was deleted.
        case delete
    }

    /// The key.
    public let key: String
    /// What happened to it.
    public let kind: Kind
    /// The store's revision that made the change.
    public let revision: Int64

    /// Creates a change.
    public init(key: String, kind: Kind, revision: Int64) {
        self.key = key
        self.kind = kind
        self.revision = revision
    }
}

/// The changes asked for were compacted away: only a whole read can catch up.
public struct FleetCompaction: Error, Sendable, Hashable, CustomStringConvertible {
    /// The oldest revision still kept.
    public let compactRevision: Int64

    /// Creates the error.
    public init(compactRevision: Int64) {
        self.compactRevision = compactRevision
    }

    /// Says what happened.
    public var description: String { "the changes asked for were compacted (the oldest revision kept is \(compactRevision))" }
}
