
/// Which cohort a host falls in for staged rollouts: a number from 0 to 9,999 (a basis point
/// of the fleet) from a hash of its name, the same on every machine and in every run, so a
/// rollout's first 1% are always the same hosts and each later step adds hosts to them.
///
/// The bucket is the first eight bytes of the SHA-256 of the name's UTF-8, as a big-endian
/// unsigned integer, modulo 10,000: any language computes it with its standard library.
package enum FleetCohort {
    /// The number of buckets: a step's share is a count of them (basis points).
    package static let buckets = 10_000

    /// The bucket of `hostname`.
    package static func bucket(of hostname: String) -> Int {
        let digest = SHA256.hash(Array(hostname.utf8))
        let prefix = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(prefix % UInt64(buckets))
    }
}
