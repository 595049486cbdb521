/// The values of a domain file as read from disk, with the identity of the bytes they came from.
///
/// The identity is taken from the open descriptor the bytes were read through, so it describes
/// exactly those bytes even if the file is replaced a moment later; comparing it with a later
/// ``DomainFile/identity()`` tells whether the file on disk is still this version.
struct DomainContents: Sendable, Equatable {
    /// The domain's keys and values (the file's top-level dictionary).
    let values: [String: PropertyListValue]
    /// The identity of the file these values were read from or written to.
    let identity: FileIdentity
    /// The file's size in bytes.
    let byteCount: Int
}
