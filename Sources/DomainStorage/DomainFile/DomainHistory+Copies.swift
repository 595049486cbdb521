import Synchronization
package import SystemPackage

extension DomainHistory {
    /// Numbers the temporary names of copies written in a history directory.
    private static let copyCounter = Atomic<UInt64>(0)

    /// Writes `bytes` into `directory` as a new file named `name`, carrying `source`'s mode,
    /// commit record, origin and modification time, synced before it gets its name: a
    /// generation that is a copy of a version rather than a link to it (a version without its
    /// private values), or a generation rewritten by a purge (with `replacing`).
    ///
    /// The bytes go to a temporary name in the same directory first, so a crash leaves the
    /// name either as it was or holding the whole new file (the caller syncs the directory).
    /// With `replacing` false it fails with `EEXIST` if `name` is taken.
    package static func writeCopy(
        of source: FilePath, holding bytes: [UInt8], into directory: FileDescriptor, as name: String, replacing: Bool = false
    ) throws(Errno) {
        let status = try Errno.typed { try source.stat(followTargetSymlink: false) }
        let temporary = ".\(name).\(SystemCalls.processID())-\(copyCounter.add(1, ordering: .relaxed).oldValue).tmp"
        let descriptor = try SystemCalls.createExclusively(temporary, in: directory, permissions: .ownerReadWrite)
        do throws(Errno) {
            defer { try? descriptor.close() }
            _ = try Errno.typed { try descriptor.writeAll(bytes) }
            if status.permissions != .ownerReadWrite { try SystemCalls.fchmod(descriptor, status.permissions) }
            // What `defaults history` says of the version: who wrote it, and when.
            for attribute in [CommitRecord.attributeName, CommitOrigin.attributeName] {
                if let value = try? SystemCalls.extendedAttribute(attribute, atPath: source, limit: 4096) {
                    try? SystemCalls.setExtendedAttribute(attribute, to: value, of: descriptor)
                }
            }
            try SystemCalls.setModificationTime(descriptor, nanoseconds: FileIdentity(status).modificationTime)
            if !DurabilityFaults.omitsFileSync { try SystemCalls.fsync(descriptor) }
            try SystemCalls.rename(temporary, to: name, in: directory, replacing: replacing)
        } catch {
            try? SystemCalls.unlink(temporary, in: directory)
            throw error
        }
    }
}
