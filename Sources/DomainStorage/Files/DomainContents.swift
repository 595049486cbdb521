package import PropertyList
/// The values of a domain file as read from disk, with the identity of the bytes they came from.
///
/// The identity is taken from the open descriptor the bytes were read through, so it describes
/// exactly those bytes even if the file is replaced a moment later; comparing it with a later
/// ``DomainFile/identity()`` tells whether the file on disk is still this version (see
/// ``DomainFile/stillHolds(_:policy:)`` for when that comparison alone is not enough).
package struct DomainContents: Sendable, Equatable {
    /// The domain's keys and values (the file's top-level dictionary).
    package let values: [String: PropertyListValue]
    /// The identity of the file these values were read from or written to.
    package let identity: FileIdentity
    /// The fingerprint of the bytes the values were read from or written as.
    package let digest: ContentDigest
    /// Whether the identity alone tells any later change apart from this version: true once
    /// the file's timestamps were older than the file-system clock's granularity when this
    /// version was last confirmed (see ``FileIdentity/isSettled(at:)``).
    package var isSettled: Bool

    /// The file's size in bytes.
    package var byteCount: Int { digest.byteCount }

    /// Equal when they describe the same version of the file with the same values; whether
    /// the version is settled yet is what this process knows of it, not part of it.
    package static func == (lhs: DomainContents, rhs: DomainContents) -> Bool {
        lhs.values == rhs.values && lhs.identity == rhs.identity && lhs.digest == rhs.digest
    }

    /// Contents this process has just written with ``DomainFile/replace(with:keepingCorruptFileAside:)``,
    /// whose identity carries a modification time no later write can reproduce: settled at
    /// once, so this process never reads or fingerprints its own write again.
    package init(written values: [String: PropertyListValue], identity: FileIdentity, digest: ContentDigest) {
        self.values = values
        self.identity = identity
        self.digest = digest
        self.isSettled = true
    }

    /// Contents read or written at `observedAt` (nanoseconds since 1970, taken no later than
    /// the bytes were read or written); settled if the file's timestamps were old enough then.
    package init(values: [String: PropertyListValue], identity: FileIdentity, digest: ContentDigest, observedAt: Int64) {
        self.values = values
        self.identity = identity
        self.digest = digest
        self.isSettled = identity.isSettled(at: observedAt)
    }
}
