/// What a writer records about one version of a domain file it commits: the version's
/// sequence number, the writing process and its systemd unit, and the modification time the
/// writer stamped on the file.
///
/// It is stored in the extended attribute ``attributeName`` of the file itself, set on the
/// temporary file before it is synced, so it is durable with the data, travels with the inode
/// when the file is renamed into place and later linked into the history directory, and costs
/// no second file. The text is one short line, `1 <sequence> <pid> <mtime-ns> <unit or ->`,
/// so `getfattr -n user.swift-preferences.commit` shows it as it is.
///
/// The modification time tells whether the record still describes the bytes: whoever
/// rewrites the file in place (an editor, `cat >`) moves the time, and keeps the attribute,
/// so a record whose time no longer matches the file's says "edited outside the library".
package struct CommitRecord: Sendable, Hashable {
    /// The extended attribute holding the record (the `user.` namespace: any file owner may
    /// set it, and file systems without user attributes refuse it with `ENOTSUP`).
    package static let attributeName = "user.swift-preferences.commit"
    /// The largest record read: a longer attribute is not ours.
    package static let maximumSize = 512

    /// The version's sequence number in its domain: one more than the generation it replaced.
    package let sequence: UInt64
    /// The writing process's ID.
    package let processID: Int32
    /// The writing process's systemd unit (`foo.service`, `session-2.scope`), if it runs in one.
    package let unit: String?
    /// The modification time the writer stamped on the file, in nanoseconds since 1970: also
    /// the wall-clock time of the commit.
    package let modificationTime: Int64

    /// Creates a record.
    package init(sequence: UInt64, processID: Int32, unit: String?, modificationTime: Int64) {
        self.sequence = sequence
        self.processID = processID
        self.unit = unit
        self.modificationTime = modificationTime
    }

    /// The record as the attribute's bytes.
    package var encoded: [UInt8] {
        Array("1 \(sequence) \(processID) \(modificationTime) \(unit ?? "-")".utf8)
    }

    /// Reads a record from the attribute's bytes; nil if they are not one (another version's,
    /// or damaged: such a file's writer is then unknown, which is all that is lost).
    package init?(decoding bytes: [UInt8]) {
        guard bytes.count <= Self.maximumSize, let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0] == "1",
            let sequence = UInt64(fields[1]), sequence > 0,
            let processID = Int32(fields[2]), processID > 0,
            let modificationTime = Int64(fields[3]),
            !fields[4].isEmpty
        else { return nil }
        self.init(
            sequence: sequence, processID: processID, unit: fields[4] == "-" ? nil : String(fields[4]),
            modificationTime: modificationTime)
    }
}
