/// A fingerprint of a domain file's bytes: their count and a keyed hash.
///
/// File timestamps come from a clock that ticks every few milliseconds, so a file rewritten
/// in place within one tick of the last write can keep its size, times and inode: its
/// identity alone cannot tell the two versions apart. Comparing fingerprints can. The hash
/// is Swift's `Hasher`, keyed afresh in every process, so nobody can craft a file whose
/// fingerprint matches another's.
package struct ContentDigest: Sendable, Hashable {
    /// How many bytes were hashed.
    package let byteCount: Int
    /// The keyed hash of those bytes.
    package let hash: Int

    /// The fingerprint of `bytes`.
    package init(of bytes: [UInt8]) {
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        self.byteCount = bytes.count
        self.hash = hasher.finalize()
    }
}
