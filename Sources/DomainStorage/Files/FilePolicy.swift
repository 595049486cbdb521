package import SystemPackage

/// The limits and trust rules a domain file is read and written under.
///
/// Domain files can be edited by hand or planted by someone else, so every read checks the
/// file against a policy before decoding it, and every write respects its size limit.
package struct FilePolicy: Sendable, Hashable {
    /// The default size limit: 1 MiB.
    package static let defaultSizeLimit = 1 << 20
    /// The default number of generations kept per domain: 32.
    package static let defaultGenerationLimit = 32
    /// The default bytes of generations kept per domain: 8 MiB.
    package static let defaultGenerationByteLimit = 8 << 20

    /// The largest domain file, in bytes, that is read or written.
    ///
    /// Larger files are rejected before any byte is decoded, and a write whose encoding would
    /// be larger is refused, so one oversized domain cannot exhaust memory.
    package var sizeLimit: Int
    /// How long an update waits for another process to release the domain's lock before it
    /// gives up with a `lockTimeout` error.
    package var lockTimeout: Duration
    /// The user IDs whose files are trusted; a file owned by anyone else is refused.
    package var trustedOwners: [UInt32]
    /// Whether an update creates the domain's directory (and missing parents, mode 0700) when
    /// it does not exist; if false, a missing directory is an error.
    package var createsDirectory: Bool
    /// The most generations of the domain kept in its history (``DomainHistory``); 0 keeps
    /// none and leaves the history directory alone.
    package var generationLimit: Int
    /// The most bytes the domain's generations may take together; the newest generation is
    /// kept even if it alone is larger.
    package var generationByteLimit: Int
    /// The mode of every domain file written: 0600, the user's alone, for the user's own
    /// files; 0644 for the managed layer, which every user's programs must read.
    package var fileMode: FilePermissions
    /// The mode of directories a write creates: 0700, or 0755 for the managed layer.
    package var directoryMode: FilePermissions
    /// Keys whose values are secrets (declared private): a commit never keeps them in the
    /// generation of the file it replaces, and removing one purges it from every kept copy.
    package var privateKeys: Set<String> = []

    /// Creates a policy; the defaults are 1 MiB, 10 seconds, only this process's effective
    /// user, creating the directory, and 32 generations within 8 MiB.
    package init(
        sizeLimit: Int = FilePolicy.defaultSizeLimit,
        lockTimeout: Duration = .seconds(10),
        trustedOwners: [UInt32] = [SystemCalls.effectiveUserID()],
        createsDirectory: Bool = true,
        generationLimit: Int = FilePolicy.defaultGenerationLimit,
        generationByteLimit: Int = FilePolicy.defaultGenerationByteLimit,
        fileMode: FilePermissions = .ownerReadWrite,
        directoryMode: FilePermissions = .ownerReadWriteExecute
    ) {
        self.sizeLimit = sizeLimit
        self.lockTimeout = lockTimeout
        self.trustedOwners = trustedOwners
        self.createsDirectory = createsDirectory
        self.generationLimit = generationLimit
        self.generationByteLimit = generationByteLimit
        self.fileMode = fileMode
        self.directoryMode = directoryMode
    }
}
