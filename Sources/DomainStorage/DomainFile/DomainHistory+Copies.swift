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
        let temporary = ".\(name).\(SystemCalls.processID())-\(copyCounter.add(1, ordering: .relaxed).oldValue)\(temporarySuffix)"
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

    /// The end of every temporary name ``writeCopy(of:holding:into:as:replacing:)`` uses.
    private static let temporarySuffix = ".tmp"

    /// Whether `name` is the temporary name ``writeCopy(of:holding:into:as:replacing:)`` gives
    /// a generation it writes, `.<N>.plist.<digits>-<digits>.tmp`, and nothing else.
    ///
    /// Copies are written only under the domain's lock and their temporary file is renamed or
    /// removed before the lock is let go, so a holder of the lock that finds one knows its
    /// writer died (a crash, a power cut) and may remove it: nobody else ever would. The whole
    /// name must match, so a file of any other form put in the directory is never taken.
    package static func isTemporaryCopyName(_ name: String) -> Bool {
        guard name.hasPrefix("."), name.hasSuffix(temporarySuffix) else { return false }
        // `<N>.plist.<pid>-<counter>`: split at its last dot, as the generation's name has one.
        let middle = name.utf8.dropFirst().dropLast(temporarySuffix.utf8.count)
        guard let dot = middle.lastIndex(of: UInt8(ascii: ".")) else { return false }
        let generation = String(decoding: middle[..<dot], as: UTF8.self)
        let parts = middle[middle.index(after: dot)...].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        return generationNumber(ofFileName: generation) != nil && parts.count == 2
            && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
    }
}
