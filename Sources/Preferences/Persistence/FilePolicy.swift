/// The limits and trust rules a domain file is read and written under.
///
/// Domain files can be edited by hand or planted by someone else, so every read checks the
/// file against a policy before decoding it, and every write respects its size limit.
struct FilePolicy: Sendable, Hashable {
    /// The default size limit: 1 MiB.
    static let defaultSizeLimit = 1 << 20

    /// The largest domain file, in bytes, that is read or written.
    ///
    /// Larger files are rejected before any byte is decoded, and a write whose encoding would
    /// be larger is refused, so one oversized domain cannot exhaust memory.
    var sizeLimit: Int
    /// How long an update waits for another process to release the domain's lock before it
    /// gives up with a `lockTimeout` error.
    var lockTimeout: Duration
    /// The user IDs whose files are trusted; a file owned by anyone else is refused.
    var trustedOwners: [UInt32]
    /// Whether an update creates the domain's directory (and missing parents, mode 0700) when
    /// it does not exist; if false, a missing directory is an error.
    var createsDirectory: Bool

    /// Creates a policy; the defaults are 1 MiB, 10 seconds, only this process's effective
    /// user, and creating the directory.
    init(
        sizeLimit: Int = FilePolicy.defaultSizeLimit,
        lockTimeout: Duration = .seconds(10),
        trustedOwners: [UInt32] = [SystemCalls.effectiveUserID()],
        createsDirectory: Bool = true
    ) {
        self.sizeLimit = sizeLimit
        self.lockTimeout = lockTimeout
        self.trustedOwners = trustedOwners
        self.createsDirectory = createsDirectory
    }
}
